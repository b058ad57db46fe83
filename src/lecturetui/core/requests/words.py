"""The front door's words (core/requests/door.py), below the pipeline that uses them: how a
request is answered (`QuestionSettings`), how it gets the answer model (`ModelSource`: one
`Loaded` already, or one `Loading` beside the search), the question as the student asked it
(`Question`), and the events every request yields, first and on failure (`Started`,
`Failed`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from lecturetui.core.conversation import Turn
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.llm.model import Generator
from lecturetui.core.question_options import DEFAULT_GUESS, DEFAULT_MODE, DEFAULT_TTFT_S
from lecturetui.core.retrieval.scope import Scope


@dataclass(frozen=True, slots=True)
class QuestionSettings:
    """How a request is answered: how many hits, the search mode and scope, the lecturer's
    guess (auto, on, off: core/answer/guess.py), the time budget, the answer's length, and
    whether the history keeps it (eval's does not)."""

    k: int = 10
    mode: str = DEFAULT_MODE
    scope: Scope | None = None
    guess: str = DEFAULT_GUESS
    ttft_s: float | None = DEFAULT_TTFT_S
    answer_tokens: int = 512
    keep: bool = True


class ModelSource(Protocol):
    """How a request gets the answer model, which may still be loading."""

    def for_search(self, needed: Callable[[], bool]) -> Generator | None:
        """A model to translate and guess with before the search: whatever is loaded now, or
        one waited for when `needed()` says the question wants it (a translation or a guess)."""
        ...

    def for_answer(self, stop: threading.Event) -> Generator | None:
        """The model to answer with, once the evidence is out: waits for it to load; None when
        `stop` was set meanwhile; raises LectureTuiError when it cannot load."""
        ...

    def model_name(self) -> str | None:
        """The answer model's name before it loads (what it wrote is read back without loading
        it: a lecture's summary); None when it cannot be told."""
        ...


@dataclass(frozen=True, slots=True)
class Loaded:
    """A model already loaded (eval, tests, scripts), or none (None: a search as asked, without
    translation or guess; a summary's parts alone, `name` the model that wrote what is read
    back)."""

    generator: Generator | None
    name: str | None = None

    def for_search(self, needed: Callable[[], bool]) -> Generator | None:
        return self.generator

    def for_answer(self, stop: threading.Event) -> Generator | None:
        return self.generator

    def model_name(self) -> str | None:
        return self.generator.name if self.generator is not None else self.name


@dataclass(frozen=True, slots=True)
class Loading:
    """A model loading beside the search (the CLI's and the app's), or given when first wanted
    (the summaries written while idle): `now` is what is loaded now, never waiting; `wait`
    waits for it (None when `stop` is set meanwhile; raises LectureTuiError when it cannot
    load); `name` its name before it loads. `search_waits`: a question that wants the model
    before its search (a translation, a guess) waits for it; else it takes what is there."""

    now: Callable[[], Generator | None]
    wait: Callable[[threading.Event], Generator | None]
    name: Callable[[], str | None]
    search_waits: bool = False

    def for_search(self, needed: Callable[[], bool]) -> Generator | None:
        if self.search_waits and needed():
            return self.wait(threading.Event())
        return self.now()

    def for_answer(self, stop: threading.Event) -> Generator | None:
        return self.wait(stop)

    def model_name(self) -> str | None:
        return self.name()


@dataclass(frozen=True, slots=True)
class Question:
    """A question as the student asked it (a follow-up carries its predecessor: the turn)."""

    turn: Turn
    lecture: str | None = None  # the lecture open in the app ("resuma esta aula")


@dataclass(frozen=True, slots=True)
class Started:
    """The request is being answered: a question being searched (a follow-up with the previous
    question's words, a question in another language once translated: the turn says which), a
    summary or an overview being written."""

    turn: Turn


@dataclass(frozen=True, slots=True)
class Failed:
    """What stopped the request, in one sentence and a hint (core/errors.py)."""

    error: LectureTuiError
