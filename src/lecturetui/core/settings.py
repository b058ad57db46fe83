"""A student's preferences: `<data home>/settings.toml`, one table per command.

    [ask]
    mode = "dense"
    ttft = 15
    llm = "qwen2.5-coder-0.5b"

    [search]
    k = 20

Above the tables, `device`, `embed_model` and `language` are the program's own options (before the command),
and `models` the models folder (core/paths.py).
Each key in a table is an option of that command (its name as `lecturetui COMMAND --help` shows it, without
the dashes and with `_` for `-`); a value is the option's default from then on, and the command
line still wins. TOML is read by the standard library (`tomllib`).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lecturetui.core.atomic import write_atomic
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import N_, _

if TYPE_CHECKING:
    from tomlkit import TOMLDocument

#: options of the program itself (before the command) and the models folder, above the tables
ROOT_KEYS = ("device", "embed_model", "language", "models")
#: the name load_settings gives them, as if they were a table
ROOT = ""
_HINT = N_("fix it, or move it aside; see 'Settings' in the README")


def load_settings(path: Path) -> dict[str, dict[str, Any]]:
    """The tables of the settings file (none when there is no file)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise LectureTuiError(
            _("The settings file {path} cannot be read ({exc}).").format(path=path, exc=exc),
            hint=_(_HINT),
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LectureTuiError(
            _("The settings file {path} is not valid TOML ({exc}).").format(path=path, exc=exc),
            hint=_(_HINT),
        ) from None
    out: dict[str, dict[str, Any]] = {}
    for name, table in data.items():
        if name in ROOT_KEYS:  # an option of every command (`device = "cpu"` above the tables)
            out.setdefault(ROOT, {})[name] = table
            continue
        if not isinstance(table, dict):
            raise LectureTuiError(
                _(
                    "The settings file {path}: `{name}` should be a table of a command's options,"
                    " like [{name}]."
                ).format(path=path, name=name),
                hint=_(_HINT),
            )
        out[name] = dict(table)
    return out


def save_setting(path: Path, command: str, key: str, value: Any) -> None:
    """Set `[command] key = value` in the settings file (None removes the key), keeping the
    student's comments, order and other keys (tomlkit); written whole or not at all."""
    import tomlkit.exceptions  # lazy: 18 ms; the library loads this module, few runs write

    load_settings(path)  # an unreadable or invalid file is said, never overwritten
    try:
        doc = (
            tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
        )
    except tomlkit.exceptions.TOMLKitError as exc:  # pragma: no cover - load_settings parsed it
        raise LectureTuiError(
            _("The settings file {path} is not valid TOML ({exc}).").format(path=path, exc=exc),
            hint=_(_HINT),
        ) from None
    if not command:  # an option of the program itself: a key above the tables
        if value is None:
            doc.pop(key, None)
        else:
            doc[key] = value  # tomlkit puts it above the tables
        _write(path, doc)
        return
    table = doc.get(command)
    if value is None:
        if table is not None and key in table:
            del table[key]
            if not table:
                del doc[command]
    else:
        if table is None:
            table = tomlkit.table()
            doc[command] = table
        table[key] = value
    _write(path, doc)


def _write(path: Path, doc: TOMLDocument) -> None:
    """The document in place of the file, whole or not at all."""
    write_atomic(path, doc.as_string().encode("utf-8"))
