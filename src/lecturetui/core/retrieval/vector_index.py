"""The vector index: hnswlib (cosine) on disk, with a manifest that says what built it.

Files in the index folder: `vectors-<sha12>.hnsw` and `manifest.json`. A save writes the new
index under its own content-addressed name (temporary file, fsync, rename), then replaces the
manifest the same way, then removes the old index file, so a crash at any point leaves either the
old or the new index, never a half-written one. Loading checks the file's sha256, the model and
the dimension, and sets `ef` (hnswlib resets it to 10 on load).

Removed segments are marked deleted (hnswlib skips them in searches); when they pass a third of
the index it is compacted from its own stored vectors, without re-embedding anything.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt

from lecturetui.core.atomic import write_atomic
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.hashing import file_sha256
from lecturetui.core.i18n import _
from lecturetui.core.models.hardware import package_version
from lecturetui.core.timefmt import utc_now

if TYPE_CHECKING:
    from lecturetui.core.models.embedding import Embedder

MANIFEST = "manifest.json"
FORMAT_VERSION = 1
EXACT_SEARCH_LIMIT = 20_000  # up to this many vectors a brute-force search is as fast, and exact


class SearchIndexError(LectureTuiError):
    """The vector index is missing, damaged or built for another model."""


@dataclass(slots=True)
class Manifest:
    model_id: str
    model_hash: str
    dim: int
    query_prefix: str
    passage_prefix: str
    segmenting: dict[str, Any]
    space: str = "cosine"
    M: int = 32
    ef_construction: int = 200
    ef: int = 400  # recall@10 0.998 on clustered 384-d vectors at 20k, 0.7 ms a query (bench/)
    count: int = 0
    deleted: int = 0
    index_file: str = ""
    index_sha256: str = ""
    format_version: int = FORMAT_VERSION
    versions: dict[str, str] = field(default_factory=dict)
    created_at: str = ""
    updated_at: str = ""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)


def manifest_for(embedder: Embedder, segmenting: dict[str, Any]) -> Manifest:
    """A new index's manifest: what `embedder` is (model, weights, dimension, prompts)."""
    return Manifest(
        model_id=embedder.model_id,
        model_hash=embedder.fingerprint(),
        dim=embedder.dim,
        query_prefix=embedder.query_prefix,
        passage_prefix=embedder.passage_prefix,
        segmenting=segmenting,
    )


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - not possible on every platform
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _library_versions() -> dict[str, str]:
    out = {}
    for name in ("hnswlib", "numpy", "sentence-transformers", "torch", "lecturetui"):
        if found := package_version(name):
            out[name] = found
    return out


def _hnswlib() -> ModuleType:
    """hnswlib, the index's library."""
    import hnswlib  # lazy: keeps core.library's import to numpy alone

    return cast(ModuleType, hnswlib)


def unit_vector(vector: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """`vector` scaled to length 1 (a zero vector stays zero), as float32."""
    return (vector / max(float(np.linalg.norm(vector)), 1e-12)).astype(np.float32)


def unit_rows(matrix: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Each row of `matrix` scaled to length 1, in place."""
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    return matrix


class VectorIndex:
    """hnswlib index + manifest. Not safe for concurrent add and search: a lock serialises them."""

    def __init__(self, folder: Path, manifest: Manifest, index: Any) -> None:
        self.folder = folder
        self.manifest = manifest
        self._index = index
        self._lock = threading.Lock()
        self._labels: set[int] = (
            {int(x) for x in index.get_ids_list()} if index is not None else set()
        )
        self._deleted: set[int] = set()
        self._exact: Any = None  # hnswlib.BFIndex over the live vectors, built on first use

    # -- creating and loading --------------------------------------------------------------
    @classmethod
    def create(cls, folder: Path, manifest: Manifest, capacity: int = 1024) -> VectorIndex:
        hnswlib = _hnswlib()
        index = hnswlib.Index(space=manifest.space, dim=manifest.dim)
        index.init_index(
            max_elements=max(capacity, 16), M=manifest.M, ef_construction=manifest.ef_construction
        )
        index.set_ef(manifest.ef)
        now = utc_now()
        manifest.created_at = manifest.created_at or now
        manifest.updated_at = now
        return cls(folder, manifest, index)

    @staticmethod
    def read_manifest(folder: Path) -> Manifest | None:
        path = folder / MANIFEST
        if not path.exists():
            return None
        try:
            return Manifest.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (ValueError, TypeError) as exc:
            raise SearchIndexError(
                _("The search index manifest in {folder} is damaged ({exc}).").format(
                    folder=folder, exc=exc
                ),
                hint=_("run `lecturetui reindex`"),
            ) from None

    @classmethod
    def load(
        cls, folder: Path, model_id: str, model_hash: str, dim: int | None
    ) -> VectorIndex | None:
        """The saved index, or None when there is none yet. Refuses one built for another model."""
        hnswlib = _hnswlib()
        manifest = cls.read_manifest(folder)
        if manifest is None:
            return None
        if manifest.model_id != model_id or (dim is not None and manifest.dim != dim):
            raise SearchIndexError(
                _(
                    "The search index was built with {built_with} ({dim}-d),"
                    " not with the model in use, {model}."
                ).format(built_with=manifest.model_id, dim=manifest.dim, model=model_id),
                hint=_(
                    "run `lecturetui reindex` to rebuild it, or use --embed-model {built_with}"
                ).format(built_with=manifest.model_id),
            )
        if manifest.model_hash != model_hash:
            raise SearchIndexError(
                _("The search index was built with other weights of {model}.").format(
                    model=model_id
                ),
                hint=_("run `lecturetui reindex` to rebuild it with the model in use"),
            )
        path = folder / manifest.index_file
        if (
            not manifest.index_file
            or not path.exists()
            or file_sha256(path) != manifest.index_sha256
        ):
            raise SearchIndexError(
                _("The search index file is missing or damaged (its checksum does not match)."),
                hint=_("run `lecturetui reindex`"),
            )
        index = hnswlib.Index(space=manifest.space, dim=manifest.dim)
        try:
            index.load_index(str(path), max_elements=max(manifest.count + manifest.deleted, 16))
        except RuntimeError as exc:
            raise SearchIndexError(
                _("The search index cannot be read ({exc}).").format(exc=exc),
                hint=_("run `lecturetui reindex`"),
            ) from None
        index.set_ef(manifest.ef)  # load_index resets ef to 10
        vi = cls(folder, manifest, index)
        ids = vi._labels
        # labels marked deleted are still listed by get_ids_list; the manifest knows how many
        if manifest.deleted:
            deleted_file = folder / f"{manifest.index_file}.deleted.json"
            try:
                vi._deleted = set(json.loads(deleted_file.read_text()))
            except (OSError, ValueError):
                raise SearchIndexError(
                    _("The search index's deletion list is missing."),
                    hint=_("run `lecturetui reindex`"),
                ) from None
            vi._labels = ids - vi._deleted
        return vi

    # -- changing ----------------------------------------------------------------------------
    @property
    def count(self) -> int:
        return len(self._labels)

    def labels(self) -> set[int]:
        return set(self._labels)

    def __contains__(self, label: object) -> bool:
        return label in self._labels

    def add(self, labels: list[int], vectors: npt.NDArray[np.float32]) -> None:
        if not labels:
            return
        if vectors.shape != (len(labels), self.manifest.dim):
            raise ValueError(f"expected {len(labels)} vectors of {self.manifest.dim} dimensions")
        with self._lock:
            # replacing a label that was marked deleted: unmark it first, then overwrite
            for label in labels:
                if label in self._deleted:
                    self._index.unmark_deleted(label)
                    self._deleted.discard(label)
            needed = len(self._labels | self._deleted | set(labels))
            if needed > self._index.get_max_elements():
                self._index.resize_index(max(needed, 2 * self._index.get_max_elements()))
            self._index.add_items(vectors, np.asarray(labels, dtype=np.int64))
            self._labels.update(labels)
            self._exact = None

    def add_stored(self, labels: list[int], vectors: npt.NDArray[np.float32]) -> None:
        """Add new labels' unit vectors as given: an inner-product index does not scale them."""
        hnswlib = _hnswlib()
        path = self.folder / f".vectors-{os.getpid()}-{threading.get_ident()}.tmp"
        with self._lock:
            size = self._index.get_max_elements() + len(labels)
            try:
                for space, step in (("ip", labels), (self.manifest.space, [])):
                    self._index.save_index(str(path))
                    self._index = hnswlib.Index(space=space, dim=self.manifest.dim)
                    self._index.load_index(str(path), max_elements=size)
                    if step:
                        self._index.add_items(vectors, np.asarray(step, dtype=np.int64))
            finally:
                path.unlink(missing_ok=True)
            self._index.set_ef(self.manifest.ef)
            self._labels.update(labels)
            self._exact = None

    def remove(self, labels: list[int]) -> None:
        with self._lock:
            for label in labels:
                if label in self._labels:
                    self._index.mark_deleted(label)
                    self._labels.discard(label)
                    self._deleted.add(label)
            self._exact = None
        if len(self._deleted) > max(100, len(self._labels) // 2):
            self.compact()

    def compact(self) -> None:
        """Rebuild without the deleted labels, from the index's own vectors."""
        hnswlib = _hnswlib()
        with self._lock:
            live = sorted(self._labels)
            vectors = np.asarray(self._index.get_items(live), dtype=np.float32) if live else None
            index = hnswlib.Index(space=self.manifest.space, dim=self.manifest.dim)
            index.init_index(
                max_elements=max(len(live), 16),
                M=self.manifest.M,
                ef_construction=self.manifest.ef_construction,
            )
            if vectors is not None:
                index.add_items(vectors, np.asarray(live, dtype=np.int64))
            index.set_ef(self.manifest.ef)
            self._index = index
            self._deleted = set()
            self._exact = None

    def save(self) -> None:
        """Atomically write the index and its manifest (see the module docstring)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with self._lock:
            fd, tmp_name = tempfile.mkstemp(prefix=".vectors-", suffix=".tmp", dir=self.folder)
            os.close(fd)
            tmp = Path(tmp_name)
            try:
                self._index.save_index(str(tmp))
                with tmp.open("rb+") as f:
                    os.fsync(f.fileno())
                sha = file_sha256(tmp)
                final = self.folder / f"vectors-{sha[:12]}.hnsw"
                tmp.replace(final)
                if self._deleted:
                    write_atomic(
                        final.with_name(final.name + ".deleted.json"),
                        json.dumps(sorted(self._deleted)).encode("utf-8"),
                    )
                old = self.manifest.index_file
                self.manifest.index_file = final.name
                self.manifest.index_sha256 = sha
                self.manifest.count = len(self._labels)
                self.manifest.deleted = len(self._deleted)
                self.manifest.versions = _library_versions()
                self.manifest.updated_at = utc_now()
                write_atomic(
                    self.folder / MANIFEST, json.dumps(asdict(self.manifest), indent=2).encode()
                )
                _fsync_dir(self.folder)
            finally:
                tmp.unlink(missing_ok=True)
            if old and old != final.name:
                (self.folder / old).unlink(missing_ok=True)
                (self.folder / f"{old}.deleted.json").unlink(missing_ok=True)

    def vectors(self, labels: list[int]) -> npt.NDArray[np.float32]:
        """The stored (normalised) vectors of these labels."""
        with self._lock:
            return np.asarray(self._index.get_items(labels), dtype=np.float32)

    # -- searching ---------------------------------------------------------------------------
    def search(
        self,
        vector: npt.NDArray[np.float32],
        k: int,
        exact: bool | None = None,
        allowed: Callable[[int], bool] | None = None,
    ) -> list[tuple[int, float]]:
        """(label, cosine similarity) pairs, best first. `exact=None` picks by size.

        `allowed` keeps only the labels it accepts, inside the search (hnswlib's filter), so the
        k results all pass it; fewer come back when fewer exist."""
        k = min(k, self.count)
        if k <= 0:
            return []
        use_exact = self.count <= EXACT_SEARCH_LIMIT if exact is None else exact
        with self._lock:
            if use_exact:
                return self._search_exact(vector, k, allowed)
            self._index.set_ef(max(self.manifest.ef, k))
            try:
                labels, distances = self._index.knn_query(
                    vector.reshape(1, -1), k=k, filter=allowed
                )
            except RuntimeError:  # fewer than k labels pass the filter: find them all, exactly
                return self._search_exact(vector, k, allowed)
        return [(int(lab), float(1.0 - d)) for lab, d in zip(labels[0], distances[0], strict=True)]

    def _search_exact(
        self, vector: npt.NDArray[np.float32], k: int, allowed: Callable[[int], bool] | None = None
    ) -> list[tuple[int, float]]:
        if allowed is not None:
            return self._search_exact_among(vector, k, [x for x in self._labels if allowed(x)])
        hnswlib = _hnswlib()
        if self._exact is None:
            live = sorted(self._labels)
            mat = unit_rows(np.asarray(self._index.get_items(live), dtype=np.float32))
            bf = hnswlib.BFIndex(space="ip", dim=self.manifest.dim)
            bf.init_index(max_elements=max(len(live), 1))
            bf.add_items(mat, np.asarray(live, dtype=np.int64))
            self._exact = bf
        labels, distances = self._exact.knn_query(unit_vector(vector).reshape(1, -1), k=k)
        return [(int(lab), float(1.0 - d)) for lab, d in zip(labels[0], distances[0], strict=True)]

    def _search_exact_among(
        self, vector: npt.NDArray[np.float32], k: int, labels: list[int]
    ) -> list[tuple[int, float]]:
        """Exact search over some labels only (a scope): their vectors against the question.
        (hnswlib's brute-force index returns repeated labels when given a filter.)"""
        if not labels:
            return []
        mat = unit_rows(np.asarray(self._index.get_items(labels), dtype=np.float32))
        sims = mat @ unit_vector(vector)
        k = min(k, len(labels))
        top = np.argpartition(-sims, k - 1)[:k] if k < len(labels) else np.arange(len(labels))
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(int(labels[i]), float(sims[i])) for i in top]
