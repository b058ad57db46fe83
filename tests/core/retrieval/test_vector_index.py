"""The hnswlib index: manifest, atomic saves, load checks, incremental changes, exactness."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lecturetui.core.retrieval.vector_index import MANIFEST, Manifest, SearchIndexError, VectorIndex


def manifest(dim: int = 32, model: str = "m", ef: int = 256) -> Manifest:
    return Manifest(
        model_id=model, model_hash="h-" + model, dim=dim, query_prefix="query: ",
        passage_prefix="passage: ", segmenting={"window_s": 120}, ef=ef,
    )  # fmt: skip


def unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    v = rng.normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def clustered(rng: np.random.Generator, n: int, dim: int, clusters: int = 200) -> np.ndarray:
    """Like sentence embeddings: one shared direction (E5's cosines sit around 0.7-0.9), topic
    clusters, and variation of low intrinsic dimension, plus a little isotropic noise."""
    basis = unit(rng, 48, dim)
    common = basis[0] * 3.0
    centers = rng.normal(size=(clusters, 48)).astype(np.float32)
    labels = rng.integers(0, clusters, size=n)
    latent = centers[labels] + 0.6 * rng.normal(size=(n, 48)).astype(np.float32)
    v = common + latent @ basis + 0.03 * rng.normal(size=(n, dim)).astype(np.float32)
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def test_save_load_roundtrip_and_manifest(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    vi = VectorIndex.create(tmp_path, manifest(ef=64))
    vecs = unit(rng, 100, 32)
    vi.add(list(range(1000, 1100)), vecs)
    vi.save()
    data = json.loads((tmp_path / MANIFEST).read_text())
    for key in ("model_id", "model_hash", "dim", "query_prefix", "passage_prefix", "segmenting", "M",
                "ef_construction", "ef", "count", "versions", "created_at", "index_sha256", "index_file"):  # fmt: skip
        assert key in data
    assert data["count"] == 100 and data["versions"]["hnswlib"]
    assert (tmp_path / data["index_file"]).exists()
    loaded = VectorIndex.load(tmp_path, "m", "h-m", 32)
    assert loaded is not None and loaded.count == 100
    assert loaded._index.ef == 64  # hnswlib resets ef to 10 on load; we set it back
    [(label, score)] = loaded.search(vecs[7], 1, exact=False)
    assert label == 1007 and score == pytest.approx(1.0, abs=1e-5)


def test_no_index_yet(tmp_path: Path) -> None:
    assert VectorIndex.load(tmp_path, "m", "h-m", 32) is None


def test_other_model_or_dimension_is_refused(tmp_path: Path) -> None:
    vi = VectorIndex.create(tmp_path, manifest(dim=32, model="small"))
    vi.add([1], unit(np.random.default_rng(1), 1, 32))
    vi.save()
    with pytest.raises(SearchIndexError, match="built with small"):
        VectorIndex.load(tmp_path, "large", "h-large", 32)
    with pytest.raises(SearchIndexError, match="32-d"):
        VectorIndex.load(tmp_path, "small", "h-small", 768)
    with pytest.raises(SearchIndexError, match="other weights"):
        VectorIndex.load(tmp_path, "small", "different-hash", 32)


def test_damaged_index_is_detected(tmp_path: Path) -> None:
    vi = VectorIndex.create(tmp_path, manifest())
    vi.add(list(range(10)), unit(np.random.default_rng(2), 10, 32))
    vi.save()
    path = tmp_path / vi.manifest.index_file
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(SearchIndexError, match="reindex") as info:
        VectorIndex.load(tmp_path, "m", "h-m", 32)
    assert "damaged" in info.value.message
    path.write_bytes(bytes(data[: len(data) // 3]))  # half-written
    with pytest.raises(SearchIndexError):
        VectorIndex.load(tmp_path, "m", "h-m", 32)
    (tmp_path / MANIFEST).write_text("{not json")
    with pytest.raises(SearchIndexError, match="manifest"):
        VectorIndex.load(tmp_path, "m", "h-m", 32)


def test_a_failed_save_keeps_the_previous_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(3)
    vi = VectorIndex.create(tmp_path, manifest())
    vi.add(list(range(10)), unit(rng, 10, 32))
    vi.save()
    vi.add(list(range(10, 20)), unit(rng, 10, 32))

    import lecturetui.core.retrieval.vector_index as index_mod

    def boom(path: Path) -> str:
        raise KeyboardInterrupt  # interrupted between writing the file and the manifest

    monkeypatch.setattr(index_mod, "file_sha256", boom)
    with pytest.raises(KeyboardInterrupt):
        vi.save()
    monkeypatch.undo()
    loaded = VectorIndex.load(tmp_path, "m", "h-m", 32)
    assert loaded is not None and loaded.count == 10
    assert not list(tmp_path.glob(".vectors-*"))  # no temporary file left behind


def test_incremental_add_remove_replace_and_compact(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    vecs = unit(rng, 300, 32)
    vi = VectorIndex.create(tmp_path, manifest(), capacity=16)  # grows as needed
    vi.add(list(range(300)), vecs)
    vi.remove(list(range(0, 50)))
    assert vi.count == 250
    hits = [label for label, _ in vi.search(vecs[10], 5, exact=False)]
    assert 10 not in hits
    vi.save()
    loaded = VectorIndex.load(tmp_path, "m", "h-m", 32)
    assert loaded is not None and loaded.labels() == set(range(50, 300))
    assert 10 not in [label for label, _ in loaded.search(vecs[10], 5, exact=False)]
    # a removed label can come back (a replaced segment reusing its id)
    loaded.add([10], vecs[10:11])
    assert loaded.search(vecs[10], 1, exact=False)[0][0] == 10
    # removing most of the index compacts it from its own vectors, without re-embedding
    loaded.remove(list(range(60, 300)))
    assert loaded._deleted == set()
    assert loaded.labels() == {10, *range(50, 60)}
    assert loaded.search(vecs[55], 1, exact=False)[0][0] == 55


def test_hnsw_top10_matches_exact_top10_on_a_realistic_library(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    n, dim = 20_000, 384
    vecs = clustered(rng, n, dim)
    vi = VectorIndex.create(tmp_path, manifest(dim=dim), capacity=n)
    vi.add(list(range(n)), vecs)
    queries = clustered(rng, 50, dim)
    recalls = []
    for q in queries:
        exact = [label for label, _ in vi.search(q, 10, exact=True)]
        brute = np.argsort(-(vecs @ q))[:10]
        assert exact == list(brute)  # the exact path is exact
        ann = [label for label, _ in vi.search(q, 10, exact=False)]
        recalls.append(len(set(ann) & set(exact)) / 10)
    assert np.mean(recalls) >= 0.98
    scores = [s for _, s in vi.search(queries[0], 10, exact=False)]
    assert scores == sorted(scores, reverse=True) and all(-1 <= s <= 1 for s in scores)
