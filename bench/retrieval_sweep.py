"""Compare fusion methods on a question set with gold evidence (how the default was chosen).

    .venv/bin/python bench/retrieval_sweep.py [QUESTIONS.jsonl] [--home DIR]

Builds a library from the demo corpus in a temporary home (or uses --home), takes each
question's full dense and lexical rankings once, and scores every fusion variant on them.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from _common import ROOT, demo_library

from lecturetui.core.evaluation.metrics import RetrievalScores
from lecturetui.core.evaluation.questions import load_questions
from lecturetui.core.evaluation.retrieval_scores import gold_count
from lecturetui.core.language import language_code
from lecturetui.core.retrieval.fusion import Fused, FusionConfig, fuse, ranks_of

Ranker = Callable[[list[tuple[int, float]], list[tuple[int, float]], bool], list[int]]


def rrf(rankings: dict[str, list[int]], weights: dict[str, float], k: float = 60.0) -> list[Fused]:
    """Weighted reciprocal rank fusion (Cormack et al. 2009), which the product's convex
    fusion replaced; ties keep the order in which segments were first seen."""
    ranks = ranks_of(rankings)
    scores = {
        seg: sum(weights.get(name, 1.0) / (k + r) for name, r in by.items())
        for seg, by in ranks.items()
    }
    return [Fused(s, scores[s], ranks[s]) for s in sorted(scores, key=lambda s: -scores[s])]


def variants() -> dict[str, Ranker]:
    out: dict[str, Ranker] = {
        "dense": lambda d, lx, same: [i for i, _ in d],
        "lexical": lambda d, lx, same: [i for i, _ in lx],
    }
    for k in (5, 20, 60):
        for wd, wl in ((1, 1), (1.5, 1), (2, 1), (1, 1.5)):
            out[f"rrf k={k} w={wd}/{wl}"] = lambda d, lx, same, k=k, wd=wd, wl=wl: [
                f.segment_id
                for f in rrf(
                    {"dense": [i for i, _ in d], "lexical": [i for i, _ in lx]},
                    {"dense": wd, "lexical": wl},
                    k,
                )
            ]
    for alpha in (0.3, 0.5, 0.6, 0.7, 0.8):
        out[f"convex a={alpha}"] = lambda d, lx, same, a=alpha: [
            f.segment_id for f in fuse(d, lx, FusionConfig(alpha=a, other_language_alpha=a))
        ]
    for same_a, cross_a in ((0.5, 0.9), (0.6, 0.9), (0.7, 0.9), (0.6, 1.0), (0.7, 1.0)):
        out[f"convex a={same_a}, question in another language a={cross_a}"] = (
            lambda d, lx, same, sa=same_a, ca=cross_a: [
                f.segment_id
                for f in fuse(d, lx, FusionConfig(alpha=sa, other_language_alpha=ca), same)
            ]
        )
    return out


def neighbour_variants(spans: dict[int, tuple[str, float, float]]) -> dict[str, Ranker]:
    """Language-aware convex fusion, plus gamma x the best fused score of an overlapping window
    of the same lecture (a segment whose neighbour also matches is likelier to hold the answer)."""

    def overlapping(a: int, b: int) -> bool:
        la, sa, ea = spans[a]
        lb, sb, eb = spans[b]
        return a != b and la == lb and sa < eb and sb < ea

    out: dict[str, Ranker] = {}
    for gamma in (0.1, 0.2, 0.3):

        def ranker(d: list[tuple[int, float]], lx: list[tuple[int, float]], same: bool,
                   g: float = gamma) -> list[int]:  # fmt: skip
            fused = {f.segment_id: f.score for f in fuse(d, lx, FusionConfig(), same)}
            boosted = {
                s: v + g * max((fused[n] for n in fused if overlapping(s, n)), default=0.0)
                for s, v in fused.items()
            }
            return sorted(boosted, key=lambda s: -boosted[s])

        out[f"default + neighbour boost {gamma}"] = ranker
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("questions", nargs="?", default=ROOT / "bench" / "data" / "retrieval_dev.jsonl")
    ap.add_argument("--home")
    args = ap.parse_args()
    qset = load_questions(Path(args.questions))
    library, _tmp = demo_library(args.home)
    library.warm()
    index = library.index()
    assert index is not None
    n = index.count
    runs = []
    for q in qset.questions:
        vec = library.embedder.embed_query(q.question)
        dense = index.search(vec, n, exact=True)
        lexical = library.store.lexical_search(q.question, n)
        segs = library.store.segments_by_id([i for i, _ in dense])
        lect = {s.lecture_id: library.store.lecture(s.lecture_id) for s in segs.values()}
        gold = {
            i
            for i, s in segs.items()
            if q.gold.matches(s.corpus_id, [s.lecture_id, lect[s.lecture_id].title], s.start, s.end)  # type: ignore[union-attr]
        }
        same = language_code(q.question) in library.store.languages()
        runs.append((dense, lexical, gold, gold_count(library, q.gold), same))
    every = library.store.segments_by_id(library.store.all_segment_ids())
    spans = {i: (s.lecture_id, s.start, s.end) for i, s in every.items()}
    rows = []
    for name, ranker in {**variants(), **neighbour_variants(spans)}.items():
        scores = RetrievalScores()
        for dense, lexical, gold, n_gold, same in runs:
            ranking = ranker(dense, lexical, same)[:10]
            scores.add([i in gold for i in ranking], n_gold)
        rows.append((name, scores.means()))
    keys = RetrievalScores.KEYS
    print(f"{len(runs)} questions, {n} segments")
    print(f"| method | {' | '.join(keys)} |")
    print("|---|" + "---|" * len(keys))
    for name, m in rows:
        print(f"| {name} | " + " | ".join(f"{m[k]:.3f}" for k in keys) + " |")


if __name__ == "__main__":
    main()
