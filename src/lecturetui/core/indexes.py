"""The library's E5 indexes under index/: the windows' (the first stage) and their small units'
(core/retrieval/small_unit_index.py), loaded or made on first use and kept in step with the
store: after an ingest, a removal, or a kill between storing a file and saving the index."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from lecturetui.core.ingest.pipeline import FileResult
from lecturetui.core.ingest.segmenting import SegmentConfig
from lecturetui.core.models.embedding import Embedder
from lecturetui.core.paths import DataHome
from lecturetui.core.progress import CountProgress
from lecturetui.core.retrieval import small_unit_index
from lecturetui.core.retrieval.vector_index import (
    Manifest,
    SearchIndexError,
    VectorIndex,
    manifest_for,
)
from lecturetui.core.storage.store import Store


class Indexes:
    """Both E5 indexes of a data home; `embedder`, `model` (id, weights hash) and `store` are
    asked for only when an index is loaded, made or filled."""

    def __init__(
        self,
        home: DataHome,
        embedder: Callable[[], Embedder],
        model: Callable[[], tuple[str, str]],
        store: Callable[[], Store],
    ) -> None:
        self.home = home
        self._embedder = embedder
        self._model = model
        self._store = store
        self._windows: VectorIndex | None = None
        self._units: VectorIndex | None = None

    # -- loading -----------------------------------------------------------------------------
    def windows(self, create: bool = True) -> VectorIndex | None:
        """The windows' index (None when there is none and `create` is False)."""
        if self._windows is None:
            model_id, model_hash = self._model()
            loaded = VectorIndex.load(self.home.index_dir, model_id, model_hash, None)
            if loaded is None and create:
                loaded = VectorIndex.create(self.home.index_dir, self._manifest(), 1024)
            self._windows = loaded
        return self._windows

    def units(self, create: bool = True) -> VectorIndex | None:
        """The small units' index, beside the windows'; made again when its settings changed
        or it cannot be read (units are cheap to redo)."""
        if self._units is None:
            folder = self.home.units_dir
            loaded: VectorIndex | None = None
            saved = VectorIndex.read_manifest(folder)
            if saved is not None and all(
                saved.segmenting.get(key) == value
                for key, value in small_unit_index.SETTINGS.items()
            ):
                try:
                    loaded = VectorIndex.load(folder, *self._model(), None)
                except SearchIndexError:
                    loaded = None
            if loaded is None and create:
                loaded = self._new_units()
            self._units = loaded
        return self._units

    def _manifest(self) -> Manifest:
        emb = self._embedder()
        counter = f"tokenizer:{emb.model_id}"
        return manifest_for(emb, {**SegmentConfig().as_dict(), "counter": counter})

    def _new_units(self) -> VectorIndex:
        manifest = self._manifest()
        manifest.segmenting = dict(small_unit_index.SETTINGS)
        return VectorIndex.create(self.home.units_dir, manifest, 1024)

    def _embed(
        self, progress: CountProgress | None
    ) -> Callable[[list[str]], npt.NDArray[np.float32]]:
        return lambda texts: self._embedder().embed_passages(texts, progress)

    # -- keeping them in step with the store ---------------------------------------------------
    def apply(
        self, result: FileResult, embed: Callable[[list[str]], npt.NDArray[np.float32]]
    ) -> None:
        """A stored file's changes: the vectors of its removed segments go, its new ones come
        (written by `save`)."""
        windows, units = self.windows(), self.units()
        assert windows is not None and units is not None
        for change, vectors in zip(result.changes, result.vectors, strict=True):
            windows.remove(change.removed_segment_ids)
            small_unit_index.remove_segments(units, change.removed_segment_ids)
            if vectors is not None:
                windows.add(change.added_segment_ids, vectors)
                added = self._store().segments_by_id(change.added_segment_ids)
                small_unit_index.add_segments(units, added, embed)

    def save(self) -> None:
        """Write both indexes, as far as they were loaded."""
        if self._windows is not None:
            self._windows.save()
        if self._units is not None:
            self._units.save()

    def sync(
        self, progress: CountProgress | None = None, only_if_exists: bool = False
    ) -> tuple[int, int]:
        """Embed stored segments the indexes lack and drop vectors of removed ones (an ingest
        killed between storing a file and saving the index leaves such a gap). Returns (added,
        removed) of the windows' index."""
        if only_if_exists and VectorIndex.read_manifest(self.home.index_dir) is None:
            return 0, 0
        index = self.windows()
        assert index is not None
        store = self._store()
        stored = set(store.all_segment_ids())
        indexed = index.labels()
        missing = sorted(stored - indexed)
        extra = sorted(indexed - stored)
        if missing or extra:
            index.remove(extra)
            if missing:
                segs = store.segments_by_id(missing)
                vectors = self._embedder().embed_passages([segs[i].text for i in missing], progress)
                index.add(missing, vectors)
            index.save()
        self._sync_units(stored, progress)
        return len(missing), len(extra)

    def _sync_units(self, stored: set[int], progress: CountProgress | None) -> None:
        units = self.units()
        assert units is not None
        have = small_unit_index.indexed_segments(units)
        missing, extra = sorted(stored - have), sorted(have - stored)
        if not missing and not extra:
            return
        small_unit_index.remove_segments(units, extra)
        segs = self._store().segments_by_id(missing)
        small_unit_index.add_segments(units, segs, self._embed(progress))
        units.save()

    def rebuild(self, progress: CountProgress | None = None) -> int:
        """Both indexes made again from every stored segment (re-embedding them)."""
        store = self._store()
        ids = store.all_segment_ids()
        segs = store.segments_by_id(ids)
        vectors = self._embedder().embed_passages([segs[i].text for i in ids], progress)
        windows = VectorIndex.create(self.home.index_dir, self._manifest(), len(ids) + 1024)
        windows.add(ids, vectors)
        windows.save()
        self._windows = windows
        units = self._new_units()
        small_unit_index.add_segments(units, segs, self._embed(progress))
        units.save()
        self._units = units
        return len(ids)
