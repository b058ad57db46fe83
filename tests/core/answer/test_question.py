"""One question through the pipeline every face drives (core/answer/question.py), with a fake model."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from lecturetui.core.answer.events import (
    Answered,
    EvidenceReady,
    PromptReady,
    Token,
)
from lecturetui.core.conversation import Turn
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.library import Library
from lecturetui.core.llm.model import Generator
from lecturetui.core.paths import DataHome
from lecturetui.core.requests.words import Failed, Loaded, QuestionSettings, Started
from tests.conftest import SEED_CORPUS
from tests.fakes import FakeEmbedder, FakeGenerator, question_events

QUESTION = "O TensorFlow prioriza a execução de operações em qual dispositivo?"


def _library() -> Library:
    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    library.ingest([SEED_CORPUS])
    return library


def test_the_events_come_in_order_and_the_answer_is_kept(home: Path) -> None:
    library = _library()
    gen = FakeGenerator("Prioriza a GPU [1]. Veja [2].")
    events = list(question_events(library, Turn(QUESTION, QUESTION), Loaded(gen)))
    kinds = [type(e) for e in events]
    assert kinds[:3] == [Started, EvidenceReady, PromptReady]
    assert kinds[-1] is Answered and set(kinds[3:-1]) == {Token}
    done = events[-1]
    assert isinstance(done, Answered)
    streamed = "".join(e.text for e in events if isinstance(e, Token))
    assert done.answer.explanation == streamed.strip() and done.answer.cited == [1, 2]
    assert done.answer.text.endswith(streamed.strip())
    assert done.entry_id is not None  # kept in the history, as ask and the app keep it
    assert library.history.exchange() is not None
    prompt = next(e for e in events if isinstance(e, PromptReady))
    assert [p.number for p in prompt.passages] == [p.number for p in done.answer.passages]
    library.close()


class _Slow:
    """A model that is still loading when the student presses Esc."""

    def __init__(self, error: LectureTuiError | None = None) -> None:
        self.error = error

    def for_search(self, needed: Callable[[], bool]) -> Generator | None:
        return None

    def for_answer(self, stop: threading.Event) -> Generator | None:
        if self.error is not None:
            raise self.error
        stop.set()
        return None


def test_a_question_stopped_while_the_model_loads_ends_after_its_evidence(home: Path) -> None:
    library = _library()
    events = list(question_events(library, Turn(QUESTION, QUESTION), _Slow()))
    assert [type(e) for e in events] == [Started, EvidenceReady]
    library.close()


def test_a_model_that_cannot_load_is_the_last_event_not_an_exception(home: Path) -> None:
    library = _library()
    why = LectureTuiError("No answer model 'x.gguf'.", hint="give a .gguf path")
    events = list(question_events(library, Turn(QUESTION, QUESTION), _Slow(why)))
    assert [type(e) for e in events] == [Started, EvidenceReady, Failed]
    assert isinstance(events[-1], Failed) and events[-1].error is why
    library.close()


def test_stop_keeps_what_was_written_and_eval_keeps_nothing(home: Path) -> None:
    library = _library()
    gen = FakeGenerator(" ".join(f"palavra{i}" for i in range(50)) + " [1].")
    stop = threading.Event()
    settings = QuestionSettings(keep=False)
    tokens = 0
    done = None
    for event in question_events(library, Turn(QUESTION, QUESTION), Loaded(gen), settings, stop):
        if isinstance(event, Token):
            tokens += 1
            if tokens == 5:
                stop.set()  # Esc, or a new question
        elif isinstance(event, Answered):
            done = event
    assert done is not None and done.answer.stopped and done.entry_id is None
    assert done.answer.explanation.startswith("palavra0")
    assert "palavra49" not in done.answer.explanation
    assert library.history.exchange() is None
    library.close()


def test_the_question_s_language_is_told_once_per_question(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lecturetui.core import language
    from lecturetui.core import library as library_module

    library = _library()  # Portuguese lectures: the search weighs BM25 by the question's language
    told: list[str] = []
    real = language.tell

    def counted(text: str, likely: Iterable[str] = ()) -> language.Told:
        told.append(text)
        return real(text, likely)

    monkeypatch.setattr(library_module, "tell", counted)
    monkeypatch.setattr(language, "tell", counted)
    question = "Which device does TensorFlow run operations on first?"
    gen = FakeGenerator("It prefers the GPU [1].")
    events = list(question_events(library, Turn(question, question), Loaded(gen)))
    done = events[-1]
    assert isinstance(done, Answered) and told.count(question) == 1
    assert set(told) <= {question, "warm"}  # and the identifier warmed in the background
    # the answer is asked for in the question's language, told that once
    assert "in English, the language of the question" in gen.prompts[0][-1]["content"]
