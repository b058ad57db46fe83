"""ingest: files and folders into the library, with progress; --watch keeps a folder indexed."""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lecturetui.cli.context import Context, pass_ctx
from lecturetui.cli.options import F
from lecturetui.cli.output import (
    USAGE_ERROR,
    console,
    escape,
    fail,
    lecture_count,
    renamed,
    segment_count,
)
from lecturetui.cli.progress import progress_bars, write_rerank_vectors
from lecturetui.cli.shared import check_inputs
from lecturetui.cli.summaries import write_pending
from lecturetui.core.asking import AnswerChoice
from lecturetui.core.i18n import N_, _, decimal
from lecturetui.core.intake import FolderWatcher, IngestOptions, SegmentConfig, WatchEvent
from lecturetui.core.study.aids import format_timestamp

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

    from lecturetui.core.intake import FileResult, IngestReport
    from lecturetui.core.library import Library


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
#: the options that are IngestOptions' own fields under the same name
_AS_IS = (
    "course",
    "title",
    "url",
    "language",
    "strict",
    "allow_long",
    "asr_model",
    "save_transcript",
)


def status_word(status: str) -> str:
    """A file's status, translated and padded to the longest (9 in English), for the column."""
    width = max(len(_(word)) for word in STATUS.values())
    return f"{_(STATUS.get(status, status)):{width}}"


#: the options that make IngestOptions
_OPTIONS = (
    click.option("--course", help="Course name for these lectures."),
    click.option("--title", help="Lecture title (a single-lecture file only)."),
    click.option(
        "--url", help="Video URL (or local video path) of the lecture, for links at a time."
    ),
    click.option("--lang", "language", help="Language code (e.g. pt, en). Default: detected."),
    click.option(
        "--window", type=float, default=120.0, show_default=True, help="Segment length, s."
    ),
    click.option(
        "--overlap", type=float, default=35.0, show_default=True, help="Segment overlap, s."
    ),
    click.option(
        "--segment-tokens",
        "max_tokens",
        type=int,
        default=512,
        show_default=True,
        help="Token budget per segment (prefix included); never above the model's limit.",
    ),
    click.option("--max-tokens", "old_max_tokens", type=int, hidden=True),  # for one release
    click.option(
        "--max-size",
        type=float,
        default=50.0,
        show_default=True,
        help="Largest transcript file, MB (audio and video: no limit).",
    ),
    click.option(
        "--strict",
        is_flag=True,
        help="Refuse a file that needs any repair (backwards or"
        " unsorted cue times, skipped lines...).",
    ),
    click.option("--allow-long", is_flag=True, help="Accept lectures longer than 24 h."),
)


def ingest_options(fn: F) -> F:
    """The options of an ingest: the command gets them as one `options` (IngestOptions), checked
    before anything is read or loaded (segment settings that do not go together: exit 2)."""

    @functools.wraps(fn)
    def with_options(*args: Any, **kwargs: Any) -> Any:
        new, old = kwargs.pop("max_tokens"), kwargs.pop("old_max_tokens")
        max_tokens = renamed(old, "--max-tokens", "--segment-tokens") or new
        try:
            config = SegmentConfig(kwargs.pop("window"), kwargs.pop("overlap"), max_tokens)
        except ValueError as exc:
            fail(f"{exc}.", hint=_("e.g. --window 120 --overlap 35"), code=USAGE_ERROR)
        options = IngestOptions(
            **{name: kwargs.pop(name) for name in _AS_IS},
            segment_config=config,
            max_bytes=int(kwargs.pop("max_size") * 1e6),
        )
        return fn(*args, options=options, **kwargs)

    wrapped: F = with_options  # type: ignore[assignment]
    for option in reversed(_OPTIONS):
        wrapped = option(wrapped)
    return wrapped


@click.command("ingest")
# readable=False: check_inputs says an unreadable path as it says a missing one (exit 1)
@click.argument("paths", nargs=-1, required=True, type=click.Path(readable=False, path_type=Path))
@ingest_options
@click.option(
    "--watch",
    is_flag=True,
    help="Keep the folder indexed: new and changed files are ingested as they arrive.",
)
@click.option(
    "--prune",
    is_flag=True,
    help="With --watch: remove lectures whose file was deleted (else they are listed).",
)
@click.option(
    "--asr-model",
    metavar="MODEL",
    help="Speech model for audio and video: whisper-base (default, bundled), a CTranslate2"
    " Whisper folder, or a hub id pulled with `models pull`.",
)
@click.option(
    "--save-transcript",
    "save_transcript",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[DIR]",
    help="Also write each transcribed file's transcript as .vtt, beside it or into DIR.",
)
@click.option(
    "--summaries/--no-summaries",
    default=None,
    help="Write the added lectures' summaries now. Default: where the answer model"
    " runs on a GPU (on a CPU they take minutes: `summary --all` or the app writes"
    " them).",
)
@pass_ctx
def ingest_cmd(
    obj: Context,
    paths: tuple[Path, ...],
    options: IngestOptions,
    watch: bool,
    prune: bool,
    summaries: bool | None,
) -> None:
    """Add transcript, audio or video files, or folders of them, to the library and index them.

    Audio and video (mp4, mkv, webm, mp3, m4a, wav, ogg...) are transcribed offline with Whisper,
    unless a caption file of the same name lies beside them; the transcript is kept in the
    library, so nothing is transcribed twice. Unchanged files are skipped.
    """
    check_inputs(paths)
    if watch and (len(paths) != 1 or not paths[0].is_dir()):
        fail(
            _("--watch takes one folder."),
            hint="lecturetui ingest aulas/ --watch",
            code=USAGE_ERROR,
        )
    obj.first_run()
    library = obj.library()
    out = console()
    t0 = time.perf_counter()
    report = _ingest(library, paths, options)
    for result in report.results:
        print_result(out, result)
    write_rerank_vectors(library)
    n_lectures, n_segments = library.counts()
    parts = [_(SUMMARY[s]).format(n=report.count(s)) for s in SUMMARY if report.count(s)]
    out.print(
        # TRANSLATORS: {counts} is e.g. "2 added, 1 unchanged"
        _("{counts} in {seconds} s; library: {lectures}, {segments}").format(
            counts=", ".join(parts),
            seconds=decimal(time.perf_counter() - t0, grouping=False),
            lectures=lecture_count(n_lectures),
            segments=segment_count(n_segments),
        )
    )
    _summaries(obj, library, report, summaries)
    if watch:
        _watch(library, paths[0], options, prune)
    elif report.failed:
        sys.exit(1)


def _summaries(obj: Context, library: Library, report: IngestReport, wanted: bool | None) -> None:
    """The summaries of the lectures this ingest added or changed: written now where asked, or
    by default where the answer model runs on a GPU (seconds each; in the model's own process,
    beside the embedders' torch); else one hint of where they are written (a summary takes
    minutes on a CPU)."""
    if wanted is False:
        return
    ids = {i for r in report.results if r.status in ("added", "updated") for i in r.lectures}
    added = [lecture for lecture in library.lectures() if lecture.id in ids]
    if not added:
        return
    session = obj.session(AnswerChoice())
    if wanted is None and not (obj.placement.answer_on_gpu and session.answer_name()):
        console(stderr=True).print(
            "[dim]"
            + _(
                "Their summaries are written by `lecturetui summary --all`, or by the app while"
                " it is idle."
            )
            + "[/]",
            soft_wrap=True,
        )
        return
    try:
        write_pending(library, session, added)
    finally:
        session.close()


def _ingest(library: Library, paths: Sequence[Path], options: IngestOptions) -> IngestReport:
    """The ingest with its progress bars; Ctrl+C keeps the files already done."""
    with progress_bars() as bar, _interrupted(bar):
        bars = IngestBars(bar)
        return library.ingest(
            paths,
            options,
            progress=bars.on_file,
            embed_progress=bars.on_embed,
            audio_progress=bars.on_audio,
        )


@contextmanager
def _interrupted(bar: Progress) -> Iterator[None]:
    try:
        yield
    except KeyboardInterrupt:
        bar.stop()
        fail(
            _("Interrupted: files already done are kept, the one in progress was not stored."),
            code=130,
        )


def _watch(library: Library, folder: Path, options: IngestOptions, prune: bool) -> None:
    """Keep the folder indexed until Ctrl+C (the ingest above already caught up with it)."""
    out = console()

    def on_event(event: WatchEvent) -> None:
        if event.result is not None:
            if event.result.status != "unchanged":
                print_result(out, event.result)
        elif event.kind == "removed":
            out.print(
                f"[yellow]{status_word('removed')}[/] {escape(event.path.name)}"
                f" ({escape(event.message)})"
            )
        elif event.kind == "missing":
            kept = _("{file}: its lecture is kept (--prune removes it)").format(
                file=escape(event.path.name)
            )
            out.print(f"[yellow]{status_word('missing')}[/] {kept}")
        else:
            out.print(
                f"[red]{status_word('failed')}[/] {escape(event.path.name)}:"
                f" {escape(event.message)}"
            )

    watcher = FolderWatcher(library, folder, options, prune, on_event)
    watching = _("Watching {folder} (Ctrl+C stops)…").format(folder=escape(str(folder)))
    out.print(f"[dim]{watching}[/]")
    try:
        watcher.run()
    except KeyboardInterrupt:
        out.print("[dim]" + _("Stopped watching.") + "[/]")


class IngestBars:
    """The ingest's three bars: the files, the audio being transcribed, the segments embedded."""

    def __init__(self, bar: Progress) -> None:
        self.bar = bar
        self.files = bar.add_task(_("files"), total=None, rate="")
        self.audio = bar.add_task(_("transcribing"), total=None, rate="", visible=False)
        self.segments = bar.add_task(_("embedding"), total=None, rate="", visible=False)
        self.audio_t0 = 0.0
        self.embed_t0 = 0.0

    def on_file(self, done: int, total: int, name: str) -> None:
        what = _("ingesting {name}").format(name=name)
        self.bar.update(self.files, completed=done, total=total, description=what)
        self.bar.update(self.audio, visible=False)

    def on_audio(self, done_s: float, total_s: float) -> None:
        if done_s <= 0 or self.audio_t0 == 0.0:
            self.audio_t0 = time.perf_counter()
        speed = done_s / max(time.perf_counter() - self.audio_t0, 1e-6)
        rate = _("{done}/{total} of audio, {speed}x").format(
            done=format_timestamp(done_s),
            total=format_timestamp(total_s),
            speed=decimal(speed, grouping=False),
        )
        self.bar.update(
            self.audio, completed=done_s, total=max(total_s, 1e-6), visible=True, rate=rate
        )

    def on_embed(self, done: int, total: int) -> None:
        if done <= 0 or self.embed_t0 == 0.0:
            self.embed_t0 = time.perf_counter()
        rate = done / max(time.perf_counter() - self.embed_t0, 1e-6)
        self.bar.update(
            self.segments,
            completed=done,
            total=total,
            visible=True,
            rate=f"{decimal(rate, grouping=False)} seg/s",
        )


def print_result(out: Console, r: FileResult) -> None:
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
