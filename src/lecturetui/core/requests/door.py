"""The one front door: every face sends a typed request (a question, `Question`; a lecture's
summary in a language, `LectureSummary`; what a course covers, `CourseOverview`) to
`run_request`, which answers it as a stream of events and says why it is answered that way in
one place (`route`), as the verdict does for a question's answer (core/answer/verdict.py):

    Question ── asks what a whole course covers ─────────── CourseOverview    why: COURSE
             ├─ asks for a lecture's summary, names one ──── LectureSummary    why: how it names
             │    it (core/summary/named.py: title, number, search, this, last, scope, open...)
             └─ otherwise ───────────────────────────────── the question's path  why: MOMENT
    LectureSummary, CourseOverview ─────────────────────── answered as sent      why: ASKED

Each kind of request is one entry of core/requests/kinds.py: how a question asks for it (tried
in the order listed), how it is answered, the event that ends it, its record. Started comes
first; then a question's events (core/answer/events.py), Answered last; or a lecture's summary
as it grows, SummaryDone last; or OverviewDone (core/summary/events.py); each kept in the
history when the settings say so; or Failed. `ask` and `summary` (cli/ask_cmds.py,
cli/summary_cmd.py), the app's questions and summarise key (tui/asking.py), eval and the
benchmarks send their requests here; `write_summaries` writes the summaries not written yet,
each a LectureSummary sent here (`summary --all`, `ingest`, the app while idle).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

from lecturetui.core.answer.found import Searched, warm_sentences
from lecturetui.core.answer.question import search_question
from lecturetui.core.conversation import Turn
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.lectures import Lecture
from lecturetui.core.library import Library
from lecturetui.core.llm.model import Generator
from lecturetui.core.requests.kinds import (
    KINDS,
    Request,
    RequestEvent,
    Result,
    ended,
    kind_of,
)
from lecturetui.core.requests.words import (
    Failed,
    Loaded,
    Loading,
    ModelSource,
    Question,
    QuestionSettings,
    Started,
)
from lecturetui.core.retrieval.asked import Asked
from lecturetui.core.summary.asked import LectureSummary
from lecturetui.core.summary.events import GistWritten, SummaryGrew
from lecturetui.core.summary.pending import SummaryProgress

#: why a request is answered as it is (besides how a question names a lecture whose summary it
#: asks for, and COURSE): as sent; a question about a moment
ASKED, MOMENT = "asked", "moment"


@dataclass(frozen=True, slots=True)
class Route:
    """What a request is answered as, and why: ASKED, MOMENT, or how a question asked for
    another kind (core/summary/asked.py: COURSE, or how it named the lecture)."""

    answered: Request
    why: str
    asked: Asked | None = None  # a question's facts (Library.asked), told once

    @property
    def answered_as(self) -> str:
        """What eval's report says it was answered as: a moment, a summary, a course."""
        return kind_of(self.answered).answered_as


def route(library: Library, request: Request, settings: QuestionSettings) -> Route:
    """What the request is answered as, and why: a question is asked of each kind in turn
    (kinds.py: what a course covers, a lecture's summary it names), else it is a moment; those
    first two are not searched. Any other request is answered as sent."""
    if not isinstance(request, Question):
        return Route(request, ASKED)
    turn = request.turn
    asked = library.asked(turn.question, turn.search_text, settings.scope)
    for kind in KINDS:
        if kind.asked is not None and (found := kind.asked(library, request, asked, settings)):
            return Route(found[0], found[1], asked)
    return Route(request, MOMENT, asked)


def run_request(
    library: Library,
    request: Request,
    models: ModelSource,
    settings: QuestionSettings | None = None,
    stop: threading.Event | None = None,
    way: Route | None = None,
) -> Iterator[RequestEvent]:
    """The request's events (see the module's docstring), as `route` says it is answered (`way`:
    the route, where the caller told it already); setting `stop` ends it (between tokens, or
    between a summary's parts), keeping what was written."""
    s = settings or QuestionSettings()
    stop = stop or threading.Event()
    try:
        turn = kind_of(request).turn(library, request)
        yield Started(turn)
        way = way or route(library, request, s)
        kind = kind_of(way.answered)
        yield from kind.run(library, turn, way.answered, way.asked, models, s, stop)
    except LectureTuiError as exc:
        yield Failed(exc)


def answer_request(
    library: Library,
    request: Request,
    generator: Generator,
    settings: QuestionSettings | None = None,
    stop: threading.Event | None = None,
    on_event: Callable[[RequestEvent], None] | None = None,
) -> tuple[Route, Result]:
    """A request answered through the front door with a loaded model, not kept in the history
    (`eval`, scripts, benchmarks): how `route` answered it, and what it was answered with
    (`on_event` sees each event on the way). Raises what stopped it."""
    s = replace(settings or QuestionSettings(), keep=False)
    way = route(library, request, s)
    for event in run_request(library, request, Loaded(generator), s, stop, way):
        if on_event is not None:
            on_event(event)
        if (end := ended(event)) is not None:
            return way, end.result
        if isinstance(event, Failed):
            raise event.error
    raise LectureTuiError(_("The question stopped before its answer."))  # pragma: no cover


def search_request(
    library: Library, turn: Turn, generator: Generator | None, settings: QuestionSettings
) -> Searched:
    """A question's search alone, as `run_request` searches it (`eval --retrieval-only`): with
    the loaded model translated and guessed as planned, without one as asked."""
    return search_question(library, turn, Loaded(generator), settings)


def warm_up(library: Library, stop: threading.Event, idle: threading.Event | None = None) -> int:
    """Embed the sentences of every segment ahead of the questions (the app runs it while the
    student reads), pausing while `idle` is clear; a question then scores its sentences from
    the cache. Returns how many were embedded."""
    return warm_sentences(library, stop, idle)


# -- the summaries not written yet, one after another ----------------------------------------
def _given(give: Callable[[], Generator | None], name: str | None) -> Loading:
    """The answer model as a function gives it: asked for once, when a part is to be written
    (None: there is none to write with)."""
    made: list[Generator | None] = []

    def wait(stop: threading.Event) -> Generator | None:
        if not made:
            made.append(give())
        return made[0]

    return Loading(lambda: made[0] if made else None, wait, lambda: name)


def write_summaries(
    library: Library,
    lectures: Sequence[Lecture],
    model: Callable[[], Generator | None],
    language: str | None = None,
    stop: threading.Event | None = None,
    name: str | None = None,
) -> Iterator[SummaryProgress]:
    """Write the summaries of `lectures` one after another (core/summary/pending.py finds
    them), each a LectureSummary in `language` (None: each lecture's own) answered by
    run_request and kept part by part as it is written, saying where it stands at each
    lecture's start, after each part, and when a lecture is whole. Setting `stop` ends it
    between tokens (the part being written is dropped, those written are kept); without a model
    (`model` gives None) it ends at the first lecture. `name`: the model's name before it loads
    (a summary it wrote whole is read back without loading it)."""
    stop = stop or threading.Event()
    quiet = QuestionSettings(keep=False)  # kept as summaries, not as answers in the history
    for number, lecture in enumerate(lectures, 1):
        whole = False
        wanted = LectureSummary(lecture.id, language)
        for event in run_request(library, wanted, _given(model, name), quiet, stop):
            if isinstance(event, Failed):
                raise event.error
            if isinstance(event, SummaryGrew):
                step = event.step
                gist = step.gist if isinstance(step, GistWritten) else None
                whole = gist is not None or not event.summary.parts
                yield SummaryProgress(
                    lecture, number, len(lectures), event.labelled, len(event.summary.parts), gist
                )
        if stop.is_set() or not whole:
            return  # stopped, or no model to write with
