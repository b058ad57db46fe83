"""The events of one question (core/answer/question.py's `answer_question`), as every face reads
them, and the opening the answer shows before the model writes: the quote, or both moments
when it is in doubt (core/answer/verdict.py).

    Started -> EvidenceReady -> PromptReady -> Token ... -> Answered     (or Failed, at any point)
    Started -> EvidenceReady [-> Doubted] -> Answered    (abstained, or two moments in doubt)
"""

from __future__ import annotations

from dataclasses import dataclass

from lecturetui.core.answer.found import Retrieved
from lecturetui.core.answer.prompting import Passage
from lecturetui.core.answer.quote import Quote
from lecturetui.core.answer.result import Answer, passage_record
from lecturetui.core.answer.unexplained import also_line, cited_quote, unsure_opening
from lecturetui.core.library import Hit
from lecturetui.core.records import (
    AnswerRecord,
    FoundRecord,
    HitRecord,
    PassageRecord,
    QuoteRecord,
)
from lecturetui.core.requests.words import Failed, Started


@dataclass(frozen=True, slots=True)
class EvidenceReady:
    """Hits and evidence sentences, before the model writes anything."""

    found: Retrieved

    def record(self) -> FoundRecord:
        """What was found, as the faces show it (typed records)."""
        f = self.found
        return FoundRecord(
            hits=tuple(h.record() for h in f.hits),
            evidence=tuple(e.record() for e in f.evidence),
            quote=f.quote.record() if f.quote else None,
            opening=opening(f),
            search_s=f.evidence_s,
            follows=f.turn.previous.question if f.turn.previous is not None else None,
            translation=f.translation,
            guess=f.guess,
            covered=f.covered,
            unsure=f.moments is not None,
            moments=moments(f),
            checking=f.checking,
        )


@dataclass(frozen=True, slots=True)
class Doubted:
    """The answer model found the quoted moment in doubt once the quote was on screen (a CPU's
    read, core/answer/verdict.py): the other moment is shown beside it and nothing is explained;
    Answered follows at once. `shown` False: nothing was quoted yet (a question just under the
    coverage threshold, which the model found answered by one of its two best moments)."""

    found: Retrieved
    shown: bool = True

    def record(self) -> FoundRecord:
        return EvidenceReady(self.found).record()

    def addition(self) -> str:
        """What to show after what is on screen: one line, then the other moment (or, when
        nothing was quoted yet, both moments)."""
        if not self.shown:
            return opening(self.found)
        pair = self.found.moments
        assert pair is not None
        return f"{also_line(self.found.language)}\n\n{cited_quote(pair[1], 2)}\n\n"


@dataclass(frozen=True, slots=True)
class PromptReady:
    """The passages the prompt numbers [1]..[n] (the hits they came from beside them)."""

    hits: list[Hit]
    passages: list[Passage]

    def records(self) -> tuple[list[HitRecord], list[PassageRecord]]:
        return [h.record() for h in self.hits], [passage_record(p) for p in self.passages]


@dataclass(frozen=True, slots=True)
class Token:
    """A piece of the model's explanation as it wrote it (the pieces joined are the explanation
    before its citations are checked; the answer opens with the quote, `quote_block`, which the
    faces show at EvidenceReady)."""

    text: str


@dataclass(frozen=True, slots=True)
class Answered:
    """The whole answer, its record, and its history entry (None when not kept)."""

    answer: Answer
    record: AnswerRecord
    entry_id: int | None


Event = Started | EvidenceReady | Doubted | PromptReady | Token | Answered | Failed


def opening(found: Retrieved) -> str:
    """What the answer opens with: the quote, or both moments when it is in doubt."""
    pair = found.moments
    if pair is not None:
        return unsure_opening(found.language, *pair)
    return quote_block(found.quote)


def moments(found: Retrieved) -> tuple[QuoteRecord, ...]:
    return tuple(m.record() for m in found.moments or ())


def quote_block(quote: Quote | None) -> str:
    """The answer's opening: the lecturer's sentences in quotes, with lecture and time, [1]."""
    return f"{cited_quote(quote, 1)}\n\n" if quote is not None else ""
