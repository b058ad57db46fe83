"""The model's explanation of a covered question (core/answer/verdict.py's Explain): the prompt
sized to the time budget (core/answer/budget.py), the streamed tokens (at most MAX_SENTENCES
sentences, a loop cut short), the citations checked against the excerpts (core/answer/check.py)
and the verdict once it is written (refused after all when the model said the excerpts do not
answer, or wrote what they do not say)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

from lecturetui.core.answer.attribution import attribute
from lecturetui.core.answer.budget import PromptBudget, PromptPlan, plan_prompt
from lecturetui.core.answer.check import check, says_not_answered
from lecturetui.core.answer.events import Answered, PromptReady, Token, quote_block
from lecturetui.core.answer.found import Retrieved, score_rest
from lecturetui.core.answer.grounding import ungrounded
from lecturetui.core.answer.prompt_speed import observe
from lecturetui.core.answer.repetition import RepeatGuard
from lecturetui.core.answer.result import Answer
from lecturetui.core.answer.unexplained import not_covered
from lecturetui.core.answer.verdict import Explain, Refuse, explained
from lecturetui.core.citing import cited_numbers
from lecturetui.core.library import Library
from lecturetui.core.llm.model import Generator
from lecturetui.core.question_options import DEFAULT_TTFT_S

#: the model's explanation, in sentences, at most
MAX_SENTENCES = 3


@dataclass(frozen=True, slots=True)
class Streamed:
    """What the model wrote, and when."""

    text: str  # the explanation as kept (a loop or a fourth sentence cut)
    pieces: int
    started: float  # perf_counter when the prompt went in
    first: float | None  # ... when the first token came
    ended: float
    stopped: bool  # Ctrl+C or `stop`: the answer keeps what was written


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
    plan = _plan(library, generator, found, answer_tokens, ttft_s)
    yield PromptReady(found.hits, plan.passages)
    streamed: list[Streamed] = []
    yield from _stream(generator, plan, answer_tokens, stop or threading.Event(), streamed)
    written = streamed[0]
    if written.first is not None:  # the prompt's reading time keeps the measured speed honest
        observe(
            generator,
            library.home.speed_file,
            plan.prompt_tokens - generator.cached_tokens,
            written.first - written.started,
        )
    done = _answer(library, found, plan, written, _timings(found, generator, plan, written, t0))
    yield Answered(done, done.record(), None)


def _plan(
    library: Library,
    generator: Generator,
    found: Retrieved,
    answer_tokens: int,
    ttft_s: float | None,
) -> PromptPlan:
    """The prompt: the search and the evidence took part of the time; the model gets the rest,
    and at least half the budget (a first search over a cold cache should not starve it)."""
    left = None if not ttft_s or ttft_s <= 0 else max(ttft_s - found.elapsed_s, ttft_s / 2)
    budget = PromptBudget.for_time(
        generator.n_ctx,
        answer_tokens + 8,  # slack for the chat template's generation prompt
        generator.cached_tokens,
        generator.prompt_tokens_per_s,
        left,
    )
    return plan_prompt(
        found.turn.question,
        found.passages,
        score_rest(library, found),
        budget,
        generator.count_prompt_tokens,
        generator.count_tokens,
        found.language,
        found.turn.previous,
        found.quote,
    )


def _stream(
    generator: Generator,
    plan: PromptPlan,
    answer_tokens: int,
    stop: threading.Event,
    out: list[Streamed],
) -> Iterator[Token]:
    """The model's tokens as it writes them; what it wrote is left in `out`."""
    pieces = 0
    first: float | None = None
    stopped = False
    started = time.perf_counter()
    guard = RepeatGuard(MAX_SENTENCES)
    shown = 0
    try:
        for piece in generator.stream(plan.messages, answer_tokens, stop):
            if first is None:
                first = time.perf_counter()
            pieces += 1
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
    ended = time.perf_counter()
    out.append(
        Streamed(guard.answer().strip(), pieces, started, first, ended, stopped or stop.is_set())
    )


def _answer(
    library: Library,
    found: Retrieved,
    plan: PromptPlan,
    written: Streamed,
    timings: dict[str, float],
) -> Answer:
    """The answer from what the model wrote: its citations given and checked, and the verdict
    once it is written (verdict.explained)."""
    passages = plan.passages
    explanation = written.text
    source = "model" if cited_numbers(explanation, len(passages)) else "none"
    if source == "none" and explanation and not written.stopped:
        explanation, attributed = attribute(library, explanation, passages)
        source = "similarity" if attributed else "none"
    checked = check(explanation, {p.number: p.text for p in passages})
    explanation = checked.text
    assert isinstance(found.verdict, Explain)
    verdict = explained(
        found.verdict,
        written.stopped,
        says_not_answered(explanation),
        lambda: ungrounded(library, found.relevance, explanation, passages),
    )
    refused = isinstance(verdict, Refuse)
    text = not_covered(found.language) if refused else quote_block(found.quote) + explanation
    turn = found.turn
    return Answer(
        question=turn.question,
        text=text,
        passages=passages,
        hits=found.hits,
        cited=cited_numbers(text, len(passages)),
        stopped=written.stopped,
        citation_source=source,
        timings=timings,
        evidence=found.evidence,
        turn=turn,
        trimmed=plan.trimmed,
        translation=found.translation,
        guess=found.guess,
        quote=None if refused else found.quote,
        explanation=explanation,
        abstained=refused,
        unsupported=checked.unsupported,
    )


def _timings(
    found: Retrieved, generator: Generator, plan: PromptPlan, written: Streamed, t0: float
) -> dict[str, float]:
    first, ended = written.first, written.ended
    gen_s = ended - (first or ended)
    return {
        "retrieval_ms": found.retrieval_s * 1000,
        "translate_guess_ms": found.model_s * 1000,
        "evidence_ms": found.evidence_s * 1000,
        "check_ms": found.check_s * 1000,
        "prompt_tokens": float(plan.prompt_tokens),
        "prompt_new_tokens": float(plan.prompt_tokens - generator.cached_tokens),
        "prompt_limit": float(plan.limit),
        "prompt_tokens_per_s": generator.prompt_tokens_per_s or 0.0,
        "prompt_ms": (written.started - t0) * 1000,
        # from the question (retrieval and evidence included) to the answer's first token
        "time_to_first_token_ms": ((first or ended) - t0) * 1000,
        "tokens_per_s": (written.pieces - 1) / gen_s if written.pieces > 1 and gen_s > 0 else 0.0,
        "total_ms": (ended - t0) * 1000,
    }
