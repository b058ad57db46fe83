"""The one facade both faces (CLI and TUI) call: ingest, index, search."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.i18n import language as interface_language
from lecturetui.core.indexes import Indexes
from lecturetui.core.ingest.pipeline import (
    EndsFn,
    FileResult,
    IngestOptions,
    IngestReport,
    ingest_paths,
)
from lecturetui.core.ingest.recordings import MediaContext
from lecturetui.core.ingest.segmenting import SegmentConfig
from lecturetui.core.ingest.speech import (
    CancelCheck,
    Transcriber,
    WhisperTranscriber,
)
from lecturetui.core.language import language_code, tell
from lecturetui.core.language import preload as preload_language
from lecturetui.core.lectures import Lecture
from lecturetui.core.library_contents import LibraryContents
from lecturetui.core.library_embedder import LibraryEmbedder
from lecturetui.core.models.embedders import reranker
from lecturetui.core.models.embedding import Embedder
from lecturetui.core.models.locate import Notify
from lecturetui.core.models.placement import Placement
from lecturetui.core.models.runtime import load_embedder
from lecturetui.core.models.sentence_ends import from_models as sentence_model_of
from lecturetui.core.models.tokens import TokenCounter
from lecturetui.core.paths import DataHome
from lecturetui.core.progress import CountProgress, NotedProgress, SecondsProgress
from lecturetui.core.question_options import DEFAULT_MODE, MODES
from lecturetui.core.records import HitRecord
from lecturetui.core.retrieval.asked import Asked, Once
from lecturetui.core.retrieval.rerank import RerankConfig, RerankStage
from lecturetui.core.retrieval.scope import ResolvedScope, Scope, resolve
from lecturetui.core.retrieval.search import Hit, SearchResult, run_search
from lecturetui.core.retrieval.vector_index import (
    SearchIndexError,
    VectorIndex,
    unit_vector,
)
from lecturetui.core.storage.summaries import Summaries
from lecturetui.core.study.course_map import MapRow, course_map
from lecturetui.core.study.lecture_keyphrases import (
    Sources,
    find_keyphrases,
    find_missing,
    parts_of,
)
from lecturetui.core.study.parts import Part

#: `off` turns the re-ranking stage off (search with E5 and BM25 alone)
ENV_RERANK = "LECTURETUI_RERANK"

__all__ = ["Hit", "Library", "SearchResult"]


class Library(LibraryContents):
    """A data home's library: its contents (library_contents.py), the embedding models and the
    vector indexes, loaded as needed."""

    def __init__(
        self,
        home: DataHome,
        embed_model: str | None = None,
        placement: Placement | None = None,
        embedder: Embedder | None = None,
        notify: Notify | None = None,
        reranker: Embedder | None = None,
        rerank: bool | None = None,
        sentence_ends: Callable[[Sequence[str]], list[int]] | None = None,
    ) -> None:
        """`reranker`: the second stage's model already loaded (tests, benchmarks); else the
        re-ranking model of the models folder (core/models/embedders.py) when it is installed. `rerank=False`: E5 alone
        (None: on with a `reranker`, else as $LECTURETUI_RERANK says, on unless `off`).
        `placement`: where its models run (core/models/placement.py; the session's).
        `sentence_ends`: where sentences end in captions without punctuation (tests); else the
        sentence model of the models folder (core/models/sentence_ends.py) where it is built."""
        super().__init__(home)
        #: where the models run: the embedders, speech recognition, and the answer model's GPU
        #: that the pipeline plans its guess by (core/answer/guess.py)
        self.placement = placement or Placement()
        self._notify = notify
        self._first_stage = LibraryEmbedder(
            home.models_dir, embed_model, self.placement, embedder, notify
        )
        self._indexes = Indexes(
            home,
            lambda: self.embedder,
            lambda: (self.model_id, self._first_stage.fingerprint()),
            lambda: self.store,
        )
        self._transcribers: dict[str | None, Transcriber] = {}
        self._reranker = reranker
        if rerank is None:
            rerank = reranker is not None or os.environ.get(
                ENV_RERANK, "on"
            ).strip().lower() not in (
                "off",
                "0",
                "no",
            )
        self._rerank_wanted = rerank
        self._rerank: RerankStage | None = None
        self._sentence_ends = sentence_ends
        self._sentences_looked = False

    # -- parts -------------------------------------------------------------------------------
    @property
    def model_id(self) -> str:
        """The embedding model's name (core/library_embedder.py)."""
        return self._first_stage.model_id

    @property
    def embedder(self) -> Embedder:
        """The embedding model, loaded on first use."""
        return self._first_stage.embedder

    def token_counter(self) -> TokenCounter:
        """Its tokenizer, loaded when a file needs segmenting."""
        return self._first_stage.token_counter()

    def index(self, create: bool = True) -> VectorIndex | None:
        """E5's index of the windows (core/indexes.py)."""
        return self._indexes.windows(create)

    def unit_index(self, create: bool = True) -> VectorIndex | None:
        """E5's index of the windows' small units (core/retrieval/small_unit_index.py)."""
        return self._indexes.units(create)

    # -- the second stage (core/retrieval/rerank.py) -------------------------------------------------------
    @property
    def rerank_wanted(self) -> bool:
        """Re-ranking asked for (not turned off), whether or not its model is installed."""
        return self._rerank_wanted

    def rerank_status(self) -> str:
        """ "" when the re-ranking model (core/models/embedders.py) re-ranks; else one sentence
        saying why not."""
        if not self._rerank_wanted:
            return _("Re-ranking is off: search uses E5 alone.")
        if self._reranker is not None:
            return ""

        found = reranker().module().status(self.home.models_dir)
        if found.ready:
            return ""
        # TRANSLATORS: {problem} is one sentence: "EmbeddingGemma is not installed."
        return _("{problem} Search uses E5 alone.").format(problem=found.problem)

    def rerank_stage(self) -> RerankStage | None:
        """The re-ranking stage, or None when its model is off or not installed."""
        if self._rerank is None and not self.rerank_status():
            self._rerank = RerankStage(self.home.rerank_dir, self._load_reranker)
        return self._rerank

    def _load_reranker(self) -> Embedder:
        if self._reranker is None:
            spec = reranker()
            if self._notify:
                self._notify(_(spec.loading))
            self._reranker = load_embedder(
                self.home.models_dir / spec.folder,
                self.home.models_dir,
                model_id=spec.hub_id,
                notify=self._notify,
                placement=self.placement,
                batch_size=spec.batch_size,
                accelerator_dtype=spec.accelerator_dtype,
            )
        return self._reranker

    def rerank_pending(self) -> int:
        """How many stored segments still wait for their re-ranking vector (0 without a stage)."""
        stage = self.rerank_stage()
        return len(stage.pending(set(self.store.all_segment_ids()))) if stage else 0

    def sync_rerank(
        self, progress: CountProgress | None = None, cancel: CancelCheck | None = None
    ) -> int:
        """Write the re-ranking vectors the library lacks (see RerankStage.sync)."""
        stage = self.rerank_stage()
        return stage.sync(self.store, progress, cancel) if stage else 0

    def transcriber(self, model: str | None = None) -> Transcriber:
        """The speech recogniser for --asr-model `model` (None: the default), loaded on first use."""
        if model not in self._transcribers:
            self._transcribers[model] = WhisperTranscriber(
                self.home.models_dir, model, self.placement, notify=self._notify
            )
        return self._transcribers[model]

    def set_transcriber(self, transcriber: Transcriber, model: str | None = None) -> None:
        """Use `transcriber` for --asr-model `model` (tests, benchmarks: a model already loaded)."""
        self._transcribers[model] = transcriber

    # -- a lecture's parts and summaries (core/study/parts.py, core/summary/writing.py) ------
    def parts(self, lecture: Lecture) -> list[Part]:
        """The lecture's parts, with their key phrases (core/study/lecture_keyphrases.py)."""
        return parts_of(self.sources(), lecture)

    def find_keyphrases(self, stop: threading.Event | None = None) -> int:
        """Find the key phrases of the lectures kept before they were found at ingest."""
        return find_missing(self.sources(), self.lectures(), stop)

    def sources(self) -> Sources:
        return Sources(self.store, self.unit_index(create=False), lambda: self.embedder)

    def scoped(self, scope: Scope | None) -> ResolvedScope | None:
        """The lectures and segments a scope covers (None: no scope, the whole library)."""
        return resolve(self.store, scope) if scope else None

    @property
    def summaries(self) -> Summaries:
        """The summaries written of the lectures, part by part (core/storage/summaries.py)."""
        return Summaries(self.store)

    def preload(self, rerank: bool = True) -> None:
        """Start loading, each in a thread, what takes longest: EmbeddingGemma with its first run
        (`rerank`) and the language identifier (hybrid search tells the question's language:
        py3langid, ~0.4 s). Once per process; a later call finds them loading or loaded."""
        stage = self.rerank_stage() if rerank else None
        if stage is not None:
            stage.preload()
        preload_language()

    def warm(self, rerank: bool = True) -> None:
        """Load the embedding models and the index now (the app does this while the user types,
        a question before its search); `rerank=False`: all but the re-ranking model. As a search
        loads them: what `preload` starts in threads beside E5, not one after another."""
        self.preload(rerank)
        stage = self.rerank_stage() if rerank else None
        self.embedder  # noqa: B018 - loads it
        self.index()
        language_code("warm")  # the identifier, once its load is done
        if stage is not None:
            stage.index()

    # -- ingest ------------------------------------------------------------------------------
    def ingest(
        self,
        paths: Iterable[Path],
        options: IngestOptions | None = None,
        progress: NotedProgress | None = None,
        embed_progress: CountProgress | None = None,
        audio_progress: SecondsProgress | None = None,
        cancel: CancelCheck | None = None,
    ) -> IngestReport:
        """Store and index files. The index is saved at the end, also when interrupted.

        Audio and video files are transcribed (once: see mediaingest.py) with
        `options.asr_model`; `audio_progress(done_s, total_s)` follows each one in seconds of
        audio, and `cancel()` returning True stops between Whisper's segments (raising
        media.Cancelled; the file in progress is not stored).
        """
        options = options or IngestOptions()
        config = options.segment_config
        if config.max_tokens > 512 and config.max_tokens > self.embedder.max_tokens:
            limit = self.embedder.max_tokens
            if self._notify:
                self._notify(
                    _(
                        "--max-tokens {max_tokens} is over the model's {limit}-token limit;"
                        " using {limit}"
                    ).format(max_tokens=config.max_tokens, limit=limit)
                )
            options.segment_config = SegmentConfig(config.window_s, config.overlap_s, limit)
        dirty = False

        def embed(texts: list[str]) -> npt.NDArray[np.float32]:
            return self.embedder.embed_passages(texts, embed_progress)

        def on_saved(result: FileResult) -> None:
            nonlocal dirty
            self._indexes.apply(result, embed)
            dirty = True
            for lecture in filter(None, map(self.store.lecture, result.lectures)):
                find_keyphrases(self.sources(), lecture)  # E5 is loaded: what it is about

        try:
            self.sync_index(embed_progress, only_if_exists=True)
            media = MediaContext(self.transcriber(options.asr_model), audio_progress, cancel)
            return ingest_paths(
                self.store,
                paths,
                options,
                self.token_counter(),
                progress,
                on_saved,
                embed,
                media,
                self._ends(),
            )
        finally:
            if dirty:
                self._indexes.save()

    def _ends(self) -> EndsFn:
        """Where sentences end in captions without punctuation: the sentence model, loaded when
        an ingest first meets such captions (None where it is not built or turned off)."""

        def find(words: Sequence[str]) -> list[int] | None:
            if self._sentence_ends is None and not self._sentences_looked:
                self._sentences_looked = True
                found = sentence_model_of(self.home.models_dir)
                self._sentence_ends = found.ends if found is not None else None
            return self._sentence_ends(words) if self._sentence_ends is not None else None

        return find

    # -- keeping the index in step with the store ---------------------------------------------
    def remove_lecture(self, lecture_id: str) -> int:
        """Forget a lecture: its segments leave the store, then their vectors the index (a kill
        in between is caught up by the next sync). Returns how many segments went."""
        removed = self.store.delete_lecture(lecture_id)
        self.sync_index(only_if_exists=True)
        return len(removed)

    def sync_index(
        self, progress: CountProgress | None = None, only_if_exists: bool = False
    ) -> tuple[int, int]:
        """Embed stored segments the indexes lack and drop vectors of removed ones (see
        Indexes.sync). Returns (added, removed)."""
        return self._indexes.sync(progress, only_if_exists)

    def reindex(self, progress: CountProgress | None = None) -> int:
        """Rebuild the indexes from every stored segment (re-embedding them), the re-ranking
        vectors too."""
        count = self._indexes.rebuild(progress)
        stage = self.rerank_stage()
        if stage is not None:
            stage.rebuild(self.store, progress)
        return count

    # -- search ------------------------------------------------------------------------------
    def search(
        self,
        query: str | Asked,
        k: int = 10,
        exact: bool | None = None,
        mode: str = DEFAULT_MODE,
        scope: Scope | None = None,
        translation: str | None = None,
        guess: str | None = None,
        rerank_config: RerankConfig | None = None,
    ) -> SearchResult:
        """The top k segments for a question: the first stage ranks by `mode`, EmbeddingGemma
        re-scores its candidates (all modes but lexical; core/retrieval/rerank.py) when it is installed.
        With a scope (courses, lectures), the top k from inside it. `translation` (the question
        in the library's language, core/answer/translate.py) joins the question's vector and replaces
        it for BM25; `guess` (the lecturer's likely words, core/answer/guess.py) joins both.
        An `Asked` question (`asked`) carries its scope, translation and guess itself."""
        asked = (
            query
            if isinstance(query, Asked)
            else self.asked(query.strip(), None, scope, translation, guess)
        )
        if not asked.text.strip():
            raise LectureTuiError(
                _("The question is empty."), hint=_('e.g. lecturetui search "o que é um tensor?"')
            )
        if mode not in MODES:
            raise LectureTuiError(
                _("There is no search mode {mode!r}.").format(mode=mode),
                hint=_("use one of: {choices}").format(choices=", ".join(MODES)),
            )
        _lectures, n_segments = self.store.counts()
        if n_segments == 0:
            raise LectureTuiError(
                _("The library is empty."),
                hint=_("add transcripts with `lecturetui ingest PATH...`"),
            )
        scoped = resolve(
            self.store, asked.scope or Scope()
        )  # before any model loads: a cheap check
        stage = self.rerank_stage() if mode != "lexical" else None
        if stage is not None:
            stage.preload()  # EmbeddingGemma loads while E5 does and searches
        if any(self.store.languages()):
            preload_language()  # the question's language is told beside them
        index = self.index()
        assert index is not None
        if index.count != n_segments:
            self.sync_index()
        units = self.unit_index()
        if units is not None and units.count == 0:
            self.sync_index()
        emb = self.embedder
        if index.manifest.dim != emb.dim:
            raise SearchIndexError(
                _(
                    "The search index has {index_dim}-d vectors but {model} makes {dim}-d ones."
                ).format(index_dim=index.manifest.dim, model=emb.model_id, dim=emb.dim),
                hint=_("run `lecturetui reindex`"),
            )
        return run_search(self, asked, k, exact, mode, scoped, self.rerank_stage(), rerank_config)

    def course_map(self, question: str, hits: Sequence[HitRecord]) -> list[MapRow]:
        """Where the question's hits' lectures come back to it: every window of theirs scored
        by `window_scores` (core/study/course_map.py)."""
        return course_map(self.store, hits, lambda ids: self.window_scores(question, ids))

    def window_scores(self, question: str, segment_ids: list[int]) -> dict[int, float]:
        """How close each of these windows is to the question: EmbeddingGemma's cosine when it
        re-ranks, else E5's (the course map shades every window of a lecture by it)."""
        stage = self.rerank_stage()
        found = stage.scores(question, segment_ids) if stage is not None else {}
        if found:
            return found
        index = self.index(create=False)
        have = [i for i in segment_ids if index is not None and i in index]
        if index is None or not have:
            return {}
        vector = unit_vector(self.embedder.embed_query(question))
        return dict(zip(have, (index.vectors(have) @ vector).tolist(), strict=True))

    def asked(
        self,
        question: str,
        search_text: str | None = None,
        scope: Scope | None = None,
        translation: str | None = None,
        guess: str | None = None,
    ) -> Asked:
        """A question with the facts about it (core/retrieval/asked.py): its language is told
        once, when first wanted, the lectures' and the interface's languages winning a short
        question's near tie (core/language.py)."""
        languages = frozenset(self._lecture_languages())
        likely = languages | {interface_language()}
        told = Once(lambda: tell(question, likely))
        return Asked(
            question.strip(),
            (search_text or question).strip(),
            languages,
            told,
            scope,
            translation,
            guess=guess,
        )

    def _lecture_languages(self) -> set[str]:
        return {lang for lang in self.store.languages() if lang}
