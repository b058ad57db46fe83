"""outline: a lecture's chapters."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from lecturetui.cli.context import Context, pass_ctx
from lecturetui.cli.output import console, fail, json_text, note, one_lecture
from lecturetui.cli.progress import progress_bars
from lecturetui.core.i18n import _, ngettext
from lecturetui.core.lectures import Chapter, Lecture

if TYPE_CHECKING:
    from lecturetui.core.library import Library
    from lecturetui.core.storage.store import Store


@click.command("outline")
@click.argument("lecture")
@click.option("--json", "as_json", is_flag=True, help="Print the chapters as JSON.")
@pass_ctx
def outline_cmd(obj: Context, lecture: str, as_json: bool) -> None:
    """Print a lecture's chapters, one "00:00 Title" line each (LECTURE: id, title or a prefix).

    The chapters are the video's own, as its author wrote them: a lecture downloaded with
    yt-dlp --write-info-json keeps them.
    """
    from rich.markup import escape

    from lecturetui.core.study.outline import chapters, records

    library = obj.library()
    store = library.store
    read_old_chapters(store)
    lec = one_lecture(store, lecture)
    found = records(lec, chapters(store, lec) or made_chapters(library, lec))
    if as_json:
        click.echo(json_text({"lecture": lec.id, "title": lec.title, "chapters": found}))
        return
    if not found:
        fail(
            _("{lecture} has no chapters.").format(lecture=lec.title),
            hint=_(
                "a lecture downloaded with `yt-dlp --write-info-json` keeps its video's chapters"
            ),
        )
    if found[0].source != "author":
        note(_("(no chapters of its author's: parts cut by lecturetui where the subject changes)"))
    out = console()
    out.print(f"# {escape(lec.title)}\n", soft_wrap=True)
    for c in found:
        # YouTube's chapter format (minutes:seconds, hours when there are any)
        out.print(f"{youtube_time(c.start_s)} {escape(c.title)}", soft_wrap=True, highlight=False)


def made_chapters(library: Library, lecture: Lecture) -> list[Chapter]:
    """A lecture's parts cut where the subject changes, as chapters made by lecturetui."""
    return [Chapter(p.start, p.title, "lecturetui") for p in library.parts(lecture)]


def youtube_time(seconds: float) -> str:
    """`0:00`, `12:05`, `1:02:03`: the times of a video description's chapter lines."""
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def read_old_chapters(store: Store) -> None:
    """The chapters of the lectures stored before chapters were kept, looked for once (their
    info files beside their sources), with a progress bar; Ctrl+C keeps what was read."""
    from lecturetui.core.study.outline import read_missing

    pending = len(store.chapters_unread())
    if not pending:
        return
    with progress_bars() as bar:
        task = bar.add_task(_("chapters of older lectures"), total=pending, rate="")
        try:
            gained = read_missing(store, lambda done, total: bar.update(task, completed=done))
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
