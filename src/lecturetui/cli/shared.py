"""What the commands share: the one way JSON is written (`json_text`), the check of the paths a
command reads (`ingest`, `pack import`), the line for a file written (`export`, `summary
--md/--anki/--csv`) and the chapters of older lectures read once (`outline`, `export`). Command
modules import this one (and cli/summaries.py: a summary on the terminal), never each other."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lecturetui.cli.output import console, escape, fail
from lecturetui.cli.progress import progress_bars
from lecturetui.core.i18n import _, ngettext
from lecturetui.core.records import envelope

if TYPE_CHECKING:
    from lecturetui.core.library import Library
    from lecturetui.core.study.aids import WrittenFile


def json_text(payload: object) -> str:
    """The one way the CLI writes JSON: `{"schema": 2, ...}` from typed records
    (core/records.py) or a dict of them."""
    return json.dumps(envelope(payload), ensure_ascii=False, indent=2)


def check_inputs(paths: Sequence[Path]) -> None:
    """Every path a command reads is there and readable, or one sentence on stderr (exit 1):
    said before anything is prepared or loaded."""
    missing = [p for p in paths if not p.exists()]
    if missing:
        fail(
            ngettext("{paths} does not exist.", "{paths} do not exist.", len(missing)).format(
                paths=", ".join(str(p) for p in missing)
            ),
            hint=_("check the spelling; a folder is read with the files below it"),
        )
    for path in paths:
        if not os.access(path, os.R_OK | (os.X_OK if path.is_dir() else 0)):
            fail(
                _("{path} cannot be read (permission denied).").format(path=path),
                hint=_("check that your user may read it"),
            )


def report_written(w: WrittenFile) -> None:
    if w.format == "markdown":
        what = ngettext("{n} moment", "{n} moments", w.count).format(n=w.count)
    else:
        what = ngettext("{n} card", "{n} cards", w.count).format(n=w.count)
    wrote = _("wrote {path} ({what})").format(path=escape(str(w.path)), what=what)
    console(stderr=True).print(wrote, soft_wrap=True)


def read_old_chapters(library: Library) -> None:
    """The chapters of the lectures stored before chapters were kept, looked for once (their
    info files beside their sources), with a progress bar; Ctrl+C keeps what was read."""
    pending = library.unread_chapters()
    if not pending:
        return
    with progress_bars() as bar:
        task = bar.add_task(_("chapters of older lectures"), total=pending, rate="")
        try:
            gained = library.read_missing_chapters(
                lambda done, total: bar.update(task, completed=done)
            )
        except KeyboardInterrupt:
            bar.stop()
            fail(_("Interrupted: the chapters read so far are kept."), code=130)
    if gained:
        console(stderr=True).print(
            "[dim]"
            + ngettext(
                "Chapters read for {n} older lecture.",
                "Chapters read for {n} older lectures.",
                gained,
            ).format(n=gained)
            + "[/]"
        )
