"""The command line: a thin face on the core. Heavy imports happen inside the commands."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from lecturetui import __version__

if TYPE_CHECKING:
    from rich.console import Console

    from lecturetui.core.ingest import FileResult
    from lecturetui.core.paths import DataHome
    from lecturetui.core.store import Store

F = TypeVar("F", bound=Callable[..., Any])


def _console(stderr: bool = False) -> Console:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def fail(message: str, hint: str | None = None, code: int = 2) -> None:
    err = _console(stderr=True)
    err.print(f"[bold red]error:[/] {message}")
    if hint:
        err.print(f"[dim]hint:[/] {hint}")
    sys.exit(code)


class Context:
    def __init__(self, home: str | None) -> None:
        from lecturetui.core.paths import DataHome

        self.home: DataHome = DataHome.resolve(home)

    def store(self) -> Store:
        from lecturetui.core.store import Store

        return Store(self.home.db_path)


pass_ctx = click.make_pass_decorator(Context)


@click.group(invoke_without_command=True)
@click.option(
    "--home",
    type=click.Path(file_okay=False),
    envvar="LECTURETUI_HOME",
    help="Data folder (library and models). Default: $LECTURETUI_HOME or your user data folder.",
)
@click.version_option(__version__, prog_name="lecturetui")
@click.pass_context
def cli(ctx: click.Context, home: str | None) -> None:
    """Ask questions of your recorded lectures, from the terminal.

    Ingest transcripts (WebVTT, SRT, Whisper JSON, segment JSONL, timestamped text), then list and
    read them; search and answers come with the models.
    """
    ctx.obj = Context(home)
    if ctx.invoked_subcommand is None:
        ctx.invoke(lectures_cmd)


@cli.command("ingest")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--course", help="Course name for these lectures.")
@click.option("--title", help="Lecture title (a single-lecture file only).")
@click.option("--url", help="Video URL of the lecture, for links at a timestamp.")
@click.option("--lang", "language", help="Language code (e.g. pt, en). Default: detected.")
@click.option("--window", type=float, default=120.0, show_default=True, help="Segment length, s.")
@click.option("--overlap", type=float, default=35.0, show_default=True, help="Segment overlap, s.")
@click.option(
    "--max-tokens", type=int, default=512, show_default=True, help="Token budget per segment."
)
@click.option("--max-size", type=float, default=50.0, show_default=True, help="Largest file, MB.")
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
    max_size: float,
) -> None:
    """Add transcript files or folders to the library (unchanged files are skipped)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from lecturetui.core.ingest import IngestOptions, ingest_paths
    from lecturetui.core.segmenting import SegmentConfig

    try:
        config = SegmentConfig(window_s=window, overlap_s=overlap, max_tokens=max_tokens)
    except ValueError as exc:
        fail(f"{exc}.", hint="e.g. --window 120 --overlap 35")
        return
    options = IngestOptions(course, title, url, language, config, int(max_size * 1e6))
    out = _console()
    t0 = time.perf_counter()
    with _store_or_fail(obj) as store:
        with Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=_console(stderr=True),
            transient=True,
        ) as bar:
            task = bar.add_task("ingesting", total=None)

            def progress(done: int, total: int, name: str) -> None:
                bar.update(task, completed=done, total=total, description=f"ingesting {name}")

            try:
                report = ingest_paths(store, paths, options, progress=progress)
            except KeyboardInterrupt:
                bar.stop()
                fail(
                    "Interrupted; files already done are kept, the one in progress was not stored.",
                    code=130,
                )
                return
        for result in report.results:
            _print_result(out, result)
        n_lectures, n_segments = store.counts()
    elapsed = time.perf_counter() - t0
    parts = [
        f"{report.count(s)} {s}" for s in ("added", "updated", "unchanged", "duplicate", "failed")
    ]
    out.print(
        f"{', '.join(p for p in parts if not p.startswith('0 '))} in {elapsed:.1f} s;"
        f" library: {n_lectures} lectures, {n_segments} segments"
    )
    if report.failed:
        sys.exit(1)


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
    detail = f" → {escape(what)} ({r.segments} segments)" if r.segments else ""
    msg = f" ({escape(r.message)})" if r.status == "duplicate" else ""
    out.print(f"[{style}]{r.status:9}[/] {name}{detail}{msg}", soft_wrap=True)
    for w in r.warnings:
        out.print(f"  [yellow]warning:[/] {escape(w)}", soft_wrap=True)


class _store_or_fail:
    def __init__(self, obj: Context) -> None:
        self.obj = obj
        self.store: Store | None = None

    def __enter__(self) -> Store:
        from lecturetui.core.errors import LectureTuiError

        try:
            self.store = self.obj.store()
        except LectureTuiError as exc:
            fail(exc.message, exc.hint)
            raise SystemExit(2) from None
        return self.store

    def __exit__(self, *exc: object) -> None:
        if self.store is not None:
            self.store.close()


@cli.command("lectures")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_ctx
def lectures_cmd(obj: Context, as_json: bool = False) -> None:
    """List the lectures in the library."""
    from rich.table import Table

    from lecturetui.core.timefmt import format_duration

    with _store_or_fail(obj) as store:
        items = store.lectures()
    if as_json:
        click.echo(json.dumps([_lecture_json(x) for x in items], ensure_ascii=False, indent=2))
        return
    out = _console()
    if not items:
        out.print(f"The library at {obj.home.root} is empty.")
        out.print(
            "[dim]hint:[/] lecturetui ingest PATH... (WebVTT, SRT, Whisper JSON, JSONL, text)"
        )
        return
    table = Table(title=f"{len(items)} lectures · {sum(x.segment_count for x in items)} segments")
    for col, kw in (
        ("id", {}),
        ("title", {}),
        ("course", {}),
        ("lang", {}),
        ("duration", {"justify": "right"}),
        ("segments", {"justify": "right"}),
    ):
        table.add_column(col, **kw)  # type: ignore[arg-type]
    for x in items:
        table.add_row(
            x.id,
            x.title,
            x.course or "",
            x.language or "",
            format_duration(x.duration),
            str(x.segment_count),
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
    }


@cli.command("show")
@click.argument("lecture")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_ctx
def show_cmd(obj: Context, lecture: str, as_json: bool) -> None:
    """Print a lecture's segments with their timestamps (LECTURE: id, title or a prefix)."""
    from rich.markup import escape

    from lecturetui.core.timefmt import format_timestamp

    with _store_or_fail(obj) as store:
        matches = store.resolve_lecture(lecture)
        if not matches:
            fail(f"No lecture matches {lecture!r}.", hint="`lecturetui lectures` lists them")
        if len(matches) > 1:
            names = ", ".join(m.id for m in matches[:8])
            fail(f"{lecture!r} matches {len(matches)} lectures: {names}.", hint="give the full id")
        lec = matches[0]
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
        click.echo(json.dumps(payload, ensure_ascii=False, indent=2))
        return
    out = _console()
    out.print(
        f"[bold]{escape(lec.title)}[/]  [dim]{escape(lec.course or '')} · {len(segments)} segments[/]"
    )
    for s in segments:
        cid = f"  #{s.corpus_id}" if s.corpus_id is not None else ""
        out.print(f"\n[cyan]{format_timestamp(s.start)}–{format_timestamp(s.end)}[/][dim]{cid}[/]")
        out.print(escape(s.text))


def main() -> None:
    from lecturetui.core.errors import LectureTuiError

    try:
        cli.main(standalone_mode=True)
    except LectureTuiError as exc:  # pragma: no cover - commands catch their own
        fail(exc.message, exc.hint)
