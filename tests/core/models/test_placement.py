"""Where each model runs: --device, the hardware and the runtime setting, each part settled once."""

from __future__ import annotations

import pytest

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.models import hardware
from lecturetui.core.models.hardware import LlamaReport
from lecturetui.core.models.placement import AsrDevice, Placement

OFFLOADS = LlamaReport("0.3.36", "CUDA", True, "CUDA : ARCHS = 900")
CPU_BUILD = LlamaReport("0.3.36", "CPU", False, "CPU : AVX2 = 1")


def test_the_answer_model_goes_to_the_gpu_unless_the_cpu_is_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[int] = []

    def report() -> LlamaReport:
        asked.append(1)
        return OFFLOADS

    monkeypatch.setattr(hardware, "llama_report", report)
    auto = Placement()
    assert auto.answer_on_gpu and auto.answer_on_gpu and auto.llama is OFFLOADS
    assert len(asked) == 1  # the build is asked once a placement
    assert Placement("cuda").answer_on_gpu and Placement("mps").answer_on_gpu
    assert not Placement("cpu").answer_on_gpu
    monkeypatch.setattr(hardware, "llama_report", lambda: CPU_BUILD)
    assert not Placement().answer_on_gpu
    monkeypatch.setattr(hardware, "llama_report", lambda: None)  # not installed
    assert not Placement().answer_on_gpu


def test_the_embedders_run_from_their_export_on_a_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LECTURETUI_RUNTIME", raising=False)
    monkeypatch.setattr(hardware, "likely_accelerator", lambda: "")
    assert Placement().embedders.onnx and Placement("cpu").embedders.onnx
    monkeypatch.setattr(hardware, "likely_accelerator", lambda: "cuda")
    monkeypatch.setattr(hardware, "accelerator", lambda: "cuda")
    gpu = Placement()
    assert not gpu.embedders.onnx and gpu.torch_device == "auto"  # the workload decides
    assert not Placement("cuda").embedders.onnx and Placement("cpu").embedders.onnx
    assert Placement("cpu").embedders.runtime == "auto"


def test_an_accelerator_that_is_not_there_is_said_when_pytorch_loads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("LECTURETUI_RUNTIME", raising=False)
    monkeypatch.setattr(hardware, "accelerator", lambda: "")
    placement = Placement("cuda")  # made without a question asked
    with pytest.raises(LectureTuiError, match="No CUDA GPU"):
        placement.embedders  # noqa: B018
    with pytest.raises(LectureTuiError, match="MPS is not available"):
        Placement("mps").torch_device  # noqa: B018
    with pytest.raises(LectureTuiError, match="Unknown device"):
        Placement("tpu").torch_device  # noqa: B018
    # a runtime chosen by name runs the export without asking torch (as before the placement)
    chosen = Placement("cuda", runtime="openvino").embedders
    assert chosen.onnx and chosen.runtime == "openvino"
    assert not Placement("cuda", runtime="torch").embedders.onnx


def test_speech_runs_on_cuda_only_where_asked_and_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    import ctranslate2

    seen: list[int] = []

    def count() -> int:
        seen.append(1)
        return 1

    monkeypatch.setattr(ctranslate2, "get_cuda_device_count", count)
    auto = Placement()
    assert auto.speech == AsrDevice("cuda", "float16") and auto.speech_tries_gpu
    assert str(auto.speech) == "cuda (float16)" and len(seen) == 1  # probed once
    assert Placement("cuda").speech.device == "cuda"
    for cpu in (Placement("cpu"), Placement("mps")):  # CTranslate2 has no Metal backend
        assert cpu.speech == AsrDevice("cpu", "int8") and not cpu.speech_tries_gpu
    monkeypatch.setattr(ctranslate2, "get_cuda_device_count", lambda: 0)
    assert str(Placement().speech) == "cpu (int8)"


def test_placements_compare_by_what_was_asked() -> None:
    assert Placement("cpu") == Placement("cpu") != Placement()
    assert Placement().device == "auto" and Placement().runtime is None
