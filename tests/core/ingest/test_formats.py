from __future__ import annotations

import json
from pathlib import Path

import pytest

from lecturetui.core.errors import TranscriptError
from lecturetui.core.ingest.formats import parse_transcript, read_transcript, sniff_format
from lecturetui.core.ingest.repairs import ParsePolicy
from lecturetui.core.ingest.textclean import decode_transcript
from tests.conftest import SEED_CORPUS


def parse_file(path: Path) -> list:  # type: ignore[type-arg]
    text = decode_transcript(path.read_bytes()).text
    fmt = sniff_format(text, path.suffix)
    assert fmt is not None
    return parse_transcript(text, fmt, path.stem)


def test_vtt_headers_notes_styles_tags_and_multiline(fixtures: Path) -> None:
    [lec] = parse_file(fixtures / "lecture.vtt")
    assert lec.source_format == "vtt"
    assert [(c.start, c.end) for c in lec.cues] == [(1.0, 4.5), (4.0, 9.25), (9.25, 15.0)]
    assert lec.cues[0].text == (
        "Bom dia, pessoal. Hoje vamos falar de GPUs e de como o TensorFlow escolhe o dispositivo."
    )
    assert lec.cues[1].text == "O TensorFlow prioriza a GPU quando ela está disponível & visível."
    assert lec.cues[2].text == "A variável CUDA_VISIBLE_DEVICES controla isso."
    joined = " ".join(c.text for c in lec.cues)
    assert "color" not in joined and "NOTE" not in joined and "Música" not in joined


def test_srt_with_bom_crlf_and_overlapping_cues(fixtures: Path) -> None:
    assert (fixtures / "lecture_bom_crlf.srt").read_bytes().startswith(b"\xef\xbb\xbf1\r\n")
    [lec] = parse_file(fixtures / "lecture_bom_crlf.srt")
    assert [(c.start, c.end) for c in lec.cues] == [(0.5, 3.0), (2.8, 6.0), (6.0, 10.0)]
    assert lec.cues[0].text == "Vamos começar a aula sobre redes neurais."
    assert lec.cues[1].text == "A retropropagação usa multiplicação de matrizes."


def test_rolling_auto_captions(fixtures: Path) -> None:
    [lec] = parse_file(fixtures / "rolling.vtt")
    assert [c.text for c in lec.cues] == [
        "então a gente",
        "vai usar a GPU",
        "para treinar o modelo",
    ]


def test_whisper_json(fixtures: Path) -> None:
    [lec] = parse_file(fixtures / "whisper.json")
    assert lec.source_format == "whisper" and lec.language == "pt"
    assert [c.text for c in lec.cues][1] == "Hoje: gradiente descendente."
    assert lec.duration == 12.0


def test_timestamped_text(fixtures: Path) -> None:
    [lec] = parse_file(fixtures / "notes.txt")
    assert [c.start for c in lec.cues] == [5.0, 70.0, 150.0, 195.0]
    assert lec.cues[0].text.startswith("Aula 3 - Paralelismo de dados Começamos")
    assert lec.cues[0].text.endswith("Cada GPU recebe um pedaço do lote.")
    assert lec.cues[1].end == 150.0


def test_seed_corpus_keeps_segments_and_ids() -> None:
    lectures = parse_file(SEED_CORPUS)
    rows = [json.loads(line) for line in SEED_CORPUS.read_text().splitlines()]
    assert len(lectures) == len({r["lecture"] for r in rows}) == 8
    by_id = {s.corpus_id: s for lec in lectures for s in lec.segments}
    assert len(by_id) == len(rows) == 26
    row = next(r for r in rows if r["corpus_id"] == 6703)
    seg = by_id[6703]
    assert (seg.start, seg.end) == (43 * 60 + 49, 46 * 60 + 6)
    assert seg.text == " ".join(row["text"].split())
    assert all(not lec.cues for lec in lectures)


BAD_INPUTS = [
    ("empty.vtt", "", "is empty", None),
    ("blank.srt", "\n \n", "is empty", None),
    (
        "bad_ts.vtt",
        "WEBVTT\n\n00:00:01.000 --> 00:0x:04.000\noi\n",
        "malformed timestamp '00:0x:04.000'",
        3,
    ),
    (
        "bad_ts.srt",
        "1\n00:00:01,000 --> 00:00:02,000\noi\n\n2\n00:00:03,000 --> 0:0:x\ntchau\n",
        "malformed timestamp",
        6,
    ),
    ("backwards.srt", "1\n00:00:05,000 --> 00:00:02,000\noi\n", "ends before it starts", 2),
    (
        "backwards.json",
        '{"segments": [{"start": 5, "end": 1, "text": "x"}]}',
        "ends before it starts (segment 1)",
        None,
    ),
    ("broken.json", '{"segments": [\n{"start": 1,}\n]}', "not valid JSON", 2),
    ("noseg.json", '{"foo": 1}', "not a Whisper transcript", None),
    ("bad.jsonl", '{"text": "a", "start": 0, "end": 1}\n{oops\n', "not JSON", 2),
    ("noend.jsonl", '{"text": "a", "start": "00:00:01"}\n', "no 'end' time", 1),
    (
        "dup.jsonl",
        '{"corpus_id": 1, "text": "a", "start": 0, "end": 1}\n{"corpus_id": 1, "text": "b", "start": 1, "end": 2}\n',
        "corpus_id 1 more than once",
        2,
    ),
    ("text.txt", "[00:00:01] oi\n[00:7x:02] tchau\n", "malformed timestamp '[00:7x:02]'", 2),
    ("goback.txt", "[00:01:00] oi\n[00:00:30] tchau\n", "goes back in time", 2),
    ("header_only.vtt", "WEBVTT\n\nNOTE nothing here\n", "no timed text", None),
]


def _read(tmp_path: Path, name: str, content: str, strict: bool) -> list:  # type: ignore[type-arg]
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    text = decode_transcript(path.read_bytes()).text
    fmt = sniff_format(text, path.suffix) or "text"
    return parse_transcript(text, fmt, path.stem, policy=ParsePolicy(strict=strict))


@pytest.mark.parametrize(("name", "content", "message", "line"), BAD_INPUTS)
def test_strict_refuses_bad_input_naming_the_problem_and_line(
    tmp_path: Path, name: str, content: str, message: str, line: int | None
) -> None:
    with pytest.raises(TranscriptError) as info:
        _read(tmp_path, name, content, strict=True)
    assert message in info.value.message
    assert info.value.line == line


# what lenient reading makes of the same files: refused (nothing usable) or the texts kept
LENIENT = {
    "empty.vtt": None,
    "blank.srt": None,
    "bad_ts.vtt": None,
    "bad_ts.srt": ["oi"],
    "backwards.srt": ["oi"],
    "backwards.json": ["x"],
    "broken.json": None,
    "noseg.json": None,
    "bad.jsonl": ["a"],
    "noend.jsonl": None,
    "dup.jsonl": ["a"],
    "text.txt": ["oi"],
    "goback.txt": ["tchau", "oi"],
    "header_only.vtt": None,
}


@pytest.mark.parametrize(("name", "content", "message", "line"), BAD_INPUTS)
def test_lenient_reading_keeps_what_is_usable(
    tmp_path: Path, name: str, content: str, message: str, line: int | None
) -> None:
    kept = LENIENT[name]
    if kept is None:  # nothing usable: refused with the same sentence and line
        with pytest.raises(TranscriptError) as info:
            _read(tmp_path, name, content, strict=False)
        assert message in info.value.message
        assert info.value.line == line
        return
    [lec] = _read(tmp_path, name, content, strict=False)
    items = lec.cues or lec.segments
    assert [c.text for c in items] == kept
    assert all(c.start < c.end for c in items)


def test_sniffing_ignores_misleading_extension(fixtures: Path) -> None:
    text = (fixtures / "lecture.vtt").read_text(encoding="utf-8")
    assert sniff_format(text, ".txt") == "vtt"
    assert sniff_format("1\n00:00:01,000 --> 00:00:02,000\nhi\n", ".txt") == "srt"
    assert sniff_format('{"corpus_id": 1, "text": "a", "start": 0, "end": 1}\n', ".txt") == "jsonl"
    assert sniff_format("just some words\nwith no times\n", ".md") is None


@pytest.mark.parametrize("bad", ['"inf"', '"nan"', "1e400", "1" + "0" * 400, '"-00:00:01"', "[]"])
def test_times_that_are_not_finite_seconds_are_skipped(bad: str) -> None:
    data = (
        '{"segments": [{"start": 0, "end": 2, "text": "oi"}, {"start": %s, "end": 9, "text": "x"}]}'
    )
    t = read_transcript((data % bad).encode(), ".json", "aula")
    assert [c.text for c in t.lectures[0].cues] == ["oi"]
    assert t.notes == ["1 segment without usable text or times skipped (segment 2)"]
