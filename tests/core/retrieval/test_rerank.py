"""The second stage (core/retrieval/rerank.py) around a stand-in model: scores, pending vectors, kills."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from lecturetui.core.retrieval.rerank import RerankConfig, rescore, truncate
from lecturetui.core.retrieval.vector_index import VectorIndex
from tests.conftest import ROOT, SEED_CORPUS
from tests.fakes import FakeEmbedder


def gemma_stand_in() -> FakeEmbedder:
    """A second model: another dimension and id than the E5 stand-in."""
    return FakeEmbedder(dim=48, model_id="fake-gemma")


def library(home: Path, reranker: FakeEmbedder | None = None) -> Library:
    return Library(DataHome.resolve(home), embedder=FakeEmbedder(), reranker=reranker)


def test_rescore_orders_by_the_model_and_keeps_pending_in_their_place() -> None:
    first = [(1, 9.0), (2, 8.0), (3, 7.0), (4, 6.0)]
    final = rescore(first, {1: 0.2, 2: 0.9, 4: 0.5}, weight=1.0)
    assert [seg for seg, _ in final] == [2, 4, 3, 1]  # 3 waits: it keeps its third place
    scores = [s for _, s in final]
    assert scores == sorted(scores, reverse=True)
    assert dict(final)[3] == pytest.approx(0.2)  # the third best model score
    # a share of the first stage moves a close call back
    mixed = rescore(first, {1: 0.50, 2: 0.52}, weight=0.5)
    assert mixed[0][0] == 1


def test_truncate_renormalises() -> None:
    v = np.asarray([[3.0, 4.0, 12.0]], dtype=np.float32)
    v /= np.linalg.norm(v)
    cut = truncate(v, 2)
    assert cut.shape == (1, 2) and np.allclose(np.linalg.norm(cut, axis=1), 1.0)
    assert truncate(v, None) is v


def test_search_is_reranked_and_scores_fall_with_rank_in_every_mode(home: Path) -> None:
    lib = library(home, gemma_stand_in())
    lib.ingest([SEED_CORPUS])
    assert lib.rerank_pending() == 26  # searchable already, vectors not written yet
    lib.sync_rerank()
    assert lib.rerank_pending() == 0
    for mode in ("hybrid", "dense", "lexical"):
        hits = lib.search("a GPU prioriza operações do TensorFlow", 10, mode=mode).hits
        assert hits, mode
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True), (mode, scores)
        if mode == "lexical":
            assert all(set(h.retrievers) == {"lexical"} for h in hits)
            continue
        assert all("rerank" in h.retrievers for h in hits)
        # EmbeddingGemma alone ranks (weight 1.0): the score shown is its cosine
        assert all(h.score == pytest.approx(h.retrievers["rerank"]) for h in hits)
    plain = Library(DataHome.resolve(home), embedder=FakeEmbedder(), rerank=False)
    hits = plain.search("a GPU prioriza operações do TensorFlow", 10).hits
    assert all("rerank" not in h.retrievers for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_a_lecture_is_searchable_before_its_vectors_and_reranked_after(home: Path) -> None:
    lib = library(home, gemma_stand_in())
    lib.ingest([SEED_CORPUS])
    lib.sync_rerank(cancel=lambda: True)  # nothing written yet
    hits = lib.search("tensor cores multiplicação de matrizes", 5).hits
    assert hits and not any("rerank" in h.retrievers for h in hits)
    lib.sync_rerank()
    hits = lib.search("tensor cores multiplicação de matrizes", 5).hits
    assert all("rerank" in h.retrievers for h in hits)


def test_removed_lectures_lose_their_vectors_and_reindex_rebuilds(home: Path) -> None:
    lib = library(home, gemma_stand_in())
    lib.ingest([SEED_CORPUS])
    lib.sync_rerank()
    gone = lib.remove_lecture("aula-f")
    assert gone == 5
    lib.sync_rerank()
    stage = lib.rerank_stage()
    assert stage is not None
    assert stage.index().count == 21
    assert lib.reindex() == 21
    assert stage.index().count == 21 and lib.rerank_pending() == 0


def test_vectors_of_another_model_are_refused(home: Path) -> None:
    from lecturetui.core.retrieval.vector_index import SearchIndexError

    lib = library(home, gemma_stand_in())
    lib.ingest([SEED_CORPUS])
    lib.sync_rerank()
    other = library(home, FakeEmbedder(dim=32, model_id="another-model"))
    with pytest.raises(SearchIndexError, match="another-model"):
        other.search("GPU", 5)


def test_without_the_model_search_runs_on_e5_and_says_why(home: Path, tmp_path: Path) -> None:
    os.environ["LECTURETUI_MODELS"] = str(tmp_path / "no-models")
    try:
        lib = Library(DataHome.resolve(home), embedder=FakeEmbedder(), rerank=True)
        assert "EmbeddingGemma is not installed" in lib.rerank_status()
        assert lib.rerank_stage() is None
        lib.ingest([SEED_CORPUS])
        assert lib.search("GPU", 3).hits
    finally:
        os.environ["LECTURETUI_MODELS"] = str(ROOT / "models")


KILLED = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {root!r})
    from pathlib import Path
    from lecturetui.core.paths import DataHome
    from lecturetui.core.library import Library
    from tests.fakes import FakeEmbedder

    class Slow(FakeEmbedder):
        calls = 0

        def embed_passages(self, texts, progress=None):
            Slow.calls += 1
            if Slow.calls > 1:  # the second batch never ends: the kill comes inside it
                print("busy", flush=True)
                time.sleep(600)
            return super().embed_passages(texts, progress)

    lib = Library(DataHome.resolve({home!r}), embedder=FakeEmbedder(),
                  reranker=Slow(dim=48, model_id="fake-gemma"))
    lib.sync_rerank(lambda done, total: print(done, flush=True))
    """
)


def test_killing_the_process_while_vectors_are_written_leaves_a_consistent_library(
    home: Path,
) -> None:
    lib = library(home, gemma_stand_in())
    lib.ingest([SEED_CORPUS])
    script = KILLED.format(root=str(ROOT), home=str(home))
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    first = proc.stdout.readline()  # one batch saved
    assert first.strip() == "16"
    assert proc.stdout.readline().strip() == "busy"  # inside the next batch
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    saved = VectorIndex.read_manifest(home / "index" / "rerank")
    assert saved is not None and saved.count == 16
    again = library(home, gemma_stand_in())
    assert again.rerank_pending() == 10  # the killed batch is simply still to do
    assert again.search("GPU", 5).hits  # searchable throughout
    assert again.sync_rerank() == 10 and again.rerank_pending() == 0


def test_a_config_weighs_the_first_stage_in(home: Path) -> None:
    lib = library(home, gemma_stand_in())
    lib.ingest([SEED_CORPUS])
    lib.sync_rerank()
    half = lib.search("GPU tensor", 5, rerank_config=RerankConfig(depth=20, weight=0.5)).hits
    assert any(h.score != pytest.approx(h.retrievers.get("rerank", -1)) for h in half)
    assert [h.score for h in half] == sorted((h.score for h in half), reverse=True)
