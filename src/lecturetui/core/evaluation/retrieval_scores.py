"""Retrieval metrics of a library on a question set with gold evidence, per search mode."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lecturetui.core.conversation import Turn
from lecturetui.core.evaluation.metrics import Gold, RetrievalScores, overlap_at
from lecturetui.core.evaluation.questions import EvalQuestion
from lecturetui.core.library import Hit, Library
from lecturetui.core.requests.door import search_request
from lecturetui.core.requests.words import QuestionSettings
from lecturetui.core.retrieval.scope import Scope

if TYPE_CHECKING:
    from lecturetui.core.llm.model import Generator

#: the row searched as `ask` searches: hybrid, a question in another language translated and
#: the lecturer's guess added by the answer model (core/answer/translate.py, core/answer/guess.py)
WITH_MODEL = "hybrid + model"


def hit_is_gold(gold: Gold, hit: Hit) -> bool:
    seg = hit.segment
    return gold.matches(seg.corpus_id, [hit.lecture.id, hit.lecture.title], seg.start, seg.end)


def gold_count(library: Library, gold: Gold) -> int:
    """How many stored segments are gold for a question (the ideal ranking's length)."""
    ids = set(library.store.segment_ids_for_corpus_ids(sorted(gold.corpus_ids)))
    for span in gold.spans:
        for lecture in library.store.resolve_lecture(span.lecture)[:1]:
            ids.update(
                s.id
                for s in library.store.segments(lecture.id)
                if gold.matches(None, [lecture.id, lecture.title], s.start, s.end)
            )
    return len(ids)


@dataclass(slots=True)
class QuestionRetrieval:
    number: int
    mode: str
    ranking: list[int]  # corpus ids (or segment ids when there are none) of the top k
    relevant: list[bool]
    metrics: dict[str, float]
    reference_overlap: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "mode": self.mode,
            "ranking": self.ranking,
            "relevant": self.relevant,
            "metrics": self.metrics,
            "reference_overlap": self.reference_overlap,
        }


def score_hits(
    library: Library, question: EvalQuestion, hits: Sequence[Hit], mode: str
) -> QuestionRetrieval:
    relevant = [hit_is_gold(question.gold, h) for h in hits]
    ranking = [
        h.segment.corpus_id if h.segment.corpus_id is not None else h.segment.id for h in hits
    ]
    metrics: dict[str, float] = {}
    if question.gold:
        metrics = RetrievalScores().add(relevant, gold_count(library, question.gold))
    overlap = None
    if question.reference_ranking:
        overlap = overlap_at(ranking, list(question.reference_ranking), 10)
    return QuestionRetrieval(question.number, mode, ranking, relevant, metrics, overlap)


@dataclass(slots=True)
class ModeSummary:
    mode: str
    scores: RetrievalScores = field(default_factory=RetrievalScores)
    rows: list[QuestionRetrieval] = field(default_factory=list)

    def add(self, row: QuestionRetrieval) -> None:
        self.rows.append(row)
        if row.metrics:
            self.scores.add_row(row.metrics)


def evaluate_retrieval(
    library: Library,
    questions: Sequence[EvalQuestion],
    modes: Sequence[str],
    k: int = 10,
    progress: Callable[[int, int], None] | None = None,
    scope: Scope | None = None,
    generator: Generator | None = None,
    guess: str = "off",
) -> dict[str, ModeSummary]:
    """Search every question in every mode through the pipeline's retrieval half (as `ask`
    searches, core/answer/question.py); metrics need gold evidence (others are skipped). Each
    mode is searched as asked, without the model; with the answer model, a `WITH_MODEL` row too:
    the default mode with the translation and the lecturer's guess `ask` would use."""
    rows = [*modes, WITH_MODEL] if generator is not None else list(modes)
    out = {mode: ModeSummary(mode) for mode in rows}
    total = len(questions) * len(rows)
    done = 0
    for q in questions:
        turn = Turn(q.question, q.question)
        for mode in rows:
            if mode == WITH_MODEL and generator is not None:
                settings = QuestionSettings(k=max(k, 10), scope=scope, guess=guess)
                searched = search_request(library, turn, generator, settings)
            else:  # no model: no translation, no guess
                settings = QuestionSettings(k=max(k, 10), mode=mode, scope=scope, guess="off")
                searched = search_request(library, turn, None, settings)
            out[mode].add(score_hits(library, q, searched.result.hits, mode))
            done += 1
            if progress:
                progress(done, total)
    return out
