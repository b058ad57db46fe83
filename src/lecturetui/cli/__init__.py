"""The command line: thin faces on `lecturetui.core.library`. Heavy imports happen in commands."""

from __future__ import annotations

import os
import sys

from lecturetui.cli.app_cmd import app_cmd
from lecturetui.cli.ask_cmds import ask_cmd
from lecturetui.cli.config_cmd import config_group
from lecturetui.cli.doctor_cmd import doctor_cmd
from lecturetui.cli.eval_cmds import eval_cmd
from lecturetui.cli.group import cli
from lecturetui.cli.ingest_cmd import ingest_cmd
from lecturetui.cli.library_cmds import lectures_cmd, show_cmd
from lecturetui.cli.manage_cmds import edit_cmd, remove_cmd
from lecturetui.cli.models_cmds import models_group
from lecturetui.cli.notes_cmds import bookmarks_group, export_cmd
from lecturetui.cli.outline_cmd import outline_cmd
from lecturetui.cli.output import ends_quickly
from lecturetui.cli.pack_cmds import pack_group
from lecturetui.cli.search_cmds import reindex_cmd, search_cmd
from lecturetui.cli.summary_cmd import summary_cmd
from lecturetui.core.i18n import _

__all__ = ["cli", "main"]

for command in (
    app_cmd,
    ingest_cmd,
    lectures_cmd,
    show_cmd,
    outline_cmd,
    summary_cmd,
    edit_cmd,
    remove_cmd,
    search_cmd,
    ask_cmd,
    eval_cmd,
    bookmarks_group,
    export_cmd,
    reindex_cmd,
    pack_group,
    models_group,
    config_group,
    doctor_cmd,
):
    cli.add_command(command)


def main() -> None:
    try:
        cli.main(prog_name="lecturetui")
    except SystemExit as done:
        if done.code in (0, None) and ends_quickly():
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except OSError:  # a closed pipe: the usual way out says nothing either
                raise done from None
            os._exit(0)  # the command closed what it opened: no teardown to wait for
        raise
    except KeyboardInterrupt:  # pragma: no cover - click turns most into Abort
        print(_("Interrupted."), file=sys.stderr)
        sys.exit(130)
