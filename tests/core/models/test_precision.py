"""The embedders' precision: bfloat16 where the CPU computes it and nothing caps it, else fp32;
asked for by name; each precision and cap with a folder of its own."""

from __future__ import annotations

import pytest

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.models import precision
from lecturetui.core.models.precision import BF16, F16, F32, choose

ZEN5 = frozenset({"avx2", "avx512f", "avx512_vnni", "avx512_bf16", "avx_vnni"})
SAPPHIRE_RAPIDS = frozenset({"avx2", "avx512f", "avx512_bf16", "amx_bf16", "amx_int8"})
LAPTOP = frozenset({"avx2", "fma", "avx_vnni"})  # a recent Intel laptop: AVX-VNNI, no bf16
OLD_LAPTOP = frozenset({"avx2", "fma"})


@pytest.mark.parametrize(
    ("flags", "cap", "name", "tag"),
    [
        (ZEN5, "", BF16, "bf16"),
        (SAPPHIRE_RAPIDS, "", BF16, "bf16"),
        (SAPPHIRE_RAPIDS, "AVX512_CORE_AMX", BF16, "bf16-avx512_core_amx"),
        (ZEN5, "AVX2", F32, "f32-avx2"),  # the laptop profile on a server
        (ZEN5, "AVX512_CORE_VNNI", F32, "f32-avx512_core_vnni"),
        (LAPTOP, "", F32, "f32"),
        (OLD_LAPTOP, "", F32, "f32"),
        (frozenset(), "", F32, "f32"),  # a platform that does not say
        (frozenset({"fp", "asimd", "asimdhp"}), "", F16, "f16"),  # ARM with float16
        (frozenset({"fp", "asimd"}), "", F32, "f32"),
    ],
)
def test_the_cpu_and_its_cap_choose_the_precision(
    flags: frozenset[str], cap: str, name: str, tag: str
) -> None:
    chosen = choose(flags, cap)
    assert (chosen.name, chosen.hint, chosen.tag) == (name, name, tag)
    assert chosen.why  # doctor says why


def test_asking_overrides_the_cpu() -> None:
    assert choose(OLD_LAPTOP, "", BF16).name == BF16
    assert choose(ZEN5, "", F32).name == F32
    assert "LECTURETUI_PRECISION" in choose(ZEN5, "", F32).why
    assert choose(ZEN5, "", F16).name == F16


def test_a_mac_says_its_features_through_sysctl(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = {
        ("hw.optional.arm.FEAT_FP16",): "1\n",
        ("machdep.cpu.features", "machdep.cpu.leaf7_features"): "FPU AVX2 FMA\nAVX512F AVX512BF16",
    }
    monkeypatch.setattr(precision, "_sysctl", lambda *names: answers[names])
    monkeypatch.setattr(precision.platform, "machine", lambda: "arm64")
    assert choose(precision._mac_flags(), "").name == F16  # Apple silicon
    monkeypatch.setattr(precision.platform, "machine", lambda: "x86_64")
    assert {"avx2", "avx512_bf16"} <= precision._mac_flags()  # an Intel Mac
    assert choose(precision._mac_flags(), "").name == BF16


def test_the_environment_is_read_and_a_wrong_value_is_one_sentence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(precision, "cpu_flags", lambda: ZEN5)
    monkeypatch.delenv("LECTURETUI_PRECISION", raising=False)
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "avx2")
    assert precision.current().tag == "f32-avx2"
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "ALL")  # oneDNN's own word for no cap
    assert precision.current().tag == "bf16"
    monkeypatch.setenv("LECTURETUI_PRECISION", "F32")
    assert precision.current().name == F32
    monkeypatch.setenv("LECTURETUI_PRECISION", "int4")
    with pytest.raises(LectureTuiError) as caught:
        precision.current()
    assert "int4" in caught.value.message and caught.value.hint


def test_a_models_dtype_is_shown_short() -> None:
    assert [precision.short(d) for d in ("bfloat16", "float32", "float16", "int8")] == [
        "bf16", "f32", "f16", "int8"
    ]  # fmt: skip
