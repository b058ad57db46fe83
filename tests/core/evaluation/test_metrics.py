"""Retrieval and agreement metrics on small cases computed by hand."""

from __future__ import annotations

import math

import pytest

from lecturetui.core.evaluation.metrics import (
    Gold,
    RetrievalScores,
    Span,
    cohen_kappa,
    ndcg_at,
    overlap_at,
    percent_agreement,
    recall_at,
    reciprocal_rank,
)


def test_recall_and_reciprocal_rank() -> None:
    rel = [False, False, True, False, True]
    assert recall_at(rel, 1) == 0.0
    assert recall_at(rel, 3) == 1.0
    assert reciprocal_rank(rel) == pytest.approx(1 / 3)
    assert reciprocal_rank([False] * 10) == 0.0
    assert recall_at([], 10) == 0.0


def test_ndcg_by_hand() -> None:
    # gold at ranks 2 and 4, 2 gold segments in the library
    rel = [False, True, False, True]
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 1 / math.log2(2) + 1 / math.log2(3)
    assert ndcg_at(rel, 10, 2) == pytest.approx(dcg / ideal)
    assert ndcg_at([True, True], 10, 2) == pytest.approx(1.0)
    assert ndcg_at(rel, 1, 2) == 0.0  # nothing gold in the top 1
    assert ndcg_at(rel, 10, 0) == 0.0


def test_scores_average_over_questions() -> None:
    scores = RetrievalScores()
    scores.add([True, False], 1)
    scores.add([False, False, False, False, False, True], 1)
    means = scores.means()
    assert means["recall@1"] == 0.5
    assert means["recall@5"] == 0.5
    assert means["recall@10"] == 1.0
    assert means["mrr"] == pytest.approx((1 + 1 / 6) / 2)


def test_gold_matches_corpus_ids_or_overlapping_spans() -> None:
    gold = Gold(frozenset({7}), (Span("Aula-D", 100.0, 200.0),))
    assert gold.matches(7, ["x"], 0, 1)
    assert gold.matches(None, ["aula-d", "Aula D"], 150, 300)  # overlaps, any case
    assert not gold.matches(None, ["aula-d"], 200, 300)  # touching is not overlapping
    assert not gold.matches(8, ["aula-e"], 150, 300)
    assert not Gold()


def test_overlap_with_a_reference_ranking() -> None:
    assert overlap_at([1, 2, 3, 4], [4, 3, 9, 8], 10) == 2
    assert overlap_at([1, 2, 3, 4], [4, 3, 9, 8], 2) == 0


def test_agreement_and_kappa_by_hand() -> None:
    manual = ["C", "C", "P", "I", "C", "P"]
    auto = ["C", "P", "P", "I", "C", "C"]
    assert percent_agreement(manual, auto) == pytest.approx(4 / 6)
    # expected agreement: C 3*3 + P 2*2 + I 1*1 = 14 / 36
    pe = 14 / 36
    assert cohen_kappa(manual, auto) == pytest.approx((4 / 6 - pe) / (1 - pe))
    assert cohen_kappa(["C", "C"], ["C", "C"]) == 1.0
    assert cohen_kappa(["C", "P"], ["P", "C"]) == pytest.approx(-1.0)
    with pytest.raises(ValueError):
        percent_agreement([], [])
