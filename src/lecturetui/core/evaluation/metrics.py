"""Retrieval and agreement metrics, on plain lists so they are easy to check by hand.

Recall@k here is the share of questions with at least one gold segment in the top k (a "hit
rate", the usual reading for question answering, where one answering segment is enough).
nDCG@k uses binary relevance and the ideal ranking of every gold segment in the library.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Span:
    lecture: str
    start: float
    end: float


@dataclass(frozen=True, slots=True)
class Gold:
    """Where a question's answer is: corpus ids and/or time spans of lectures."""

    corpus_ids: frozenset[int] = frozenset()
    spans: tuple[Span, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.corpus_ids or self.spans)

    def matches(
        self, corpus_id: int | None, lecture_names: Sequence[str], start: float, end: float
    ) -> bool:
        """A segment is gold when its corpus id is, or it overlaps a gold span of its lecture."""
        if corpus_id is not None and corpus_id in self.corpus_ids:
            return True
        names = {n.casefold() for n in lecture_names}
        return any(
            s.lecture.casefold() in names and start < s.end and end > s.start for s in self.spans
        )


def recall_at(relevant: Sequence[bool], k: int) -> float:
    return 1.0 if any(relevant[:k]) else 0.0


def reciprocal_rank(relevant: Sequence[bool]) -> float:
    for i, rel in enumerate(relevant):
        if rel:
            return 1.0 / (i + 1)
    return 0.0


def ndcg_at(relevant: Sequence[bool], k: int, n_relevant: int) -> float:
    """Binary nDCG@k; `n_relevant` is how many gold segments the library holds."""
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(n_relevant, k)))
    if ideal == 0:
        return 0.0
    dcg = sum(1.0 / math.log2(i + 2) for i, rel in enumerate(relevant[:k]) if rel)
    return dcg / ideal


def overlap_at(ours: Sequence[int], reference: Sequence[int], k: int) -> int:
    """How many of the reference's top k are in our top k."""
    return len(set(ours[:k]) & set(reference[:k]))


@dataclass(slots=True)
class RetrievalScores:
    """Means over the questions that have gold evidence."""

    n: int = 0
    sums: dict[str, float] = field(default_factory=dict)

    KEYS = ("recall@1", "recall@5", "recall@10", "mrr", "ndcg@10")

    def add(self, relevant: Sequence[bool], n_relevant: int) -> dict[str, float]:
        """Score one question's ranking (gold or not, best first) and count it in."""
        row = {
            "recall@1": recall_at(relevant, 1),
            "recall@5": recall_at(relevant, 5),
            "recall@10": recall_at(relevant, 10),
            "mrr": reciprocal_rank(relevant),
            "ndcg@10": ndcg_at(relevant, 10, n_relevant),
        }
        self.add_row(row)
        return row

    def add_row(self, row: Mapping[str, float]) -> None:
        """Count in one question's metrics, as `add` returned them."""
        self.n += 1
        for key in self.KEYS:
            self.sums[key] = self.sums.get(key, 0.0) + float(row.get(key, 0.0))

    def means(self) -> dict[str, float]:
        return {key: self.sums.get(key, 0.0) / self.n for key in self.KEYS} if self.n else {}


def percent_agreement(a: Sequence[str], b: Sequence[str]) -> float:
    if len(a) != len(b) or not a:
        raise ValueError("agreement needs two equally long, non-empty label lists")
    return sum(x == y for x, y in zip(a, b, strict=True)) / len(a)


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float:
    """Cohen's kappa of two raters' labels; 1.0 when both agree and use a single label."""
    observed = percent_agreement(a, b)
    n = len(a)
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[label] * cb[label] for label in set(ca) | set(cb)) / (n * n)
    if expected >= 1.0:
        return 1.0 if observed >= 1.0 else 0.0
    return (observed - expected) / (1.0 - expected)
