"""The settings file (core/settings.py) as the command line's defaults: each value checked as its
option checks one given on the command line, an unknown command or option named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from lecturetui.cli.output import USAGE_ERROR, fail, note
from lecturetui.core.i18n import _


def setting_names(param: click.Parameter) -> set[str]:
    """The keys a settings file may give an option: its parameter's name and each spelling on
    the command line without the dashes, `_` for `-` (`max_tokens` for --max-tokens)."""
    return {
        *([param.name] if param.name else []),
        *(o.lstrip("-").replace("-", "_") for o in param.opts),
    }


def setting_value(
    ctx: click.Context, command: click.Command, name: str, value: Any, path: Path
) -> Any:
    """A setting's value checked and converted as its option checks a command-line value."""
    param = next(p for p in command.params if p.name == name)
    try:
        return param.type.convert(value, param, ctx)
    except click.BadParameter as exc:
        fail(
            _("{path}: {value} is not a value of `{name}`: {problem}").format(
                path=path, value=repr(value), name=name, problem=exc.message
            ),
            code=USAGE_ERROR,
        )


def settings_defaults(
    path: Path, ctx: click.Context, tables: dict[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """The settings file's tables as click's defaults per command; an unknown command or option
    is named in a note and left out (a typo should not pass in silence)."""
    group = ctx.command
    assert isinstance(group, click.Group)
    out: dict[str, dict[str, Any]] = {}
    for name, table in tables.items():
        command = group.get_command(ctx, name)
        if command is None:
            note(
                _("{path}: there is no command `{name}`; its settings are ignored.").format(
                    path=path, name=name
                )
            )
            continue
        known = {
            key: param.name
            for param in command.params
            if param.name and not getattr(param, "hidden", False)
            for key in setting_names(param)
        }
        for key in sorted(set(table) - set(known)):
            note(
                _("{path}: `{name}` has no option `{key}`; it is ignored.").format(
                    path=path, name=name, key=key
                )
            )
        out[name] = {known[k]: v for k, v in table.items() if k in known}
    return out
