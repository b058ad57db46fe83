"""Small units of a segment's text: what a question is matched against, inside its window.

A segment (a ~2-minute window) is what search returns and an answer cites; a question usually
matches one or two of its sentences. Units are cut from the segment's own text, so each carries
its character offsets in it (the `match` shown to the student) and nothing else needs storing:
the same text and settings always give the same units.

Units are windows of `width` words every `stride` words (half overlapping), whether or not the
captions have punctuation: on the realistic benchmark they ranked better than sentences packed
into units of the same size (bench/RESULTS.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WORD = re.compile(r"\S+")

#: words per unit and the step between word windows (bench/RESULTS.md: "small-to-big")
WIDTH = 48
STRIDE = 24
#: at most this many units per segment (labels in the unit index are segment id * MAX_UNITS + n)
MAX_UNITS = 64


@dataclass(frozen=True, slots=True)
class Unit:
    start: int  # character offsets in the segment's text
    end: int
    text: str


def split_units(text: str, width: int = WIDTH, stride: int = STRIDE) -> list[Unit]:
    """The units of one segment's text, in order (at most MAX_UNITS; at least one if any word)."""
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    if not words:
        return []
    spans = _cap(_windows(0, len(words), width, stride), len(words), width)
    return [
        Unit(words[lo][0], words[hi - 1][1], text[words[lo][0] : words[hi - 1][1]])
        for lo, hi in spans
    ]


def _windows(lo: int, hi: int, width: int, stride: int) -> list[tuple[int, int]]:
    out = []
    i = lo
    while True:
        end = min(i + width, hi)
        out.append((i, end))
        if end >= hi:
            break
        i += stride
        if hi - i < width // 2:  # a short tail joins the last window
            out[-1] = (out[-1][0], hi)
            break
    return out


def _cap(spans: list[tuple[int, int]], n_words: int, width: int) -> list[tuple[int, int]]:
    """At most MAX_UNITS units: wider windows for a (very long) segment that would have more."""
    if len(spans) <= MAX_UNITS:
        return spans
    step = -(-n_words // MAX_UNITS)
    return _windows(0, n_words, max(width, step), step)[:MAX_UNITS]
