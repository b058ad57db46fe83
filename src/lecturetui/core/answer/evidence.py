"""The sentences of the retrieved windows that answer the question, scored by the relevance model.

Each sentence of the best windows is compared with the question (the cosine of the sentence as
a document and the question as a query; EmbeddingGemma when it re-ranks, else E5: quote.py). The
best ones are shown at once, before the model writes anything; the answer opens with the best of
the best-ranked window (quote.py) and its prompt is made of them (budget.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from lecturetui.core.answer.prompting import Passage
from lecturetui.core.lectures import StoredSegment
from lecturetui.core.links import deep_link
from lecturetui.core.records import EvidenceRecord
from lecturetui.core.retrieval.sentences import SentenceVectors
from lecturetui.core.retrieval.vector_index import unit_vector
from lecturetui.core.sentences import Sentence, Transcript, Window, pieces, stitch
from lecturetui.core.study.quoting import covering, quote_of_span
from lecturetui.core.study.quoting import sentences as whole_sentences
from lecturetui.core.timefmt import format_timestamp

#: passages whose sentences are scored (in retrieval order): more would cost embedding time for
#: passages the prompt would not hold anyway
SCORED_PASSAGES = 6
EVIDENCE_SHOWN = 3


@dataclass(frozen=True, slots=True)
class Spoken:
    """A passage's window in its lecture's whole sentences (core/study/quoting.py): the window and its
    neighbours stitched (`line`), their sentences (`found`), where the window's first word lies
    in `line` (`shift`) and the lecture's language; `others`: where each neighbouring window
    begins in `line` and its text; `heard`: the scored pieces of those windows, as (first, last,
    cosine) in `line` (`with_neighbours`), so a quote may grow over the sentence that answers
    just outside the window."""

    line: Transcript
    found: tuple[Sentence, ...]
    shift: int
    language: str
    others: tuple[tuple[int, str], ...] = ()
    size: int = 0  # the window's words in `line`
    heard: tuple[tuple[int, int, float], ...] = ()

    @classmethod
    def of(
        cls, text: str, start: float, end: float, around: Sequence[StoredSegment], language: str
    ) -> Spoken:
        """The window `text` read among `around` (itself and its neighbours in its lecture); a
        window not among them is read alone, its first sentence not called whole."""
        own = " ".join(text.split())
        windows = [Window.of(s) for s in around]
        at = next((k for k, w in enumerate(windows) if " ".join(w.text.split()) == own), None)
        begins = at is not None and around[0].ordinal == 0
        if at is None:
            windows, at = [Window(-1, start, end, text)], 0
        line = stitch(windows)
        others = tuple((line.offsets[k], w.text) for k, w in enumerate(windows) if k != at)
        found = tuple(whole_sentences(line, language, begins))
        size = len(windows[at].text.split())
        return cls(line, found, line.offsets[at], language, others, size=size)

    def with_neighbours(
        self, query: npt.NDArray[np.float32], vectors: SentenceVectors, reach: int
    ) -> Spoken:
        """The neighbouring windows' pieces (as cut for search) that reach outside the window,
        within `reach` words of its edges (what a quote grown from inside it can take), scored
        against the question: one embedding call (the app embeds every window's pieces while
        idle)."""
        start, end = self.shift, self.shift + self.size

        def near(first: int, last: int) -> bool:
            return (first < start and last > start - reach) or (last > end and first < end + reach)

        outside = [
            (at, s)
            for at, text in self.others
            for s in pieces(text)
            if near(at + s.first, at + s.last)
        ]
        if not outside:
            return self
        sims = (vectors.vectors([s.text for _, s in outside]) @ unit_vector(query)).tolist()
        heard = tuple(
            (at + s.first, at + s.last, float(x)) for (at, s), x in zip(outside, sims, strict=True)
        )
        return replace(self, heard=heard)

    def covering(self, unit: Sentence) -> list[int]:
        """The whole sentences that hold any word of a piece of the window as cut for search."""
        return covering(self.found, self.shift + unit.first, self.shift + unit.last)

    def text(self, a: int, b: int) -> str:
        return quote_of_span(self.found, a, b, self.language)


@dataclass(frozen=True, slots=True)
class ScoredPassage:
    """A retrieved passage, its sentences and each one's cosine to the question; `spoken`: its
    window in its lecture's whole sentences, what is quoted from it (core/answer/found.py)."""

    passage: Passage
    sentences: tuple[Sentence, ...]
    scores: tuple[float, ...]
    n_words: int
    spoken: Spoken | None = None

    def time_at(self, word: int) -> float:
        """Where a word falls in the passage's time span (interpolated by position)."""
        p = self.passage
        return p.start + (p.end - p.start) * word / max(self.n_words, 1)

    @property
    def best(self) -> float:
        return max(self.scores, default=0.0)

    def grow(self, picked: set[int], size: Callable[[int], int], used: int, limit: int) -> int:
        """Add to `picked`, one at a time, the neighbour of a picked sentence that scores
        highest (the earlier on a tie) while its `size` keeps `used` within `limit`; returns
        the new `used` (the quote and the prompt's excerpt [1] both grow this way)."""
        n = len(self.sentences)
        while True:
            sides = {j for i in picked for j in (i - 1, i + 1) if 0 <= j < n} - picked
            fits = [i for i in sorted(sides) if used + size(i) <= limit]
            if not fits:
                return used
            i = max(fits, key=lambda j: self.scores[j])
            picked.add(i)
            used += size(i)


@dataclass(frozen=True, slots=True)
class EvidenceSentence:
    """One sentence that answers the question, with its place in the lectures."""

    lecture_id: str
    lecture_title: str
    start: float  # approximate: interpolated by the sentence's place in its segment
    text: str
    before: str  # the sentence before it in its segment ("" at the start)
    after: str  # and the one after it
    score: float  # the relevance model's cosine to the question
    segment_id: int | None  # the segment that holds it
    url: str | None

    def record(self) -> EvidenceRecord:
        return EvidenceRecord(
            text=self.text,
            lecture=self.lecture_id,
            lecture_title=self.lecture_title,
            start_s=self.start,
            start=format_timestamp(self.start),
            before=self.before,
            after=self.after,
            score=self.score,
            segment_id=self.segment_id,
            url=self.url,
        )


def score_passages(
    passages: Sequence[Passage],
    query: npt.NDArray[np.float32],
    vectors: SentenceVectors,
    limit: int = SCORED_PASSAGES,
) -> list[ScoredPassage]:
    """The first `limit` passages with a score per sentence (one embedding call for all)."""
    split = [(p, pieces(p.text)) for p in passages[:limit]]
    texts = [s.text for _, sentences in split for s in sentences]
    if not texts:
        return []
    sims = (vectors.vectors(texts) @ unit_vector(query)).tolist()
    out: list[ScoredPassage] = []
    pos = 0
    for passage, cut in split:
        scores = tuple(float(x) for x in sims[pos : pos + len(cut)])
        pos += len(cut)
        out.append(ScoredPassage(passage, tuple(cut), scores, len(passage.text.split())))
    return out


def segment_of(passage: Passage, text: str) -> int | None:
    """The id of the passage's segment whose text holds the sentence (else the first one)."""
    for hit in passage.hits:
        if text in " ".join(hit.segment.text.split()):
            return int(hit.segment.id)
    return int(passage.hits[0].segment.id) if passage.hits else None


def best_evidence(
    scored: Sequence[ScoredPassage], n: int = EVIDENCE_SHOWN
) -> list[EvidenceSentence]:
    """The `n` best sentences, no two the same or side by side in one passage."""
    ranked = sorted(
        ((sp.scores[i], k, i) for k, sp in enumerate(scored) for i in range(len(sp.sentences))),
        key=lambda t: -t[0],
    )
    chosen: list[tuple[int, int]] = []
    seen: set[str] = set()
    out: list[EvidenceSentence] = []
    for score, k, i in ranked:
        if len(out) >= n:
            break
        sp = scored[k]
        sentence = sp.sentences[i]
        if sentence.text in seen or any(k == ck and abs(i - ci) <= 1 for ck, ci in chosen):
            continue
        chosen.append((k, i))
        seen.add(sentence.text)
        start = sp.time_at(sentence.first)
        text, before, after = _whole(sp, i)
        p = sp.passage
        out.append(
            EvidenceSentence(
                p.lecture_id,
                p.lecture_title,
                start,
                text,
                before,
                after,
                score,
                segment_of(p, sentence.text),
                deep_link(p.source_url, start),
            )
        )
    return out


#: an evidence sentence is shown whole up to this many words
EVIDENCE_WORDS = 60


def _whole(sp: ScoredPassage, i: int) -> tuple[str, str, str]:
    """The piece `i` of the window as shown: the whole sentences that hold it, as said, with the
    sentence before and after them (core/study/quoting.py); as cut for search, marked "…" where it is
    cut, when they are too long or the window is not read among its neighbours."""
    spoken = sp.spoken
    held = spoken.covering(sp.sentences[i]) if spoken is not None else []
    if spoken is None or not held or sum(spoken.found[j].size for j in held) > EVIDENCE_WORDS:
        piece = sp.sentences[i].text
        before = sp.sentences[i - 1].text if i > 0 else ""
        after = sp.sentences[i + 1].text if i + 1 < len(sp.sentences) else ""
        return piece, before, after
    a, b = held[0], held[-1] + 1
    before = spoken.text(a - 1, a) if a > 0 else ""
    after = spoken.text(b, b + 1) if b < len(spoken.found) else ""
    return spoken.text(a, b), before, after
