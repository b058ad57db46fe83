"""Score fusion on hand-computed cases."""

from __future__ import annotations

import pytest

from lecturetui.core.fusion import FusionConfig, convex, fuse, minmax, rrf


def test_rrf_sums_reciprocal_ranks() -> None:
    fused = rrf({"a": [1, 2, 3], "b": [3, 4]}, {"a": 1.0, "b": 1.0}, k=1.0)
    scores = {f.segment_id: f.score for f in fused}
    assert scores[3] == pytest.approx(1 / 4 + 1 / 2)  # rank 3 in a, rank 1 in b
    assert scores[1] == pytest.approx(1 / 2)
    assert scores[4] == pytest.approx(1 / 3)
    assert [f.segment_id for f in fused] == [3, 1, 2, 4]  # 2 and 4 tie: first seen first
    assert dict(fused[0].ranks) == {"a": 3, "b": 1}


def test_rrf_weights_tilt_the_fusion() -> None:
    dense, lexical = [(10, 0.9), (20, 0.8)], [(20, 5.0), (10, 1.0)]
    heavy_dense = FusionConfig(method="rrf", weights={"dense": 2.0, "lexical": 1.0})
    heavy_lexical = FusionConfig(method="rrf", weights={"dense": 1.0, "lexical": 2.0})
    assert fuse(dense, lexical, heavy_dense)[0].segment_id == 10
    assert fuse(dense, lexical, heavy_lexical)[0].segment_id == 20


def test_minmax_scales_to_unit_range() -> None:
    assert minmax([(1, 2.0), (2, 4.0), (3, 3.0)]) == {1: 0.0, 2: 1.0, 3: 0.5}
    assert minmax([(1, 7.0)]) == {1: 1.0}
    assert minmax([]) == {}


def test_convex_combination_by_hand() -> None:
    dense = [(1, 0.90), (2, 0.85), (3, 0.80)]  # scaled: 1.0, 0.5, 0.0
    lexical = [(3, 12.0), (4, 6.0), (2, 0.0)]  # scaled: 1.0, 0.5, 0.0
    fused = {f.segment_id: f.score for f in convex(dense, lexical, alpha=0.7)}
    assert fused[1] == pytest.approx(0.7)
    assert fused[2] == pytest.approx(0.35)
    assert fused[3] == pytest.approx(0.3)
    assert fused[4] == pytest.approx(0.15)  # found by BM25 only
    order = [f.segment_id for f in fuse(dense, lexical, FusionConfig(alpha=0.7))]
    assert order == [1, 2, 3, 4]
    # the default alpha 0.6: 1 -> 0.6, 3 -> 0.4, 2 -> 0.3, 4 -> 0.2
    assert [f.segment_id for f in fuse(dense, lexical, FusionConfig())] == [1, 3, 2, 4]
    assert next(f.segment_id for f in fuse(dense, lexical, FusionConfig(alpha=0.2))) == 3


def test_a_question_in_another_language_leans_on_the_dense_ranking() -> None:
    dense = [(1, 0.90), (2, 0.80)]
    lexical = [(2, 9.0), (1, 1.0)]
    config = FusionConfig(alpha=0.3, other_language_alpha=0.9)
    assert fuse(dense, lexical, config, same_language=True)[0].segment_id == 2
    assert fuse(dense, lexical, config, same_language=False)[0].segment_id == 1
