"""Course packs with the fake embedders: exported and imported into an empty library, the same
hits with the same scores; imported twice, nothing changes; a lecture imported before is updated
in place; the student's own lectures are never replaced; other embedders mean embedding again."""

from __future__ import annotations

from pathlib import Path

import pytest

from lecturetui.core.ingest.pipeline import IngestOptions
from lecturetui.core.library import Library
from lecturetui.core.pack.export import export_pack
from lecturetui.core.pack.format import PackError
from lecturetui.core.pack.importer import import_pack
from lecturetui.core.pack.reader import read_pack
from lecturetui.core.storage import packed
from tests.conftest import SEED_CORPUS
from tests.core.pack.packs import fake_library, home_state, opened

QUESTIONS = (
    "O TensorFlow prioriza a execução de operações em qual dispositivo?",
    "placa de vídeo para jogos",
    "what is a tensor?",
    "memória da GPU",
    "gradiente",
)


def hits(
    library: Library, question: str, **kwargs: object
) -> list[tuple[str, float, float, float]]:
    found = library.search(question, k=8, **kwargs)  # type: ignore[arg-type]
    return [(h.lecture.id, h.segment.start, h.segment.end, h.score) for h in found.hits]


@pytest.fixture
def source(tmp_path: Path) -> Library:
    library = fake_library(tmp_path / "ta")
    library.ingest([SEED_CORPUS], IngestOptions(course="Sistemas"))
    library.sync_rerank()
    lecture = library.lectures()[0]
    library.store.connection.execute(
        "INSERT INTO summary_parts (lecture_id, content_hash, model, language, ordinal, start,"
        " label, refused, made_at) VALUES (?, ?, 'qwen-fake.gguf', 'pt', 0, 0.0, ?, '[]', '')",
        (lecture.id, lecture.content_hash, "O essencial da aula."),
    )
    return library


def test_a_course_exported_and_imported_searches_the_same(source: Library, tmp_path: Path) -> None:
    pack = tmp_path / "course.ltpack"
    made = export_pack(source, pack, source.lectures())
    assert made.lectures == 8 and made.segments == 26 and made.rerank and made.summaries == 1
    with opened(tmp_path / "student") as student:
        result = import_pack(student, pack)
        assert result.count("added") == 8 and result.vectors == "pack" and result.rerank == "pack"
        assert result.models == ("qwen-fake.gguf",) and not result.notes
        for question in QUESTIONS:
            for mode in ("hybrid", "dense", "lexical"):
                assert hits(student, question, mode=mode) == hits(source, question, mode=mode)
        lecture = student.lectures()[0]
        kept = packed.summary_rows(student.store, lecture.id, lecture.content_hash)
        assert [(s.model, s.label) for s in kept] == [("qwen-fake.gguf", "O essencial da aula.")]
        assert [p.phrases for p in student.parts(lecture)] == [
            p.phrases for p in source.parts(source.lectures()[0])
        ]
        assert student.lectures()[0].course == "Sistemas"


def test_importing_twice_changes_nothing(source: Library, tmp_path: Path) -> None:
    pack = tmp_path / "course.ltpack"
    export_pack(source, pack, source.lectures())
    home = tmp_path / "student"
    with opened(home) as student:
        import_pack(student, pack)
    before = home_state(home)
    with opened(home) as student:
        again = import_pack(student, pack)
    assert again.count("unchanged") == 8 and again.segments == 0
    assert home_state(home) == before


def test_a_lecture_imported_before_is_updated_in_place(source: Library, tmp_path: Path) -> None:
    pack = tmp_path / "course.ltpack"
    export_pack(source, pack, source.lectures())
    with opened(tmp_path / "student") as student:
        import_pack(student, pack)
        first = student.lectures()[0]
        source.update_lecture(source.lectures()[0].id, title="Aula renomeada")
        export_pack(source, pack, source.lectures())
        result = import_pack(student, pack)
        assert result.count("updated") == 1 and result.count("unchanged") == 7
        assert student.lecture(first.id) is not None
        assert student.lecture(first.id).title == "Aula renomeada"  # type: ignore[union-attr]
        assert student.counts() == (8, 26)
        assert hits(student, QUESTIONS[0]) == hits(source, QUESTIONS[0])


def test_the_student_s_own_lectures_are_kept_and_said(source: Library, tmp_path: Path) -> None:
    pack = tmp_path / "course.ltpack"
    export_pack(source, pack, source.lectures())
    with opened(tmp_path / "student") as student:
        student.ingest([SEED_CORPUS], IngestOptions())  # the same lectures, the student's own
        twins = import_pack(student, pack)
        assert twins.count("skipped") == 8 and student.counts() == (8, 26)
        assert all("already in your library" in lec.note for lec in twins.lectures)
        own = student.lectures()[0]
        student.remove_lecture(own.id)
        student.ingest([_other_file(tmp_path, own.title)], IngestOptions(title=own.title))
        clash = import_pack(student, pack)
        added = [lec for lec in clash.lectures if lec.status == "added"]
        assert len(added) == 1 and "already has a lecture titled" in added[0].note
        titles = [lec.title for lec in student.lectures()]
        assert titles.count(own.title) == 2


def _other_file(tmp_path: Path, title: str) -> Path:
    path = tmp_path / "own.vtt"
    path.write_text("WEBVTT\n\n00:00:01.000 --> 00:00:05.000\nUma aula minha sobre redes.\n")
    return path


def test_other_embedders_mean_embedding_again(source: Library, tmp_path: Path) -> None:
    pack = tmp_path / "course.ltpack"
    export_pack(source, pack, source.lectures())
    with opened(tmp_path / "student", e5="other-e5", dim=48) as student:
        seen: list[tuple[str, int, int]] = []
        result = import_pack(student, pack, lambda *a: seen.append(a))
        assert result.vectors == "embedded" and any("other-e5" in n for n in result.notes)
        assert any(stage == "embedding" for stage, _d, _t in seen)
        assert student.search(QUESTIONS[0]).hits
    with opened(tmp_path / "no-gemma", rerank=False) as student:
        result = import_pack(student, pack)
        assert result.rerank == "none" and any("EmbeddingGemma" in n for n in result.notes)


def test_a_pack_of_some_lectures(source: Library, tmp_path: Path) -> None:
    pack = tmp_path / "one.ltpack"
    chosen = source.lectures()[:2]
    made = export_pack(source, pack, chosen)
    assert made.lectures == 2
    assert {lec.id for lec in read_pack(pack).lectures} == {x.id for x in chosen}
    with pytest.raises(PackError):
        export_pack(source, tmp_path / "none.ltpack", [])
    assert not (tmp_path / "none.ltpack").exists()


def test_a_local_video_path_is_not_exported(source: Library, tmp_path: Path) -> None:
    lecture = source.lectures()[0]
    source.update_lecture(lecture.id, url="/home/ta/videos/aula.mp4")
    pack = tmp_path / "course.ltpack"
    export_pack(source, pack, source.lectures())
    assert {x.url for x in read_pack(pack).lectures} == {None}


@pytest.mark.parametrize("at", range(7))
def test_ctrl_c_at_any_step_keeps_the_library_whole(
    source: Library, tmp_path: Path, at: int
) -> None:
    """Ctrl+C (KeyboardInterrupt) at the import's n-th progress report, re-embedding included:
    the library as it was or with the whole pack, and the import run again completes it."""
    pack = tmp_path / "course.ltpack"
    export_pack(source, pack, source.lectures())
    calls: list[str] = []

    def interrupt(stage: str, done: int, total: int) -> None:
        calls.append(stage)
        if len(calls) > at:
            raise KeyboardInterrupt

    with opened(tmp_path / "student", e5="other-e5", dim=48) as student:
        with pytest.raises(KeyboardInterrupt):
            import_pack(student, pack, interrupt)
        assert student.counts() in ((0, 0), (8, 26))
        if student.counts()[1]:
            assert student.search(QUESTIONS[0]).hits
        import_pack(student, pack)
        assert student.counts() == (8, 26)
        finished = hits(student, QUESTIONS[0])
    with opened(tmp_path / "reference", e5="other-e5", dim=48) as reference:
        import_pack(reference, pack)
        assert finished == hits(reference, QUESTIONS[0])


def test_the_sentence_ends_found_at_ingest_travel_with_the_pack(tmp_path: Path) -> None:
    library = fake_library(
        tmp_path / "ta",
        sentence_ends=lambda words: [i for i in range(len(words) - 1) if i % 9 == 8],
    )
    library.ingest([SEED_CORPUS], IngestOptions(course="Sistemas"))
    pack = tmp_path / "course.ltpack"
    export_pack(library, pack, library.lectures())

    def ends(lib: Library) -> list[tuple[str, tuple[int, ...] | None]]:
        return [(s.text, s.ends) for lec in lib.lectures() for s in lib.store.segments(lec.id)]

    sent = ends(library)
    assert all(found for _text, found in sent)  # the demo's captions have no punctuation
    with opened(tmp_path / "student") as student:
        import_pack(student, pack)
        assert sorted(ends(student)) == sorted(sent)
    library.close()
