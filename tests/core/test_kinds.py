"""The kinds of request are listed once (core/requests/kinds.py): the front door, the history
and every face find a kind there, and a face that meets a kind the list does not know fails
instead of showing it half."""

from __future__ import annotations

import io
from dataclasses import dataclass

import pytest
from rich.console import Console

from lecturetui.cli.ask_cmds import ENDS, _Printer
from lecturetui.core.answer.events import Answered, Token
from lecturetui.core.answer.result import Answer
from lecturetui.core.records import KEPT, AnswerRecord, OverviewRecord, SummaryRecord
from lecturetui.core.requests import kinds
from lecturetui.core.requests.kinds import (
    KINDS,
    Ended,
    Kind,
    UnknownKind,
    ended,
    kind_named,
    kind_of,
    shown_text,
)
from lecturetui.core.requests.words import Question
from lecturetui.core.summary.asked import CourseOverview, LectureSummary
from lecturetui.core.summary.events import OverviewDone, SummaryDone
from lecturetui.tui.asking import VIEWS, AskingScreen


@dataclass(frozen=True, slots=True)
class CompareRecord:
    """A kind no list knows (the plan in docs/architecture.md: two lectures compared)."""

    question: str
    kind: str = "compare"
    text: str = "A covers gradients; B covers the chain rule [1]."


def test_each_kind_is_one_entry_with_its_own_types_and_record() -> None:
    names = [k.name for k in KINDS]
    assert len(set(names)) == len(names) == 3
    for kind in KINDS:
        assert KEPT[kind.name] is kind.record  # the history reads it back as its own record
        assert kind_named(kind.name) is kind
    types = [t for k in KINDS for t in (k.request, k.done, k.record)]
    assert len(set(types)) == len(types)
    assert {k.answered_as for k in KINDS} == {"moment", "summary", "course"}


def test_a_request_its_end_its_record_and_its_result_find_their_kind() -> None:
    summary = SummaryRecord("aula-a", title="Aula A")
    overview = OverviewRecord("o que o curso cobre?", text="[1] Aula A")
    answer = Answer("q?", "texto", [], [], [])
    assert kind_of(LectureSummary("aula-a")).name == "summary"
    assert kind_of(CourseOverview()).name == "overview"
    assert kind_of(summary).name == "summary"
    assert kind_of(answer) is kind_of(answer.record()) is kind_named("answer")
    done = SummaryDone(summary, 3)
    assert ended(done) == Ended(summary, 3, summary)
    assert ended(OverviewDone(overview, None)) == Ended(overview, None, overview)
    assert ended(Answered(answer, answer.record(), 4)) == Ended(answer.record(), 4, answer)
    assert ended(Token("a")) is None
    assert shown_text(overview) == "[1] Aula A"
    assert shown_text(answer.record()) == "texto"


def test_a_kind_the_list_does_not_know_is_refused() -> None:
    record = CompareRecord("compare A e B")
    with pytest.raises(UnknownKind):
        kind_of(record)
    with pytest.raises(UnknownKind):
        kind_named("compare")
    with pytest.raises(UnknownKind):
        kind_of(Question.__new__(type("Other", (), {})))


def test_the_faces_views_name_only_known_kinds() -> None:
    known = {k.name for k in KINDS}
    assert set(ENDS) <= known
    assert set(VIEWS) <= known
    assert set(ENDS) == set(VIEWS) == known  # today every kind has a view of its own


def test_a_face_meeting_an_unknown_kind_fails() -> None:
    record = CompareRecord("compare A e B")
    out = Console(file=io.StringIO())
    printer = _Printer(out, False, None)  # type: ignore[arg-type]  # no model is asked for
    with pytest.raises(UnknownKind):
        printer.ended(Ended(record, None, record))  # type: ignore[arg-type]
    with pytest.raises(UnknownKind):
        AskingScreen.show_answer(None, record)  # type: ignore[arg-type]


def test_a_new_kind_is_shown_as_its_text_until_a_face_gives_it_a_view(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compare: Kind[object, object, CompareRecord] = Kind(
        "compare",
        "compare",
        object,
        object,
        CompareRecord,
        lambda library, request: None,  # type: ignore[arg-type,return-value]
        lambda *a: iter(()),
        lambda done: None,  # type: ignore[arg-type,return-value]
        lambda record: record.text,
    )
    monkeypatch.setattr(kinds, "KINDS", (*KINDS, compare))
    record = CompareRecord("compare A e B")
    text = io.StringIO()
    printer = _Printer(Console(file=text, width=200), False, None)  # type: ignore[arg-type]
    printer.ended(Ended(record, None, record))  # type: ignore[arg-type]
    assert text.getvalue().strip() == record.text
    assert kind_of(record) is compare


def test_a_follow_up_continues_an_answer_s_thread_and_starts_one_after_a_summary() -> None:
    answer = AnswerRecord("e por quê?", "Porque [1].", thread=2, search_text="gpu e por quê?")
    assert answer.exchange(5, "Porque [1].").thread_id == 2
    assert answer.exchange(5, "Porque [1].").search_text == "gpu e por quê?"
    summary = SummaryRecord("aula-a", question="resuma a aula A")
    assert summary.exchange(7, "Resumo").thread_id == 7
    assert summary.exchange(7, "Resumo").answer == "Resumo"
