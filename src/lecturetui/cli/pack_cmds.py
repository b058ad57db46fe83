"""pack export and pack import: a class's library made once, shared as one file (core/pack/)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from lecturetui.cli.context import Context, pass_ctx
from lecturetui.cli.options import lecture_options
from lecturetui.cli.output import console, escape, fail, lecture_count, segment_count
from lecturetui.cli.progress import progress_bars, write_rerank_vectors
from lecturetui.cli.shared import check_inputs, json_text
from lecturetui.core.asking import Scope
from lecturetui.core.i18n import N_, _, decimal
from lecturetui.core.pack.sharing import export_pack, import_pack

if TYPE_CHECKING:
    from rich.progress import Progress

    from lecturetui.core.library import Library
    from lecturetui.core.pack.sharing import ImportResult
    from lecturetui.core.study.aids import Lecture


#: what became of a pack's lecture, as `pack import` prints it (--json keeps the English)
STATUS = {
    "added": N_("added"),
    "updated": N_("updated"),
    "unchanged": N_("unchanged"),
    "skipped": N_("skipped"),
}
#: the import's summary line, per status: "29 added, 1 unchanged"
COUNTS = {
    "added": N_("{n} added"),
    "updated": N_("{n} updated"),
    "unchanged": N_("{n} unchanged"),
    "skipped": N_("{n} skipped"),
}
STYLE = {"added": "green", "updated": "yellow", "unchanged": "dim", "skipped": "yellow"}
#: the import's progress bar, by stage (core/pack/importer.py)
STAGES = {
    "reading": N_("reading the pack"),
    "embedding": N_("embedding its segments again"),
    "storing": N_("storing"),
}


@click.group("pack")
def pack_group() -> None:
    """Course packs: a class's library built once and shared as one file.

    A TA exports the course (`pack export course.ltpack --course NAME`); each student imports it
    (`pack import course.ltpack`) and can search at once, with the same ranking."""


@pack_group.command("export")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@lecture_options("Export only")
@click.option("--json", "as_json", is_flag=True, help="Print what was written as JSON.")
@pass_ctx
def export_cmd(
    obj: Context, file: Path, courses: tuple[str, ...], lectures: tuple[str, ...], as_json: bool
) -> None:
    """Write the library's lectures (or a course's, or some lectures) to FILE, a zip a student
    imports with `pack import`: their text, times, chapters, links, vectors, key phrases and
    summaries. Media files never go in; their links do."""
    obj.first_run()
    library = obj.library()
    chosen = _chosen(library, courses, lectures)
    t0 = time.perf_counter()
    with progress_bars() as bar, _interrupted(bar, _("Interrupted: no pack was written.")):
        task = bar.add_task(_("vectors the library lacks"), total=None, rate="")
        result = export_pack(
            library, file, chosen, lambda done, total: bar.update(task, completed=done, total=total)
        )
    if as_json:
        click.echo(json_text(result))
        return
    gemma = _(" with EmbeddingGemma's vectors") if result.rerank else ""
    console().print(
        # TRANSLATORS: {gemma} is " with EmbeddingGemma's vectors" or nothing
        _("Wrote {file}: {lectures}, {segments}{gemma}, {mb} MB in {seconds} s.").format(
            file=result.path,
            lectures=lecture_count(result.lectures),
            segments=segment_count(result.segments),
            gemma=gemma,
            mb=decimal(result.bytes / 1e6, grouping=False),
            seconds=decimal(time.perf_counter() - t0, grouping=False),
        ),
        soft_wrap=True,
    )


def _chosen(library: Library, courses: tuple[str, ...], lectures: tuple[str, ...]) -> list[Lecture]:
    scoped = library.scoped(Scope(courses, lectures))
    return [x for x in library.lectures() if scoped is None or x.id in scoped.lecture_ids]


@pack_group.command("import")
@click.argument("file", type=click.Path(readable=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print what was imported as JSON.")
@pass_ctx
def import_cmd(obj: Context, file: Path, as_json: bool) -> None:
    """Merge the pack FILE into the library: its lectures are searchable at once. A lecture
    imported before is updated in place; one of your own is never replaced. Nothing in the
    file is trusted: a pack that fails any check is refused whole, the library unchanged."""
    check_inputs([file])
    obj.first_run()
    library = obj.library()
    t0 = time.perf_counter()
    stopped = _(
        "Interrupted: the library is as it was, or holds the whole pack; run the import"
        " again to finish it."
    )
    with progress_bars() as bar, _interrupted(bar, stopped):
        task = bar.add_task(_(STAGES["reading"]), total=None, rate="")

        def on_progress(stage: str, done: int, total: int) -> None:
            bar.update(task, description=_(STAGES.get(stage, stage)), completed=done, total=total)

        result = import_pack(library, file, on_progress)
    if as_json:
        click.echo(json_text(result))
    else:
        _print(library, result, time.perf_counter() - t0)
    if result.rerank == "pending":
        write_rerank_vectors(library)


def _print(library: Library, result: ImportResult, seconds: float) -> None:
    out = console()
    width = max(len(_(word)) for word in STATUS.values())
    for lec in result.lectures:
        word = f"{_(STATUS[lec.status]):{width}}"
        out.print(
            f"[{STYLE[lec.status]}]{word}[/] {escape(lec.id)} [dim]{escape(lec.title)}[/]",
            soft_wrap=True,
        )
        if lec.note:
            out.print("  [yellow]" + _("note:") + f"[/] {escape(lec.note)}", soft_wrap=True)
    err = console(stderr=True)
    for note in dict.fromkeys(
        n for n in result.notes if n not in {x.note for x in result.lectures}
    ):
        err.print("[yellow]" + _("note:") + f"[/] {escape(note)}", soft_wrap=True)
    if result.summaries:
        err.print(
            "[dim]"
            + _("Summaries came along, written by {models}.").format(
                models=", ".join(result.models)
            )
            + "[/]",
            soft_wrap=True,
        )
    counts = ", ".join(_(COUNTS[s]).format(n=result.count(s)) for s in COUNTS if result.count(s))
    n_lectures, n_segments = library.counts()
    out.print(
        # TRANSLATORS: {counts} is e.g. "29 added, 1 unchanged"
        _("{counts} in {seconds} s; library: {lectures}, {segments}").format(
            counts=counts,
            seconds=decimal(seconds, grouping=False),
            lectures=lecture_count(n_lectures),
            segments=segment_count(n_segments),
        )
    )


@contextmanager
def _interrupted(bar: Progress, message: str) -> Iterator[None]:
    try:
        yield
    except KeyboardInterrupt:
        bar.stop()
        fail(message, code=130)
