"""lectures, show."""

from __future__ import annotations

from typing import Any

import click

from lecturetui.cli.context import Context, pass_ctx
from lecturetui.cli.output import (
    console,
    escape,
    lecture_count,
    one_lecture,
    rich_table,
    segment_count,
)
from lecturetui.cli.shared import json_text
from lecturetui.core.i18n import N_, _
from lecturetui.core.study.aids import Lecture, format_span

#: the lecture table's columns (Lecture.TABLE_COLUMNS and the optional ones)
COLUMNS = {
    "id": N_("id"),
    "title": N_("title"),
    "course": N_("course"),
    "lang": N_("lang"),
    "duration": N_("duration"),
    "segments": N_("segments"),
    "date": N_("date"),
    "notes": N_("notes"),
}


@click.command("lectures")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_ctx
def lectures_cmd(obj: Context, as_json: bool = False) -> None:
    """List the lectures in the library."""
    items = obj.library().lectures()
    if as_json:
        click.echo(json_text({"lectures": [_lecture_json(x) for x in items]}))
        return
    out = console()
    if not items:
        out.print(_("The library at {folder} is empty.").format(folder=obj.home.root))
        formats = _("WebVTT, SRT, Whisper JSON, JSONL, text, audio, video")
        out.print("[dim]" + _("hint:") + f"[/] lecturetui ingest PATH... ({formats})")
        return
    table = rich_table(
        title=f"{lecture_count(len(items))} · {segment_count(sum(x.segment_count for x in items))}"
    )
    for col in Lecture.TABLE_COLUMNS:
        table.add_column(
            _(COLUMNS.get(col, col)), justify="right" if col in ("duration", "segments") else "left"
        )
    dated = any(x.date for x in items)
    if dated:  # when it was given or published (yt-dlp's upload date)
        table.add_column(_(COLUMNS["date"]))
    noted = any(x.notes for x in items)
    if noted:  # what reading the lecture's file repaired or skipped
        table.add_column(_(COLUMNS["notes"]), overflow="fold")
    for x in items:
        table.add_row(
            *x.table_row(),
            *([x.date or ""] if dated else []),
            *(["\n".join(x.notes)] if noted else []),
        )
    out.print(table)


def _lecture_json(x: Any) -> dict[str, Any]:
    return {
        "id": x.id,
        "title": x.title,
        "course": x.course,
        "language": x.language,
        "duration_s": x.duration,
        "segments": x.segment_count,
        "source_path": x.source_path,
        "source_url": x.source_url,
        "format": x.source_format,
        "date": x.date,
        "notes": list(x.notes),
    }


@click.command("show")
@click.argument("lecture")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_ctx
def show_cmd(obj: Context, lecture: str, as_json: bool) -> None:
    """Print a lecture's segments with their timestamps (LECTURE: id, title or a prefix)."""
    library = obj.library()
    lec = one_lecture(library, lecture)
    segments = library.segments(lec.id)
    if as_json:
        payload = {
            **_lecture_json(lec),
            "segments": [
                {
                    "id": s.id,
                    "corpus_id": s.corpus_id,
                    "start_s": s.start,
                    "end_s": s.end,
                    "text": s.text,
                }
                for s in segments
            ],
        }
        click.echo(json_text(payload))
        return
    out = console()
    out.print(
        f"[bold]{escape(lec.title)}[/]  [dim]{escape(lec.course or '')} · {segment_count(len(segments))}[/]"
    )
    for s in segments:
        cid = f"  #{s.corpus_id}" if s.corpus_id is not None else ""
        out.print(f"\n[cyan]{format_span(s.start, s.end)}[/][dim]{cid}[/]")
        out.print(escape(s.text))
