"""A lecture's summary and a course's overview as requests to the front door
(core/requests/door.py): what each is asked with (`LectureSummary`, `CourseOverview`), how a
question asks for one (`summary_asked`, `course_asked`), and how each is answered, as events
(`answer_summary`, `answer_course`), kept in the history with the text it shows. The registry of
kinds (core/requests/kinds.py) lists them."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace

from lecturetui.core.conversation import Turn
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.lectures import Lecture
from lecturetui.core.library import Library
from lecturetui.core.records import OverviewRecord
from lecturetui.core.requests.words import ModelSource, Question, QuestionSettings
from lecturetui.core.retrieval.asked import Asked
from lecturetui.core.summary.course import course_text
from lecturetui.core.summary.events import OverviewDone, SummaryDone, SummaryGrew
from lecturetui.core.summary.fold import unfold
from lecturetui.core.summary.named import asks_course, asks_summary, course_order, named_lecture
from lecturetui.core.summary.text import summary_text
from lecturetui.core.summary.writing import summary_events, summary_language

#: why a question is answered with a course's overview (a lecture's summary: how the question
#: named the lecture, core/summary/named.py)
COURSE = "course"


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


# -- how a question asks for one ---------------------------------------------------------------
def course_asked(
    library: Library, question: Question, asked: Asked, s: QuestionSettings
) -> tuple[CourseOverview, str] | None:
    """A question that asks what a whole course covers, as that request, and why."""
    if not asks_course(asked.question):
        return None
    return CourseOverview(language=asked.language_name), COURSE


def summary_asked(
    library: Library, question: Question, asked: Asked, s: QuestionSettings
) -> tuple[LectureSummary, str] | None:
    """A question that asks for a lecture's summary and names the lecture (core/summary/named.py:
    title, number, search, this, last, scope, open...), as that summary in the question's
    language, and how it named it; the library's lectures and the scope are read only for such a
    question."""
    if not asks_summary(asked.question):
        return None
    scoped = sorted(resolved.lecture_ids) if (resolved := library.scoped(s.scope)) else []

    def find(words: str) -> Lecture | None:
        hits = library.search(library.asked(words), 10).hits
        votes: dict[str, float] = {}
        for h in hits:
            votes[h.lecture.id] = votes.get(h.lecture.id, 0.0) + 1.0 / h.rank
        return library.lecture(max(votes, key=lambda k: votes[k])) if votes else None

    named = named_lecture(asked.question, library.lectures(), scoped, question.lecture, find)
    if named is None:
        return None
    language = request_language(library, asked, named.lecture.title)
    return LectureSummary(named.lecture.id, language), named.by


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


# -- the words each is kept with ---------------------------------------------------------------
def summary_turn(library: Library, request: LectureSummary) -> Turn:
    lecture = library.lecture(request.lecture_id)
    if lecture is None:
        raise LectureTuiError(_("No lecture matches {name}.").format(name=request.lecture_id))
    words = request.words or lecture.title
    return Turn(words, words)


def course_turn(library: Library, request: CourseOverview) -> Turn:
    words = request.words or request.course or ""
    return Turn(words, words)


# -- answering them ----------------------------------------------------------------------------
def answer_summary(
    library: Library,
    turn: Turn,
    wanted: LectureSummary,
    models: ModelSource,
    s: QuestionSettings,
    stop: threading.Event,
) -> Iterator[SummaryGrew | SummaryDone]:
    """The lecture's summary as it grows: its parts at once, then each part's label, then the
    gist (core/summary/fold.py folds the steps, once); SummaryDone last, kept in the history as
    the summary's record and its text (core/summary/text.py)."""
    lecture = library.lecture(wanted.lecture_id)
    assert lecture is not None  # summary_turn said so
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
    entry = library.history.add(summary, summary_text(summary)) if s.keep else None
    yield SummaryDone(summary, entry)


def answer_course(
    library: Library,
    turn: Turn,
    wanted: CourseOverview,
    models: ModelSource,
    s: QuestionSettings,
    stop: threading.Event,
) -> Iterator[OverviewDone]:
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
    yield OverviewDone(overview, library.history.add(overview, text) if s.keep else None)
