"""The embedders exported once to ONNX, for ONNX Runtime on the CPU.

On a laptop CPU, PyTorch runs E5 and EmbeddingGemma in fp32 with Python between every layer;
ONNX Runtime runs the same graph fused and on every core (bench/RESULTS.md, "Embeddings on
ONNX Runtime"). The export needs no network: the sentence-transformers model is loaded from
its folder in `models/`, traced as one graph (tokens in, the normalised sentence vector out:
the transformer, its pooling and dense layers), and written to `models/onnx/<folder>/`, beside
and never inside the model's folder (whose weights fingerprint the index). The export is
checked before it is kept: its vectors of a few texts must match PyTorch's (cosine >=
MIN_COSINE), else it is discarded and PyTorch stays. A record (`export.json`) holds the source
weights' fingerprint, the file's size and sha256; an export of other weights is made again.

torch, sentence-transformers and onnxruntime are imported here only when an export runs.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lecturetui.core.hashing import file_sha256

FOLDER = "onnx"
MODEL_FILE = "model.onnx"
#: the same graph with int8 weights (dynamic quantization of its matrix products)
INT8_FILE = "model-int8.onnx"
PRECISIONS = {"fp32": MODEL_FILE, "int8": INT8_FILE}
RECORD = "export.json"
#: bump when the exported graph changes (an older export is made again)
EXPORT_VERSION = 2
OPSET = 17
#: an export whose vectors differ more than this from PyTorch's is not kept
MIN_COSINE = 0.999
#: texts the export is checked on (both languages, short and long, a batch with padding)
CHECK_TEXTS = (
    "O que é uma variável em Python?",
    "A list is mutable: you can append to it and pop from it at any time, and a tuple cannot "
    "be changed once it is made, which is why a tuple can be the key of a dictionary.",
    "então a gente vai abrir o arquivo com open e ler linha por linha com um laço for né",
)

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class ExportRecord:
    """What `export.json` says of an export."""

    version: int
    source: str  # the model folder's weights fingerprint (core/models/embedding.weights_hash)
    size: int
    sha256: str
    seconds: float
    cosine: float  # the lowest cosine to PyTorch's vectors on CHECK_TEXTS
    int8_size: int | None = None  # the int8 file, once made
    int8_sha256: str | None = None
    int8_cosine: float | None = None


def export_dir(models_dir: Path, model_dir: Path) -> Path:
    return models_dir / FOLDER / model_dir.name


def read_record(folder: Path) -> ExportRecord | None:
    try:
        data = json.loads((folder / RECORD).read_text("utf-8"))
        return ExportRecord(**data)
    except (OSError, ValueError, TypeError):
        return None


def _file(record: ExportRecord, precision: str) -> tuple[str, int | None, str | None]:
    if precision == "int8":
        return INT8_FILE, record.int8_size, record.int8_sha256
    return MODEL_FILE, record.size, record.sha256


def usable(folder: Path, source: str, precision: str = "fp32") -> bool:
    """Whether the folder holds a whole, checked export of the weights `source` fingerprints."""
    record = read_record(folder)
    if record is None or record.version != EXPORT_VERSION or record.source != source:
        return False
    name, size, _ = _file(record, precision)
    try:
        return size is not None and (folder / name).stat().st_size == size
    except OSError:
        return False


def verify(folder: Path, precision: str = "fp32") -> bool:
    """The export's file against its recorded sha256 (what `models setup` and `doctor` check)."""
    record = read_record(folder)
    if record is None:
        return False
    name, _, digest = _file(record, precision)
    try:
        return digest is not None and file_sha256(folder / name) == digest
    except OSError:
        return False


#: an int8 file whose vectors differ more than this from the fp32 graph's is not kept
MIN_INT8_COSINE = 0.95


def quantize(folder: Path, progress: Progress | None = None) -> ExportRecord:
    """The int8 file beside a checked fp32 export (onnxruntime's dynamic quantization of the
    matrix products, per channel), checked against it; written beside, then renamed."""
    import numpy as np
    from onnxruntime.quantization import QuantType, quantize_dynamic

    record = read_record(folder)
    if record is None:
        raise RuntimeError("there is no export to quantize")
    if progress:
        progress(f"quantizing {folder.name} to int8")
    work = folder / f".{INT8_FILE}.part"
    try:
        quantize_dynamic(str(folder / MODEL_FILE), str(work), weight_type=QuantType.QInt8,
                         per_channel=True, op_types_to_quantize=["MatMul", "Gemm"])  # fmt: skip
        ids, mask = _check_inputs(folder)
        full = run_once(folder / MODEL_FILE, ids, mask)
        small = run_once(work, ids, mask)
        cosine = float(np.min(np.sum(full * small, axis=1)))
        if not cosine >= MIN_INT8_COSINE:
            raise RuntimeError(f"its int8 vectors differ too much (cosine {cosine:.3f})")
        work.replace(folder / INT8_FILE)
        path = folder / INT8_FILE
        done = ExportRecord(record.version, record.source, record.size, record.sha256,
                            record.seconds, record.cosine, path.stat().st_size,
                            file_sha256(path), round(cosine, 6))  # fmt: skip
        _write_record(folder, done)
        return done
    finally:
        work.unlink(missing_ok=True)


def _write_record(folder: Path, record: ExportRecord) -> None:
    part = folder / f".{RECORD}.part"
    part.write_text(json.dumps(asdict(record), indent=1), "utf-8")
    part.replace(folder / RECORD)


def _check_inputs(folder: Path) -> tuple[Any, Any]:
    """Token ids of CHECK_TEXTS as the export was checked on them (kept beside it)."""
    import numpy as np

    data = np.load(folder / CHECK_FILE)
    return data["input_ids"], data["attention_mask"]


CHECK_FILE = "check.npz"


def _sentence_module(st: Any) -> Any:
    """A module from token ids and their mask to the normalised sentence vector: the model's
    transformer, then its other modules (pooling, dense layers) as sentence-transformers runs
    them. A model with bidirectional and sliding-window attention (EmbeddingGemma) is given its
    attention masks made here, as plain tensor operations a trace can record (transformers
    builds them with `vmap`, which the exporter cannot follow)."""
    import torch

    transformer = st[0]
    model = transformer.auto_model
    config = getattr(model, "config", None)
    bidirectional = bool(getattr(config, "use_bidirectional_attention", False))
    window = getattr(config, "sliding_window", None)
    rest = list(st)[1:]

    class Sentence(torch.nn.Module):  # type: ignore[misc]
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

                masks = {"full_attention": additive(keys.expand(-1, 1, n, n)),
                         "sliding_attention": additive(keys & near[None, None])}  # fmt: skip
                hidden = model(input_ids=input_ids, attention_mask=masks).last_hidden_state
            else:
                hidden = model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            features = {"input_ids": input_ids, "attention_mask": attention_mask,
                        "token_embeddings": hidden}  # fmt: skip
            for module in rest:
                features = module(features)
            return torch.nn.functional.normalize(features["sentence_embedding"], dim=-1)

    return Sentence().eval()


def export(model_dir: Path, folder: Path, source: str, progress: Progress | None = None) -> ExportRecord:
    """Export the sentence-transformers model at `model_dir` into `folder` (made whole or not at
    all: written beside it, checked, then renamed). Raises RuntimeError when the export or its
    check fails."""
    say = progress or (lambda _m: None)
    t0 = time.perf_counter()
    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer

    from lecturetui.core.models.embedding import quiet_hf

    quiet_hf()
    say(f"loading {model_dir.name}")
    st = SentenceTransformer(
        str(model_dir), device="cpu", local_files_only=True,
        model_kwargs={"attn_implementation": "eager"},
    )  # fmt: skip
    module = _sentence_module(st)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.getLogger("sentence_transformers").setLevel(logging.ERROR)
        features = st.tokenize(list(CHECK_TEXTS))
    ids, mask = features["input_ids"], features["attention_mask"]
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    work.chmod(0o755)
    try:
        say(f"exporting {model_dir.name} to ONNX")
        with torch.inference_mode(False), torch.no_grad(), contextlib.redirect_stderr(
            open(os.devnull, "w")  # noqa: SIM115 - the exporter's warnings are not the user's
        ):
            torch.onnx.export(
                module, (ids, mask), str(work / MODEL_FILE), dynamo=False,
                input_names=["input_ids", "attention_mask"], output_names=["embedding"],
                dynamic_axes={"input_ids": {0: "batch", 1: "tokens"},
                              "attention_mask": {0: "batch", 1: "tokens"},
                              "embedding": {0: "batch"}},
                opset_version=OPSET, do_constant_folding=True,
            )  # fmt: skip
        say(f"checking {model_dir.name}'s export")
        with torch.no_grad():  # PyTorch's own pipeline, not the traced module, is the reference
            expected = st.encode(list(CHECK_TEXTS), normalize_embeddings=True, convert_to_numpy=True)
        got = run_once(work / MODEL_FILE, ids.numpy(), mask.numpy())
        cosine = float(np.min(np.sum(expected * got, axis=1)))
        if not cosine >= MIN_COSINE:
            raise RuntimeError(f"its vectors differ from PyTorch's (cosine {cosine:.4f})")
        path = work / MODEL_FILE
        record = ExportRecord(EXPORT_VERSION, source, path.stat().st_size, file_sha256(path),
                              round(time.perf_counter() - t0, 1), round(cosine, 6))  # fmt: skip
        np.savez(work / CHECK_FILE, input_ids=ids.numpy(), attention_mask=mask.numpy())
        _write_record(work, record)
        if folder.exists():
            shutil.rmtree(folder)
        work.rename(folder)
        return record
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_once(path: Path, ids: Any, mask: Any) -> Any:
    import numpy as np
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    out = session.run(None, {"input_ids": ids.astype(np.int64),
                             "attention_mask": mask.astype(np.int64)})  # fmt: skip
    return np.asarray(out[0], dtype=np.float32)
