"""Progress bars, and the re-ranking vectors written behind one."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from lecturetui.cli.output import console, fail, segment_count
from lecturetui.core.i18n import _, decimal

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from lecturetui.core.library import Library


def segment_rate(bar: Progress, task: TaskID, digits: int = 1) -> Callable[[int, int], None]:
    """A (done, total) progress callback for `task` that also shows segments a second since
    it was made."""
    t0 = time.perf_counter()

    def update(done: int, total: int) -> None:
        rate = done / max(time.perf_counter() - t0, 1e-6)
        bar.update(
            task, completed=done, total=total, rate=f"{decimal(rate, digits, grouping=False)} seg/s"
        )

    return update


@contextmanager
def progress_bars() -> Iterator[Progress]:
    from rich.progress import (  # lazy: rich only for output to people
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        console=console(stderr=True),
        transient=True,
    ) as bar:
        yield bar


def write_rerank_vectors(library: Library) -> None:
    """The re-ranking model's vectors of what the library lacks, with a progress bar; the
    library stays searchable (with E5) throughout, and Ctrl+C keeps what was written."""
    if library.rerank_status():
        console(stderr=True).print(f"[dim]{library.rerank_status()}[/]", soft_wrap=True)
        return
    pending = library.rerank_pending()
    if not pending:
        return
    t0 = time.perf_counter()
    with progress_bars() as bar:
        task = bar.add_task(_("re-ranking vectors (EmbeddingGemma)"), total=pending, rate="")
        try:
            library.sync_rerank(segment_rate(bar, task, digits=2))
        except KeyboardInterrupt:
            bar.stop()
            fail(
                _(
                    "Interrupted: the lectures are searchable; the re-ranking vectors written so"
                    " far are kept and the rest follow on the next ingest or in the app."
                ),
                code=130,
            )
    done = _("Re-ranking vectors of {segments} in {seconds} s.").format(
        segments=segment_count(pending), seconds=decimal(time.perf_counter() - t0, grouping=False)
    )
    console(stderr=True).print(f"[dim]{done}[/]")
