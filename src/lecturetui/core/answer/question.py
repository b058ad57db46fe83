"""One question, start to end, as a stream of typed events: the pipeline every face drives.

    Started -> EvidenceReady -> PromptReady -> Token ... -> Answered     (or Failed, at any point)
    Started -> EvidenceReady [-> Doubted] -> Answered    (abstained, or two moments in doubt)

What the answer is (an explanation, a refusal, two moments in doubt, or the moments read first)
is core/answer/verdict.py's verdict; `answer_question` acts on it. It tells the question's language
once (core/retrieval/asked.py), translates a question in another language
(core/answer/translate.py), guesses the lecturer's words (core/answer/guess.py), retrieves the
hits and chooses the lecturer's sentences the answer opens with (core/answer/found.py,
quote.py), and then, as the verdict says: refuses or shows two moments without any model
(core/answer/unexplained.py), has the answer model read two moments first (core/answer/doubt.py),
or streams the model's short explanation (core/answer/explain.py). The faces send a question
through the front door (core/requests/door.py), which tells first whether it asks for a
lecture's summary or what a course covers instead, and answers it here (core/requests/kinds.py); `ask` prints the events, `ask --json` prints the last
one, the app's worker posts each as a Textual message, and `eval` reads the answer from
`Answered`. Cancelling goes through `stop` (Esc, a new question) or Ctrl+C
(KeyboardInterrupt while the answer streams): the answer keeps what was written.

The answer model may still be loading when the question starts: a `ModelSource` gives it to the
pipeline when the pipeline needs it (before the search when it translates or guesses, else once
the evidence is out).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import replace

from lecturetui.core.answer.doubt import check_wanted, checker
from lecturetui.core.answer.events import Answered, Doubted, Event, EvidenceReady
from lecturetui.core.answer.explain import answer_events
from lecturetui.core.answer.found import Retrieved, Searched, retrieve, search_as_asked
from lecturetui.core.answer.guess import Guesser, guess_planned, guesser_for
from lecturetui.core.answer.result import Answer
from lecturetui.core.answer.translate import Translator, target_language
from lecturetui.core.answer.unexplained import abstention, unsure_answer
from lecturetui.core.answer.verdict import Explain, ReadFirst, Refuse, Unsure, read
from lecturetui.core.conversation import Turn
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.library import Library
from lecturetui.core.llm.model import Generator
from lecturetui.core.requests.words import ModelSource, QuestionSettings
from lecturetui.core.retrieval.asked import Asked


def answer_question(
    library: Library,
    turn: Turn,
    asked: Asked,
    models: ModelSource,
    s: QuestionSettings,
    stop: threading.Event,
) -> Iterator[Event]:
    """The question's events after Started, its facts told (`asked`: Library.asked); raises
    LectureTuiError where it cannot go on (the front door says it as Failed)."""
    translator, guesser = _search_helpers(library, asked, models, s)
    found = retrieve(library, turn, s.k, s.mode, None, translator, guesser, asked)
    found = _read_now(found, models)
    yield EvidenceReady(found)
    generator: Generator | None = None
    if isinstance(found.verdict, ReadFirst):  # the quote is on screen, or "checking…"
        near = found.verdict.near
        # a question about to be refused is refused when the model cannot be had
        generator = _checker(models, stop) if near else models.for_answer(stop)
        if generator is None and not near:
            return
        found = _read(found, generator)
        if isinstance(found.verdict, Unsure):
            yield Doubted(found, shown=not near)
    match found.verdict:
        case Refuse():
            yield kept(library, abstention(found), s.keep)
        case Unsure():
            yield kept(library, unsure_answer(found), s.keep)
        case Explain():
            generator = generator or models.for_answer(stop)
            if generator is None:
                return
            yield from _explained(library, generator, found, s, stop)


def _explained(
    library: Library,
    generator: Generator,
    found: Retrieved,
    s: QuestionSettings,
    stop: threading.Event,
) -> Iterator[Event]:
    """The model's explanation, kept in the history when wanted."""
    for event in answer_events(library, generator, found, s.answer_tokens, s.ttft_s, stop):
        if isinstance(event, Answered) and s.keep:
            entry = library.history.add(event.record, event.record.answer)
            event = Answered(event.answer, event.record, entry)
        yield event


def _read(found: Retrieved, model: Generator | None) -> Retrieved:
    """`found` once the answer model has read its two moments (verdict.read; by the margin
    alone, or refused, when the model cannot read them); `check_s` is the time it took."""
    assert isinstance(found.verdict, ReadFirst)
    t0 = time.perf_counter()
    verdict = read(found.verdict, found.asked.text, checker(model))
    return replace(found, verdict=verdict, check_s=time.perf_counter() - t0)


def _read_now(found: Retrieved, models: ModelSource) -> Retrieved:
    """The moments read before anything is shown where that is cheap (the answer model on a
    GPU) or where there is nothing to read them with (the check turned off: the margin alone);
    else left to the model once they are on screen (a CPU, or a model still loading)."""
    if not isinstance(found.verdict, ReadFirst):
        return found
    model = models.for_search(lambda: False)
    if model is not None and model.gpu and checker(model) is not None:
        return _read(found, model)
    if check_wanted():
        return found
    return _read(found, None)


def _checker(models: ModelSource, stop: threading.Event) -> Generator | None:
    """The answer model, to read the moments of a question about to be refused: none when it
    cannot be had (missing, stopped), and the question is refused as it would be without it."""
    try:
        return models.for_answer(stop)
    except LectureTuiError:
        return None


def kept(library: Library, done: Answer, keep: bool) -> Answered:
    """An answer no model wrote, kept in the history when wanted."""
    record = done.record()
    entry = library.history.add(record, record.answer) if keep else None
    return Answered(done, record, entry)


def _search_helpers(
    library: Library, asked: Asked, models: ModelSource, s: QuestionSettings
) -> tuple[Translator | None, Guesser | None]:
    """What the search needs of the answer model: a translator for a question in another
    language than the lectures' (only where E5 searches alone: EmbeddingGemma matches it across
    languages as asked, and the translation would cost seconds before the quote), and the
    lecturer's guess when it is planned."""
    target = target_language(library, asked) if library.rerank_stage() is None else None
    model = models.for_search(
        lambda: target is not None or guess_planned(s.guess, library.placement)
    )
    translator = Translator(model, target) if model is not None and target else None
    return translator, guesser_for(library, model, s.guess, s.scope)


def search_question(
    library: Library, turn: Turn, models: ModelSource, settings: QuestionSettings | None = None
) -> Searched:
    """The pipeline's retrieval half alone: the question searched exactly as `answer_question`
    searches it (translated, with the lecturer's guess, as planned), without the evidence
    sentences (`eval --retrieval-only`)."""
    s = settings or QuestionSettings()
    asked = library.asked(turn.question, turn.search_text, s.scope)
    translator, guesser = _search_helpers(library, asked, models, s)
    return search_as_asked(library, asked, s.k, s.mode, translator, guesser)
