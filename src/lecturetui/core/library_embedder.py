"""The library's first-stage embedding model (core/models/embedders.py's, unless the settings
name another): which one, found in the models folder; loaded on first use; its tokenizer,
which segments a file only when one needs segmenting; its weights' fingerprint, which the
vector indexes are kept for.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lecturetui.core.i18n import _
from lecturetui.core.models.embedding import Embedder, weights_hash
from lecturetui.core.models.locate import Notify, resolve_embed_model
from lecturetui.core.models.placement import Placement, runtime_of
from lecturetui.core.models.runtime import load_embedder
from lecturetui.core.models.tokens import TokenCounter

__all__ = ["LibraryEmbedder"]


class LibraryEmbedder:
    """The embedding model of a models folder: `embed_model` (None: the default one), or
    `embedder` already loaded (tests, benchmarks)."""

    def __init__(
        self,
        models_dir: Path,
        embed_model: str | None = None,
        placement: Placement | None = None,
        embedder: Embedder | None = None,
        notify: Notify | None = None,
    ) -> None:
        self._models_dir = models_dir
        self._embed_model = embed_model
        self._placement = placement
        self._embedder = embedder
        self._notify = notify
        self._path: Path | None = None
        self._model_id: str | None = embedder.model_id if embedder else None

    def _resolve(self) -> tuple[Path, str]:
        if self._path is None:
            self._path, self._model_id = resolve_embed_model(
                self._models_dir, self._embed_model, self._notify
            )
        assert self._model_id is not None
        return self._path, self._model_id

    @property
    def model_id(self) -> str:
        if self._model_id is None:
            self._resolve()
        assert self._model_id is not None
        return self._model_id

    def fingerprint(self) -> str:
        """The weights' hash, read from the file without loading the model when it is not."""
        if self._embedder is not None:
            return self._embedder.fingerprint()
        path, _model_id = self._resolve()
        return weights_hash(path)

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            path, model_id = self._resolve()
            self._embedder = load_embedder(
                path,
                self._models_dir,
                model_id=model_id,
                placement=self._placement,
                notify=self._notify,
            )
            if self._notify:
                self._notify(
                    # TRANSLATORS: "intfloat/multilingual-e5-small on cpu (OpenVINO)"
                    _("{model} on {device} ({runtime})").format(
                        model=model_id,
                        device=self._embedder.device,
                        runtime=runtime_of(self._embedder),
                    )
                )
        return self._embedder

    def token_counter(self) -> TokenCounter:
        return _LazyCounter(self, f"tokenizer:{self.model_id}")


class _LazyCounter(TokenCounter):
    """The embedder's tokenizer, loaded only when a file really needs segmenting."""

    def __init__(self, model: LibraryEmbedder, name: str) -> None:
        super().__init__(overhead=0)
        self.name = name
        self._model = model
        self._real: TokenCounter | None = None

    def _get(self) -> TokenCounter:
        if self._real is None:
            self._real = self._model.embedder.token_counter()
            self.overhead = self._real.overhead
        return self._real

    def count(self, text: str) -> int:
        return self._get().count(text)

    def counts(self, texts: Sequence[str]) -> list[int]:
        return self._get().counts(texts)  # the tokenizer run once per batch

    def total(self, text: str) -> int:
        return self._get().total(text)
