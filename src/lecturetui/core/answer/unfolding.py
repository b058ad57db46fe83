"""An answer as it unfolds, gathered for the faces (the command line reaches the answer's part of
the core through here): what the pipeline reports as it goes (events.py), the passages found
(found.py), the answer itself (result.py), and the turn a question makes in a conversation
(core/conversation.py)."""

from __future__ import annotations

from lecturetui.core.answer.events import Doubted, EvidenceReady, Token, opening
from lecturetui.core.answer.found import Retrieved
from lecturetui.core.answer.result import Answer
from lecturetui.core.conversation import make_turn

__all__ = ["Answer", "Doubted", "EvidenceReady", "Retrieved", "Token", "make_turn", "opening"]
