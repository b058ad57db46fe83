"""remove and edit: a lecture leaves the library, or its title, course or link change."""

from __future__ import annotations

import click

from lecturetui.cli.context import Context, pass_ctx
from lecturetui.cli.output import USAGE_ERROR, console, escape, fail, one_lecture, segment_count
from lecturetui.core.i18n import _, decimal, ngettext


@click.command("remove")
@click.argument("lectures", nargs=-1, required=True)
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation.")
@pass_ctx
def remove_cmd(obj: Context, lectures: tuple[str, ...], yes: bool) -> None:
    """Remove LECTURES (ids, titles or unique prefixes) from the library, with their segments
    and vectors. Bookmarks of them stay, with the lecture's title and times."""
    library = obj.library()
    chosen = {lec.id: lec for lec in (one_lecture(library, name) for name in lectures)}
    out = console()
    for lec in chosen.values():
        out.print(f"  {escape(lec.title)} [dim]({lec.id}, {segment_count(lec.segment_count)})[/]")
    n = len(chosen)
    question = ngettext("Remove {n} lecture?", "Remove {n} lectures?", n).format(n=decimal(n, 0))
    if not yes and not click.confirm(question, default=False):
        out.print(_("Nothing removed."))
        return
    removed = sum(library.remove_lecture(lecture_id) for lecture_id in chosen)
    out.print(
        ngettext(
            "Removed {n} lecture ({segments}).", "Removed {n} lectures ({segments}).", n
        ).format(n=decimal(n, 0), segments=segment_count(removed))
    )


@click.command("edit")
@click.argument("lecture")
@click.option("--title", help="New title.")
@click.option("--course", help='New course ("" to clear it).')
@click.option("--url", help='New video URL or local video path ("" to clear it).')
@pass_ctx
def edit_cmd(
    obj: Context, lecture: str, title: str | None, course: str | None, url: str | None
) -> None:
    """Change LECTURE's title, course or link (nothing is embedded again)."""
    if title is None and course is None and url is None:
        fail(
            _("Say what to change: --title, --course or --url."),
            hint='lecturetui edit aula-1 --course "Redes"',
            code=USAGE_ERROR,
        )
    if title is not None and not title.strip():
        fail(_("A lecture needs a title."), hint=_("give --title a name"), code=USAGE_ERROR)
    library = obj.library()
    lec = one_lecture(library, lecture)
    library.update_lecture(lec.id, title.strip() if title else None, course, url)
    now = library.lecture(lec.id)
    assert now is not None
    course_text = _("course: {course}").format(course=escape(now.course or "—"))
    link_text = _("link: {link}").format(link=escape(now.source_url or "—"))
    console().print(f"{escape(now.title)} [dim]({now.id})[/] · {course_text} · {link_text}")
