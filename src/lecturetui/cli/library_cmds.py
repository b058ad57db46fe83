"""ingest, lectures, show."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lecturetui.cli.base import (
    USAGE_ERROR,
    Context,
    console,
    count,
    fail,
    json_text,
    one_lecture,
    pass_ctx,
    progress_bars,
    renamed,
    write_rerank_vectors,
)

if TYPE_CHECKING:
    from rich.console import Console

    from lecturetui.core.ingest.pipeline import FileResult, IngestOptions


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
        fail(f"{exc}.", hint="e.g. --window 120 --overlap 35", code=USAGE_ERROR)
    options = IngestOptions(
        course, title, url, language, config, int(max_size * 1e6), strict, allow_long,
        asr_model, save_transcript,
    )  # fmt: skip
    obj.first_run()
    library = obj.library()
    out = console()
    t0 = time.perf_counter()
    with progress_bars() as bar:
        files = bar.add_task("files", total=None, rate="")
        audio = bar.add_task("transcribing", total=None, rate="", visible=False)
        segs = bar.add_task("embedding", total=None, rate="", visible=False)
        embed_t0 = [0.0]
        audio_t0 = [0.0]

        def on_file(done: int, total: int, name: str) -> None:
            bar.update(files, completed=done, total=total, description=f"ingesting {name}")
            bar.update(audio, visible=False)

        def on_audio(done_s: float, total_s: float) -> None:
            if done_s <= 0 or audio_t0[0] == 0.0:
                audio_t0[0] = time.perf_counter()
            speed = done_s / max(time.perf_counter() - audio_t0[0], 1e-6)
            bar.update(audio, completed=done_s, total=max(total_s, 1e-6), visible=True,
                       rate=f"{format_timestamp(done_s)}/{format_timestamp(total_s)} of audio, {speed:.1f}x")  # fmt: skip

        def on_embed(done: int, total: int) -> None:
            if done <= 0 or embed_t0[0] == 0.0:
                embed_t0[0] = time.perf_counter()
            rate = done / max(time.perf_counter() - embed_t0[0], 1e-6)
            bar.update(segs, completed=done, total=total, visible=True, rate=f"{rate:.1f} seg/s")

        try:
            report = library.ingest(
                paths, options, progress=on_file, embed_progress=on_embed, audio_progress=on_audio
            )
        except KeyboardInterrupt:
            bar.stop()
            fail(
                "Interrupted: files already done are kept, the one in progress was not stored.",
                code=130,
            )
    for result in report.results:
        _print_result(out, result)
    write_rerank_vectors(library)
    n_lectures, n_segments = library.counts()
    elapsed = time.perf_counter() - t0
    parts = [
        f"{report.count(s)} {s}" for s in ("added", "updated", "unchanged", "duplicate", "failed")
    ]
    out.print(
        f"{', '.join(p for p in parts if not p.startswith('0 '))} in {elapsed:.1f} s;"
        f" library: {count(n_lectures, 'lecture')}, {count(n_segments, 'segment')}"
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
        fail("--watch takes one folder.", hint="lecturetui ingest aulas/ --watch", code=USAGE_ERROR)
    out = console()

    def on_event(event: WatchEvent) -> None:
        if event.result is not None:
            if event.result.status != "unchanged":
                _print_result(out, event.result)
        elif event.kind == "removed":
            out.print(f"[yellow]removed[/]   {escape(event.path.name)} ({escape(event.message)})")
        elif event.kind == "missing":
            out.print(f"[yellow]missing[/]   {escape(event.path.name)}: its lecture is kept"
                      " (--prune removes it)")  # fmt: skip
        else:
            out.print(f"[red]failed[/]    {escape(event.path.name)}: {escape(event.message)}")

    watcher = FolderWatcher(obj.library(), paths[0], options, prune, on_event)
    out.print(f"[dim]Watching {escape(str(paths[0]))} (Ctrl+C stops)…[/]")
    try:
        watcher.run()
    except KeyboardInterrupt:
        out.print("[dim]Stopped watching.[/]")


def _print_result(out: Console, r: FileResult) -> None:
    from rich.markup import escape

    name = escape(str(r.path))
    if r.failed:
        out.print(f"[red]failed[/]    {name}: {escape(r.message)}", soft_wrap=True)
        return
    style = {"added": "green", "updated": "yellow", "unchanged": "dim", "duplicate": "dim"}[
        r.status
    ]
    what = ", ".join(r.lectures)
    detail = f" → {escape(what)} ({count(r.segments, 'segment')})" if r.segments else ""
    msg = f" ({escape(r.message)})" if r.status == "duplicate" else ""
    out.print(f"[{style}]{r.status:9}[/] {name}{detail}{msg}", soft_wrap=True)
    for w in r.warnings:
        out.print(f"  [yellow]warning:[/] {escape(w)}", soft_wrap=True)
    if r.transcript_file is not None:
        out.print(f"  [cyan]transcript:[/] {escape(str(r.transcript_file))}", soft_wrap=True)
    if r.status in ("added", "updated"):
        for note in r.notes:
            out.print(f"  [cyan]note:[/] {escape(note)}", soft_wrap=True)


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
        out.print(f"The library at {obj.home.root} is empty.")
        out.print(
            "[dim]hint:[/] lecturetui ingest PATH... (WebVTT, SRT, Whisper JSON, JSONL, text, audio, video)"
        )
        return
    table = Table(
        title=f"{count(len(items), 'lecture')} · {count(sum(x.segment_count for x in items), 'segment')}"
    )
    for col in Lecture.TABLE_COLUMNS:
        table.add_column(col, justify="right" if col in ("duration", "segments") else "left")
    dated = any(x.date for x in items)
    if dated:  # when it was given or published (yt-dlp's upload date)
        table.add_column("date")
    noted = any(x.notes for x in items)
    if noted:  # what reading the lecture's file repaired or skipped
        table.add_column("notes", overflow="fold")
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
        f"[bold]{escape(lec.title)}[/]  [dim]{escape(lec.course or '')} · {count(len(segments), 'segment')}[/]"
    )
    for s in segments:
        cid = f"  #{s.corpus_id}" if s.corpus_id is not None else ""
        out.print(f"\n[cyan]{format_span(s.start, s.end)}[/][dim]{cid}[/]")
        out.print(escape(s.text))
