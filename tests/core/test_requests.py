"""The front door (core/requests/door.py): a typed request answered as events, and why it is
answered that way; a question that asks for a lecture's summary, or what a course covers, gets
it instead of a moment; with fakes."""

from __future__ import annotations

from pathlib import Path

import pytest

from lecturetui.core.answer.events import Answered, EvidenceReady
from lecturetui.core.conversation import Turn
from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from lecturetui.core.records import SummaryRecord, from_json, to_json
from lecturetui.core.requests.door import ASKED, MOMENT, route, run_request
from lecturetui.core.requests.words import Failed, Loaded, Question, QuestionSettings, Started
from lecturetui.core.summary.asked import COURSE, CourseOverview, LectureSummary
from lecturetui.core.summary.events import (
    GistWritten,
    OverviewDone,
    PartsReady,
    PartWritten,
    SummaryDone,
    SummaryGrew,
)
from lecturetui.core.summary.writing import summary_events
from tests.conftest import SEED_CORPUS
from tests.core.summary.test_writing import PartsThenGist
from tests.fakes import FakeEmbedder, FakeGenerator, FakeLabeller


def _library() -> Library:
    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    library.ingest([SEED_CORPUS])
    return library


def _asking(text: str, lecture: str | None = None) -> Question:
    return Question(Turn(text, text), lecture)


def test_why_a_request_is_answered_as_it_is_is_said_in_one_place(home: Path) -> None:
    library = _library()
    s = QuestionSettings()
    named = route(library, _asking("Resuma a aula 2"), s)  # no title holds a 2: the second
    assert named.answered == LectureSummary("aula-b", "Portuguese") and named.why == "number"
    here = route(library, _asking("resuma esta aula", "aula-c"), s)
    assert here.answered == LectureSummary("aula-c", "Portuguese") and here.why == "open"
    course = route(library, _asking("O que este curso cobre?"), s)
    assert course.answered == CourseOverview(language="Portuguese") and course.why == COURSE
    point = _asking("O TensorFlow prioriza qual dispositivo?")
    moment = route(library, point, s)
    assert moment.answered is point and moment.why == MOMENT and moment.asked is not None
    # a typed request is answered as sent: no words are read
    sent = LectureSummary("aula-b", "English")
    assert route(library, sent, s).answered is sent and route(library, sent, s).why == ASKED
    library.close()


def test_a_lecture_s_summary_sent_as_such_is_answered_as_sent(home: Path) -> None:
    library = _library()
    gen = PartsThenGist("This part explains it.", "It explains it all.")
    words = "Summarise this lecture: Aula D"
    events = list(run_request(library, LectureSummary("aula-d", "English", words), Loaded(gen)))
    kinds = [type(e) for e in events]
    assert kinds[:2] == [Started, SummaryGrew] and EvidenceReady not in kinds  # no search
    assert Answered not in kinds  # a summary is not a question's answer
    grown = [e for e in events if isinstance(e, SummaryGrew)]
    assert isinstance(grown[0].step, PartsReady) and isinstance(grown[-1].step, GistWritten)
    assert [g.labelled for g in grown] == [*range(len(grown) - 1), len(grown) - 2]
    assert grown[-1].done == grown[-1].steps  # every part labelled, then the gist
    done = events[-1]
    assert isinstance(done, SummaryDone) and done.entry_id is not None  # kept in the history
    assert done.summary.question == words and done.summary.kind == "summary"
    assert done.summary.lecture == "aula-d" and done.summary.language == "English"
    assert done.summary.parts == grown[-1].summary.parts  # as the faces were shown it
    kept = library.history.entry(done.entry_id)
    assert kept == done.summary and library.history.exchange(done.entry_id) is not None
    assert "in English" in gen.prompts[0][0]["content"]
    # not kept where the settings say so; no language: the lecture's own
    quiet = QuestionSettings(keep=False)
    again = list(run_request(library, LectureSummary("aula-e"), Loaded(gen), quiet))[-1]
    assert isinstance(again, SummaryDone) and again.entry_id is None
    assert again.summary.language == "Portuguese"
    # a lecture that is not there is said in one sentence
    missing = list(run_request(library, LectureSummary("aula-z"), Loaded(gen)))
    assert len(missing) == 1 and isinstance(missing[0], Failed)
    library.close()


def test_a_course_s_overview_has_a_line_per_lecture_of_that_course(home: Path) -> None:
    library = _library()
    for lecture_id in ("aula-a", "aula-b"):
        library.update_lecture(lecture_id, course="Redes")
    gen = FakeGenerator("nunca")
    done = list(run_request(library, CourseOverview("Redes", "Portuguese"), Loaded(gen)))[-1]
    assert isinstance(done, OverviewDone) and done.overview.lectures == ("aula-a", "aula-b")
    assert library.history.entry(done.entry_id or 0) == done.overview  # kept as it was
    rows = [line for line in done.overview.text.splitlines() if line.startswith("[")]
    assert [row.split(":")[0] for row in rows] == ["[1] Aula A", "[2] Aula B"]
    assert gen.prompts == []  # no model writes a course's overview
    library.close()


def test_a_request_for_a_summary_is_answered_with_it_not_a_moment(home: Path) -> None:
    library = _library()
    gen = FakeLabeller()
    question = "Resuma esta aula"
    open_ = library.lectures()[1].id
    events = list(run_request(library, Question(Turn(question, question), open_), Loaded(gen)))
    kinds = [type(e) for e in events]
    assert kinds[:2] == [Started, SummaryGrew] and EvidenceReady not in kinds  # no search
    done = events[-1]
    assert isinstance(done, SummaryDone) and done.entry_id is not None  # kept in the history
    record = done.summary
    assert record.lecture == open_ and record.language == "Portuguese"
    # named where a label is kept; a part lecturetui cut is else left unnamed, not misnamed
    assert record.parts and any(p.label for p in record.parts)
    assert all(p.label or p.made for p in record.parts)
    assert any(not p.refused for p in record.parts)  # by the model's label, which its part says
    assert library.history.rows(1)[0][3].startswith("**Resumo de")
    # the record reads back from JSON as it was written
    assert from_json(to_json(record), SummaryRecord) == record
    # a question about a moment still finds a moment
    point = "O TensorFlow prioriza qual dispositivo?"
    events = list(run_request(library, Question(Turn(point, point)), Loaded(gen)))
    assert any(isinstance(e, EvidenceReady) for e in events)
    library.close()


@pytest.mark.parametrize("question", ["summarize this lecture", "resuma esta aula"])
def test_the_summary_is_in_the_question_s_language(home: Path, question: str) -> None:
    library = _library()
    gen = FakeGenerator("Resumo.")
    open_ = library.lectures()[0].id
    done = list(run_request(library, Question(Turn(question, question), open_), Loaded(gen)))[-1]
    assert isinstance(done, SummaryDone)
    language = "English" if question.startswith("summ") else "Portuguese"
    assert done.summary.language == language
    assert f"in {language}" in gen.prompts[0][0]["content"]
    library.close()


def test_a_question_about_the_course_gets_a_line_per_lecture(home: Path) -> None:
    library = _library()
    gen = FakeLabeller()
    first = library.lectures()[0]
    events = list(summary_events(library, first, lambda: gen, "Portuguese"))  # one written
    subject = next(e.written.label for e in events if isinstance(e, PartWritten))
    question = "O que este curso cobre?"
    events = list(run_request(library, Question(Turn(question, question)), Loaded(gen)))
    done = events[-1]
    assert isinstance(done, OverviewDone) and not any(isinstance(e, EvidenceReady) for e in events)
    lines = done.overview.text.splitlines()
    assert lines[0] == "**O que o curso cobre, aula por aula**"
    rows = [line for line in lines if line.startswith("[")]
    assert len(rows) == len(library.lectures())
    mine = next(row for row in rows if first.title in row)
    assert subject in mine  # its first subject
    others = [row for row in rows if row is not mine]
    assert all("ainda sem resumo" in row for row in others)
    library.close()


def test_a_summary_asked_by_an_english_title_is_in_the_request_s_language(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """py3langid tells "resuma a aula de linear-regression" Catalan: the title's words are not
    the request's, and without them the request is Portuguese."""
    from lecturetui.core import i18n, language

    library = _library()
    library.update_lecture("aula-b", title="linear-regression")
    monkeypatch.setattr(i18n, "language", lambda: "en")  # an English interface
    monkeypatch.setattr(Library, "_lecture_languages", lambda self: {"en"})  # English lectures
    asked = "resuma a aula de linear-regression"
    assert language.tell(asked, {"en"}).code == "ca"  # as told from all its words
    routed = route(library, Question(Turn(asked, asked)), QuestionSettings())
    assert routed.answered == LectureSummary("aula-b", "Portuguese")
    library.close()
