"""The main screen's question flow: evidence at once, the answer streamed below it, follow-ups."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from textual import work
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from lecturetui.core.modes import DEFAULT_GUESS, DEFAULT_MODE
from lecturetui.core.records import AnswerRecord, EvidenceRecord, HitRecord, PassageRecord
from lecturetui.core.scope import Scope
from lecturetui.tui.context import AppContext, context
from lecturetui.tui.render import answer_text, evidence_text, hit_row

if TYPE_CHECKING:
    from lecturetui.core.answering import Retrieved
    from lecturetui.core.conversation import Exchange
    from lecturetui.core.prompting import Passage
    from lecturetui.core.search import Hit


class AskingScreen(Screen[None]):
    """Asking and answering; MainScreen adds the layout, the keys and the status line."""

    def __init__(self) -> None:
        super().__init__()
        self.hits: list[HitRecord] = []
        self.passages: list[PassageRecord] = []
        self.evidence: list[EvidenceRecord] = []  # the evidence sentences on screen
        self.stop_event = threading.Event()
        self.idle = threading.Event()  # clear while a question is answered (warm-up waits)
        self.idle.set()
        self.closing = threading.Event()
        self.mode = DEFAULT_MODE
        self.scope = Scope()  # where questions are searched (s picks a course or a lecture)
        self.ttft = 0.0  # set from the services on mount
        # the lecturer's guess (core/guess.py): auto, on, off; `g` toggles it
        self.guess = DEFAULT_GUESS
        self.previous: Exchange | None = None  # the exchange a follow-up would continue
        self.entry_id: int | None = None  # the history entry of the answer on screen

    @property
    def ctx(self) -> AppContext:
        return context(self)

    def refresh_status(self) -> None:  # MainScreen draws the status line
        raise NotImplementedError

    def show_answer_text(self, text: str, status: str = "") -> None:
        self.query_one("#answer", Static).update(text)
        self.query_one("#answer-status", Static).update(status)

    def ask(self, question: str) -> None:
        self.stop_event.set()  # the answer in flight stops between tokens
        self.stop_event = threading.Event()
        self.run_question(question, self.stop_event)

    @work(thread=True, exclusive=True, group="answer", exit_on_error=False)
    def run_question(self, question: str, stop: threading.Event) -> None:
        self.ctx.models.ready.wait()
        self.idle.clear()
        try:
            self._answer_question(question, stop)
        finally:
            self.idle.set()

    def _answer_question(self, question: str, stop: threading.Event) -> None:
        from lecturetui.core.answering import answer, passage_record, retrieve
        from lecturetui.core.conversation import Exchange, make_turn
        from lecturetui.core.guess import guesser_for
        from lecturetui.core.translate import translator_for

        worker = get_current_worker()
        ctx = self.ctx
        library, models = ctx.services.library, ctx.models
        self.app.call_from_thread(self.begin_question)
        turn = make_turn(question, self.previous)
        translator = translator_for(library, models.generator, turn.search_text)
        guesser = guesser_for(library, models.generator, self.guess, self.scope)
        found = retrieve(library, turn, 10, self.mode, self.scope, translator, guesser)
        if worker.is_cancelled:
            return
        self.app.call_from_thread(self.show_found, found)
        while not models.settled and not stop.is_set():
            time.sleep(0.1)  # the evidence is on screen while the answer model loads
        if models.generator is None:
            if models.error is not None:
                raise models.error
            return
        tokens: list[str] = []
        last = [0.0]

        def on_prompt(hits: list[Hit], passages: list[Passage]) -> None:
            self.app.call_from_thread(
                self.show_hits, [h.record() for h in hits], [passage_record(p) for p in passages]
            )

        def on_token(piece: str) -> None:
            tokens.append(piece)
            now = time.perf_counter()
            if now - last[0] > 0.05 and not worker.is_cancelled:  # at most 20 repaints a second
                last[0] = now
                self.app.call_from_thread(self.stream_update, "".join(tokens))

        result = answer(library, models.generator, found, ttft_s=self.ttft, on_token=on_token,
                        stop=stop, on_prompt=on_prompt)  # fmt: skip
        if worker.is_cancelled:
            return  # superseded by a newer question
        record = result.record()
        entry = library.history.add(record)
        self.entry_id = entry
        thread = turn.thread_id if turn.thread_id is not None else entry
        self.previous = Exchange(entry, thread, turn.question, result.text, turn.search_text)
        self.app.call_from_thread(self.show_answer, record)

    def begin_question(self) -> None:
        self.entry_id = None
        self.evidence = []
        self.query_one("#evidence", Static).update("")
        self.show_answer_text("", self.ctx.labels["retrieving"])

    def show_found(self, found: Retrieved) -> None:
        """The hits and the evidence sentences, before the model writes anything."""
        labels = self.ctx.labels
        self.show_hits([h.record() for h in found.hits], [])
        self.evidence = [e.record() for e in found.evidence]
        self.query_one("#evidence", Static).update(evidence_text(self.evidence, labels))
        status = f"{labels['retrieving']} {found.evidence_s * 1000:.0f} ms · "
        status += labels["generating"] if self.ctx.models.generator else labels["loading"]
        if found.turn.previous is not None:
            status += f" · ↳ {found.turn.previous.question}"
        if found.translation:  # a question in another language, searched as translated
            status += f" · ⇄ {found.translation}"
        if found.guess:  # searched with the lecturer's likely words too
            status += f" · {labels['guess']}"
        self.show_answer_text("", status)

    def stream_update(self, text: str) -> None:
        self.query_one("#answer", Static).update(answer_text(text, [], self.ctx.labels))

    def show_hits(self, hits: list[HitRecord], passages: list[PassageRecord]) -> None:
        labels = self.ctx.labels
        self.hits, self.passages = hits, passages
        marks: dict[int, str] = {}
        for p in passages:
            for sid in p.segment_ids:
                marks.setdefault(sid, f"[{p.number}]")
        option_list = self.query_one("#hits", OptionList)
        option_list.clear_options()
        if not hits:
            option_list.add_option(Option(labels["no_hits"], disabled=True))
            return
        scores = [h.score for h in hits]  # hybrid order is not cosine order
        best, worst = max(scores), min(scores)
        width = max(20, option_list.size.width - 6)
        option_list.add_options(
            [
                Option(hit_row(h, best, worst, marks.get(h.segment_id, ""), width),
                       id=str(h.segment_id))
                for h in hits
            ]
        )  # fmt: skip
        option_list.border_title = f"{labels['segments']} ({len(hits)})"
        option_list.highlighted = 0

    def show_answer(self, record: AnswerRecord) -> None:
        labels = self.ctx.labels
        self.passages = list(record.passages) or self.passages
        if record.hits:
            self.show_hits(list(record.hits), self.passages)
        self.evidence = list(record.evidence)
        self.query_one("#evidence", Static).update(evidence_text(self.evidence, labels))
        note = {"similarity": labels["similarity_note"]}.get(record.citation_source, "")
        if not record.citations and record.answer:
            note = labels["not_covered"]
        status = labels["stopped"] if record.stopped else ""
        t = record.timings
        if t:
            status = (status + " · " if status else "") + (
                f"{t.get('evidence_ms', t.get('retrieval_ms', 0)):.0f} ms · "
                f"{t.get('time_to_first_token_ms', 0) / 1000:.1f} s · {t.get('tokens_per_s', 0):.1f} tok/s"
            )
        if record.follow_up:
            status += f" · ↳ {labels['follow_up']}"
        self.query_one("#answer", Static).update(
            answer_text(record.answer, record.citations, labels, note)
        )
        self.query_one("#answer-status", Static).update(status)

    def action_stop(self) -> None:
        self.stop_event.set()

    @work(thread=True, exclusive=True, group="warm", exit_on_error=False)
    def warm_sentences(self) -> None:
        """Embed every segment's sentences in the background, paused while a question runs,
        so evidence comes from the cache (when this fails, a question computes its own)."""
        from lecturetui.core.answering import warm_sentences
        from lecturetui.core.errors import LectureTuiError

        try:
            warm_sentences(self.ctx.services.library, self.closing, self.idle)
        except LectureTuiError:
            return  # expected (no model yet): not worth a message
