"""The one front door: every face sends a typed request (a question, `Question`; a lecture's
summary in a language, `LectureSummary`; what a course covers, `CourseOverview`) to
`run_request`, which answers it as a stream of events and says why it is answered that way in
one place (`route`), as the verdict does for a question's answer (core/answer/verdict.py):

    Question ── asks what a whole course covers ─────────── CourseOverview    why: COURSE
             ├─ asks for a lecture's summary, names one ──── LectureSummary    why: how it names
             │    it (core/summary/named.py: title, number, search, this, last, scope, open...)
             └─ otherwise ───────────────────────────────── the question's path  why: MOMENT
    LectureSummary, CourseOverview ─────────────────────── answered as sent      why: ASKED

Started comes first; then a question's events (core/answer/events.py), Answered last; or a
lecture's summary as it grows, SummaryDone last; or OverviewDone (core/summary/events.py); each
kept in the history when the settings say so; or Failed. `ask` and `summary`
(cli/ask_cmds.py, cli/summary_cmd.py) and the app's questions and summarise key
(tui/asking.py) send their requests here; `write_summaries` writes the summaries
not written yet, each a LectureSummary sent here (`summary --all`, `ingest`, the app while idle).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TypeAlias

from lecturetui.core.answer.events import Answered, Event, Failed, Started
from lecturetui.core.answer.found import Searched
from lecturetui.core.answer.question import (
    Loaded,
    answer_question,
    search_question,
)
from lecturetui.core.answer.question import (
    ModelSource as ModelSource,  # how a request gets the answer model
)
from lecturetui.core.answer.question import (
    QuestionSettings as QuestionSettings,  # how a request is answered: the front door's too
)
from lecturetui.core.answer.result import Answer
from lecturetui.core.conversation import Turn
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.lectures import Lecture
from lecturetui.core.library import Library
from lecturetui.core.llm.model import Generator
from lecturetui.core.records import Kept, OverviewRecord, SummaryRecord
from lecturetui.core.retrieval.asked import Asked
from lecturetui.core.summary.course import course_text
from lecturetui.core.summary.events import (
    GistWritten,
    OverviewDone,
    SummaryDone,
    SummaryEvent,
    SummaryGrew,
)
from lecturetui.core.summary.fold import unfold
from lecturetui.core.summary.named import (
    NamedLecture,
    asks_course,
    asks_summary,
    course_order,
    named_lecture,
)
from lecturetui.core.summary.pending import SummaryProgress
from lecturetui.core.summary.render import kept_text
from lecturetui.core.summary.writing import summary_events, summary_language


# -- the requests ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Question:
    """A question as the student asked it (a follow-up carries its predecessor: the turn)."""

    turn: Turn
    lecture: str | None = None  # the lecture open in the app ("resuma esta aula")


@dataclass(frozen=True, slots=True)
class LectureSummary:
    """A lecture's summary, part by part, then its gist."""

    lecture_id: str
    language: str | None = None  # by name ("Portuguese"); None: the lecture's own
    words: str = ""  # how it was asked, as the history keeps it ("": the lecture's title)


@dataclass(frozen=True, slots=True)
class CourseOverview:
    """What a course covers: one line per lecture, from its summary where it was written."""

    course: str | None = None  # None: the lectures of the settings' scope, else every one
    language: str | None = None  # by name; None: its first lecture's
    words: str = ""  # how it was asked, as the history keeps it


Request = Question | LectureSummary | CourseOverview
#: what answering a request yields
RequestEvent = Event | SummaryEvent
#: what a request is answered with: a question's answer, a lecture's summary, a course's overview
Result: TypeAlias = Answer | SummaryRecord | OverviewRecord

#: why a request is answered as it is (besides how a question names a lecture whose summary it
#: asks for): as sent; a question that asks what a course covers; a question about a moment
ASKED, COURSE, MOMENT = "asked", "course", "moment"


@dataclass(frozen=True, slots=True)
class Route:
    """What a request is answered as, and why: ASKED, COURSE, MOMENT, or how the question named
    the lecture whose summary it asks for (NamedLecture.by)."""

    answered: Request
    why: str
    asked: Asked | None = None  # a question's facts (Library.asked), told once


def route(library: Library, request: Request, settings: QuestionSettings) -> Route:
    """What the request is answered as, and why: a question that asks what a course covers gets
    a line per lecture, one that asks for a lecture's summary and names the lecture gets that
    summary (in the question's language), any other one a moment; neither of the first two is
    searched. A LectureSummary or a CourseOverview is answered as sent."""
    if not isinstance(request, Question):
        return Route(request, ASKED)
    turn = request.turn
    asked = library.asked(turn.question, turn.search_text, settings.scope)
    if asks_course(asked.question):
        return Route(CourseOverview(language=asked.language_name), COURSE, asked)
    named = _named(library, request, asked, settings)
    if named is not None:
        language = request_language(library, asked, named.lecture.title)
        return Route(LectureSummary(named.lecture.id, language), named.by, asked)
    return Route(request, MOMENT, asked)


def request_language(library: Library, asked: Asked, title: str) -> str:
    """The language a lecture's summary is asked in: told from the request's words without the
    lecture's title (to py3langid "resuma a aula de linear-regression" is Catalan, "resuma a
    aula de gradient-descent" Spanish), the library's and the interface's languages winning
    what is then a short request's near tie (core/language.py)."""
    named = {w.casefold() for w in re.findall(r"[^\W_]+", title)}
    rest = " ".join(
        w for w in asked.question.split() if not set(re.findall(r"[^\W_]+", w.casefold())) & named
    )
    if not rest or rest == asked.question:
        return asked.language_name
    return library.asked(rest).language_name


def _named(
    library: Library, question: Question, asked: Asked, s: QuestionSettings
) -> NamedLecture | None:
    """The lecture a request for a summary names (core/summary/named.py), if it is one: the
    library's lectures and the scope are read only for such a request."""
    if not asks_summary(asked.question):
        return None
    scoped = sorted(resolved.lecture_ids) if (resolved := library.scoped(s.scope)) else []

    def find(words: str) -> Lecture | None:
        hits = library.search(library.asked(words), 10).hits
        votes: dict[str, float] = {}
        for h in hits:
            votes[h.lecture.id] = votes.get(h.lecture.id, 0.0) + 1.0 / h.rank
        return library.lecture(max(votes, key=lambda k: votes[k])) if votes else None

    return named_lecture(asked.question, library.lectures(), scoped, question.lecture, find)


# -- answering them ----------------------------------------------------------------------------
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
        turn = _turn(library, request)
        yield Started(turn)
        way = way or route(library, request, s)
        match way.answered:
            case LectureSummary() as wanted:
                yield from _summary(library, turn, wanted, models, s, stop)
            case CourseOverview() as wanted:
                yield _course(library, turn, wanted, models, s)
            case Question():
                assert way.asked is not None
                yield from answer_question(library, turn, way.asked, models, s, stop)
    except LectureTuiError as exc:
        yield Failed(exc)


#: what a request was answered as (eval's report says it): a moment, a lecture's summary, a
#: course's overview
AS_MOMENT, AS_SUMMARY, AS_COURSE = "moment", "summary", "course"


def answered_as(way: Route) -> str:
    """What a routed request is answered as: AS_MOMENT, AS_SUMMARY or AS_COURSE."""
    if isinstance(way.answered, LectureSummary):
        return AS_SUMMARY
    return AS_COURSE if isinstance(way.answered, CourseOverview) else AS_MOMENT


def answer_request(
    library: Library,
    request: Request,
    generator: Generator,
    settings: QuestionSettings | None = None,
    stop: threading.Event | None = None,
) -> tuple[Route, Result]:
    """A request answered through the front door with a loaded model, not kept in the history
    (`eval`, scripts): how `route` answered it, and what it was answered with. Raises what
    stopped it."""
    s = replace(settings or QuestionSettings(), keep=False)
    way = route(library, request, s)
    for event in run_request(library, request, Loaded(generator), s, stop, way):
        if isinstance(event, Answered):
            return way, event.answer
        if isinstance(event, SummaryDone):
            return way, event.summary
        if isinstance(event, OverviewDone):
            return way, event.overview
        if isinstance(event, Failed):
            raise event.error
    raise LectureTuiError(_("The question stopped before its answer."))  # pragma: no cover


def search_request(
    library: Library, turn: Turn, generator: Generator | None, settings: QuestionSettings
) -> Searched:
    """A question's search alone, as `run_request` searches it (`eval --retrieval-only`): with
    the loaded model translated and guessed as planned, without one as asked."""
    return search_question(library, turn, Loaded(generator), settings)


def _turn(library: Library, request: Request) -> Turn:
    """The words the answer is kept with in the history."""
    if isinstance(request, Question):
        return request.turn
    if isinstance(request, LectureSummary):
        lecture = library.lecture(request.lecture_id)
        if lecture is None:
            raise LectureTuiError(_("No lecture matches {name}.").format(name=request.lecture_id))
        words = request.words or lecture.title
    else:
        words = request.words or request.course or ""
    return Turn(words, words)


def _summary(
    library: Library,
    turn: Turn,
    wanted: LectureSummary,
    models: ModelSource,
    s: QuestionSettings,
    stop: threading.Event,
) -> Iterator[RequestEvent]:
    """The lecture's summary as it grows: its parts at once, then each part's label, then the
    gist (core/summary/fold.py folds the steps, once); SummaryDone last, kept in the history as
    the summary's record and its text (core/summary/render.py)."""
    lecture = library.lecture(wanted.lecture_id)
    assert lecture is not None  # _turn said so
    language = summary_language(lecture, wanted.language)
    t0 = time.perf_counter()
    shown = 0.0
    grew: SummaryGrew | None = None
    steps = summary_events(
        library, lecture, lambda: models.for_answer(stop), language, stop, models.model_name()
    )
    for grew in unfold(steps, models.model_name()):
        yield grew
        shown = shown or time.perf_counter() - t0
    assert grew is not None  # the parts come first
    loaded = models.for_search(lambda: False) if grew.labelled else None
    name = loaded.name if loaded else models.model_name()
    summary = replace(
        grew.summary,
        model=name if grew.labelled else None,
        question=turn.question,
        stopped=stop.is_set(),
        timings={"parts_ms": shown * 1000, "total_ms": (time.perf_counter() - t0) * 1000},
    )
    yield SummaryDone(summary, _kept(library, summary, s.keep))


def _course(
    library: Library,
    turn: Turn,
    wanted: CourseOverview,
    models: ModelSource,
    s: QuestionSettings,
) -> OverviewDone:
    """One line per lecture of the course (else of the scope, or the library), from what their
    summaries say."""
    if wanted.course is not None:
        lectures = [x for x in library.lectures() if x.course == wanted.course]
    else:
        scoped = library.scoped(s.scope)
        lectures = [x for x in library.lectures() if scoped is None or x.id in scoped.lecture_ids]
    ordered = sorted(lectures, key=course_order)
    language = wanted.language or (summary_language(ordered[0]) if ordered else "English")
    text = course_text(library, ordered, models.model_name(), language)
    overview = OverviewRecord(
        turn.question,
        text=text,
        course=wanted.course,
        language=language,
        lectures=tuple(x.id for x in ordered),
    )
    return OverviewDone(overview, _kept(library, overview, s.keep))


def _kept(library: Library, record: Kept, keep: bool) -> int | None:
    """The history entry a summary or an overview is kept in, with the text it shows
    (core/summary/render.py), when the settings say so."""
    return library.history.add(record, kept_text(record)) if keep else None


# -- the summaries not written yet, one after another ----------------------------------------
@dataclass
class _Given:
    """The answer model as a function gives it (a ModelSource): asked for once, when a part is
    to be written; None: there is none to write with."""

    give: Callable[[], Generator | None]
    name: str | None = None
    made: Generator | None = None

    def for_search(self, needed: Callable[[], bool]) -> Generator | None:
        return self.made

    def for_answer(self, stop: threading.Event) -> Generator | None:
        if self.made is None:
            self.made = self.give()
        return self.made

    def model_name(self) -> str | None:
        return self.name


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
        for event in run_request(library, wanted, _Given(model, name), quiet, stop):
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
