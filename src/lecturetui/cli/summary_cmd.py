"""summary: a lecture's summary, part by part, from the lecturer's own words (Markdown, or its
typed record as JSON), sent through the front door (core/requests/door.py); and how a summary's
events print, for `ask` too."""

from __future__ import annotations

import threading
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

import click

from lecturetui.cli.context import Context, pass_ctx
from lecturetui.cli.options import export_options, llm_options, server_options
from lecturetui.cli.output import USAGE_ERROR, console, fail, note, one_lecture
from lecturetui.cli.progress import progress_bars
from lecturetui.cli.shared import json_text, report_written
from lecturetui.cli.summaries import SummaryPrinter, write_pending
from lecturetui.core.asking import AnswerChoice
from lecturetui.core.i18n import _
from lecturetui.core.requests.door import run_request
from lecturetui.core.requests.words import Failed, Loaded, QuestionSettings
from lecturetui.core.study.aids import Targets
from lecturetui.core.summary.showing import (
    LectureSummary,
    SummaryDone,
    SummaryGrew,
    export_summary,
    summary_language,
)

if TYPE_CHECKING:
    from lecturetui.core.asking import ModelSession, ServerGenerator
    from lecturetui.core.library import Library
    from lecturetui.core.records import SummaryRecord
    from lecturetui.core.study.aids import Lecture


@click.command("summary")
@click.argument("lecture", required=False)
@click.option(
    "--all",
    "every",
    is_flag=True,
    help="Write every lecture's summary not written yet, one after another.",
)
@llm_options
@server_options
@click.option("--parts-only", is_flag=True, help="The parts and the lecturer's words alone.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@export_options(
    "Also write it as study notes in Markdown, a link at every part's time.",
    "one flashcard per part",
)
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
    lec = one_lecture(library, lecture)
    try:
        record = _summarise(library, lec, summary_language(lec), session, parts_only, as_json)
    finally:
        session.close()
    if as_json:
        click.echo(json_text(record))
    to = Targets(md, anki, csv_path)
    if to:
        for written in export_summary(record, to):
            report_written(written)


def _check_one_or_all(lecture: str | None, every: bool, one_only: bool) -> None:
    """LECTURE or --all, exactly one; --all writes the summaries and keeps them (it prints no
    summary: no --parts-only, --json or study notes)."""
    if (lecture is None) == (not every):
        fail(
            _("Name one lecture, or give --all for every summary not written yet."),
            hint="lecturetui summary aula-1",
            code=USAGE_ERROR,
        )
    if every and one_only:
        fail(
            _("--all writes and keeps the summaries; show one with `lecturetui summary LECTURE`."),
            hint=_("--parts-only, --json, --md, --anki and --csv take one lecture"),
            code=USAGE_ERROR,
        )


def _summarise(
    library: Library,
    lecture: Lecture,
    language: str,
    session: ModelSession,
    parts_only: bool,
    quiet: bool,
) -> SummaryRecord:
    """The summary through the front door (a LectureSummary, not kept in the history), its
    events printed as they come (`quiet`: a progress bar instead), and its record; Ctrl+C stops
    it, keeping the parts written."""
    stop = threading.Event()
    source = session.source()
    # --parts-only: the answer model is never loaded (a summary it wrote whole is read back)
    models = Loaded(None, source.model_name()) if parts_only else source
    show = SummaryPrinter(console())
    record: SummaryRecord | None = None
    with progress_bars() if quiet else nullcontext() as bar:
        task = bar.add_task(_("summary"), total=None, rate="") if bar is not None else None
        try:
            for event in run_request(
                library,
                LectureSummary(lecture.id, language),
                models,
                QuestionSettings(keep=False),
                stop,
            ):
                if isinstance(event, Failed):
                    raise event.error
                if isinstance(event, SummaryDone):
                    record = event.summary
                elif isinstance(event, SummaryGrew):
                    if bar is not None and task is not None:
                        bar.update(task, completed=event.done, total=event.steps)
                    else:
                        show(event)
        except KeyboardInterrupt:
            stop.set()
            note(_("(stopped: the parts written so far are kept)"))
            raise SystemExit(130) from None
    assert record is not None
    return record
