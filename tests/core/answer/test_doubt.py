"""The verdict over a question (core/answer/verdict.py) and the pipeline acting on it: a quoted
moment in doubt shows both moments and no explanation unless the answer model settles it, a
question just under the threshold is read before it is refused; with a stand-in re-ranker and
model."""

from __future__ import annotations

from pathlib import Path

import pytest

from lecturetui.core.answer import verdict
from lecturetui.core.answer.doubt import check_wanted
from lecturetui.core.answer.events import Answered, Doubted, EvidenceReady
from lecturetui.core.answer.quote import Quote
from lecturetui.core.answer.verdict import (
    CHECK_LEAD,
    CHECK_MARGIN,
    DOUBT_MARGIN,
    NEAR_BAND,
    NEAR_YES,
    UNKNOWN_NAME_THRESHOLD,
    Explain,
    ReadFirst,
    Refuse,
    Signals,
    Unsure,
    Verdict,
    Why,
    first_verdict,
    read,
)
from lecturetui.core.conversation import Turn
from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from lecturetui.core.records import to_json
from lecturetui.core.requests.words import Loaded
from tests.conftest import SEED_CORPUS
from tests.fakes import FakeEmbedder, FakeGenerator, question_events

QUESTION = "O TensorFlow prioriza a execução de operações em qual dispositivo?"


def _quote(lecture: str, text: str) -> Quote:
    return Quote(lecture, lecture.title(), 60.0, 80.0, text, 0.5, None, None, (0,))


class Checking(FakeGenerator):
    """A model that says how likely each moment answers, in the order it is asked."""

    def __init__(self, likely: list[float], gpu: bool = True) -> None:
        super().__init__("Prioriza a GPU [1].", gpu=gpu)
        self.likely = likely
        self.checked: list[str] = []

    def yes_probability(self, messages: list[dict[str, str]]) -> float:
        self.checked.append(messages[-1]["content"])
        return self.likely[len(self.checked) - 1]


def _library() -> Library:
    lib = Library(DataHome.resolve(), embedder=FakeEmbedder(),
                  reranker=FakeEmbedder(dim=48, model_id="fake-gemma"))  # fmt: skip
    lib.ingest([SEED_CORPUS])
    lib.sync_rerank()
    return lib


def test_the_first_verdict_follows_what_retrieval_measured() -> None:
    a, b = _quote("aula-1", "a GPU"), _quote("aula-2", "a CPU")

    def first(relevance: float | None, margin: float = 0.5, **kw: object) -> Verdict:
        signals = Signals(relevance, 0.35, margin=margin, reranked=True, moments=2, **kw)  # type: ignore[arg-type]
        return first_verdict(signals, a, b)

    assert first(0.6) == Explain(a, 0.5)  # covered, the moments far apart
    assert first(None) == Explain(a, 0.5)  # no relevance model: it cannot be told
    assert first(0.6, margin=DOUBT_MARGIN) == ReadFirst(a, b, DOUBT_MARGIN, near=False)
    assert first(0.1) == Refuse(Why.NOT_COVERED)  # far under the threshold
    assert first(0.35 - NEAR_BAND / 2) == ReadFirst(a, b, 0.5, near=True)  # just under it
    # a name the lectures never mention raises the bar, and rules out the read just under it
    assert first(UNKNOWN_NAME_THRESHOLD - 0.01, unknown=("Django",)) == Refuse(Why.NOT_COVERED)
    assert first(0.35 - NEAR_BAND / 2, unknown=("Django",)) == Refuse(Why.NOT_COVERED)
    assert isinstance(first(UNKNOWN_NAME_THRESHOLD, unknown=("Django",)), Explain)
    # the moments it quotes: two to show or read together, else one
    assert Signals(0.6, 0.35, margin=0.0, reranked=True, moments=2).moments_quoted == 2
    assert Signals(0.6, 0.35, margin=0.5, reranked=True, moments=2).moments_quoted == 1
    assert Signals(0.6, 0.35, margin=0.0, reranked=False, moments=2).moments_quoted == 1  # E5 alone
    assert Signals(0.1, 0.35, reranked=True, moments=0).moments_quoted == 0
    # a second moment that could not be quoted: the first alone
    assert first_verdict(Signals(0.6, 0.35, margin=0.0, reranked=True, moments=2), a, None) == (
        Explain(a, 0.0)
    )


def test_read_keeps_the_first_moment_only_when_the_model_prefers_it_clearly() -> None:
    a, b = _quote("aula-1", "a GPU"), _quote("aula-2", "a CPU")

    def settle(gap: float, check: object) -> Verdict:
        return read(ReadFirst(a, b, gap, near=False), "q", check)  # type: ignore[arg-type]

    # no model: the margin alone decides
    assert isinstance(settle(DOUBT_MARGIN, None), Unsure)
    assert settle(DOUBT_MARGIN + 0.001, None) == Explain(a, DOUBT_MARGIN + 0.001)
    gap = CHECK_MARGIN
    sure = settle(gap, lambda q, m: 0.9 if m is a else 0.9 - CHECK_LEAD)
    assert isinstance(sure, Explain) and sure.quote is a and sure.checked is not None
    close = settle(gap, lambda q, m: 0.6 if m is a else 0.65 - CHECK_LEAD)
    assert isinstance(close, Unsure) and close.other is b
    assert isinstance(settle(gap, lambda q, m: 0.2 if m is a else 0.8), Unsure)
    # beyond CHECK_MARGIN the model is not asked
    far = settle(CHECK_MARGIN + 0.01, lambda q, m: 1 / 0)
    assert isinstance(far, Explain) and far.checked is None
    # just under the threshold: refused unless the model finds either moment likely
    near = ReadFirst(a, b, 0.1, near=True)
    assert read(near, "q", None) == Refuse(Why.NOT_COVERED)
    assert read(near, "q", lambda q, m: NEAR_YES if m is b else 0.0) == Unsure(
        a, b, 0.1, (0.0, NEAR_YES)
    )
    assert read(near, "q", lambda q, m: NEAR_YES - 0.01) == Refuse(
        Why.READ_UNLIKELY, (NEAR_YES - 0.01, NEAR_YES - 0.01)
    )


def test_an_explanation_is_refused_after_all_when_the_model_says_so_or_it_is_not_borne_out() -> (
    None
):
    shown = Explain(_quote("aula-1", "a GPU"))

    def never() -> bool:
        raise AssertionError("not needed")

    assert verdict.explained(shown, True, True, never) is shown  # stopped: kept as written
    assert verdict.explained(shown, False, True, never) == Refuse(Why.SAYS_NOT_ANSWERED)
    assert verdict.explained(shown, False, False, lambda: True) == Refuse(Why.NOT_BORNE_OUT)
    assert verdict.explained(shown, False, False, lambda: False) is shown


def test_the_check_is_on_unless_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LECTURETUI_CHECK_MOMENTS", raising=False)
    assert check_wanted()
    monkeypatch.setenv("LECTURETUI_CHECK_MOMENTS", "off")
    assert not check_wanted()


@pytest.fixture
def close_moments(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every question's first two moments count as close."""
    monkeypatch.setattr(verdict, "DOUBT_MARGIN", 1.0)
    monkeypatch.setattr(verdict, "CHECK_MARGIN", 1.0)
    monkeypatch.delenv("LECTURETUI_CHECK_MOMENTS", raising=False)


def _events(lib: Library, gen: FakeGenerator) -> list[object]:
    return list(question_events(lib, Turn(QUESTION, QUESTION), Loaded(gen)))


def test_two_close_moments_are_both_shown_and_nothing_is_explained(
    home: Path, monkeypatch: pytest.MonkeyPatch, close_moments: None
) -> None:
    monkeypatch.setenv("LECTURETUI_CHECK_MOMENTS", "off")  # the margin alone decides
    lib = _library()
    gen = FakeGenerator("Prioriza a GPU [1].")
    events = _events(lib, gen)
    found = next(e for e in events if isinstance(e, EvidenceReady)).record()
    done = events[-1]
    assert isinstance(done, Answered)
    answer = done.answer
    assert found.unsure and answer.unsure and not gen.prompts  # no explanation was asked for
    assert not any(isinstance(e, Doubted) for e in events)  # known before the quote was shown
    first, second = answer.moments
    assert (first.lecture_id, first.start) != (second.lecture_id, second.start)
    assert answer.text.startswith("Não tenho certeza")  # in the question's language
    assert f"“{first.text}”" in answer.text and f"“{second.text}”" in answer.text
    assert answer.cited == [1, 2] and answer.explanation == ""
    assert [p.lecture_id for p in answer.passages] == [first.lecture_id, second.lecture_id]
    data = to_json(done.record)
    assert data["unsure"] is True and [m["text"] for m in data["moments"]] == [
        first.text,
        second.text,
    ]
    assert found.opening.rstrip() == answer.text
    assert done.entry_id is not None  # kept in the history like any answer
    lib.close()


def test_on_a_gpu_the_model_settles_the_doubt_before_the_quote_is_shown(
    home: Path, close_moments: None
) -> None:
    lib = _library()
    gen = Checking([0.9, 0.2])  # prefers the first moment clearly: it stands, and is explained
    events = _events(lib, gen)
    done = events[-1]
    assert isinstance(done, Answered) and not done.answer.unsure and gen.prompts
    assert len(gen.checked) == 2 and all(QUESTION in user for user in gen.checked)
    gen = Checking([0.6, 0.65 - CHECK_LEAD])  # hesitates: both moments, shown at once
    events = _events(lib, gen)
    found = next(e for e in events if isinstance(e, EvidenceReady)).record()
    done = events[-1]
    assert found.unsure and isinstance(done, Answered) and done.answer.unsure and not gen.prompts
    assert not any(isinstance(e, Doubted) for e in events) and not found.checking
    lib.close()


def test_on_a_cpu_the_quote_comes_first_and_the_check_before_the_explanation(
    home: Path, close_moments: None
) -> None:
    lib = _library()
    gen = Checking([0.6, 0.65 - CHECK_LEAD], gpu=False)
    events = _events(lib, gen)
    found = next(e for e in events if isinstance(e, EvidenceReady)).record()
    assert not found.unsure and found.quote is not None  # the quote alone, before the check
    assert found.checking  # which the faces say
    assert len(gen.checked) == 2 and not gen.prompts
    doubted = next(e for e in events if isinstance(e, Doubted))
    assert events.index(doubted) == len(events) - 2  # then the answer, with no explanation
    done = events[-1]
    assert isinstance(done, Answered) and done.answer.unsure
    timings = done.answer.timings  # the answer is whole once the check is done
    assert timings["check_ms"] > 0 and timings["total_ms"] >= timings["check_ms"]
    other = done.answer.moments[1]
    assert doubted.addition().startswith("Não tenho certeza de que este momento")
    assert f"“{other.text}”" in doubted.addition() and doubted.record().unsure
    # the model prefers the first: the explanation follows the quote
    gen = Checking([0.9, 0.2], gpu=False)
    events = _events(lib, gen)
    assert not any(isinstance(e, Doubted) for e in events) and gen.prompts
    lib.close()


def test_the_command_line_says_it_checks_then_adds_the_other_moment(
    home: Path, close_moments: None
) -> None:
    from rich.console import Console

    from lecturetui.cli.ask_cmds import _Printer

    class NoModel:
        def loaded_answer_model(self) -> None:
            return None

    lib = _library()
    events = _events(lib, Checking([0.6, 0.65 - CHECK_LEAD], gpu=False))
    console = Console(record=True, width=100)
    printer = _Printer(console, False, NoModel())  # type: ignore[arg-type]
    for event in events:
        printer(event)  # type: ignore[arg-type]
    shown = " ".join(console.export_text().split())
    done = events[-1]
    assert isinstance(done, Answered)
    first, other = done.answer.moments
    checking = shown.index("(checking the moment…)")
    doubt = shown.index("Não tenho certeza de que este")
    assert shown.index(first.text[:40]) < checking < doubt
    # the other moment after the doubt (its sentences may be among the evidence above too)
    assert shown.find(other.text[:40], doubt) > doubt
    lib.close()


@pytest.fixture
def just_under(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every question scores just under the coverage threshold (and its first two moments are
    far apart: no doubt over a quote)."""
    monkeypatch.setattr(verdict, "COVERAGE_THRESHOLD", 2.0)
    monkeypatch.setattr(verdict, "OTHER_LANGUAGE_THRESHOLD", 2.0)
    monkeypatch.setattr(verdict, "NEAR_BAND", 3.0)
    monkeypatch.setattr(verdict, "DOUBT_MARGIN", -1.0)
    monkeypatch.setattr(verdict, "CHECK_MARGIN", -1.0)
    monkeypatch.delenv("LECTURETUI_CHECK_MOMENTS", raising=False)


def test_a_question_just_under_the_threshold_is_read_before_it_is_refused(
    home: Path, just_under: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib = _library()
    # on a GPU: read before anything is shown; the second moment answers: both, unsure
    gen = Checking([0.3, verdict.NEAR_YES])
    events = _events(lib, gen)
    found = next(e for e in events if isinstance(e, EvidenceReady)).record()
    done = events[-1]
    assert isinstance(done, Answered)
    assert found.covered and found.unsure and not found.checking
    assert not done.answer.abstained and done.answer.unsure and not gen.prompts
    assert len(gen.checked) == 2 and not any(isinstance(e, Doubted) for e in events)
    _, second = done.answer.moments
    assert done.answer.text.startswith("Não tenho certeza de qual destes dois momentos")
    assert f"“{second.text}”" in done.answer.text
    # neither is likely to answer: refused, as without the model
    gen = Checking([0.3, verdict.NEAR_YES - 0.01])
    done = _events(lib, gen)[-1]
    assert isinstance(done, Answered) and done.answer.abstained and not done.answer.unsure
    assert len(gen.checked) == 2
    # not close enough under it: refused without a read
    monkeypatch.setattr(verdict, "NEAR_BAND", 0.0)
    gen = Checking([0.9, 0.9])
    done = _events(lib, gen)[-1]
    assert isinstance(done, Answered) and done.answer.abstained and not gen.checked
    lib.close()


def test_on_a_cpu_the_refusal_waits_for_the_read_and_the_moments_follow(
    home: Path,
    just_under: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from rich.console import Console

    from lecturetui.cli.ask_cmds import _Printer

    class NoModel:
        def loaded_answer_model(self) -> None:
            return None

    lib = _library()
    gen = Checking([verdict.NEAR_YES, 0.1], gpu=False)
    events = _events(lib, gen)
    found = next(e for e in events if isinstance(e, EvidenceReady)).record()
    assert not found.covered and found.quote is None and found.checking  # "checking…" first
    doubted = next(e for e in events if isinstance(e, Doubted))
    assert not doubted.shown and doubted.addition().startswith("Não tenho certeza de qual")
    done = events[-1]
    assert isinstance(done, Answered) and done.answer.unsure and not done.answer.abstained
    assert done.answer.timings["check_ms"] > 0 and not gen.prompts
    console = Console(record=True, width=100)
    printer = _Printer(console, False, NoModel())  # type: ignore[arg-type]
    for event in events:
        printer(event)  # type: ignore[arg-type]
    shown = " ".join(console.export_text().split())
    first, second = done.answer.moments
    doubt = shown.index("Não tenho certeza de qual")
    assert shown.index("(checking the moment…)") < doubt
    # both moments after the doubt, in order (their sentences may be among the evidence too)
    assert doubt < shown.index(first.text[:40], doubt) < shown.index(second.text[:40], doubt)
    assert "do not seem to cover" not in shown

    class Model:
        name, placement = "small.gguf", "CPU"

    class WithModel:
        def loaded_answer_model(self) -> Model:
            return Model()

    capsys.readouterr()
    _Printer(Console(record=True), False, WithModel())(done)  # type: ignore[arg-type]
    footer = " ".join(capsys.readouterr().err.split())  # the timings go to stderr
    assert "moments checked in" in footer and "no explanation written" in footer, footer
    assert "tok/s" not in footer
    # read and refused: the timings say the model read the moments
    done = _events(lib, Checking([0.1, 0.1], gpu=False))[-1]
    assert isinstance(done, Answered) and done.answer.abstained
    _Printer(Console(record=True), False, WithModel())(done)  # type: ignore[arg-type]
    footer = " ".join(capsys.readouterr().err.split())
    assert "moments checked in" in footer and "no answer model run" not in footer, footer
    # the read turned off, or a model that cannot read (a server): refused, nothing checked
    monkeypatch.setenv("LECTURETUI_CHECK_MOMENTS", "0")
    gen = Checking([0.9, 0.9], gpu=False)
    done = _events(lib, gen)[-1]
    assert isinstance(done, Answered) and done.answer.abstained and not gen.checked
    monkeypatch.delenv("LECTURETUI_CHECK_MOMENTS")
    done = _events(lib, FakeGenerator("x"))[-1]
    assert isinstance(done, Answered) and done.answer.abstained
    lib.close()
