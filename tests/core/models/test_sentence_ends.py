"""The sentence-end model's reading and decoding (core/models/sentence_ends.py), with a stand-in
encoder: the real model's findings are in tests/core/models/test_sentence_ends_real.py."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from lecturetui.core.models import sentence_ends as sm


@given(st.lists(st.integers(1, 12), min_size=1, max_size=900))
def test_chunks_judge_every_word_once_and_stay_under_the_token_limit(sizes: list[int]) -> None:
    pieces = [[7] * n for n in sizes]
    cut = sm.chunks(pieces)
    judged = [c.first_word + i for c in cut for i in c.judged]
    assert judged == list(range(len(sizes)))
    assert all(len(c.ids) <= sm.MAX_TOKENS for c in cut)
    for c in cut:
        assert c.ids[0] == sm.BOS and c.ids[-1] == sm.EOS
        # each word's last piece comes before the next word's first
        assert all(a < b for a, b in zip(c.last, c.after, strict=True))


@given(st.lists(st.floats(0.0, 1.0), max_size=300), st.floats(0.05, 0.95), st.integers(1, 4))
def test_decoded_ends_pass_the_threshold_and_leave_no_sentence_too_short(
    p: list[float], threshold: float, shortest: int
) -> None:
    probs = np.asarray(p, dtype=np.float32)
    ends = sm.decode(probs, threshold, shortest)
    assert ends == sorted(set(ends))
    assert all(probs[e] >= threshold for e in ends)
    if ends:  # every sentence, the last one too, has `shortest` words at least
        bounds = [-1, *ends, len(p) - 1]
        assert all(b - a >= shortest for a, b in itertools.pairwise(bounds))


def _stand_in(ends: set[str]) -> sm.SentenceModel:
    """A model whose encoder marks a piece with 1.0 in its first dimension where its word is
    one of `ends` (here a word ends a sentence by what it is)."""
    vocab: dict[str, int] = {}

    def pieces(words: Sequence[str]) -> list[list[int]]:
        return [[vocab.setdefault(w, 10 + len(vocab))] for w in words]

    def states(rows: Sequence[Sequence[int]]) -> list[sm.Floats]:
        marked = {i for w, i in vocab.items() if w in ends}
        out = []
        for row in rows:
            s = np.zeros((len(row), 4), dtype=np.float32)
            s[:, 0] = [1.0 if i in marked else 0.0 for i in row]
            out.append(s)
        return out

    weights = np.asarray([8.0, 0, 0, 0, 0, 0, 0, 0], dtype=np.float32)
    return sm.SentenceModel(states, pieces, sm.Head(weights, -4.0, 0.5))


def test_the_head_reads_each_word_in_its_context_across_chunks() -> None:
    words = (["a", "gente", "calcula", "isso", "aqui", "fim"] * 120)[:700]
    model = _stand_in({"fim"})
    inside = range(sm.SHORTEST - 1, len(words) - sm.SHORTEST)
    assert model.ends(words) == [i for i in inside if words[i] == "fim"]
    assert model.ends([]) == []
    # punctuation and case are not read: "FIM." is "fim"
    assert model.ends(["a", "b", "c", "FIM.", "d", "e", "f"]) == [3]
