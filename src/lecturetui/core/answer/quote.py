"""The lecturer's own words that answer the question: the sentences the answer opens with.

The ranking is strong and the passage it puts first holds the answer most of the time; a small
model rewriting it loses it more often than it keeps it. So the answer opens with the best
sentences of the best-ranked window, quoted with its lecture and time, chosen by the relevance
model (EmbeddingGemma when it is installed, else E5): each sentence of the candidate windows
is compared with the question (cosine of the sentence as a document and the question as a
query); the two best, and around them the neighbours that score higher, up to QUOTE_WORDS
words, are quoted in the lecture's order (at most two runs of consecutive sentences).
Sentence vectors are cached on disk by model and text (`index/sentences.sqlite3`), so a
sentence is embedded once; the app embeds the library's sentences while it is idle.

The same scores choose what else the prompt holds (core/answer/budget.py), and the best-ranked
window's relevance (`relevance`) says whether the lectures cover the question at all
(core/answer/verdict.py).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from lecturetui.core.answer.evidence import ScoredPassage, Spoken, segment_of
from lecturetui.core.answer.prompting import Passage
from lecturetui.core.lectures import StoredSegment
from lecturetui.core.library import Hit, Library
from lecturetui.core.links import deep_link
from lecturetui.core.models.embedding import Embedder
from lecturetui.core.records import QuoteRecord
from lecturetui.core.retrieval.rerank import RerankStage
from lecturetui.core.retrieval.sentences import SentenceVectors
from lecturetui.core.retrieval.vector_index import unit_vector
from lecturetui.core.study.quoting import choose, quote_of_runs
from lecturetui.core.timefmt import format_timestamp

#: windows whose sentences are scored: the quote comes from the first, the prompt's other
#: excerpts from the next (bench/RESULTS.md, "The lecturer's words first")
SCORED_WINDOWS = 3
#: the quote holds the window's two best sentences and their neighbours up to this many words
#: (about 45 seconds of speech; bench/RESULTS.md, "The moment that answers": the key points a
#: quote holds grow with its length, and the sentences next to the best ones hold the lecturer's
#: example and reason more often than the next best sentences elsewhere in the window). Whole
#: sentences pack less tightly than pieces: 120 words hold as many key points as 100 words of
#: pieces did ("The lecturer's words, never misquoted")
QUOTE_WORDS = 120
#: the sentences the quote grows around
QUOTE_SEEDS = 2


@dataclass(frozen=True, slots=True)
class Quote:
    """The sentences of a window that best answer the question."""

    lecture_id: str
    lecture_title: str
    start: float  # approximate: interpolated by the sentences' place in the window
    end: float
    text: str
    score: float  # the relevance model's cosine of its best sentence to the question
    segment_id: int | None
    url: str | None
    sentences: tuple[int, ...]  # the window's sentences quoted, in order

    def record(self) -> QuoteRecord:
        return QuoteRecord(
            text=self.text,
            lecture=self.lecture_id,
            lecture_title=self.lecture_title,
            start_s=self.start,
            end_s=self.end,
            start=format_timestamp(self.start),
            score=self.score,
            segment_id=self.segment_id,
            url=self.url,
        )


@dataclass(frozen=True, slots=True)
class SentenceScorer:
    """The model that scores sentences, its question vectors and its sentence cache."""

    name: str  # "EmbeddingGemma" or "E5"
    embedder: Embedder
    vectors: SentenceVectors
    library: Library

    def query(self, text: str) -> npt.NDArray[np.float32]:
        stage = self.library.rerank_stage()
        if stage is not None and stage.embedder is self.embedder:
            return stage.query_vector(text)
        return unit_vector(self.embedder.embed_query(text))


_scorers: weakref.WeakKeyDictionary[Library, SentenceScorer] = weakref.WeakKeyDictionary()


def sentence_scorer(library: Library) -> SentenceScorer:
    """The library's sentence scorer: EmbeddingGemma when it re-ranks, else E5 (one per library;
    vectors cached in `index/sentences.sqlite3`, keyed by the model's id and weights)."""
    if library not in _scorers:
        stage = library.rerank_stage()
        name, emb = ("EmbeddingGemma", stage.embedder) if stage else ("E5", library.embedder)
        vectors = SentenceVectors(
            library.home.sentences_db,
            lambda: emb,
            f"{emb.model_id}:{emb.fingerprint()[:16]}",
        )
        _scorers[library] = SentenceScorer(name, emb, vectors, library)
    return _scorers[library]


def best_window(passage: Passage) -> Passage:
    """The passage cut to its best-ranked window (the hit that ranked it), keeping its hits:
    its sentences are what is scored (a merged passage can be three windows long)."""
    if len(passage.hits) <= 1:
        return passage
    hit: Hit = max(passage.hits, key=lambda h: h.score)
    seg = hit.segment
    return Passage(
        passage.number,
        passage.lecture_id,
        passage.lecture_title,
        seg.start,
        seg.end,
        seg.text,
        passage.score,
        deep_link(passage.source_url, seg.start),
        passage.source_url,
        passage.hits,
    )


def window_segment(passage: Passage) -> StoredSegment | None:
    """The segment of the passage's best-ranked window (the one `best_window` keeps)."""
    if not passage.hits:
        return None
    seg: StoredSegment = max(passage.hits, key=lambda h: h.score).segment
    return seg


def choose_quote(sp: ScoredPassage, words: int = QUOTE_WORDS) -> Quote | None:
    """The lecturer's whole sentences around the one that answers (core/study/quoting.py): the
    sentence that holds the window's best-scored piece and what it leans on, the sentence of the
    next best piece where it fits (QUOTE_SEEDS), then whole neighbours, the higher-scored first,
    the neighbouring windows' sentences scored too (`sp.spoken.heard`: the sentence that answers
    may lie just across the window's edge; seeded there, the quote held fewer key points:
    bench/RESULTS.md, "The sentence that answers"),
    up to `words` words, in the lecture's order, two runs joined by "…"; read from the window
    among its neighbours (`sp.spoken`), so that a sentence cut by the window's edge is quoted
    whole. A sentence too long to quote (over twice `words`: captions without punctuation)
    gives way to the window's best pieces as cut for search, marked as cut."""
    if not sp.sentences:
        return None
    order = sorted(range(len(sp.sentences)), key=lambda j: (-sp.scores[j], j))
    best = order[0]
    p = sp.passage
    spoken = sp.spoken or Spoken.of(p.text, p.start, p.end, (), "")
    found, shift = spoken.found, spoken.shift
    own = [
        (shift + u.first, shift + u.last, x) for u, x in zip(sp.sentences, sp.scores, strict=True)
    ]
    # what a quote grows over: the window's pieces and its neighbouring windows' (`heard`)
    pieces = [*own, *spoken.heard]
    cores = [spoken.covering(sp.sentences[j]) for j in order[:QUOTE_SEEDS]]
    if not cores[0] or sum(found[i].size for i in cores[0]) > 2 * words:
        return _pieces_quote(sp, best, words)

    def score(i: int) -> float:
        s = found[i]
        return max((x for a, b, x in pieces if a < s.last and b > s.first), default=-1.0)

    chosen = choose(found, [c for c in cores if c], words, score)
    first, last = found[chosen[0]].first, found[chosen[-1]].last
    held = {w for i in chosen for w in range(found[i].first, found[i].last)}
    units = tuple(
        j
        for j, u in enumerate(sp.sentences)
        if any(shift + w in held for w in range(u.first, u.last))
    )
    line = spoken.line
    start, end = line.time(first), line.time(last - 1)
    owner = line.owners[found[cores[0][0]].first]
    segment = owner if owner >= 0 else segment_of(p, sp.sentences[best].text)
    return Quote(
        p.lecture_id,
        p.lecture_title,
        start,
        end,
        quote_of_runs(found, chosen, spoken.language),
        sp.scores[best],
        segment,
        deep_link(p.source_url, start),
        units,
    )


def _pieces_quote(sp: ScoredPassage, best: int, words: int) -> Quote:
    """The window's best piece and its neighbours as cut for search, up to `words` words,
    marked as cut ("…") where it does not begin or end a sentence."""
    picked = {best}
    sp.grow(
        picked,
        lambda i: len(sp.sentences[i].text.split()),
        len(sp.sentences[best].text.split()),
        words,
    )
    chosen = sorted(picked)
    text = " ".join(sp.sentences[i].text for i in chosen)
    if not text[:1].isupper():
        text = f"… {text}"
    if not text.rstrip("\"'”’)]").endswith((".", "!", "?", "…")):
        text = f"{text} …"
    p = sp.passage
    start = sp.time_at(sp.sentences[chosen[0]].first)
    end = sp.time_at(sp.sentences[chosen[-1]].last)
    return Quote(
        p.lecture_id,
        p.lecture_title,
        start,
        end,
        text,
        sp.scores[best],
        segment_of(p, sp.sentences[best].text),
        deep_link(p.source_url, start),
        tuple(chosen),
    )


def relevance(
    hits: Sequence[Hit], stage: RerankStage | None = None, translation: str | None = None
) -> float | None:
    """The relevance model's cosine of the question to the best-ranked window, or of its
    translation when that is higher (a question in another language than the lectures' scores
    lower as asked); None without EmbeddingGemma, whose cosines are too compressed to tell."""
    if not hits:
        return 0.0
    score = hits[0].retrievers.get("rerank")
    if score is not None and translation and stage is not None:
        seg = hits[0].segment.id
        score = max(score, stage.scores(translation, [seg]).get(seg, score))
    return score


_SENTENCE = re.compile(r"[^.?!¿¡]+")
_TOKEN = re.compile(r"\w+")


def names(question: str) -> list[str]:
    """The words of a question that look like names or code, whatever its language: with an
    underscore (`__enter__`), a capital inside (`DataFrame`), in capitals (`GIL`), or
    capitalised other than at a sentence's start (`Django`)."""
    out: list[str] = []
    for sentence in _SENTENCE.findall(question):
        for i, word in enumerate(_TOKEN.findall(sentence)):
            if len(word) < 2 or word.isdigit():
                continue
            if (
                "_" in word.strip("_")
                or word.startswith("__")
                or re.search(r"[a-z][A-Z]", word)
                or re.fullmatch(r"[A-Z]{2,}s?", word)
                or (i > 0 and word[0].isupper())
            ):
                out.append(word)
    return list(dict.fromkeys(out))


def names_unknown(library: Library, question: str) -> list[str]:
    """The question's names (`names`) that no lecture of the library mentions."""
    found = names(question)
    return library.store.unknown_words(found) if found else []
