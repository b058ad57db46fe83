"""A student's preferences: `<data home>/settings.toml`, one table per command.

    [ask]
    mode = "dense"
    ttft = 15
    llm = "qwen2.5-coder-0.5b"

    [search]
    k = 20

Each key is an option of that command (its name as `lecturetui COMMAND --help` shows it, without
the dashes and with `_` for `-`); a value is the option's default from then on, and the command
line still wins. TOML is read by the standard library (`tomllib`).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from lecturetui.core.errors import LectureTuiError

SETTINGS_FILE = "settings.toml"
_HINT = "fix it, or move it aside; see 'Settings' in the README"


def load_settings(path: Path) -> dict[str, dict[str, Any]]:
    """The tables of the settings file (none when there is no file)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise LectureTuiError(f"The settings file {path} cannot be read ({exc}).",
                              hint=_HINT) from None  # fmt: skip
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LectureTuiError(f"The settings file {path} is not valid TOML ({exc}).",
                              hint=_HINT) from None  # fmt: skip
    out: dict[str, dict[str, Any]] = {}
    for name, table in data.items():
        if not isinstance(table, dict):
            raise LectureTuiError(
                f"The settings file {path}: `{name}` should be a table of a command's options,"
                f" like [{name}].",
                hint=_HINT,
            )
        out[name] = dict(table)
    return out
