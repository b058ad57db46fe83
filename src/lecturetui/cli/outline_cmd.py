"""outline: a lecture's chapters."""

from __future__ import annotations

import click

from lecturetui.cli.base import Context, console, fail, json_text, one_lecture, pass_ctx
from lecturetui.core.i18n import _


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

    store = obj.library().store
    lec = one_lecture(store, lecture)
    found = records(lec, chapters(store, lec))
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
    out = console()
    out.print(f"# {escape(lec.title)}\n", soft_wrap=True)
    for c in found:
        # YouTube's chapter format (minutes:seconds, hours when there are any)
        out.print(f"{youtube_time(c.start_s)} {escape(c.title)}", soft_wrap=True, highlight=False)


def youtube_time(seconds: float) -> str:
    """`0:00`, `12:05`, `1:02:03`: the times of a video description's chapter lines."""
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
