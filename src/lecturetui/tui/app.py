"""The main screen: question, ranked segments, streamed answer with citations."""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
import webbrowser
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.generation import Generator
from lecturetui.core.modes import DEFAULT_MODE, MODES
from lecturetui.core.service import Library
from lecturetui.tui.evalscreens import EvalRunsScreen
from lecturetui.tui.i18n import labels_for
from lecturetui.tui.render import answer_text, hit_row
from lecturetui.tui.screens import HelpScreen, HistoryScreen, LibraryScreen, SegmentScreen
from lecturetui.tui.widgets import move_highlight


@dataclass
class AppServices:
    """What the app runs on: the same library service as the CLI, and a way to load the LLM."""

    library: Library
    load_generator: Callable[[], Generator]
    llm_label: str = ""


class LectureApp(App[None]):
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
        Binding("e", "evaluations", "Evaluations", show=False),
        Binding("l", "library", "Library"),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("q", "quit", "Quit", show=False),
        *[Binding(str(n), f"citation({n})", show=False) for n in range(1, 10)],
    ]
    #: actions on the main screen's hits and answer: off while another screen is on top of it
    MAIN_SCREEN_ACTIONS = frozenset({"cursor", "open", "copy", "stop", "cycle_mode", "citation"})

    def __init__(self, services: AppServices) -> None:
        super().__init__()
        self.services = services
        self.labels = labels_for([x.language for x in services.library.lectures()])
        self.hits: list[dict[str, Any]] = []
        self.passages: list[dict[str, Any]] = []
        self.generator: Generator | None = None
        self.load_error: LectureTuiError | None = None
        self.ready = threading.Event()
        self.stop_event = threading.Event()
        self.answer = ""
        self.answer_note = ""
        self.device = "…"
        self.mode = DEFAULT_MODE

    # -- layout -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="status")
        yield Input(placeholder=self.labels["placeholder"], id="question")
        with Horizontal(id="body"):
            yield OptionList(id="hits")
            with VerticalScroll(id="answer-box"):
                yield Static(id="answer-status")
                yield Static(id="answer")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#hits", OptionList).border_title = self.labels["segments"]
        self.query_one("#answer-box").border_title = self.labels["answer"]
        self.query_one("#question", Input).focus()
        self.set_status(self.labels["loading"])
        n_lectures, _ = self.services.library.counts()
        if n_lectures == 0:
            self.show_answer_text(self.labels["empty"])
        self.load_models()

    def models_line(self) -> str:
        lib = self.services.library
        n_lectures, n_segments = lib.counts()
        courses = sorted({x.course for x in lib.lectures() if x.course})
        course = courses[0] if courses else "lecturetui"
        parts = [
            course if len(course) <= 40 else course[:39] + "…",
            f"{n_lectures} {self.labels['lectures']} · {n_segments} {self.labels['segments_n']}",
            lib.model_id.split("/")[-1] if self.ready.is_set() else "…",
            self.device.upper(),
            f"{self.labels['mode']}: {self.mode}",
        ]
        if self.services.llm_label:
            parts.append(self.services.llm_label)
        return "  ·  ".join(parts)

    def set_status(self, state: str) -> None:
        # the state first: on a narrow terminal the end of the line is what gets cut
        line = Text(f" {state} ", style="bold reverse")
        line.append(f"  {self.models_line()}")
        self.query_one("#status", Static).update(line)

    def show_answer_text(self, text: str, status: str = "") -> None:
        self.query_one("#answer", Static).update(text)
        self.query_one("#answer-status", Static).update(status)

    # -- models load while the student types -----------------------------------------------------
    @work(thread=True, exclusive=True, group="load")
    def load_models(self) -> None:
        try:
            self.services.library.warm()
            self.device = self.services.library.embedder.device
            self.ready.set()
            self.call_from_thread(self.set_status, self.labels["loading"])
            self.generator = self.services.load_generator()
            self.call_from_thread(self.set_status, self.labels["ready"])
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
            self.stop_event.set()  # the answer in flight stops between tokens
            self.stop_event = threading.Event()
            self.run_question(question, self.stop_event)
            self.query_one("#hits", OptionList).focus()  # j/k, Enter, o, y work at once

    @work(thread=True, exclusive=True, group="answer")
    def run_question(self, question: str, stop: threading.Event) -> None:
        from lecturetui.core.answering import ask

        self.ready.wait()
        worker = get_current_worker()
        if (
            self.load_error is not None
            and self.generator is None
            and not self.services.library.embedder
        ):
            return
        self.call_from_thread(self.show_answer_text, "", self.labels["retrieving"])
        t0 = time.perf_counter()
        try:
            if self.generator is None:  # the LLM is still loading (or failed): show hits first
                result = self.services.library.search(question, 10, mode=self.mode)
                self.call_from_thread(self.show_hits, [h.to_json() for h in result.hits], [])
                while self.generator is None and self.load_error is None and not stop.is_set():
                    time.sleep(0.1)
                if self.generator is None:
                    if self.load_error is not None:
                        self.call_from_thread(
                            self.show_answer_text,
                            f"{self.load_error.message}\n{self.load_error.hint or ''}",
                        )
                    return
            tokens: list[str] = []
            last = [0.0]

            def on_retrieved(hits: list[Any], passages: list[Any]) -> None:
                from lecturetui.core.answering import passage_json

                ms = (time.perf_counter() - t0) * 1000
                self.call_from_thread(
                    self.show_hits,
                    [h.to_json() for h in hits],
                    [passage_json(p) for p in passages],
                )
                self.call_from_thread(
                    self.show_answer_text,
                    "",
                    f"{self.labels['retrieving']} {ms:.0f} ms · {self.labels['generating']}",
                )

            def on_token(piece: str) -> None:
                tokens.append(piece)
                now = time.perf_counter()
                if now - last[0] > 0.05 and not worker.is_cancelled:  # at most 20 repaints a second
                    last[0] = now
                    self.call_from_thread(self.stream_update, "".join(tokens))

            answer = ask(
                self.services.library,
                self.generator,
                question,
                10,
                on_token=on_token,
                stop=stop,
                on_retrieved=on_retrieved,
                mode=self.mode,
            )
        except LectureTuiError as exc:
            self.call_from_thread(self.show_answer_text, f"{exc.message}\n{exc.hint or ''}")
            return
        if stop.is_set() and not answer.stopped:
            return  # superseded by a newer question
        data = answer.to_json()
        self.services.library.remember(question, answer.text, data)
        self.call_from_thread(self.show_answer, data)

    def stream_update(self, text: str) -> None:
        self.query_one("#answer", Static).update(answer_text(text, [], self.labels))

    def show_hits(self, hits: list[dict[str, Any]], passages: list[dict[str, Any]]) -> None:
        self.hits, self.passages = hits, passages
        marks: dict[int, str] = {}
        for p in passages:
            for sid in p.get("segment_ids", []):
                marks.setdefault(sid, f"[{p['number']}]")
        option_list = self.query_one("#hits", OptionList)
        option_list.clear_options()
        if not hits:
            option_list.add_option(Option(self.labels["no_hits"], disabled=True))
            return
        scores = [h["score"] for h in hits]  # hybrid order is not cosine order
        best, worst = max(scores), min(scores)
        width = max(20, option_list.size.width - 6)
        option_list.add_options(
            [
                Option(
                    hit_row(h, best, worst, marks.get(h["segment_id"], ""), width),
                    id=str(h["segment_id"]),
                )
                for h in hits
            ]
        )
        option_list.border_title = f"{self.labels['segments']} ({len(hits)})"
        option_list.highlighted = 0

    def show_answer(self, data: dict[str, Any]) -> None:
        self.passages = data.get("passages", self.passages)
        if data.get("hits"):
            self.show_hits(data["hits"], self.passages)
        note = {"similarity": self.labels["similarity_note"]}.get(
            data.get("citation_source", ""), ""
        )
        if not data.get("citations") and data.get("answer"):
            note = self.labels["not_covered"]
        status = self.labels["stopped"] if data.get("stopped") else ""
        t = data.get("timings", {})
        if t:
            status = (status + " · " if status else "") + (
                f"{t.get('retrieval_ms', 0):.0f} ms · {t.get('time_to_first_token_ms', 0) / 1000:.1f} s · {t.get('tokens_per_s', 0):.1f} tok/s"
            )
        self.query_one("#answer", Static).update(
            answer_text(data.get("answer", ""), data.get("citations", []), self.labels, note)
        )
        self.query_one("#answer-status", Static).update(status)

    def action_stop(self) -> None:
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
            self.push_screen(SegmentScreen(segment, hit["score"] if hit else None, offsets))

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

    def action_history(self) -> None:
        def reopen(entry_id: int | None) -> None:
            if entry_id:
                payload = self.services.library.history_entry(entry_id)
                if payload:
                    self.query_one("#question", Input).value = str(payload.get("question", ""))
                    self.show_answer(payload)

        self.push_screen(HistoryScreen(self.services.library.history()), reopen)
