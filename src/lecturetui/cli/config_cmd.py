"""config: show the settings file, set or unset a command's option default in it."""

from __future__ import annotations

from typing import Any

import click

from lecturetui.cli.context import Context
from lecturetui.cli.defaults import setting_names
from lecturetui.cli.group import LtGroup
from lecturetui.cli.output import USAGE_ERROR, console, escape, fail
from lecturetui.core.i18n import _
from lecturetui.core.models.management import MODELS_SETTING, ROOT, ROOT_KEYS, save_setting


@click.group("config", cls=LtGroup, invoke_without_command=True)
@click.pass_context
def config_group(ctx: click.Context) -> None:
    """Show the settings file (<data home>/settings.toml), or set a default: one table per
    command, e.g. `lecturetui config set ask.mode dense`; the command line still wins."""
    if ctx.invoked_subcommand is None:
        show(ctx.find_object(Context))


def show(obj: Context | None) -> None:
    assert obj is not None, "the root group sets the context"
    path = obj.home.settings_file
    out = console()
    if not path.exists():
        out.print(_("No settings yet ({path}).").format(path=path))
        out.print("[dim]" + _("hint:") + "[/] lecturetui config set ask.mode dense")
        return
    out.print(f"[dim]# {escape(str(path))}[/]")
    out.print(escape(path.read_text(encoding="utf-8").rstrip()), soft_wrap=True)


def _option(ctx: click.Context, key: str) -> tuple[str, str, click.Parameter]:
    """(command, file key, parameter) for `COMMAND.OPTION` (the option as --help spells it), or
    ("", key, parameter) for an option of the program itself (device, embed-model) or the
    models folder."""
    command_name, _dot, option = key.partition(".")
    root = ctx.find_root().command
    assert isinstance(root, click.Group)
    own = command_name.replace("-", "_")
    if not option and own == MODELS_SETTING:  # a folder, not an option: kept absolute
        folder = click.Path(file_okay=False, resolve_path=True)
        return ROOT, own, click.Option(["--models"], type=folder)
    if not option and own in ROOT_KEYS:
        param = next(p for p in root.params if p.name == own)
        return ROOT, own, param
    command = root.get_command(ctx, command_name) if option else None
    if command is None or isinstance(command, click.Group):
        fail(
            _("{key} is not COMMAND.OPTION of a command, nor device or embed-model.").format(
                key=repr(key)
            ),
            hint=_("e.g. ask.mode, app.ttft, search.k, device"),
            code=USAGE_ERROR,
        )
    wanted = option.lstrip("-").replace("-", "_")
    for param in command.params:
        if not isinstance(param, click.Option) or param.hidden or param.name is None:
            continue
        if wanted in setting_names(param):
            if param.multiple or param.nargs != 1:
                fail(
                    _("--{option} takes several values; it cannot be a setting.").format(
                        option=option
                    ),
                    code=USAGE_ERROR,
                )
            return command_name, param.opts[-1].lstrip("-").replace("-", "_"), param
    fail(
        _("`{command}` has no option --{option}.").format(command=command_name, option=option),
        hint=_("lecturetui {command} --help lists them").format(command=command_name),
        code=USAGE_ERROR,
    )


@config_group.command("set")
@click.argument("key")
@click.argument("value")
@click.pass_context
def set_cmd(ctx: click.Context, key: str, value: str) -> None:
    """Set KEY (COMMAND.OPTION, e.g. ask.llm-url) to VALUE, checked as the option checks it."""
    obj = ctx.find_object(Context)
    assert obj is not None
    command, name, param = _option(ctx, key)
    try:
        converted: Any = param.type.convert(value, param, ctx)
    except click.BadParameter as exc:
        fail(
            _("{value} is not a value of --{option}: {problem}").format(
                value=repr(value), option=name.replace("_", "-"), problem=exc.message
            ),
            code=USAGE_ERROR,
        )
    if not isinstance(converted, bool | int | float | str):
        converted = value  # paths and the like: kept as written
    save_setting(obj.home.settings_file, command, name, converted)
    console().print((f"\\[{command}] " if command else "") + f"{name} = {converted!r}")


@config_group.command("unset")
@click.argument("key")
@click.pass_context
def unset_cmd(ctx: click.Context, key: str) -> None:
    """Remove KEY (COMMAND.OPTION) from the settings: the option's own default applies again."""
    obj = ctx.find_object(Context)
    assert obj is not None
    command, name, _param = _option(ctx, key)
    save_setting(obj.home.settings_file, command, name, None)
    console().print((f"\\[{command}] " if command else "") + _("{name} removed").format(name=name))
