"""The second stage of search: EmbeddingGemma (the re-ranking model of core/models/embedders.py)
re-scores the first stage's candidates.

The first stage (E5 windows and units in the hnswlib index, BM25 over the words; core/retrieval/search.py)
finds the candidates cheaply. EmbeddingGemma-300M, a much stronger multilingual embedder, has a
vector of every window, computed after ingest and kept beside the E5 index in `index/rerank/`
(an hnswlib file used as a vector store, with its own manifest: model id, weights, dimension,
prompts; a mismatch is refused). A question's EmbeddingGemma vector against its candidates'
vectors gives the final score (the weights: `RerankConfig`, chosen on the realistic benchmark's
tune half, bench/RESULTS.md).

Vectors follow ingest: a lecture is searchable with E5 at once, and `sync` writes the windows'
EmbeddingGemma vectors in small batches, saving after each (atomically: old or new file, never a
half-written one), so a kill loses at most one batch and the next `sync` resumes. A candidate
without its vector yet keeps its first-stage place among the re-scored ones (`rescore`).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.models.ov_cache import going_first
from lecturetui.core.progress import CountProgress
from lecturetui.core.retrieval.vector_index import (
    Manifest,
    SearchIndexError,
    VectorIndex,
    manifest_for,
    unit_vector,
)

if TYPE_CHECKING:
    from lecturetui.core.models.embedding import Embedder
    from lecturetui.core.storage.store import Store

#: segments embedded between two saves while catching up (a kill loses at most this many)
SYNC_BATCH = 16

CancelCheck = Callable[[], bool]


@dataclass(frozen=True, slots=True)
class RerankConfig:
    """How the final score is made from the candidates.

    `depth`: how many of the first stage's fused candidates are re-scored. `weight`: the share
    of EmbeddingGemma's cosine in the final score; the rest is the first stage's fused score
    (min-max scaled over the candidates). 1.0 ranks by EmbeddingGemma alone."""

    depth: int = 100
    weight: float = 1.0
    dims: int | None = None  # Matryoshka: compare only the first `dims` dimensions


DEFAULT_RERANK = RerankConfig()


def truncate(vectors: npt.NDArray[np.float32], dims: int | None) -> npt.NDArray[np.float32]:
    """Matryoshka truncation: the first `dims` dimensions, re-normalised (None: unchanged)."""
    if dims is None or dims >= vectors.shape[-1]:
        return vectors
    cut = np.array(vectors[..., :dims], dtype=np.float32)
    cut /= np.maximum(np.linalg.norm(cut, axis=-1, keepdims=True), 1e-12)
    return cut


def rescore(
    candidates: Sequence[tuple[int, float]],
    model_scores: dict[int, float],
    weight: float,
) -> list[tuple[int, float]]:
    """The final ranking of `candidates` ((segment id, first-stage score), best first).

    A candidate with a model score gets `weight * model + (1 - weight) * first'` (first' the
    first-stage score min-max scaled over the candidates). One still waiting for its vector
    takes, at its first-stage position p, the final score that the p-th best scored candidate
    has: it keeps its first-stage place among them, and scores stay comparable."""
    if not candidates:
        return []
    values = [s for _, s in candidates]
    lo, hi = min(values), max(values)
    scaled = {seg: (s - lo) / (hi - lo) if hi > lo else 1.0 for seg, s in candidates}
    final = {
        seg: weight * model_scores[seg] + (1 - weight) * scaled[seg]
        for seg, _ in candidates
        if seg in model_scores
    }
    ladder = sorted(final.values(), reverse=True)
    waiting = [seg for seg, _ in candidates if seg not in final]
    for pos, (seg, _score) in enumerate(candidates):
        if seg not in final:
            final[seg] = ladder[min(pos, len(ladder) - 1)] if ladder else scaled[seg]
    order = {seg: pos for pos, (seg, _) in enumerate(candidates)}
    # on a tie the waiting candidate goes first: it takes position p, the scored one moves down
    return sorted(final.items(), key=lambda p: (-p[1], p[0] not in waiting, order[p[0]]))


class RerankStage:
    """EmbeddingGemma's vectors of the library's windows, and the model that makes them."""

    def __init__(self, folder: Path, embedder_factory: Callable[[], Embedder]) -> None:
        self.folder = folder
        self._factory = embedder_factory
        self._embedder: Embedder | None = None
        self._index: VectorIndex | None = None
        self._lock = threading.Lock()  # one sync at a time in this process
        self._loading = threading.Lock()
        # the last questions' vectors: the answer's sentences are scored against the same one
        self._queries: dict[str, npt.NDArray[np.float32]] = {}

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            with self._loading:  # loaded once, whichever thread asks first
                if self._embedder is None:
                    self._embedder = self._factory()
        return self._embedder

    def preload(self) -> None:
        """Start loading the model in the background (a search loads E5 meanwhile)."""
        if self._embedder is None and not self._loading.locked():
            threading.Thread(target=self._quiet_load, name="rerank-load").start()  # see _quiet_load

    def _quiet_load(self) -> None:
        """Load the model and run it once (its first run sets up what later ones reuse:
        core/models/onnx_embedder.py), both before anyone gets it: a thread that wants it waits,
        and no run is left going when the process ends."""
        with contextlib.suppress(Exception), self._loading:  # a failure is said where wanted
            if self._embedder is None:
                with going_first():  # its compilation before E5's: E5's beside its first run
                    embedder = self._factory()
                warm = getattr(embedder, "warm", None)
                if warm is not None:
                    warm()
                self._embedder = embedder

    @property
    def loaded(self) -> bool:
        return self._embedder is not None

    def _manifest(self) -> Manifest:
        return manifest_for(self.embedder, {"vectors": "windows"})

    def index(self) -> VectorIndex:
        """The saved vectors (re-read when another process saved newer ones), or a new store."""
        saved = VectorIndex.read_manifest(self.folder)
        current = self._index
        if current is not None and (
            saved is None or saved.index_file == current.manifest.index_file
        ):
            return current
        emb = self.embedder
        loaded = VectorIndex.load(self.folder, emb.model_id, emb.fingerprint(), emb.dim)
        # the document prompt is in every stored vector; the query prompt only in the question's
        if loaded is not None and loaded.manifest.passage_prefix != emb.passage_prefix:
            raise SearchIndexError(
                _(
                    "The re-ranking vectors were made with another document prompt than the model's."
                ),
                hint=_("run `lecturetui reindex`"),
            )
        self._index = loaded or VectorIndex.create(self.folder, self._manifest(), 1024)
        return self._index

    def pending(self, stored: set[int]) -> list[int]:
        """Stored segments without their vector yet, in id order."""
        return sorted(stored - self._saved_labels())

    def _saved_labels(self) -> set[int]:
        if self._index is None and VectorIndex.read_manifest(self.folder) is None:
            return set()
        return self.index().labels()

    def sync(
        self,
        store: Store,
        progress: CountProgress | None = None,
        cancel: CancelCheck | None = None,
    ) -> int:
        """Embed the windows that lack a vector and drop vectors of removed segments, saving
        after every batch. Returns how many were embedded; stops early when `cancel()` says so."""
        with self._lock:
            stored = set(store.all_segment_ids())
            index = self.index()
            extra = sorted(index.labels() - stored)
            missing = sorted(stored - index.labels())
            if extra:
                index.remove(extra)
                index.save()
            done = 0
            for start in range(0, len(missing), SYNC_BATCH):
                if cancel is not None and cancel():
                    break
                ids = missing[start : start + SYNC_BATCH]
                segs = store.segments_by_id(ids)
                ids = [i for i in ids if i in segs]  # removed meanwhile
                vectors = self.embedder.embed_passages([segs[i].text for i in ids])
                index.add(ids, vectors)
                index.save()
                done += len(ids)
                if progress:
                    progress(done, len(missing))
            return done

    def rebuild(self, store: Store, progress: CountProgress | None = None) -> int:
        """Forget every vector and embed all windows again (`lecturetui reindex`)."""
        with self._lock:
            self._index = VectorIndex.create(self.folder, self._manifest(), 1024)
            self._index.save()
        return self.sync(store, progress)

    def query_vector(self, query: str) -> npt.NDArray[np.float32]:
        """EmbeddingGemma's unit vector of a question (the last few kept: search and the
        answer's sentence scoring embed the same question once)."""
        vector = self._queries.get(query)
        if vector is None:
            vector = unit_vector(self.embedder.embed_query(query))
            if len(self._queries) >= 8:
                self._queries.pop(next(iter(self._queries)))
            self._queries[query] = vector
        return vector

    def scores(
        self, query: str, segment_ids: Sequence[int], dims: int | None = None
    ) -> dict[int, float]:
        """EmbeddingGemma's cosine of the question to each of these segments that has a vector."""
        index = self.index()
        have = [s for s in segment_ids if s in index]
        if not have:
            return {}
        vector = truncate(self.query_vector(query), dims)
        mat = truncate(index.vectors(have), dims)
        return dict(zip(have, (mat @ vector).tolist(), strict=True))


def unavailable(problem: str) -> LectureTuiError:
    return LectureTuiError(problem, hint=_("run `lecturetui models setup`; search uses E5 alone"))
