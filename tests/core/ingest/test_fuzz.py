"""Hostile input: damaged files of every format and odd questions never end in a traceback.

A refused file leaves the library byte for byte as it was; an accepted one stores only
time-ordered segments within the lecture limit. The default run takes a new random sample each
time; the `slow` run (`pytest tests/core/ingest/test_fuzz.py -m slow -s`) goes through the same 1,000 files and
1,000 questions each time and prints its figures (bench/RESULTS.md).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from lecturetui.core.errors import TranscriptError
from lecturetui.core.ingest.formats import UNEXPECTED, read_transcript
from lecturetui.core.ingest.pipeline import FileResult, IngestOptions, ingest_file, ingest_paths
from lecturetui.core.ingest.repairs import MAX_HOURS
from lecturetui.core.storage.store import Store
from tests.conftest import SEED_CORPUS
from tests.fakes import FakeEmbedder
from tests.transcript_strategies import hostile, questions

FUZZ = settings(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def library_bytes(store: Store) -> str:
    """A hash of the library's files (the database and its write-ahead log)."""
    h = hashlib.sha256()
    for p in sorted(store.path.parent.glob(store.path.name + "*")):
        if not p.name.endswith("-shm"):  # shared-memory index, rebuilt by any reader
            h.update(p.name.encode() + p.read_bytes())
    return h.hexdigest()


def check_stored(store: Store, result: FileResult) -> None:
    """What an accepted file stored: segments in time order, within the lecture limit."""
    for lecture_id in result.lectures:
        lecture = store.lecture(lecture_id)
        assert lecture is not None and 0 <= lecture.duration <= MAX_HOURS * 3600
        segments = store.segments(lecture_id)
        assert segments
        for seg in segments:
            assert 0 <= seg.start <= seg.end <= MAX_HOURS * 3600, seg
        assert all(a.start <= b.start for a, b in itertools.pairwise(segments))


def ingest_fuzzer(store: Store, folder: Path, stats: Counter[str]) -> Callable[[bytes, str], None]:
    fake = FakeEmbedder(dim=8)
    counter = fake.token_counter()
    names = itertools.count()

    def run(data: bytes, suffix: str) -> None:
        path = folder / f"f{next(names)}{suffix}"
        path.write_bytes(data)
        before = library_bytes(store)
        try:
            result = ingest_file(store, path, IngestOptions(), counter, fake.embed_passages)
        except Exception:
            stats["tracebacks"] += 1
            raise
        stats["cases"] += 1
        if result.failed:
            stats["refused"] += 1
            assert not result.message.startswith(UNEXPECTED), result.message
            assert library_bytes(store) == before, result.message
        else:
            stats["accepted"] += 1
            stats["accepted with notes"] += bool(result.notes)
            check_stored(store, result)
        path.unlink()

    return run


def fuzz_ingest(tmp_path: Path, examples: int, fixed: bool = False) -> Counter[str]:
    stats: Counter[str] = Counter()
    folder = tmp_path / "files"
    folder.mkdir()
    with Store(tmp_path / "lib" / "library.sqlite3") as store:
        run = ingest_fuzzer(store, folder, stats)

        @settings(FUZZ, max_examples=examples, derandomize=fixed)
        @given(case=hostile())
        def one(case: tuple[bytes, str, str]) -> None:
            run(case[0], case[1])

        one()
        assert store.integrity_ok()
    assert stats["tracebacks"] == 0
    return stats


def fuzz_questions(tmp_path: Path, examples: int, fixed: bool = False) -> Counter[str]:
    stats: Counter[str] = Counter()
    with Store(tmp_path / "q.sqlite3") as store:
        ingest_paths(store, [SEED_CORPUS])
        ids = set(store.all_segment_ids())

        @settings(FUZZ, max_examples=examples, derandomize=fixed)
        @given(question=questions)
        def one(question: str) -> None:
            hits = store.lexical_search(question, 10)
            stats["questions"] += 1
            stats["with hits"] += bool(hits)
            assert len(hits) <= 10 and {i for i, _ in hits} <= ids
            assert all(math.isfinite(score) for _, score in hits)

        one()
    return stats


def test_fuzz_ingest_sample(tmp_path: Path) -> None:
    stats = fuzz_ingest(tmp_path, 60)
    assert stats["cases"] >= 60 and stats["refused"] and stats["accepted"]


def test_fuzz_questions_sample(tmp_path: Path) -> None:
    assert fuzz_questions(tmp_path, 80)["questions"] >= 80


@pytest.mark.slow
def test_fuzz_campaign(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = fuzz_ingest(tmp_path, 1000, fixed=True)  # the same cases each run: figures compare
    asked = fuzz_questions(tmp_path, 1000, fixed=True)
    assert files["cases"] >= 1000 and asked["questions"] >= 1000
    with capsys.disabled():
        print(
            f"\nfuzz: {files['cases']} files: {files['refused']} refused (library unchanged),"
            f" {files['accepted']} accepted ({files['accepted with notes']} with notes),"
            f" {files['tracebacks']} tracebacks; {asked['questions']} questions"
            f" ({asked['with hits']} with hits), 0 tracebacks"
        )


# -- the limits, one by one ---------------------------------------------------------------------
def refusal(tmp_path: Path, name: str, data: bytes | None = None, **options: object) -> str:
    """Ingest one file into a fresh library; return its refusal, checking nothing was stored."""
    path = tmp_path / name
    if data is not None:
        path.write_bytes(data)
    with Store(tmp_path / "lib.sqlite3") as store:
        before = library_bytes(store)
        result = ingest_file(store, path, IngestOptions(**options))  # type: ignore[arg-type]
        assert result.failed, result.notes
        assert library_bytes(store) == before and store.counts() == (0, 0)
        return result.message


@pytest.mark.parametrize(
    ("name", "depth", "message"),
    [
        ("deep.json", 1_000_000, "is not valid JSON (nested deeper than 32 levels)"),
        ("deep2.json", 100_000, "is not valid JSON (nested deeper than 32 levels)"),
        (
            "deep.jsonl",
            100_000,
            "line 1: has a line that is not JSON (nested deeper than 32 levels)",
        ),
        ("deep2.jsonl", 1_000_000, "line 1: has a line longer than 1,000,000 characters"),
        ("deep.txt", 1_000_000, "line 1: has a line longer than 1,000,000 characters"),
    ],
)
def test_json_nested_a_million_deep_is_refused_before_decoding(
    tmp_path: Path, name: str, depth: int, message: str
) -> None:
    data = b"[" * depth + b"]" * depth
    assert message in refusal(tmp_path, name, data)


def test_a_200_mb_file_is_refused_by_size(tmp_path: Path) -> None:
    path = tmp_path / "huge.srt"
    with path.open("wb") as f:  # sparse: 200 MB without using the disk
        f.truncate(200 * 1024 * 1024)
    assert "is too large (210 MB; the limit is 52 MB)" in refusal(tmp_path, "huge.srt")


def test_one_50_mb_line_is_refused_by_line_length(tmp_path: Path) -> None:
    data = b"00:00:01,000 --> " + b"9" * (50 * 1000 * 1000 - 17)
    message = refusal(tmp_path, "oneline.srt", data)
    assert (
        message == "line 1: has a line longer than 1,000,000 bytes; no transcript line is that long"
    )


def test_a_cue_11000_years_in_is_refused_unless_allowed(tmp_path: Path) -> None:
    vtt = (
        b"WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nol\xc3\xa1\n\n"
        b"99999999:00:01.000 --> 99999999:00:02.000\ntchau\n"
    )
    message = refusal(tmp_path, "eon.vtt", vtt)
    assert message.startswith("line 6: has a cue ending at 99,999,999 h 00 min")
    assert "a lecture is at most 24 h long (--allow-long accepts up to 1,000 h)" in message
    message = refusal(tmp_path, "eon.vtt", allow_long=True)
    assert "a lecture is at most 1,000 h long" in message
    day = vtt.replace(b"99999999:00:01", b"30:00:01").replace(b"99999999:00:02", b"30:00:02")
    assert "at most 24 h" in refusal(tmp_path, "day.vtt", day)
    with Store(tmp_path / "long.sqlite3") as store:
        path = tmp_path / "day.vtt"
        result = ingest_file(store, path, IngestOptions(allow_long=True))
        assert result.status == "added" and store.lectures()[0].duration == 30 * 3600 + 2


def test_too_many_cues_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import lecturetui.core.ingest.subtitles as subtitles

    monkeypatch.setattr(subtitles, "MAX_CUES", 1_000)  # 200,000 in use; the same check
    cue = "00:00:01.000 --> 00:00:01.500\nx\n\n"
    read_transcript(("WEBVTT\n\n" + cue * 1_000).encode(), ".vtt", "x")
    with pytest.raises(TranscriptError, match="more than 1,000 cues"):
        read_transcript(("WEBVTT\n\n" + cue * 1_001).encode(), ".vtt", "x")


def test_a_file_changing_while_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "growing.srt"
    path.write_text("1\n00:00:01,000 --> 00:00:02,000\noi\n")
    real_stat = Path.stat

    def stat_then_append(self: Path, **kwargs: bool) -> os.stat_result:
        st = real_stat(self, **kwargs)
        if self == path:  # the recorder writes the next cue just after lecturetui looked
            with path.open("a") as f:
                f.write("\n2\n00:00:02,000 --> 00:00:03,000\ntchau\n")
        return st

    monkeypatch.setattr(Path, "stat", stat_then_append)
    assert refusal(tmp_path, "growing.srt") == (
        "changed while it was being read (ingest it again once it is complete)"
    )


def test_a_file_written_during_ingest_never_ends_in_a_traceback(tmp_path: Path) -> None:
    """A recorder appending cues while ingest runs: each read is refused or stored whole."""
    path = tmp_path / "live.vtt"
    path.write_text("WEBVTT\n\n")
    stop = threading.Event()

    def record() -> None:
        for n in range(3000):  # a cue every millisecond at most
            if stop.wait(0.001):
                return
            with path.open("a") as f:
                f.write(f"00:{n // 60:02d}:{n % 60:02d}.000 --> 00:{n // 60:02d}:{n % 60:02d}.900\n"
                        f"frase {n} da aula\n\n")  # fmt: skip

    writer = threading.Thread(target=record)
    writer.start()
    try:
        with Store(tmp_path / "lib.sqlite3") as store:
            for _ in range(10):
                result = ingest_file(store, path, IngestOptions())
                if result.failed:
                    assert not result.message.startswith(UNEXPECTED), result.message
                else:
                    check_stored(store, result)
    finally:
        stop.set()
        writer.join()


def test_every_parser_failure_is_one_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    import lecturetui.core.ingest.formats as transcripts

    def broken(*args: object) -> object:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setitem(transcripts._PARSERS, "srt", broken)
    with pytest.raises(TranscriptError) as info:
        read_transcript(b"1\n00:00:01,000 --> 00:00:02,000\noi\n", ".srt", "x")
    assert str(info.value) == f"{UNEXPECTED} RecursionError)"
