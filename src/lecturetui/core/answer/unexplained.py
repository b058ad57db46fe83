"""The answers no model writes: a refusal (core/answer/verdict.py's Refuse), and two moments in
doubt (Unsure): both moments, no explanation.

The refusal is one sentence in the question's language, the closest moments listed below it.
An explanation written from the wrong moment reads as confidently as a right one; when the
first two moments stay too close to tell apart, the answer says so in one line (in the
question's language) and quotes both, each with its lecture and time, cited [1] and [2]. The
explanation is withheld: the student opens the moment that answers (and no model time is
spent on an explanation that may explain the wrong thing).
"""

from __future__ import annotations

from lecturetui.core.answer.found import Retrieved
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


def cited_quote(quote: Quote, number: int) -> str:
    """One moment as the answer quotes it: the lecturer's words, lecture and time, [n]."""
    return f"“{quote.text}” ({quote.lecture_title}, {format_timestamp(quote.start)}) [{number}]"


def unsure_opening(language: str | None, first: Quote, other: Quote) -> str:
    return f"{unsure_line(language)}\n\n{cited_quote(first, 1)}\n\n{cited_quote(other, 2)}\n\n"


def unsure_answer(found: Retrieved) -> Answer:
    """The answer for a moment in doubt: the line, both moments; no model ran for it."""
    pair = found.moments
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


_NOT_COVERED = {
    "Portuguese": "As aulas não parecem tratar desta pergunta: os momentos mais próximos estão"
    " abaixo.",
    "Spanish": "Las clases no parecen tratar esta pregunta: los momentos más cercanos están abajo.",
}
_NOT_COVERED_EN = "The lectures do not seem to cover this question: the closest moments are below."


def not_covered(language: str | None) -> str:
    """The refusal in the question's language (by name, `Retrieved.language`)."""
    return _NOT_COVERED.get(language or "", _NOT_COVERED_EN)


def abstention(found: Retrieved) -> Answer:
    """The answer when the lectures do not cover the question: one sentence, no model."""
    turn = found.turn
    return Answer(
        question=turn.question,
        text=not_covered(found.language),
        passages=[],
        hits=found.hits,
        cited=[],
        timings=found.timings_without_model(),
        evidence=found.evidence,
        turn=turn,
        translation=found.translation,
        guess=found.guess,
        abstained=True,
    )
