"""The one facade both faces (CLI and TUI) call: ingest, index, search."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from lecturetui.core.conversation import Exchange, HistoryEntry, exchange, history_threads
from lecturetui.core.embedding import E5Embedder, Embedder, weights_hash
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.evaluation.runs import EvalRecord, RunInfo, Runs
from lecturetui.core.fusion import CANDIDATES, FusionConfig, fuse
from lecturetui.core.index import EXACT_SEARCH_LIMIT, Manifest, SearchIndexError, VectorIndex
from lecturetui.core.ingest import FileResult, IngestOptions, IngestReport, ingest_paths
from lecturetui.core.links import deep_link
from lecturetui.core.models import Lecture, StoredSegment
from lecturetui.core.modelstore import Notify, resolve_embed_model
from lecturetui.core.modes import DEFAULT_MODE, MODES
from lecturetui.core.paths import DataHome
from lecturetui.core.prompting import language_code
from lecturetui.core.segmenting import SegmentConfig, TokenCounter
from lecturetui.core.store import Store
from lecturetui.core.timefmt import format_timestamp

Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class Hit:
    rank: int
    score: float  # cosine similarity of the segment to the question
    segment: StoredSegment
    lecture: Lecture
    url: str | None
    retrievers: tuple[str, ...] = ("dense",)  # which retrievers ranked it

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "lecture": self.lecture.id,
            "lecture_title": self.lecture.title,
            "course": self.lecture.course,
            "segment_id": self.segment.id,
            "corpus_id": self.segment.corpus_id,
            "start_s": self.segment.start,
            "end_s": self.segment.end,
            "start": format_timestamp(self.segment.start),
            "end": format_timestamp(self.segment.end),
            "score": self.score,
            "text": self.segment.text,
            "url": self.url,
            "retrievers": list(self.retrievers),
        }


@dataclass(slots=True)
class SearchResult:
    query: str
    hits: list[Hit]
    timings_ms: dict[str, float] = field(default_factory=dict)
    exact: bool = True
    mode: str = DEFAULT_MODE


class _LazyCounter(TokenCounter):
    """The embedder's tokenizer, loaded only when a file really needs segmenting."""

    def __init__(self, library: Library, name: str) -> None:
        super().__init__(overhead=0)
        self.name = name
        self._library = library
        self._real: TokenCounter | None = None

    def _get(self) -> TokenCounter:
        if self._real is None:
            self._real = self._library.embedder.token_counter()
            self.overhead = self._real.overhead
        return self._real

    def count(self, text: str) -> int:
        return self._get().count(text)

    def total(self, text: str) -> int:
        return self._get().total(text)


class Library:
    """A data home's library: store, embedding model and vector index, loaded as needed."""

    def __init__(
        self,
        home: DataHome,
        embed_model: str | None = None,
        device: str | None = None,
        embedder: Embedder | None = None,
        notify: Notify | None = None,
    ) -> None:
        self.home = home
        self._embed_model = embed_model
        self._device = device
        self._embedder = embedder
        self._notify = notify
        self._store: Store | None = None
        self._index: VectorIndex | None = None
        self._model_path: Path | None = None
        self._model_id: str | None = embedder.model_id if embedder else None

    # -- parts -------------------------------------------------------------------------------
    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = Store(self.home.db_path)
        return self._store

    def _resolve_model(self) -> tuple[Path, str]:
        if self._model_path is None:
            self._model_path, self._model_id = resolve_embed_model(
                self.home.models_dir, self._embed_model, self._notify
            )
        assert self._model_id is not None
        return self._model_path, self._model_id

    @property
    def model_id(self) -> str:
        if self._model_id is None:
            self._resolve_model()
        assert self._model_id is not None
        return self._model_id

    def _model_hash(self) -> str:
        if self._embedder is not None:
            return self._embedder.fingerprint()
        path, _ = self._resolve_model()
        return weights_hash(path)

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            path, model_id = self._resolve_model()
            self._embedder = E5Embedder(path, model_id=model_id, device=self._device)
            if self._notify:
                self._notify(f"{model_id} on {self._embedder.device}")
        return self._embedder

    def token_counter(self) -> TokenCounter:
        return _LazyCounter(self, f"tokenizer:{self.model_id}")

    def index(self, create: bool = True) -> VectorIndex | None:
        if self._index is None:
            loaded = VectorIndex.load(self.home.index_dir, self.model_id, self._model_hash(), None)
            if loaded is None and create:
                loaded = self._new_index()
            self._index = loaded
        return self._index

    def _new_index(self, capacity: int = 1024) -> VectorIndex:
        emb = self.embedder
        manifest = Manifest(
            model_id=emb.model_id,
            model_hash=emb.fingerprint(),
            dim=emb.dim,
            query_prefix=emb.query_prefix,
            passage_prefix=emb.passage_prefix,
            segmenting={**SegmentConfig().as_dict(), "counter": f"tokenizer:{emb.model_id}"},
        )
        return VectorIndex.create(self.home.index_dir, manifest, capacity)

    # -- what the faces read (so no screen or command touches the store's tables) ----------------
    def lectures(self) -> list[Lecture]:
        return self.store.lectures()

    def lecture(self, lecture_id: str) -> Lecture | None:
        return self.store.lecture(lecture_id)

    def segment(self, segment_id: int) -> StoredSegment | None:
        return self.store.segments_by_id([segment_id]).get(segment_id)

    def neighbours(self, segment: StoredSegment) -> list[StoredSegment]:
        return self.store.neighbours(segment)

    def counts(self) -> tuple[int, int]:
        return self.store.counts()

    def remember(self, question: str, answer: str, payload: dict[str, Any]) -> int:
        return self.store.add_history(question, answer, payload)

    def history(self, limit: int = 200) -> list[tuple[int, str, str, str]]:
        return self.store.history(limit)

    def history_entry(self, entry_id: int) -> dict[str, object] | None:
        return self.store.history_payload(entry_id)

    def history_threads(self, limit: int = 200) -> list[HistoryEntry]:
        """The latest questions grouped by thread (a question and its follow-ups)."""
        return history_threads(self.store.connection, limit)

    def exchange(self, entry_id: int | None = None) -> Exchange | None:
        """A history entry (default: the latest) as an exchange a follow-up can continue."""
        return exchange(self.store.connection, entry_id)

    def eval_runs(self) -> list[RunInfo]:
        return Runs(self.store).list()

    def eval_records(self, run_id: int) -> list[EvalRecord]:
        return Runs(self.store).records(run_id)

    def annotate(self, run_id: int, number: int, label: str | None) -> None:
        """A manual C / P / I label on an evaluation record (None clears it)."""
        Runs(self.store).annotate(run_id, number, label)

    def warm(self) -> None:
        """Load the embedding model and the index now (the app does this while the user types)."""
        _ = self.embedder
        self.index()
        language_code("warm")  # hybrid search tells the question's language (py3langid, ~0.5 s)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    # -- ingest ------------------------------------------------------------------------------
    def ingest(
        self,
        paths: Iterable[Path],
        options: IngestOptions | None = None,
        progress: Callable[[int, int, str], None] | None = None,
        embed_progress: Progress | None = None,
    ) -> IngestReport:
        """Store and index files. The index is saved at the end, also when interrupted."""
        options = options or IngestOptions()
        config = options.segment_config
        if config.max_tokens > 512 and config.max_tokens > self.embedder.max_tokens:
            limit = self.embedder.max_tokens
            if self._notify:
                self._notify(
                    f"--max-tokens {config.max_tokens} is over the model's {limit}-token limit; using {limit}"
                )
            options.segment_config = SegmentConfig(config.window_s, config.overlap_s, limit)
        dirty = False

        def embed(texts: list[str]) -> npt.NDArray[np.float32]:
            return self.embedder.embed_passages(texts, embed_progress)

        def on_saved(result: FileResult) -> None:
            nonlocal dirty
            index = self.index()
            assert index is not None
            for change, vectors in zip(result.changes, result.vectors, strict=True):
                index.remove(change.removed_segment_ids)
                if vectors is not None:
                    index.add(change.added_segment_ids, vectors)
            dirty = True

        try:
            self.sync_index(embed_progress, only_if_exists=True)
            return ingest_paths(
                self.store, paths, options, self.token_counter(), progress, on_saved, embed
            )
        finally:
            if dirty and self._index is not None:
                self._index.save()

    # -- keeping the index in step with the store ---------------------------------------------
    def sync_index(
        self, progress: Progress | None = None, only_if_exists: bool = False
    ) -> tuple[int, int]:
        """Embed stored segments the index lacks and drop vectors of removed ones.

        (An ingest killed between storing a file and saving the index leaves such a gap.)
        Returns (added, removed).
        """
        if only_if_exists and VectorIndex.read_manifest(self.home.index_dir) is None:
            return 0, 0
        index = self.index()
        assert index is not None
        stored = set(self.store.all_segment_ids())
        indexed = index.labels()
        missing = sorted(stored - indexed)
        extra = sorted(indexed - stored)
        if not missing and not extra:
            return 0, 0
        index.remove(extra)
        if missing:
            segs = self.store.segments_by_id(missing)
            vectors = self.embedder.embed_passages([segs[i].text for i in missing], progress)
            index.add(missing, vectors)
        index.save()
        return len(missing), len(extra)

    def reindex(self, progress: Progress | None = None) -> int:
        """Rebuild the index from every stored segment (re-embedding them)."""
        ids = self.store.all_segment_ids()
        segs = self.store.segments_by_id(ids)
        vectors = self.embedder.embed_passages([segs[i].text for i in ids], progress)
        index = self._new_index(capacity=len(ids) + 1024)
        index.add(ids, vectors)
        index.save()
        self._index = index
        return len(ids)

    # -- search ------------------------------------------------------------------------------
    def search(
        self,
        query: str,
        k: int = 10,
        exact: bool | None = None,
        mode: str = DEFAULT_MODE,
        fusion: FusionConfig | None = None,
    ) -> SearchResult:
        """The top k segments for a question, ranked by `mode`; every hit scored by cosine."""
        query = query.strip()
        if not query:
            raise LectureTuiError(
                "The question is empty.", hint='e.g. lecturetui search "o que é um tensor?"'
            )
        if mode not in MODES:
            raise LectureTuiError(f"There is no search mode {mode!r}.",
                                  hint=f"use one of: {', '.join(MODES)}")  # fmt: skip
        _, n_segments = self.store.counts()
        if n_segments == 0:
            raise LectureTuiError(
                "The library is empty.", hint="add transcripts with `lecturetui ingest PATH...`"
            )
        t0 = time.perf_counter()
        index = self.index()
        assert index is not None
        if index.count != n_segments:
            self.sync_index()
        emb = self.embedder
        t1 = time.perf_counter()
        if index.manifest.dim != emb.dim:
            raise SearchIndexError(
                f"The search index has {index.manifest.dim}-d vectors but {emb.model_id} makes {emb.dim}-d ones.",
                hint="run `lecturetui reindex`",
            )
        vector = emb.embed_query(query)
        t2 = time.perf_counter()
        use_exact = exact if exact is not None else index.count <= EXACT_SEARCH_LIMIT
        depth = k if mode == "dense" else max(k, CANDIDATES)
        dense = index.search(vector, depth, exact=use_exact) if mode != "lexical" else []
        t3 = time.perf_counter()
        lexical = self.store.lexical_search(query, depth) if mode != "dense" else []
        t4 = time.perf_counter()
        cosine = dict(dense)
        ranked: list[tuple[int, tuple[str, ...]]]
        if mode == "dense":
            ranked = [(seg, ("dense",)) for seg, _ in dense]
        elif mode == "lexical":
            ranked = [(seg, ("lexical",)) for seg, _ in lexical[:k]]
        else:
            fused = fuse(dense, lexical, fusion or FusionConfig(), self._same_language(query))
            ranked = [(f.segment_id, tuple(f.ranks)) for f in fused[:k]]
        missing = [seg for seg, _ in ranked if seg not in cosine and seg in index]
        if missing:
            vecs = index.vectors(missing)
            q = vector / max(float(np.linalg.norm(vector)), 1e-12)
            cosine.update(zip(missing, (vecs @ q).tolist(), strict=True))
        hits = self._hits([(seg, cosine.get(seg, 0.0), found) for seg, found in ranked])
        t5 = time.perf_counter()
        timings = {
            "load_ms": (t1 - t0) * 1000,
            "embed_ms": (t2 - t1) * 1000,
            "ann_ms": (t3 - t2) * 1000,
            "lexical_ms": (t4 - t3) * 1000,
            "store_ms": (t5 - t4) * 1000,
            "total_ms": (t5 - t1) * 1000,
        }
        return SearchResult(query, hits, timings, use_exact, mode)

    def _same_language(self, query: str) -> bool:
        """Is the question in one of the library's languages (or are they unknown)?"""
        languages = {lang for lang in self.store.languages() if lang}
        return not languages or language_code(query) in languages

    def _hits(self, ranked: Sequence[tuple[int, float, tuple[str, ...]]]) -> list[Hit]:
        segs = self.store.segments_by_id([label for label, _, _ in ranked])
        lectures: dict[str, Lecture] = {}
        hits: list[Hit] = []
        for label, score, found in ranked:
            seg = segs.get(label)
            if seg is None:  # removed since the index was saved
                continue
            lec = lectures.get(seg.lecture_id) or self.store.lecture(seg.lecture_id)
            if lec is None:
                continue
            lectures[seg.lecture_id] = lec
            url = deep_link(lec.source_url, seg.start)
            hits.append(Hit(len(hits) + 1, score, seg, lec, url, found))
        return hits
