"""The answer when the quoted moment is in doubt (core/answer/doubt.py): both moments, no
explanation.

An explanation written from the wrong moment reads as confidently as a right one; when the
first two moments stay too close to tell apart, the answer says so in one line (in the
question's language) and quotes both, each with its lecture and time, cited [1] and [2]. The
explanation is withheld: the student opens the moment that answers (and no model time is
spent on an explanation that may explain the wrong thing).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import cast

from lecturetui.core.answer.doubt import (
    NEAR_YES,
    Doubt,
    YesModel,
    check_wanted,
    margin,
    model_check,
    settle,
)
from lecturetui.core.answer.found import Retrieved
from lecturetui.core.answer.generation import Generator
from lecturetui.core.answer.quote import Quote
from lecturetui.core.answer.result import Answer
from lecturetui.core.timefmt import format_timestamp

_UNSURE = {
    "Portuguese": "Não tenho certeza de qual destes dois momentos responde à pergunta; confira"
    " os dois:",
    "Spanish": "No estoy seguro de cuál de estos dos momentos responde la pregunta; revisa"
    " los dos:",
}
_UNSURE_EN = "I am not sure which of these two moments answers the question; check both:"
# said after the first moment when the doubt is found once it is on screen (a CPU's check)
_ALSO = {
    "Portuguese": "Não tenho certeza de que este momento responde à pergunta; este outro está"
    " quase empatado, confira os dois:",
    "Spanish": "No estoy seguro de que este momento responda la pregunta; este otro está casi"
    " empatado, revisa los dos:",
}
_ALSO_EN = "I am not sure this moment answers the question; this other one is about as close:"


def unsure_line(language: str | None) -> str:
    """The doubt's line in the question's language (by name, `Retrieved.language`)."""
    return _UNSURE.get(language or "", _UNSURE_EN)


def also_line(language: str | None) -> str:
    return _ALSO.get(language or "", _ALSO_EN)


def quoted(quote: Quote, number: int) -> str:
    """One moment as the answer quotes it: the lecturer's words, lecture and time, [n]."""
    return f"“{quote.text}” ({quote.lecture_title}, {format_timestamp(quote.start)}) [{number}]"


def unsure_opening(language: str | None, first: Quote, other: Quote) -> str:
    return f"{unsure_line(language)}\n\n{quoted(first, 1)}\n\n{quoted(other, 2)}\n\n"


def both(found: Retrieved) -> tuple[Quote, Quote] | None:
    """The two moments an answer in doubt shows (None when it is not in doubt)."""
    d = found.doubt
    if d.unsure and found.quote is not None and d.other is not None:
        return found.quote, d.other
    return None


def can_check(model: Generator | None) -> bool:
    """Whether this model settles doubts (it reads logits, and the check is not turned off)."""
    return isinstance(model, YesModel) and check_wanted()


def settled(found: Retrieved, model: Generator | None) -> Retrieved:
    """`found` with the doubt `retrieve` saw settled (doubt.settle): by the answer model when
    it can check (`can_check`), else by the margin alone; `check_s` is the time it took."""
    pair, gap = both(found), found.doubt.margin
    if pair is None or gap is None:
        return found
    t0 = time.perf_counter()
    check = model_check(cast(YesModel, model)) if can_check(model) else None
    doubt = settle(found.turn.search_text, *pair, gap, check)
    return replace(found, doubt=doubt, check_s=time.perf_counter() - t0)


def rescued(found: Retrieved, model: Generator | None) -> Retrieved:
    """A question refused just under the coverage threshold (`found.near`), once the answer
    model has read its two best moments: covered and unsure, both moments shown, when it finds
    either likely to answer (doubt.NEAR_YES); refused as before otherwise, or when the model
    cannot check."""
    if found.near is None:
        return found
    if not can_check(model):
        return replace(found, near=None)
    t0 = time.perf_counter()
    check = model_check(cast(YesModel, model))
    first, second = found.near
    likely = (check(found.turn.search_text, first), check(found.turn.search_text, second))
    spent = time.perf_counter() - t0
    if max(likely) < NEAR_YES:
        return replace(found, near=None, check_s=spent)
    doubt = Doubt(True, margin(found.passages), second, likely)
    return replace(found, near=None, covered=True, quote=first, doubt=doubt, check_s=spent)


def unsure_answer(found: Retrieved) -> Answer:
    """The answer for a moment in doubt: the line, both moments; no model ran for it."""
    pair = both(found)
    assert pair is not None
    turn = found.turn
    text = unsure_opening(found.language, *pair).rstrip()
    return Answer(
        question=turn.question,
        text=text,
        passages=found.passages[:2],
        hits=found.hits,
        cited=[1, 2],
        timings=found.timings_without_model(),
        evidence=found.evidence,
        turn=turn,
        translation=found.translation,
        guess=found.guess,
        quote=found.quote,
        unsure=True,
        moments=pair,
    )
