"""Where each model runs: --device, the hardware and the runtime setting, each part settled once."""

from __future__ import annotations

import pytest

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.models import hardware
from lecturetui.core.models.hardware import Gpu, LlamaReport
from lecturetui.core.models.placement import (
    BULK,
    ONE_SHOT,
    WORKLOADS,
    AsrDevice,
    Placement,
    answer_reason,
)

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


def gpu_machine(monkeypatch: pytest.MonkeyPatch, torch: str = "2.11.0+cu130") -> list[int]:
    """nvidia-smi lists an H100 and torch (by its metadata) is the CUDA build; asking torch
    itself fails the test. Returns nvidia-smi's calls."""
    asked: list[int] = []

    def gpus(timeout: float = 5.0) -> list[Gpu]:
        asked.append(1)
        return [Gpu("NVIDIA H100 80GB HBM3", 81559, 80000, "9.0")]

    def torch_asked() -> str:
        pytest.fail("torch was asked where a GPU is")

    monkeypatch.delenv("LECTURETUI_RUNTIME", raising=False)
    monkeypatch.setattr(hardware.sys, "platform", "linux")
    monkeypatch.setattr(hardware, "nvidia_gpus", gpus)
    monkeypatch.setattr(hardware, "torch_version", lambda: torch)
    monkeypatch.setattr(hardware, "accelerator", torch_asked)
    return asked


def test_a_one_shot_command_embeds_on_the_cpu_runtime_even_beside_a_gpu(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked = gpu_machine(monkeypatch)
    one = Placement(workload=ONE_SHOT).embedders
    assert one.onnx and one.runtime == "auto"
    assert one.why == "one-shot command: the CPU runtime starts faster"
    assert asked == []  # a one-shot command does not even ask nvidia-smi


def test_bulk_work_embeds_on_pytorch_where_a_gpu_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = gpu_machine(monkeypatch)
    bulk = Placement(workload=BULK)
    assert not bulk.embedders.onnx and bulk.torch_device == "auto"  # devices.py moves it
    assert bulk.embedders.why == "bulk work: the GPU pays for its start"
    assert bulk.gpu == "cuda" and bulk.gpu == "cuda" and asked == [1]  # asked once
    assert Placement().workload == BULK  # a placement not told: as before, the GPU
    for version, why in (("2.11.0+cpu", "torch is a CPU build"), ("", "torch is not installed")):
        monkeypatch.setattr(hardware, "torch_version", lambda v=version: v)
        cpu_torch = Placement(workload=BULK).embedders
        assert cpu_torch.onnx and cpu_torch.why == why


def test_without_a_gpu_every_workload_embeds_on_the_cpu_runtime(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gpu_machine(monkeypatch)
    monkeypatch.setattr(hardware, "nvidia_gpus", lambda timeout=5.0: [])
    for workload in WORKLOADS:
        assert Placement(workload=workload).embedders.onnx
    assert Placement(workload=BULK).embedders.why == "no GPU found by nvidia-smi"


def test_the_device_and_the_runtime_setting_override_the_workload(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gpu_machine(monkeypatch)
    for workload in WORKLOADS:
        cuda = Placement("cuda", workload=workload).embedders
        assert not cuda.onnx and cuda.why == "--device cuda"
        cpu = Placement("cpu", workload=workload).embedders
        assert cpu.onnx and cpu.why == "--device cpu" and cpu.runtime == "auto"
    monkeypatch.setenv("LECTURETUI_RUNTIME", "torch")
    forced = Placement(workload=ONE_SHOT).embedders
    assert not forced.onnx and "LECTURETUI_RUNTIME" in forced.why
    assert Placement("cpu", runtime="openvino", workload=BULK).embedders.onnx
    assert Placement("cuda").for_workload(ONE_SHOT) == Placement("cuda", workload=ONE_SHOT)


def test_an_accelerator_that_is_not_there_is_said_when_pytorch_loads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("LECTURETUI_RUNTIME", raising=False)
    monkeypatch.setattr(hardware, "accelerator", lambda: "")
    placement = Placement("cuda")  # made without a question asked
    assert not placement.embedders.onnx  # placed on PyTorch without asking torch...
    with pytest.raises(LectureTuiError, match="No CUDA GPU"):
        placement.torch_device  # noqa: B018  (...which says so where the model loads)
    with pytest.raises(LectureTuiError, match="MPS is not available"):
        Placement("mps").torch_device  # noqa: B018
    for unknown in (Placement("tpu"), Placement("tpu", workload=ONE_SHOT)):
        with pytest.raises(LectureTuiError, match="Unknown device"):
            unknown.embedders  # noqa: B018
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


def test_the_answer_model_s_place_comes_with_its_reason() -> None:
    assert answer_reason(OFFLOADS, "auto") == "llama.cpp's CUDA build: every layer on the GPU"
    assert answer_reason(OFFLOADS, "cpu") == "--device cpu"
    assert answer_reason(CPU_BUILD, None) == "this llama.cpp build has no GPU backend"
    assert answer_reason(None, None) == "llama-cpp-python is not installed"
