"""llama.cpp's CUDA build loaded before numpy, in a process that will answer.

On a lent NVIDIA H200 (llama-cpp-python 0.3.36 built for CUDA 13, the numpy 2 wheel with its
bundled OpenBLAS), loading a model onto the GPU crashes the process (a segmentation fault)
whenever numpy was imported before `llama_cpp`, and works when `llama_cpp` comes first
(bench/RESULTS.md, "The moment check on a GPU"). The commands that answer import numpy long
before the answer model loads, so `main` loads llama.cpp first where its build has a CUDA
library beside it. Nothing happens on a build without one (every CPU-only machine), and
nothing is imported to find out: the check is a look into the package's folder.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

#: the commands that load the answer model (the app is the default command) ...
ANSWERING = {"ask", "app", "eval", "models", "doctor"}
#: ... and those that do not
OTHERS = {"ingest", "lectures", "show", "outline", "edit", "remove", "search", "bookmarks",
          "export", "reindex", "config"}  # fmt: skip


def cuda_build() -> bool:
    """Whether the installed llama-cpp-python holds a CUDA library (without importing it)."""
    try:
        spec = importlib.util.find_spec("llama_cpp")
    except (ImportError, ValueError):
        return False
    if spec is None or not spec.submodule_search_locations:
        return False
    for folder in spec.submodule_search_locations:
        lib = Path(folder) / "lib"
        if lib.is_dir() and any(lib.glob("libggml-cuda*")):
            return True
    return False


def llama_first(argv: list[str]) -> bool:
    """Import llama_cpp now when this command answers and the build is CUDA's; True if done."""
    command = next((a for a in argv if a in ANSWERING or a in OTHERS), None)
    if command is None:  # the app, unless only asked for help or the version
        command = "" if {"--help", "-h", "--version"} & set(argv) else "app"
    if command not in ANSWERING or "numpy" in sys.modules or not cuda_build():
        return False
    try:
        import llama_cpp  # noqa: F401
    except (ImportError, OSError):
        return False
    return True
