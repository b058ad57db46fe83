"""The main screen's question flow: evidence at once, the answer streamed below it, follow-ups."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.generation import Generator
from lecturetui.core.modes import DEFAULT_MODE
from lecturetui.core.scope import Scope
from lecturetui.core.service import Library
from lecturetui.core.timebudget import DEFAULT_TTFT_S, TTFT_CHOICES
from lecturetui.tui.render import answer_text, evidence_text, hit_row

if TYPE_CHECKING:
    from lecturetui.core.answering import Retrieved
    from lecturetui.core.conversation import Exchange


@dataclass
class AppServices:
    """What the app runs on: the same library service as the CLI, and a way to load the LLM."""

    library: Library
    load_generator: Callable[[], Generator]
    llm_label: str = ""
    ttft_s: float = DEFAULT_TTFT_S


def ttft_label(seconds: float) -> str:
    return f"≤{seconds:g} s" if seconds > 0 else "∞"


class AskingApp(App[None]):
    """Asking and answering; LectureApp adds the layout, the keys and the other screens."""

    services: AppServices
    labels: dict[str, str]
    generator: Generator | None
    load_error: LectureTuiError | None
    ready: threading.Event

    def setup_asking(self) -> None:
        self.hits: list[dict[str, Any]] = []
        self.passages: list[dict[str, Any]] = []
        self.stop_event = threading.Event()
        self.idle = threading.Event()  # clear while a question is answered (warm-up waits)
        self.idle.set()
        self.closing = threading.Event()
        self.mode = DEFAULT_MODE
        self.scope = Scope()  # where questions are searched (s picks a course or a lecture)
        self.ttft = self.services.ttft_s
        self.previous: Exchange | None = None  # the exchange a follow-up would continue
        self.evidence: list[dict[str, Any]] = []  # the evidence sentences on screen

    def set_status(self, state: str) -> None:  # LectureApp draws the status line
        raise NotImplementedError

    def show_answer_text(self, text: str, status: str = "") -> None:
        self.query_one("#answer", Static).update(text)
        self.query_one("#answer-status", Static).update(status)

    def ask(self, question: str) -> None:
        self.stop_event.set()  # the answer in flight stops between tokens
        self.stop_event = threading.Event()
        self.run_question(question, self.stop_event)

    @work(thread=True, exclusive=True, group="answer")
    def run_question(self, question: str, stop: threading.Event) -> None:
        self.ready.wait()
        self.idle.clear()
        try:
            self._answer_question(question, stop)
        finally:
            self.idle.set()

    def _answer_question(self, question: str, stop: threading.Event) -> None:
        from lecturetui.core.answering import answer, passage_json, retrieve
        from lecturetui.core.conversation import Exchange, make_turn
        from lecturetui.core.translate import translator_for

        worker = get_current_worker()
        library = self.services.library
        self.call_from_thread(self.begin_question)
        turn = make_turn(question, self.previous)
        try:
            translator = translator_for(library, self.generator, turn.search_text)
            found = retrieve(library, turn, 10, self.mode, self.scope, translator)
        except LectureTuiError as exc:
            self.call_from_thread(self.show_answer_text, f"{exc.message}\n{exc.hint or ''}")
            return
        if worker.is_cancelled:
            return
        self.call_from_thread(self.show_found, found)
        while self.generator is None and self.load_error is None and not stop.is_set():
            time.sleep(0.1)  # the evidence is on screen while the answer model loads
        if self.generator is None:
            if self.load_error is not None:
                err = self.load_error
                self.call_from_thread(self.show_answer_text, f"{err.message}\n{err.hint or ''}")
            return
        tokens: list[str] = []
        last = [0.0]

        def on_prompt(hits: list[Any], passages: list[Any]) -> None:
            self.call_from_thread(
                self.show_hits, [h.to_json() for h in hits], [passage_json(p) for p in passages]
            )

        def on_token(piece: str) -> None:
            tokens.append(piece)
            now = time.perf_counter()
            if now - last[0] > 0.05 and not worker.is_cancelled:  # at most 20 repaints a second
                last[0] = now
                self.call_from_thread(self.stream_update, "".join(tokens))

        try:
            result = answer(library, self.generator, found, ttft_s=self.ttft, on_token=on_token,
                            stop=stop, on_prompt=on_prompt)  # fmt: skip
        except LectureTuiError as exc:
            self.call_from_thread(self.show_answer_text, f"{exc.message}\n{exc.hint or ''}")
            return
        if worker.is_cancelled:
            return  # superseded by a newer question
        data = result.to_json()
        entry = library.remember(question, result.text, data)
        thread = turn.thread_id if turn.thread_id is not None else entry
        self.previous = Exchange(entry, thread, turn.question, result.text, turn.search_text)
        self.call_from_thread(self.show_answer, data)

    def begin_question(self) -> None:
        self.evidence = []
        self.query_one("#evidence", Static).update("")
        self.show_answer_text("", self.labels["retrieving"])

    def show_found(self, found: Retrieved) -> None:
        """The hits and the evidence sentences, before the model writes anything."""
        self.show_hits([h.to_json() for h in found.hits], [])
        self.evidence = [e.to_json() for e in found.evidence]
        self.query_one("#evidence", Static).update(evidence_text(self.evidence, self.labels))
        status = f"{self.labels['retrieving']} {found.evidence_s * 1000:.0f} ms · "
        status += self.labels["generating"] if self.generator else self.labels["loading"]
        if found.turn.previous is not None:
            status += f" · ↳ {found.turn.previous.question}"
        if found.translation:  # a question in another language, searched as translated
            status += f" · ⇄ {found.translation}"
        self.show_answer_text("", status)

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
        self.evidence = list(data.get("evidence", []))
        self.query_one("#evidence", Static).update(evidence_text(self.evidence, self.labels))
        note = {"similarity": self.labels["similarity_note"]}.get(
            data.get("citation_source", ""), ""
        )
        if not data.get("citations") and data.get("answer"):
            note = self.labels["not_covered"]
        status = self.labels["stopped"] if data.get("stopped") else ""
        t = data.get("timings", {})
        if t:
            status = (status + " · " if status else "") + (
                f"{t.get('evidence_ms', t.get('retrieval_ms', 0)):.0f} ms · "
                f"{t.get('time_to_first_token_ms', 0) / 1000:.1f} s · {t.get('tokens_per_s', 0):.1f} tok/s"
            )
        if data.get("follow_up"):
            status += f" · ↳ {self.labels['follow_up']}"
        self.query_one("#answer", Static).update(
            answer_text(data.get("answer", ""), data.get("citations", []), self.labels, note)
        )
        self.query_one("#answer-status", Static).update(status)

    def action_stop(self) -> None:
        self.stop_event.set()

    def action_new_thread(self) -> None:
        """The next question starts a new thread (it is not taken as a follow-up)."""
        self.previous = None
        self.notify(self.labels["new_thread"])

    def action_cycle_ttft(self) -> None:
        """The time budget of the next answers: 8 s -> 15 s -> 30 s -> none -> 4 s."""
        i = TTFT_CHOICES.index(self.ttft) if self.ttft in TTFT_CHOICES else -1
        self.ttft = TTFT_CHOICES[(i + 1) % len(TTFT_CHOICES)]
        self.set_status(self.labels["ready"] if self.generator else self.labels["loading"])
        self.notify(f"{self.labels['ttft']}: {ttft_label(self.ttft)}")

    @work(thread=True, exclusive=True, group="warm")
    def warm_sentences(self) -> None:
        """Embed every segment's sentences in the background, paused while a question runs,
        so evidence comes from the cache."""
        from lecturetui.core.answering import warm_sentences

        try:
            warm_sentences(self.services.library, self.closing, self.idle)
        except LectureTuiError:
            return  # evidence is then computed when a question needs it
