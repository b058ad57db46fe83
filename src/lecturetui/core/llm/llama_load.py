"""Where a GGUF model runs in llama.cpp and how it is loaded: the GPU or the CPU, its layers,
batch and threads (`LlamaPlan`), the load itself, and the quiet file descriptor 2 around it.

llama_cpp is imported when a model is loaded, never at import time. llama.cpp writes its logs to
the process's stderr even with verbose=False, so loading and generating run with file
descriptor 2 pointed at /dev/null unless `verbose` is set (generation.py).
"""

from __future__ import annotations

import os
import platform
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import numpy as np

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.models.placement import Placement

__all__ = ["LlamaPlan", "import_llama", "load_llama", "plan_llama", "quiet_stderr", "slim_state"]

_stderr_lock = threading.Lock()


@contextmanager
def quiet_stderr(enabled: bool = True) -> Iterator[None]:
    """Point file descriptor 2 at /dev/null for the duration (C libraries write there directly)."""
    if not enabled:
        yield
        return
    with _stderr_lock:
        saved = os.dup(2)
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, 2)
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            os.close(devnull)


def import_llama() -> ModuleType:
    """llama_cpp, or the error that says answers cannot be written without it."""
    try:
        import llama_cpp  # lazy: the answer model's process alone loads llama.cpp
    except ImportError:
        raise LectureTuiError(
            _("llama-cpp-python is not installed, so answers cannot be written."),
            hint=_("run the set-up again (make run); search still works"),
        ) from None
    return cast(ModuleType, llama_cpp)


@dataclass(frozen=True, slots=True)
class LlamaPlan:
    """How a model is loaded on this machine."""

    gpu: bool
    #: "CUDA", "Metal"... on a GPU, else "CPU"
    backend: str
    #: layers offloaded to the GPU (-1: all of them)
    layers: int
    flash: bool
    batch: int
    threads: int
    batch_threads: int
    #: why answers run on the CPU, when the build cannot offload
    notice: str | None
    #: the model file, the device, the threads, the machine and llama.cpp's version
    speed_key: str

    @property
    def setup(self) -> str:
        """What else a cached prompt state depends on."""
        return f"layers {self.layers}|batch {self.batch}|flash {self.flash}"


def plan_llama(
    path: Path,
    version: str,
    placement: Placement | None = None,
    gpu_layers: int | None = None,
    flash_attn: bool | None = None,
    n_batch: int | None = None,
    n_threads: int | None = None,
) -> LlamaPlan:
    """Where and how the model at `path` loads with llama-cpp-python `version`: every layer on
    the GPU when the placement puts the answer model there (core/models/placement.py)."""
    where = placement or Placement()
    build = where.llama
    offload = build is not None and build.gpu_offload
    # every layer on the GPU when the build can offload: a 1.5B model fits any GPU's memory,
    # and reading the prompt is what a CPU is slow at (bench/RESULTS.md, answer models);
    # --device cpu keeps it on the CPU
    gpu = where.answer_on_gpu
    # on a GPU: flash attention and a large prompt batch (one pass reads the whole prompt);
    # bench/gpu.py `llama` compares them with the defaults once a GPU is at hand
    batch = n_batch or (2048 if gpu else 512)
    # one thread per physical core (about half the logical ones); on 2 cores llama.cpp with
    # 2 threads sometimes stalls 3-100x, with 1 it is steady
    threads = n_threads or max(1, (os.cpu_count() or 2) // 2)
    batch_threads = max(threads, os.cpu_count() or 1)  # prompt processing uses every core
    speed_key = "|".join(
        [
            path.name,
            str(path.stat().st_size),
            "gpu" if gpu else "cpu",
            f"{batch_threads} threads",
            platform.machine(),
            cpu_name(),
            f"{os.cpu_count()} cpus",
            f"llama-cpp-python {version}",
        ]
    )
    return LlamaPlan(
        gpu=gpu,
        backend=build.backend if gpu and build is not None else "CPU",
        layers=gpu_layers if gpu_layers is not None else (-1 if gpu else 0),
        flash=gpu if flash_attn is None else flash_attn,
        batch=batch,
        threads=threads,
        batch_threads=batch_threads,
        notice=None
        if offload
        else _("answers run on the CPU (this llama.cpp build has no GPU offload)"),
        speed_key=speed_key,
    )


def load_llama(
    llama_cpp: ModuleType, path: Path, n_ctx: int, plan: LlamaPlan, verbose: bool, quiet: bool
) -> Any:
    """The model at `path` loaded as `plan` says (on the thread that will own it)."""
    with quiet_stderr(quiet):
        return llama_cpp.Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=plan.threads,
            n_threads_batch=plan.batch_threads,
            n_gpu_layers=plan.layers,
            n_batch=min(plan.batch, n_ctx),
            n_ubatch=min(plan.batch, n_ctx),
            flash_attn=plan.flash,
            verbose=verbose,
        )


def slim_state(llm: Any, tokens: list[int], state: bytes) -> Any:
    """A llama.cpp state for the fixed start without its table of logits (answers never read
    the fixed start's logits, and llama-cpp-python would keep hundreds of MB of them)."""
    ids = np.zeros(len(llm.input_ids), dtype=np.intc)  # the whole context's room
    ids[: len(tokens)] = tokens
    return import_llama().LlamaState(
        input_ids=ids,
        scores=np.zeros((1, llm.n_vocab()), dtype=np.single),
        n_tokens=len(tokens),
        llama_state=state,
        llama_state_size=len(state),
        seed=llm._seed,
    )


def cpu_name() -> str:
    """The processor's model name (a models folder shared by two machines keeps a speed for
    each): /proc/cpuinfo's on Linux, else what the platform says."""
    try:
        with Path("/proc/cpuinfo").open(encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()
