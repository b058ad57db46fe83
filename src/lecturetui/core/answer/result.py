"""The answer to a question, as the pipeline returns it (`Answer`), and its typed record."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lecturetui.core.answer.check import Unsupported
from lecturetui.core.answer.evidence import EvidenceSentence
from lecturetui.core.answer.prompting import Passage
from lecturetui.core.answer.quote import Quote
from lecturetui.core.conversation import Turn
from lecturetui.core.library import Hit
from lecturetui.core.records import (
    AnswerRecord,
    PassageRecord,
    UnsupportedRecord,
    to_json,
)
from lecturetui.core.timefmt import format_timestamp


@dataclass(slots=True)
class Answer:
    question: str
    text: str
    passages: list[Passage]  # what the prompt numbered [1]..[n]
    hits: list[Hit]
    cited: list[int]
    stopped: bool = False
    # "model": the model wrote the [n]; "similarity": it wrote none, and each sentence was given
    # the passage most similar to it (E5 cosine >= ATTRIBUTION_THRESHOLD); "none": neither
    citation_source: str = "none"
    timings: dict[str, float] = field(default_factory=dict)
    evidence: list[EvidenceSentence] = field(default_factory=list)
    turn: Turn | None = None
    trimmed: bool = False  # passages cut down to their best sentences to meet the time budget
    translation: str | None = None  # the question as searched (Retrieved.translation)
    guess: str | None = None  # the lecturer's likely words searched with it (Retrieved.guess)
    quote: Quote | None = None  # the lecturer's sentences `text` opens with
    explanation: str = ""  # the model's part of `text`, its citations checked
    abstained: bool = False  # the lectures do not cover the question: no model ran
    unsupported: tuple[Unsupported, ...] = ()  # explanation sentences no excerpt bears out
    #: the quoted moment is in doubt (core/answer/verdict.py): `moments` are the two shown, and
    #: no explanation was written
    unsure: bool = False
    moments: tuple[Quote, ...] = ()

    @property
    def citations(self) -> list[Passage]:
        return [self.passages[n - 1] for n in self.cited]

    def record(self) -> AnswerRecord:
        turn = self.turn
        return AnswerRecord(
            question=self.question,
            answer=self.text,
            stopped=self.stopped,
            citation_source=self.citation_source,
            citations=tuple(passage_record(p) for p in self.citations),
            evidence=tuple(e.record() for e in self.evidence),
            passages=tuple(passage_record(p) for p in self.passages),
            trimmed=self.trimmed,
            hits=tuple(h.record() for h in self.hits),
            timings=dict(self.timings),
            thread=turn.thread_id if turn else None,
            follow_up=turn.follow_up if turn else False,
            previous_entry=turn.previous.entry_id if turn and turn.previous else None,
            search_text=turn.search_text if turn else None,
            translation=self.translation,
            guess=self.guess,
            quote=self.quote.record() if self.quote else None,
            explanation=self.explanation,
            abstained=self.abstained,
            unsupported=tuple(UnsupportedRecord(u.sentence, u.missing) for u in self.unsupported),
            unsure=self.unsure,
            moments=tuple(m.record() for m in self.moments),
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = to_json(self.record())
        return data


def passage_record(p: Passage) -> PassageRecord:
    first = p.hits[0] if p.hits else None
    return PassageRecord(
        number=p.number,
        lecture=p.lecture_id,
        lecture_title=p.lecture_title,
        course=first.lecture.course if first else None,
        start_s=p.start,
        end_s=p.end,
        start=format_timestamp(p.start),
        end=format_timestamp(p.end),
        score=p.score,
        text=p.text,
        url=p.url,
        segment_ids=tuple(p.segment_ids),
        corpus_ids=tuple(p.corpus_ids),
    )
