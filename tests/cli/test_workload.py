"""Each command's workload, and where it puts the embedders on a machine with a GPU (a fake
nvidia-smi on PATH): a one-shot command on the CPU runtime without importing torch, bulk work on
PyTorch. No GPU is needed: torch is never asked whether there is one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lecturetui.cli import cli
from lecturetui.cli.context import Context, workload_of
from lecturetui.core.models import hardware, onnx_embedder, runtime
from lecturetui.core.models.placement import BULK, ONE_SHOT
from tests.conftest import SEED_CORPUS, stand_in


def test_each_command_has_its_workload() -> None:
    for command in ("search", "ask", "show", "outline", "doctor", "lectures", "export"):
        assert workload_of(command) == ONE_SHOT, command
    for command in ("ingest", "reindex", "summary", "eval", "app", None):  # None: the app
        assert workload_of(command) == BULK, command


#: in a child process on the fake GPU machine: where `search` and `ingest` place the embedders,
#: and whether deciding it imported torch. torch's metadata is made the CUDA build's (this
#: machine's is the CPU build, which keeps bulk work on the CPU runtime too)
PLACE = """
import json, sys
from lecturetui.core.models import hardware
hardware.torch_version = lambda: "2.11.0+cu130"
from lecturetui.cli.context import Context
out = {}
for command in ("search", "ingest"):
    placement = Context(None, None, "auto", command).placement
    out[command] = [placement.embedders.onnx, placement.embedders.why, placement.torch_device]
out["gpus"] = [gpu.name for gpu in hardware.nvidia_gpus()]
out["torch"] = "torch" in sys.modules
print(json.dumps(out))
"""


def test_a_gpu_machine_searches_on_the_cpu_runtime_and_ingests_on_pytorch(
    gpu_env: dict[str, str],
) -> None:
    done = subprocess.run([sys.executable, "-c", PLACE], env=gpu_env, capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["gpus"] == ["NVIDIA H100 80GB HBM3"]  # the fake answered
    assert out["search"] == [True, "one-shot command: the CPU runtime starts faster", "auto"]
    assert out["ingest"] == [False, "bulk work: the GPU pays for its start", "auto"]
    assert out["torch"] is False  # decided without torch


class Loaded:
    """Stands in for an embedder's class: records how it was built."""

    def __init__(self, kind: str, made: list[tuple[str, Any]]) -> None:
        self.kind, self.made = kind, made

    def __call__(self, *args: Any, **kwargs: Any) -> Loaded:
        self.made.append((self.kind, kwargs.get("device", args[3] if len(args) > 3 else "")))
        return self


def test_the_command_loads_e5_where_its_workload_puts_it(
    gpu_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[tuple[str, Any]] = []
    monkeypatch.setattr(hardware, "torch_version", lambda: "2.11.0+cu130")
    stand_in(monkeypatch, "torch_embedder", TorchEmbedder=Loaded("torch", made))
    monkeypatch.setattr(onnx_embedder, "OnnxEmbedder", Loaded("onnx", made))
    monkeypatch.setattr(runtime, "ensure_export", lambda path, models, notify=None: path)
    monkeypatch.setattr(runtime, "graph_runtime", lambda runtime=None: "openvino")
    model = tmp_path / "e5"
    for command in ("search", "ingest"):
        placement = Context(None, None, "auto", command).placement
        runtime.load_embedder(model, tmp_path, placement=placement)
    # search: the export on OpenVINO; ingest: PyTorch, `auto` (it moves to the GPU: devices.py)
    assert made == [("onnx", "openvino"), ("torch", "auto")]


@pytest.mark.slow
def test_search_on_a_gpu_machine_never_imports_torch(home: Path, gpu_env: dict[str, str]) -> None:
    """The real command, from process start: E5 from its export on OpenVINO (models/onnx)."""
    done = CliRunner().invoke(cli, ["ingest", str(SEED_CORPUS)], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    # every module the process imports, listed on stderr (a search ends its process at once,
    # cli/output.py's end_quickly: nothing runs after it to ask)
    command = [sys.executable, "-X", "importtime", "-m", "lecturetui", "search", "tensorflow gpu",
               "-k", "1", "--json"]  # fmt: skip
    run = subprocess.run(command, env={**gpu_env, "LECTURETUI_HOME": str(home)},
                         capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines() if "|" in line}
    assert "lecturetui.core.retrieval.search" in imported  # the list is there
    assert not {name for name in imported if name.split(".")[0] == "torch"}
    # nor OpenVINO's usage report (core/models/openvino_import.py): its no-op stand-in instead,
    # the telemetry package only tried (listed, but none of its modules loaded)
    assert "openvino.tools.ovc.telemetry_stub" in imported
    assert not {name for name in imported if name.startswith("openvino_telemetry.")}
    assert json.loads(run.stdout)["hits"]
