"""Where llama.cpp runs an answer model, decided before it loads (no model needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lecturetui.core.llm.llama_load import plan_llama
from lecturetui.core.models import hardware
from lecturetui.core.models.hardware import LlamaReport
from lecturetui.core.models.placement import Placement


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "m.gguf"
    path.write_bytes(b"0" * 10)
    return path


def test_a_build_without_offload_runs_on_the_cpu_and_says_so(
    model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hardware, "llama_report", lambda: LlamaReport("1", "CPU", False, ""))
    plan = plan_llama(model, "0.3", Placement("cuda"), n_threads=3)
    assert (plan.gpu, plan.backend, plan.layers, plan.flash, plan.batch) == (
        False,
        "CPU",
        0,
        False,
        512,
    )
    assert plan.notice is not None and "CPU" in plan.notice
    assert plan.threads == 3 and plan.batch_threads >= 3
    assert plan.speed_key.startswith("m.gguf|10|cpu|") and plan.speed_key.endswith("0.3")
    assert plan.setup == "layers 0|batch 512|flash False"


def test_a_gpu_build_takes_every_layer_unless_the_cpu_is_asked_for(
    model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hardware, "llama_report", lambda: LlamaReport("1", "CUDA", True, ""))
    plan = plan_llama(model, "0.3")
    assert (plan.gpu, plan.backend, plan.layers, plan.flash, plan.batch) == (
        True,
        "CUDA",
        -1,
        True,
        2048,
    )
    assert plan.notice is None and "|gpu|" in plan.speed_key
    cpu = plan_llama(model, "0.3", Placement("cpu"), n_batch=256, flash_attn=True)
    assert (cpu.gpu, cpu.backend, cpu.layers, cpu.flash, cpu.batch) == (False, "CPU", 0, True, 256)
    assert cpu.notice is None  # the build could offload: the CPU was chosen
    assert plan_llama(model, "0.3", gpu_layers=12).layers == 12
