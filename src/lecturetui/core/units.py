"""Small units of a segment's text: what a question is matched against, inside its window.

A segment (a ~2-minute window) is what search returns and an answer cites; a question usually
matches one or two of its sentences. Units are cut from the segment's own text, so each carries
its character offsets in it (the `match` shown to the student) and nothing else needs storing:
the same text and settings always give the same units.

Captions with punctuation are cut at sentence ends and the sentences packed into units of up to
`width` words; text without punctuation (most automatic captions) and over-long sentences fall
back to windows of `width` words every `stride` words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WORD = re.compile(r"\S+")
_SENTENCE_END = re.compile(r"[.!?…]+[\"')\]]*$")

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
    sentences = _sentences(text, words)
    if len(sentences) * 3 < len(words) / width:  # too little punctuation to cut on
        spans = _windows(0, len(words), width, stride)
    else:
        spans = []
        for lo, hi in _pack(sentences, width):
            spans.extend(_windows(lo, hi, width, stride) if hi - lo > width else [(lo, hi)])
    spans = _cap(spans, len(words), width)
    return [
        Unit(words[lo][0], words[hi - 1][1], text[words[lo][0] : words[hi - 1][1]])
        for lo, hi in spans
    ]


def _sentences(text: str, words: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """(first word, past-last word) of each sentence."""
    out = []
    lo = 0
    for i, (a, b) in enumerate(words):
        if _SENTENCE_END.search(text[a:b]):
            out.append((lo, i + 1))
            lo = i + 1
    if lo < len(words):
        out.append((lo, len(words)))
    return out


def _pack(sentences: list[tuple[int, int]], width: int) -> list[tuple[int, int]]:
    """Consecutive sentences joined while they fit in `width` words."""
    out: list[tuple[int, int]] = []
    for lo, hi in sentences:
        if out and hi - out[-1][0] <= width and out[-1][1] == lo:
            out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


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
