"""Model files shipped split across PyPI packages: find the parts, join them, check the sha256.

A package holds data files only (no code runs on install); it is found through importlib, so it
works wherever pip put it (a virtual environment, --user, an editable set-up).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from lecturetui.core.errors import LectureTuiError


def package_data(module: str, package: str, what: str, hint: str) -> Path:
    """The `data` folder of an installed data package (`module`: its import name)."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise LectureTuiError(f"The package {package}, part of the {what}, is not installed.",
                              hint=hint)  # fmt: skip
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def existing(path: Path, hint: str) -> Path:
    if not path.exists():
        raise LectureTuiError(f"{path} is missing.", hint=hint)
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
            raise LectureTuiError(f"The assembled {what} does not match its checksum.", hint=hint)
        Path(tmp_name).replace(out)
    finally:
        Path(tmp_name).unlink(missing_ok=True)
    return out
