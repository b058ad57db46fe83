"""What `lecturetui doctor` and the app's library screen say: the machine (core/models/hardware.py),
where each model runs and why (core/models/placement.py), why a GPU that is there is not used,
and a GPU library loaded twice in one process (here, or in the answer model's)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import N_, _
from lecturetui.core.models.embedders import EMBEDDERS, EmbedderSpec
from lecturetui.core.models.hardware import (
    Gpu,
    LlamaReport,
    TorchReport,
    find_nvcc,
    loaded_twice,
    nvidia_gpus,
    torch_report,
)
from lecturetui.core.models.locate import DEFAULT_EMBED_MODEL
from lecturetui.core.models.onnx_export import export_dir
from lecturetui.core.models.placement import (
    BULK,
    NAMES,
    ONE_SHOT,
    WORKLOADS,
    EmbedderPlacement,
    Placement,
    device_reason,
    graph_runtime,
    no_gpu_reason,
    runtime_of,
)
from lecturetui.core.models.precision import Precision
from lecturetui.core.models.precision import current as precision_now

CUDA_HINT = (
    'CMAKE_ARGS="-DGGML_CUDA=on" .venv/bin/pip install --force-reinstall --no-deps '
    "--no-cache-dir llama-cpp-python"
)


@dataclass(frozen=True, slots=True)
class Where:
    """Where a model runs and why, for one workload ("one-shot", "bulk"), or for both ("")."""

    model: str
    workload: str
    runs: str  # "CPU, OpenVINO", "PyTorch on CUDA", "CUDA, 28/28 layers"
    why: str  # "one-shot command: the CPU runtime starts faster", "--device cpu"


@dataclass(frozen=True, slots=True)
class Doctor:
    """Everything `lecturetui doctor` shows; `problems` are sentences with their hints."""

    gpus: list[Gpu]
    nvcc: str  # path of CUDA's compiler, "" when absent
    torch: TorchReport | None
    llama: LlamaReport | None
    embedder_device: (
        str  # where the first stage's embedder runs now ("cuda (float16)", "cpu (float32)", ...)
    )
    llm_device: str  # where the answer model runs ("CUDA, all 29 layers", "CPU", ...)
    problems: list[str] = field(default_factory=list)
    asr_device: str = ""  # where speech recognition runs ("cuda (float16)", "cpu (int8)")
    where: list[Where] = field(default_factory=list)  # each model, where and why


def problems(
    gpus: list[Gpu], nvcc: str, torch: TorchReport | None, llama: LlamaReport | None
) -> list[str]:
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
    embedder: object | None = None,
    generator: object | None = None,
    placement: Placement | None = None,
    models_dir: Path | None = None,
) -> Doctor:
    """The machine and, for the models given (loaded by the caller), where they run; with
    `models_dir`, whether the sentence model is built there."""
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
    found += twice(loaded_twice(), os.getpid(), _("this process"))
    info = model_report(generator)
    if info is not None:
        found += twice(
            tuple(getattr(info, "loaded_twice", ())),
            int(getattr(info, "pid", 0)),
            _("the answer model's process"),
        )
    answer = llm if generator is not None else planned_answer(where)
    rows = [
        *embedder_rows(where),
        Where(_("answer model"), "", answer, where.answer_why),
        Where(_("speech"), "", asr, speech_reason(where, asr, gpus)),
        *([sentence_row(models_dir)] if models_dir is not None else []),
    ]
    return Doctor(gpus, nvcc, torch, llama, emb, llm, found, asr, rows)


#: the commands of each workload, as doctor names them (the command line decides: cli/context.py)
WORKLOAD_NAMES = {
    ONE_SHOT: N_("search, ask, show…"),
    BULK: N_("ingest, reindex, summary, eval, the app"),
}


def sentence_row(models_dir: Path) -> Where:
    """Where the sentence model (core/models/sentence_ends.py) runs, or why it does not."""
    # lazy: numpy, 80 ms that --help would pay (it reads this module's gathering module)
    from lecturetui.core.models.sentence_ends import ENV, ready, turned_off

    model = _("sentence ends")
    if turned_off():
        return Where(model, "", _("off"), f"{ENV}=off")
    if not ready(export_dir(models_dir, models_dir / DEFAULT_EMBED_MODEL)):
        return Where(
            model,
            "",
            _("not built"),
            _(
                "captions without punctuation are cut by speech's words; run `lecturetui models setup`"
            ),
        )
    return Where(model, "", _("CPU, at ingest"), _("captions without punctuation only"))


def where_line(row: Where) -> str:
    """A model, where it runs and why; the workload first where the two place it apart."""
    work = _(WORKLOAD_NAMES[row.workload]) + ": " if row.workload else ""
    return f"{row.model}: {work}{row.runs} — {row.why}"


def embedder_rows(
    placement: Placement, embedders: Sequence[EmbedderSpec] = EMBEDDERS
) -> list[Where]:
    """Every embedder's place (the same rule places them all: "E5, EmbeddingGemma") for each
    workload; one row where both workloads run them alike, with the reason the machine gives."""
    each = {
        w: placement if w == placement.workload else placement.for_workload(w) for w in WORKLOADS
    }
    runs = {w: embedder_runs(p.embedders, p) for w, p in each.items()}
    why = {w: each[w].embedders.why for w in WORKLOADS}
    for w in WORKLOADS:
        chosen = _openvino_precision(each[w].embedders)
        if chosen is not None:  # the precision OpenVINO computes in, and why
            runs[w] += f", {chosen.name}"
            why[w] += f"; {chosen.name}: {chosen.why}"
    model = ", ".join(e.name for e in embedders)
    if len(set(runs.values())) == 1:
        return [Where(model, "", runs[BULK], why[BULK])]
    return [Where(model, w, runs[w], why[w]) for w in WORKLOADS]


def _openvino_precision(embedders: EmbedderPlacement) -> Precision | None:
    """The precision the embedders compute in where OpenVINO runs them; None elsewhere."""
    if embedders.onnx and graph_runtime(embedders.runtime) == "openvino":
        return precision_now()
    return None


def embedder_runs(embedders: EmbedderPlacement, placement: Placement) -> str:
    """Where the embedders run and on what: "CPU, OpenVINO", "PyTorch on CUDA"."""
    if embedders.onnx:
        return _("CPU, {runtime}").format(runtime=NAMES[graph_runtime(embedders.runtime)])
    device = placement.device if placement.device != "auto" else placement.gpu or "cpu"
    return _("PyTorch on {device}").format(device=device.upper())


def planned_answer(placement: Placement) -> str:
    """Where the answer model will run, before it is loaded."""
    llama = placement.llama
    if llama is None:
        return _("not installed")
    if placement.answer_on_gpu:
        return _("GPU ({backend}), in a process of its own").format(backend=llama.backend)
    return _("CPU, in a process of its own")


def speech_reason(placement: Placement, asr: str, gpus: list[Gpu]) -> str:
    """Why speech recognition runs where CTranslate2 put it."""
    if asr.startswith("cuda"):
        return _("CTranslate2 sees a GPU")
    if placement.device == "cpu":
        return device_reason("cpu")
    if placement.device == "mps" or placement.gpu == "mps":
        return _("CTranslate2 has no Metal backend")
    return _("CTranslate2 sees no GPU") if gpus else no_gpu_reason()


def model_report(generator: object | None) -> Any:
    """What the answer model's process says of itself (core/llm/process.py `report()`: its pid,
    what it imported, the GPU libraries it loaded twice); None for a model without one."""
    report = getattr(generator, "report", None)
    if not callable(report):
        return None
    try:
        return report()
    except LectureTuiError:  # the process ended: the next request starts another
        return None


def twice(libraries: tuple[str, ...], pid: int, process: str) -> list[str]:
    """The warning for GPU libraries a process has mapped from two files (none: no line)."""
    if not libraries:
        return []
    return [
        _(
            "{libraries} loaded from two files in {process} (pid {pid}): two copies of a GPU"
            " library in one process can crash it. Install torch and llama.cpp for the same CUDA."
        ).format(libraries=", ".join(libraries), process=process, pid=pid)
    ]


def speech_device(placement: Placement) -> str:
    """Where faster-whisper would run: "cuda (float16)" or "cpu (int8)" (CTranslate2's view)."""
    try:
        return str(placement.speech)
    except ImportError:  # pragma: no cover - faster-whisper is a dependency
        return _("unavailable (CTranslate2 is not installed)")
