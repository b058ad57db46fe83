"""Embeddings of a sentence-transformers model (E5, EmbeddingGemma: core/models/embedders.py)
through torch, on CUDA, MPS or CPU.

torch, sentence-transformers and transformers are imported at the top of this module, and this
module only where a model loads on PyTorch (core/models/runtime.py's `load_embedder`, which sets
`quiet_env` first): never at start-up, never in a process that runs the ONNX export.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sentence_transformers import SentenceTransformer
from transformers.utils import logging as hf_logging

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.models.devices import WorkloadPolicy, estimate_tokens
from lecturetui.core.models.embedding import (
    PASSAGE_PREFIX,
    QUERY_PREFIX,
    Vectors,
    quiet_env,
    read_marker,
    weights_hash,
)
from lecturetui.core.models.hardware import accelerator
from lecturetui.core.models.tokens import TokenCounter, tokenizer_counter
from lecturetui.core.progress import CountProgress


def quiet_hf() -> None:
    """Keep transformers' and the hub's progress bars and warnings off the user's terminal."""
    quiet_env()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()


class TorchEmbedder:
    """A sentence-transformers model folder on PyTorch: its prompts as the query and passage
    prefixes (E5's `query: ` / `passage: ` where it has none), normalised vectors."""

    def __init__(
        self,
        path: Path,
        model_id: str | None = None,
        device: str = "auto",
        batch_size: int = 32,
        accelerator_dtype: str = "float16",
    ) -> None:
        """`device`: PyTorch's, as a placement checked it (core/models/placement.py)."""
        quiet_hf()
        # auto: start on the CPU and move to the accelerator when the work pays for its start
        # (devices.py); an explicit device is kept whatever the work
        self.policy: WorkloadPolicy | None = None
        if device == "auto":
            found = accelerator()
            self.policy = WorkloadPolicy.for_accelerator(found) if found else None
            device = "cpu"
        self.device = device
        # float16 halves the memory and time on a GPU; models whose activations overflow in it
        # (Gemma 3) run in bfloat16 there instead
        self.accelerator_dtype = accelerator_dtype
        self.path = path
        marker = read_marker(path)
        self.model_id = model_id or str(marker.get("name") or path.name)
        try:
            self._model = SentenceTransformer(str(path), device=self.device, local_files_only=True)
        except Exception as exc:  # a folder that is not a sentence-transformers model
            raise LectureTuiError(
                _("The embedding model at {path} cannot be loaded ({error}).").format(
                    path=path, error=type(exc).__name__
                ),
                hint=_(
                    "run `lecturetui models setup`, or give --embed-model a"
                    " sentence-transformers folder"
                ),
            ) from None
        if self.device == "cuda":
            self._to_accelerator_dtype()
        self.dim = int(
            self._model.get_embedding_dimension()
            if hasattr(self._model, "get_embedding_dimension")
            else self._model.get_sentence_embedding_dimension()
        )
        prompts: dict[str, str] = getattr(self._model, "prompts", {}) or {}
        self.query_prefix = prompts.get("query", marker.get("query_prefix", QUERY_PREFIX))
        self.passage_prefix = prompts.get(
            "passage", prompts.get("document", marker.get("passage_prefix", PASSAGE_PREFIX))
        )
        self.max_tokens = int(getattr(self._model, "max_seq_length", None) or 512)
        self.batch_size = batch_size
        self._fingerprint: str | None = None
        self.start_s = 0.0  # what moving to the accelerator took, once it did

    def _to_accelerator_dtype(self) -> None:
        if self.accelerator_dtype == "bfloat16":
            self._model.to(torch.bfloat16)
        else:
            self._model.half()

    @property
    def dtype(self) -> str:
        return self.accelerator_dtype if self.device == "cuda" else "float32"

    @property
    def planned(self) -> str:
        """Where the model runs and, under `auto`, where it may move: "cpu → cuda on demand"."""
        if self.policy is not None and self.device == "cpu":
            return f"cpu → {self.policy.accelerator} on demand"
        return self.device

    def use_accelerator(self) -> None:
        """Move to the accelerator now (a session that will embed a lot); no-op without one."""
        if self.policy is None or self.device != "cpu":
            return
        t0 = time.perf_counter()
        target = self.policy.accelerator
        self._model.to(target)
        if target == "cuda":
            self._to_accelerator_dtype()
        self.device = target
        self._encode(["passage: warm up", "passage: the kernels and the allocator"])
        self.start_s = time.perf_counter() - t0

    def _plan(self, texts: list[str]) -> None:
        policy = self.policy
        if policy is not None and self.device == "cpu" and policy.move(estimate_tokens(texts)):
            self.use_accelerator()

    def _encode(self, texts: list[str]) -> Vectors:
        if self.device == "cuda" and len(texts) > 1:
            return encode_pipelined(self._model, texts, self.max_tokens)
        timed = self.policy is not None and self.device == "cpu"
        t0 = time.perf_counter()
        vecs = self._model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        out: Vectors = np.asarray(vecs, dtype=np.float32)
        if timed and self.policy is not None:
            self.policy.record_cpu(estimate_tokens(texts), time.perf_counter() - t0)
        return out

    def embed_passages(
        self, texts: Sequence[str], progress: CountProgress | None = None
    ) -> Vectors:
        """Passage vectors in the order given; batches are formed longest first (less padding)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        self._plan(list(texts))
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        # a progress step: a few batches on the CPU, about a second of work on a GPU
        step = self.batch_size * (4 if self.device == "cpu" else 64)
        done = 0
        for start in range(0, len(order), step):
            idx = order[start : start + step]
            out[idx] = self._encode([self.passage_prefix + texts[i] for i in idx])
            done += len(idx)
            if progress:
                progress(done, len(texts))
        return out

    def embed_query(self, text: str) -> Vectors:
        self._plan([text])
        vec: Vectors = self._encode([self.query_prefix + text])[0]
        return vec

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self._plan(list(texts))
        return self._encode([self.query_prefix + t for t in texts])

    def token_counter(self) -> TokenCounter:
        """The model's own tokenizer: counts are exact, prefix and special tokens included."""
        return tokenizer_counter(
            self._model.tokenizer.backend_tokenizer, self.passage_prefix, self.model_id
        )

    def fingerprint(self) -> str:
        """sha256 over the weight files (cached beside them by size and mtime)."""
        if self._fingerprint is None:
            self._fingerprint = weights_hash(self.path)
        return self._fingerprint


def encode_pipelined(
    model: Any, texts: list[str], max_tokens: int, batch_tokens: int = 65_536
) -> Vectors:
    """Normalised vectors from a sentence-transformers model on CUDA (fp16 weights).

    Texts go longest first into batches of about `batch_tokens` tokens (little padding; the
    batch grows as the texts get shorter); several threads tokenize the next batches (the fast
    tokenizer releases the GIL) while the GPU runs the current one, so the GPU does not wait
    on one tokenizing thread. Vectors stay on the GPU until the end."""
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        longest = min(max_tokens, len(texts[current[0]]) // 3 + 8) if current else 0
        if current and (len(current) + 1) * longest > batch_tokens:
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    device = model.device

    def prepare(batch: list[int]) -> dict[str, Any]:
        features: dict[str, Any] = model.tokenize([texts[i] for i in batch])
        return {
            k: v.pin_memory() if isinstance(v, torch.Tensor) else v for k, v in features.items()
        }

    workers = max(1, min(8, (os.cpu_count() or 2) - 1))
    parts = []
    with (
        ThreadPoolExecutor(workers, thread_name_prefix="tokenize") as pool,
        torch.inference_mode(),
    ):
        pending = [pool.submit(prepare, b) for b in batches[:workers]]
        for n in range(len(batches)):
            features = pending[n].result()
            if n + workers < len(batches):
                pending.append(pool.submit(prepare, batches[n + workers]))
            moved = {
                k: v.to(device, non_blocking=True) if isinstance(v, torch.Tensor) else v
                for k, v in features.items()
            }
            emb = model.forward(moved)["sentence_embedding"]
            parts.append(torch.nn.functional.normalize(emb.float(), dim=-1))
    stacked = torch.cat(parts).cpu().numpy()
    out = np.zeros_like(stacked)
    out[np.concatenate([np.asarray(b) for b in batches])] = stacked
    return np.asarray(out, dtype=np.float32)
