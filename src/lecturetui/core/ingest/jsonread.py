"""Reading JSON transcripts within bounds.

Nesting is measured before anything is decoded (Python's JSON reader recurses once per level, so a
file of a million `[` would end in a RecursionError). A Whisper file that breaks off (a recording
tool killed mid-write) is read up to the break, and text after a complete document is skipped;
both are noted.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from lecturetui.core.errors import TranscriptError
from lecturetui.core.i18n import _
from lecturetui.core.ingest.repairs import MAX_CUES, MAX_JSON_DEPTH, Repairs
from lecturetui.core.timefmt import parse_timestamp

_STRING = re.compile(r'"(?:[^"\\]++|\\[\s\S])*+"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]++")
_SEGMENTS = re.compile(r'^\s*\[|"segments"\s*:\s*\[')
_BETWEEN_ITEMS = re.compile(r"\s*,?\s*")


def too_deep(text: str) -> bool:
    """Whether brackets outside strings nest deeper than MAX_JSON_DEPTH."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return False
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text)).encode("ascii")
    codes = np.frombuffer(brackets, dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return bool(steps.size) and int(np.cumsum(steps).max()) > MAX_JSON_DEPTH


def json_value(text: str) -> tuple[Any, str | None]:
    """(value, None), or (None, why it is not usable JSON): for a JSONL line."""
    if too_deep(text):
        return None, _("nested deeper than {depth} levels").format(depth=MAX_JSON_DEPTH)
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, exc.msg
    except (ValueError, RecursionError):  # e.g. an integer of more than 4,300 digits
        return None, _("a value no JSON reader takes")


def whisper_document(text: str, fixes: Repairs) -> Any:
    """A Whisper file's JSON; when it breaks off, its segments up to the break (noted)."""
    if too_deep(text):
        raise TranscriptError(
            _("is not valid JSON (nested deeper than {depth} levels)").format(depth=MAX_JSON_DEPTH)
        )
    decoder = json.JSONDecoder()
    start = len(text) - len(text.lstrip())
    try:
        value, end = decoder.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        items = _segments_before_break(text, decoder)
        if not items:
            raise TranscriptError(
                _("is not valid JSON ({reason})").format(reason=exc.msg), line=exc.lineno
            ) from None
        fixes.add(
            "json_break", _("is not valid JSON ({reason})").format(reason=exc.msg), exc.lineno
        )
        return {"segments": items}
    except (ValueError, RecursionError):
        raise TranscriptError(_("is not valid JSON (a value no JSON reader takes)")) from None
    rest = text[end:].strip()
    if rest:
        line = text.count("\n", 0, text.index(rest[0], end)) + 1
        fixes.add(
            "garbage",
            _("has text after its JSON: {text!r}").format(text=rest[:40]),
            line,
            n=rest.count("\n") + 1,
        )
    return value


def _segments_before_break(text: str, decoder: json.JSONDecoder) -> list[Any]:
    m = _SEGMENTS.search(text)
    items: list[Any] = []
    pos = m.end() if m else len(text)
    while len(items) <= MAX_CUES:
        gap = _BETWEEN_ITEMS.match(text, pos)
        pos = gap.end() if gap else pos
        if pos >= len(text) or text[pos] == "]":
            break
        try:
            item, pos = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError):
            break
        items.append(item)
    return items


def show(value: object) -> str:
    """A short repr of a JSON value, for messages."""
    try:
        shown = repr(value)
    except ValueError:  # an int too long to print
        shown = _("a huge number")
    return shown if len(shown) <= 40 else shown[:37] + "..."


def segment_times(item: dict[str, Any]) -> tuple[float, float] | str:
    """A segment's (start, end), or the problem with them."""
    for key in ("start", "end"):
        if key not in item:
            # TRANSLATORS: {key!r} is 'start' or 'end', a field of the file, as written
            return _("has no {key!r} time").format(key=key)
    start, end = item["start"], item["end"]
    if all(isinstance(v, str | int | float) for v in (start, end)):
        try:
            return parse_timestamp(start), parse_timestamp(end)
        except ValueError:
            pass
    return _("has a malformed timestamp ({start} / {end})").format(start=show(start), end=show(end))
