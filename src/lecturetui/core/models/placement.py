"""Where each model runs, decided once for a session: the embedders (E5, and EmbeddingGemma
re-ranking) on PyTorch or from their ONNX export, speech recognition on CTranslate2's device,
the answer model on the GPU or the CPU.

`--device` (auto, cuda, mps, cpu) is read here and nowhere else: with the hardware
(core/models/hardware.py) and `$LECTURETUI_RUNTIME` it settles each part. A part is settled when
it is first wanted, and then kept: finding out imports torch, CTranslate2 or llama.cpp, which a
command that loads no such model should not pay for. Under `auto` the embedder's device still
follows the workload, job by job (core/models/devices.py).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar, cast

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.models import hardware
from lecturetui.core.models.hardware import LlamaReport

DEVICES = ("auto", "cuda", "mps", "cpu")
RUNTIMES = ("auto", "torch", "openvino", "onnxruntime")
#: the runtimes of an embedder's ONNX export, by the names doctor and the app show
NAMES = {"openvino": "OpenVINO", "onnxruntime": "ONNX Runtime"}

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class EmbedderPlacement:
    """Where an embedding model runs (E5 and EmbeddingGemma alike)."""

    onnx: bool  # from its ONNX export on the CPU (graph_runtime); else on PyTorch
    runtime: str  # the runtime asked for: auto, torch, openvino or onnxruntime


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

    @property
    def torch_device(self) -> str:
        """PyTorch's device, checked against what torch can use where a model loads on it."""
        return self._once("torch", lambda: pick_device(self.device))

    @property
    def embedders(self) -> EmbedderPlacement:
        """E5's, and EmbeddingGemma's for re-ranking: the same rule places both."""
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


def pick_device(requested: str | None = None) -> str:
    """`auto`, or an explicit device checked against what torch can use (not trusted)."""
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
        import openvino  # noqa: F401
    except ImportError:
        return "onnxruntime"
    return "openvino"


def uses_onnx(placement: Placement) -> bool:
    """Whether the embedders run from their ONNX export here (else on PyTorch): on a CPU, or
    as $LECTURETUI_RUNTIME says."""
    want = wanted_runtime(placement.runtime)
    if want != "auto":
        return want in NAMES
    requested = placement.torch_device
    return requested == "cpu" or (requested == "auto" and not hardware.likely_accelerator())


def embedder_placement(placement: Placement) -> EmbedderPlacement:
    return EmbedderPlacement(uses_onnx(placement), wanted_runtime(placement.runtime))


def speech_may_use_gpu(asked: str | None) -> bool:
    """CTranslate2 has no Metal backend: `mps` means the CPU for speech recognition."""
    return asked in (None, "auto", "cuda")


def choose_device(asked: str | None) -> AsrDevice:
    """CUDA (float16) when asked for or, with `auto`, when CTranslate2 sees a GPU; else the CPU
    (int8)."""
    if speech_may_use_gpu(asked):
        import ctranslate2

        if ctranslate2.get_cuda_device_count() > 0:
            return AsrDevice("cuda", "float16")
    return AsrDevice("cpu", "int8")


def llama_on_gpu(build: LlamaReport | None, device: str | None) -> bool:
    """Does the answer model run on a GPU? When this llama.cpp build can offload and `--device`
    is not `cpu` (every layer then goes there: core/answer/generation.py)."""
    return build is not None and build.gpu_offload and (device or "auto") != "cpu"
