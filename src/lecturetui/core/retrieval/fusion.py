"""Fusing the dense (E5 cosine) and lexical (BM25) rankings into one.

The default is a convex combination of the two scores after min-max normalisation over each
retriever's candidates: alpha * cosine' + (1 - alpha) * bm25', a segment missing from one list
getting 0 there. alpha is 0.6 when the question is in a language of the library and 0.9 when it
is not (an English question about Portuguese lectures shares few words with them, so BM25 mostly
adds noise). On the development set in bench/ this beat either retriever alone, one alpha for
all questions, and reciprocal rank fusion (RRF, Cormack et al. 2009) on every metric
(bench/RESULTS.md), in line with Bruch et al. (2023), who found a tuned convex combination better
than RRF (the sweep is in bench/RESULTS.md, "Retrieval quality: dense, lexical, hybrid").
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

#: how deep each retriever's ranking goes into the fusion
CANDIDATES = 50


@dataclass(frozen=True, slots=True)
class FusionConfig:
    alpha: float = 0.6  # weight of the dense score
    other_language_alpha: float = 0.9  # ... when the question is in none of the library's languages

    def describe(self) -> str:
        return f"convex alpha={self.alpha:g} (other language {self.other_language_alpha:g})"


@dataclass(frozen=True, slots=True)
class Fused:
    segment_id: int
    score: float
    ranks: Mapping[str, int]  # retriever -> 1-based rank in its own list


def retriever_tag(retrievers: Collection[str]) -> str:
    """`EB`, `E-` or `-B`: found by E5 (dense) and/or BM25 (lexical); `G` after them when
    EmbeddingGemma re-scored it (`EBG`)."""
    tag = ("E" if "dense" in retrievers else "-") + ("B" if "lexical" in retrievers else "-")
    return tag + ("G" if "rerank" in retrievers else "")


def ranks_of(rankings: Mapping[str, Sequence[int]]) -> dict[int, dict[str, int]]:
    ranks: dict[int, dict[str, int]] = {}
    for name, ids in rankings.items():
        for rank, seg in enumerate(ids, 1):
            ranks.setdefault(seg, {})[name] = rank
    return ranks


def minmax(pairs: Sequence[tuple[int, float]]) -> dict[int, float]:
    """Scores scaled to [0, 1] over the list (all equal -> all 1)."""
    if not pairs:
        return {}
    values = [s for _, s in pairs]
    lo, hi = min(values), max(values)
    return {i: (s - lo) / (hi - lo) if hi > lo else 1.0 for i, s in pairs}


def convex(
    dense: Sequence[tuple[int, float]], lexical: Sequence[tuple[int, float]], alpha: float
) -> list[Fused]:
    nd, nl = minmax(dense), minmax(lexical)
    ranks = ranks_of({"dense": [i for i, _ in dense], "lexical": [i for i, _ in lexical]})
    scores = {seg: alpha * nd.get(seg, 0.0) + (1 - alpha) * nl.get(seg, 0.0) for seg in ranks}
    return [Fused(s, scores[s], ranks[s]) for s in sorted(scores, key=lambda s: -scores[s])]


def fuse(
    dense: Sequence[tuple[int, float]],
    lexical: Sequence[tuple[int, float]],
    config: FusionConfig,
    same_language: bool = True,
) -> list[Fused]:
    """One ranking from (segment id, score) lists, best first."""
    alpha = config.alpha if same_language else config.other_language_alpha
    return convex(dense, lexical, alpha)
