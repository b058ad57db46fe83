"""Score fusion on hand-computed cases."""

from __future__ import annotations

import pytest

from lecturetui.core.retrieval.fusion import FusionConfig, convex, fuse, minmax


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
