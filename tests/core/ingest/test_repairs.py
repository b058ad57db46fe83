"""Lenient reading: real caption glitches are repaired, stored, and said; --strict refuses them."""

from __future__ import annotations

import hashlib
import itertools
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from lecturetui.core.errors import TranscriptError
from lecturetui.core.ingest.formats import read_transcript
from lecturetui.core.ingest.pipeline import IngestOptions, ingest_file
from lecturetui.core.ingest.repairs import ParsePolicy, Repairs, reading_time
from lecturetui.core.storage.store import Store
from tests.fakes import FakeEmbedder
from tests.transcript_strategies import NOTE_WORDS, Case, repairable, ts

SENTENCES = (
    "então hoje a gente vai continuar falando de paralelismo de dados",
    "cada GPU recebe uma parte do lote e calcula o seu gradiente",
    "depois os gradientes são somados com uma operação de all-reduce",
    "isso aqui é o que o Horovod faz usando um anel entre os processos",
    "reparem que a memória de cada placa limita o tamanho do modelo",
    "quando o modelo não cabe a gente parte para o paralelismo de modelo",
    "as camadas ficam em dispositivos diferentes e as ativações viajam",
    "o custo de comunicação passa a dominar se o lote for pequeno",
    "vamos olhar o código do exemplo que está no repositório da disciplina",
    "aqui a variável de ambiente escolhe quais placas ficam visíveis",
)


def lecture_srt(seed: int = 7, minutes: float = 20) -> list[list[float | str]]:
    """A 20-minute lecture's cues as auto-captioning tools cut them: 1-4 s each, back to back."""
    rng = random.Random(seed)
    cues: list[list[float | str]] = []
    t = 0.8
    while t < minutes * 60:
        words = rng.choice(SENTENCES).split()
        k = rng.randint(3, 7)
        start = rng.randint(0, len(words) - k)
        text = " ".join(words[start : start + k])
        if cues and text == cues[-1][2]:
            continue  # a line said twice in a row reads as a rolling caption
        length = round(rng.uniform(1.0, 4.0), 3)
        cues.append([round(t, 3), round(t + length, 3), text])
        t = round(t + length + rng.choice([0.0, 0.0, 0.04, 0.3]), 3)
    return cues


def write_srt(
    path: Path, cues: list[list[float | str]], stamps: dict[int, str] | None = None
) -> None:
    """Write cues as SRT (CRLF, like most tools), with some timing lines written as given."""
    stamps = stamps or {}
    blocks = []
    for n, (start, end, text) in enumerate(cues, start=1):
        timing = (
            stamps.get(n - 1)
            or f"{ts(round(float(start) * 1000))} --> {ts(round(float(end) * 1000))}"
        )
        blocks.append(f"{n}\r\n{timing}\r\n{text}\r\n")
    path.write_bytes("\r\n".join(blocks).encode("utf-8"))


def timing_line(path: Path, n: int) -> int:
    """The line number of cue `n`'s (0-based) timing line."""
    lines = path.read_bytes().decode().split("\r\n")
    return [i for i, ln in enumerate(lines, start=1) if "-->" in ln][n]


def db_hash(store: Store) -> str:
    h = hashlib.sha256()
    for p in sorted(store.path.parent.glob(store.path.name + "*")):
        if not p.name.endswith("-shm"):
            h.update(p.read_bytes())
    return h.hexdigest()


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "lib" / "library.sqlite3")
    yield s  # type: ignore[misc]
    s.close()


def ingest(store: Store, path: Path, **options: bool) -> object:
    fake = FakeEmbedder()
    return ingest_file(
        store, path, IngestOptions(**options), fake.token_counter(), fake.embed_passages
    )


def test_backwards_end_times_mid_file_are_repaired_and_said(store: Store, tmp_path: Path) -> None:
    cues = lecture_srt()
    k = len(cues) // 2
    # fast speech mid-file: three short cues, the last two ending where the one before started
    # (as in 00:02:57,610 --> 00:02:57,040, then 00:02:58,180 --> 00:02:57,610)
    s0 = float(cues[k][0])
    cues[k][1] = round(s0 + 0.57, 3)
    cues[k + 1][:2] = [round(s0 + 0.57, 3), s0]
    cues[k + 2][:2] = [round(s0 + 1.14, 3), round(s0 + 0.57, 3)]
    assert float(cues[k + 3][0]) > s0 + 2
    path = tmp_path / "aula07.srt"
    write_srt(path, cues)
    lines = [timing_line(path, k + 1), timing_line(path, k + 2)]

    result = ingest(store, path)
    assert result.status == "added", result.message  # type: ignore[attr-defined]
    note = f"2 backwards cue times repaired (lines {lines[0]}, {lines[1]})"
    assert result.notes == [note]  # type: ignore[attr-defined]
    [lecture] = store.lectures()
    assert lecture.notes == (note,) and 19 * 60 < lecture.duration < 21 * 60
    assert_time_ordered(store, lecture.id)
    # a repaired cue ends where the next one starts, or once its words are said if that is sooner
    [parsed] = read_transcript(path.read_bytes(), ".srt", "aula07").lectures
    got = [(c.start, c.end) for c in parsed.cues]
    want = [(c[0], c[1]) for c in cues]
    want[k + 1] = (s0 + 0.57, s0 + 1.14)
    third = round(s0 + 1.14, 3)
    want[k + 2] = (third, min(float(cues[k + 3][0]), third + reading_time(str(cues[k + 2][2]))))
    assert flat(got) == pytest.approx(flat(want), abs=1e-6)
    # --strict keeps the old refusal, naming the first one
    with pytest.raises(TranscriptError, match="ends before it starts") as info:
        read_transcript(path.read_bytes(), ".srt", "x", ParsePolicy(strict=True))
    assert info.value.line == lines[0]


def test_a_cue_running_over_the_next_ones_is_cut(store: Store, tmp_path: Path) -> None:
    cues = lecture_srt(seed=11)
    k = len(cues) // 3
    start = float(cues[k][0])
    path = tmp_path / "aula08.srt"
    # a typo in the end's minutes: the cue would run over ten minutes of the lecture
    write_srt(path, cues, {k: f"{ts(round(start * 1000))} --> {ts(round(start * 1000) + 600_900)}"})
    result = ingest(store, path)
    line = timing_line(path, k)
    assert result.notes == [f"1 cue running past the next one cut at its start (line {line})"]  # type: ignore[attr-defined]
    [parsed] = read_transcript(path.read_bytes(), ".srt", "aula08").lectures
    cut = next(c for c in parsed.cues if c.start == start)
    assert cut.end == float(cues[k + 1][0])
    assert_time_ordered(store, store.lectures()[0].id)


def test_cues_out_of_order_are_put_back(store: Store, tmp_path: Path) -> None:
    cues = lecture_srt(seed=5)
    k = len(cues) // 2
    moved = cues[k : k + 6]  # a stretch of six cues pasted ten cues further down
    shuffled = cues[:k] + cues[k + 6 : k + 16] + moved + cues[k + 16 :]
    path = tmp_path / "aula09.srt"
    write_srt(path, shuffled)
    result = ingest(store, path)
    first = timing_line(path, k + 10)
    assert result.notes == [  # type: ignore[attr-defined]
        f"6 cues out of order put back in time order (lines {first}, {first + 4}, {first + 8}, …)"
    ]
    [parsed] = read_transcript(path.read_bytes(), ".srt", "aula09").lectures
    assert [(c.start, c.end) for c in parsed.cues] == [(c[0], c[1]) for c in cues]
    assert_time_ordered(store, store.lectures()[0].id)


def test_a_file_with_nothing_usable_is_refused_in_one_sentence(
    store: Store, tmp_path: Path
) -> None:
    path = tmp_path / "broken.srt"
    path.write_text(
        "1\n00:00:01;000 --> 00:00:03,000\noi\n\n2\n00:00:0x,000 --> 00:00:05,000\ntchau\n"
    )
    before = db_hash(store)
    result = ingest(store, path)
    assert result.status == "failed"  # type: ignore[attr-defined]
    assert result.message == (  # type: ignore[attr-defined]
        "line 2: has a malformed timestamp '00:00:01;000', and nothing else in it is usable"
    )
    assert db_hash(store) == before and store.counts() == (0, 0)


def test_small_deviations_read_with_notes_and_a_clean_file_has_none(tmp_path: Path) -> None:
    srt = (
        "\ufeff1\n00:01.000 --> 00:03,500\nprimeira linha\n\nsegunda linha\n\n"
        "1\n00:00:04,000 --> 00:00:04,000\nsem número\x07 antes\n\n"
        "00:00:06,000 --> 00:00:08,000\nfim sem quebra"
    )
    t = read_transcript(srt.encode(), ".srt", "aula")
    assert t.notes == [
        "1 zero-length cue given a length (line 8)",
        "2 missing or repeated cue numbers ignored (lines 7, 11)",
        "1 SRT time with '.' instead of ',' read (line 2)",
        "1 SRT time without hours read (line 2)",
        "1 cue with blank lines in its text kept whole (line 4)",
        "1 stray control character removed (line 9)",
    ]
    [lec] = t.lectures
    assert [c.text for c in lec.cues] == [
        "primeira linha segunda linha", "sem número antes", "fim sem quebra",
    ]  # fmt: skip
    assert [(c.start, c.end) for c in lec.cues] == [(1.0, 3.5), (4.0, 5.2), (6.0, 8.0)]
    clean = (
        Path(__file__).parents[2] / "fixtures" / "lecture_bom_crlf.srt"
    )  # overlaps a little: kept
    assert read_transcript(clean.read_bytes(), ".srt", "x").notes == []


def test_notes_are_kept_with_the_lecture_and_follow_changes(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "aula.vtt"
    path.write_text("WEBVTT\n\n00:00:05.000 --> 00:00:02.000\nolá turma\n")
    ingest(store, path)
    assert store.lectures()[0].notes == ("1 backwards cue time repaired (line 3)",)
    path.write_text("WEBVTT\n\n00:00:05.000 --> 00:00:07.000\nolá turma\n")
    assert ingest(store, path).status == "updated"  # type: ignore[attr-defined]
    assert store.lectures()[0].notes == ()


def assert_time_ordered(store: Store, lecture_id: str) -> None:
    segs = store.segments(lecture_id)
    assert segs and all(s.start < s.end for s in segs)
    assert all(a.start <= b.start for a, b in itertools.pairwise(segs))


def flat(pairs: list[tuple[float, float]]) -> list[float]:
    return [x for pair in pairs for x in pair]


def note_kinds(notes: list[str]) -> set[str]:
    return {kind for kind, words in NOTE_WORDS.items() if any(words in n for n in notes)}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=repairable())
def test_damaged_files_read_time_ordered_cover_the_text_and_say_so(case: Case) -> None:
    transcript = read_transcript(case.data, case.suffix, "aula")
    [lec] = transcript.lectures
    items = lec.cues or lec.segments
    assert all(c.start < c.end for c in items)
    assert all(a.start <= b.start for a, b in itertools.pairwise(items))
    assert [tuple(c.text.split()) for c in items] == case.words  # every word, in time order
    got = [(c.start, c.end) for c in items]
    assert flat(got) == pytest.approx(flat(case.expected), abs=1e-6)
    assert note_kinds(transcript.notes) == case.kinds, transcript.notes
    if case.kinds:  # --strict refuses exactly these files
        with pytest.raises(TranscriptError):
            read_transcript(case.data, case.suffix, "aula", ParsePolicy(strict=True))
    else:
        read_transcript(case.data, case.suffix, "aula", ParsePolicy(strict=True))


def test_notes_count_and_place_each_kind() -> None:
    fixes = Repairs()
    for line in (12, 40, 77, 90):
        fixes.add("backwards", "x", line)
    fixes.add("bad_segment", "y", 3, unit="segment")
    assert fixes.notes() == [
        "1 segment without usable text or times skipped (segment 3)",
        "4 backwards cue times repaired (lines 12, 40, 77, …)",
    ]
    assert str(fixes.nothing_usable("empty")) == "y, and nothing else in it is usable"
    assert str(Repairs().nothing_usable("has no cue", "a hint")) == "has no cue (a hint)"
