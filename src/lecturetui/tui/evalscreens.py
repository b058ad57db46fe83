"""Evaluation runs in the app: pick a run, read its records, label each C / P / I."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from lecturetui.core.evaluation.saved_runs import EvalRecord, RunInfo
from lecturetui.core.i18n import N_, _, decimal, ngettext
from lecturetui.tui.context import context
from lecturetui.tui.i18n import Translated
from lecturetui.tui.welcome import mode_name
from lecturetui.tui.widgets import move_highlight

LABEL_STYLE = {"C": "bold green", "P": "bold yellow", "I": "bold red"}


def _label(label: str | None) -> Text:
    return Text(label or "·", style=LABEL_STYLE.get(label or "", "dim"))


def _value(v: float | None) -> str:
    return "—" if v is None else decimal(float(v), 2)


class EvalRunsScreen(Translated, Screen[None]):
    """The library's evaluation runs, newest first."""

    BINDINGS = [Binding("escape", "app.pop_screen", N_("Back"))]

    def __init__(self, runs: list[RunInfo]) -> None:
        super().__init__()
        self.runs = runs

    def compose(self) -> ComposeResult:
        yield Static(
            _("Evaluation runs (lecturetui eval QUESTIONS makes them) · Enter opens one"),
            id="runs-title",
        )
        options = [Option(self.run_line(r), id=str(r.id)) for r in self.runs] or [
            Option(_("No evaluation run in this library yet."), disabled=True)
        ]
        yield OptionList(*options, id="runs")
        yield Footer()

    @staticmethod
    def run_line(r: RunInfo) -> str:
        """A run: its name, when, how many records and how many labelled, its settings."""
        records = ngettext("{n} record", "{n} records", r.records).format(n=r.records)
        annotated = ngettext("{n} annotated", "{n} annotated", r.annotated).format(n=r.annotated)
        mode = str(r.settings.get("mode") or "")
        settings = f"{mode_name(mode) if mode else ''}, {r.settings.get('llm', '')}"
        when = r.created_at[:16].replace("T", " ")
        return f"{r.name}  ·  {when}  ·  {records}, {annotated}  ·  {settings}"

    @on(OptionList.OptionSelected, "#runs")
    def open_run(self, event: OptionList.OptionSelected) -> None:
        run = next(r for r in self.runs if r.id == int(event.option.id or 0))
        self.app.push_screen(EvalRecordsScreen(run))


class EvalRecordsScreen(Translated, Screen[None]):
    """One run's records: the list (manual and automated labels) and the selected record."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", N_("Back")),
        Binding("c", "annotate('C')", N_("Correct")),
        Binding("p", "annotate('P')", N_("Partial")),
        Binding("i", "annotate('I')", N_("Incorrect")),
        Binding("x", "annotate('')", N_("Clear")),
        Binding("j", "move(1)", N_("Down"), show=False),
        Binding("k", "move(-1)", N_("Up"), show=False),
    ]

    def __init__(self, run: RunInfo) -> None:
        super().__init__()
        self.run = run
        self.records: list[EvalRecord] = []

    def compose(self) -> ComposeResult:
        yield Static(id="records-title")
        with Horizontal():
            yield OptionList(id="records")
            with VerticalScroll(id="record-box"):
                yield Static(id="record")
        yield Footer()

    def on_mount(self) -> None:
        self.records = context(self).services.runs.records(self.run.id)
        self.refresh_list(0)
        self.query_one("#records", OptionList).focus()

    def refresh_list(self, highlight: int) -> None:
        done = sum(1 for r in self.records if r.manual_label)
        annotated = _("{done}/{total} annotated").format(done=done, total=len(self.records))
        self.query_one("#records-title", Static).update(
            f"{self.run.name} · {annotated} · " + _("c/p/i label it and go to the next, x clears")
        )
        options = self.query_one("#records", OptionList)
        options.clear_options()
        for r in self.records:
            row = Text(f"Q{r.number:<4} ")
            row.append(_("manual") + " ")
            row.append_text(_label(r.manual_label))
            row.append("  " + _("auto") + " ")
            row.append_text(_label(r.auto_label))
            ar = r.payload.judge.answer_relevance.value
            row.append(f"  AR {_value(ar)}\n   {r.question[:60]}", style="dim")
            options.add_option(Option(row, id=str(r.number)))
        if self.records:
            options.highlighted = min(highlight, len(self.records) - 1)
            self.show_record(self.records[options.highlighted])

    @on(OptionList.OptionHighlighted, "#records")
    def highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_index < len(self.records):
            self.show_record(self.records[event.option_index])

    def show_record(self, record: EvalRecord) -> None:
        p = record.payload
        judge = p.judge
        ar = judge.answer_relevance
        text = Text()
        text.append(f"Q{record.number}: {record.question}\n\n", style="bold")
        text.append((p.answer or _("(no answer)")) + "\n\n")
        for c in p.citations:
            text.append(f"[{c.number}] {c.lecture_title} {c.span}\n", style="cyan")
        text.append("\nAR ", style="bold")
        text.append(f"{_value(ar.value)}  ")
        text.append(_("groundedness") + " ", style="bold")
        text.append(f"{_value(judge.groundedness.value)}  ")
        text.append(_("context") + " ", style="bold")
        text.append(f"{_value(judge.context_relevance.value)}\n")
        text.append(f"{ar.reasoning}\n", style="dim")  # the judge's reasoning, or its error
        if p.reference_answer:
            reference = _("Reference: {answer}").format(answer=p.reference_answer)
            text.append(f"\n{reference}\n", style="italic")
        self.query_one("#record", Static).update(text)

    def action_move(self, step: int) -> None:
        move_highlight(self.query_one("#records", OptionList), step)

    def action_annotate(self, label: str) -> None:
        index = self.query_one("#records", OptionList).highlighted
        if index is None or index >= len(self.records):
            return
        record = self.records[index]
        context(self).services.runs.annotate(self.run.id, record.number, label or None)
        record.manual_label = label or None
        self.refresh_list(min(index + 1, len(self.records) - 1) if label else index)
