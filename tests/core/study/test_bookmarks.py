"""Bookmarks: kept by lecture and time, they survive a re-ingest and outlive their lecture."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from lecturetui.cli import cli
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.lectures import Segment
from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from lecturetui.core.records import AnswerRecord
from lecturetui.core.storage.store import LectureRow, Store
from tests.fakes import FakeEmbedder

WINDOWS = [
    Segment(0.0, 120.0, "o tensor é um vetor de muitas dimensões e a GPU multiplica matrizes"),
    Segment(85.0, 205.0, "a GPU multiplica matrizes muito depressa então o treino fica rápido"),
    Segment(170.0, 290.0, "depois salvamos o modelo no formato hdf5 para usar mais tarde"),
]


def lecture(
    store: Store,
    lecture_id: str = "aula-d",
    title: str = "Aula D",
    course: str | None = "Redes neurais",
    segments: list[Segment] | None = None,
) -> list[int]:
    """Store a lecture without embedding it (bookmarks need no model); its segment ids."""
    record = LectureRow(
        lecture_id, title, course, "pt", f"/aulas/{lecture_id}.vtt", lecture_id,
        "https://youtu.be/abc", "vtt", 290.0, f"hash-{lecture_id}", None, "{}",
    )  # fmt: skip
    return store.save_lecture(record, segments or WINDOWS).added_segment_ids


@pytest.fixture
def library(home: Path) -> Iterator[Library]:
    lib = Library(DataHome.resolve(), embedder=FakeEmbedder())
    yield lib
    lib.close()


def test_a_bookmark_keeps_its_moment_note_and_link(library: Library) -> None:
    ids = lecture(library.store)
    marks = library.bookmarks()
    mark = marks.add(ids[1], note="  GPUs multiplicam matrizes  ")
    assert mark.note == "GPUs multiplicam matrizes"
    assert (mark.moment.start, mark.moment.end, mark.segment_id) == (85.0, 205.0, ids[1])
    assert mark.moment.url == "https://youtu.be/abc?t=85"
    assert mark.moment.span == "00:01:25–00:03:25"
    assert (mark.moment.lecture_title, mark.moment.course) == ("Aula D", "Redes neurais")
    assert mark.quote == WINDOWS[1].text and not mark.orphaned
    assert marks.set_note(mark.id, "outra nota").note == "outra nota"
    assert [b.id for b in marks.all()] == [mark.id]
    # the same moment again updates the note instead of adding a second bookmark
    again = marks.add(ids[1], note="nota nova")
    assert again.id == mark.id and again.note == "nota nova" and marks.count() == 1
    assert marks.add(ids[1]).note == "nota nova"  # no note given: the note stays


def test_a_moment_across_segments_quotes_their_text_once(library: Library) -> None:
    ids = lecture(library.store)
    inside = library.bookmarks().add(ids[0], start=30.0, end=60.0)
    assert inside.quote == WINDOWS[0].text and inside.moment.span == "00:00:30–00:01:00"
    across = library.bookmarks().add(ids[0], start=100.0, end=180.0)
    assert across.quote.count("a GPU multiplica matrizes") == 1
    assert across.quote.startswith("o tensor") and across.quote.endswith("mais tarde")
    given = library.bookmarks().add(ids[0], start=10.0, end=20.0, quote="só isto")
    assert given.quote == "só isto"


def test_bookmarks_survive_a_reingest_and_outlive_their_lecture(library: Library) -> None:
    store = library.store
    ids = lecture(store)
    marks = library.bookmarks()
    mark = marks.add(ids[1], note="GPU")
    new_ids = lecture(store, segments=[Segment(0.0, 100.0, "início"), Segment(90.0, 290.0, "fim")])
    assert set(new_ids).isdisjoint(ids)
    moved = marks.get(mark.id)
    assert moved.segment_id == new_ids[1] and moved.note == "GPU" and not moved.orphaned
    store.delete_lecture("aula-d")
    orphan = marks.get(mark.id)
    assert orphan.orphaned and orphan.segment_id is None
    assert orphan.moment.lecture_title == "Aula D" and orphan.quote == WINDOWS[1].text
    assert orphan.moment.url == "https://youtu.be/abc?t=85"
    lecture(store)  # ingested again under the same id: the bookmark attaches to it
    assert not marks.get(mark.id).orphaned
    assert marks.delete(mark.id).id == mark.id and marks.count() == 0


def test_bookmarks_list_by_course_lecture_and_time(library: Library) -> None:
    a = lecture(library.store, "aula-b", "Aula B", "Redes neurais")
    b = lecture(library.store, "aula-a", "Aula A", "Redes neurais")
    c = lecture(library.store, "intro", "Introdução", None)
    marks = library.bookmarks()
    for seg in (a[2], b[1], c[0], a[0]):
        marks.add(seg)
    listed = [(m.moment.course, m.moment.lecture_title, m.moment.start) for m in marks.all()]
    assert listed == [
        (None, "Introdução", 0.0),
        ("Redes neurais", "Aula A", 85.0),
        ("Redes neurais", "Aula B", 0.0),
        ("Redes neurais", "Aula B", 170.0),
    ]
    assert [m.moment.lecture_id for m in marks.all({"aula-b"})] == ["aula-b", "aula-b"]


def test_mistakes_are_one_sentence(library: Library) -> None:
    ids = lecture(library.store)
    marks = library.bookmarks()
    with pytest.raises(LectureTuiError, match="no segment 999"):
        marks.add(999)
    with pytest.raises(LectureTuiError, match="end before it starts"):
        marks.add(ids[0], start=50.0, end=10.0)
    with pytest.raises(LectureTuiError, match="not a time"):
        marks.add(ids[0], start=float("nan"))
    with pytest.raises(LectureTuiError, match="Nothing is said in Aula D at 01:23:20"):
        marks.add(ids[0], start=5000.0, end=5100.0)
    with pytest.raises(LectureTuiError, match="no answer 7"):
        marks.add(ids[0], history_id=7)
    with pytest.raises(LectureTuiError, match="no bookmark 5"):
        marks.set_note(5, "x")
    with pytest.raises(LectureTuiError, match="no bookmark 5"):
        marks.delete(5)


def test_a_bookmark_from_an_answer_keeps_its_question(library: Library) -> None:
    ids = lecture(library.store)
    entry = library.history.add(
        AnswerRecord("O que a GPU faz?", "Multiplica matrizes [1]."), "Multiplica matrizes [1]."
    )
    mark = library.bookmarks().add(ids[1], history_id=entry)
    assert (mark.history_id, mark.question) == (entry, "O que a GPU faz?")


# -- the command line ------------------------------------------------------------------------
def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_cli_adds_lists_notes_and_removes_bookmarks(home: Path) -> None:
    with Store(DataHome.resolve().db_path) as store:
        ids = lecture(store)
    code, out = run("bookmarks", "add", str(ids[1]), "--note", "GPUs *rápidas*")
    assert code == 0 and "00:01:25–00:03:25" in out, out
    code, out = run("bookmarks", "add", str(ids[0]), "--start", "00:30", "--end", "1:00")
    assert code == 0, out
    code, out = run("bookmarks", "add", "--lecture", "aula d", "--at", "3:00", "--note", "hdf5")
    assert code == 0 and "00:02:50–00:04:50" in out, out  # the window starting last before 3:00
    code, out = run("bookmarks")
    assert code == 0 and "Aula D" in out and "*rápidas*" in out, out
    assert "00:00:30–00:01:00" in out and "00:01:25–00:03:25" in out
    data = json.loads(run("bookmarks", "--json")[1])
    assert data["schema"] == 2
    first, second, third = data["bookmarks"]
    assert (third["segment_id"], third["note"]) == (ids[2], "hdf5")
    assert (first["start_s"], first["end_s"], first["note"]) == (30.0, 60.0, "")
    assert second["url"] == "https://youtu.be/abc?t=85" and second["segment_id"] == ids[1]
    code, out = run("bookmarks", "note", str(second["id"]), "nova nota")
    assert code == 0, out
    code, out = run("bookmarks", "rm", str(first["id"]), str(third["id"]))
    assert code == 0 and out.count("deleted") == 2, out
    data = json.loads(run("bookmarks", "--json", "--lecture", "aula-d")[1])
    assert [(b["id"], b["note"]) for b in data["bookmarks"]] == [(second["id"], "nova nota")]


def test_cli_mistakes_are_one_line(home: Path) -> None:
    with Store(DataHome.resolve().db_path) as store:
        lecture(store)
    code, out = run("bookmarks", "add", "999")
    assert code == 1 and "no segment 999" in out and "Traceback" not in out
    code, out = run("bookmarks", "rm", "42")
    assert code == 1 and "no bookmark 42" in out
    code, out = run("bookmarks", "add", "1", "--start", "soon")
    assert code == 2 and "soon" in out
    code, out = run("bookmarks", "add", "--lecture", "aula d", "--at", "9:00")
    assert code == 1 and "Nothing is said in lecture aula-d at 00:09:00" in out
    code, out = run("bookmarks", "add", "--at", "9:00")
    assert code == 2 and "SEGMENT_ID, or --lecture with --at" in out
    code, out = run("bookmarks", "add", "--lecture", "nenhuma", "--at", "1:00")
    assert code == 1 and "No lecture matches 'nenhuma'" in out
    code, out = run("bookmarks")
    assert code == 0 and "No bookmarks" in out
