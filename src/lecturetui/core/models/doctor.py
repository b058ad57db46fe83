"""What `lecturetui doctor` and the app's library screen say: the machine (core/models/hardware.py),
where the loaded models run, and why a GPU that is there is not used."""

from __future__ import annotations

from dataclasses import dataclass, field

from lecturetui.core.i18n import _
from lecturetui.core.models.hardware import (
    Gpu,
    LlamaReport,
    TorchReport,
    find_nvcc,
    nvidia_gpus,
    torch_report,
)
from lecturetui.core.models.placement import Placement

CUDA_HINT = (
    'CMAKE_ARGS="-DGGML_CUDA=on" .venv/bin/pip install --force-reinstall --no-deps '
    "--no-cache-dir llama-cpp-python"
)


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
    embedder: object | None = None, generator: object | None = None,
    placement: Placement | None = None,
) -> Doctor:  # fmt: skip
    """The machine and, for the models given (loaded by the caller), where they run."""
    where = placement or Placement()
    gpus = nvidia_gpus()
    nvcc = find_nvcc()
    torch = torch_report()
    llama = where.llama
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
    asr = speech_device(where)
    if gpus and where.speech_tries_gpu and asr.startswith("cpu"):
        found.append(
            _(
                "CTranslate2 sees no GPU: transcription runs on the CPU (int8). Its PyPI wheel"
                " needs CUDA 12's cuBLAS and cuDNN 9 libraries ({command})."
            ).format(command="pip install nvidia-cublas-cu12 nvidia-cudnn-cu12")
        )
    return Doctor(gpus, nvcc, torch, llama, emb, llm, found, asr)


def speech_device(placement: Placement) -> str:
    """Where faster-whisper would run: "cuda (float16)" or "cpu (int8)" (CTranslate2's view)."""
    try:
        return str(placement.speech)
    except ImportError:  # pragma: no cover - faster-whisper is a dependency
        return _("unavailable (CTranslate2 is not installed)")
