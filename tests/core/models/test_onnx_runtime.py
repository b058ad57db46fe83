"""The embedders on ONNX Runtime: the same vectors as PyTorch, and PyTorch whenever it cannot be."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.models import hardware, placement, runtime
from lecturetui.core.models.hardware import Gpu
from lecturetui.core.models.onnx_export import EXPORT_VERSION, RECORD, read_record, usable, verify
from lecturetui.core.models.placement import BULK, ONE_SHOT, Placement, uses_onnx
from tests.conftest import MODELS_DIR, stand_in

LONG = " ".join(["a tupla não pode ser alterada depois de criada"] * 120)  # past 512 tokens
TEXTS = ["O que é uma variável?", "A list is mutable; a tuple is not.", LONG]


@pytest.mark.slow
def test_e5_on_onnx_runtime_gives_pytorchs_vectors_and_counts(e5: Any, e5_dir: Path) -> None:
    from lecturetui.core.models.onnx_embedder import OnnxEmbedder

    folder = runtime.ensure_export(e5_dir, MODELS_DIR)  # made by the set-up, else now
    assert usable(folder, e5.fingerprint()) and verify(folder)
    want = e5.embed_passages(TEXTS)
    for name in ("openvino", "onnxruntime"):
        fast = OnnxEmbedder(e5_dir, folder, model_id=e5.model_id, runtime=name)
        assert placement.runtime_of(fast) == placement.NAMES[name] != placement.runtime_of(e5)
        assert (fast.dim, fast.query_prefix, fast.passage_prefix, fast.max_tokens) == (
            e5.dim, e5.query_prefix, e5.passage_prefix, e5.max_tokens)  # fmt: skip
        assert fast.fingerprint() == e5.fingerprint()  # the same model: the index stays valid
        got = fast.embed_passages(TEXTS)
        assert got.shape == want.shape
        # the long one truncated as PyTorch does; OpenVINO may compute in bfloat16
        assert np.min(np.sum(got * want, axis=1)) > 0.995
        assert float(fast.embed_query(TEXTS[0]) @ e5.embed_query(TEXTS[0])) > 0.995
        counter, reference = fast.token_counter(), e5.token_counter()
        assert [counter.total(t) for t in TEXTS] == [reference.total(t) for t in TEXTS]


class _Torch:
    """Stands in for PyTorch's embedder: records how it was built."""

    built: list[dict[str, Any]] = []

    def __init__(self, path: Path, **kwargs: Any) -> None:
        self.path = path
        _Torch.built.append(kwargs)


def _model(tmp_path: Path) -> tuple[Path, Path]:
    models = tmp_path / "models"
    path = models / "tiny-model"
    path.mkdir(parents=True)
    (path / "model.safetensors").write_bytes(b"weights")
    return models, path


def test_a_failed_export_leaves_pytorch_says_why_once_and_is_not_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models, path = _model(tmp_path)
    tries: list[Path] = []

    def failing(model_dir: Path, folder: Path, source: str, progress: Any = None) -> Any:
        tries.append(folder)
        raise RuntimeError("the exporter cannot trace this model")

    stand_in(monkeypatch, "torch_export", export=failing)
    stand_in(monkeypatch, "torch_embedder", TorchEmbedder=_Torch)
    monkeypatch.delenv("LECTURETUI_RUNTIME", raising=False)
    said: list[str] = []
    for _ in range(2):
        emb = runtime.load_embedder(path, models, placement=Placement("cpu"), batch_size=8,
                                    notify=said.append)  # fmt: skip
        assert isinstance(emb, _Torch) and _Torch.built[-1]["batch_size"] == 8
    assert len(tries) == 1  # remembered for these weights
    lines = [s for s in said if "PyTorch" in s]
    assert len(lines) == 2 and "cannot trace" in lines[0]
    assert not (tries[0] / RECORD).exists()  # nothing half-made is left where an export goes
    # other weights: tried again
    (path / "model.safetensors").write_bytes(b"other weights")
    runtime.load_embedder(path, models, placement=Placement("cpu"))
    assert len(tries) == 2
    # `models setup` says it in one sentence with a hint
    with pytest.raises(LectureTuiError, match="could not be exported") as caught:
        runtime.prepare_export(path, models)
    assert "PyTorch" in (caught.value.hint or "")


def test_bulk_work_on_a_gpu_keeps_pytorch_and_the_setting_chooses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LECTURETUI_RUNTIME", raising=False)
    monkeypatch.setattr(hardware.sys, "platform", "linux")
    monkeypatch.setattr(hardware, "nvidia_gpus", lambda timeout=5.0: [Gpu("H100", 80, 80, "9.0")])
    monkeypatch.setattr(hardware, "torch_version", lambda: "2.11.0")
    assert not uses_onnx(Placement(workload=BULK)) and uses_onnx(Placement("cpu"))
    assert uses_onnx(Placement(workload=ONE_SHOT))  # a one-shot command: the compiled cache
    monkeypatch.setattr(hardware, "nvidia_gpus", lambda timeout=5.0: [])
    assert uses_onnx(Placement())
    monkeypatch.setenv("LECTURETUI_RUNTIME", "torch")
    assert not uses_onnx(Placement("cpu"))
    models, path = _model(tmp_path)
    stand_in(monkeypatch, "torch_embedder", TorchEmbedder=_Torch)
    assert isinstance(runtime.load_embedder(path, models), _Torch)
    assert not (models / "onnx").exists()  # nothing exported where PyTorch runs
    monkeypatch.setenv("LECTURETUI_RUNTIME", "tensorrt")
    with pytest.raises(LectureTuiError, match="Unknown runtime"):
        uses_onnx(Placement())


def test_an_export_of_other_weights_or_a_damaged_file_is_not_used(tmp_path: Path) -> None:
    folder = tmp_path / "onnx" / "m"
    folder.mkdir(parents=True)
    (folder / "model.onnx").write_bytes(b"graph")
    record = {"version": EXPORT_VERSION, "source": "abc", "size": 5, "seconds": 1.0, "cosine": 1.0,
              "sha256": "0" * 64}  # fmt: skip
    (folder / RECORD).write_text(json.dumps(record))
    assert read_record(folder) is not None
    assert usable(folder, "abc") and not usable(folder, "other weights")
    assert not verify(folder)  # the checksum differs
    (folder / "model.onnx").write_bytes(b"cut")
    assert not usable(folder, "abc")
