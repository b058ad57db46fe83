"""The answer model's read of a moment: how likely it finds that the lecturer's words answer the
question (`model_check`), from the logits of its reply's first token, yes or no. It reads about
450 tokens for two moments: a few hundredths of a second on a GPU, about 4 s on a 2-core CPU.
What the reads decide is core/answer/verdict.py's; `LECTURETUI_CHECK_MOMENTS=0` turns them off
(the margin alone decides then), and a model server, which gives no logits, cannot make them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from lecturetui.core.answer.quote import Quote
from lecturetui.core.timefmt import format_timestamp

#: the answer model's likelihood (0-1) that a quote answers a question
MomentCheck = Callable[[str, Quote], float]


CHECK_SYSTEM = (
    "You check whether a moment of a recorded lecture answers a student's question. "
    "Reply yes or no."
)


def check_messages(question: str, quote: Quote) -> list[dict[str, str]]:
    """The answer model's prompt for one moment (the same for every language: the question and
    the lecturer's words are as they are)."""
    user = (
        f"Question: {question}\n\n"
        f"Moment ({quote.lecture_title}, {format_timestamp(quote.start)}):\n“{quote.text}”\n\n"
        "Does this moment answer the question? Reply yes or no."
    )
    return [{"role": "system", "content": CHECK_SYSTEM}, {"role": "user", "content": user}]


@runtime_checkable
class YesModel(Protocol):
    """A model that can say how likely its reply starts with yes (LlamaGenerator; not a model
    server, which gives no logits)."""

    def yes_probability(self, messages: list[dict[str, str]]) -> float: ...


def model_check(model: YesModel) -> MomentCheck:
    """A MomentCheck by the answer model."""

    def check(question: str, quote: Quote) -> float:
        return model.yes_probability(check_messages(question, quote))

    return check


def check_wanted() -> bool:
    """Whether the answer model settles doubts (on unless LECTURETUI_CHECK_MOMENTS is off)."""
    env = os.environ.get("LECTURETUI_CHECK_MOMENTS", "").strip().lower()
    return env not in ("0", "off", "false", "no")


def checker(model: object) -> MomentCheck | None:
    """The answer model's check of a moment, when it can make one (it reads logits, and the
    check is not turned off); None otherwise."""
    if isinstance(model, YesModel) and check_wanted():
        return model_check(model)
    return None
