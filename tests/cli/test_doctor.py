"""`lecturetui doctor`: where each model runs and why, and a GPU library loaded twice, on a
machine with a GPU as a fake nvidia-smi says; llama.cpp never imported in doctor's process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lecturetui.cli import cli
from lecturetui.core.models import doctor, hardware
from lecturetui.core.models.hardware import TorchReport


@pytest.fixture
def cuda_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    """torch is the CUDA build (by its metadata, and as doctor reports it), without torch."""
    monkeypatch.setattr(hardware, "torch_version", lambda: "2.11.0+cu130")
    monkeypatch.setattr(doctor, "torch_report",
                        lambda: TorchReport("2.11.0+cu130", "13.0", True, False))  # fmt: skip


@pytest.mark.usefixtures("gpu_env", "cuda_torch")
def test_doctor_says_where_each_model_runs_and_why(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(doctor, "loaded_twice", lambda maps=None: ("libcudart",))
    monkeypatch.setenv("LECTURETUI_PRECISION", "f32")  # whatever this CPU computes
    result = CliRunner().invoke(cli, ["doctor", "--no-load"], catch_exceptions=False)
    out = result.output
    assert "NVIDIA H100 80GB HBM3" in out and "Where each model runs, and why:" in out
    lines = [line.strip() for line in out.splitlines()]
    one_shot = next(x for x in lines if x.startswith("E5, EmbeddingGemma: search, ask, show…: "))
    assert one_shot.endswith(
        ": CPU, OpenVINO, f32 — one-shot command: the CPU runtime starts faster;"
        " f32: asked for (LECTURETUI_PRECISION=f32)"
    )
    assert ("E5, EmbeddingGemma: ingest, reindex, summary, eval, the app: PyTorch on CUDA"
            " — bulk work: the GPU pays for its start") in lines  # fmt: skip
    assert any(x.startswith("answer model: ") for x in lines)
    assert any(x.startswith("speech: ") for x in lines)
    assert any(
        x.startswith("! libcudart loaded from two files in this process (pid ") for x in lines
    )
    data = json.loads(
        CliRunner().invoke(cli, ["doctor", "--no-load", "--json"], catch_exceptions=False).stdout
    )
    assert [(w["model"], w["workload"]) for w in data["where"]][:2] == [
        ("E5, EmbeddingGemma", "one-shot"),
        ("E5, EmbeddingGemma", "bulk"),
    ]
    assert any("libcudart loaded from two files" in p for p in data["problems"])


#: doctor from process start, with the small answer model loaded in its own process: what
#: doctor's process imported, after its report
DOCTOR = """
import runpy, sys
sys.argv = ["lecturetui", "doctor", "--llm", "qwen2.5-coder-0.5b"]
try:
    runpy.run_module("lecturetui", run_name="__main__")
except SystemExit as end:
    assert not end.code, end.code
print("llama_cpp imported:", "llama_cpp" in sys.modules)
"""


@pytest.mark.slow
def test_doctor_never_imports_llama_cpp_and_reads_the_model_s_process(
    home: Path, gpu_env: dict[str, str]
) -> None:
    env = {**gpu_env, "LECTURETUI_HOME": str(home)}
    run = subprocess.run([sys.executable, "-c", DOCTOR], env=env, capture_output=True, text=True,
                         timeout=300, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = [line.strip() for line in run.stdout.splitlines()]
    assert lines[-1] == "llama_cpp imported: False"
    answer = next(x for x in lines if x.startswith("answer model: "))
    assert "not loaded" not in answer  # the model's process said where it runs
    assert not any("loaded from two files" in x for x in lines)  # no GPU library here
