"""What doctor says: where each model runs and why, for each workload, and a GPU library loaded
twice in doctor's process or in the answer model's (the machine and the model's process faked)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.models import doctor, hardware
from lecturetui.core.models.doctor import Where, diagnose, where_line
from lecturetui.core.models.hardware import Gpu, LlamaReport, TorchReport
from lecturetui.core.models.placement import BULK, ONE_SHOT, Placement
from lecturetui.core.models.precision import choose

F32_WHY = "; f32: the CPU has no bfloat16 instructions"

OFFLOADS = LlamaReport("0.3.36", "CUDA", True, "")
CPU_BUILD = LlamaReport("0.3.36", "CPU", False, "")
H100 = Gpu("NVIDIA H100 80GB HBM3", 81559, 80000, "9.0")


@dataclass(frozen=True)
class Report:
    """What the answer model's process says of itself (core/llm/model.py ModelInfo, in part)."""

    pid: int
    loaded_twice: tuple[str, ...]
    imported: tuple[str, ...] = ("llama_cpp",)


class Model:
    """The answer model as doctor sees it: where it runs, and its process's report."""

    placement = "CUDA, 28/28 layers"

    def __init__(self, report: Report | None) -> None:
        self._report = report

    def report(self) -> Report:
        if self._report is None:
            raise LectureTuiError("The answer model's process ended.")
        return self._report


def machine(monkeypatch: pytest.MonkeyPatch, gpus: list[Gpu], llama: LlamaReport,
            cuda_devices: int, twice: tuple[str, ...] = ()) -> None:  # fmt: skip
    """nvidia-smi's GPUs, torch's CUDA build by its metadata, llama.cpp's build, CTranslate2's
    GPUs and this process's maps, all faked."""
    import ctranslate2

    monkeypatch.delenv("LECTURETUI_RUNTIME", raising=False)
    monkeypatch.setattr(hardware.sys, "platform", "linux")
    monkeypatch.setattr(hardware, "nvidia_gpus", lambda timeout=5.0: gpus)
    monkeypatch.setattr(doctor, "nvidia_gpus", lambda timeout=5.0: gpus)
    monkeypatch.setattr(hardware, "torch_version", lambda: "2.11.0+cu130")
    monkeypatch.setattr(doctor, "torch_report",
                        lambda: TorchReport("2.11.0+cu130", "13.0", bool(gpus), False))  # fmt: skip
    monkeypatch.setattr(doctor, "find_nvcc", lambda: "/usr/local/cuda/bin/nvcc")
    monkeypatch.setattr(hardware, "llama_report", lambda: llama)
    monkeypatch.setattr(ctranslate2, "get_cuda_device_count", lambda: cuda_devices)
    monkeypatch.setattr(doctor, "loaded_twice", lambda maps=None: twice)
    monkeypatch.setattr(doctor, "graph_runtime", lambda runtime=None: "openvino")
    # a laptop's CPU: no bfloat16 (core/models/precision.py)
    monkeypatch.setattr(doctor, "precision_now", lambda: choose(frozenset({"avx2"}), ""))


def test_on_a_gpu_machine_each_model_s_place_comes_with_its_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    machine(monkeypatch, [H100], OFFLOADS, cuda_devices=1)
    report = diagnose(None, Model(Report(4242, ())), Placement(workload=ONE_SHOT))
    assert report.where == [
        Where("E5, EmbeddingGemma", ONE_SHOT, "CPU, OpenVINO, f32",
              "one-shot command: the CPU runtime starts faster" + F32_WHY),
        Where("E5, EmbeddingGemma", BULK, "PyTorch on CUDA", "bulk work: the GPU pays for its start"),
        Where("answer model", "", "CUDA, 28/28 layers",
              "llama.cpp's CUDA build: every layer on the GPU"),
        Where("speech", "", "cuda (float16)", "CTranslate2 sees a GPU"),
    ]  # fmt: skip
    assert report.problems == []
    assert where_line(report.where[0]) == (
        "E5, EmbeddingGemma: search, ask, show…: CPU, OpenVINO, f32"
        " — one-shot command: the CPU runtime starts faster; f32: the CPU has no bfloat16"
        " instructions"
    )
    assert where_line(report.where[2]).startswith("answer model: CUDA, 28/28 layers — ")


def test_a_gpu_library_loaded_twice_is_a_warning_for_either_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    machine(monkeypatch, [H100], OFFLOADS, cuda_devices=1, twice=("libcudart",))
    model = Model(Report(4242, ("libcublas", "libcudart")))
    report = diagnose(None, model, Placement(workload=ONE_SHOT))
    twice = [p for p in report.problems if "loaded from two files" in p]
    assert len(twice) == 2
    assert twice[0].startswith("libcudart loaded from two files in this process (pid ")
    assert twice[1].startswith(
        "libcublas, libcudart loaded from two files in the answer model's process (pid 4242)"
    )
    ended = diagnose(None, Model(None), Placement(workload=ONE_SHOT))  # its process is gone
    assert [p for p in ended.problems if "loaded from two files" in p] == [twice[0]]


def test_without_a_gpu_one_row_says_so_for_both_workloads(monkeypatch: pytest.MonkeyPatch) -> None:
    machine(monkeypatch, [], CPU_BUILD, cuda_devices=0)
    report = diagnose(None, None, Placement(workload=ONE_SHOT))
    assert report.where == [
        Where("E5, EmbeddingGemma", "", "CPU, OpenVINO, f32", "no GPU found by nvidia-smi" + F32_WHY),
        Where("answer model", "", "CPU, in a process of its own",
              "this llama.cpp build has no GPU backend"),
        Where("speech", "", "cpu (int8)", "no GPU found by nvidia-smi"),
    ]  # fmt: skip
    assert where_line(report.where[0]) == (
        "E5, EmbeddingGemma: CPU, OpenVINO, f32 — no GPU found by nvidia-smi; f32: the CPU has"
        " no bfloat16 instructions"
    )


def test_the_device_asked_for_is_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    machine(monkeypatch, [H100], OFFLOADS, cuda_devices=1)
    cpu = diagnose(None, None, Placement("cpu", workload=ONE_SHOT)).where
    assert [(w.model, w.runs, w.why) for w in cpu] == [
        ("E5, EmbeddingGemma", "CPU, OpenVINO, f32", "--device cpu" + F32_WHY),
        ("answer model", "CPU, in a process of its own", "--device cpu"),
        ("speech", "cpu (int8)", "--device cpu"),
    ]
    cuda = diagnose(None, None, Placement("cuda", workload=ONE_SHOT)).where
    assert (cuda[0].workload, cuda[0].runs, cuda[0].why) == ("", "PyTorch on CUDA", "--device cuda")
    assert cuda[1].runs == "GPU (CUDA), in a process of its own"
