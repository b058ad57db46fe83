"""Preparing the offline models, with a progress bar per model (`models setup`, a first run)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from lecturetui.cli.output import console
from lecturetui.cli.progress import progress_bars
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _, decimal
from lecturetui.core.models.management import Prepared, prepare

if TYPE_CHECKING:
    from pathlib import Path

    from rich.progress import TaskID


def prepare_models(models_dir: Path, stderr: bool = True) -> list[Prepared]:
    """Every offline model (core/models/setup.py), with a progress bar per model and a line each."""
    out = console(stderr=stderr)
    t0 = time.perf_counter()
    with progress_bars() as bar:
        tasks: dict[str, TaskID] = {}

        def on_step(what: str, done: int, total: int) -> None:
            if what not in tasks:
                tasks[what] = bar.add_task(what, total=total, rate="")
            bar.update(tasks[what], completed=done, total=total)

        results = prepare(models_dir, on_step)
        results.append(_instructions(models_dir, on_step))
    for r in results:
        if r.path is not None:
            out.print(f"[green]✓[/] {r.role}: {r.path}")
        else:
            out.print(
                f"[red]✗[/] {r.role}: {r.problem}"
                + (" [dim]" + _("hint:") + f"[/] {r.hint}" if r.hint else "")
            )
    done = _("Models prepared in {seconds} s.").format(
        seconds=decimal(time.perf_counter() - t0, 0, grouping=False)
    )
    out.print(f"[dim]{done}[/]")
    return results


def _instructions(models_dir: Path, on_step: Callable[[str, int, int], None]) -> Prepared:
    """The answer model's instructions read once and kept with the models (core/session.py)."""
    from lecturetui.core.asking import read_instructions  # lazy: the library; not for --help

    what = _("answer model's instructions")
    on_step(what, 0, 1)
    try:
        path = read_instructions(models_dir)
    except LectureTuiError as exc:
        return Prepared("instructions", None, exc.message, exc.hint or "")
    on_step(what, 1, 1)
    return Prepared("instructions", path)
