"""What the machine offers: GPUs, torch's devices, llama.cpp's backend. Where each model runs
is decided from it in core/models/placement.py; `lecturetui doctor` and the app's library
screen show it (core/models/doctor.py).

Nothing heavy is imported at module level: `nvidia-smi` is asked directly (no torch needed to
list GPUs), torch and llama_cpp are imported only by the functions that report on them.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Gpu:
    name: str
    total_mib: int
    free_mib: int
    compute_capability: str  # "9.0"; "" when the driver does not say

    @property
    def cuda_arch(self) -> str:
        """The CMake CUDA architecture for this GPU ("90"), "" when unknown."""
        return self.compute_capability.replace(".", "")


@dataclass(frozen=True, slots=True)
class TorchReport:
    version: str
    cuda_build: str  # CUDA version torch was built with; "" for a CPU build
    cuda_available: bool
    mps_available: bool


@dataclass(frozen=True, slots=True)
class LlamaReport:
    version: str
    backend: str  # "CUDA", "Metal", "Vulkan", ... or "CPU"
    gpu_offload: bool  # llama_supports_gpu_offload()
    system_info: str


def nvidia_gpus(timeout: float = 5.0) -> list[Gpu]:
    """The NVIDIA GPUs `nvidia-smi` lists (none when it is absent or fails)."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return []
    query = "--query-gpu=name,memory.total,memory.free,compute_cap"
    try:
        out = subprocess.run(
            [exe, query, "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return parse_nvidia_smi(out)


def parse_nvidia_smi(text: str) -> list[Gpu]:
    gpus = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) < 3 or not cells[0]:
            continue
        try:
            total, free = int(float(cells[1])), int(float(cells[2]))
        except ValueError:
            continue
        cap = cells[3] if len(cells) > 3 and cells[3].replace(".", "").isdigit() else ""
        gpus.append(Gpu(cells[0], total, free, cap))
    return gpus


def find_nvcc() -> str:
    """CUDA's compiler on PATH, else under $CUDA_HOME (by default /usr/local/cuda); "" when
    none. The same search as scripts/llama_cmake_args.sh, so doctor and the set-up agree."""
    found = shutil.which("nvcc")
    if found:
        return found
    candidate = Path(os.environ.get("CUDA_HOME") or "/usr/local/cuda") / "bin" / "nvcc"
    return str(candidate) if candidate.is_file() and os.access(candidate, os.X_OK) else ""


def torch_report() -> TorchReport | None:
    try:
        import torch
    except ImportError:
        return None
    mps = getattr(torch.backends, "mps", None)
    return TorchReport(
        version=str(torch.__version__),
        cuda_build=str(torch.version.cuda or ""),
        cuda_available=bool(torch.cuda.is_available()),
        mps_available=bool(mps is not None and mps.is_available()),
    )


def backend_of(system_info: str, gpu_offload: bool) -> str:
    """The GPU backend named in llama.cpp's system info, "CPU" when there is none."""
    for name, marks in (
        ("CUDA", ("CUDA",)),
        ("Metal", ("Metal", "MTL")),
        ("Vulkan", ("Vulkan",)),
        ("ROCm", ("ROCm", "HIP")),
        ("SYCL", ("SYCL",)),
    ):
        if any(m in system_info for m in marks):
            return name
    return "GPU" if gpu_offload else "CPU"


def llama_report() -> LlamaReport | None:
    try:
        import llama_cpp
    except ImportError:
        return None
    offload = bool(llama_cpp.llama_supports_gpu_offload())
    raw = llama_cpp.llama_print_system_info()
    info = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    return LlamaReport(
        str(getattr(llama_cpp, "__version__", "?")), backend_of(info, offload), offload, info
    )


def accelerator() -> str:
    """The accelerator torch can use here: "cuda", "mps" or "" (none)."""
    import torch

    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    return "mps" if mps is not None and mps.is_available() else ""


def likely_accelerator() -> str:
    """The accelerator torch could use, without importing torch where it cannot have one."""
    import importlib.metadata

    if sys.platform == "darwin":
        return "mps" if platform.machine() == "arm64" else ""
    try:
        version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return ""
    if "+cpu" in version:
        return ""
    return accelerator()
