"""The command line: thin faces on `lecturetui.core.library`. Its commands are listed in
cli/group.py (`COMMANDS`) and each is imported when it runs."""

from __future__ import annotations

import os
import sys

from lecturetui.cli.group import cli
from lecturetui.cli.output import ends_quickly
from lecturetui.core.i18n import _

__all__ = ["cli", "main"]


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
