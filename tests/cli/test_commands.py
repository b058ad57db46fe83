"""The root group's table of commands (cli/group.py, COMMANDS): every command is in it, with its
own short help, and `lecturetui --help` lists them without importing a command's module."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from lecturetui.cli import cli
from lecturetui.cli.group import COMMANDS

CLI = Path(importlib.import_module("lecturetui.cli").__file__ or "").parent


def defined_commands() -> dict[str, tuple[str, str]]:
    """The commands the command modules define at their top level (a group's subcommands left
    out), by name: (module, attribute)."""
    found: dict[str, tuple[str, str]] = {}
    for path in sorted([*CLI.glob("*_cmd.py"), *CLI.glob("*_cmds.py")]):
        name = f"lecturetui.cli.{path.stem}"
        module = importlib.import_module(name)
        commands = {a: v for a, v in vars(module).items() if isinstance(v, click.Command)}
        inner = {
            id(sub)
            for v in commands.values()
            if isinstance(v, click.Group)
            for sub in v.commands.values()
        }
        for attribute, command in commands.items():
            callback = command.callback
            # defined here (not imported), and not a group's subcommand
            if id(command) not in inner and callback is not None and callback.__module__ == name:
                assert command.name is not None
                found[command.name] = (name, attribute)
    return found


def test_the_table_lists_every_command_module_and_command() -> None:
    defined = defined_commands()
    assert "search" in defined and "bookmarks" in defined  # the modules are read
    assert {n: (e.module, e.attribute) for n, e in COMMANDS.items()} == defined


@pytest.mark.parametrize("limit", [3, 20, 45, 60, 74, 120, 1000])
def test_the_table_s_short_help_is_each_command_s(limit: int) -> None:
    for name, entry in COMMANDS.items():
        command = getattr(importlib.import_module(entry.module), entry.attribute)
        assert not command.hidden and not command.deprecated, name
        table = click.Command(name, help=entry.short_help).get_short_help_str(limit)
        assert table == command.get_short_help_str(limit), name


@pytest.mark.parametrize("width", [40, 80, 200])
def test_the_list_of_commands_is_click_s(width: int) -> None:
    """The root group's help lists the commands as a group holding them all would."""
    ctx = click.Context(cli, info_name="lecturetui")
    plain = click.Group(
        "lecturetui", commands=[c for n in COMMANDS if (c := cli.get_command(ctx, n))]
    )
    lazy, eager = click.HelpFormatter(width=width), click.HelpFormatter(width=width)
    cli.format_commands(ctx, lazy)
    plain.format_commands(click.Context(plain), eager)
    assert lazy.getvalue() == eager.getvalue()
    assert "search" in lazy.getvalue()


HELP = """
import json, sys
from lecturetui.cli import cli
try:
    cli.main(["--help"], standalone_mode=False)
except SystemExit:
    pass
print(json.dumps(sorted(m for m in sys.modules if m.startswith("lecturetui.cli."))))
"""


def test_help_imports_no_command_module() -> None:
    done = subprocess.run([sys.executable, "-c", HELP], capture_output=True, text=True,
                          check=True, timeout=120)  # fmt: skip
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "lecturetui.cli.group" in loaded and "Commands:" in done.stdout
    assert loaded & {e.module for e in COMMANDS.values()} == set()


def test_a_mistyped_command_is_told_its_near_name() -> None:
    result = CliRunner().invoke(cli, ["serch", "x"])
    assert result.exit_code == 2
    assert "No such command 'serch'. Did you mean 'search'?" in result.output
