"""Text made safe for the exports: one line-break convention, no control characters, whole
files written at once (a failed export leaves no half-written file)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _

_BREAKS = re.compile(r"\r\n|[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
# C0 and C1 controls but tab and newline, and lone surrogates (not encodable as UTF-8)
_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def clean(text: str) -> str:
    """`text` with every kind of line break as \\n and other control characters removed
    (Anki separates fields with \\x1f; CSV, Markdown and SQLite want none of them)."""
    return _CONTROLS.sub("", _BREAKS.sub("\n", text))


def one_line(text: str) -> str:
    """`text` on one line, runs of whitespace as one space (titles, CSV lecture names)."""
    return " ".join(clean(text).split())


def write_file(path: Path, write: Callable[[Path], Any]) -> None:
    """Write `path` through a temporary file beside it, replaced at the end."""
    path = path.expanduser()
    if not path.parent.is_dir():
        raise LectureTuiError(
            _("{path} cannot be written: its folder does not exist.").format(path=path),
            hint=_("create the folder first, or give another path"),
        )
    tmp = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        write(tmp)
        tmp.replace(path)
    except OSError as exc:
        raise LectureTuiError(
            _("{path} cannot be written: {reason}.").format(path=path, reason=exc.strerror or exc),
            hint=_("give another file name or folder"),
        ) from None
    finally:
        tmp.unlink(missing_ok=True)


def write_text(path: Path, text: str, encoding: str = "utf-8") -> None:
    write_file(path, lambda tmp: tmp.write_text(text, encoding=encoding, newline=""))
