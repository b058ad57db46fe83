"""One question, start to end, as a stream of typed events: the pipeline every face drives.

    Started -> EvidenceReady -> PromptReady -> Token ... -> Answered     (or Failed, at any point)
    Started -> EvidenceReady [-> Doubted] -> Answered    (abstained, or two moments in doubt)

`run_question` translates a question in another language (core/answer/translate.py), guesses the
lecturer's words (core/answer/guess.py), retrieves the hits and chooses the lecturer's sentences
the answer opens with (core/answer/quote.py; when the lectures do not cover the question, it says
so and no model runs), builds the prompt (core/answer/budget.py), streams the model's short
explanation, checks it against the excerpts it cites (core/answer/check.py) and keeps it in the
history. `ask` prints the
events, `ask --json` prints the last one, the app's worker posts each as a Textual message, and
`eval` reads the answer from `Answered`. Cancelling goes through `stop` (Esc, a new question)
or Ctrl+C (KeyboardInterrupt while the answer streams): the answer keeps what was written.

The answer model may still be loading when the question starts: a `ModelSource` gives it to the
pipeline when the pipeline needs it (before the search when it translates or guesses, else once
the evidence is out).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Protocol

from lecturetui.core.answer.attribution import attribute
from lecturetui.core.answer.budget import PromptBudget, plan_prompt
from lecturetui.core.answer.check import check, says_not_answered
from lecturetui.core.answer.doubt import PENDING, check_wanted
from lecturetui.core.answer.events import (
    Answered,
    Doubted,
    Event,
    EvidenceReady,
    Failed,
    PromptReady,
    Started,
    Token,
    quote_block,
)
from lecturetui.core.answer.found import (
    Retrieved,
    Searched,
    retrieve,
    score_rest,
    search_as_asked,
    warm_sentences,
)
from lecturetui.core.answer.generation import Generator
from lecturetui.core.answer.grounding import ungrounded
from lecturetui.core.answer.guess import Guesser, guess_planned, guesser_for
from lecturetui.core.answer.prompt_speed import SPEED_FILE, observe
from lecturetui.core.answer.repetition import RepeatGuard
from lecturetui.core.answer.result import Answer
from lecturetui.core.answer.translate import Translator, target_language, translating
from lecturetui.core.answer.unsure import (
    can_check,
    rescued,
    settled,
    unsure_answer,
)
from lecturetui.core.citing import cited_numbers
from lecturetui.core.conversation import Turn
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.library import Library
from lecturetui.core.question_options import DEFAULT_GUESS, DEFAULT_MODE, DEFAULT_TTFT_S
from lecturetui.core.retrieval.scope import Scope


# -- what a question needs -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class QuestionSettings:
    k: int = 10
    mode: str = DEFAULT_MODE
    scope: Scope | None = None
    guess: str = DEFAULT_GUESS  # auto, on, off (core/answer/guess.py)
    ttft_s: float | None = DEFAULT_TTFT_S
    answer_tokens: int = 512
    keep: bool = True  # keep the answer in the history (eval does not)
    device: str | None = None  # where the answer model runs (to plan the guess before it loads)


class ModelSource(Protocol):
    """How the pipeline gets the answer model, which may still be loading."""

    def for_search(self, needed: Callable[[], bool]) -> Generator | None:
        """A model to translate and guess with before the search: whatever is loaded now, or
        one waited for when `needed()` says the question wants it (a translation or a guess)."""
        ...

    def for_answer(self, stop: threading.Event) -> Generator | None:
        """The model to answer with, once the evidence is out: waits for it to load; None when
        `stop` was set meanwhile; raises LectureTuiError when it cannot load."""
        ...


@dataclass(frozen=True, slots=True)
class Loaded:
    """A ModelSource for a model already loaded (eval, tests, scripts)."""

    generator: Generator

    def for_search(self, needed: Callable[[], bool]) -> Generator | None:
        return self.generator

    def for_answer(self, stop: threading.Event) -> Generator | None:
        return self.generator


def run_question(
    library: Library,
    turn: Turn,
    models: ModelSource,
    settings: QuestionSettings | None = None,
    stop: threading.Event | None = None,
) -> Iterator[Event]:
    """The events of one question (see the module's docstring); ends with Answered or Failed,
    or after EvidenceReady when `stop` is set before the answer model is there."""
    s = settings or QuestionSettings()
    stop = stop or threading.Event()
    try:
        yield Started(turn)
        # a question in another language than the lectures' is translated first only when E5
        # searches alone: EmbeddingGemma matches it across languages as asked, and the
        # translation would cost seconds before the quote (bench/RESULTS.md)
        translator, guesser = _search_helpers(library, turn, models, s)
        found = retrieve(library, turn, s.k, s.mode, s.scope, translator, guesser)
        found, later = _doubt_now(found, models)
        yield EvidenceReady(replace(found, doubt=PENDING) if later and found.covered else found)
        if found.near is not None:  # refused just under the threshold: the model reads first
            found = rescued(found, _checker(models, stop))
            if found.covered:
                yield Doubted(found, shown=False)
                yield _kept(library, unsure_answer(found), s.keep)
                return
        if not found.covered or (found.doubt.unsure and not later):
            # nothing to explain (say so, show the closest moments), or two moments too close
            # to tell apart (show both, explain neither)
            yield _kept(library, abstention(found) if not found.covered else unsure_answer(found),
                        s.keep)  # fmt: skip
            return
        generator = models.for_answer(stop)
        if generator is None:
            return
        if later:  # the quote is on screen: the model checks it before it explains
            found = settled(found, generator)
            if found.doubt.unsure:
                yield Doubted(found)
                yield _kept(library, unsure_answer(found), s.keep)
                return
        for event in answer_events(library, generator, found, s.answer_tokens, s.ttft_s, stop):
            if isinstance(event, Answered) and s.keep:
                entry = library.history.add(event.record)
                event = Answered(event.answer, event.record, entry)
            yield event
    except LectureTuiError as exc:
        yield Failed(exc)


def _doubt_now(found: Retrieved, models: ModelSource) -> tuple[Retrieved, bool]:
    """The doubt over the quoted moment, settled before the quote is shown where that is
    cheap (the answer model on a GPU, or no check to make: the margin alone); else left to
    the model once the quote is on screen (True: a CPU, or a model still loading)."""
    if not found.doubt.unsure and found.near is None:
        return found, False
    model = models.for_search(lambda: False)
    if model is not None and model.gpu and can_check(model):
        return rescued(settled(found, model), model), False
    if check_wanted():
        return found, True
    return rescued(settled(found, None), None), False


def _checker(models: ModelSource, stop: threading.Event) -> Generator | None:
    """The answer model, to read the moments of a question about to be refused: none when it
    cannot be had (missing, stopped), and the question is refused as it would be without it."""
    try:
        return models.for_answer(stop)
    except LectureTuiError:
        return None


def _kept(library: Library, done: Answer, keep: bool) -> Answered:
    """An answer no model wrote, kept in the history when wanted."""
    entry = library.history.add(done.record()) if keep else None
    return Answered(done, done.record(), entry)


def _search_helpers(
    library: Library, turn: Turn, models: ModelSource, s: QuestionSettings
) -> tuple[Translator | None, Guesser | None]:
    """What the search needs of the answer model: a translator for a question in another
    language than the lectures' (only where E5 searches alone: EmbeddingGemma matches it across
    languages as asked, and the translation would cost seconds before the quote), and the
    lecturer's guess when it is planned."""
    target = target_language(library, turn.search_text) if library.rerank_stage() is None else None
    model = models.for_search(
        lambda: target is not None or guess_planned(s.guess, library.placement)
    )
    translator = translating(model, target) if model is not None and target else None
    return translator, guesser_for(library, model, s.guess, s.scope)


def search_question(
    library: Library, turn: Turn, models: ModelSource, settings: QuestionSettings | None = None
) -> Searched:
    """The pipeline's retrieval half alone: the question searched exactly as `run_question`
    searches it (translated, with the lecturer's guess, as planned), without the evidence
    sentences (`eval --retrieval-only`)."""
    s = settings or QuestionSettings()
    translator, guesser = _search_helpers(library, turn, models, s)
    return search_as_asked(library, turn.search_text, s.k, s.mode, s.scope, translator, guesser)


def answer_events(
    library: Library,
    generator: Generator,
    found: Retrieved,
    answer_tokens: int = 512,
    ttft_s: float | None = DEFAULT_TTFT_S,
    stop: threading.Event | None = None,
) -> Iterator[PromptReady | Token | Answered]:
    """Write the answer from what `retrieve` found, its prompt sized so that the first token
    comes within `ttft_s` of the question (None or 0: only the context window limits it).
    Ctrl+C / `stop` ends it cleanly between tokens, keeping what was written. Ends with
    Answered (not yet in the history: entry_id None)."""
    t0 = time.perf_counter() - found.elapsed_s  # the clock started with the question
    turn = found.turn
    # the search and the evidence took part of the time; the model gets the rest, and at
    # least half the budget (a first search over a cold cache should not starve the answer)
    left = None if not ttft_s or ttft_s <= 0 else max(ttft_s - found.elapsed_s, ttft_s / 2)
    budget = PromptBudget.for_time(
        generator.n_ctx,
        answer_tokens + 8,  # slack for the chat template's generation prompt
        generator.cached_tokens,
        generator.prompt_tokens_per_s,
        left,
    )
    scored = score_rest(library, found)
    plan = plan_prompt(
        turn.question,
        found.passages,
        scored,
        budget,
        generator.count_prompt_tokens,
        generator.count_tokens,
        found.language,
        turn.previous,
        found.quote,
    )
    passages = plan.passages
    yield PromptReady(found.hits, passages)
    stop = stop or threading.Event()
    pieces: list[str] = []
    first: float | None = None
    stopped = False
    t2 = time.perf_counter()
    guard = RepeatGuard(MAX_SENTENCES)
    opening = quote_block(found.quote)  # on screen since EvidenceReady
    shown = 0
    try:
        for piece in generator.stream(plan.messages, answer_tokens, stop):
            if first is None:
                first = time.perf_counter()
            pieces.append(piece)
            if guard.feed(piece):
                # a sentence said twice (the model is looping) or the last sentence allowed:
                # what is kept is shown, and leaving the stream ends it
                rest = guard.answer()[shown:]
                if rest:
                    yield Token(rest)
                break
            shown += len(piece)
            yield Token(piece)
    except KeyboardInterrupt:
        stopped = True
    stopped = stopped or stop.is_set()
    t3 = time.perf_counter()
    if first is not None:  # the prompt's reading time keeps the measured speed honest
        observe(generator, library.home.root / SPEED_FILE,
                plan.prompt_tokens - generator.cached_tokens, first - t2)  # fmt: skip
    explanation = guard.answer().strip()
    gen_s = t3 - (first or t3)
    source = "model" if cited_numbers(explanation, len(passages)) else "none"
    if source == "none" and explanation and not stopped:
        explanation, attributed = attribute(library, explanation, passages)
        source = "similarity" if attributed else "none"
    checked = check(explanation, {p.number: p.text for p in passages})
    explanation = checked.text
    # the model read the excerpts and found no answer, or wrote what they do not say over a
    # weak best window: the lectures do not cover the question
    abstained = not stopped and (
        says_not_answered(explanation)
        or ungrounded(library, found.relevance, explanation, passages)
    )
    text = _not_covered(found.language) if abstained else opening + explanation
    cited = cited_numbers(text, len(passages))
    done = Answer(
        question=turn.question,
        text=text,
        passages=passages,
        hits=found.hits,
        cited=cited,
        stopped=stopped,
        citation_source=source,
        timings={
            "retrieval_ms": found.retrieval_s * 1000,
            "translate_guess_ms": found.model_s * 1000,
            "evidence_ms": found.evidence_s * 1000,
            "check_ms": found.check_s * 1000,
            "prompt_tokens": float(plan.prompt_tokens),
            "prompt_new_tokens": float(plan.prompt_tokens - generator.cached_tokens),
            "prompt_limit": float(plan.limit),
            "prompt_tokens_per_s": generator.prompt_tokens_per_s or 0.0,
            "prompt_ms": (t2 - t0) * 1000,
            # from the question (retrieval and evidence included) to the answer's first token
            "time_to_first_token_ms": ((first or t3) - t0) * 1000,
            "tokens_per_s": (len(pieces) - 1) / gen_s if len(pieces) > 1 and gen_s > 0 else 0.0,
            "total_ms": (t3 - t0) * 1000,
        },
        evidence=found.evidence,
        turn=turn,
        trimmed=plan.trimmed,
        translation=found.translation,
        guess=found.guess,
        quote=None if abstained else found.quote,
        explanation=explanation,
        abstained=abstained,
        unsupported=checked.unsupported,
    )
    yield Answered(done, done.record(), None)


#: the model's explanation, in sentences, at most
MAX_SENTENCES = 3

_NOT_COVERED = {
    "Portuguese": "As aulas não parecem tratar desta pergunta: os momentos mais próximos estão"
    " abaixo.",
    "Spanish": "Las clases no parecen tratar esta pregunta: los momentos más cercanos están abajo.",
}
_NOT_COVERED_EN = "The lectures do not seem to cover this question: the closest moments are below."


def _not_covered(language: str | None) -> str:
    """The refusal in the question's language (by name, `Retrieved.language`)."""
    return _NOT_COVERED.get(language or "", _NOT_COVERED_EN)


def warm_up(library: Library, stop: threading.Event, idle: threading.Event | None = None) -> int:
    """Embed the sentences of every segment ahead of the questions (the app runs it while the
    student reads), pausing while `idle` is clear; a question then scores its sentences from
    the cache. Returns how many were embedded."""
    return warm_sentences(library, stop, idle)


def abstention(found: Retrieved) -> Answer:
    """The answer when the lectures do not cover the question: one sentence, no model."""
    turn = found.turn
    text = _not_covered(found.language)
    return Answer(
        question=turn.question,
        text=text,
        passages=[],
        hits=found.hits,
        cited=[],
        timings=found.timings_without_model(),
        evidence=found.evidence,
        turn=turn,
        translation=found.translation,
        guess=found.guess,
        abstained=True,
    )


def ask(
    library: Library,
    generator: Generator,
    question: str,
    settings: QuestionSettings | None = None,
    turn: Turn | None = None,
    stop: threading.Event | None = None,
    on_token: Callable[[str], None] | None = None,
    on_evidence: Callable[[Retrieved], None] | None = None,
) -> Answer:
    """A question through `run_question` with a loaded model, its events as callbacks; the
    answer is not kept in the history (scripts, `eval`, tests). Raises what stopped it."""
    turn = turn or Turn(question.strip(), question.strip())
    s = replace(settings or QuestionSettings(), keep=False)
    for event in run_question(library, turn, Loaded(generator), s, stop):
        if isinstance(event, EvidenceReady) and on_evidence:
            on_evidence(event.found)
        elif isinstance(event, Token) and on_token:
            on_token(event.text)
        elif isinstance(event, Answered):
            return event.answer
        elif isinstance(event, Failed):
            raise event.error
    raise LectureTuiError(_("The question stopped before its answer."))  # pragma: no cover
