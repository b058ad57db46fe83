"""Where each model runs, decided once for a session: the embedders (core/models/embedders.py)
on PyTorch or from their ONNX export, speech recognition on CTranslate2's device,
the answer model on the GPU or the CPU, each with the reason doctor gives.

`--device` (auto, cuda, mps, cpu) is read here and nowhere else: with the workload, the hardware
(core/models/hardware.py) and `$LECTURETUI_RUNTIME` it settles each part. Under `auto` the
embedders follow the workload: a one-shot command (a `search`, an `ask`) runs them on the CPU
runtime with its compiled cache, which starts in a second, even where a GPU is; bulk work
(ingest, reindex, summaries, eval, the app) runs them on PyTorch where a GPU is found, and
core/models/devices.py picks the moment they move there. Whether a GPU is here is asked of
nvidia-smi (Apple silicon: the platform), never of torch: torch is imported only where a model
loads on it. A part is settled when first wanted, and then kept.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar, cast

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.models import hardware
from lecturetui.core.models.hardware import LlamaReport
from lecturetui.core.models.openvino_import import openvino

DEVICES = ("auto", "cuda", "mps", "cpu")
RUNTIMES = ("auto", "torch", "openvino", "onnxruntime")
#: the workloads: a single question (a command that embeds a query or two and ends), or bulk
#: work that embeds many texts (an ingest, a reindex, summaries, an evaluation, the app)
ONE_SHOT, BULK = "one-shot", "bulk"
WORKLOADS = (ONE_SHOT, BULK)
#: the runtimes of an embedder's ONNX export, by the names doctor and the app show
NAMES = {"openvino": "OpenVINO", "onnxruntime": "ONNX Runtime"}

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class EmbedderPlacement:
    """Where an embedding model runs (every embedder alike, whatever its role)."""

    onnx: bool  # from its ONNX export on the CPU (graph_runtime); else on PyTorch
    runtime: str  # the runtime asked for: auto, torch, openvino or onnxruntime
    why: str = ""  # the reason, in a few words ("--device cpu"), as doctor says it


@dataclass(frozen=True, slots=True)
class AsrDevice:
    """Where faster-whisper runs."""

    device: str  # "cuda" or "cpu"
    compute_type: str  # "float16" on CUDA, "int8" on the CPU

    def __str__(self) -> str:
        return f"{self.device} ({self.compute_type})"


@dataclass(frozen=True)
class Placement:
    """Where each model of a session runs, each part settled once, when first wanted."""

    device: str = "auto"  # --device: auto, cuda, mps or cpu
    runtime: str | None = None  # the embedders' runtime; None: as $LECTURETUI_RUNTIME says
    workload: str = BULK  # ONE_SHOT or BULK: where `auto` puts the embedders
    _parts: dict[str, object] = field(default_factory=dict, compare=False, repr=False)
    #: one lock a part: settling one (importing torch) does not hold up another (llama.cpp's
    #: build, as the answer model loads beside the search), and a part may use another
    _locks: dict[str, threading.Lock] = field(default_factory=dict, compare=False, repr=False)
    _guard: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    def _once(self, name: str, settle: Callable[[], T]) -> T:
        with self._guard:
            lock = self._locks.setdefault(name, threading.Lock())
        with lock:
            if name not in self._parts:
                self._parts[name] = settle()
            return cast(T, self._parts[name])

    def for_workload(self, workload: str) -> Placement:
        """The same choices for another workload (doctor compares them), settled anew."""
        return Placement(self.device, self.runtime, workload)

    @property
    def gpu(self) -> str:
        """The GPU here ("cuda", "mps" or ""), found without torch (hardware.gpu_here)."""
        return self._once("gpu", hardware.gpu_here)

    @property
    def torch_device(self) -> str:
        """PyTorch's device, checked against what torch can use where a model loads on it."""
        return self._once("torch", lambda: pick_device(self.device))

    @property
    def embedders(self) -> EmbedderPlacement:
        """Every embedder's (core/models/embedders.py): the same rule places them all."""
        return self._once("embedders", lambda: embedder_placement(self))

    @property
    def speech(self) -> AsrDevice:
        return self._once("speech", lambda: choose_device(self.device))

    @property
    def speech_tries_gpu(self) -> bool:
        """Whether speech recognition runs on CUDA when CTranslate2 sees a GPU."""
        return speech_may_use_gpu(self.device)

    @property
    def llama(self) -> LlamaReport | None:
        """The llama.cpp build here (None when it is not installed)."""
        return self._once("llama", hardware.llama_report)

    @property
    def answer_on_gpu(self) -> bool:
        return self._once("answer", lambda: llama_on_gpu(self.llama, self.device))

    @property
    def answer_why(self) -> str:
        """Why the answer model runs where it does, in a few words."""
        return answer_reason(self.llama, self.device)


def pick_device(requested: str | None = None) -> str:
    """`auto`, or an explicit device checked against what torch can use (not trusted): this
    imports torch, so it is asked only where a model loads on PyTorch."""
    want = (requested or "auto").lower()
    if want not in DEVICES:
        raise LectureTuiError(
            _("Unknown device {device!r}.").format(device=requested),
            hint=_("use one of {choices}").format(choices=", ".join(DEVICES)),
        )
    if want in ("auto", "cpu"):
        return want
    has = hardware.accelerator()
    if want == "cuda" and has != "cuda":
        raise LectureTuiError(
            _("No CUDA GPU is available to torch here."),
            hint=_("use --device cpu, or install the CUDA build of torch (see the README)"),
        )
    if want == "mps" and has != "mps":
        raise LectureTuiError(_("Apple's MPS is not available here."), hint=_("use --device cpu"))
    return want


def wanted_runtime(runtime: str | None = None) -> str:
    want = (runtime or os.environ.get("LECTURETUI_RUNTIME") or "auto").strip().lower()
    if want not in RUNTIMES:
        raise LectureTuiError(
            _("Unknown runtime {runtime!r}.").format(runtime=want),
            hint=_("set LECTURETUI_RUNTIME to one of {choices}").format(
                choices=", ".join(RUNTIMES)
            ),
        )
    return want


def graph_runtime(runtime: str | None = None) -> str:
    """What runs the exported graph: OpenVINO when it is installed, else ONNX Runtime."""
    want = wanted_runtime(runtime)
    if want in NAMES:
        return want
    try:
        openvino()
    except ImportError:
        return "onnxruntime"
    return "openvino"


def uses_onnx(placement: Placement) -> bool:
    """Whether the embedders run from their ONNX export here (else on PyTorch)."""
    return placement.embedders.onnx


def embedder_placement(placement: Placement) -> EmbedderPlacement:
    """As $LECTURETUI_RUNTIME says; else as --device says; else, under `auto`, by workload: a
    one-shot command on the CPU runtime, bulk work on PyTorch where a GPU is found and torch
    can use one. Nothing here imports torch; `--device cuda` is checked where PyTorch loads."""
    want = wanted_runtime(placement.runtime)
    if want != "auto":
        why = _("runtime {runtime} asked for ($LECTURETUI_RUNTIME)").format(runtime=want)
        return EmbedderPlacement(want in NAMES, want, why)
    device = placement.device.lower()
    if device not in DEVICES:
        pick_device(device)  # raises: an unknown device
    if device != "auto":
        return EmbedderPlacement(device == "cpu", want, device_reason(device))
    if placement.workload == ONE_SHOT:
        return EmbedderPlacement(True, want, _("one-shot command: the CPU runtime starts faster"))
    if not placement.gpu:
        return EmbedderPlacement(True, want, no_gpu_reason())
    version = hardware.torch_version()
    if not version or "+cpu" in version:
        why = _("torch is not installed") if not version else _("torch is a CPU build")
        return EmbedderPlacement(True, want, why)
    return EmbedderPlacement(False, want, _("bulk work: the GPU pays for its start"))


def device_reason(device: str) -> str:
    return _("--device {device}").format(device=device)


def no_gpu_reason() -> str:
    """Why no GPU is used: none found, said as it was looked for."""
    if sys.platform == "darwin":
        return _("no GPU: this Mac is not Apple silicon")
    return _("no GPU found by nvidia-smi")


def speech_may_use_gpu(asked: str | None) -> bool:
    """CTranslate2 has no Metal backend: `mps` means the CPU for speech recognition."""
    return asked in (None, "auto", "cuda")


def choose_device(asked: str | None) -> AsrDevice:
    """CUDA (float16) when asked for or, with `auto`, when CTranslate2 sees a GPU; else the CPU
    (int8)."""
    if speech_may_use_gpu(asked):
        import ctranslate2  # lazy: CTranslate2 loads its CUDA build; only speech asks

        if ctranslate2.get_cuda_device_count() > 0:
            return AsrDevice("cuda", "float16")
    return AsrDevice("cpu", "int8")


def llama_on_gpu(build: LlamaReport | None, device: str | None) -> bool:
    """Does the answer model run on a GPU? When this llama.cpp build can offload and `--device`
    is not `cpu` (every layer then goes there: core/llm/generation.py)."""
    return build is not None and build.gpu_offload and (device or "auto") != "cpu"


def answer_reason(build: LlamaReport | None, device: str | None) -> str:
    """Why the answer model runs where llama_on_gpu puts it, in a few words."""
    if build is None:
        return _("llama-cpp-python is not installed")
    if (device or "auto") == "cpu":
        return device_reason("cpu")
    if not build.gpu_offload:
        return _("this llama.cpp build has no GPU backend")
    return _("llama.cpp's {backend} build: every layer on the GPU").format(backend=build.backend)


TORCH = "PyTorch"


def runtime_of(embedder: object) -> str:
    """The runtime's name as doctor and the app show it."""
    return NAMES.get(str(getattr(embedder, "runtime", "")), TORCH)
