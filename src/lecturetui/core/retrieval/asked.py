"""A question and the facts about it, each found once and carried with it.

`Library.asked` makes one when a question is asked (core/library.py); the search receives it
(core/retrieval/search.py) and never asks the library again, and the answer's pipeline
(core/answer/question.py) adds the translation and the lecturer's guess to it as they are made.
Its language is told once, on first use (py3langid loads in the background meanwhile, beside the
embedders): the search wants it only to weigh BM25 against E5, after the question is embedded.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from lecturetui.core.language import Told, language_name
from lecturetui.core.retrieval.scope import Scope

T = TypeVar("T")


class Once(Generic[T]):
    """A value made on first use, once, whichever thread asks first."""

    __slots__ = ("_lock", "_make", "_value")

    def __init__(self, make: Callable[[], T]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._value: list[T] = []

    def get(self) -> T:
        if not self._value:
            with self._lock:
                if not self._value:
                    self._value.append(self._make())
        return self._value[0]


@dataclass(frozen=True, slots=True)
class Asked:
    """A question as asked, searched and answered: its text, its scope, what the answer model
    added (the translation, the lecturer's guess) and its language, told once (`told`)."""

    question: str  # as the student asked it (its language is told on it)
    text: str  # what is searched: a follow-up's carries its predecessor's last words
    #: the library's lecture languages (empty: unknown, and every question counts as theirs)
    languages: frozenset[str]
    told: Once[Told]
    scope: Scope | None = None
    #: the question in the library's language (core/answer/translate.py), and that language
    translation: str | None = None
    translated_to: str | None = None
    guess: str | None = None  # the lecturer's likely words (core/answer/guess.py)

    @property
    def language(self) -> str:
        """The question's language (ISO 639-1)."""
        return self.told.get().code

    @property
    def language_name(self) -> str:
        """The question's language by name: what the answer and its lines are written in
        (small models follow "answer in Portuguese" far better than "in the question's
        language")."""
        return self.told.get().name

    @property
    def same_language(self) -> bool:
        """Whether the question is searched in one of the library's languages: translated into
        one, asked in one, or the library's are unknown."""
        if self.translation or not self.languages:
            return True
        return self.language in self.languages

    @property
    def guess_language(self) -> str:
        """The language the lecturer's guess is written in: the translation's when there is one
        (the library's), else the question's."""
        return language_name(self.translated_to) if self.translated_to else self.language_name
