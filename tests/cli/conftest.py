"""The command line's fixtures: a machine with a GPU, as a fake nvidia-smi says."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lecturetui.core.models import hardware

H100 = "NVIDIA H100 80GB HBM3, 81559, 80000, 9.0"


@pytest.fixture
def gpu_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A machine with a GPU, as nvidia-smi says: a fake one first on PATH (here and for a
    child process)."""
    folder = tmp_path / "fake-bin"
    folder.mkdir()
    smi = folder / "nvidia-smi"
    smi.write_text(f"#!/bin/sh\necho '{H100}'\n")
    smi.chmod(0o755)
    path = f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"
    monkeypatch.setenv("PATH", path)
    monkeypatch.delenv("LECTURETUI_RUNTIME", raising=False)
    monkeypatch.setattr(hardware.sys, "platform", "linux")
    return {**os.environ, "PATH": path}
