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

The export itself is core/models/torch_export.py's (torch, imported only when an export runs);
here, where exports are and whether one is usable.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from lecturetui.core.hashing import file_sha256

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
