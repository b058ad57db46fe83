"""An embedder on the CPU from the model's ONNX export (core/models/onnx_export.py).

The same model as core/models/embedding.TorchEmbedder (same tokenizer, prefixes, token limit and
weights fingerprint, vectors within the export's checked cosine), run without torch: the
model's own `tokenizer.json` through `tokenizers`, the graph through OpenVINO (which computes
in bfloat16 where the CPU has it natively, else fp32) or ONNX Runtime, on every core. Texts go
longest first into batches of about BATCH_TOKENS tokens (little padding).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.models import ov_tokenizer
from lecturetui.core.models.embedding import (
    PASSAGE_PREFIX,
    QUERY_PREFIX,
    Vectors,
    read_marker,
    weights_hash,
)
from lecturetui.core.models.locate import Notify
from lecturetui.core.models.onnx_export import MODEL_FILE, read_record
from lecturetui.core.models.ov_cache import compile_cached
from lecturetui.core.models.ov_tokenizer import OvTokenizer
from lecturetui.core.models.tokens import (
    CallableTokenCounter,
    TokenCounter,
    read_tokenizer,
    tokenizer_counter,
)
from lecturetui.core.progress import CountProgress

OPENVINO = "openvino"
ONNXRUNTIME = "onnxruntime"
Run = Callable[[Any, Any], Any]
#: a batch holds about this many tokens (its longest text times its size)
BATCH_TOKENS = 4096
MAX_BATCH = 32


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _onnxruntime(file: Path, name: str, notify: Notify | None) -> tuple[Run, int, str]:
    import onnxruntime as ort  # lazy: 0.15 s; OpenVINO, where installed, runs it instead

    options = ort.SessionOptions()
    options.intra_op_num_threads = os.cpu_count() or 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(str(file), options, providers=["CPUExecutionProvider"])

    def run(ids: Any, mask: Any) -> Any:
        return session.run(None, {"input_ids": ids, "attention_mask": mask})[0]

    return run, int(session.get_outputs()[0].shape[-1]), "float32"


def _openvino(file: Path, name: str, notify: Notify | None) -> tuple[Run, int, str]:
    record = read_record(file.parent)
    compiled = compile_cached(
        file, record.sha256 if record else "", {"PERFORMANCE_HINT": "LATENCY"}, name, notify
    )
    local = threading.local()  # an inference request per thread (the app embeds in two)

    def run(ids: Any, mask: Any) -> Any:
        request = getattr(local, "request", None)
        if request is None:
            request = local.request = compiled.create_infer_request()
        request.infer({"input_ids": ids, "attention_mask": mask})
        return request.get_output_tensor(0).data.copy()

    precision = str(compiled.get_property("INFERENCE_PRECISION_HINT")).lower()
    if "bf16" in precision or "bfloat16" in precision:
        dtype = "bfloat16"
    elif "f16" in precision or "float16" in precision:
        dtype = "float16"
    else:
        dtype = "float32"
    return run, int(compiled.outputs[0].get_partial_shape()[-1].get_length()), dtype


class _Ids:
    """The model's tokenizer as the embedder uses it: each text's ids (special tokens added, cut
    at the model's limit), a special token's id, and a token counter. Its OpenVINO form where
    `models setup` converted it (core/models/ov_tokenizer.py: loaded in tenths of a second),
    else `tokenizers` reading `tokenizer.json` (seconds)."""

    def __init__(self, hf: Any = None, ov: OvTokenizer | None = None) -> None:
        self._hf = hf
        self._ov = ov
        self.form = "openvino" if ov is not None else "tokenizers"

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        if self._ov is not None:
            return self._ov.encode_batch(texts)
        return [e.ids for e in self._hf.encode_batch(list(texts))]

    def token_to_id(self, token: str) -> int | None:
        source = self._ov if self._ov is not None else self._hf
        found = source.token_to_id(token)
        return int(found) if found is not None else None

    def counter(self, passage_prefix: str, model_id: str) -> TokenCounter:
        if self._ov is None:
            return tokenizer_counter(self._hf, passage_prefix, model_id)
        ov = self._ov
        specials = len(ov.encode_batch([""])[0])

        def many(texts: Sequence[str]) -> list[int]:  # at most the limit, as `tokenizers` counts
            rows = ov.encode_batch(texts, truncate=False)
            return [min(len(r) - specials, ov.max_tokens) for r in rows]

        def count(text: str) -> int:
            return many([text])[0]

        probe = "lecture"
        overhead = len(ov.encode_batch([passage_prefix + probe])[0]) - count(probe)
        return CallableTokenCounter(count, overhead, f"tokenizer:{model_id}", many)


def _tokenizer(path: Path, export: Path, runtime: str, max_tokens: int) -> _Ids:
    """The model's tokenizer: converted for OpenVINO beside the export when OpenVINO runs it and
    `models setup` converted it, else read by `tokenizers`."""
    if runtime == OPENVINO:
        found = ov_tokenizer.load(path, export, max_tokens)
        if found is not None:
            return _Ids(ov=found)
    hf = read_tokenizer(path / "tokenizer.json")
    hf.no_padding()
    hf.enable_truncation(max_tokens)
    return _Ids(hf=hf)


class OnnxEmbedder:
    """A sentence-transformers model folder, run through its ONNX export."""

    def __init__(
        self,
        path: Path,
        export: Path,
        model_id: str | None = None,
        runtime: str = ONNXRUNTIME,
        notify: Notify | None = None,
    ) -> None:
        self.path = path
        marker = read_marker(path)
        self.model_id = model_id or str(marker.get("name") or path.name)
        self.device = "cpu"
        self.planned = "cpu"
        st = _json(path / "config_sentence_transformers.json")
        prompts: dict[str, str] = st.get("prompts") or {}
        self.query_prefix = prompts.get("query", marker.get("query_prefix", QUERY_PREFIX))
        self.passage_prefix = prompts.get(
            "passage", prompts.get("document", marker.get("passage_prefix", PASSAGE_PREFIX))
        )
        bert = _json(path / "sentence_bert_config.json")
        config = _json(path / "tokenizer_config.json")
        limit = bert.get("max_seq_length") or config.get("model_max_length") or 512
        self.max_tokens = int(min(int(limit), 8192))
        try:
            self._tokenizer = _tokenizer(path, export, runtime, self.max_tokens)
            opener = _openvino if runtime == OPENVINO else _onnxruntime
            self._run, self.dim, dtype = opener(export / MODEL_FILE, self.model_id, notify)
        except ImportError:
            raise
        except Exception as exc:  # a broken export: the caller falls back
            raise LectureTuiError(
                _("The ONNX export of {model} cannot be loaded ({error}).").format(
                    model=self.model_id, error=type(exc).__name__
                ),
                hint=_("run `lecturetui models setup` to export it again"),
            ) from None
        self._pad = self._pad_id(config)
        self.runtime = runtime
        self.dtype = dtype
        self._fingerprint: str | None = None

    def _pad_id(self, config: dict[str, Any]) -> int:
        token = config.get("pad_token")
        if isinstance(token, dict):
            token = token.get("content")
        found = self._tokenizer.token_to_id(token) if isinstance(token, str) else None
        return int(found) if found is not None else 0

    def _encode(self, texts: list[str]) -> Vectors:
        encodings = self._tokenizer.encode_batch(texts)
        longest = max(len(e) for e in encodings)
        ids = np.full((len(texts), longest), self._pad, dtype=np.int64)
        mask = np.zeros((len(texts), longest), dtype=np.int64)
        for row, e in enumerate(encodings):
            ids[row, : len(e)] = e
            mask[row, : len(e)] = 1
        out = self._run(ids, mask)
        vectors: Vectors = np.asarray(out, dtype=np.float32)
        return vectors

    def embed_passages(
        self, texts: Sequence[str], progress: CountProgress | None = None
    ) -> Vectors:
        """Passage vectors in the order given; batches are formed longest first (less padding)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        prefixed = [self.passage_prefix + t for t in texts]
        lengths = [len(e) for e in self._tokenizer.encode_batch(prefixed)]
        order = sorted(range(len(texts)), key=lambda i: -lengths[i])
        done = 0
        start = 0
        while start < len(order):
            size = max(1, min(MAX_BATCH, BATCH_TOKENS // max(lengths[order[start]], 1)))
            idx = order[start : start + size]
            out[idx] = self._encode([prefixed[i] for i in idx])
            start += size
            done += len(idx)
            if progress:
                progress(done, len(texts))
        return out

    def warm(self) -> None:
        """Run the model once on a short text: its first run sets up what later ones reuse (a
        third of a second for E5, about one for EmbeddingGemma on 2 cores), which a thread
        loading it in the background can do before a question needs it."""
        self._encode(["warm"])

    def embed_query(self, text: str) -> Vectors:
        vec: Vectors = self._encode([self.query_prefix + text])[0]
        return vec

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Query vectors of short texts, MAX_BATCH at a time (a phrase is a few tokens)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), MAX_BATCH):
            batch = texts[start : start + MAX_BATCH]
            out[start : start + len(batch)] = self._encode([self.query_prefix + t for t in batch])
        return out

    def use_accelerator(self) -> None:
        """No accelerator here (CUDA and MPS run PyTorch)."""

    def token_counter(self) -> TokenCounter:
        """The model's own tokenizer: counts are exact, prefix and special tokens included."""
        return self._tokenizer.counter(self.passage_prefix, self.model_id)

    def fingerprint(self) -> str:
        """The source weights' sha256: the export is the same model (checked when it was made)."""
        if self._fingerprint is None:
            self._fingerprint = weights_hash(self.path)
        return self._fingerprint
