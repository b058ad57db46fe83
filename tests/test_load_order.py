"""llama.cpp's CUDA build is loaded before numpy in a command that answers
(lecturetui/load_order.py), checked in a fresh process with a stand-in llama_cpp package."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PROBE = """
import sys
from lecturetui.cli import main
sys.argv = ["lecturetui", *sys.argv[1:], "--help"]
try:
    main()
except SystemExit:
    pass
"""


def _fake_llama(root: Path, cuda: bool) -> None:
    """A llama_cpp package that says, when imported, whether numpy was there before it."""
    pkg = root / "llama_cpp"
    (pkg / "lib").mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        "import sys\nprint('llama_cpp imported; numpy before it:', 'numpy' in sys.modules)\n"
    )
    if cuda:
        (pkg / "lib" / "libggml-cuda.so").write_bytes(b"")


def _run(root: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(SRC)])}
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                         env=env, check=True, timeout=120)  # fmt: skip
    return out.stdout


@pytest.mark.parametrize("args", [["ask"], ["app"], ["--home", "somewhere", "eval"]])
def test_a_cuda_build_is_imported_first_by_a_command_that_answers(
    tmp_path: Path, args: list[str]
) -> None:
    _fake_llama(tmp_path, cuda=True)
    assert "llama_cpp imported; numpy before it: False" in _run(tmp_path, *args)


def test_nothing_is_imported_for_a_cpu_build_or_a_command_that_does_not_answer(
    tmp_path: Path,
) -> None:
    _fake_llama(tmp_path / "cuda", cuda=True)
    assert "llama_cpp imported" not in _run(tmp_path / "cuda", "search")
    assert "llama_cpp imported" not in _run(tmp_path / "cuda", "--home", "x", "ingest")
    _fake_llama(tmp_path / "cpu", cuda=False)
    assert "llama_cpp imported" not in _run(tmp_path / "cpu", "ask")
