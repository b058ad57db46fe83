"""bookmarks (list, add, note, rm) and export (an answer or bookmarks to Markdown, Anki, CSV)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from lecturetui.cli.context import Context, pass_ctx
from lecturetui.cli.group import LtGroup
from lecturetui.cli.options import export_options, lecture_options
from lecturetui.cli.output import USAGE_ERROR, console, escape, fail, rich_table
from lecturetui.cli.shared import json_text, read_old_chapters, report_written
from lecturetui.core.asking import Scope
from lecturetui.core.i18n import N_, _, ngettext
from lecturetui.core.study.aids import (
    Targets,
    answer_markdown,
    bookmarks_markdown,
    export_answer,
    export_bookmarks,
    no_bookmarks,
    parse_timestamp,
)

if TYPE_CHECKING:
    from lecturetui.core.study.aids import Bookmark


#: the shape of `bookmarks --json`; bumped when a field changes meaning or goes away


#: --course and --lecture: only those lectures' bookmarks
_filter_options = lecture_options("Bookmarks of")


def _selected(obj: Context, courses: tuple[str, ...], lectures: tuple[str, ...]) -> list[Bookmark]:
    library = obj.library()
    scope = library.scoped(Scope(courses, lectures))
    return library.bookmarks().all(None if scope is None else scope.lecture_ids)


def _seconds(_ctx: click.Context, _param: click.Parameter, value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return parse_timestamp(value)
    except ValueError:
        raise click.BadParameter(
            _("{value} is not a time (hh:mm:ss, mm:ss or seconds)").format(value=repr(value))
        ) from None


def _describe(mark: Bookmark) -> str:
    m = mark.moment
    return f"{mark.id}: {escape(m.lecture_title)} [cyan]{m.span}[/]"


@click.group("bookmarks", cls=LtGroup, invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help='Print JSON ("schema": 2).')
@_filter_options
@click.pass_context
def bookmarks_group(
    ctx: click.Context, as_json: bool, courses: tuple[str, ...], lectures: tuple[str, ...]
) -> None:
    """List the bookmarked moments by course, lecture and time, with their notes and links
    (b on a segment in the app bookmarks one); add, note and rm change them."""
    if ctx.invoked_subcommand is not None:
        return
    obj = ctx.find_object(Context)
    assert obj is not None
    marks = _selected(obj, courses, lectures)
    if as_json:
        click.echo(json_text({"bookmarks": [b.to_json() for b in marks]}))
        return
    _print_table(marks)


def _print_table(marks: list[Bookmark]) -> None:
    out = console()
    if not marks:
        out.print(_("No bookmarks yet."))
        hint = _("b on a segment in the app, or lecturetui bookmarks add SEGMENT_ID")
        out.print("[dim]" + _("hint:") + f"[/] {hint}")
        return
    n = len(marks)
    table = rich_table(title=ngettext("{n} bookmark", "{n} bookmarks", n).format(n=n))
    table.add_column(_("id"), justify="right", no_wrap=True)
    for col in (N_("course"), N_("lecture")):
        table.add_column(_(col), overflow="fold")
    table.add_column(_("time"), no_wrap=True, min_width=17)
    for col in (N_("note"), N_("link")):
        table.add_column(_(col), overflow="fold")
    removed = " [dim]" + _("(removed)") + "[/]"
    for b in marks:
        m = b.moment
        lecture = escape(m.lecture_title) + (removed if b.orphaned else "")
        table.add_row(
            str(b.id), escape(m.course or ""), lecture, m.span, escape(b.note), escape(m.url or "")
        )
    out.print(table)


@bookmarks_group.command("add")
@click.argument("segment_id", type=int, required=False)
@click.option(
    "--lecture", metavar="ID|TITLE", help="With --at: bookmark this lecture's segment at that time."
)
@click.option(
    "--at",
    callback=_seconds,
    metavar="TIME",
    help="With --lecture: the time of the segment to bookmark.",
)
@click.option("--note", default="", help="A note on the moment.")
@click.option(
    "--start",
    callback=_seconds,
    metavar="TIME",
    help="Where the moment starts (default: the segment's start).",
)
@click.option(
    "--end",
    callback=_seconds,
    metavar="TIME",
    help="Where the moment ends (default: the segment's end).",
)
@click.option(
    "--answer",
    "history_id",
    type=int,
    metavar="ID",
    help="The history entry (answer) the moment was cited in.",
)
@pass_ctx
def add_cmd(
    obj: Context,
    segment_id: int | None,
    lecture: str | None,
    at: float | None,
    note: str,
    start: float | None,
    end: float | None,
    history_id: int | None,
) -> None:
    """Bookmark segment SEGMENT_ID (its id in `search --json` or `show --json`), or the
    segment at --at in --lecture; --start and --end narrow or widen the moment. The same
    moment again replaces its note."""
    if (segment_id is None) == (lecture is None or at is None):
        fail(
            _("Say what to bookmark: a SEGMENT_ID, or --lecture with --at."),
            hint='lecturetui bookmarks add --lecture "aula 1" --at 12:30 --note "…"',
            code=USAGE_ERROR,
        )
    library = obj.library()
    marks = library.bookmarks()
    if segment_id is None:
        assert lecture is not None and at is not None
        scope = library.scoped(Scope(lectures=(lecture,)))
        assert scope is not None
        segment_id = marks.segment_at(next(iter(scope.lecture_ids)), at)
    mark = marks.add(segment_id, note, start, end, history_id=history_id)
    console().print(_("bookmarked {bookmark}").format(bookmark=_describe(mark)), soft_wrap=True)


@bookmarks_group.command("note")
@click.argument("bookmark_id", type=int)
@click.argument("text")
@pass_ctx
def note_cmd(obj: Context, bookmark_id: int, text: str) -> None:
    """Replace the note of bookmark BOOKMARK_ID with TEXT ("" clears it)."""
    mark = obj.library().bookmarks().set_note(bookmark_id, text)
    console().print(_("noted {bookmark}").format(bookmark=_describe(mark)), soft_wrap=True)


@bookmarks_group.command("rm")
@click.argument("bookmark_ids", type=int, nargs=-1, required=True)
@pass_ctx
def rm_cmd(obj: Context, bookmark_ids: tuple[int, ...]) -> None:
    """Delete bookmarks (their ids: `lecturetui bookmarks`)."""
    marks = obj.library().bookmarks()
    for bookmark_id in bookmark_ids:
        deleted = _describe(marks.delete(bookmark_id))
        console().print(_("deleted {bookmark}").format(bookmark=deleted), soft_wrap=True)


@click.command("export")
@click.option(
    "--answer", "answer_ref", metavar="ID|last", help="An answer from the history: its id, or last."
)
@click.option(
    "--bookmarks",
    "use_bookmarks",
    is_flag=True,
    help="The bookmarks (all, or --course / --lecture's).",
)
@_filter_options
@export_options(
    "Write Markdown (Obsidian too) to this file; - prints it.",
    "flashcards (front, back, lecture, start, link)",
    stdout=True,
)
@pass_ctx
def export_cmd(
    obj: Context,
    answer_ref: str | None,
    use_bookmarks: bool,
    courses: tuple[str, ...],
    lectures: tuple[str, ...],
    md: Path | None,
    anki: Path | None,
    csv_path: Path | None,
) -> None:
    """Export an answer (question, answer, citations with lecture, times and links) or the
    bookmarks to Markdown, and as flashcards to Anki and CSV."""
    if (answer_ref is None) == (not use_bookmarks):
        fail(
            _("Say what to export: --answer ID|last or --bookmarks."),
            hint="lecturetui export --answer last --md resposta.md",
            code=USAGE_ERROR,
        )
    if answer_ref is not None and (courses or lectures):
        fail(
            _("--course and --lecture choose bookmarks, not an answer."),
            hint="lecturetui export --bookmarks --course NAME --md notas.md",
            code=USAGE_ERROR,
        )
    stdout = md is not None and str(md) == "-"
    to = Targets(None if stdout else md, anki, csv_path)
    if not to and not stdout:
        fail(
            _("Say where to write: --md FILE, --anki FILE or --csv FILE."),
            hint="lecturetui export --bookmarks --md notas.md --anki notas.apkg",
            code=USAGE_ERROR,
        )
    library = obj.library()
    if answer_ref is not None:
        answer = library.saved_answer(_entry(answer_ref))
        text = answer_markdown(answer)
        written = export_answer(answer, to) if to else []
    else:
        marks = _selected(obj, courses, lectures)
        if not marks:
            raise no_bookmarks()
        read_old_chapters(library)
        chapters = library.chapters_by_lecture(m.moment.lecture_id for m in marks)
        text = bookmarks_markdown(marks, chapters=chapters)
        written = export_bookmarks(marks, to, chapters=chapters) if to else []
    if stdout:
        click.echo(text, nl=False)
    for w in written:
        report_written(w)


def _entry(ref: str) -> int | None:
    if ref.strip().casefold() == "last":
        return None
    try:
        return int(ref)
    except ValueError:
        fail(
            _("{ref} is not an answer id.").format(ref=repr(ref)),
            hint=_("give a number, or last"),
            code=USAGE_ERROR,
        )
