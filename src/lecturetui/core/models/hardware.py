"""What the machine offers and what lecturetui uses of it: GPUs, torch's devices, llama.cpp's
backend. `lecturetui doctor` and the app's library screen show it.

Nothing heavy is imported at module level: `nvidia-smi` is asked directly (no torch needed to
list GPUs), torch and llama_cpp are imported only by the functions that report on them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from lecturetui.core.i18n import _

CUDA_HINT = (
    'CMAKE_ARGS="-DGGML_CUDA=on" .venv/bin/pip install --force-reinstall --no-deps '
    "--no-cache-dir llama-cpp-python"
)


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


@dataclass(frozen=True, slots=True)
class Doctor:
    """Everything `lecturetui doctor` shows; `problems` are sentences with their hints."""

    gpus: list[Gpu]
    nvcc: str  # path of CUDA's compiler, "" when absent
    torch: TorchReport | None
    llama: LlamaReport | None
    embedder_device: str  # where E5 runs now ("cuda (float16)", "cpu (float32)", ...)
    llm_device: str  # where the answer model runs ("CUDA, all 29 layers", "CPU", ...)
    problems: list[str] = field(default_factory=list)
    asr_device: str = ""  # where speech recognition runs ("cuda (float16)", "cpu (int8)")


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


def llama_on_gpu(build: LlamaReport | None, device: str | None) -> bool:
    """Does the answer model run on a GPU? When this llama.cpp build can offload and `--device`
    is not `cpu` (every layer then goes there: core/answer/generation.py)."""
    return build is not None and build.gpu_offload and (device or "auto") != "cpu"


def problems(gpus: list[Gpu], nvcc: str, torch: TorchReport | None,
             llama: LlamaReport | None) -> list[str]:  # fmt: skip
    """Why a GPU that is there is not used, each as one sentence with the command that fixes it."""
    out = []
    if gpus and torch is not None and not torch.cuda_available:
        why = (
            _("a CPU build")
            if not torch.cuda_build
            else _("built for CUDA {version}").format(version=torch.cuda_build)
        )
        out.append(
            # TRANSLATORS: {build} is "a CPU build" or "built for CUDA 12.6"
            _(
                "torch ({version}, {build}) cannot use the {gpu}: the embedding model runs on the"
                " CPU. Install a CUDA build: {command}"
            ).format(
                version=torch.version,
                build=why,
                gpu=gpus[0].name,
                command=".venv/bin/pip install --force-reinstall torch "
                "--index-url https://download.pytorch.org/whl/cu126",
            )
        )
    if gpus and llama is not None and not llama.gpu_offload:
        if nvcc:
            out.append(
                _(
                    "llama.cpp was built for the CPU although CUDA's compiler is here ({nvcc}):"
                    " answers run on the CPU. Rebuild it: make setup (or {command})"
                ).format(nvcc=nvcc, command=CUDA_HINT)
            )
        else:
            out.append(
                _(
                    "llama.cpp was built for the CPU and CUDA's compiler (nvcc) is not installed,"
                    " so answers run on the CPU although a {gpu} is here. Install the CUDA"
                    " toolkit, then: {command}"
                ).format(gpu=gpus[0].name, command=CUDA_HINT)
            )
    if llama is None:
        out.append(
            _("llama-cpp-python is not installed: search works, answers do not. Run make setup")
        )
    if torch is None:
        out.append(_("torch is not installed: nothing can be embedded. Run make setup"))
    return out


def diagnose(
    embedder: object | None = None, generator: object | None = None, device: str | None = None
) -> Doctor:
    """The machine and, for the models given (loaded by the caller), where they run."""
    gpus = nvidia_gpus()
    nvcc = find_nvcc()
    torch = torch_report()
    llama = llama_report()
    if embedder is None:
        emb = _("not loaded")
    else:
        device = str(getattr(embedder, "device", "?"))
        planned = str(getattr(embedder, "planned", device))
        from lecturetui.core.models.runtime import runtime_of

        emb = f"{planned} ({getattr(embedder, 'dtype', '?')}, {runtime_of(embedder)})"
    llm = _("not loaded") if generator is None else str(getattr(generator, "placement", "?"))
    found = problems(gpus, nvcc, torch, llama)
    if generator is not None and llama is not None and llama.gpu_offload and llm == "CPU":
        found.append(_("The answer model runs on the CPU because --device cpu was given."))
    asr = speech_device(device)
    if gpus and device in (None, "auto", "cuda") and asr.startswith("cpu"):
        found.append(
            _(
                "CTranslate2 sees no GPU: transcription runs on the CPU (int8). Its PyPI wheel"
                " needs CUDA 12's cuBLAS and cuDNN 9 libraries ({command})."
            ).format(command="pip install nvidia-cublas-cu12 nvidia-cudnn-cu12")
        )
    return Doctor(gpus, nvcc, torch, llama, emb, llm, found, asr)


def speech_device(device: str | None) -> str:
    """Where faster-whisper would run: "cuda (float16)" or "cpu (int8)" (CTranslate2's view)."""
    try:
        from lecturetui.core.models.whisper import choose_device

        return str(choose_device(device))
    except ImportError:  # pragma: no cover - faster-whisper is a dependency
        return _("unavailable (CTranslate2 is not installed)")
