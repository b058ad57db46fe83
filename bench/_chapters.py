"""A candidate for a lecture's chapters (issue 49), measured by chapters_bench.py: where its
subject changes, each titled in the lecturer's own words. Not in the product yet: on the chapter
benchmark it does not beat even splits by enough (bench/RESULTS.md, "Chapters").

No model writes anything. The lecture's small units (about 48 words each, with the E5 vectors
the unit index already holds: core/retrieval/small_unit_index.py) are placed in time; at each
candidate moment the mean vector of what was said in the WINDOW_S seconds before is compared
with the mean of the WINDOW_S seconds after, and a boundary is where that similarity dips
deepest below its neighbours (TextTiling's depth score, over embeddings). A lecture gets about
one chapter every TARGET_S seconds, never two boundaries closer than MIN_CHAPTER_S. Each
chapter's title is the run of two to four words it says more often than the rest of the
lecture (weighted by how rare the words are in the lecture), as the lecturer said it.
Parameters: the best of a sweep on the tune half of the chapter benchmark.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

#: seconds of speech averaged on each side of a candidate boundary
WINDOW_S = 90.0
#: candidate boundaries every STEP_S seconds
STEP_S = 10.0
#: a chapter lasts at least this long
MIN_CHAPTER_S = 90.0
#: about one chapter per this many seconds of lecture
TARGET_S = 150.0
#: a dip is measured against the highest points within this many candidates on each side
RADIUS = 12
#: title phrases: this many words at most
TITLE_WORDS = 4
_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")


@dataclass(frozen=True, slots=True)
class TimedUnit:
    """A piece of what was said, at a time (seconds), with its unit vector."""

    time: float
    text: str


@dataclass(frozen=True, slots=True)
class Chapter:
    start: float
    end: float
    title: str


def similarity_curve(
    times: Sequence[float], vectors: npt.NDArray[np.float32], start: float, end: float,
    window_s: float = WINDOW_S, step_s: float = STEP_S,
) -> tuple[list[float], list[float]]:  # fmt: skip
    """(candidate times, cosine of the mean vectors before and after each)."""
    t = np.asarray(times, dtype=np.float64)
    cands: list[float] = []
    sims: list[float] = []
    c = start + step_s
    while c < end - step_s / 2:
        left = vectors[(t >= c - window_s) & (t < c)]
        right = vectors[(t >= c) & (t < c + window_s)]
        if len(left) and len(right):
            a, b = left.mean(axis=0), right.mean(axis=0)
            denom = float(np.linalg.norm(a) * np.linalg.norm(b)) or 1.0
            cands.append(c)
            sims.append(float(a @ b) / denom)
        c += step_s
    return cands, sims


def depth_scores(sims: Sequence[float], radius: int | None = None) -> list[float]:
    """How deep each point dips below the highest points on its left and right (within
    `radius` points: a long lecture's far peaks must not make every dip look deep)."""
    out = []
    n = len(sims)
    r = n if radius is None else radius
    for i, s in enumerate(sims):
        left = max(sims[max(0, i - r) : i + 1])
        right = max(sims[i : min(n, i + r + 1)])
        out.append((left - s) + (right - s))
    return out


def boundaries(
    times: Sequence[float], vectors: npt.NDArray[np.float32], start: float, end: float,
    target_s: float = TARGET_S, min_chapter_s: float = MIN_CHAPTER_S, window_s: float = WINDOW_S,
) -> list[float]:  # fmt: skip
    """Where the chapters after the first begin, in order."""
    if end - start < 2 * min_chapter_s or len(times) < 4:
        return []
    cands, sims = similarity_curve(times, vectors, start, end, window_s)
    depth = depth_scores(_smooth(sims), RADIUS)
    wanted = max(0, round((end - start) / target_s) - 1)
    picked: list[float] = []
    for i in sorted(range(len(cands)), key=lambda j: -depth[j]):
        if len(picked) >= wanted:
            break
        c = cands[i]
        if c - start < min_chapter_s or end - c < min_chapter_s:
            continue
        if all(abs(c - p) >= min_chapter_s for p in picked):
            picked.append(c)
    return sorted(picked)


def _smooth(sims: Sequence[float]) -> list[float]:
    """The curve smoothed over three points (one word more or less on a side moves it)."""
    if len(sims) < 3:
        return list(sims)
    return [
        sum(sims[max(0, i - 1) : i + 2]) / len(sims[max(0, i - 1) : i + 2])
        for i in range(len(sims))
    ]


def title(texts: Sequence[str], others: Sequence[str], words: int = TITLE_WORDS) -> str:
    """The phrase of two to `words` words this chapter says more than the rest of the lecture."""
    inside = _phrases(texts, words)
    outside = _phrases(others, words)
    doc_words = Counter(w.casefold() for t in [*texts, *others] for w in _WORD.findall(t))
    total = sum(doc_words.values()) or 1

    def weight(phrase: str) -> float:
        parts = phrase.casefold().split()
        rarity = sum(math.log(total / doc_words[p]) for p in parts if len(p) > 3) / len(parts)
        return inside[phrase] * rarity / (1 + outside[phrase])

    candidates = [p for p in inside if inside[p] >= 2 and _content(p)] or [
        p for p in inside if _content(p)
    ]
    if not candidates:
        return ""
    return max(candidates, key=lambda p: (weight(p), -len(p)))


def _content(phrase: str) -> bool:
    parts = phrase.split()
    return len(parts[0]) > 3 and len(parts[-1]) > 3


def _phrases(texts: Sequence[str], words: int) -> Counter[str]:
    found: Counter[str] = Counter()
    for text in texts:
        ws = _WORD.findall(text)
        for n in range(2, words + 1):
            for i in range(len(ws) - n + 1):
                found[" ".join(ws[i : i + n])] += 1
    return found


def chapters(
    units: Sequence[TimedUnit], vectors: npt.NDArray[np.float32], start: float, end: float,
) -> list[Chapter]:  # fmt: skip
    """The lecture's chapters from its units (in any order) and their vectors."""
    order = sorted(range(len(units)), key=lambda i: units[i].time)
    times = [units[i].time for i in order]
    vecs = vectors[order] if len(order) else vectors
    cuts = [start, *boundaries(times, vecs, start, end), end]
    out = []
    for a, b in itertools.pairwise(cuts):
        inside = [units[i].text for i in order if a <= units[i].time < b]
        others = [units[i].text for i in order if not a <= units[i].time < b]
        out.append(Chapter(a, b, title(inside, others)))
    return out
