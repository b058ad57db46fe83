"""eval: the seeds' evaluation report (retrieval, answer, LLM judge) over a question file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from lecturetui.cli.context import Context, pass_ctx
from lecturetui.cli.options import (
    guess_option,
    llm_options,
    mode_option,
    scope_options,
    ttft_option,
)
from lecturetui.cli.output import console, note, renamed
from lecturetui.cli.progress import progress_bars
from lecturetui.cli.shared import json_text
from lecturetui.core.asking import MODES, AnswerChoice, Scope, guess_planned
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.evaluation.marking import (
    NO_JUDGE,
    EvalSettings,
    Judge,
    Runs,
    evaluate_retrieval,
    load_questions,
    render_report,
    render_retrieval_table,
    run_evaluation,
    run_key,
)
from lecturetui.core.i18n import _, decimal, ngettext
from lecturetui.core.models.management import resolve_llm
from lecturetui.core.records import to_json

if TYPE_CHECKING:
    from lecturetui.core.asking import ModelSession
    from lecturetui.core.evaluation.marking import EvalRecord, QuestionSet, RunInfo
    from lecturetui.core.library import Library


@click.command("eval")
@click.argument("questions", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--report",
    "report_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Markdown report. Default: QUESTIONS' name + -report.md, in this folder.",
)
@click.option(
    "--json-out",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write every record (or the retrieval table) as JSON to this file.",
)
@click.option(
    "--json", "old_json_path", type=click.Path(dir_okay=False, path_type=Path), hidden=True
)  # the old spelling of --json-out, for one release
@click.option(
    "-k",
    "k",
    type=click.IntRange(1, 50),
    default=10,
    show_default=True,
    help="Segments retrieved per question.",
)
@mode_option
@click.option(
    "--retrieval-only",
    is_flag=True,
    help="Only retrieval metrics, for every search mode side by side (no answer model;"
    " with --guess on, or auto on a GPU, also the questions searched as `ask`"
    " searches them).",
)
@click.option(
    "--report-lang",
    "lang",
    type=click.Choice(["pt", "en"]),
    default="pt",
    show_default=True,
    help="Language of the report's labels.",
)
@click.option("--lang", "old_lang", type=click.Choice(["pt", "en"]), hidden=True)
@llm_options
@click.option(
    "--judge",
    metavar="MODEL",
    help="Judge model (a .gguf or a bundled name), or `none`: answers scored by the"
    " question file's key points only. Default: the answer model.",
)
@click.option(
    "--max-tokens",
    "answer_tokens",
    type=click.IntRange(16, 4096),
    default=512,
    show_default=True,
    help="Longest answer, tokens.",
)
@ttft_option
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Sampling seed of the answers (the same seed gives the same answers).",
)
@click.option("--force", is_flag=True, help="Evaluate every question again, not only new ones.")
@guess_option
@scope_options
@pass_ctx
def eval_cmd(
    obj: Context,
    questions: Path,
    report_path: Path | None,
    json_path: Path | None,
    old_json_path: Path | None,
    k: int,
    mode: str,
    retrieval_only: bool,
    lang: str,
    old_lang: str | None,
    llm: str | None,
    n_ctx: int,
    temperature: float,
    judge: str | None,
    answer_tokens: int,
    ttft: float,
    seed: int,
    force: bool,
    guess: str,
    courses: tuple[str, ...],
    lectures: tuple[str, ...],
) -> None:
    """Evaluate the library on QUESTIONS (JSONL or CSV): retrieval, answers and an LLM judge.

    Writes the report in the seeds' record format. A run is saved as it goes: the same command
    again continues where it stopped (--force starts over). Manual C/P/I labels are given in
    the app (`lecturetui app`, key e) and appear in the report the next time it is written.
    """
    json_path = json_path or renamed(old_json_path, "--json FILE", "--json-out FILE")
    lang = renamed(old_lang, "--lang", "--report-lang") or lang
    qset = load_questions(questions)
    obj.first_run()
    library = obj.library()
    scope = Scope(courses, lectures)
    library.scoped(scope)  # a scope that names nothing fails now, not mid-run
    if retrieval_only:
        _retrieval_only(obj, library, qset, k, report_path, json_path, scope, guess, llm, n_ctx)
        return
    _full(
        obj,
        qset,
        k,
        mode,
        lang,
        llm,
        n_ctx,
        judge,
        answer_tokens,
        ttft,
        seed,
        force,
        report_path,
        json_path,
        scope,
        guess,
        temperature,
    )


def _retrieval_only(
    obj: Context,
    library: Library,
    qset: QuestionSet,
    k: int,
    report: Path | None,
    js: Path | None,
    scope: Scope,
    guess: str,
    llm: str | None,
    n_ctx: int,
) -> None:
    with_gold = [q for q in qset.questions if q.gold or q.reference_ranking]
    if not with_gold:
        raise LectureTuiError(
            _(
                "No question in {file} has gold evidence or a reference ranking, so there is"
                " nothing to measure."
            ).format(file=qset.path.name),
            hint=_("add corpus_ids, or lecture + start + end, to the questions"),
        )
    library.warm()
    generator = None
    session = obj.session(AnswerChoice(llm, n_ctx, seed=0))
    if guess_planned(guess, obj.placement):  # the questions searched as `ask` searches them too
        generator = session.answer_model()
    try:
        with progress_bars() as bar:
            task = bar.add_task(_("searching"), total=len(with_gold) * len(MODES), rate="")
            summaries = evaluate_retrieval(
                library,
                with_gold,
                MODES,
                k,
                lambda d, t: bar.update(task, completed=d, total=t),
                scope,
                generator,
                guess,
            )
    finally:
        session.close()
    table = {mode: s.scores.means() for mode, s in summaries.items()}
    overlaps = {
        mode: [r.reference_overlap for r in s.rows if r.reference_overlap is not None]
        for mode, s in summaries.items()
    }
    n_gold = next(iter(summaries.values())).scores.n
    text = render_retrieval_table(table, n_gold, overlaps)
    click.echo(text)
    if report is not None:
        report.write_text(f"# Retrieval: {qset.path.name}\n\n{text}", encoding="utf-8")
        note(_("wrote {path}").format(path=report))
    if js is not None:
        data = {
            "questions": str(qset.path),
            "means": table,
            "reference_overlap": overlaps,
            "rows": {m: [r.to_json() for r in s.rows] for m, s in summaries.items()},
        }
        js.write_text(json_text(data), encoding="utf-8")
        note(_("wrote {path}").format(path=js))


def _full(
    obj: Context,
    qset: QuestionSet,
    k: int,
    mode: str,
    lang: str,
    llm: str | None,
    n_ctx: int,
    judge_name: str | None,
    answer_tokens: int,
    ttft: float,
    seed: int,
    force: bool,
    report: Path | None,
    js: Path | None,
    scope: Scope,
    guess: str,
    temperature: float = 0.0,
) -> None:
    library = obj.library()
    llm_path = resolve_llm(obj.home.models_dir, llm, note)
    judge_path = _judge_path(obj, llm_path, judge_name)
    settings = EvalSettings(
        mode,
        k,
        llm_path.name,
        judge_path.name if judge_path else NO_JUDGE,
        answer_tokens,
        n_ctx,
        seed=seed,
        ttft_s=ttft,
        courses=scope.courses,
        lectures=scope.lectures,
        guess=guess_planned(guess, obj.placement),
        temperature=temperature,
    )
    runs = Runs.of(library)
    key = run_key(qset.sha256, settings.as_dict())
    existing = runs.find(key)
    done = runs.done(existing) if existing is not None else set()
    evaluated, per_q, interrupted = 0, None, False
    if force or any(q.number not in done for q in qset.questions):
        answers = AnswerChoice(llm, n_ctx, temperature, seed=seed)
        evaluated, per_q, interrupted = _evaluate(
            obj.session(answers), qset, settings, judge_path, force
        )
    run_id = runs.open(key, qset.path.name, {})
    info = runs.info(run_id)
    records = runs.records(run_id)
    assert info is not None
    if interrupted:
        note(
            _(
                "Stopped: {done} of {total} questions are saved; run the same command to go on."
            ).format(done=len(records), total=len(qset.questions))
        )
    report = report or Path(f"{qset.path.stem}-report.md")
    _write(report, js, info, records, lang)
    _say_done(report, evaluated, per_q, interrupted, len(records))


def _judge_path(obj: Context, llm_path: Path, judge_name: str | None) -> Path | None:
    """The judge's GGUF file: the answer model's unless --judge names another; None: no judge."""
    if judge_name == NO_JUDGE:
        return None
    if judge_name:
        return resolve_llm(obj.home.models_dir, judge_name, note)
    return llm_path


def _write(
    report: Path, js: Path | None, info: RunInfo, records: list[EvalRecord], lang: str
) -> None:
    """The run's report (Markdown), and its records as JSON where --json names a file."""
    report.write_text(render_report(info, records, lang), encoding="utf-8")
    if js is not None:
        data = {
            "run": info.settings,
            "records": [{"manual_label": r.manual_label, **to_json(r.payload)} for r in records],
        }
        js.write_text(json_text(data), encoding="utf-8")


def _say_done(
    report: Path, evaluated: int, per_q: float | None, interrupted: bool, saved: int
) -> None:
    """The closing line: the report written, and how many questions were evaluated now (or
    were already)."""
    if interrupted:
        console().print(_("Wrote {report}.").format(report=report))
    elif evaluated:
        timing = (
            " " + _("({seconds} s a question)").format(seconds=decimal(per_q, 0, grouping=False))
            if per_q
            else ""
        )
        console().print(
            ngettext(
                "Evaluated {n} question{timing}; wrote {report}.",
                "Evaluated {n} questions{timing}; wrote {report}.",
                evaluated,
            ).format(n=decimal(evaluated, 0), timing=timing, report=report)
        )
    else:
        console().print(
            ngettext(
                "{n} question already evaluated; wrote {report}.",
                "{n} questions already evaluated; wrote {report}.",
                saved,
            ).format(n=decimal(saved, 0), report=report)
        )


def _evaluate(
    session: ModelSession,
    qset: QuestionSet,
    settings: EvalSettings,
    judge_path: Path | None,
    force: bool,
) -> tuple[int, float | None, bool]:
    """Load the models and evaluate what the run lacks: (questions done, s a question, stopped)."""
    library = session.library
    library.warm()
    # the answers' prompts are sized as `ask` sizes them (the session reads the model's speed)
    generator = session.answer_model()
    judge_model = None if judge_path is None else session.judge(judge_path)
    try:
        with progress_bars() as bar:
            task = bar.add_task(_("evaluating"), total=len(qset.questions), rate="")

            def progress(done: int, total: int, what: str) -> None:
                bar.update(task, completed=done, total=total, description=what)

            outcome = run_evaluation(
                library,
                qset,
                settings,
                generator,
                Judge(judge_model) if judge_model is not None else None,
                force,
                progress,
            )
    except KeyboardInterrupt:
        return 0, None, True
    finally:
        session.close()
    return outcome.evaluated, outcome.seconds_per_question, False
