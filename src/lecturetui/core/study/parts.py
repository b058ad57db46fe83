"""A lecture's parts, each with its time and the lecturer's most representative sentences: what a
summary is built from, part by part (core/summary/writing.py), and a lecture's outline when its
video has no chapters of its author's.

The parts are the author's chapters where yt-dlp kept them. Otherwise they are cut where the
subject changes, without any model writing: the lecture's small units (about 48 words each,
with the E5 vectors the unit index already holds) are placed in time; at each candidate moment
the mean vector of what was said in the WINDOW_S seconds before is compared with the mean of the
WINDOW_S seconds after, and a part begins where that similarity dips deepest below its neighbours
(TextTiling's depth score, over embeddings): about one part every TARGET_S seconds, never two
closer than MIN_PART_S (bench/RESULTS.md, "Chapters"). A part cut here is titled by the run of
two to four words it says more often than the rest of the lecture, as the lecturer said it.

A part's representative sentences are those whose surrounding unit is closest to the part's mean
vector (at most QUOTED_SENTENCES, in the lecture's order).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from lecturetui.core.lectures import Chapter, StoredSegment
from lecturetui.core.retrieval.small_units import STRIDE, WIDTH, split_units
from lecturetui.core.sentences import Sentence, Transcript, Window, pieces, stitch
from lecturetui.core.study.quoting import quote_of_span, sentences

#: seconds of speech averaged on each side of a candidate boundary
WINDOW_S = 90.0
#: candidate boundaries every STEP_S seconds
STEP_S = 10.0
#: a part lasts at least this long
MIN_PART_S = 60.0
#: about one part per this many seconds of lecture
TARGET_S = 90.0
#: a dip is measured against the highest points within this many candidates on each side
RADIUS = 12
#: title phrases: this many words at most
TITLE_WORDS = 4
#: the lecturer's sentences shown for a part
QUOTED_SENTENCES = 2
#: the words of a part the answer model reads to name it: its most representative sentences,
#: in order, at most DIGEST_WORDS and LECTURE_DIGEST_WORDS for the whole lecture shared among
#: its parts (a long lecture's summary reads about as much as a short one's), never under
#: MIN_DIGEST_WORDS. Reading the prompt is most of a summary's time, yet shorter digests
#: (800/120/50) misnamed more parts: read blind on 47 parts of 6 lectures no rule was tuned on,
#: 5 labels named something else against 1 with these (bench/RESULTS.md, "Labels in the
#: lecture's own words")
DIGEST_WORDS = 170
LECTURE_DIGEST_WORDS = 1300
MIN_DIGEST_WORDS = 80
_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")

#: the E5 vectors of units, by their labels in the unit index
Vectors = Callable[[list[int]], npt.NDArray[np.float32]]


@dataclass(frozen=True, slots=True)
class TimedSentence:
    """A sentence of the lecture at its time (seconds), in the segment it was read from."""

    time: float
    text: str
    segment_id: int


@dataclass(frozen=True, slots=True)
class Part:
    """A part of a lecture: its time, its title and the lecturer's most representative
    sentences."""

    number: int  # 1, 2, ...
    start: float
    end: float
    title: str
    made: bool  # cut by lecturetui where the subject changes (not the author's chapter)
    sentences: tuple[TimedSentence, ...]
    text: str  # everything said in it, in order: its pieces (core/sentences.py), a line each
    digest: str  # its most representative sentences up to digest_words(parts), in order
    phrases: tuple[str, ...] = ()  # what it is about (core/study/keyphrases.py), where found


def similarity_curve(
    times: Sequence[float],
    vectors: npt.NDArray[np.float32],
    start: float,
    end: float,
    window_s: float = WINDOW_S,
    step_s: float = STEP_S,
) -> tuple[list[float], list[float]]:
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
    times: Sequence[float],
    vectors: npt.NDArray[np.float32],
    start: float,
    end: float,
    target_s: float = TARGET_S,
    min_part_s: float = MIN_PART_S,
    window_s: float = WINDOW_S,
) -> list[float]:
    """Where the parts after the first begin, in order."""
    if end - start < 2 * min_part_s or len(times) < 4:
        return []
    cands, sims = similarity_curve(times, vectors, start, end, window_s)
    depth = depth_scores(_smooth(sims), RADIUS)
    wanted = max(0, round((end - start) / target_s) - 1)
    picked: list[float] = []
    for i in sorted(range(len(cands)), key=lambda j: -depth[j]):
        if len(picked) >= wanted:
            break
        c = cands[i]
        if c - start < min_part_s or end - c < min_part_s:
            continue
        if all(abs(c - p) >= min_part_s for p in picked):
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
    """The phrase of two to `words` words this part says more than the rest of the lecture."""
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


@dataclass(frozen=True, slots=True)
class Timeline:
    """What the lecture says in order, once (overlapping windows counted once): its sentences
    with their times and the label of the unit around each (in the unit index)."""

    said: list[TimedSentence]
    labels: list[int]

    @property
    def times(self) -> list[float]:
        return [s.time for s in self.said]


def timeline(segments: Sequence[StoredSegment], max_units: int) -> Timeline:
    """The sentences of the lecture's segments (in time order), each segment read up to where
    the next begins (the windows overlap), each sentence with its unit's label."""
    said: list[TimedSentence] = []
    labels: list[int] = []
    for i, seg in enumerate(segments):
        until = segments[i + 1].start if i + 1 < len(segments) else math.inf
        words = len(seg.text.split()) or 1
        n_units = max(1, len(split_units(seg.text)))
        for sentence in pieces(seg.text, seg.ends):
            mid = (sentence.first + sentence.last) / 2
            at = seg.start + (seg.end - seg.start) * mid / words
            if at >= until:
                break
            unit = min(max(0, round((mid - WIDTH / 2) / STRIDE)), n_units - 1)
            said.append(TimedSentence(at, sentence.text, seg.id))
            labels.append(seg.id * max_units + unit)
    return Timeline(said, labels)


def lecture_parts(
    segments: Sequence[StoredSegment],
    chapters: Sequence[Chapter],
    vectors: Vectors,
    max_units: int,
    titled_elsewhere: Callable[[float], bool] | None = None,
    language: str = "",
) -> list[Part]:
    """The lecture's parts: its author's chapters, else cut where the subject changes; each
    with the lecturer's most representative whole sentences (core/study/quoting.py; `language`: the
    lecture's, whose speech words are trimmed from them). A part cut here is titled by its word run
    (`title`) unless `titled_elsewhere(start)` says it is titled otherwise (by its key phrase:
    core/study/lecture_keyphrases.py); it is left untitled then (the word run costs about a
    second for an hour's lecture)."""
    if not segments:
        return []
    line = timeline(segments, max_units)
    if not line.said:
        return []
    vecs = vectors(line.labels)
    spoken_at = stitch([Window.of(g) for g in segments])
    found = sentences(spoken_at, language)
    start, end = segments[0].start, segments[-1].end
    if chapters:
        cuts = [max(start, c.start) for c in chapters]
        titles: list[str | None] = [c.title for c in chapters]
        cuts[0] = min(cuts[0], start)
    else:
        # each cut at the first sentence said after its candidate moment (they lie on a grid)
        made = boundaries(line.times, vecs, start, end)
        cuts = [start, *(next((t for t in line.times if t >= c), c) for c in made)]
        titles = [None] * len(cuts)
    parts: list[Part] = []
    budget = digest_words(len(cuts))
    for n, (a, b) in enumerate(itertools.pairwise([*cuts, end])):
        inside = [i for i, s in enumerate(line.said) if a <= s.time < b]
        if not inside:
            continue
        texts = [line.said[i].text for i in inside]
        named = titles[n]
        if named is None and titled_elsewhere is not None and titled_elsewhere(a):
            named = ""
        elif named is None:
            others = [s.text for i, s in enumerate(line.said) if not a <= s.time < b]
            named = title(texts, others)
        local = ranking(vecs[inside])
        ranked = [inside[i] for i in local]
        lead = _quoted(line, found, spoken_at, (a, b), inside, local, language)
        digest = " ".join(line.said[i].text for i in sorted(_within(line.said, ranked, budget)))
        said = "\n".join(texts)  # a piece a line: no phrase runs across two (keyphrases.py)
        parts.append(Part(len(parts) + 1, a, b, named, not chapters, lead, said, digest))
    return parts


#: a sentence quoted for a part has this many words at least, and at most (with the sentence
#: it leans on); the part's quoted sentences hold at most QUOTED_WORDS in all
MIN_QUOTED = 6
MAX_QUOTED = 45
QUOTED_WORDS = 70


def _quoted(
    line: Timeline,
    found: Sequence[Sentence],
    spoken_at: Transcript,
    span: tuple[float, float],
    inside: Sequence[int],
    local: Sequence[int],
    language: str,
) -> tuple[TimedSentence, ...]:
    """The part's most representative whole sentences (core/study/quoting.py), each with the one it
    leans on, as said, in order: a sentence is as representative as the best of the pieces cut
    for search (`line`) it holds. Where the captions have no punctuation, its best pieces."""
    place = {inside[k]: r for r, k in enumerate(local)}
    mine = [i for i, s in enumerate(found) if span[0] <= spoken_at.time(s.first) < span[1]]
    punctuated = any(s.whole for s in found)

    def rank(i: int) -> int:
        lo, hi = spoken_at.time(found[i].first), spoken_at.time(found[i].last - 1)
        held = [place[j] for j in inside if lo <= line.said[j].time <= hi]
        if held:
            return min(held)
        mid = (lo + hi) / 2
        return place[min(inside, key=lambda j: abs(line.said[j].time - mid))]

    quotable = [r for r in (_quotable(found, i, punctuated) for i in sorted(mine, key=rank)) if r]
    runs: list[tuple[int, int]] = []
    used = 0
    for start, stop in quotable:
        n = sum(found[j].size for j in range(start, stop))
        if len(runs) == QUOTED_SENTENCES:
            break
        if n < MIN_QUOTED or n > MAX_QUOTED or used + n > QUOTED_WORDS:
            continue
        if any(x < stop and start < y for x, y in runs):
            continue
        runs.append((start, stop))
        used += n
    if not runs and quotable:  # all too long or too short: the most representative one still
        runs = quotable[:1]
    return tuple(
        TimedSentence(
            spoken_at.time(found[x].first),
            quote_of_span(found, x, y, language),
            spoken_at.owners[found[x].first],
        )
        for x, y in sorted(runs)
    )


def _quotable(found: Sequence[Sentence], i: int, punctuated: bool) -> tuple[int, int] | None:
    """Sentence `i` with the one it leans on, as a run [start, stop) a part may quote: said by
    the lecturer (not by someone in the room), and whole where the captions have sentences."""
    start = i - 1 if found[i].leans and i > 0 else i
    if any(found[j].heard for j in range(start, i + 1)):
        return None
    if punctuated and not (found[start].whole and found[i].whole):
        return None
    return start, i + 1


def span_vectors(
    segments: Sequence[StoredSegment],
    spans: Sequence[tuple[float, float]],
    vectors: Vectors,
    max_units: int,
) -> npt.NDArray[np.float32]:
    """Each span's vector: the mean of the E5 vectors of the units said in [start, end) (zeros
    where none was)."""
    line = timeline(segments, max_units)
    vecs = vectors(line.labels)
    out = np.zeros((len(spans), vecs.shape[1] if len(vecs) else 1), dtype=np.float32)
    for row, (a, b) in enumerate(spans):
        inside = [i for i, s in enumerate(line.said) if a <= s.time < b]
        if inside:
            out[row] = vecs[inside].mean(axis=0)
    return out


def ranking(vectors: npt.NDArray[np.float32]) -> list[int]:
    """Positions of the vectors, the closest to their mean first."""
    if len(vectors) == 0:
        return []
    mean = vectors.mean(axis=0)
    mean /= float(np.linalg.norm(mean)) or 1.0
    return [int(i) for i in np.argsort(-(vectors @ mean), kind="stable")]


def digest_words(parts: int) -> int:
    """The words a part's digest holds when the lecture has `parts` parts."""
    return max(MIN_DIGEST_WORDS, min(DIGEST_WORDS, LECTURE_DIGEST_WORDS // max(1, parts)))


def _within(said: Sequence[TimedSentence], ranked: Sequence[int], words: int) -> list[int]:
    """The first of the ranked sentences that fit in `words` words (at least one)."""
    out: list[int] = []
    total = 0
    for i in ranked:
        n = len(said[i].text.split())
        if out and total + n > words:
            continue
        out.append(i)
        total += n
    return out
