"""The precision the embedders compute in on a CPU, chosen for the CPU and kept with the models
compiled for it.

OpenVINO runs the embedders' ONNX exports (core/models/onnx_embedder.py) and the sentence model
(core/models/sentence_ends.py) in bfloat16 where the CPU computes it natively (AVX-512 BF16,
AMX), in float16 on an ARM CPU that computes it (Apple silicon: OpenVINO's own choice there),
else in fp32: the vectors agree to a cosine of 0.9999 and the ranking with them
(bench/RESULTS.md, "int8 embedders on a CPU without bf16"). int8 (weights and activations,
through the CPU's VNNI instructions) was measured too and is not used: E5's fastest int8 form
changes the final top-10 of a third of the questions, its most careful one still of 14% (the bar
is 10%), for at most 1.2x over fp32 on a laptop's instruction set; EmbeddingGemma in int8 (1.4x)
reorders nearly every final list, as it gives the final scores.

The choice is asked of the CPU's own flags (/proc/cpuinfo; macOS's sysctl), within the
instruction set oneDNN is allowed (`$ONEDNN_MAX_CPU_ISA`, which a laptop profile sets to AVX2:
bench/cold_start.py), and given to OpenVINO as `INFERENCE_PRECISION_HINT`: OpenVINO itself
would choose bfloat16 even under an AVX2 cap, then fail to find a bfloat16 Softmax for it.
`$LECTURETUI_PRECISION` (auto, bf16, f16, f32) overrides it. Each precision and cap has its own
compiled models (`openvino/<tag>/` beside each export: core/models/ov_cache.py), so that changing
one never recompiles the other's.
"""

from __future__ import annotations

import os
import platform
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _

ENV = "LECTURETUI_PRECISION"
CAP_ENV = "ONEDNN_MAX_CPU_ISA"
BF16, F16, F32 = "bf16", "f16", "f32"
CHOICES = ("auto", BF16, F16, F32)
#: ARM's float16 arithmetic, as Linux names it (OpenVINO computes in f16 there by default)
F16_FLAG = "asimdhp"
#: Apple silicon's sysctl for it
APPLE_FP16 = "hw.optional.arm.FEAT_FP16"
#: the CPU flags (as /proc/cpuinfo names them) that compute bfloat16 natively
BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})
#: oneDNN's instruction-set caps that keep bfloat16 (its names, upper case); any other cap
#: (SSE41, AVX, AVX2, AVX2_VNNI, AVX512_CORE, AVX512_CORE_VNNI…) has none
BF16_CAPS = frozenset({"ALL", "DEFAULT", "AVX512_CORE_BF16", "AVX512_CORE_AMX", "AVX10_1_512_AMX"})
BF16_CAPS |= frozenset({"AVX512_CORE_AMX_FP16", "AVX10_1_512_AMX_FP16", "AVX2_VNNI_2"})


@dataclass(frozen=True, slots=True)
class Precision:
    """The embedders' precision on this CPU, and why."""

    name: str  # "bf16", "f16" (ARM) or "f32"
    why: str  # in a few words, translated: "the CPU computes bfloat16 (AVX-512 BF16)"
    cap: str = ""  # oneDNN's instruction-set cap, upper case; "" when none

    @property
    def hint(self) -> str:
        """OpenVINO's INFERENCE_PRECISION_HINT for it."""
        return self.name

    @property
    def tag(self) -> str:
        """The name of the folder its compiled models are kept in: "bf16", "f32-avx2"."""
        return self.name + (f"-{self.cap.lower()}" if self.cap else "")


def _linux_flags() -> frozenset[str]:
    """/proc/cpuinfo's first list of features: `flags` on x86, `Features` on ARM."""
    try:
        with Path("/proc/cpuinfo").open(encoding="utf-8") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def _sysctl(*names: str) -> str:
    try:
        return subprocess.run(
            ["sysctl", "-n", *names], capture_output=True, text=True, timeout=5, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def _mac_flags() -> frozenset[str]:
    """A Mac's features in /proc/cpuinfo's names: an Intel Mac's as sysctl lists them
    ("AVX512BF16"…), Apple silicon's float16 arithmetic as `asimdhp`."""
    if platform.machine() == "arm64":
        return frozenset({F16_FLAG} if _sysctl(APPLE_FP16).strip() == "1" else ())
    out = _sysctl("machdep.cpu.features", "machdep.cpu.leaf7_features")
    return frozenset(w.lower().replace("avx512bf16", "avx512_bf16") for w in out.split())


@cache
def cpu_flags() -> frozenset[str]:
    """The CPU's instruction-set flags, lower case (empty where the platform does not say)."""
    if platform.system() == "Darwin":
        return _mac_flags()
    return _linux_flags()


def isa_cap() -> str:
    """oneDNN's instruction-set cap from `$ONEDNN_MAX_CPU_ISA`, upper case; "" when none."""
    cap = os.environ.get(CAP_ENV, "").strip().upper()
    return "" if cap in ("", "ALL", "DEFAULT") else cap


def choose(flags: frozenset[str], cap: str, asked: str = "auto") -> Precision:
    """The precision for CPU `flags` under oneDNN's `cap`; `asked` (auto, bf16, f16, f32)
    overrides."""
    if asked != "auto":
        return Precision(asked, _("asked for ({env}={value})").format(env=ENV, value=asked), cap)
    if F16_FLAG in flags:  # ARM (Apple silicon): OpenVINO's own choice there
        return Precision(F16, _("the CPU computes float16 (ARM FP16)"), cap)
    if not flags & BF16_FLAGS:
        return Precision(F32, _("the CPU has no bfloat16 instructions"), cap)
    if cap and cap not in BF16_CAPS:
        return Precision(
            F32,
            _("the instruction set is capped at {cap} ({env})").format(cap=cap, env=CAP_ENV),
            cap,
        )
    found = "AMX" if "amx_bf16" in flags else "AVX-512 BF16"
    return Precision(BF16, _("the CPU computes bfloat16 ({isa})").format(isa=found), cap)


def asked() -> str:
    """`$LECTURETUI_PRECISION`, checked: auto, bf16, f16 or f32."""
    value = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if value not in CHOICES:
        raise LectureTuiError(
            _("{env} must be one of {choices}, not {value!r}.").format(
                env=ENV, choices=", ".join(CHOICES), value=value
            ),
            hint=_("unset it to let the CPU decide"),
        )
    return value


def current() -> Precision:
    """The embedders' precision in this process (the CPU, the cap and `$LECTURETUI_PRECISION`)."""
    return choose(cpu_flags(), isa_cap(), asked())


#: a precision's name as the status line shows it beside a model's device
SHORT = {"bfloat16": BF16, "float16": F16, "float32": F32}


def short(dtype: str) -> str:
    """A model's dtype as the status line shows it: "bf16", "f32", "f16"."""
    return SHORT.get(dtype, dtype)


def shown_where(embedder: object) -> str:
    """Where a loaded embedder runs and in what, as the status line shows it: "CPU bf16"."""
    device = str(getattr(embedder, "device", "?")).upper()
    dtype = short(str(getattr(embedder, "dtype", "")))
    return f"{device} {dtype}" if dtype else device
