"""Transcript parsers: WebVTT, SRT, Whisper JSON, a segment JSONL corpus and timestamped text.

Each parser takes decoded text and returns `ParsedLecture`s; a problem raises `TranscriptError`
with the 1-based line where it applies. WebVTT and SRT are read by webvtt-py and srt; the timing
lines are checked here first because both libraries skip or misreport a malformed one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from lecturetui.core.errors import TranscriptError
from lecturetui.core.models import Cue, ParsedLecture, Segment
from lecturetui.core.textclean import collapse_rolling
from lecturetui.core.timefmt import parse_timestamp

FORMATS = ("vtt", "srt", "whisper", "jsonl", "text")
EXTENSIONS = {
    ".vtt": "vtt",
    ".webvtt": "vtt",
    ".srt": "srt",
    ".json": "whisper",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".txt": "text",
    ".text": "text",
}

_TIMING = re.compile(r"^\s*(\S+)\s+-->\s+(\S+)")
_SRT_INDEX = re.compile(r"^\s*\d+\s*$")
_TEXT_TS = re.compile(
    r"^\s*(?:\[(?P<b>[0-9:.,]+)\]|\((?P<p>[0-9:.,]+)\)|(?P<n>\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?))"
    r"\s*(?:[-–—:|]\s+)?(?P<text>.*)$"
)
_TEXT_TS_ATTEMPT = re.compile(r"^\s*[\[(]?\d{1,2}:[0-9a-zA-Z:.,]*[\])]?(?:\s|$)")


def sniff_format(text: str, suffix: str = "") -> str | None:
    """Guess a transcript's format from its first lines, then its extension."""
    head = text.lstrip()[:4096]
    if head.startswith("WEBVTT"):
        return "vtt"
    if head.startswith("{"):
        first_line = head.split("\n", 1)[0].strip()
        if first_line.endswith("}") and '"text"' in first_line and "segments" not in first_line:
            return "jsonl"
        return "whisper"
    if head.startswith("[") and re.match(r"^\[\s*\{", head):
        return "whisper"
    lines = [ln for ln in head.split("\n") if ln.strip()][:6]
    if any(_TIMING.match(ln) for ln in lines):
        return "srt"
    if lines and sum(bool(_TEXT_TS.match(ln)) for ln in lines) >= max(1, len(lines) // 2):
        return "text"
    return EXTENSIONS.get(suffix.lower())


def parse_transcript(text: str, fmt: str, name: str) -> list[ParsedLecture]:
    """Parse decoded transcript text of format `fmt`. `name` is the default lecture key."""
    if not text.strip():
        raise TranscriptError("is empty")
    parser = _PARSERS.get(fmt)
    if parser is None:
        raise TranscriptError(f"has an unknown format {fmt!r}", hint=f"known: {', '.join(FORMATS)}")
    lectures = parser(text, name)
    for lecture in lectures:
        if not lecture.cues and not lecture.segments:
            raise TranscriptError("has no timed text in it")
    return lectures


def _check_timing_lines(text: str, sep_hint: str) -> None:
    """Validate every `start --> end` line: well-formed times, end not before start."""
    for lineno, line in enumerate(text.split("\n"), start=1):
        m = _TIMING.match(line)
        if not m:
            if "-->" in line and not line.lstrip().startswith("NOTE"):
                raise TranscriptError(
                    f"has a malformed timing line: {line.strip()[:60]!r}", line=lineno
                )
            continue
        start_s, end_s = m.group(1), m.group(2)
        try:
            start, end = parse_timestamp(start_s), parse_timestamp(end_s)
        except ValueError:
            bad = start_s if not _is_ts(start_s) else end_s
            raise TranscriptError(
                f"has a malformed timestamp {bad!r}",
                hint=f"expected hh:mm:ss{sep_hint}mmm",
                line=lineno,
            ) from None
        if end < start:
            raise TranscriptError(
                f"has a cue that ends before it starts ({start_s} --> {end_s})", line=lineno
            )


def _is_ts(value: str) -> bool:
    try:
        parse_timestamp(value)
    except ValueError:
        return False
    return True


def parse_vtt(text: str, name: str) -> list[ParsedLecture]:
    import webvtt

    _check_timing_lines(text, ".")
    try:
        vtt = webvtt.WebVTT.from_string(text)
    except Exception as exc:  # webvtt-py raises its own MalformedFileError and friends
        raise TranscriptError(f"is not valid WebVTT: {exc}") from None
    cues = [Cue(parse_timestamp(c.start), parse_timestamp(c.end), c.raw_text) for c in vtt.captions]
    return [ParsedLecture(key=name, source_format="vtt", cues=_finish_cues(cues))]


def parse_srt(text: str, name: str) -> list[ParsedLecture]:
    import srt

    _check_timing_lines(text, ",")
    try:
        subs = list(srt.parse(text))
    except srt.SRTParseError as exc:
        line = text[: exc.expected_start].count("\n") + 1
        raise TranscriptError(
            "is not valid SRT (a block without index or timing)", line=line
        ) from None
    cues = [Cue(s.start.total_seconds(), s.end.total_seconds(), s.content) for s in subs]
    return [ParsedLecture(key=name, source_format="srt", cues=_finish_cues(cues))]


def _load_json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TranscriptError(f"is not valid JSON ({exc.msg})", line=exc.lineno) from None


def parse_whisper(text: str, name: str) -> list[ParsedLecture]:
    data = _load_json(text)
    items = data.get("segments") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise TranscriptError(
            "is JSON but not a Whisper transcript",
            hint='expected {"segments": [{"start", "end", "text"}]}',
        )
    cues = []
    for i, item in enumerate(items, start=1):
        if not isinstance(item, dict) or "text" not in item:
            raise TranscriptError(f"has a segment without text (segment {i})")
        start, end = _times(item, f"segment {i}")
        cues.append(Cue(start, end, str(item["text"])))
    language = data.get("language") if isinstance(data, dict) else None
    lecture = ParsedLecture(key=name, source_format="whisper", cues=_finish_cues(cues))
    lecture.language = language if isinstance(language, str) and language else None
    return [lecture]


def _times(item: dict[str, Any], where: str, line: int | None = None) -> tuple[float, float]:
    try:
        start, end = parse_timestamp(item["start"]), parse_timestamp(item["end"])
    except KeyError as exc:
        raise TranscriptError(f"has no {exc.args[0]!r} time ({where})", line=line) from None
    except (ValueError, TypeError):
        raise TranscriptError(
            f"has a malformed timestamp ({where}: {item.get('start')!r} / {item.get('end')!r})",
            line=line,
        ) from None
    if end < start:
        raise TranscriptError(f"has a segment that ends before it starts ({where})", line=line)
    return start, end


def parse_jsonl(text: str, name: str) -> list[ParsedLecture]:
    """A segment corpus: one JSON object per line with text, start, end and optionally
    corpus_id, lecture, title, course, url and language. Segments and ids are kept as they are."""
    lectures: dict[str, ParsedLecture] = {}
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TranscriptError(f"has a line that is not JSON ({exc.msg})", line=lineno) from None
        if not isinstance(row, dict) or not isinstance(row.get("text"), str):
            raise TranscriptError("has a line without a text field", line=lineno)
        start, end = _times(row, f"line {lineno}", line=lineno)
        corpus_id = row.get("corpus_id")
        if corpus_id is not None and (
            isinstance(corpus_id, bool) or not isinstance(corpus_id, int)
        ):
            raise TranscriptError(
                f"has a corpus_id that is not an integer: {corpus_id!r}", line=lineno
            )
        key = str(row.get("lecture") or name)
        lecture = lectures.get(key)
        if lecture is None:
            lecture = lectures[key] = ParsedLecture(key=key, source_format="jsonl")
        for attr, fields in (
            ("title", ("title",)),
            ("course", ("course",)),
            ("url", ("url", "source_url")),
            ("language", ("language", "lang")),
        ):
            for f in fields:
                if isinstance(row.get(f), str) and row[f] and getattr(lecture, attr) is None:
                    setattr(lecture, attr, row[f])
        lecture.segments.append(
            Segment(start, end, " ".join(row["text"].split()), corpus_id=corpus_id)
        )
    ids = [
        s.corpus_id for lec in lectures.values() for s in lec.segments if s.corpus_id is not None
    ]
    if len(ids) != len(set(ids)):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise TranscriptError(f"has corpus_id {dup} more than once")
    for lecture in lectures.values():
        lecture.segments.sort(key=lambda s: (s.start, s.end))
    return list(lectures.values())


def parse_timestamped_text(text: str, name: str) -> list[ParsedLecture]:
    """Lines like `[00:01:02] text`, `(01:02) text` or `00:01:02 text`; untimed lines continue
    the previous cue. A cue ends where the next begins; the last one gets a speaking-rate estimate."""
    starts: list[float] = []
    texts: list[list[str]] = []
    preamble: list[str] = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        m = _TEXT_TS.match(line)
        stamp = (m.group("b") or m.group("p") or m.group("n")) if m else None
        if m is None or stamp is None:
            if _TEXT_TS_ATTEMPT.match(line):
                bad = line.strip().split()[0]
                raise TranscriptError(
                    f"has a malformed timestamp {bad!r}", hint="expected hh:mm:ss", line=lineno
                )
            (texts[-1] if texts else preamble).append(line.strip())
            continue
        try:
            start = parse_timestamp(stamp)
        except ValueError:
            raise TranscriptError(
                f"has a malformed timestamp {stamp!r}", hint="expected hh:mm:ss", line=lineno
            ) from None
        if starts and start < starts[-1]:
            raise TranscriptError(f"has a timestamp that goes back in time ({stamp})", line=lineno)
        starts.append(start)
        texts.append([m.group("text").strip()])
    if not starts:
        raise TranscriptError(
            "has no timestamped lines", hint="expected lines like '[00:01:02] text'"
        )
    if preamble:
        texts[0] = preamble + texts[0]
    cues = []
    for i, (start, parts) in enumerate(zip(starts, texts, strict=True)):
        body = " ".join(p for p in parts if p)
        end = starts[i + 1] if i + 1 < len(starts) else start + max(2.0, len(body.split()) / 2.5)
        cues.append(Cue(start, max(start, end), body))
    return [ParsedLecture(key=name, source_format="text", cues=_finish_cues(cues))]


def _finish_cues(cues: list[Cue]) -> list[Cue]:
    cues.sort(key=lambda c: (c.start, c.end))
    return collapse_rolling(cues)


_PARSERS: dict[str, Callable[[str, str], list[ParsedLecture]]] = {
    "vtt": parse_vtt,
    "srt": parse_srt,
    "whisper": parse_whisper,
    "jsonl": parse_jsonl,
    "text": parse_timestamped_text,
}
