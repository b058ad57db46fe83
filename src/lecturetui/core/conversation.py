"""Threads of questions: a follow-up ("e por quê?", "give an example") continues the last exchange.

A thread is the id of its first history entry (core/storage/history.py). A follow-up is searched with the
previous question's search text joined to it, and its prompt carries the last exchange.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: how much of the previous search text a follow-up keeps (a chain of follow-ups stays short)
CARRIED_WORDS = 40

_STARTS = (
    # Portuguese
    "e",
    "mas",
    "então",
    "entao",
    "porquê",
    "porque",
    "por quê",
    "por que",
    "como assim",
    "tipo",
    "dá um exemplo",
    "da um exemplo",
    "me dá",
    "exemplo",
    "mais",
    "explique melhor",
    "quer dizer",
    "ou seja",
    "e se",
    "também",
    "tambem",
    # English
    "and",
    "but",
    "so",
    "why",
    "how so",
    "what about",
    "give an example",
    "example",
    "more",
    "tell me more",
    "explain",
    "then",
    "also",
    "what else",
)
_ANAPHORA = frozenset(
    {
        "isso",
        "isto",
        "disso",
        "nisso",
        "desse",
        "dessa",
        "deste",
        "desta",
        "nesse",
        "nessa",
        "esse",
        "essa",
        "este",
        "esta",
        "estes",
        "estas",
        "esses",
        "essas",
        "ele",
        "ela",
        "eles",
        "elas",
        "dele",
        "dela",
        "deles",
        "delas",
        "aquilo",
        "daquilo",
        "aquele",
        "aquela",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "they",
        "them",
        "their",
        "there",
    }
)
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class Exchange:
    """A question answered before, as kept in the library's history."""

    entry_id: int
    thread_id: int
    question: str
    answer: str
    search_text: str  # what was searched for it (a follow-up's includes its predecessor's)


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    entry_id: int
    asked_at: str
    question: str
    thread_id: int
    follow_up: bool


@dataclass(frozen=True, slots=True)
class Turn:
    """How a question is asked: alone, or continuing `previous`."""

    question: str
    search_text: str
    previous: Exchange | None = None  # set for a follow-up: its prompt carries this exchange
    thread_id: int | None = None  # the thread the question joins (None: it starts one)

    @property
    def follow_up(self) -> bool:
        return self.previous is not None


def looks_like_follow_up(question: str) -> bool:
    """A short question, or one that starts like a continuation or points back (isso, that…).

    A self-contained question in the same thread is searched on its own: joining the previous
    question to it would only pull its results towards the old subject.
    """
    text = question.strip().lower()
    words = _WORD.findall(text)
    if len(words) <= 3:
        return True
    if len(words) > 12:
        return False
    starts = any(text == s or re.match(rf"{re.escape(s)}\b", text) for s in _STARTS)
    return starts or any(w in _ANAPHORA for w in words)


def make_turn(question: str, previous: Exchange | None, force: bool = False) -> Turn:
    """The turn for `question` after `previous` (None: a new thread).

    With `force` (ask --continue) it is a follow-up whatever it looks like; else only when
    `looks_like_follow_up`. A question that is not a follow-up starts a thread of its own.
    """
    question = question.strip()
    if previous is None or not (force or looks_like_follow_up(question)):
        return Turn(question, question)
    carried = " ".join(previous.search_text.split()[-CARRIED_WORDS:])
    return Turn(question, f"{carried} {question}", previous, previous.thread_id)
