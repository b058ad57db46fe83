"""What a question finds before the model writes: the hits, the passages and the evidence
sentences (`retrieve`), the lecturer's words the answer opens with, and the verdict they lead to
(core/answer/verdict.py); core/answer/question.py runs a question through them, and the answer
itself is core/answer/result.py's `Answer`."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from lecturetui.core.answer.evidence import (
    EvidenceSentence,
    ScoredPassage,
    Spoken,
    best_evidence,
    score_passages,
)
from lecturetui.core.answer.guess import Guesser
from lecturetui.core.answer.prompting import Passage, merge_hits
from lecturetui.core.answer.quote import (
    QUOTE_WORDS,
    SCORED_WINDOWS,
    Quote,
    best_window,
    choose_quote,
    names_unknown,
    relevance,
    sentence_scorer,
    window_segment,
)
from lecturetui.core.answer.translate import Translator
from lecturetui.core.answer.verdict import (
    Explain,
    ReadFirst,
    Refuse,
    Signals,
    Unsure,
    Verdict,
    first_verdict,
    threshold_for,
)
from lecturetui.core.conversation import Turn
from lecturetui.core.library import Hit, Library, SearchResult
from lecturetui.core.question_options import DEFAULT_MODE
from lecturetui.core.retrieval.asked import Asked
from lecturetui.core.retrieval.scope import Scope
from lecturetui.core.retrieval.sentences import SentenceVectors
from lecturetui.core.sentences import pieces


@dataclass(frozen=True, slots=True)
class Retrieved:
    """What is known before the model writes: hits, passages, the evidence sentences, and the
    verdict so far."""

    turn: Turn
    asked: Asked  # the question's facts: its language, translation and the lecturer's guess
    hits: list[Hit]
    passages: list[Passage]  # merged hits, in retrieval order
    #: the best-ranked window of each of the first passages, with a score per sentence
    scored: list[ScoredPassage]
    evidence: list[EvidenceSentence]
    signals: Signals  # what the verdict rests on
    verdict: Verdict
    retrieval_s: float
    evidence_s: float  # retrieval included
    model_s: float = 0.0  # of retrieval_s: the model's translation and guess
    check_s: float = 0.0  # the answer model's read of two moments

    @property
    def translation(self) -> str | None:
        return self.asked.translation

    @property
    def guess(self) -> str | None:
        return self.asked.guess

    @property
    def language(self) -> str:
        """The question's language by name: what the answer and its lines are written in."""
        return self.asked.language_name

    @property
    def relevance(self) -> float | None:
        return self.signals.relevance

    @property
    def quote(self) -> Quote | None:
        """The lecturer's words shown first: the quote, or the first of two moments."""
        v = self.verdict
        if isinstance(v, Explain):
            return v.quote
        if isinstance(v, Unsure) or (isinstance(v, ReadFirst) and not v.near):
            return v.first
        return None

    @property
    def covered(self) -> bool:
        """Whether the lectures answer, as far as is known (not while a question just under the
        threshold is still to be read)."""
        v = self.verdict
        return not isinstance(v, Refuse) and not (isinstance(v, ReadFirst) and v.near)

    @property
    def checking(self) -> bool:
        """The answer model is still to read two moments (a CPU's read, after they are shown)."""
        return isinstance(self.verdict, ReadFirst)

    @property
    def moments(self) -> tuple[Quote, Quote] | None:
        """The two moments an answer in doubt shows (None when it is not in doubt)."""
        v = self.verdict
        return (v.first, v.other) if isinstance(v, Unsure) else None

    @property
    def elapsed_s(self) -> float:
        """From the question to now, as far as this knows: the evidence and the check."""
        return self.evidence_s + self.check_s

    def timings_without_model(self) -> dict[str, float]:
        """An answer's timings when no model wrote any of it (an abstention, two moments in
        doubt): it is whole once the evidence is out."""
        ms = self.elapsed_s * 1000
        return {
            "retrieval_ms": self.retrieval_s * 1000,
            "evidence_ms": self.evidence_s * 1000,
            "translate_guess_ms": self.model_s * 1000,
            "check_ms": self.check_s * 1000,
            "time_to_first_token_ms": ms,
            "prompt_tokens": 0.0,
            "prompt_new_tokens": 0.0,
            "tokens_per_s": 0.0,
            "total_ms": ms,
        }


@dataclass(frozen=True, slots=True)
class Searched:
    """A question searched as `ask` searches it, with what the answer model added."""

    result: SearchResult
    asked: Asked  # with the translation and the lecturer's guess, when made
    model_s: float  # the model's time for both, before the search

    @property
    def translation(self) -> str | None:
        return self.asked.translation

    @property
    def guess(self) -> str | None:
        return self.asked.guess


def search_as_asked(
    library: Library,
    asked: Asked,
    k: int,
    mode: str = DEFAULT_MODE,
    translator: Translator | None = None,
    guesser: Guesser | None = None,
) -> Searched:
    """Translate the question (a translator), guess the lecturer's words (a guesser: in the
    translation's language when there is one), then search with all of it."""
    t0 = time.perf_counter()
    if translator is not None:
        asked = translator(asked)
    if guesser is not None:
        asked = guesser(asked)
    model_s = time.perf_counter() - t0
    return Searched(library.search(asked, k, mode=mode), asked, model_s)


def retrieve(
    library: Library,
    turn: Turn,
    k: int = 10,
    mode: str = DEFAULT_MODE,
    scope: Scope | None = None,
    translator: Translator | None = None,
    guesser: Guesser | None = None,
    asked: Asked | None = None,
) -> Retrieved:
    """Search (a follow-up with the previous question's search text), score the sentences of
    the best passages (the evidence, shown before any answer), quote the lecturer's words and
    give the first verdict. A translator puts a question in another language into the library's;
    a guesser adds the lecturer's likely words. `asked`: the question's facts, when its pipeline
    has them already (they carry its scope)."""
    library.warm()  # model loading is not retrieval time
    asked = asked or library.asked(turn.question, turn.search_text, scope)
    t0 = time.perf_counter()
    searched = search_as_asked(library, asked, k, mode, translator, guesser)
    t1 = time.perf_counter()
    asked, hits = searched.asked, searched.result.hits
    passages = merge_hits(hits)
    stage = library.rerank_stage()
    signals = Signals(
        relevance=relevance(hits, stage, asked.translation),
        threshold=threshold_for(asked.same_language),
        unknown=tuple(names_unknown(library, asked.text)),
        margin=passages[0].score - passages[1].score if len(passages) >= 2 else None,
        reranked=stage is not None,
        moments=len(passages),
    )
    # the quote's window now (and the second's, to show or read beside it); the next ones when
    # the prompt is built (`score_rest`)
    scored: list[ScoredPassage] = []
    quoting = signals.covered or signals.just_under
    if signals.moments_quoted:
        scorer = sentence_scorer(library)
        query = scorer.query(asked.text)
        windows = [best_window(p) for p in passages[: signals.moments_quoted]]
        scored = score_passages(windows, query, scorer.vectors)
        scored = [replace(sp, spoken=_spoken(library, sp.passage)) for sp in scored]
        if quoting:  # the sentence that answers may lie just outside the window
            scored = [_heard(sp, query, scorer.vectors) for sp in scored]
    quotes = [choose_quote(sp) for sp in scored] if quoting else []
    first, second = [*quotes, None, None][:2]
    verdict = first_verdict(signals, first, second)
    scored = scored[: 2 if isinstance(verdict, ReadFirst) else 1]
    return Retrieved(
        turn=turn,
        asked=asked,
        hits=hits,
        passages=passages,
        scored=scored,
        evidence=best_evidence(scored),
        signals=signals,
        verdict=verdict,
        retrieval_s=t1 - t0,
        evidence_s=time.perf_counter() - t0,
        model_s=searched.model_s,
    )


def _spoken(library: Library, passage: Passage) -> Spoken:
    """The passage's window read among its neighbours in its lecture, in whole sentences: what
    its quote and its evidence are cut from (core/answer/quote.py, evidence.py)."""
    seg = window_segment(passage)
    lecture = passage.hits[0].lecture if passage.hits else None
    around = library.neighbours(seg) if seg is not None else []
    language = getattr(lecture, "language", None) or ""
    return Spoken.of(passage.text, passage.start, passage.end, around, language)


def _heard(
    sp: ScoredPassage, query: npt.NDArray[np.float32], vectors: SentenceVectors
) -> ScoredPassage:
    """The passage with its neighbouring windows' pieces scored too (what its quote may grow
    over: core/answer/quote.py)."""
    if sp.spoken is None:
        return sp
    return replace(sp, spoken=sp.spoken.with_neighbours(query, vectors, QUOTE_WORDS))


def score_rest(library: Library, found: Retrieved) -> list[ScoredPassage]:
    """The best-ranked windows' sentences with their scores: the quote's window, scored by
    `retrieve`, and the next ones, scored now (after the quote is on screen) for the prompt."""
    if len(found.passages) <= 1 or not found.scored:
        return list(found.scored)
    scorer = sentence_scorer(library)
    windows = [best_window(p) for p in found.passages[len(found.scored) : SCORED_WINDOWS]]
    if not windows:
        return list(found.scored)
    query = scorer.query(found.asked.text)
    return [*found.scored, *score_passages(windows, query, scorer.vectors)]


def warm_sentences(
    library: Library, stop: threading.Event, idle: threading.Event | None = None, batch: int = 16
) -> int:
    """Embed the sentences of every segment not yet cached, a few at a time, pausing while
    `idle` is clear (a question is being answered); returns how many were embedded."""
    vectors = sentence_scorer(library).vectors
    store = library.store
    ids = store.all_segment_ids()
    done = 0
    for i in range(0, len(ids), 8):
        if stop.is_set():
            break
        texts = [
            s.text
            for seg in store.segments_by_id(ids[i : i + 8]).values()
            for s in pieces(seg.text)
        ]
        todo = vectors.missing(texts)
        for j in range(0, len(todo), batch):
            while idle is not None and not idle.wait(0.2):
                if stop.is_set():
                    return done
            if stop.is_set():
                return done
            vectors.vectors(todo[j : j + batch])
            done += len(todo[j : j + batch])
    return done
