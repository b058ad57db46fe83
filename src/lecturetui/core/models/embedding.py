"""What the rest of lecturetui needs of an embedding model (`Embedder`), and what its runtimes
share: the prefixes, the marker of a converted model, the weights' fingerprint.

The embedders themselves: core/models/torch_embedder.py (PyTorch) and onnx_embedder.py (the
ONNX export); core/models/runtime.py picks one. Nothing heavy is imported here.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from lecturetui.core.hashing import feed
from lecturetui.core.models.e5convert import MARKER
from lecturetui.core.models.embedders import first_stage
from lecturetui.core.models.tokens import TokenCounter
from lecturetui.core.progress import CountProgress

#: the prefixes of a model whose folder names none (its prompts, its marker): the first stage's,
#: as a model given with --embed-model is one of its kind
QUERY_PREFIX = first_stage().query_prefix
PASSAGE_PREFIX = first_stage().passage_prefix

Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    """What the rest of lecturetui needs of an embedding model."""

    model_id: str
    dim: int
    device: str
    query_prefix: str
    passage_prefix: str
    max_tokens: int

    def embed_passages(
        self, texts: Sequence[str], progress: CountProgress | None = None
    ) -> Vectors: ...

    def embed_query(self, text: str) -> Vectors: ...

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Query vectors of many short texts (key phrases), in their order."""
        ...

    def token_counter(self) -> TokenCounter: ...

    def fingerprint(self) -> str: ...


def quiet_env() -> None:
    """The environment that keeps the hub's progress bars and the tokenizers' threads quiet: set
    before huggingface_hub is first imported (it reads it then)."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def read_marker(path: Path) -> dict[str, Any]:
    """What lecturetui wrote beside a model it converted (core/models/e5convert.py), else {}."""
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
            feed(digest, f)
    value = digest.hexdigest()
    with contextlib.suppress(OSError):
        cache.write_text(json.dumps({"stamp": stamp, "sha256": value}))
    return value
