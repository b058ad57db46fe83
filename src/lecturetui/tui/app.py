"""The main screen: question, ranked segments, streamed answer with citations."""

from __future__ import annotations

import shutil
import subprocess
import threading
import webbrowser
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote, urlsplit

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Input, OptionList, Static

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.generation import Generator
from lecturetui.core.modes import MODES
from lecturetui.core.scope import Scope
from lecturetui.tui.asking import AppServices, AskingApp, ttft_label

__all__ = ["AppServices", "LectureApp"]
from lecturetui.tui.evalscreens import EvalRunsScreen
from lecturetui.tui.i18n import labels_for
from lecturetui.tui.screens import HelpScreen, HistoryScreen, LibraryScreen, SegmentScreen
from lecturetui.tui.widgets import move_highlight


class LectureApp(AskingApp):
    TITLE = "lecturetui"
    CSS_PATH = "app.tcss"
    BINDINGS = [
        Binding("slash", "focus_question", "Question", key_display="/"),
        Binding("j", "cursor(1)", "Down", show=False),
        Binding("k", "cursor(-1)", "Up", show=False),
        Binding("o", "open", "Open video"),
        Binding("y", "copy", "Copy link"),
        Binding("escape", "stop", "Stop"),
        Binding("h", "history", "History"),
        Binding("m", "cycle_mode", "Mode"),
        Binding("n", "new_thread", "New thread"),
        Binding("t", "cycle_ttft", "Time budget", show=False),
        Binding("e", "evaluations", "Evaluations", show=False),
        Binding("l", "library", "Library"),
        Binding("s", "scope", "Scope"),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("q", "quit", "Quit", show=False),
        *[Binding(str(n), f"citation({n})", show=False) for n in range(1, 10)],
    ]
    #: actions on the main screen's hits and answer: off while another screen is on top of it
    MAIN_SCREEN_ACTIONS = frozenset(
        {
            "cursor",
            "open",
            "copy",
            "stop",
            "cycle_mode",
            "citation",
            "new_thread",
            "cycle_ttft",
            "scope",
        }
    )

    def __init__(self, services: AppServices) -> None:
        super().__init__()
        self.services = services
        self.labels = labels_for([x.language for x in services.library.lectures()])
        self.generator: Generator | None = None
        self.load_error: LectureTuiError | None = None
        self.ready = threading.Event()
        self.device = "…"
        self.setup_asking()

    # -- layout -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="status")
        yield Input(placeholder=self.labels["placeholder"], id="question")
        with Horizontal(id="body"):
            yield OptionList(id="hits")
            with VerticalScroll(id="answer-box"):
                yield Static(id="answer-status")
                yield Static(id="evidence")
                yield Static(id="answer")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#hits", OptionList).border_title = self.labels["segments"]
        self.query_one("#answer-box").border_title = self.labels["answer"]
        self.query_one("#question", Input).focus()
        self.set_status(self.labels["loading"])
        n_lectures, _ = self.services.library.counts()
        self.known_counts = self.services.library.counts()
        if n_lectures == 0:
            self.show_answer_text(self.labels["empty"])
        self.load_models()
        # lectures ingested elsewhere (`ingest --watch`, another terminal) show up by themselves
        self.set_interval(2.0, self.check_library)

    def check_library(self) -> None:
        counts = self.services.library.counts()
        if counts != self.known_counts:
            added = counts[0] - self.known_counts[0]
            self.known_counts = counts
            self.set_status(self.labels["ready"] if self.generator else self.labels["loading"])
            if added > 0:
                self.notify(f"+{added} {self.labels['lectures']}")

    def models_line(self) -> str:
        lib = self.services.library
        n_lectures, n_segments = lib.counts()
        courses = sorted({x.course for x in lib.lectures() if x.course})
        course = courses[0] if courses else "lecturetui"
        parts = [
            course if len(course) <= 40 else course[:39] + "…",
            f"{n_lectures} {self.labels['lectures']} · {n_segments} {self.labels['segments_n']}",
            lib.model_id.split("/")[-1] if self.ready.is_set() else "…",
            f"E5 {self.device.upper()}",
            f"{self.labels['mode']}: {self.mode}",
            *([self.scope.label()] if self.scope else []),
            f"{self.labels['ttft']} {ttft_label(self.ttft)}",
        ]
        if self.services.llm_label:
            parts.append(self.services.llm_label)
        return "  ·  ".join(parts)

    def set_status(self, state: str) -> None:
        # the state first: on a narrow terminal the end of the line is what gets cut
        line = Text(f" {state} ", style="bold reverse")
        line.append(f"  {self.models_line()}")
        self.query_one("#status", Static).update(line)

    # -- models load while the student types -----------------------------------------------------
    @work(thread=True, exclusive=True, group="load")
    def load_models(self) -> None:
        try:
            self.services.library.warm()
            embedder = self.services.library.embedder
            # a session embeds a lot (every sentence, in the background): under `auto` the
            # embedder moves to the GPU now rather than after its first questions
            move = getattr(embedder, "use_accelerator", None)
            if callable(move):
                move()
            self.device = embedder.device
            self.ready.set()
            self.call_from_thread(self.set_status, self.labels["loading"])
            generator = self.services.load_generator()
            from lecturetui.core.llmspeed import SPEED_FILE, prepare

            # read the fixed start of every prompt now; measure the speed on first use
            prepare(generator, self.services.library.home.root / SPEED_FILE)
            self.generator = generator
            placement = getattr(generator, "placement", "")
            if placement:
                self.services.llm_label = f"{self.services.llm_label} {placement}".strip()
            self.call_from_thread(self.set_status, self.labels["ready"])
            self.call_from_thread(self.warm_sentences)
        except LectureTuiError as exc:
            self.load_error = exc
            self.ready.set()
            self.call_from_thread(self.set_status, f"⚠ {exc.message}")
            self.call_from_thread(self.show_answer_text, f"{exc.message}\n{exc.hint or ''}")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Main-screen actions are disabled (and left out of the footer) on the other screens."""
        return not (action in self.MAIN_SCREEN_ACTIONS and len(self.screen_stack) > 1)

    # -- asking ---------------------------------------------------------------------------------
    def action_focus_question(self) -> None:
        """From any screen: back to the main one, ready to type a question."""
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.query_one("#question", Input).focus()

    @on(Input.Submitted, "#question")
    def submitted(self, event: Input.Submitted) -> None:
        question = event.value.strip()
        if question:
            self.ask(question)
            self.query_one("#hits", OptionList).focus()  # j/k, Enter, o, y work at once

    def on_unmount(self) -> None:
        self.closing.set()
        self.stop_event.set()

    def action_cycle_mode(self) -> None:
        """hybrid -> dense -> lexical; the next question (Enter again) uses it."""
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        state = self.labels["ready"] if self.generator is not None else self.labels["loading"]
        self.set_status(state)
        self.notify(f"{self.labels['mode']}: {self.mode} · {self.labels['mode_' + self.mode]}")

    def action_cursor(self, step: int) -> None:
        move_highlight(self.query_one("#hits", OptionList), step)

    def action_citation(self, n: int) -> None:
        passage = next((p for p in self.passages if p.get("number") == n), None)
        if passage is None:
            return
        ids = passage.get("segment_ids", [])
        option_list = self.query_one("#hits", OptionList)
        for i, h in enumerate(self.hits):
            if h["segment_id"] in ids:
                option_list.highlighted = i
                option_list.focus()
                return

    @on(OptionList.OptionSelected, "#hits")
    def open_segment(self, event: OptionList.OptionSelected) -> None:
        seg_id = int(event.option.id or 0)
        segment = self.services.library.segment(seg_id)
        if segment is not None:
            hit = next((h for h in self.hits if h["segment_id"] == seg_id), None)
            match = hit.get("match") if hit else None
            offsets = (int(match["start"]), int(match["end"])) if match else None
            evidence = [str(e.get("text", "")) for e in self.evidence]
            self.push_screen(
                SegmentScreen(segment, hit["score"] if hit else None, offsets, evidence)
            )

    def current_hit(self) -> dict[str, Any] | None:
        index = self.query_one("#hits", OptionList).highlighted
        return self.hits[index] if index is not None and index < len(self.hits) else None

    def action_open(self) -> None:
        hit = self.current_hit()
        self.open_link(hit.get("url") if hit else None)

    def action_copy(self) -> None:
        hit = self.current_hit()
        self.copy_link(hit.get("url") if hit else None)

    def open_link(self, url: str | None) -> None:
        if not url:
            self.notify(self.labels["no_link"], severity="warning")
            return
        parts = urlsplit(url)
        if parts.scheme == "file":
            path, start = unquote(parts.path), parts.fragment.removeprefix("t=") or "0"
            player = shutil.which("mpv") or shutil.which("vlc")
            if player:
                flag = f"--start={start}" if player.endswith("mpv") else f"--start-time={start}"
                subprocess.Popen(
                    [player, flag, path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                )
                return
            self.notify(f"No mpv or vlc to play {path} (at {start} s).", severity="warning")
            return
        webbrowser.open(url)

    def copy_link(self, url: str | None) -> None:
        if not url:
            self.notify(self.labels["no_link"], severity="warning")
            return
        self.copy_to_clipboard(url)
        self.notify(f"{self.labels['copied']}: {url}")

    # -- other screens --------------------------------------------------------------------------
    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand(
            "Ask a question", "Focus the question box (/)", self.action_focus_question
        )
        yield SystemCommand(
            "Library", "Lectures, models, device; ingest transcripts (l)", self.action_library
        )
        yield SystemCommand(
            "Scope", "Ask within the whole library, one course or one lecture (s)",
            self.action_scope,
        )  # fmt: skip
        yield SystemCommand("History", "Questions asked in this library (h)", self.action_history)
        yield SystemCommand(
            "Search mode", "Cycle hybrid / dense (E5) / lexical (BM25) (m)", self.action_cycle_mode
        )
        yield SystemCommand(
            "Evaluations", "Evaluation runs: read and label records C/P/I (e)",
            self.action_evaluations,
        )  # fmt: skip
        yield SystemCommand("Stop the answer", "Stop generating (Esc)", self.action_stop)
        yield SystemCommand(
            "New thread", "The next question is not a follow-up (n)", self.action_new_thread
        )
        yield SystemCommand(
            "Time budget", "Time to the answer's first token: 8/15/30 s, none, 4 s (t)",
            self.action_cycle_ttft,
        )  # fmt: skip
        yield SystemCommand(
            "Open the video", "The selected segment's lecture at its time (o)", self.action_open
        )
        yield SystemCommand("Copy the link", "The selected segment's link (y)", self.action_copy)
        yield SystemCommand("Keys", "Every key (?)", self.action_help)

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_evaluations(self) -> None:
        self.push_screen(EvalRunsScreen(self.services.library.eval_runs(), self.labels))

    def action_library(self) -> None:
        self.push_screen(LibraryScreen())

    def action_scope(self) -> None:
        from lecturetui.tui.scopescreen import ScopeScreen

        def chosen(scope: Scope | None) -> None:
            if scope is not None:
                self.scope = scope
                self.set_status(self.labels["ready"] if self.generator else self.labels["loading"])

        self.push_screen(ScopeScreen(self.services.library.lectures(), self.scope), chosen)

    def action_history(self) -> None:
        def reopen(entry_id: int | None) -> None:
            if entry_id:
                library = self.services.library
                payload = library.history_entry(entry_id)
                if payload:
                    self.query_one("#question", Input).value = str(payload.get("question", ""))
                    self.show_answer(payload)
                    self.previous = library.exchange(entry_id)  # a follow-up continues it

        self.push_screen(HistoryScreen(self.services.library.history_threads()), reopen)
