from __future__ import annotations

import itertools
import shutil
import sqlite3
from pathlib import Path

import pytest

from lecturetui.core.ingest.pipeline import IngestOptions, ingest_file, ingest_paths
from lecturetui.core.ingest.segmenting import SegmentConfig
from lecturetui.core.lectures import Segment
from lecturetui.core.paths import DataHome
from lecturetui.core.storage.store import SCHEMA_VERSION, LectureRow, Store
from tests.conftest import SEED_CORPUS, old_library


@pytest.fixture
def store(home: Path) -> Store:
    s = Store(DataHome.resolve().db_path)
    yield s  # type: ignore[misc]
    s.close()


def snapshot(store: Store) -> list[tuple[object, ...]]:
    db = sqlite3.connect(store.path)
    rows = db.execute(
        'SELECT l.id, l.title, l.content_hash, s.ordinal, s.start, s."end", s.text'
        " FROM lectures l LEFT JOIN segments s ON s.lecture_id = l.id ORDER BY 1, 4"
    ).fetchall()
    fts = db.execute("SELECT count(*) FROM segments_lex").fetchone()
    db.close()
    return [*rows, fts]


def test_schema_wal_and_fts(store: Store) -> None:
    assert store.schema_version == SCHEMA_VERSION
    mode = sqlite3.connect(store.path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    ingest_paths(store, [SEED_CORPUS])
    hits = [i for i, _ in store.lexical_search("priorizar", limit=5)]
    texts = store.segments_by_id(hits)
    assert hits and all("prioriz" in texts[h].text.lower() for h in hits)


def test_seed_corpus_ingest(store: Store) -> None:
    report = ingest_paths(store, [SEED_CORPUS], IngestOptions(course="Demo"))
    assert [r.status for r in report.results] == ["added"]
    assert store.counts() == (8, 26)
    lec = store.resolve_lecture("aula F")[0]
    assert lec.id == "aula-f" and lec.course == "Demo" and lec.language == "pt"
    segs = store.segments(lec.id)
    ids = [s.corpus_id for s in segs]
    assert ids == sorted(ids)  # ids are consecutive in time within a lecture
    assert {s.corpus_id for s in segs} >= {7016, 7017}
    assert all(a.start <= b.start for a, b in itertools.pairwise(segs))


def test_reingest_unchanged_is_a_noop(store: Store, fixtures: Path, tmp_path: Path) -> None:
    src = tmp_path / "aula.vtt"
    shutil.copy(fixtures / "lecture.vtt", src)
    first = ingest_file(store, src, IngestOptions())
    before = snapshot(store)
    second = ingest_file(store, src, IngestOptions())
    assert (first.status, second.status) == ("added", "unchanged")
    assert snapshot(store) == before


def test_changed_file_replaces_its_segments(store: Store, fixtures: Path, tmp_path: Path) -> None:
    src = tmp_path / "aula.vtt"
    shutil.copy(fixtures / "lecture.vtt", src)
    first = ingest_file(store, src, IngestOptions())
    src.write_text(
        src.read_text(encoding="utf-8").replace("CUDA_VISIBLE_DEVICES", "a variável de ambiente"),
        encoding="utf-8",
    )
    second = ingest_file(store, src, IngestOptions())
    assert second.status == "updated"
    assert second.lectures == first.lectures
    [change] = second.changes
    assert change.removed_segment_ids == first.changes[0].added_segment_ids
    texts = " ".join(s.text for s in store.segments(first.lectures[0]))
    assert "CUDA_VISIBLE_DEVICES" not in texts and "variável de ambiente" in texts
    assert store.lexical_search("CUDA_VISIBLE_DEVICES") == []
    assert store.counts()[0] == 1


def test_duplicate_content_elsewhere_is_not_stored_twice(
    store: Store, fixtures: Path, tmp_path: Path
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copy(fixtures / "lecture_bom_crlf.srt", tmp_path / "a" / "aula1.srt")
    # same words and times, re-saved without BOM and with LF line ends
    text = (
        (fixtures / "lecture_bom_crlf.srt").read_bytes().decode("utf-8-sig").replace("\r\n", "\n")
    )
    (tmp_path / "b" / "copia.srt").write_text(text, encoding="utf-8")
    report = ingest_paths(store, [tmp_path / "a", tmp_path / "b"])
    assert [r.status for r in report.results] == ["added", "duplicate"]
    assert "same content as aula1" in report.results[1].message
    assert store.counts()[0] == 1


def test_failing_file_rolls_back_and_batch_goes_on(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest_paths(store, [SEED_CORPUS])
    before = snapshot(store)
    changed = tmp_path / "corpus.jsonl"
    lines = SEED_CORPUS.read_text(encoding="utf-8").splitlines()
    changed.write_text("\n".join(lines[:5]) + "\n", encoding="utf-8")
    good = tmp_path / "z_good.vtt"
    good.write_text("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nolá\n", encoding="utf-8")

    calls = {"n": 0}
    real = Store.save_lecture

    def flaky(self: Store, record, segments):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if record.source_key == "aula-B":  # second lecture of the file: fail mid-file
            raise sqlite3.OperationalError("disk I/O error")
        return real(self, record, segments)

    monkeypatch.setattr(Store, "save_lecture", flaky)
    with pytest.raises(sqlite3.OperationalError):
        ingest_file(store, changed, IngestOptions())
    assert snapshot(store) == before  # nothing of that file was stored
    monkeypatch.setattr(Store, "save_lecture", real)
    report = ingest_paths(store, [good])
    assert report.results[0].status == "added"


def test_keyboard_interrupt_leaves_store_as_before(
    store: Store, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest_paths(store, [fixtures / "lecture.vtt"])
    before = snapshot(store)
    real = Store.save_lecture

    def interrupted(self: Store, record, segments):  # type: ignore[no-untyped-def]
        real(self, record, segments)
        raise KeyboardInterrupt

    monkeypatch.setattr(Store, "save_lecture", interrupted)
    with pytest.raises(KeyboardInterrupt):
        ingest_paths(store, [SEED_CORPUS])
    assert snapshot(store) == before
    assert store.integrity_ok()


def test_segmenting_settings_change_resegments(store: Store, fixtures: Path) -> None:
    ingest_file(store, fixtures / "whisper.json", IngestOptions())
    again = ingest_file(
        store,
        fixtures / "whisper.json",
        IngestOptions(segment_config=SegmentConfig(window_s=5, overlap_s=1)),
    )
    assert again.status == "updated"
    assert len(store.segments("whisper")) > 1


def test_options_override(store: Store, fixtures: Path) -> None:
    ingest_file(
        store,
        fixtures / "notes.txt",
        IngestOptions(course="Paralela", title="Aula 3", url="https://youtu.be/x", language="pt"),
    )
    [lec] = store.lectures()
    assert (lec.title, lec.course, lec.source_url, lec.language) == (
        "Aula 3", "Paralela", "https://youtu.be/x", "pt",
    )  # fmt: skip


def test_newer_schema_is_refused(home: Path) -> None:
    path = DataHome.resolve().db_path
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.commit()
    db.close()
    from lecturetui.core.errors import StoreError

    with pytest.raises(StoreError, match="newer lecturetui"):
        Store(path)


def test_lectures_of_one_file_never_share_an_id(store: Store, tmp_path: Path) -> None:
    corpus = tmp_path / "curso.jsonl"
    corpus.write_text(
        '{"lecture": "aula 1", "text": "primeira", "start": 0, "end": 5}\n'
        '{"lecture": "aula-1", "text": "segunda", "start": 0, "end": 5}\n',
        encoding="utf-8",
    )
    result = ingest_file(store, corpus, IngestOptions())
    assert result.lectures == ["aula-1", "aula-1-2"]
    assert [s.text for s in store.segments("aula-1")] == ["primeira"]
    assert [s.text for s in store.segments("aula-1-2")] == ["segunda"]


def test_lectures_keep_notes_and_an_old_library_gains_the_column(home: Path) -> None:
    path = DataHome.resolve().db_path
    db = old_library(path, 5)
    db.execute(
        "INSERT INTO lectures VALUES ('old', 'Old', NULL, 'pt', '/x', 'old', NULL, 'srt', 1.0,"
        " 'h', NULL, '{}', 'now', 'now')"
    )
    db.close()
    with Store(path) as store:
        assert store.schema_version == SCHEMA_VERSION >= 6
        assert store.lectures()[0].notes == ()
        notes = ("2 backwards cue times repaired (lines 6, 10)", "1 line outside any cue skipped")
        record = LectureRow("new", "New", None, "pt", "/y", "new", None, "srt", 2.0, "h2", None,
                               "{}", notes)  # fmt: skip
        store.save_lecture(record, [Segment(0.0, 2.0, "olá")])
        assert store.lecture("new").notes == notes  # type: ignore[union-attr]
        assert store.records_for_source("/y")[0].notes == notes


def test_a_library_of_schema_13_keeps_its_summaries_as_labels_and_records(home: Path) -> None:
    """Migration 14: the summary_parts table and its label/refused columns, and a summary the
    history kept inside an answer's record read back as a summary's record."""
    import json

    from lecturetui.core.records import AnswerRecord, SummaryRecord
    from lecturetui.core.storage.history import History

    path = DataHome.resolve().db_path
    Store(path).close()  # a library of today's schema, made as it was at 13 below
    db = sqlite3.connect(path)
    db.executescript(
        "ALTER TABLE summary_parts RENAME COLUMN label TO summary;"
        "ALTER TABLE summary_parts RENAME COLUMN refused TO struck;"
        "ALTER TABLE summary_parts RENAME TO overview_parts; ALTER TABLE segments DROP COLUMN ends;"
        "PRAGMA user_version = 13;"
    )
    db.execute(
        "INSERT INTO lectures (id, title, source_key, source_format, duration, content_hash,"
        " segment_config, added_at, updated_at) VALUES ('aula-a', 'Aula A', 'k', 'vtt', 60.0,"
        " 'h', '{}', 'now', 'now')"
    )
    db.execute(
        "INSERT INTO overview_parts VALUES ('aula-a', 'h', 'm labels-3', 'Portuguese', 1, 0.0,"
        " 'Tensores', '[\"Olá\"]', 'now')"
    )
    part = {"number": 1, "start_s": 0.0, "summary": "Tensores", "struck": ["Olá"], "said": ["x"]}
    overview = {"lecture": "aula-a", "title": "Aula A", "parts": [part], "gist": "g",
                "gist_struck": []}  # fmt: skip
    old = {"question": "resuma", "answer": "**Resumo**", "stopped": True, "overview": overview,
           "timings": {"total_ms": 5.0}}  # fmt: skip
    plain = {"question": "o que é?", "answer": "É isso.", "overview": None}
    for payload in (old, plain):
        db.execute(
            "INSERT INTO history (asked_at, question, answer, payload) VALUES ('now', ?, ?, ?)",
            (payload["question"], payload["answer"], json.dumps(payload)),
        )
    db.commit()
    db.close()

    store = Store(path)
    assert store.schema_version == SCHEMA_VERSION
    row = store.connection.execute("SELECT label, refused FROM summary_parts").fetchone()
    assert tuple(row) == ("Tensores", '["Olá"]')
    history = History(store)
    summary, answer = history.entry(1), history.entry(2)
    assert isinstance(summary, SummaryRecord) and summary.question == "resuma"
    assert summary.stopped and summary.timings == {"total_ms": 5.0}
    assert [(p.label, p.refused, p.said) for p in summary.parts] == [("Tensores", ("Olá",), ("x",))]
    assert isinstance(answer, AnswerRecord) and answer.answer == "É isso."
    payload = store.connection.execute("SELECT payload FROM history WHERE id = 2").fetchone()[0]
    assert "overview" not in json.loads(payload)
    store.close()
