"""The embedders exported once to ONNX, for OpenVINO (or ONNX Runtime) on a CPU.

On a laptop CPU, PyTorch runs E5 and EmbeddingGemma in fp32 with Python between every layer;
OpenVINO and ONNX Runtime run the same graph fused and on every core (bench/RESULTS.md,
"Embeddings on a CPU without PyTorch"). The export needs no network: the sentence-transformers model is loaded from
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
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lecturetui.core.hashing import file_sha256
from lecturetui.core.i18n import _
from lecturetui.core.progress import Notify

FOLDER = "onnx"
MODEL_FILE = "model.onnx"
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


@dataclass(frozen=True, slots=True)
class ExportRecord:
    """What `export.json` says of an export."""

    version: int
    source: str  # the model folder's weights fingerprint (core/models/embedding.weights_hash)
    size: int
    sha256: str
    seconds: float
    cosine: float  # the lowest cosine to PyTorch's vectors on CHECK_TEXTS


def export_dir(models_dir: Path, model_dir: Path) -> Path:
    return models_dir / FOLDER / model_dir.name


def read_record(folder: Path) -> ExportRecord | None:
    try:
        data = json.loads((folder / RECORD).read_text("utf-8"))
        known = {k: v for k, v in data.items() if k in ExportRecord.__dataclass_fields__}
        return ExportRecord(**known)
    except (OSError, ValueError, TypeError, AttributeError):
        return None


def usable(folder: Path, source: str) -> bool:
    """Whether the folder holds a whole, checked export of the weights `source` fingerprints."""
    record = read_record(folder)
    if record is None or record.version != EXPORT_VERSION or record.source != source:
        return False
    try:
        return (folder / MODEL_FILE).stat().st_size == record.size
    except OSError:
        return False


def verify(folder: Path) -> bool:
    """The export's file against its recorded sha256 (what `models setup` checks)."""
    record = read_record(folder)
    if record is None:
        return False
    try:
        return file_sha256(folder / MODEL_FILE) == record.sha256
    except OSError:
        return False


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
    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer

    from lecturetui.core.models.embedding import quiet_hf

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


def work_folder(folder: Path) -> Path:
    """A new folder beside `folder` to write an export in (renamed to `folder` once checked)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    work.chmod(0o755)
    return work


def swap_in(work: Path, folder: Path) -> None:
    """The checked export written in `work` becomes `folder` (an older one removed)."""
    if folder.exists():
        shutil.rmtree(folder)
    work.rename(folder)


def to_onnx(
    module: Any,
    inputs: tuple[Any, ...],
    path: Path,
    names: dict[str, dict[int, str]],
    outputs: dict[str, dict[int, str]],
) -> None:
    """Trace `module` on `inputs` (named and with the dynamic axes of `names`) into an ONNX file
    with `outputs`; the exporter's warnings are not the user's."""
    import torch

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
    import numpy as np
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    out = session.run(
        None, {"input_ids": ids.astype(np.int64), "attention_mask": mask.astype(np.int64)}
    )
    return np.asarray(out[0], dtype=np.float32)
