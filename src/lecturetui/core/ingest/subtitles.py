"""Lenient WebVTT and SRT reading.

Cues are found from their timing lines (`start --> end`), not from blank lines: a cue's text is
everything below its timing line up to the next cue's number or identifier. So a blank line inside
a cue's text, a missing or repeated cue number, a missing final newline, or times written with the
other format's decimal mark still read, and each repair is noted (repairs.py). A cue whose timing
line cannot be read is skipped, and noted. WebVTT's header, NOTE, STYLE and REGION blocks are
skipped; other lines before the first cue are skipped and noted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lecturetui.core.errors import TranscriptError
from lecturetui.core.i18n import _, decimal
from lecturetui.core.ingest.repairs import MAX_CUES, MAX_LINE_BYTES, RawCue, Repairs

_TIME = re.compile(r"(?:(\d{1,9}):)?([0-5]?\d):([0-5]?\d)(?:([.,])(\d{1,9}))?")
_TIMING = re.compile(r"^\s*(\S*?)\s*-->\s*(\S*)")
_LOOKS_TIMED = re.compile(r"\d:\d")
# a timing line whose arrow was lost or mangled (or that was cut short): hh:mm:ss first
_BROKEN_TIMING = re.compile(r"^\s*\d{1,9}:\d{1,2}:\d{1,2}\S*\s*(?:[-–—→=>]+\s*\S*)?\s*$")
_NUMBER = re.compile(r"^\s*\d+\s*$")
_VTT_BLOCK = re.compile(r"^\s*(?:NOTE|STYLE|REGION)(?:\s|$)")


@dataclass(slots=True)
class _Timing:
    index: int  # 0-based line index
    start: float = 0.0
    end: float = 0.0
    problem: str | None = None  # why it cannot be read
    stamp: str = ""


def read_cues(text: str, fmt: str, fixes: Repairs) -> list[RawCue]:
    """The cues of a WebVTT (`fmt="vtt"`) or SRT (`"srt"`) text, in file order, times as written
    (repairs.repair_cues puts them in order). Notes what it repairs or skips in `fixes`."""
    lines = text.split("\n")
    timings = _find_timings(lines, fmt, fixes)
    if not timings:
        return []
    ident = _identifier(lines, 0, timings[0].index, fmt)
    _skip_preamble(lines, timings[0].index if ident is None else ident, fmt, fixes)
    numbers: set[str] = set()
    cues: list[RawCue] = []
    for k, timing in enumerate(timings):
        last = k + 1 == len(timings)
        stop = len(lines) if last else timings[k + 1].index
        next_ident = None if last else _identifier(lines, timing.index + 1, stop, fmt)
        if timing.problem is not None:
            fixes.add("bad_time", timing.problem, timing.index + 1)
        else:
            if fmt == "srt":
                _check_number(lines, ident, timing.index, numbers, fixes)
            body, blank_at = _cue_text(
                lines, timing.index + 1, stop if next_ident is None else next_ident, fmt
            )
            if blank_at is not None:
                fixes.add("blank_lines", _("has a blank line inside a cue's text"), blank_at)
            cues.append(
                RawCue(timing.start, timing.end, "\n".join(body), timing.index + 1, timing.stamp)
            )
        ident = next_ident
    return cues


def _find_timings(lines: list[str], fmt: str, fixes: Repairs) -> list[_Timing]:
    timings: list[_Timing] = []
    for i, line in enumerate(lines):
        if len(line) > MAX_LINE_BYTES:
            raise TranscriptError(
                _("has a line longer than {limit} characters; no caption line is that long").format(
                    limit=decimal(MAX_LINE_BYTES, 0)
                ),
                line=i + 1,
            )
        if "-->" in line:
            if _VTT_BLOCK.match(line) or not _LOOKS_TIMED.search(line):
                continue  # a note, or text that happens to hold an arrow
            timings.append(_parse_timing(line, i, fmt, fixes))
        elif _BROKEN_TIMING.match(line) and (i == 0 or _starts_block(lines[i - 1])):
            timings.append(_Timing(i, problem=_malformed(line)))
        else:
            continue
        if len(timings) > MAX_CUES:
            raise TranscriptError(
                _("has more than {limit} cues; no lecture has that many").format(
                    limit=decimal(MAX_CUES, 0)
                )
            )
    return timings


def _malformed(line: str) -> str:
    return _("has a malformed timing line: {line!r}").format(line=line.strip()[:60])


def _starts_block(previous: str) -> bool:
    return not previous.strip() or bool(_NUMBER.match(previous))


def _parse_timing(line: str, index: int, fmt: str, fixes: Repairs) -> _Timing:
    m = _TIMING.match(line)
    if m is None or not m.group(1) or not m.group(2):
        return _Timing(index, problem=_malformed(line))
    start_s, end_s = m.group(1), m.group(2)
    start, end = _TIME.fullmatch(start_s), _TIME.fullmatch(end_s)
    if start is None or end is None:
        bad = start_s if start is None else end_s
        return _Timing(
            index, problem=_("has a malformed timestamp {stamp!r}").format(stamp=bad[:40])
        )
    stamp = f"{start_s} --> {end_s}"
    marks = {start.group(4), end.group(4)}
    if fmt == "srt" and "." in marks:
        fixes.add(
            "srt_dot",
            _("has a time with '.' instead of ',' ({stamp})").format(stamp=stamp),
            index + 1,
        )
    if fmt == "vtt" and "," in marks:
        fixes.add(
            "vtt_comma",
            _("has a time with ',' instead of '.' ({stamp})").format(stamp=stamp),
            index + 1,
        )
    if fmt == "srt" and (start.group(1) is None or end.group(1) is None):
        fixes.add(
            "no_hours", _("has a time without hours ({stamp})").format(stamp=stamp), index + 1
        )
    return _Timing(index, _seconds(start), _seconds(end), stamp=stamp)


def _seconds(m: re.Match[str]) -> float:
    hours, minutes, secs, _mark, frac = m.groups()
    total = int(hours or 0) * 3600 + int(minutes) * 60 + int(secs)
    scale = 10 ** len(frac or "")
    seconds: float = (total * scale + int(frac or 0)) / scale  # 13.694, not 13.693999...
    return seconds


def _identifier(lines: list[str], lo: int, hi: int, fmt: str) -> int | None:
    """The line right before the timing line at `hi` when it is that cue's number (SRT, WebVTT)
    or identifier (WebVTT: a line after a blank one); None when there is none."""
    i = hi - 1
    if i < lo or not lines[i].strip():
        return None
    if _NUMBER.match(lines[i]):
        return i
    if fmt == "vtt" and i - 1 >= lo and not lines[i - 1].strip():
        return i
    return None


def _check_number(
    lines: list[str], ident: int | None, timing: int, numbers: set[str], fixes: Repairs
) -> None:
    if ident is None:
        fixes.add("numbering", _("has a cue without a number"), timing + 1)
        return
    number = lines[ident].strip().lstrip("0") or "0"
    if number in numbers:
        fixes.add(
            "numbering",
            _("has cue number {number} more than once").format(number=number[:20]),
            ident + 1,
        )
    numbers.add(number)


def _paragraphs(lines: list[str], lo: int, hi: int) -> list[tuple[int, list[str]]]:
    out: list[tuple[int, list[str]]] = []
    current: list[str] | None = None
    for i in range(lo, hi):
        if lines[i].strip():
            if current is None:
                current = []
                out.append((i, current))
            current.append(lines[i])
        else:
            current = None
    return out


def _cue_text(lines: list[str], lo: int, hi: int, fmt: str) -> tuple[list[str], int | None]:
    """A cue's text lines, and the (1-based) line of the first blank line inside it, if any."""
    text: list[str] = []
    blank_at = None
    for start, para in _paragraphs(lines, lo, hi):
        if start > lo and fmt == "vtt" and _VTT_BLOCK.match(para[0]):
            continue  # a NOTE between cues
        if text and blank_at is None:  # a blank line before all the text (YouTube's " ") is none
            blank_at = start  # the blank line is start - 1 (0-based), so `start` 1-based
        text.extend(para)
    return text, blank_at


def _skip_preamble(lines: list[str], stop: int, fmt: str, fixes: Repairs) -> None:
    """Lines before the first cue: WebVTT's header and blocks are fine; the rest is skipped."""
    for n, (start, para) in enumerate(_paragraphs(lines, 0, stop)):
        if fmt == "vtt" and (
            (n == 0 and para[0].lstrip().startswith("WEBVTT")) or _VTT_BLOCK.match(para[0])
        ):
            continue
        fixes.add(
            "garbage",
            _("has text before its first cue: {text!r}").format(text=para[0].strip()[:60]),
            start + 1,
            n=len(para),
        )
