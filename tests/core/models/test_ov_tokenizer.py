"""The embedders' tokenizers converted for OpenVINO: the ids `tokenizers` gives, loaded fast."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lecturetui.core.models import ov_tokenizer
from lecturetui.core.models.ov_tokenizer import OvTokenizer
from tests.conftest import MODELS_DIR

TEXTS = [
    "query: O que é a regra da cadeia?",
    "passage: d(x²)/dx = 2x, e ∫ 2x dx = x² + C (a constante C).",
    "If speed and distance were all we cared about, most of this would be a waste of time.",
    "Λ = 3,5 × 10⁻³; 日本語; 한국어; def f(x): return x ** 2",
    " ".join(["a tupla não pode ser alterada depois de criada"] * 300),  # past both limits
]


class _Compiled:
    """Stands in for OpenVINO's compiled tokenizer: each text's ids, padded as it pads them."""

    def __init__(self, ids: dict[str, list[int]]) -> None:
        self.ids = ids

    def create_infer_request(self) -> _Compiled:
        return self

    def infer(self, texts: list[str]) -> dict[str, Any]:
        longest = max(len(self.ids[t]) for t in texts)
        ids = np.zeros((len(texts), longest), np.int64)
        mask = np.zeros((len(texts), longest), np.int64)
        for row, t in enumerate(texts):
            ids[row, : len(self.ids[t])] = self.ids[t]
            mask[row, : len(self.ids[t])] = 1
        return {"input_ids": ids, "attention_mask": mask}


def test_a_text_over_the_limit_keeps_its_first_ids_and_its_closing_token() -> None:
    tok = OvTokenizer(_Compiled({"short": [0, 5, 2], "long": [0, *range(10, 20), 2]}), 6, {})
    assert tok.encode_batch(["short", "long"]) == [[0, 5, 2], [0, 10, 11, 12, 13, 2]]
    assert tok.encode_batch(["long"], truncate=False)[0] == [0, *range(10, 20), 2]


def test_a_tokenizer_converted_from_another_file_or_by_another_version_is_not_used(
    tmp_path: Path,
) -> None:
    model, export = tmp_path / "model", tmp_path / "export"
    model.mkdir()
    export.mkdir()
    (model / "tokenizer.json").write_text("{}")
    assert ov_tokenizer.load(model, export, 512) is None  # none converted
    record = {"size": 999, "version": ov_tokenizer._version(), "tokens": {}}
    (export / ov_tokenizer.RECORD).write_text(json.dumps(record))
    assert ov_tokenizer.load(model, export, 512) is None  # another file
    record = {"size": 2, "version": "0.0.1", "tokens": {}}
    (export / ov_tokenizer.RECORD).write_text(json.dumps(record))
    assert ov_tokenizer.load(model, export, 512) is None  # another converter


@pytest.mark.slow
@pytest.mark.parametrize("name", ["multilingual-e5-small", "embeddinggemma-300m"])
def test_the_set_up_converts_each_tokenizer_to_the_ids_tokenizers_gives(name: str) -> None:
    from tokenizers import Tokenizer

    from lecturetui.core.models.onnx_embedder import OnnxEmbedder

    model, export = MODELS_DIR / name, MODELS_DIR / "onnx" / name
    embedder = OnnxEmbedder(model, export, runtime="openvino")
    converted = ov_tokenizer.load(model, export, embedder.max_tokens)
    assert converted is not None  # `models setup` converted it
    reference = Tokenizer.from_file(str(model / "tokenizer.json"))
    reference.enable_truncation(embedder.max_tokens)
    assert converted.encode_batch(TEXTS) == [e.ids for e in reference.encode_batch(TEXTS)]
    # two threads at once (the app embeds in two): each its own request, the same ids
    with ThreadPoolExecutor(2) as pool:
        both = list(pool.map(lambda _: converted.encode_batch(TEXTS * 4), range(8)))
    assert all(got == both[0] for got in both)
    counter = embedder.token_counter()
    want = [len(reference.encode(t, add_special_tokens=False).ids) for t in TEXTS]
    assert counter.counts(TEXTS) == want


@pytest.mark.slow
def test_a_cold_embedder_compiles_and_converts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """After the set-up, loading an embedder maps its compiled model and its converted tokenizer:
    nothing is compiled afresh (OpenVINO's cache is complete) or converted on a command's path."""
    from lecturetui.core.models import ov_cache
    from lecturetui.core.models.onnx_embedder import OnnxEmbedder

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("converted or compiled afresh on a command's path")

    monkeypatch.setattr(ov_tokenizer, "convert", refuse)
    monkeypatch.setattr(ov_cache, "_clear", refuse)  # the cache is cleared only to compile anew
    said: list[str] = []
    for name in ("multilingual-e5-small", "embeddinggemma-300m"):
        embedder = OnnxEmbedder(
            MODELS_DIR / name, MODELS_DIR / "onnx" / name, runtime="openvino", notify=said.append
        )
        assert embedder._tokenizer.form == "openvino"
    assert said == []
