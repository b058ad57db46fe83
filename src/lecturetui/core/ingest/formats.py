"""Transcript parsers: WebVTT, SRT, Whisper JSON, a segment JSONL corpus and timestamped text.

`read_transcript` turns a file's bytes into `ParsedLecture`s with notes on what was repaired or
skipped (repairs.py). Parsing is lenient: a piece that cannot be read is skipped and noted, and a
file is refused (`TranscriptError`, with the 1-based line where it applies) only when nothing in
it is usable, when it breaks a limit (repairs.py), or, under a strict policy, at the first repair.
No exception other than TranscriptError leaves `read_transcript`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lecturetui.core.errors import TranscriptError
from lecturetui.core.i18n import _, decimal
from lecturetui.core.ingest.jsonread import json_value, segment_times, show, whisper_document
from lecturetui.core.ingest.repairs import (
    MAX_CUES,
    MAX_LECTURES,
    MAX_LINE_BYTES,
    ParsePolicy,
    RawCue,
    Repairs,
    check_length,
    check_line_lengths,
    place_template,
    put_in_order,
    repair_cues,
    repair_ends,
)
from lecturetui.core.ingest.subtitles import read_cues
from lecturetui.core.ingest.textclean import clean_cue_text, collapse_rolling, decode_transcript
from lecturetui.core.lectures import Cue, ParsedLecture, Segment
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
#: the start of the sentence that refuses a file a parser failed on in a way not foreseen (in
#: English; the sentence is translated)
UNEXPECTED = "could not be read (an unexpected"

_TIMING = re.compile(r"^\s*[\d:.,]+\s*-->\s*\S")
_TEXT_TS = re.compile(
    r"^\s*(?:\[(?P<b>[0-9:.,]+)\]|\((?P<p>[0-9:.,]+)\)|(?P<n>\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?))"
    r"\s*(?:[-–—:|]\s+)?(?P<text>.*)$"
)
_TEXT_TS_ATTEMPT = re.compile(r"^\s*[\[(]?\d{1,2}:[0-9a-zA-Z:.,]*[\])]?(?:\s|$)")


@dataclass(slots=True)
class ParsedFile:
    """A file read: its lectures, warnings on its encoding, and notes on what was repaired."""

    lectures: list[ParsedLecture]
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def read_transcript(
    data: bytes, suffix: str, name: str, policy: ParsePolicy | None = None
) -> ParsedFile:
    """Decode, recognise and parse a transcript file's bytes (`name`: the default lecture key)."""
    policy = policy or ParsePolicy()
    fixes = Repairs(policy.strict)
    try:
        check_line_lengths(data)
        decoded = decode_transcript(data)
        for kind, (count, line) in decoded.removed.items():
            detail = (
                _("has stray control characters in it ({count})")
                if kind == "controls"
                else _("has stray byte-order marks in it ({count})")
            )
            fixes.add(kind, detail.format(count=decimal(count, 0)), line, n=count)
        fmt = sniff_format(decoded.text, suffix)
        if fmt is None:
            raise TranscriptError(
                _("is not in a format lecturetui knows"),
                hint=_("WebVTT, SRT, Whisper JSON, segment JSONL, or lines like '[00:01:02] text'"),
            )
        lectures = parse_transcript(decoded.text, fmt, name, fixes, policy)
    except TranscriptError:
        raise
    except Exception as exc:  # a parser must never end in a traceback
        raise TranscriptError(
            # TRANSLATORS: {error} is the name of a Python exception, e.g. RecursionError
            _("could not be read (an unexpected {error})").format(error=type(exc).__name__)
        ) from exc
    return ParsedFile(lectures, decoded.warnings, fixes.notes())


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


def parse_transcript(
    text: str,
    fmt: str,
    name: str,
    fixes: Repairs | None = None,
    policy: ParsePolicy | None = None,
) -> list[ParsedLecture]:
    """Parse decoded transcript text of format `fmt`; repairs are noted in `fixes`."""
    policy = policy or ParsePolicy()
    fixes = fixes if fixes is not None else Repairs(policy.strict)
    if not text.strip():
        raise TranscriptError(_("is empty"))
    parser = _PARSERS.get(fmt)
    if parser is None:
        raise TranscriptError(
            _("has an unknown format {fmt!r}").format(fmt=fmt),
            hint=_("known: {formats}").format(formats=", ".join(FORMATS)),
        )
    lectures = [lec for lec in parser(text, name, fixes, policy) if lec.cues or lec.segments]
    if not lectures:
        raise fixes.nothing_usable(_("has no timed text in it"))
    return lectures


def _lecture(
    key: str, fmt: str, raw: list[RawCue], fixes: Repairs, policy: ParsePolicy, unit: str = "line"
) -> ParsedLecture:
    """Repair a lecture's cues (cues without text are left out) and check its length."""
    cues = repair_cues([c for c in raw if clean_cue_text(c.text)], fixes, unit)
    check_length(cues, policy, unit)
    return ParsedLecture(
        key=key, source_format=fmt, cues=collapse_rolling(Cue(c.start, c.end, c.text) for c in cues)
    )


def parse_vtt(text: str, name: str, fixes: Repairs, policy: ParsePolicy) -> list[ParsedLecture]:
    return [_lecture(name, "vtt", read_cues(text, "vtt", fixes), fixes, policy)]


def parse_srt(text: str, name: str, fixes: Repairs, policy: ParsePolicy) -> list[ParsedLecture]:
    return [_lecture(name, "srt", read_cues(text, "srt", fixes), fixes, policy)]


# -- JSON ---------------------------------------------------------------------------------------
def parse_whisper(text: str, name: str, fixes: Repairs, policy: ParsePolicy) -> list[ParsedLecture]:
    data = whisper_document(text, fixes)
    segment_at = place_template("segment", 1)  # "segment {places}", translated once
    items = data.get("segments") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise TranscriptError(
            _("is JSON but not a Whisper transcript"),
            # (a literal, not a format: its braces are JSON)
            hint=_('expected {"segments": [{"start", "end", "text"}]}'),
        )
    if len(items) > MAX_CUES:
        raise TranscriptError(
            _("has more than {limit} segments; no lecture has that many").format(
                limit=decimal(MAX_CUES, 0)
            )
        )
    raw = []
    for i, item in enumerate(items, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            fixes.add(
                "bad_segment",
                _("has a segment without text (segment {number})").format(number=i),
                i,
                "segment",
            )
            continue
        times = segment_times(item)
        if isinstance(times, str):
            fixes.add("bad_segment", f"{times} ({segment_at.format(places=i)})", i, "segment")
            continue
        raw.append(RawCue(times[0], times[1], item["text"], i, segment_at.format(places=i)))
    lecture = _lecture(name, "whisper", raw, fixes, policy, unit="segment")
    language = data.get("language") if isinstance(data, dict) else None
    lecture.language = language if isinstance(language, str) and 0 < len(language) <= 20 else None
    return [lecture]


def parse_jsonl(text: str, name: str, fixes: Repairs, policy: ParsePolicy) -> list[ParsedLecture]:
    """A segment corpus: one JSON object per line with text, start, end and optionally
    corpus_id, lecture, title, course, url and language. Segments and ids are kept as they are."""
    lectures: dict[str, ParsedLecture] = {}
    raw: dict[str, list[RawCue]] = {}
    ids: set[int] = set()
    line_at = place_template("line", 1)  # "line {places}", translated once
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        got = _jsonl_row(line, lineno, ids, fixes)
        if got is None:
            continue
        row, times, corpus_id = got
        key = str(row.get("lecture") or name)
        lecture = lectures.get(key)
        if lecture is None:
            if len(lectures) >= MAX_LECTURES:
                raise TranscriptError(
                    _("holds more than {limit} lectures").format(limit=decimal(MAX_LECTURES, 0)),
                    line=lineno,
                )
            lecture = lectures[key] = ParsedLecture(key=key, source_format="jsonl")
        _take_fields(lecture, row)
        if sum(len(v) for v in raw.values()) >= MAX_CUES:
            raise TranscriptError(
                _("has more than {limit} segments").format(limit=decimal(MAX_CUES, 0)),
                line=lineno,
            )
        if corpus_id is not None:
            ids.add(corpus_id)
        words = " ".join(row["text"].split())
        raw.setdefault(key, []).append(
            RawCue(times[0], times[1], words, lineno, line_at.format(places=lineno), corpus_id)
        )
    for key, lecture in lectures.items():
        ordered = put_in_order(raw[key], fixes)  # no overlap repair: a corpus's windows overlap
        repair_ends(ordered, fixes)
        check_length(ordered, policy)
        lecture.segments = [Segment(c.start, c.end, c.text, corpus_id=c.corpus_id) for c in ordered]
    return list(lectures.values())


def _jsonl_row(
    line: str, lineno: int, ids: set[int], fixes: Repairs
) -> tuple[dict[str, Any], tuple[float, float], int | None] | None:
    """A corpus line's object, its times and its corpus id; None for a line left out (each
    said in `fixes`: not JSON, no text, bad times, a corpus id that is no integer or repeats)."""
    if len(line) > MAX_LINE_BYTES:
        raise TranscriptError(
            _("has a line longer than {limit} characters; no segment is that long").format(
                limit=decimal(MAX_LINE_BYTES, 0)
            ),
            line=lineno,
        )
    row, problem = json_value(line)
    if problem is not None:
        fixes.add(
            "not_json", _("has a line that is not JSON ({problem})").format(problem=problem), lineno
        )
        return None
    if not isinstance(row, dict) or not isinstance(row.get("text"), str):
        fixes.add("bad_segment", _("has a line without a text field"), lineno)
        return None
    if not row["text"].strip():
        fixes.add("bad_segment", _("has a segment with no text"), lineno)
        return None
    times = segment_times(row)
    if isinstance(times, str):
        fixes.add("bad_segment", times, lineno)
        return None
    corpus_id = row.get("corpus_id")
    if corpus_id is not None and (
        isinstance(corpus_id, bool)
        or not isinstance(corpus_id, int)
        or not -(2**63) <= corpus_id < 2**63
    ):
        fixes.add(
            "bad_segment",
            _("has a corpus_id that is not an integer: {value}").format(value=show(corpus_id)),
            lineno,
        )
        return None
    if corpus_id is not None and corpus_id in ids:
        fixes.add(
            "dup_id",
            _("has corpus_id {corpus_id} more than once").format(corpus_id=corpus_id),
            lineno,
        )
        return None
    return row, times, corpus_id


def _take_fields(lecture: ParsedLecture, row: dict[str, Any]) -> None:
    for attr, fields in (
        ("title", ("title",)),
        ("course", ("course",)),
        ("url", ("url", "source_url")),
        ("language", ("language", "lang")),
    ):
        for f in fields:
            if isinstance(row.get(f), str) and row[f] and getattr(lecture, attr) is None:
                setattr(lecture, attr, row[f])


# -- timestamped text ---------------------------------------------------------------------------
def _check_length(line: str, lineno: int) -> None:
    if len(line) > MAX_LINE_BYTES:
        raise TranscriptError(
            _("has a line longer than {limit} characters").format(limit=decimal(MAX_LINE_BYTES, 0)),
            line=lineno,
        )


def _line_time(line: str, stamp: str | None, lineno: int, fixes: Repairs) -> float | None:
    """The time a transcript line begins with; None for an untimed line, and for a time that
    cannot be read (said in `fixes`)."""
    if stamp is None:
        if _TEXT_TS_ATTEMPT.match(line):
            bad = line.strip().split()[0][:40]
            fixes.add(
                "bad_time", _("has a malformed timestamp {stamp!r}").format(stamp=bad), lineno
            )
        return None
    try:
        return parse_timestamp(stamp)
    except ValueError:
        fixes.add(
            "bad_time", _("has a malformed timestamp {stamp!r}").format(stamp=stamp[:40]), lineno
        )
        return None


def parse_timestamped_text(
    text: str, name: str, fixes: Repairs, policy: ParsePolicy
) -> list[ParsedLecture]:
    """Lines like `[00:01:02] text`, `(01:02) text` or `00:01:02 text`; untimed lines continue
    the previous cue. A cue ends where the next begins; the last one gets a speaking-rate estimate."""
    cues: list[RawCue] = []
    parts: list[list[str]] = []
    preamble: list[str] = []
    skipping = False  # the untimed lines after a line whose time cannot be read
    for lineno, line in enumerate(text.split("\n"), start=1):
        _check_length(line, lineno)
        if not line.strip():
            continue
        m = _TEXT_TS.match(line)
        stamp = (m.group("b") or m.group("p") or m.group("n")) if m else None
        start = _line_time(line, stamp, lineno, fixes)
        if start is None:
            if stamp is not None or _TEXT_TS_ATTEMPT.match(line):  # a time that cannot be read
                skipping = True
            elif not skipping:  # an untimed line continues the cue before it
                (parts[-1] if parts else preamble).append(line.strip())
            continue
        assert m is not None and stamp is not None
        skipping = False
        if len(cues) >= MAX_CUES:
            raise TranscriptError(
                _("has more than {limit} timestamps").format(limit=decimal(MAX_CUES, 0)),
                line=lineno,
            )
        cues.append(RawCue(start, start, "", lineno, stamp))
        parts.append([m.group("text").strip()])
    if not cues:
        raise fixes.nothing_usable(
            _("has no timestamped lines"), hint=_("expected lines like '[00:01:02] text'")
        )
    parts[0] = preamble + parts[0]
    for cue, words in zip(cues, parts, strict=True):
        cue.text = " ".join(p for p in words if p)
    ordered = put_in_order(cues, fixes)
    starts = [c.start for c in ordered]
    for cue in ordered:
        j = bisect.bisect_right(starts, cue.start)
        cue.end = (
            starts[j] if j < len(starts) else cue.start + max(2.0, len(cue.text.split()) / 2.5)
        )
    check_length(ordered, policy)
    cleaned = collapse_rolling(Cue(c.start, c.end, c.text) for c in ordered)
    return [ParsedLecture(key=name, source_format="text", cues=cleaned)]


_PARSERS: dict[str, Callable[[str, str, Repairs, ParsePolicy], list[ParsedLecture]]] = {
    "vtt": parse_vtt,
    "srt": parse_srt,
    "whisper": parse_whisper,
    "jsonl": parse_jsonl,
    "text": parse_timestamped_text,
}
