"""Asking the library, gathered for the faces (the command line reaches these parts of the core
through here): the models' session a command asks through (core/session.py; the answer model's
server, core/llm/server.py, as a type), a question's options and scope, what a search finds
(core/retrieval/), the guess's plan (core/answer/guess.py), and a loaded embedder's runtime,
which the doctor reports.

An answer as it unfolds is core/answer/unfolding.py's; the front door itself
(core/requests/door.py), its words and its kinds of request are imported from their own
modules. What a one-shot command (`search`, `lectures`) imports with this module, it loads
anyway: nothing here is only an answer's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lecturetui.core.answer.guess import guess_planned
from lecturetui.core.models.embedding import Embedder
from lecturetui.core.models.placement import runtime_of
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

if TYPE_CHECKING:  # types only: the loaded answer model, in-process or a server (http.client)
    from lecturetui.core.llm.server import ServerGenerator as ServerGenerator
    from lecturetui.core.session import AnswerModel as AnswerModel

__all__ = [
    "DEFAULT_GUESS",
    "DEFAULT_MODE",
    "DEFAULT_TTFT_S",
    "GUESS_SETTINGS",
    "MODES",
    "AnswerChoice",
    "Embedder",
    "Hit",
    "ModelSession",
    "Scope",
    "connect_server",
    "guess_planned",
    "read_instructions",
    "retriever_tag",
    "runtime_of",
]
