"""What the machine offers: GPUs, torch's devices, llama.cpp's backend. Where each model runs
is decided from it in core/models/placement.py; `lecturetui doctor` and the app's library
screen show it (core/models/doctor.py).

Nothing heavy is imported at module level: `nvidia-smi` is asked directly (no torch needed to
list GPUs), torch is imported only by the functions that report on it (`_torch`), and llama.cpp is
asked only in a process that has already imported it.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import cast


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


def _torch() -> ModuleType:
    """torch itself (raises ImportError where it is not installed)."""
    import torch  # lazy: torch takes seconds to import (and starts CUDA); only its reports need it

    return cast(ModuleType, torch)


def package_version(name: str) -> str:
    """An installed distribution's version from its metadata, without importing it; "" when it
    is not installed."""
    import importlib.metadata  # lazy: ~25 ms, and this module is imported by `--help`

    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return ""


def torch_report() -> TorchReport | None:
    try:
        torch = _torch()
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
    """The llama.cpp build here. In the answer model's process (llama_cpp imported) llama.cpp
    itself says; anywhere else its package's folder does, without importing it: a process that
    embeds never loads llama.cpp beside torch (core/llm/process.py)."""
    if "llama_cpp" in sys.modules:
        return _llama_report_loaded()
    return llama_build()


def _llama_report_loaded() -> LlamaReport | None:
    llama_cpp = sys.modules.get("llama_cpp")  # imported already: llama_report asks only then
    if llama_cpp is None:
        return None
    offload = bool(llama_cpp.llama_supports_gpu_offload())
    raw = llama_cpp.llama_print_system_info()
    info = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    return LlamaReport(
        str(getattr(llama_cpp, "__version__", "?")), backend_of(info, offload), offload, info
    )


#: llama.cpp's GPU backends, by the library each adds beside libggml-cpu
_GPU_LIBRARIES = (
    ("CUDA", "ggml-cuda"),
    ("Metal", "ggml-metal"),
    ("Vulkan", "ggml-vulkan"),
    ("ROCm", "ggml-hip"),
    ("SYCL", "ggml-sycl"),
)


def llama_build() -> LlamaReport | None:
    """The installed llama-cpp-python's version and GPU backend, from its package's files
    (None when it is not installed). A GPU backend's library beside the CPU's means the build
    can offload; Metal may also be built into libggml itself on macOS."""
    try:
        spec = importlib.util.find_spec("llama_cpp")
    except (ImportError, ValueError):
        return None
    version = package_version("llama-cpp-python")
    if spec is None or not version:
        return None
    names = [
        p.name
        for folder in spec.submodule_search_locations or []
        for p in (Path(folder) / "lib").glob("*")
    ]
    return build_from_files(version, names, sys.platform)


def build_from_files(version: str, names: list[str], system: str) -> LlamaReport:
    """The build's backend as its library files name it."""
    for backend, stem in _GPU_LIBRARIES:
        if any(stem in n for n in names):
            return LlamaReport(version, backend, True, "")
    if system == "darwin" and platform.machine() == "arm64":
        return LlamaReport(version, "Metal", True, "")  # llama-cpp-python's default there
    return LlamaReport(version, "CPU", False, "")


#: the GPU libraries two builds may each bring a copy of (torch's wheels, the CUDA toolkit)
_SHARED_GPU = ("libcudart", "libcublas", "libcublasLt", "libcudnn", "libnccl", "libnvrtc")


def loaded_twice(maps: str | None = None) -> tuple[str, ...]:
    """The GPU libraries this process has mapped from more than one file (two copies of
    cudart or cuBLAS in one process is what aborted answers beside torch on a GPU); read from
    /proc/self/maps, empty where there is none."""
    if maps is None:
        try:
            maps = Path("/proc/self/maps").read_text(errors="replace")
        except OSError:
            return ()
    files: dict[str, set[str]] = {}
    for line in maps.splitlines():
        path = line.split(maxsplit=5)[5] if len(line.split(maxsplit=5)) == 6 else ""
        name = Path(path.strip()).name
        stem = name.split(".so")[0]
        if stem in _SHARED_GPU:
            files.setdefault(stem, set()).add(str(Path(path.strip()).resolve()))
    return tuple(sorted(stem for stem, paths in files.items() if len(paths) > 1))


def accelerator() -> str:
    """The accelerator torch can use here: "cuda", "mps" or "" (none). Imports torch (and
    starts CUDA): only where a model loads on PyTorch; `gpu_here` answers without it."""
    torch = _torch()

    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    return "mps" if mps is not None and mps.is_available() else ""


def gpu_here() -> str:
    """The GPU this machine has, found without importing torch: "mps" on Apple silicon, "cuda"
    where nvidia-smi lists one, else "" (deciding a placement never starts CUDA)."""
    if sys.platform == "darwin":
        return "mps" if platform.machine() == "arm64" else ""
    return "cuda" if nvidia_gpus() else ""


def torch_version() -> str:
    """The installed torch's version from its package metadata, without importing it ("2.11.0",
    "2.11.0+cpu" for the CPU build); "" when torch is not installed."""
    return package_version("torch")
