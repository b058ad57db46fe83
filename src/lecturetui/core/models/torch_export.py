"""An embedder exported to ONNX from PyTorch (where exports go and how they are checked:
core/models/onnx_export.py).

The sentence-transformers model is loaded from its folder in `models/`, traced as one graph
(tokens in, the normalised sentence vector out: the transformer, its pooling and dense layers),
checked against PyTorch's own vectors (through ONNX Runtime), then kept.

torch, sentence-transformers and onnxruntime are imported at the top of this module, and this
module only where an export runs (core/models/runtime.py's `ensure_export`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import time
import warnings
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
import torch
from sentence_transformers import SentenceTransformer

from lecturetui.core.hashing import file_sha256
from lecturetui.core.i18n import _
from lecturetui.core.models.onnx_export import (
    CHECK_TEXTS,
    EXPORT_VERSION,
    MIN_COSINE,
    MODEL_FILE,
    OPSET,
    RECORD,
    ExportRecord,
    swap_in,
    work_folder,
)
from lecturetui.core.models.torch_embedder import quiet_hf
from lecturetui.core.progress import Notify


def _sentence_module(st: Any) -> Any:
    """A module from token ids and their mask to the normalised sentence vector: the model's
    transformer, then its other modules (pooling, dense layers) as sentence-transformers runs
    them. A model with bidirectional and sliding-window attention (EmbeddingGemma) is given its
    attention masks made here, as plain tensor operations a trace can record (transformers
    builds them with `vmap`, which the exporter cannot follow)."""
    transformer = st[0]
    model = transformer.auto_model
    config = getattr(model, "config", None)
    bidirectional = bool(getattr(config, "use_bidirectional_attention", False))
    window = getattr(config, "sliding_window", None)
    rest = list(st)[1:]

    class SentenceEncoder(torch.nn.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.st = st

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            if bidirectional and window:
                keys = attention_mask.bool()[:, None, None, :]
                n = input_ids.shape[1]
                pos = torch.arange(n, device=input_ids.device)
                near = (pos[:, None] - pos[None, :]).abs() < window
                low = torch.finfo(torch.float32).min
                zero = torch.zeros((), dtype=torch.float32)

                def additive(allowed: Any) -> Any:
                    return torch.where(allowed, zero, torch.tensor(low, dtype=torch.float32))

                masks = {
                    "full_attention": additive(keys.expand(-1, 1, n, n)),
                    "sliding_attention": additive(keys & near[None, None]),
                }
                hidden = model(input_ids=input_ids, attention_mask=masks).last_hidden_state
            else:
                hidden = model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            features = {
                "input_ids": input_ids,
                "attention_mask": attention_mask,
                "token_embeddings": hidden,
            }
            for module in rest:
                features = module(features)
            return torch.nn.functional.normalize(features["sentence_embedding"], dim=-1)

    return SentenceEncoder().eval()


def export(
    model_dir: Path, folder: Path, source: str, progress: Notify | None = None
) -> ExportRecord:
    """Export the sentence-transformers model at `model_dir` into `folder` (made whole or not at
    all: written beside it, checked, then renamed). Raises RuntimeError when the export or its
    check fails."""
    say = progress or (lambda _m: None)
    t0 = time.perf_counter()
    quiet_hf()
    # TRANSLATORS: steps of exporting a model to ONNX, shown beside a progress bar
    say(_("loading {model}").format(model=model_dir.name))
    st = SentenceTransformer(
        str(model_dir),
        device="cpu",
        local_files_only=True,
        model_kwargs={"attn_implementation": "eager"},
    )
    module = _sentence_module(st)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.getLogger("sentence_transformers").setLevel(logging.ERROR)
        features = st.tokenize(list(CHECK_TEXTS))
    ids, mask = features["input_ids"], features["attention_mask"]
    work = work_folder(folder)
    try:
        say(_("exporting {model} to ONNX").format(model=model_dir.name))
        to_onnx(
            module,
            (ids, mask),
            work / MODEL_FILE,
            {"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"}},
            {"embedding": {0: "batch"}},
        )
        say(_("checking {model}'s export").format(model=model_dir.name))
        with torch.no_grad():  # PyTorch's own pipeline, not the traced module, is the reference
            expected = st.encode(
                list(CHECK_TEXTS), normalize_embeddings=True, convert_to_numpy=True
            )
        got = run_once(work / MODEL_FILE, ids.numpy(), mask.numpy())
        cosine = float(np.min(np.sum(expected * got, axis=1)))
        if not cosine >= MIN_COSINE:
            raise RuntimeError(
                _("its vectors differ from PyTorch's (cosine {cosine})").format(
                    cosine=f"{cosine:.4f}"
                )
            )
        path = work / MODEL_FILE
        record = ExportRecord(
            EXPORT_VERSION,
            source,
            path.stat().st_size,
            file_sha256(path),
            round(time.perf_counter() - t0, 1),
            round(cosine, 6),
        )
        (work / RECORD).write_text(json.dumps(asdict(record), indent=1), "utf-8")
        swap_in(work, folder)
        return record
    finally:
        shutil.rmtree(work, ignore_errors=True)


def to_onnx(
    module: Any,
    inputs: tuple[Any, ...],
    path: Path,
    names: dict[str, dict[int, str]],
    outputs: dict[str, dict[int, str]],
) -> None:
    """Trace `module` on `inputs` (named and with the dynamic axes of `names`) into an ONNX file
    with `outputs`; the exporter's warnings are not the user's."""
    with (
        torch.inference_mode(False),
        torch.no_grad(),
        contextlib.redirect_stderr(Path(os.devnull).open("w")),
    ):
        torch.onnx.export(
            module,
            inputs,
            str(path),
            dynamo=False,
            input_names=list(names),
            output_names=list(outputs),
            dynamic_axes={**names, **outputs},
            opset_version=OPSET,
            do_constant_folding=True,
        )


def run_once(path: Path, ids: Any, mask: Any) -> Any:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    out = session.run(
        None, {"input_ids": ids.astype(np.int64), "attention_mask": mask.astype(np.int64)}
    )
    return np.asarray(out[0], dtype=np.float32)
