"""Summaries on the terminal. A summary as it grows (`summary`, and `ask` when a question asks for
one: SummaryPrinter). The summaries still to write (core/summary/pending.py), written one after
another through the front door (core/requests/door.py's write_summaries) with a progress bar:
`summary --all`, and `ingest` for the lectures it added where the answer model runs on a GPU.
Ctrl+C stops it, keeping the parts written."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from lecturetui.cli.output import console, escape, note
from lecturetui.cli.progress import progress_bars
from lecturetui.core.i18n import _
from lecturetui.core.requests.door import write_summaries
from lecturetui.core.summary.showing import (
    PartsReady,
    PartWritten,
    first_sentence,
    part_label,
    pending_summaries,
    terminal_gist,
    terminal_part,
    terminal_parts,
)

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

    from lecturetui.core.asking import ModelSession
    from lecturetui.core.library import Library
    from lecturetui.core.study.aids import Lecture
    from lecturetui.core.summary.showing import SummaryGrew, SummaryProgress


class SummaryPrinter:
    """A summary as it grows, on the terminal, as core/summary/render.py shows it: the parts at
    once (time, title, the lecturer's words), then each part's label as it is written, then the
    gist."""

    def __init__(self, out: Console) -> None:
        self.out = out

    def __call__(self, grew: SummaryGrew) -> None:
        summary, step = grew.summary, grew.step
        notes: list[str] = []
        if isinstance(step, PartsReady):
            shown = terminal_parts(summary)
        elif isinstance(step, PartWritten):
            part = next(p for p in summary.parts if p.number == step.part.number)
            line, notes = terminal_part(part)
            shown = [line]
        else:
            shown = terminal_gist(summary)
        for block in shown:
            self.out.print(block, soft_wrap=True)
        for line in notes:
            note(line)


def write_pending(
    library: Library, session: ModelSession, among: Sequence[Lecture] | None = None
) -> int:
    """Write the summaries of the library's lectures (of `among`, else all) that the session's
    answer model has not written whole, each in its lecture's language, with a bar; one line
    per lecture written. How many were written; Ctrl+C: exit 130, the parts written kept."""
    name = session.answer_name()
    pending = pending_summaries(library, name, None, among)
    if not pending:
        if among is None:
            note(_("Every lecture's summary is written already."))
        return 0
    stop = threading.Event()
    source = session.source()
    written = 0
    with progress_bars() as bar:
        task = bar.add_task(_("summaries"), total=len(pending), rate="")
        try:
            for progress in write_summaries(
                library, pending, lambda: source.for_answer(stop), None, stop, name
            ):
                _show(bar, task, progress)
                written += progress.whole
        except KeyboardInterrupt:
            stop.set()
            bar.stop()
            note(_("(stopped: the parts written so far are kept)"))
            raise SystemExit(130) from None
    return written


def _show(bar: Progress, task: TaskID, progress: SummaryProgress) -> None:
    """Where the writing stands on the bar (lectures done, the part being written), and a
    line for each lecture whose summary is whole: its title and its gist's first sentence."""
    if progress.whole:
        assert progress.gist is not None
        said = first_sentence(progress.gist.label) or "…"
        console().print(
            f"[green]✓[/] [bold]{escape(progress.lecture.title)}[/]: {escape(said)}", soft_wrap=True
        )
    bar.update(
        task,
        completed=progress.number - 1 + progress.whole,
        description=_("summary of {title}").format(title=escape(progress.lecture.title)),
        rate=part_label(progress),
    )
