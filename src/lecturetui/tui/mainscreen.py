"""The main screen: the question box, the ranked segments and the answer, with their keys; before
the first question, the way in (tui/welcome.py)."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Footer, Input, OptionList, Static
from textual.worker import Worker

from lecturetui.core.answer.guess import wants_guess
from lecturetui.core.i18n import N_, _
from lecturetui.core.links import deep_link
from lecturetui.core.question_options import MODES, TTFT_CHOICES
from lecturetui.core.records import HitRecord, OverviewRecord, PartRecord, SummaryRecord
from lecturetui.core.retrieval.scope import Scope
from lecturetui.core.study.export import export_answer
from lecturetui.core.summary.render import export_summary
from lecturetui.tui.asking import AskingScreen
from lecturetui.tui.context import copy_link, open_link, ttft_label, worker_failed
from lecturetui.tui.i18n import Translated
from lecturetui.tui.mapscreen import MapScreen
from lecturetui.tui.messages import TopicsFound, WorkFailed
from lecturetui.tui.notes import bookmark_segment, export_to
from lecturetui.tui.scopescreen import ScopeScreen
from lecturetui.tui.screens import HistoryScreen
from lecturetui.tui.segmentscreen import SegmentScreen
from lecturetui.tui.welcome import Welcome, mode_name
from lecturetui.tui.widgets import QuestionBox, move_highlight


class MainScreen(Translated, Welcome, AskingScreen):
    BINDINGS = [
        Binding("j", "cursor(1)", N_("Down"), show=False),
        Binding("k", "cursor(-1)", N_("Up"), show=False),
        Binding("o", "open", N_("Open video")),
        Binding("y", "copy", N_("Copy link")),
        Binding("escape", "stop", N_("Stop")),
        Binding("h", "history", N_("History")),
        Binding("m", "cycle_mode", N_("Search mode")),
        Binding("n", "new_thread", N_("New thread")),
        Binding("t", "cycle_ttft", N_("Time budget"), show=False),
        Binding("g", "toggle_guess", N_("Lecturer's guess"), show=False),
        Binding("s", "scope", N_("Scope")),
        Binding("b", "bookmark", N_("Bookmark")),
        Binding("x", "export", N_("Export"), show=False),
        Binding("c", "course_map", N_("Course map")),
        *[Binding(str(n), f"citation({n})", show=False) for n in range(1, 10)],
    ]

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        ask = _("Ask about your lectures and press Enter (/ comes back here)")
        yield QuestionBox(placeholder=ask, id="question")
        with Horizontal(id="body"):
            yield OptionList(id="hits")
            with VerticalScroll(id="answer-box"):
                yield Static(id="answer-status")
                yield Static(id="answer")  # the lecturer's words first, then the explanation
                yield Static(id="evidence")  # the closest sentences, below what answers
        yield Footer()

    def on_mount(self) -> None:
        self.ttft = self.ctx.services.ttft_s
        self.guess = self.ctx.services.guess
        self.mode = self.ctx.services.mode
        self.query_one("#hits", OptionList).border_title = _("Segments")
        self.query_one("#answer-box").border_title = _("Answer")
        self.query_one("#question", Input).focus()
        self.refresh_status()
        self.show_welcome()

    def on_unmount(self) -> None:
        self.closing.set()
        self.stop_event.set()

    # -- the status line: state, library, scope and devices first (a narrow terminal cuts the end)
    def status_parts(self) -> tuple[list[str], list[str]]:
        """The scope, then the settings this screen changes (mode, time budget, guess)."""
        scope = [self.scope.label()] if self.scope else []
        settings = [
            _("search: {mode}").format(mode=mode_name(self.mode)),
            ttft_label(self.ttft),
            *([_("+ lecturer's guess")] if self.guessing() else []),
        ]
        return scope, settings

    def guessing(self) -> bool:
        """Are questions searched with the lecturer's guess (core/answer/guess.py)?"""

        return wants_guess(self.guess, self.ctx.models.generator)

    def refresh_status(self, state: str | None = None) -> None:
        ctx = self.ctx
        models = ctx.models
        if state is None:
            if models.error is not None:
                state = f"⚠ {models.error.message}"
            else:
                state = _("ready") if models.generator else _("loading models…")
                if models.loading and not models.generator:
                    # TRANSLATORS: {what} is a model: "loading EmbeddingGemma…"
                    state = _("loading {what}…").format(what=models.loading)
        line = Text(f" {state} ", style="bold reverse")
        line.append(f"  {ctx.models_line(*self.status_parts())}")
        self.query_one("#status", Static).update(line)

    # -- asking ---------------------------------------------------------------------------------
    def focus_question(self) -> None:
        self.query_one("#question", Input).focus()

    @on(Input.Submitted, "#question")
    def submitted(self, event: Input.Submitted) -> None:
        question = event.value.strip()
        if question:
            self.ask(question)
            self.query_one("#hits", OptionList).focus()  # j/k, Enter, o, y work at once

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker_failed(self, event)

    def on_work_failed(self, event: WorkFailed) -> None:
        """A failed question says why in the answer pane (the app also notifies and logs)."""
        if event.task == "answer":
            self.show_answer_text(event.text)

    def on_topics_found(self, message: TopicsFound) -> None:
        self.show_welcome(message.topics)

    def action_cycle_mode(self) -> None:
        """hybrid -> dense -> lexical; the next question (Enter again) uses it."""
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        self.ctx.services.remember("mode", self.mode)
        self.refresh_status()
        self.notify(_("search: {mode}").format(mode=mode_name(self.mode, long=True)))

    def action_cycle_ttft(self) -> None:
        """The time budget of the next answers: 8 s -> 15 s -> 30 s -> none -> 4 s."""
        i = TTFT_CHOICES.index(self.ttft) if self.ttft in TTFT_CHOICES else -1
        self.ttft = TTFT_CHOICES[(i + 1) % len(TTFT_CHOICES)]
        self.ctx.services.remember("ttft", self.ttft)
        self.refresh_status()
        self.notify(ttft_label(self.ttft))

    def action_toggle_guess(self) -> None:
        """Search the next questions with the lecturer's guess, or without it."""
        self.guess = "off" if self.guessing() else "on"
        self.ctx.services.remember("guess", self.guess)
        self.refresh_status()
        self.notify(
            _("Searching with the lecturer's guess")
            if self.guessing()
            else _("Searching without the lecturer's guess")
        )

    def action_new_thread(self) -> None:
        """The next question starts a new thread (it is not taken as a follow-up)."""
        self.previous = None
        self.notify(_("New thread: the next question stands alone"))

    def action_scope(self) -> None:
        def chosen(scope: Scope | None) -> None:
            if scope is not None:
                self.scope = scope
                self.refresh_status()

        lectures = self.ctx.services.library.lectures()
        self.app.push_screen(ScopeScreen(lectures, self.scope), chosen)

    def action_history(self) -> None:
        threads = self.ctx.services.library.history.threads()
        self.app.push_screen(HistoryScreen(threads), self.reopen)

    def reopen(self, entry_id: int | None) -> None:
        """A question asked before, with its answer as it was given."""
        if entry_id:
            history = self.ctx.services.library.history
            record = history.entry(entry_id)
            if record is not None:
                self.welcoming = False
                self.query_one("#question", Input).value = record.question
                self.show_answer(record)
                self.entry_id = entry_id
                self.previous = history.exchange(entry_id)  # a follow-up continues it

    # -- the hits -------------------------------------------------------------------------------
    def action_cursor(self, step: int) -> None:
        move_highlight(self.query_one("#hits", OptionList), step)

    def action_citation(self, n: int) -> None:
        """1-9: the hit cited [n]; on a summary, its part [n]."""
        if isinstance(self.shown, SummaryRecord):
            numbers = [p.number for p in self.shown.parts]
            if n in numbers:
                option_list = self.query_one("#hits", OptionList)
                option_list.highlighted = numbers.index(n)
                option_list.focus()
            return
        passage = next((p for p in self.passages if p.number == n), None)
        if passage is None:
            return
        option_list = self.query_one("#hits", OptionList)
        for i, h in enumerate(self.hits):
            if h.segment_id in passage.segment_ids:
                option_list.highlighted = i
                option_list.focus()
                return

    @on(OptionList.OptionSelected, "#hits")
    def open_segment(self, event: OptionList.OptionSelected) -> None:
        if self.welcome_chosen(event.option.id or "") or self.row_chosen(event.option.id or ""):
            return
        seg_id = int(event.option.id or 0)
        segment = self.ctx.services.library.segment(seg_id)
        if segment is not None:
            hit = next((h for h in self.hits if h.segment_id == seg_id), None)
            match = hit.match if hit else None
            offsets = (match.start, match.end) if match else None
            evidence = [e.text for e in self.evidence]
            self.app.push_screen(
                SegmentScreen(segment, hit.score if hit else None, offsets, evidence)
            )

    def action_course_map(self) -> None:
        """Where the question on screen comes up across the course (tui/mapscreen.py)."""
        question = self.asked
        if not question or not self.hits:
            self.notify(_("Ask a question first: the map shows where it comes up."))
            return
        self.build_map(question, list(self.hits))

    @work(thread=True, exclusive=True, group="map", exit_on_error=False)
    def build_map(self, question: str, hits: list[HitRecord]) -> None:
        library = self.ctx.services.library
        self.ctx.models.ready.wait()
        rows = library.course_map(question, hits)
        self.app.call_from_thread(self.app.push_screen, MapScreen(question, rows, hits))

    def current_hit(self) -> HitRecord | None:
        index = self.query_one("#hits", OptionList).highlighted
        return self.hits[index] if index is not None and index < len(self.hits) else None

    # -- a summary's parts, an overview's lectures (the left pane's rows in their place) --------
    def current_part(self) -> PartRecord | None:
        shown, at = self.shown, self.query_one("#hits", OptionList).highlighted
        if isinstance(shown, SummaryRecord) and at is not None and at < len(shown.parts):
            return shown.parts[at]
        return None

    def current_lecture(self) -> str | None:
        shown, at = self.shown, self.query_one("#hits", OptionList).highlighted
        if isinstance(shown, OverviewRecord) and at is not None and at < len(shown.lectures):
            return shown.lectures[at]
        return None

    def row_chosen(self, option_id: str) -> bool:
        """Enter on a summary's part (its segments, with their neighbours) or on an overview's
        lecture (its summary)."""
        kind, _sep, key = option_id.partition(":")
        part = self.current_part() if kind == "part" else None
        if part is not None and isinstance(self.shown, SummaryRecord):
            segment = self.ctx.services.library.segment_at(self.shown.lecture, part.start_s)
            if segment is not None:
                self.app.push_screen(SegmentScreen(segment, None, None, []))
            return True
        if kind == "lecture":
            self.ctx.summarise(key)
            return True
        return False

    def current_url(self) -> str | None:
        """The link of the highlighted row: a hit's, a part's, a lecture's at its start."""

        if (hit := self.current_hit()) is not None:
            return hit.url
        if (part := self.current_part()) is not None:
            return part.url
        lecture_id = self.current_lecture()
        lecture = self.ctx.services.library.lecture(lecture_id) if lecture_id else None
        return deep_link(lecture.source_url, 0.0) if lecture else None

    def action_open(self) -> None:
        open_link(self.app, self.current_url())

    def action_copy(self) -> None:
        copy_link(self.app, self.current_url())

    # -- study notes --------------------------------------------------------------------------
    def action_bookmark(self) -> None:
        """Bookmark the highlighted segment, with a note (kept with the answer it came from)."""
        hit = self.current_hit()
        part = self.current_part()
        if hit is not None:
            entry = self.entry_id if self.passages else None
            bookmark_segment(self, hit.segment_id, f"{hit.lecture_title}  {hit.span}", entry)
        elif part is not None and isinstance(self.shown, SummaryRecord):
            summary = self.shown
            segment = self.ctx.services.library.segment_at(summary.lecture, part.start_s)
            if segment is not None:
                name = part.label or part.title
                bookmark_segment(self, segment.id, f"{summary.title}  {part.start}  {name}", None)

    def action_export(self) -> None:
        """The answer on screen (question, answer, citations) as Markdown, Anki and CSV; a
        summary as study notes, a card per part."""

        if isinstance(self.shown, SummaryRecord):
            self.export_summary(self.shown)
            return
        entry = self.entry_id
        if entry is None:
            self.notify(_("There is no answer to export yet."), severity="warning")
            return
        services = self.ctx.services
        export_to(
            self.app,
            services.export_dir,
            f"answer-{entry}",
            lambda to: export_answer(services.library.saved_answer(entry), to),
        )

    def export_summary(self, summary: SummaryRecord) -> None:
        services = self.ctx.services
        export_to(
            self.app,
            services.export_dir,
            f"summary-{summary.lecture}",
            lambda to: export_summary(summary, to),
        )
