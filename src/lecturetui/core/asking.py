"""Asking the library, gathered for the faces (the command line reaches these parts of the core
through here): the models' session a command asks through (core/session.py) and the answer
model's server (core/llm/server.py), a question's options, scope and conversation turn, what a
search finds (core/retrieval/) and what an answer hands back as it goes (core/answer/: its
events, the passages found, the answer itself, the guess's plan), and a loaded embedder's
runtime, which the doctor reports.

The front door itself (core/requests/door.py), its words and its kinds of request are imported
from their own modules."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lecturetui.core.answer.events import Doubted, EvidenceReady, Token, opening
from lecturetui.core.answer.found import Retrieved
from lecturetui.core.answer.guess import guess_planned
from lecturetui.core.answer.result import Answer
from lecturetui.core.conversation import make_turn
from lecturetui.core.llm.server import ServerGenerator
from lecturetui.core.models.embedding import Embedder
from lecturetui.core.models.runtime import runtime_of
from lecturetui.core.question_options import (
    DEFAULT_GUESS,
    DEFAULT_MODE,
    DEFAULT_TTFT_S,
    GUESS_SETTINGS,
    MODES,
)
from lecturetui.core.retrieval.fusion import retriever_tag
from lecturetui.core.retrieval.scope import Scope
from lecturetui.core.retrieval.search import Hit
from lecturetui.core.session import (
    AnswerChoice,
    ModelSession,
    connect_server,
    read_instructions,
)

if TYPE_CHECKING:  # a type only: the loaded answer model, in-process or a server
    from lecturetui.core.session import AnswerModel as AnswerModel

__all__ = [
    "DEFAULT_GUESS",
    "DEFAULT_MODE",
    "DEFAULT_TTFT_S",
    "GUESS_SETTINGS",
    "MODES",
    "Answer",
    "AnswerChoice",
    "Doubted",
    "Embedder",
    "EvidenceReady",
    "Hit",
    "ModelSession",
    "Retrieved",
    "Scope",
    "ServerGenerator",
    "Token",
    "connect_server",
    "guess_planned",
    "make_turn",
    "opening",
    "read_instructions",
    "retriever_tag",
    "runtime_of",
]
