"""summary: a lecture's summary, part by part, from the lecturer's own words (Markdown, or its
typed record as JSON); and how a summary's events print, for `ask` too."""

from __future__ import annotations

import threading
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

import click

from lecturetui.cli.context import Context, pass_ctx
from lecturetui.cli.options import export_options, llm_options, server_options
from lecturetui.cli.output import USAGE_ERROR, console, fail, json_text, note, one_lecture
from lecturetui.cli.progress import progress_bars
from lecturetui.cli.summaries import write_pending
from lecturetui.core.i18n import _

if TYPE_CHECKING:
    from rich.console import Console

    from lecturetui.core.answer.events import GistWritten, PartsReady, PartWritten
    from lecturetui.core.lectures import Lecture
    from lecturetui.core.library import Library
    from lecturetui.core.llm.server import ServerGenerator
    from lecturetui.core.records import OverviewRecord
    from lecturetui.core.session import ModelSession


class OverviewPrinter:
    """A summary's events on the terminal, as Markdown: the parts at once (time, title, the
    lecturer's words), then each part's summary as it is written, then the gist."""

    def __init__(self, out: Console) -> None:
        self.out = out
        self.parts = 0

    def __call__(self, event: PartsReady | PartWritten | GistWritten) -> None:
        from rich.markup import escape

        from lecturetui.core.answer.events import PartsReady, PartWritten
        from lecturetui.core.timefmt import format_timestamp

        if isinstance(event, PartsReady):
            self.parts = len(event.parts)
            self.out.print(f"# {escape(event.lecture.title)}\n", soft_wrap=True)
            if event.phrases:
                said = _("Key phrases: {phrases}").format(phrases=" · ".join(event.phrases))
                self.out.print(f"[italic]{escape(said)}[/]\n", soft_wrap=True)
            if event.parts and event.parts[0].made:
                self.out.print("[dim]" + _("(parts cut by lecturetui where the subject changes)")
                               + "[/]\n")  # fmt: skip
            for p in event.parts:
                words = escape(" … ".join(s.text for s in p.sentences))
                self.out.print(
                    f"[cyan][{p.number}] {format_timestamp(p.start)}[/] [bold]{escape(p.title)}[/]"
                    f"\n  [dim]“{words}”[/]",
                    soft_wrap=True,
                )
            self.out.print()
        elif isinstance(event, PartWritten):
            w = event.written
            self.out.print(f"[cyan][{event.part.number}][/] {escape(w.summary)}", soft_wrap=True)
            for sentence in w.struck:
                note(_("(struck: the part does not say it) {sentence}").format(sentence=sentence))
        else:
            self.out.print("\n[bold]" + _("In short") + "[/]")
            self.out.print(escape(event.gist.summary), soft_wrap=True)
            for sentence in event.gist.struck:
                note(_("(struck: the parts do not say it) {sentence}").format(sentence=sentence))


@click.command("summary")
@click.argument("lecture", required=False)
@click.option("--all", "every", is_flag=True,
              help="Write every lecture's summary not written yet, one after another.")  # fmt: skip
@llm_options
@server_options
@click.option("--parts-only", is_flag=True, help="The parts and the lecturer's words alone.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@export_options("Also write it as study notes in Markdown, a link at every part's time.",
                "one flashcard per part")  # fmt: skip
@pass_ctx
def summary_cmd(
    obj: Context,
    lecture: str | None,
    every: bool,
    llm: str | None,
    n_ctx: int,
    temperature: float,
    server: ServerGenerator | None,
    parts_only: bool,
    as_json: bool,
    md: Path | None,
    anki: Path | None,
    csv_path: Path | None,
) -> None:
    """Summarise a lecture part by part (LECTURE: id, title or a prefix): each part's time and
    the lecturer's words at once, then what each part explains, then the gist citing the
    parts. Written once and kept; Ctrl+C keeps the parts already written. With --all instead of
    LECTURE: every summary not written yet, in course order, with a progress bar."""
    from lecturetui.core.session import AnswerChoice
    from lecturetui.core.study.export import Targets, export_summary
    from lecturetui.core.summary.writing import summary_language

    _check_one_or_all(lecture, every, parts_only or as_json or bool(md or anki or csv_path))
    obj.first_run()
    library = obj.library()
    session = obj.session(AnswerChoice(llm, n_ctx, temperature, server=server))
    if lecture is None:
        try:
            write_pending(library, session)
        finally:
            session.close()
        return
    lec = one_lecture(library.store, lecture)
    try:
        record = _summarise(library, lec, summary_language(lec), session, parts_only, as_json)
    finally:
        session.close()
    if as_json:
        click.echo(json_text(record))
    to = Targets(md, anki, csv_path)
    if to:
        from lecturetui.cli.notes_cmds import report_written

        for written in export_summary(record, to):
            report_written(written)


def _check_one_or_all(lecture: str | None, every: bool, one_only: bool) -> None:
    """LECTURE or --all, exactly one; --all writes the summaries and keeps them (it prints no
    summary: no --parts-only, --json or study notes)."""
    if (lecture is None) == (not every):
        fail(_("Name one lecture, or give --all for every summary not written yet."),
             hint="lecturetui summary aula-1", code=USAGE_ERROR)  # fmt: skip
    if every and one_only:
        fail(_("--all writes and keeps the summaries; show one with `lecturetui summary LECTURE`."),
             hint=_("--parts-only, --json, --md, --anki and --csv take one lecture"),
             code=USAGE_ERROR)  # fmt: skip


def _summarise(
    library: Library,
    lecture: Lecture,
    language: str,
    session: ModelSession,
    parts_only: bool,
    quiet: bool,
) -> OverviewRecord:
    """The summary's events printed as they come (`quiet`: a progress bar instead), and its
    record; Ctrl+C stops it, keeping the parts written."""
    from lecturetui.core.summary.fold import Unfolding
    from lecturetui.core.summary.writing import overview_events

    stop = threading.Event()
    source = session.source()
    show = OverviewPrinter(console())
    so_far = Unfolding(language)
    model = (lambda: None) if parts_only else (lambda: source.for_answer(stop))
    with progress_bars() if quiet else nullcontext() as bar:
        task = bar.add_task(_("summary"), total=None, rate="") if bar is not None else None
        try:
            for event in overview_events(library, lecture, model, language, stop,
                                         source.model_name()):  # fmt: skip
                so_far.feed(event)
                if bar is not None and task is not None:
                    done = len(so_far.written) + (so_far.gist is not None)
                    bar.update(task, completed=done, total=len(so_far.parts) + 1)
                else:
                    show(event)
        except KeyboardInterrupt:
            stop.set()
            note(_("(stopped: the parts written so far are kept)"))
            raise SystemExit(130) from None
    answer = session.loaded_answer_model()
    return so_far.record(answer.name if answer else source.model_name())
