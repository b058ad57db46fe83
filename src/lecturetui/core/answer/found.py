"""What a question finds before the model writes: the hits, the passages and the evidence
sentences (`retrieve`), and the quote the answer opens with; core/answer/question.py runs a
question through them, and the answer itself is core/answer/result.py's `Answer`."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from lecturetui.core.answer.doubt import SURE, Doubt, in_doubt, just_under, margin
from lecturetui.core.answer.evidence import (
    EvidenceSentence,
    ScoredPassage,
    best_evidence,
    score_passages,
)
from lecturetui.core.answer.guess import Guesser, guess_for
from lecturetui.core.answer.prompting import Passage, merge_hits
from lecturetui.core.answer.quote import (
    SCORED_WINDOWS,
    Quote,
    best_window,
    choose_quote,
    coverage_threshold,
    covers,
    names_unknown,
    relevance,
    sentence_scorer,
)
from lecturetui.core.answer.translate import Translator
from lecturetui.core.conversation import Turn
from lecturetui.core.language import question_language
from lecturetui.core.library import Hit, Library, SearchResult
from lecturetui.core.question_options import DEFAULT_MODE
from lecturetui.core.retrieval.scope import Scope
from lecturetui.core.retrieval.sentences import split_sentences


@dataclass(frozen=True, slots=True)
class Retrieved:
    """What is known before the model writes: hits, passages, and the evidence sentences."""

    turn: Turn
    hits: list[Hit]
    passages: list[Passage]  # merged hits, in retrieval order
    #: the best-ranked window of each of the first passages, with a score per sentence
    scored: list[ScoredPassage]
    evidence: list[EvidenceSentence]
    retrieval_s: float
    evidence_s: float  # retrieval included
    translation: str | None = None  # the question as searched, in the library's language
    guess: str | None = None  # the lecturer's likely words, searched with it (core/answer/guess.py)
    model_s: float = 0.0  # of retrieval_s: the model's translation and guess
    quote: Quote | None = None  # the lecturer's sentences that answer (core/answer/quote.py)
    covered: bool = True  # False: the lectures do not answer the question (quote.covers)
    #: the relevance model's cosine of the question to the best-ranked window (quote.relevance;
    #: None without EmbeddingGemma)
    relevance: float | None = None
    #: whether the quoted moment is in doubt, and the other moment (core/answer/doubt.py)
    doubt: Doubt = SURE
    check_s: float = 0.0  # the answer model's check of the doubt, after the quote was shown
    #: a question refused just under the coverage threshold: its two best moments, which the
    #: answer model reads before it is refused (core/answer/doubt.py's `just_under`; None once read)
    near: tuple[Quote, Quote] | None = None
    #: the question's language by name ("Portuguese"), the library's and the interface's
    #: preferred in a near tie: what the answer and its lines are written in
    language: str | None = None

    @property
    def checking(self) -> bool:
        """The answer model is still to read the moments (a CPU's check, after they are shown)."""
        return self.doubt.pending or self.near is not None

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
    translation: str | None  # the question in the library's language (core/answer/translate.py)
    guess: str | None  # the lecturer's likely words (core/answer/guess.py)
    model_s: float  # the model's time for both, before the search


def search_as_asked(
    library: Library,
    question: str,
    k: int,
    mode: str = DEFAULT_MODE,
    scope: Scope | None = None,
    translator: Translator | None = None,
    guesser: Guesser | None = None,
) -> Searched:
    """Translate the question (a translator), guess the lecturer's words (a guesser: in the
    translation's language when there is one), then search with all of it."""
    t0 = time.perf_counter()
    translation = translator(question) if translator else None
    guess = guess_for(guesser, question, translation)
    model_s = time.perf_counter() - t0
    result = library.search(
        question, k, mode=mode, scope=scope, translation=translation, guess=guess
    )
    return Searched(result, translation, guess, model_s)


def retrieve(
    library: Library,
    turn: Turn,
    k: int = 10,
    mode: str = DEFAULT_MODE,
    scope: Scope | None = None,
    translator: Translator | None = None,
    guesser: Guesser | None = None,
) -> Retrieved:
    """Search (a follow-up with the previous question's search text) and score the sentences
    of the best passages: the evidence, shown before any answer. A translator puts a question
    in another language into the library's; a guesser adds the lecturer's likely words (in the
    translation's language when there is one)."""
    library.warm()  # model loading is not retrieval time
    t0 = time.perf_counter()
    searched = search_as_asked(library, turn.search_text, k, mode, scope, translator, guesser)
    t1 = time.perf_counter()
    hits = searched.result.hits
    passages = merge_hits(hits)
    scored: list[ScoredPassage] = []
    same = searched.translation is not None or library.same_language(turn.search_text)
    stage = library.rerank_stage()
    threshold, unknown = coverage_threshold(same), names_unknown(library, turn.search_text)
    covered = covers(hits, stage, searched.translation, threshold, unknown)
    best = relevance(hits, stage, searched.translation)
    # the quote's window now (and the second's, to show beside it, when the two are about as
    # close, or to be read before a question just under the threshold is refused:
    # core/answer/doubt.py); the next ones when the prompt is built (`score_rest`)
    close = covered and in_doubt(passages, stage is not None)
    almost = not covered and stage is not None and just_under(best, threshold, unknown, passages)
    if passages:
        scorer = sentence_scorer(library)
        windows = [best_window(p) for p in passages[: 2 if close or almost else 1]]
        scored = score_passages(windows, scorer.query(turn.search_text), scorer.vectors)
    quotes = [choose_quote(sp) for sp in scored] if covered or almost else []
    first, second = [*quotes, None, None][:2]
    quote = first if covered else None
    other = second if quote is not None else None
    read_first = (first, second) if almost and first is not None and second is not None else None
    scored = scored[: 2 if other is not None or read_first is not None else 1]
    doubt = Doubt(True, margin(passages), other) if other is not None else SURE
    t2 = time.perf_counter()
    return Retrieved(
        turn, hits, passages, scored, best_evidence(scored), t1 - t0, t2 - t0,
        searched.translation, searched.guess, searched.model_s, quote, covered, best, doubt,
        near=read_first, language=question_language(turn.question, library.likely_languages()),
    )  # fmt: skip


def score_rest(library: Library, found: Retrieved) -> list[ScoredPassage]:
    """The best-ranked windows' sentences with their scores: the quote's window, scored by
    `retrieve`, and the next ones, scored now (after the quote is on screen) for the prompt."""
    if len(found.passages) <= 1 or not found.scored:
        return list(found.scored)
    scorer = sentence_scorer(library)
    windows = [best_window(p) for p in found.passages[len(found.scored) : SCORED_WINDOWS]]
    if not windows:
        return list(found.scored)
    query = scorer.query(found.turn.search_text)
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
        texts = [s.text for seg in store.segments_by_id(ids[i : i + 8]).values()
                 for s in split_sentences(seg.text)]  # fmt: skip
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
