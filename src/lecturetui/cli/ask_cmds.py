"""ask: the evidence first, then a streamed, cited answer from the local llama.cpp model (or a
local model server, --llm-url); a question that asks for a lecture's summary gets it (the front
door, core/requests/door.py, tells)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from lecturetui.cli.context import Context, pass_ctx
from lecturetui.cli.options import (
    guess_option,
    llm_options,
    mode_option,
    scope_options,
    server_options,
    ttft_option,
)
from lecturetui.cli.output import console, end_quickly, escape, fail, note
from lecturetui.cli.shared import json_text
from lecturetui.cli.summaries import SummaryPrinter
from lecturetui.core.answer.unfolding import (
    Answer,
    Doubted,
    EvidenceReady,
    Token,
    make_turn,
    opening,
)
from lecturetui.core.asking import AnswerChoice, Scope
from lecturetui.core.i18n import _, decimal
from lecturetui.core.requests.door import run_request
from lecturetui.core.requests.kinds import ended, kind_of, shown_text
from lecturetui.core.requests.words import Failed, Question, QuestionSettings
from lecturetui.core.study.aids import format_span, format_timestamp
from lecturetui.core.summary.showing import SummaryGrew

if TYPE_CHECKING:
    from rich.console import Console

    from lecturetui.core.answer.unfolding import Retrieved
    from lecturetui.core.asking import AnswerModel, ModelSession, ServerGenerator
    from lecturetui.core.requests.kinds import Ended, RequestEvent


@click.command("ask")
@click.argument("question")
@click.option(
    "-k", "k", type=click.IntRange(1, 50), default=10, show_default=True, help="Segments retrieved."
)
@llm_options
@server_options
@ttft_option
@click.option(
    "--continue",
    "cont",
    is_flag=True,
    help="A follow-up of the last question asked (in the app or here): searched with it, and"
    " the last exchange goes in the prompt.",
)
@click.option(
    "--max-tokens",
    "answer_tokens",
    type=click.IntRange(16, 4096),
    default=512,
    show_default=True,
    help="Longest answer, tokens.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print question, evidence, answer, citations, hits and timings as JSON.",
)
@click.option("--verbose", is_flag=True, help="Show llama.cpp's own log.")
@mode_option
@guess_option
@scope_options
@pass_ctx
def ask_cmd(
    obj: Context,
    question: str,
    k: int,
    llm: str | None,
    n_ctx: int,
    temperature: float,
    server: ServerGenerator | None,
    ttft: float,
    cont: bool,
    answer_tokens: int,
    as_json: bool,
    verbose: bool,
    mode: str,
    guess: str,
    courses: tuple[str, ...],
    lectures: tuple[str, ...],
) -> None:
    """Answer QUESTION from your lectures: the best evidence sentences at once, then the
    answer, citing the segments as [1], [2]."""
    obj.first_run()
    library = obj.library()
    previous = library.history.exchange() if cont else None
    if cont and previous is None:
        fail(
            _("There is no earlier question to continue."),
            hint=_('ask one first: lecturetui ask "…"'),
        )
    end_quickly()  # the history is written and the model's process closed before it ends
    turn = make_turn(question, previous, force=True)
    scope = Scope(courses, lectures)
    library.scoped(scope)  # an unknown course or lecture is said before any model loads
    settings = QuestionSettings(k, mode, scope, guess, ttft, answer_tokens)
    # the answer model loads while the search runs; it reads the fixed part of its prompt
    # (and measures its speed the first time) once the evidence is out
    session = obj.session(AnswerChoice(llm, n_ctx, temperature, verbose=verbose, server=server))
    evidence_out = threading.Event()
    try:
        events = run_request(library, Question(turn), session.source(evidence_out), settings)
        show = _Printer(console(), as_json, session)
        for event in events:
            show(event)
    finally:
        evidence_out.set()  # a failed search must not leave the loader waiting
        session.close()


class _Printer:
    """The pipeline's events on the terminal: evidence, the streamed answer, its references
    (or, with --json, the answer's record alone)."""

    def __init__(self, out: Console, as_json: bool, session: ModelSession) -> None:
        self.out = out
        self.as_json = as_json
        self.session = session
        self.summary = SummaryPrinter(out)

    def __call__(self, event: RequestEvent) -> None:
        if isinstance(event, Failed):
            raise event.error
        if (end := ended(event)) is not None:
            self.ended(end)
        elif self.as_json:
            return
        elif isinstance(event, SummaryGrew):
            self.summary(event)
        elif isinstance(event, EvidenceReady):
            self.evidence(event.found)
        elif isinstance(event, Doubted):  # the model found the quote in doubt: the other moment
            self.out.print(f"[italic cyan]{escape(event.addition().rstrip())}[/]\n")
        elif isinstance(event, Token):
            sys.stdout.write(event.text)
            sys.stdout.flush()

    def ended(self, end: Ended) -> None:
        """What the request was answered with: its record with --json, else its kind's end
        (ENDS; a kind without one of its own: its text). A record of a kind the registry does
        not know raises UnknownKind."""
        kind = kind_of(end.record)
        if self.as_json:
            click.echo(json_text(end.record))
        elif (show := ENDS.get(kind.name)) is not None:
            show(self, end)
        else:
            self.out.print(escape(kind.text(end.record)), soft_wrap=True)

    def answered(self, end: Ended) -> None:
        """A question's answer: what follows the streamed words."""
        answer = end.result
        assert isinstance(answer, Answer)
        # refused before the model wrote anything: the model is not waited for
        wrote = not answer.abstained or bool(answer.explanation)
        model = self.session.loaded_answer_model() if wrote else None
        print_answer_end(self.out, answer, model)

    def summarised(self, end: Ended) -> None:
        """A lecture's summary, printed as it grew: how long it took."""
        seconds = decimal(end.record.timings.get("total_ms", 0.0) / 1000, grouping=False)
        note(_("summary in {seconds} s").format(seconds=seconds))

    def overview(self, end: Ended) -> None:
        """A course's overview: a line per lecture."""
        self.out.print(escape(shown_text(end.record)), soft_wrap=True)

    def evidence(self, found: Retrieved) -> None:
        """What the search found, before any model writes: how it searched, the evidence, the
        lecturer's words the answer opens with."""
        lines: list[str] = []
        if found.turn.previous is not None:
            question = escape(found.turn.previous.question)
            lines.append(_("(following up: {question})").format(question=question))
        if found.translation:
            lines.append(_("(searched as: {text})").format(text=escape(found.translation)))
        if found.guess:
            lines.append(
                _("(searched with the lecturer's likely words: {words})").format(
                    words=escape(found.guess)
                )
            )
        for line in lines:
            self.out.print(f"[dim]{line}[/]")
        print_evidence(self.out, found)
        if found.quote is not None:  # the answer opens with the lecturer's words
            # the quote, or both moments when it is in doubt (core/answer/verdict.py)
            self.out.print(f"[italic cyan]{escape(opening(found).rstrip())}[/]\n")
        if found.checking:  # the answer model reads the two closest moments first
            checking = _("(checking the moment…)")
            self.out.print(f"[dim]{checking}[/]")


#: how `ask` ends each kind of request (core/requests/kinds.py), by kind name
ENDS: dict[str, Callable[[_Printer, Ended], None]] = {
    "answer": _Printer.answered,
    "summary": _Printer.summarised,
    "overview": _Printer.overview,
}


def print_evidence(out: Console, found: Retrieved) -> None:
    """The best sentences, each in its lecture at its time, with the words around it."""
    if not found.evidence:
        return
    out.print("[bold]" + _("Evidence") + "[/]")
    for e in found.evidence:
        before = " ".join(e.before.split()[-8:])
        after = " ".join(e.after.split()[:8])
        out.print(
            f"[cyan]{escape(e.lecture_title)} {format_timestamp(e.start)}[/] [green]{e.score:.3f}[/]"
            f"  [dim]…{escape(before)}[/] [bold yellow]{escape(e.text)}[/] [dim]{escape(after)}…[/]",
            soft_wrap=True,
        )
    out.print()


def print_answer_end(out: Console, answer: Answer, generator: AnswerModel | None) -> None:
    if not answer.unsure:  # an unsure answer streamed nothing after its moments
        sys.stdout.write("\n")
    if answer.abstained:
        out.print(escape(answer.text), soft_wrap=True)
    if answer.stopped:
        note(_("(stopped)"))
    for u in answer.unsupported:
        missing = ", ".join(u.missing)
        note(
            _("(not in the excerpts it cites: {missing}; check it against the lecture)").format(
                missing=missing
            )
            + f" {u.sentence}"
        )
    if answer.citation_source == "similarity":
        note(_("The model cited no segment; each sentence is cited with its most similar segment:"))
        out.print(escape(answer.text), soft_wrap=True)
    _print_references(out, answer)
    _print_segments(out, answer)
    note(" · ".join(_timings(answer, generator)))


def _print_references(out: Console, answer: Answer) -> None:
    if not answer.citations:
        if answer.text:
            note(_("(no segment supports the answer closely enough to cite it)"))
        return
    out.print("\n[bold]" + _("References") + "[/]")
    for p in answer.citations:
        ids = ", ".join(f"#{c}" for c in p.corpus_ids)
        link = f"  [dim]{escape(p.url)}[/]" if p.url else ""
        out.print(
            f"[{p.number}] {escape(p.lecture_title)}, {format_span(p.start, p.end)}"
            f" [dim]{ids}[/]{link}",
            soft_wrap=True,
        )


def _print_segments(out: Console, answer: Answer) -> None:
    out.print("\n[bold]" + _("Segments") + "[/]")
    for h in answer.hits:
        mark = next((f"[{p.number}]" for p in answer.passages if h in p.hits), "")
        cid = f"#{h.segment.corpus_id}" if h.segment.corpus_id is not None else ""
        out.print(
            f"{h.rank:>2}  [green]{h.score:.4f}[/]  {escape(h.lecture.title)}  "
            f"[cyan]{format_span(h.segment.start, h.segment.end)}[/]  [dim]{cid}[/] {escape(mark)}",
            soft_wrap=True,
        )


def _timings(answer: Answer, generator: AnswerModel | None) -> list[str]:
    """The answer's last line: how long each step took, and which model ran where."""
    t = answer.timings
    retrieval = _("retrieval {ms} ms").format(ms=decimal(t["retrieval_ms"], 0, grouping=False))
    check_s = t.get("check_ms", 0.0) / 1000  # the model read the moments, and wrote nothing
    checked = [_("moments checked in {seconds} s").format(seconds=decimal(check_s, grouping=False))]
    if (answer.abstained and not answer.explanation) or generator is None:
        # (an explanation replaced by the refusal keeps its timings below)
        return [retrieval, *(checked if check_s else [_("no answer model run")])]
    model = f"{generator.name} ({generator.placement})"
    if answer.unsure:
        return [retrieval, *(checked if check_s else []), _("no explanation written"), model]
    tokens = _("{n} new prompt tokens").format(n=int(t["prompt_new_tokens"]))
    if answer.trimmed:
        tokens += " " + _("(passages cut to their best sentences)")
    return [
        retrieval,
        _("evidence {ms} ms").format(ms=decimal(t["evidence_ms"], 0, grouping=False)),
        _("first token {seconds} s").format(
            seconds=decimal(t["time_to_first_token_ms"] / 1000, grouping=False)
        ),
        f"{decimal(t['tokens_per_s'], grouping=False)} tok/s",
        tokens,
        model,
    ]
