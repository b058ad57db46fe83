"""remove and edit: a lecture leaves the library, or its title, course or link change."""

from __future__ import annotations

import click

from lecturetui.cli.base import USAGE_ERROR, Context, console, count, fail, one_lecture, pass_ctx


@click.command("remove")
@click.argument("lectures", nargs=-1, required=True)
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation.")
@pass_ctx
def remove_cmd(obj: Context, lectures: tuple[str, ...], yes: bool) -> None:
    """Remove LECTURES (ids, titles or unique prefixes) from the library, with their segments
    and vectors. Bookmarks of them stay, with the lecture's title and times."""
    from rich.markup import escape

    library = obj.library()
    chosen = {lec.id: lec for lec in (one_lecture(library.store, name) for name in lectures)}
    out = console()
    for lec in chosen.values():
        out.print(
            f"  {escape(lec.title)} [dim]({lec.id}, {count(lec.segment_count, 'segment')})[/]"
        )
    if not yes and not click.confirm(f"Remove {count(len(chosen), 'lecture')}?", default=False):
        out.print("Nothing removed.")
        return
    removed = sum(library.remove_lecture(lecture_id) for lecture_id in chosen)
    out.print(f"Removed {count(len(chosen), 'lecture')} ({count(removed, 'segment')}).")


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
    from rich.markup import escape

    if title is None and course is None and url is None:
        fail("Say what to change: --title, --course or --url.",
             hint='lecturetui edit aula-1 --course "Redes"', code=USAGE_ERROR)  # fmt: skip
    if title is not None and not title.strip():
        fail("A lecture needs a title.", hint="give --title a name", code=USAGE_ERROR)
    library = obj.library()
    lec = one_lecture(library.store, lecture)
    library.store.update_lecture(lec.id, title.strip() if title else None, course, url)
    now = library.store.lecture(lec.id)
    assert now is not None
    console().print(
        f"{escape(now.title)} [dim]({now.id})[/] · course: {escape(now.course or '—')}"
        f" · link: {escape(now.source_url or '—')}"
    )
