"""ingest, lectures, show."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lecturetui.cli.context import Context, pass_ctx
from lecturetui.cli.output import (
    USAGE_ERROR,
    console,
    fail,
    json_text,
    lecture_count,
    one_lecture,
    renamed,
    segment_count,
)
from lecturetui.cli.progress import progress_bars, write_rerank_vectors
from lecturetui.core.i18n import N_, _, decimal

if TYPE_CHECKING:
    from rich.console import Console

    from lecturetui.core.ingest.pipeline import FileResult, IngestOptions

#: what became of a file, as the ingest and the watch print it (the record keeps the English)
STATUS = {
    "added": N_("added"),
    "updated": N_("updated"),
    "unchanged": N_("unchanged"),
    "duplicate": N_("duplicate"),
    "failed": N_("failed"),
    "removed": N_("removed"),
    "missing": N_("missing"),
}
#: an ingest's summary line, per status: "2 added, 1 unchanged"
SUMMARY = {
    "added": N_("{n} added"),
    "updated": N_("{n} updated"),
    "unchanged": N_("{n} unchanged"),
    "duplicate": N_("{n} duplicate"),
    "failed": N_("{n} failed"),
}
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


def status_word(status: str) -> str:
    """A file's status, translated and padded to the longest (9 in English), for the column."""
    width = max(len(_(word)) for word in STATUS.values())
    return f"{_(STATUS.get(status, status)):{width}}"


@click.command("ingest")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--course", help="Course name for these lectures.")
@click.option("--title", help="Lecture title (a single-lecture file only).")
@click.option("--url", help="Video URL (or local video path) of the lecture, for links at a time.")
@click.option("--lang", "language", help="Language code (e.g. pt, en). Default: detected.")
@click.option("--window", type=float, default=120.0, show_default=True, help="Segment length, s.")
@click.option("--overlap", type=float, default=35.0, show_default=True, help="Segment overlap, s.")
@click.option(
    "--segment-tokens",
    "max_tokens",
    type=int,
    default=512,
    show_default=True,
    help="Token budget per segment (prefix included); never above the model's limit.",
)
@click.option("--max-tokens", "old_max_tokens", type=int, hidden=True)  # for one release
@click.option("--max-size", type=float, default=50.0, show_default=True,
              help="Largest transcript file, MB (audio and video: no limit).")  # fmt: skip
@click.option(
    "--strict",
    is_flag=True,
    help="Refuse a file that needs any repair (backwards or unsorted cue times, skipped lines...).",
)
@click.option("--allow-long", is_flag=True, help="Accept lectures longer than 24 h.")
@click.option("--watch", is_flag=True,
              help="Keep the folder indexed: new and changed files are ingested as they arrive.")  # fmt: skip
@click.option("--prune", is_flag=True,
              help="With --watch: remove lectures whose file was deleted (else they are listed).")  # fmt: skip
@click.option("--asr-model", metavar="MODEL",
              help="Speech model for audio and video: whisper-base (default, bundled), a CTranslate2"
              " Whisper folder, or a hub id pulled with `models pull`.")  # fmt: skip
@click.option("--save-transcript", "save_transcript", is_flag=False, flag_value="", default=None,
              metavar="[DIR]", help="Also write each transcribed file's transcript as .vtt, beside"
              " it or into DIR.")  # fmt: skip
@pass_ctx
def ingest_cmd(
    obj: Context,
    paths: tuple[Path, ...],
    course: str | None,
    title: str | None,
    url: str | None,
    language: str | None,
    window: float,
    overlap: float,
    max_tokens: int,
    old_max_tokens: int | None,
    max_size: float,
    strict: bool,
    allow_long: bool,
    watch: bool,
    prune: bool,
    asr_model: str | None,
    save_transcript: str | None,
) -> None:
    """Add transcript, audio or video files, or folders of them, to the library and index them.

    Audio and video (mp4, mkv, webm, mp3, m4a, wav, ogg...) are transcribed offline with Whisper,
    unless a caption file of the same name lies beside them; the transcript is kept in the
    library, so nothing is transcribed twice. Unchanged files are skipped.
    """
    from lecturetui.core.ingest.pipeline import IngestOptions
    from lecturetui.core.ingest.segmenting import SegmentConfig
    from lecturetui.core.timefmt import format_timestamp

    max_tokens = renamed(old_max_tokens, "--max-tokens", "--segment-tokens") or max_tokens
    try:
        config = SegmentConfig(window_s=window, overlap_s=overlap, max_tokens=max_tokens)
    except ValueError as exc:
        fail(f"{exc}.", hint=_("e.g. --window 120 --overlap 35"), code=USAGE_ERROR)
    options = IngestOptions(
        course, title, url, language, config, int(max_size * 1e6), strict, allow_long,
        asr_model, save_transcript,
    )  # fmt: skip
    obj.first_run()
    library = obj.library()
    out = console()
    t0 = time.perf_counter()
    with progress_bars() as bar:
        files = bar.add_task(_("files"), total=None, rate="")
        audio = bar.add_task(_("transcribing"), total=None, rate="", visible=False)
        segs = bar.add_task(_("embedding"), total=None, rate="", visible=False)
        embed_t0 = [0.0]
        audio_t0 = [0.0]

        def on_file(done: int, total: int, name: str) -> None:
            what = _("ingesting {name}").format(name=name)
            bar.update(files, completed=done, total=total, description=what)
            bar.update(audio, visible=False)

        def on_audio(done_s: float, total_s: float) -> None:
            if done_s <= 0 or audio_t0[0] == 0.0:
                audio_t0[0] = time.perf_counter()
            speed = done_s / max(time.perf_counter() - audio_t0[0], 1e-6)
            rate = _("{done}/{total} of audio, {speed}x").format(
                done=format_timestamp(done_s),
                total=format_timestamp(total_s),
                speed=decimal(speed, grouping=False),
            )
            bar.update(audio, completed=done_s, total=max(total_s, 1e-6), visible=True, rate=rate)

        def on_embed(done: int, total: int) -> None:
            if done <= 0 or embed_t0[0] == 0.0:
                embed_t0[0] = time.perf_counter()
            rate = done / max(time.perf_counter() - embed_t0[0], 1e-6)
            bar.update(
                segs,
                completed=done,
                total=total,
                visible=True,
                rate=f"{decimal(rate, grouping=False)} seg/s",
            )

        try:
            report = library.ingest(
                paths, options, progress=on_file, embed_progress=on_embed, audio_progress=on_audio
            )
        except KeyboardInterrupt:
            bar.stop()
            fail(
                _("Interrupted: files already done are kept, the one in progress was not stored."),
                code=130,
            )
    for result in report.results:
        _print_result(out, result)
    write_rerank_vectors(library)
    n_lectures, n_segments = library.counts()
    elapsed = time.perf_counter() - t0
    parts = [_(SUMMARY[s]).format(n=report.count(s)) for s in SUMMARY if report.count(s)]
    out.print(
        # TRANSLATORS: {counts} is e.g. "2 added, 1 unchanged"
        _("{counts} in {seconds} s; library: {lectures}, {segments}").format(
            counts=", ".join(parts),
            seconds=decimal(elapsed, grouping=False),
            lectures=lecture_count(n_lectures),
            segments=segment_count(n_segments),
        )
    )
    if watch:
        _watch(obj, paths, options, prune)
    elif report.failed:
        sys.exit(1)


def _watch(obj: Context, paths: tuple[Path, ...], options: IngestOptions, prune: bool) -> None:
    """Keep the folder indexed until Ctrl+C (the ingest above already caught up with it)."""
    from rich.markup import escape

    from lecturetui.core.watch import FolderWatcher, WatchEvent

    if len(paths) != 1 or not paths[0].is_dir():
        fail(
            _("--watch takes one folder."),
            hint="lecturetui ingest aulas/ --watch",
            code=USAGE_ERROR,
        )
    out = console()

    def on_event(event: WatchEvent) -> None:
        if event.result is not None:
            if event.result.status != "unchanged":
                _print_result(out, event.result)
        elif event.kind == "removed":
            out.print(f"[yellow]{status_word('removed')}[/] {escape(event.path.name)}"
                      f" ({escape(event.message)})")  # fmt: skip
        elif event.kind == "missing":
            kept = _("{file}: its lecture is kept (--prune removes it)").format(
                file=escape(event.path.name)
            )
            out.print(f"[yellow]{status_word('missing')}[/] {kept}")
        else:
            out.print(f"[red]{status_word('failed')}[/] {escape(event.path.name)}:"
                      f" {escape(event.message)}")  # fmt: skip

    watcher = FolderWatcher(obj.library(), paths[0], options, prune, on_event)
    watching = _("Watching {folder} (Ctrl+C stops)…").format(folder=escape(str(paths[0])))
    out.print(f"[dim]{watching}[/]")
    try:
        watcher.run()
    except KeyboardInterrupt:
        out.print("[dim]" + _("Stopped watching.") + "[/]")


def _print_result(out: Console, r: FileResult) -> None:
    from rich.markup import escape

    name = escape(str(r.path))
    if r.failed:
        out.print(f"[red]{status_word('failed')}[/] {name}: {escape(r.message)}", soft_wrap=True)
        return
    style = {"added": "green", "updated": "yellow", "unchanged": "dim", "duplicate": "dim"}[
        r.status
    ]
    what = ", ".join(r.lectures)
    detail = f" → {escape(what)} ({segment_count(r.segments)})" if r.segments else ""
    msg = f" ({escape(r.message)})" if r.status == "duplicate" else ""
    out.print(f"[{style}]{status_word(r.status)}[/] {name}{detail}{msg}", soft_wrap=True)
    for w in r.warnings:
        out.print("  [yellow]" + _("warning:") + f"[/] {escape(w)}", soft_wrap=True)
    if r.transcript_file is not None:
        out.print(
            "  [cyan]" + _("transcript:") + f"[/] {escape(str(r.transcript_file))}", soft_wrap=True
        )
    if r.status in ("added", "updated"):
        for note in r.notes:
            out.print("  [cyan]" + _("note:") + f"[/] {escape(note)}", soft_wrap=True)


@click.command("lectures")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_ctx
def lectures_cmd(obj: Context, as_json: bool = False) -> None:
    """List the lectures in the library."""
    from rich.table import Table

    from lecturetui.core.lectures import Lecture

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
    table = Table(
        title=f"{lecture_count(len(items))} · {segment_count(sum(x.segment_count for x in items))}"
    )
    for col in Lecture.TABLE_COLUMNS:
        table.add_column(_(COLUMNS.get(col, col)),
                         justify="right" if col in ("duration", "segments") else "left")  # fmt: skip
    dated = any(x.date for x in items)
    if dated:  # when it was given or published (yt-dlp's upload date)
        table.add_column(_(COLUMNS["date"]))
    noted = any(x.notes for x in items)
    if noted:  # what reading the lecture's file repaired or skipped
        table.add_column(_(COLUMNS["notes"]), overflow="fold")
    for x in items:
        table.add_row(*x.table_row(), *([x.date or ""] if dated else []),
                      *(["\n".join(x.notes)] if noted else []))  # fmt: skip
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
    from rich.markup import escape

    from lecturetui.core.timefmt import format_span

    store = obj.library().store
    lec = one_lecture(store, lecture)
    segments = store.segments(lec.id)
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
