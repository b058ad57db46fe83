"""The kinds of request, each one entry of `KINDS`: what it is asked with, how a question asks
for it, the words it is kept with, how it is answered (its events), the event that ends it, its
record (core/records.py), the text the history keeps and a follow-up reads, and what eval says
it was answered as. The front door (core/requests/door.py) and every face find a kind here;
a kind this list does not know is refused (`UnknownKind`), never guessed.

Adding a kind ("compare lectures X and Y", docs/architecture.md): its own module (the request,
how a question asks for it, how it is answered), its record in core/records.py, and its entry
here; a face shows it as its text until it is given a view of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeAlias, TypeVar

from lecturetui.core.answer.events import Answered, Event
from lecturetui.core.answer.question import answer_question
from lecturetui.core.answer.result import Answer
from lecturetui.core.conversation import Turn
from lecturetui.core.library import Library
from lecturetui.core.records import AnswerRecord, Kept, OverviewRecord, SummaryRecord
from lecturetui.core.requests.words import ModelSource, Question, QuestionSettings
from lecturetui.core.retrieval.asked import Asked
from lecturetui.core.summary.asked import (
    CourseOverview,
    LectureSummary,
    answer_course,
    answer_summary,
    course_asked,
    course_turn,
    summary_asked,
    summary_turn,
)
from lecturetui.core.summary.events import OverviewDone, SummaryDone, SummaryEvent
from lecturetui.core.summary.text import summary_text

#: what a face sends to the front door
Request: TypeAlias = Question | LectureSummary | CourseOverview
#: what answering a request yields
RequestEvent: TypeAlias = Event | SummaryEvent
#: what a request is answered with: a question's answer, a lecture's summary, a course's overview
Result: TypeAlias = Answer | SummaryRecord | OverviewRecord

Q = TypeVar("Q")
D = TypeVar("D")
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Ended:
    """What a request was answered with: its record (what the history keeps, `--json` prints
    and the app shows), its history entry (None when not kept) and its result."""

    record: Kept
    entry_id: int | None
    result: Result


@dataclass(frozen=True, slots=True)
class Kind(Generic[Q, D, R]):
    """One kind of request (see the module's docstring)."""

    name: str  # its record's `kind`
    answered_as: str  # what eval's report says it was answered as
    request: type[Q]
    done: type[D]  # the event that ends it
    record: type[R]
    #: the words the answer is kept with in the history
    turn: Callable[[Library, Q], Turn]
    #: its events after Started; raises LectureTuiError where it cannot go on
    run: Callable[
        [Library, Turn, Q, Asked | None, ModelSource, QuestionSettings, threading.Event],
        Iterator[RequestEvent],
    ]
    ended: Callable[[D], Ended]
    text: Callable[[R], str]  # what it shows as one text: the history keeps it
    #: how a question asks for it: the request and why, else None (None: it is not asked so)
    asked: Callable[[Library, Question, Asked, QuestionSettings], tuple[Q, str] | None] | None = (
        None
    )


def _question_turn(library: Library, request: Question) -> Turn:
    return request.turn


def _answer(
    library: Library,
    turn: Turn,
    request: Question,
    asked: Asked | None,
    models: ModelSource,
    s: QuestionSettings,
    stop: threading.Event,
) -> Iterator[RequestEvent]:
    facts = asked or library.asked(turn.question, turn.search_text, s.scope)
    yield from answer_question(library, turn, facts, models, s, stop)


def _as_summary(
    library: Library,
    turn: Turn,
    request: LectureSummary,
    asked: Asked | None,
    models: ModelSource,
    s: QuestionSettings,
    stop: threading.Event,
) -> Iterator[RequestEvent]:
    return answer_summary(library, turn, request, models, s, stop)


def _as_overview(
    library: Library,
    turn: Turn,
    request: CourseOverview,
    asked: Asked | None,
    models: ModelSource,
    s: QuestionSettings,
    stop: threading.Event,
) -> Iterator[RequestEvent]:
    return answer_course(library, turn, request, models, s, stop)


OVERVIEW: Kind[CourseOverview, OverviewDone, OverviewRecord] = Kind(
    "overview",
    "course",
    CourseOverview,
    OverviewDone,
    OverviewRecord,
    course_turn,
    _as_overview,
    lambda done: Ended(done.overview, done.entry_id, done.overview),
    lambda record: record.text,
    course_asked,
)
SUMMARY: Kind[LectureSummary, SummaryDone, SummaryRecord] = Kind(
    "summary",
    "summary",
    LectureSummary,
    SummaryDone,
    SummaryRecord,
    summary_turn,
    _as_summary,
    lambda done: Ended(done.summary, done.entry_id, done.summary),
    summary_text,
    summary_asked,
)
QUESTION: Kind[Question, Answered, AnswerRecord] = Kind(
    "answer",
    "moment",
    Question,
    Answered,
    AnswerRecord,
    _question_turn,
    _answer,
    lambda done: Ended(done.record, done.entry_id, done.answer),
    lambda record: record.answer,
)

#: every kind, in the order a question is told apart: what a course covers, then a lecture's
#: summary it names, else a moment (the question's own kind, asked as sent)
KINDS: tuple[Kind[Any, Any, Any], ...] = (OVERVIEW, SUMMARY, QUESTION)


class UnknownKind(TypeError):
    """A request, event or record of a kind `KINDS` does not list: a face meeting one fails
    here rather than showing it half."""


def kind_of(thing: object) -> Kind[Any, Any, Any]:
    """The kind of a request, of the event that ends one, of a record or of a result."""
    for kind in KINDS:
        if type(thing) in (kind.request, kind.done, kind.record) or (
            kind is QUESTION and type(thing) is Answer
        ):
            return kind
    raise UnknownKind(f"no kind of request is {type(thing).__name__}")


def kind_named(name: str) -> Kind[Any, Any, Any]:
    """The kind whose records say `kind: name`."""
    for kind in KINDS:
        if kind.name == name:
            return kind
    raise UnknownKind(f"no kind of request is called {name!r}")


def ended(event: object) -> Ended | None:
    """What a request was answered with, when `event` is the one that ends it; None for any
    other event."""
    for kind in KINDS:
        if type(event) is kind.done:
            return kind.ended(event)
    return None


def shown_text(record: Kept) -> str:
    """What a record shows as one text (the history keeps it, a follow-up reads it)."""
    return kind_of(record).text(record)
