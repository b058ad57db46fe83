"""outline: a lecture's chapters."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from lecturetui.cli.context import Context, pass_ctx
from lecturetui.cli.output import console, escape, fail, note, one_lecture
from lecturetui.cli.shared import json_text, read_old_chapters
from lecturetui.core.i18n import _
from lecturetui.core.study.aids import Chapter, Lecture, records

if TYPE_CHECKING:
    from lecturetui.core.library import Library


@click.command("outline")
@click.argument("lecture")
@click.option("--json", "as_json", is_flag=True, help="Print the chapters as JSON.")
@pass_ctx
def outline_cmd(obj: Context, lecture: str, as_json: bool) -> None:
    """Print a lecture's chapters, one "00:00 Title" line each (LECTURE: id, title or a prefix).

    The chapters are the video's own, as its author wrote them: a lecture downloaded with
    yt-dlp --write-info-json keeps them.
    """
    library = obj.library()
    read_old_chapters(library)
    lec = one_lecture(library, lecture)
    found = records(lec, library.author_chapters(lec) or made_chapters(library, lec))
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
