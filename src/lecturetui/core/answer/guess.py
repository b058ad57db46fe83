"""The answer model's guess at what the lecturer said, searched together with the question.

A question in a student's own words shares few words with the lecture and sits far from it in
E5's space; the lecturer's likely words sit closer (the idea is known as HyDE, hypothetical
document embeddings). Before the search, the answer model writes the two or three sentences the
lecturer most likely said; E5 searches the question's vector plus `search.GUESS_WEIGHT` times
the guess's, and BM25 looks for the words of both. The guess is never shown as an answer: it only
steers the search, and the hits are the lectures' own words.

It costs one short generation (at most `GUESS_TOKENS` tokens): about 7 s on a 2-core CPU, and
far less where the model runs on a GPU (to be measured there). So `auto` (the default) guesses
when the answer model runs on a GPU, and `on` / `off` choose either way (bench/RESULTS.md, "the
lecturer's guess, in the product").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.question_options import GUESS_SETTINGS
from lecturetui.core.retrieval.scope import resolve

if TYPE_CHECKING:
    from lecturetui.core.library import Library
    from lecturetui.core.llm.model import Generator
    from lecturetui.core.models.placement import Placement
    from lecturetui.core.retrieval.asked import Asked
    from lecturetui.core.retrieval.scope import Scope

#: longest guess, tokens (two or three sentences; a longer one is cut, and still helps)
GUESS_TOKENS = 100


def guess_messages(
    question: str, language: str | None, courses: Sequence[str]
) -> list[dict[str, str]]:
    """The chat that asks for the lecturer's likely words: the course is named when the library
    (or the question's scope) holds one, and the language always (a small model otherwise
    drifts into English)."""
    who = f'the course "{courses[0]}"' if len(courses) == 1 else "a university course"
    tail = f", in {language}" if language else ""
    return [
        {"role": "system", "content": f"You are the lecturer of {who}."},
        {
            "role": "user",
            "content": f"A student asks: {question}\n\nWrite the two or three sentences you most "
            "likely said in your lecture when you explained this. Reply with those "
            f"sentences only{tail}.",
        },
    ]


_LEAD = re.compile(r"^(sure|certainly|of course|claro|certo)\b[^.:!]*[.:!]\s*", re.I)


def clean_guess(reply: str) -> str | None:
    """The sentences of a model's reply, without a chatty lead-in or quotes; None when empty."""
    lines = [_LEAD.sub("", x.strip()) for x in reply.strip().splitlines() if x.strip()]
    if len(lines) > 1 and lines[0].endswith(":"):  # "Here is what I said:"
        lines = lines[1:]
    text = " ".join(x.strip(" \"'“”") for x in lines)
    return text.strip() or None


def guess(
    generator: Generator, question: str, language: str | None, courses: Sequence[str]
) -> str | None:
    """The lecturer's likely words on `question` (greedy), or None when the model fails."""
    messages = guess_messages(question, language, courses)
    try:
        reply = "".join(generator.stream(messages, GUESS_TOKENS, temperature=0.0))
    except LectureTuiError:  # a failed guess only costs its help to the search
        return None
    return clean_guess(reply)


def courses_of(library: Library, scope: Scope | None = None) -> list[str]:
    """The courses a question is asked about: those of its scope, else the library's."""
    lectures = library.lectures()
    inside = resolve(library.store, scope) if scope else None
    if inside is not None:
        lectures = [x for x in lectures if x.id in inside.lecture_ids]
    return sorted({x.course for x in lectures if x.course})


def wants_guess(setting: str, generator: Generator | None) -> bool:
    """Whether to guess: `on`, or `auto` with the answer model on a GPU; never without a model."""
    if setting not in GUESS_SETTINGS:
        raise LectureTuiError(
            _("There is no guess setting {setting!r}.").format(setting=setting),
            hint=_("use one of: {choices}").format(choices=", ".join(GUESS_SETTINGS)),
        )
    return generator is not None and (setting == "on" or (setting == "auto" and generator.gpu))


def guess_planned(setting: str, placement: Placement) -> bool:
    """Before the answer model loads: will it guess? (`auto`: when the placement puts the answer
    model on a GPU: core/models/placement.py.)"""
    if setting != "auto":
        return setting == "on"
    return placement.answer_on_gpu


def guesser_for(
    library: Library, generator: Generator | None, setting: str, scope: Scope | None = None
) -> Guesser | None:
    """A guesser for the questions of this library (and scope), or None when not wanted."""
    if generator is None or not wants_guess(setting, generator):
        return None
    return Guesser(generator, tuple(courses_of(library, scope)))


@dataclass(frozen=True, slots=True)
class Guesser:
    """Adds the lecturer's likely words to a question, by the answer model: made on the
    question as asked, written in its translation's language when it has one (the library's).
    Guessed on as asked, a Portuguese question about English lectures searched better than
    guessed on its translation, which loses some of its meaning (bench/RESULTS.md)."""

    generator: Generator
    courses: tuple[str, ...]

    def __call__(self, asked: Asked) -> Asked:
        made = guess(self.generator, asked.text, asked.guess_language, self.courses)
        return replace(asked, guess=made) if made else asked
