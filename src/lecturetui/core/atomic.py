"""Files written whole or not at all: a temporary file beside the target, renamed over it."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, *parts: bytes) -> None:
    """Write `parts` to `path` through a temporary file in its folder (created if need be), so
    a reader sees the old file or the whole new one, never a part; an interruption leaves no
    temporary file behind. Raises OSError when the folder cannot be written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}-", suffix=".tmp", dir=path.parent)
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as f:
            for part in parts:
                f.write(part)
            f.flush()
            os.fsync(f.fileno())  # on disk before it replaces the old file
        tmp.chmod(0o644)
        tmp.replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
