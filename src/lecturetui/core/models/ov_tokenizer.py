"""An embedder's tokenizer as an OpenVINO model, kept beside its export: loaded in a fraction of
a second where `tokenizers` parses the model's `tokenizer.json` on every start.

`tokenizers` reads E5's 17 MB and EmbeddingGemma's 33 MB `tokenizer.json` in about 1.4 s and
2.3 s on a 2-core CPU, holding the GIL, in every process that embeds: half of a cold search
(bench/RESULTS.md, "Cold start, second round"). openvino-tokenizers (Intel's, released with
OpenVINO and versioned with it) converts the same tokenizer into an OpenVINO model once, at
`models setup`; a command then reads and compiles it in tenths of a second. The conversion is
checked against `tokenizers` on sentences of several languages, formulas and a text over the
token limit, and kept only where every id matches (else the model keeps `tokenizers`). A record
(`tokenizer-ov.json`) names the source file's size and sha256 and the converter's version: a
tokenizer converted from another file or by another version is not used.

The converted tokenizer adds the special tokens and is not truncated: a text over the limit is
cut to its first `max_tokens - 1` ids and its closing special token, as `tokenizers` truncates
(both models' templates close with one; the check holds it).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import numpy as np

from lecturetui.core.atomic import write_atomic
from lecturetui.core.hashing import file_sha256
from lecturetui.core.models.hardware import package_version
from lecturetui.core.models.openvino_import import openvino
from lecturetui.core.models.ov_cache import DEVICE, compile_locked
from lecturetui.core.models.tokens import read_tokenizer

MODEL = "tokenizer-ov.xml"
RECORD = "tokenizer-ov.json"
SOURCE = "tokenizer.json"
#: what the converted tokenizer is checked on against `tokenizers`
PROBES = (
    "query: what is the derivative of x squared?",
    "passage: a derivada de d(x²) é 2x dx, e ∫ f(x) dx = F(x) + C.",
    "Olá, mundo! Ação, coração, informação — 3,5 × 10⁻³ m/s²",
    "El teorema fundamental del cálculo: ¿por qué funciona?",
    "def f(x):\n    return x ** 2  # código\t\ttab   espaços",
    "emoji 😀, 日本語の講義, 한국어 강의, Ελληνικά, русский язык",
    "",
)


def _source(model_dir: Path) -> dict[str, Any]:
    path = model_dir / SOURCE
    return {"size": path.stat().st_size, "sha256": file_sha256(path)}


def _named(model_dir: Path) -> list[str]:
    """The special tokens the model's tokenizer_config.json names (pad, bos, eos, unk)."""
    try:
        config = json.loads((model_dir / "tokenizer_config.json").read_text("utf-8"))
    except (OSError, ValueError):
        return []
    found = [config.get(f"{k}_token") for k in ("pad", "bos", "eos", "unk")]
    found = [x.get("content") if isinstance(x, dict) else x for x in found]
    return [x for x in found if isinstance(x, str)]


def _version() -> str:
    return package_version("openvino-tokenizers")


def _openvino_tokenizers() -> ModuleType:
    """openvino-tokenizers, which registers its operations with OpenVINO as it is imported."""
    import openvino_tokenizers  # lazy: only an embedder run by OpenVINO needs it

    return cast(ModuleType, openvino_tokenizers)


class OvTokenizer:
    """A compiled tokenizer: `encode_batch` gives each text's ids, special tokens added, cut at
    `max_tokens` as `tokenizers` cuts them."""

    def __init__(self, compiled: Any, max_tokens: int, tokens: dict[str, int]) -> None:
        self._compiled = compiled
        self.max_tokens = max_tokens
        self._tokens = tokens
        self._local = threading.local()  # a request per thread: the app tokenizes in two
        # its first run sets up its tables (a third of a second or more): done at once in the
        # background, while the model it feeds compiles, and waited for by the first text
        self._ready = threading.Event()
        # not a daemon: a process that ends meanwhile waits for it (OpenVINO torn down under a
        # running inference crashes the interpreter on its way out)
        threading.Thread(target=self._warm, name="tokenizer-warm").start()

    def _warm(self) -> None:
        try:
            self._encode(["warm"])
        except Exception:  # said by the first real text, which runs it again
            pass
        finally:
            self._ready.set()

    def encode_batch(self, texts: Sequence[str], truncate: bool = True) -> list[list[int]]:
        if not texts:
            return []
        self._ready.wait()
        return self._encode(texts, truncate)

    def _encode(self, texts: Sequence[str], truncate: bool = True) -> list[list[int]]:
        request = getattr(self._local, "request", None)
        if request is None:
            request = self._local.request = self._compiled.create_infer_request()
        out = request.infer(list(texts))
        ids = np.asarray(out["input_ids"])
        lengths = np.asarray(out["attention_mask"]).sum(axis=1)
        rows = [[int(x) for x in ids[i, : int(n)]] for i, n in enumerate(lengths)]
        if not truncate:
            return rows
        cut = self.max_tokens
        return [r if len(r) <= cut else [*r[: cut - 1], r[-1]] for r in rows]

    def token_to_id(self, token: str) -> int | None:
        """The id of one of the model's named special tokens (pad, bos, eos, unk)."""
        return self._tokens.get(token)


def load(model_dir: Path, export: Path, max_tokens: int) -> OvTokenizer | None:
    """The converted tokenizer kept beside the export, where its record matches the model's
    `tokenizer.json` (by size: its sha256 was checked when it was converted) and the installed
    converter; else None (the caller reads `tokenizer.json`)."""
    try:
        record = json.loads((export / RECORD).read_text("utf-8"))
        size = (model_dir / SOURCE).stat().st_size
    except (OSError, ValueError):
        return None
    try:
        if record.get("size") != size or record.get("version") != _version():
            return None
        ov = openvino()
        _openvino_tokenizers()
        compiled = compile_locked(ov.Core(), str(export / MODEL), DEVICE, {})
    except Exception:  # not installed or unreadable: `tokenizers` reads it
        return None
    return OvTokenizer(compiled, max_tokens, dict(record.get("tokens") or {}))


def convert(model_dir: Path, export: Path, max_tokens: int) -> bool:
    """`models setup`: the model's tokenizer converted and kept beside its export, where every
    id of PROBES (and of a text over the limit) matches `tokenizers`; returns whether it was
    kept. Nothing is written for a converter not installed or a tokenizer it cannot convert."""
    if load(model_dir, export, max_tokens) is not None:
        return True
    try:
        ov = openvino()
        converter = _openvino_tokenizers()
        from transformers import AutoTokenizer  # lazy: seconds to import; setup alone converts

        model = converter.convert_tokenizer(AutoTokenizer.from_pretrained(str(model_dir)))
        reference = read_tokenizer(model_dir / SOURCE)
    except Exception:  # no converter, or a tokenizer it does not know
        return False
    reference.no_padding()
    reference.enable_truncation(max_tokens)
    export.mkdir(parents=True, exist_ok=True)
    work = export / f".{MODEL}"
    ov.save_model(model, str(work))
    tokens = {t: i for t in _named(model_dir) if (i := reference.token_to_id(t)) is not None}
    converted = OvTokenizer(compile_locked(ov.Core(), str(work), DEVICE, {}), max_tokens, tokens)
    probes = [*PROBES, " ".join(PROBES) * (max_tokens // 20 + 1)]
    expected = [e.ids for e in reference.encode_batch(probes)]
    if converted.encode_batch(probes) != expected:
        for name in (work, work.with_suffix(".bin")):
            name.unlink(missing_ok=True)
        return False
    work.with_suffix(".bin").replace(export / Path(MODEL).with_suffix(".bin"))
    work.replace(export / MODEL)
    record = {**_source(model_dir), "version": _version(), "tokens": tokens}
    write_atomic(export / RECORD, json.dumps(record).encode())
    return True
