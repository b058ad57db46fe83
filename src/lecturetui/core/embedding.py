"""E5 embeddings through sentence-transformers and torch, on CUDA, MPS or CPU.

torch and sentence-transformers are imported when a model is loaded, never at import time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.segmenting import CallableTokenCounter, TokenCounter

QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
DEVICES = ("auto", "cuda", "mps", "cpu")

Vectors = npt.NDArray[np.float32]
BatchProgress = Callable[[int, int], None]


class Embedder(Protocol):
    """What the rest of lecturetui needs of an embedding model."""

    model_id: str
    dim: int
    device: str
    query_prefix: str
    passage_prefix: str
    max_tokens: int

    def embed_passages(
        self, texts: Sequence[str], progress: BatchProgress | None = None
    ) -> Vectors: ...

    def embed_query(self, text: str) -> Vectors: ...

    def token_counter(self) -> TokenCounter: ...

    def fingerprint(self) -> str: ...


def pick_device(requested: str | None = None) -> str:
    """`cuda` if present, else `mps`, else `cpu`; an explicit request is checked, not trusted."""
    import torch

    want = (requested or "auto").lower()
    if want not in DEVICES:
        raise LectureTuiError(
            f"Unknown device {requested!r}.", hint=f"use one of {', '.join(DEVICES)}"
        )
    has_cuda = torch.cuda.is_available()
    has_mps = bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_available())
    if want == "auto":
        return "cuda" if has_cuda else "mps" if has_mps else "cpu"
    if want == "cuda" and not has_cuda:
        raise LectureTuiError(
            "No CUDA GPU is available to torch here.",
            hint="use --device cpu, or install the CUDA build of torch (see the README)",
        )
    if want == "mps" and not has_mps:
        raise LectureTuiError("Apple's MPS is not available here.", hint="use --device cpu")
    return want


def quiet_hf() -> None:
    """Keep transformers' and the hub's progress bars and warnings off the user's terminal."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover
        pass


class E5Embedder:
    """An E5 model (`query: ` / `passage: ` prefixes, normalised vectors) loaded from a folder."""

    def __init__(
        self,
        path: Path,
        model_id: str | None = None,
        device: str | None = None,
        batch_size: int = 32,
    ) -> None:
        quiet_hf()
        self.device = pick_device(device)
        from sentence_transformers import SentenceTransformer

        self.path = path
        marker = _read_marker(path)
        self.model_id = model_id or str(marker.get("name") or path.name)
        try:
            self._model = SentenceTransformer(str(path), device=self.device, local_files_only=True)
        except Exception as exc:  # a folder that is not a sentence-transformers model
            raise LectureTuiError(
                f"The embedding model at {path} cannot be loaded ({type(exc).__name__}).",
                hint="run `lecturetui models setup`, or give --embed-model a sentence-transformers folder",
            ) from None
        if self.device == "cuda":
            self._model.half()
        self.dim = int(
            self._model.get_embedding_dimension()
            if hasattr(self._model, "get_embedding_dimension")
            else self._model.get_sentence_embedding_dimension()
        )
        prompts: dict[str, str] = getattr(self._model, "prompts", {}) or {}
        self.query_prefix = prompts.get("query", marker.get("query_prefix", QUERY_PREFIX))
        self.passage_prefix = prompts.get("passage", marker.get("passage_prefix", PASSAGE_PREFIX))
        self.max_tokens = int(getattr(self._model, "max_seq_length", None) or 512)
        self.batch_size = batch_size * (4 if self.device == "cuda" else 1)
        self._fingerprint: str | None = None

    def _encode(self, texts: list[str]) -> Vectors:
        vecs = self._model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        out: Vectors = np.asarray(vecs, dtype=np.float32)
        return out

    def embed_passages(
        self, texts: Sequence[str], progress: BatchProgress | None = None
    ) -> Vectors:
        """Passage vectors in the order given; batches are formed longest first (less padding)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        step = self.batch_size * 4
        done = 0
        for start in range(0, len(order), step):
            idx = order[start : start + step]
            out[idx] = self._encode([self.passage_prefix + texts[i] for i in idx])
            done += len(idx)
            if progress:
                progress(done, len(texts))
        return out

    def embed_query(self, text: str) -> Vectors:
        vec: Vectors = self._encode([self.query_prefix + text])[0]
        return vec

    def token_counter(self) -> TokenCounter:
        """The model's own tokenizer: counts are exact, prefix and special tokens included."""
        backend: Any = self._model.tokenizer.backend_tokenizer

        def count(text: str) -> int:
            return len(backend.encode(text, add_special_tokens=False).ids)

        probe = "lecture"
        overhead = len(backend.encode(self.passage_prefix + probe).ids) - count(probe)
        return CallableTokenCounter(count, overhead, name=f"tokenizer:{self.model_id}")

    def fingerprint(self) -> str:
        """sha256 over the weight files (cached beside them by size and mtime)."""
        if self._fingerprint is None:
            self._fingerprint = weights_hash(self.path)
        return self._fingerprint


def _read_marker(path: Path) -> dict[str, Any]:
    from lecturetui.core.e5convert import MARKER

    try:
        data = json.loads((path / MARKER).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def weights_hash(path: Path) -> str:
    files = sorted(
        p
        for p in path.rglob("*")
        if p.is_file() and p.suffix in (".safetensors", ".bin", ".pt", ".onnx")
    )
    stamp = [[str(p.relative_to(path)), p.stat().st_size, p.stat().st_mtime_ns] for p in files]
    cache = path / ".lecturetui-weights-hash.json"
    try:
        cached = json.loads(cache.read_text())
        if cached.get("stamp") == stamp:
            return str(cached["sha256"])
    except (OSError, ValueError, KeyError):
        pass
    digest = hashlib.sha256()
    for p in files:
        with p.open("rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
    value = digest.hexdigest()
    with contextlib.suppress(OSError):
        cache.write_text(json.dumps({"stamp": stamp, "sha256": value}))
    return value
