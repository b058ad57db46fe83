"""Cues -> overlapping timed windows that never exceed the embedding model's token budget.

Windows are cut at cue boundaries: a window grows cue by cue until the next cue would take it past
`window_s` seconds or past the token budget; the next window starts at the first cue that begins
within the last `overlap_s` seconds of the previous one. A cue too long for the budget on its own
is split at word boundaries first, its time shared out by character position.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from lecturetui.core.i18n import _
from lecturetui.core.lectures import Cue, Segment
from lecturetui.core.models.tokens import TokenCounter

_WORD = re.compile(r"\S+")


@dataclass(frozen=True, slots=True)
class SegmentConfig:
    window_s: float = 120.0
    overlap_s: float = 35.0
    max_tokens: int = 512  # including the passage prefix and the model's special tokens

    def __post_init__(self) -> None:
        if self.window_s <= 0:
            raise ValueError(_("window must be positive"))
        if not 0 <= self.overlap_s < self.window_s:
            raise ValueError(_("overlap must be at least 0 and shorter than the window"))
        if self.max_tokens < 16:
            raise ValueError(_("token budget must be at least 16"))

    def as_dict(self) -> dict[str, float | int]:
        return {
            "window_s": self.window_s,
            "overlap_s": self.overlap_s,
            "max_tokens": self.max_tokens,
        }


def split_long_cues(cues: list[Cue], budget: int, counter: TokenCounter) -> list[Cue]:
    """Split each cue whose text alone exceeds `budget` tokens into pieces that fit."""
    out: list[Cue] = []
    for cue, n in zip(cues, counter.counts([c.text for c in cues]), strict=True):
        if n <= budget:
            out.append(cue)
            continue
        words = [(m.start(), m.group(0)) for m in _WORD.finditer(cue.text)]
        total_chars = max(1, len(cue.text))
        piece: list[str] = []
        piece_start_char = 0
        for pos, word in words:
            if piece and counter.count(" ".join([*piece, word])) > budget:
                out.append(_piece(cue, piece, piece_start_char, pos, total_chars))
                piece, piece_start_char = [], pos
            if not piece and counter.count(word) > budget:
                # a single "word" longer than the budget (no spaces): cut it by characters
                step = max(1, math.floor(len(word) * budget / max(1, counter.count(word))))
                for k in range(0, len(word), step):
                    chunk_pos = pos + k
                    end_pos = min(pos + k + step, pos + len(word))
                    out.append(_piece(cue, [word[k : k + step]], chunk_pos, end_pos, total_chars))
                piece_start_char = pos + len(word)
                continue
            piece.append(word)
        if piece:
            out.append(_piece(cue, piece, piece_start_char, total_chars, total_chars))
    return out


def _piece(cue: Cue, words: list[str], start_char: int, end_char: int, total: int) -> Cue:
    span = cue.end - cue.start
    return Cue(
        cue.start + span * start_char / total, cue.start + span * end_char / total, " ".join(words)
    )


def segment_cues(
    cues: list[Cue], config: SegmentConfig | None = None, counter: TokenCounter | None = None
) -> list[Segment]:
    """Group time-ordered cues into overlapping windows (see the module docstring)."""
    config = config or SegmentConfig()
    counter = counter or TokenCounter()
    budget = config.max_tokens - counter.overhead
    cues = split_long_cues([c for c in cues if c.text.strip()], budget, counter)
    # split pieces of a long cue may start after the next cue
    cues.sort(key=lambda c: (c.start, c.end))
    counts = counter.counts([c.text for c in cues])
    segments: list[Segment] = []
    i, n = 0, len(cues)
    while i < n:
        start = cues[i].start
        end = cues[i].end
        tokens = counts[i]
        j = i + 1
        while j < n:
            # tokens of a concatenation never exceed the sum of the parts' (separated by spaces)
            if cues[j].end - start > config.window_s or tokens + counts[j] > budget:
                break
            tokens += counts[j]
            end = max(end, cues[j].end)
            j += 1
        text = " ".join(c.text for c in cues[i:j])
        while (
            j > i + 1 and counter.total(text) > config.max_tokens
        ):  # a counter that isn't additive
            j -= 1
            text = " ".join(c.text for c in cues[i:j])
            end = max(c.end for c in cues[i:j])
        segments.append(Segment(start, end, text, n_tokens=counter.total(text)))
        if j >= n:
            break
        nxt = j
        for k in range(i + 1, j):
            if cues[k].start >= end - config.overlap_s:
                nxt = k
                break
        i = nxt
    return segments
