"""The main screen's question flow: evidence at once, the answer streamed below it, follow-ups."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import work
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from lecturetui.core.answer.events import Doubted, EvidenceReady, PromptReady, Token
from lecturetui.core.conversation import Exchange, Turn, make_turn
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _, decimal, seconds
from lecturetui.core.question_options import DEFAULT_GUESS, DEFAULT_MODE
from lecturetui.core.records import (
    AnswerRecord,
    EvidenceRecord,
    FoundRecord,
    HitRecord,
    Kept,
    OverviewRecord,
    PassageRecord,
    SummaryRecord,
)
from lecturetui.core.requests.door import run_request, warm_up
from lecturetui.core.requests.kinds import RequestEvent, ended, kind_of, shown_text
from lecturetui.core.requests.words import Failed, Loading, Question, QuestionSettings, Started
from lecturetui.core.retrieval.scope import Scope
from lecturetui.core.summary.asked import LectureSummary
from lecturetui.core.summary.events import SummaryGrew
from lecturetui.core.summary.render import summary_rich
from lecturetui.tui.background import app_language
from lecturetui.tui.context import AppContext, ModelState, context
from lecturetui.tui.messages import (
    AnswerDone,
    AnswerGrew,
    EvidenceShown,
    PromptShown,
    QuestionMessage,
    QuestionStarted,
    SummaryShown,
    WorkFailed,
)
from lecturetui.tui.render import (
    answer_text,
    evidence_text,
    hit_legend,
    hit_row,
    lecture_row,
    part_row,
)

if TYPE_CHECKING:
    from textual.message import Message

    from lecturetui.core.conversation import Exchange, Turn
    from lecturetui.core.llm.model import Generator


def app_models(models: ModelState) -> Loading:
    """The app's answer model for the front door: it loads while the student types; translation
    and the guess use it when it is there, the answer waits for it (a new question stops
    waiting)."""

    def wait(stop: threading.Event) -> Generator | None:
        while not models.answered.wait(0.1) and not stop.is_set():
            pass
        if models.generator is None and models.error is not None:
            raise models.error
        return models.generator

    def name() -> str | None:
        return models.generator.name if models.generator is not None else None

    return Loading(lambda: models.generator, wait, name)


def timings_line(t: dict[str, float]) -> str:
    """The answer's timings, named: "search 0.4 s · first words 4.5 s · 15 words/s"."""
    search = t.get("evidence_ms", t.get("retrieval_ms", 0.0)) / 1000
    parts = [_("search {time}").format(time=seconds(search))]
    if "time_to_first_token_ms" in t:
        first = t["time_to_first_token_ms"] / 1000
        parts.append(_("first words {time}").format(time=seconds(first)))
    if t.get("tokens_per_s"):
        parts.append(_("{rate} words/s").format(rate=decimal(t["tokens_per_s"], 0)))
    return " · ".join(parts)


class AskingScreen(Screen[None]):
    """Asking and answering; MainScreen adds the layout, the keys and the status line."""

    def __init__(self) -> None:
        super().__init__()
        self.hits: list[HitRecord] = []
        self.asked = ""  # the question on screen, as typed (the course map's, `c`)
        self.passages: list[PassageRecord] = []
        #: a summary's parts or an overview's lectures, when the left pane shows them
        self.shown: SummaryRecord | OverviewRecord | None = None
        self.evidence: list[EvidenceRecord] = []  # the evidence sentences on screen
        self.quote = ""  # the lecturer's sentences the answer on screen opens with
        self.stop_event = threading.Event()
        self.idle = threading.Event()  # clear while a question is answered (warm-up waits)
        self.idle.set()
        self.closing = threading.Event()
        self.mode = DEFAULT_MODE
        self.scope = Scope()  # where questions are searched (s picks a course or a lecture)
        self.lecture: str | None = None  # the lecture a summary was asked of ("this lecture")
        self.ttft = 0.0  # set from the services on mount
        # the lecturer's guess (core/answer/guess.py): auto, on, off; `g` toggles it
        self.guess = DEFAULT_GUESS
        self.previous: Exchange | None = None  # the exchange a follow-up would continue
        self.entry_id: int | None = None  # the history entry of the answer on screen
        self.serial = 0  # the question on screen (messages of an earlier one are dropped)

    @property
    def ctx(self) -> AppContext:
        return context(self)

    def refresh_status(self) -> None:  # MainScreen draws the status line
        raise NotImplementedError

    def show_answer_text(self, text: str, status: str = "") -> None:
        self.query_one("#answer", Static).update(text)
        self.query_one("#answer-status", Static).update(status)

    def ask(self, question: str) -> None:
        self.asked = question  # the course map's question (c)
        self._send(question)

    def ask_summary(self, lecture_id: str) -> None:
        """Ask for a lecture's summary (a LectureSummary, in the language the app speaks), that
        lecture then the one open ("this lecture"); the question box says what was asked."""

        lecture = self.ctx.services.library.lecture(lecture_id)
        if lecture is None:
            return
        self.lecture = lecture_id
        words = _("Summarise this lecture: {title}").format(title=lecture.title)
        self.query_one("#question", Input).value = words
        self.asked = words
        self._send(words, LectureSummary(lecture_id, app_language(), words))

    def _send(self, question: str, summary: LectureSummary | None = None) -> None:
        self.stop_event.set()  # the answer in flight stops between tokens
        self.stop_event = threading.Event()
        self.serial += 1  # what the worker of an earlier question still posts is dropped
        self.run_request(question, summary, self.stop_event, self.serial)

    @work(thread=True, exclusive=True, group="answer", exit_on_error=False)
    def run_request(
        self, question: str, summary: LectureSummary | None, stop: threading.Event, serial: int
    ) -> None:
        """The question (or the summary asked for) through the core's front door
        (core/requests/door.py), each of its events posted to this screen as a message; no widget is
        touched from this thread."""

        ctx = self.ctx
        ctx.models.ready.wait()
        worker = get_current_worker()
        settings = QuestionSettings(
            mode=self.mode, scope=self.scope, guess=self.guess, ttft_s=self.ttft
        )
        turn = make_turn(question, self.previous) if summary is None else Turn(question, question)
        request = summary or Question(turn, self.lecture)
        text = ""
        self.idle.clear()
        ctx.hush_summaries()  # the model writes one thing at a time
        try:
            for event in run_request(
                ctx.services.library, request, app_models(ctx.models), settings, stop
            ):
                if worker.is_cancelled:
                    return  # superseded by a newer question
                if (done := _ended(event, serial, turn)) is not None:
                    self.post_message(done)
                elif isinstance(event, Started):
                    self.post_message(QuestionStarted(serial))
                elif isinstance(event, EvidenceReady | Doubted):
                    # the answer opens with the quote; Doubted: with both moments, as the model
                    # found the quote in doubt once it was on screen
                    found = event.record()
                    text = found.opening
                    self.post_message(EvidenceShown(serial, found))
                elif isinstance(event, SummaryGrew):
                    # a lecture's summary: its parts, then each part's label, then the gist
                    self.post_message(SummaryShown(serial, event.summary, event.labelled))
                elif isinstance(event, PromptReady):
                    self.post_message(PromptShown(serial, *event.records()))
                elif isinstance(event, Token):
                    text += event.text
                    self.post_message(AnswerGrew(serial, text))
        finally:
            self.idle.set()

    def _current(self, message: QuestionMessage) -> bool:
        return message.serial == self.serial

    def on_question_started(self, message: QuestionStarted) -> None:
        if self._current(message):
            self.begin_question()

    def on_evidence_shown(self, message: EvidenceShown) -> None:
        if self._current(message):
            self.show_found(message.found)

    def on_prompt_shown(self, message: PromptShown) -> None:
        if self._current(message):
            self.show_hits(message.hits, message.passages)

    def on_summary_shown(self, message: SummaryShown) -> None:
        if not self._current(message):
            return
        summary = message.summary
        self.show_parts(summary)
        status = _("summary: {done} of {parts} parts").format(
            done=message.done, parts=len(summary.parts)
        )
        self.query_one("#answer", Static).update(summary_rich(summary))
        self.query_one("#answer-status", Static).update(status)

    def on_answer_grew(self, message: AnswerGrew) -> None:
        if self._current(message):
            self.stream_update(message.text)

    def on_answer_done(self, message: AnswerDone) -> None:
        if not self._current(message):
            return
        record, turn = message.record, message.turn
        self.entry_id = entry = message.entry_id
        if entry is not None:
            thread = turn.thread_id if turn.thread_id is not None else entry
            answer = shown_text(record)
            self.previous = Exchange(entry, thread, turn.question, answer, turn.search_text)
        self.show_answer(record)

    def begin_question(self) -> None:
        self.entry_id = None
        self.evidence = []
        self.query_one("#evidence", Static).update("")
        self.show_answer_text("", _("searching…"))

    def show_found(self, found: FoundRecord) -> None:
        """The hits, the evidence sentences and the quote the answer opens with, before the
        model writes anything."""
        self.show_hits(list(found.hits), [])
        self.evidence = list(found.evidence)
        self.query_one("#evidence", Static).update(evidence_text(self.evidence))
        status = _("search {time}").format(time=seconds(found.search_s)) + " · "
        if found.unsure:  # both moments are shown and nothing is explained (core/answer/verdict.py)
            status += _("two moments are about as close: both shown, nothing explained")
        elif found.checking:  # the answer model reads the two closest moments first
            status += _("checking the moment…")
        elif self.ctx.models.generator:
            status += _("writing the explanation…")
        else:
            status += _("loading models…")
        if found.follows is not None:
            status += " · " + _("follows up: {question}").format(question=found.follows)
        if found.translation:  # a question in another language, searched as translated
            status += " · " + _("searched as: {text}").format(text=found.translation)
        if found.guess:  # searched with the lecturer's likely words too
            status += " · " + _("+ lecturer's guess")
        self.show_answer_text("", status)
        self.quote = found.quote.text if found.quote else ""
        self.stream_update(found.opening)

    def stream_update(self, text: str) -> None:
        self.query_one("#answer", Static).update(answer_text(text, [], quote=self.quote))

    def show_parts(self, summary: SummaryRecord) -> None:
        """A summary's parts as the left pane's rows (time, label), which the keys move through
        as through hits (tui/mainscreen.py): the row highlighted stays as the parts are named."""
        option_list = self.query_one("#hits", OptionList)
        same = isinstance(self.shown, SummaryRecord) and self.shown.lecture == summary.lecture
        at = option_list.highlighted if same else 0
        self.hits, self.passages, self.shown = [], [], summary
        width = max(20, option_list.size.width - 6)
        option_list.clear_options()
        option_list.add_options(
            [Option(part_row(p, width), id=f"part:{p.number}") for p in summary.parts]
        )
        option_list.border_title = _("Parts") + f" ({len(summary.parts)})"
        option_list.border_subtitle = _("Enter: the part · o: video · b: bookmark · x: notes")
        option_list.highlighted = at if at is not None and at < len(summary.parts) else 0

    def show_lectures(self, overview: OverviewRecord) -> None:
        """A course overview's lectures as the left pane's rows (Enter: that lecture's summary)."""
        option_list = self.query_one("#hits", OptionList)
        self.hits, self.passages, self.shown = [], [], overview
        lines = [x for x in overview.text.splitlines() if x.startswith("[")]
        width = max(20, option_list.size.width - 6)
        option_list.clear_options()
        option_list.add_options(
            [
                Option(
                    lecture_row(n, lines[n - 1] if n <= len(lines) else lec, width),
                    id=f"lecture:{lec}",
                )
                for n, lec in enumerate(overview.lectures, 1)
            ]
        )
        option_list.border_title = _("Lectures") + f" ({len(overview.lectures)})"
        option_list.border_subtitle = _("Enter: the lecture's summary · o: video")
        option_list.highlighted = 0 if overview.lectures else None

    def show_hits(self, hits: list[HitRecord], passages: list[PassageRecord]) -> None:
        self.hits, self.passages, self.shown = hits, passages, None
        marks: dict[int, str] = {}
        for p in passages:
            for sid in p.segment_ids:
                marks.setdefault(sid, f"[{p.number}]")
        option_list = self.query_one("#hits", OptionList)
        option_list.clear_options()
        if not hits:
            option_list.add_option(Option(_("No segment found."), disabled=True))
            return
        scores = [h.score for h in hits]  # hybrid order is not cosine order
        best, worst = max(scores), min(scores)
        width = max(20, option_list.size.width - 6)
        option_list.add_options(
            [
                Option(
                    hit_row(h, best, worst, marks.get(h.segment_id, ""), width),
                    id=str(h.segment_id),
                )
                for h in hits
            ]
        )
        option_list.border_title = _("Segments") + f" ({len(hits)})"
        option_list.border_subtitle = hit_legend()
        option_list.highlighted = 0

    def show_answer(self, record: Kept) -> None:
        """What a request was answered with, in its kind's view (VIEWS: a question's answer, a
        lecture's summary, a course's overview); a kind without a view of its own, as its text.
        A record of a kind the registry does not know raises UnknownKind."""
        kind = kind_of(record)
        view = VIEWS.get(kind.name)
        if view is not None:
            view(self, record)
        else:
            self.query_one("#answer", Static).update(kind.text(record))
            self.query_one("#answer-status", Static).update("")

    def show_overview(self, overview: OverviewRecord) -> None:
        self.show_lectures(overview)
        self.query_one("#answer", Static).update(overview.text)
        self.query_one("#answer-status", Static).update("")

    def show_summary(self, summary: SummaryRecord) -> None:
        self.show_parts(summary)
        self.query_one("#answer", Static).update(summary_rich(summary))
        t = summary.timings
        status = _("parts {parts} · summary {whole}").format(
            parts=seconds(t.get("parts_ms", 0.0) / 1000),
            whole=seconds(t.get("total_ms", 0.0) / 1000),
        )
        self.query_one("#answer-status", Static).update(
            _("stopped") + " · " + status if summary.stopped else status
        )

    def show_question_answer(self, record: AnswerRecord) -> None:
        self.passages = list(record.passages) or self.passages
        if record.hits:
            self.show_hits(list(record.hits), self.passages)
        self.evidence = list(record.evidence)
        self.query_one("#evidence", Static).update(evidence_text(self.evidence))
        note = ""
        if record.citation_source == "similarity":
            note = _("(the model cited nothing; citations matched by similarity)")
        if not record.citations and record.answer and not record.abstained:
            note = _("No segment supports the answer closely enough to cite it.")
        status = _("stopped") if record.stopped else ""
        if record.timings:
            status = (status + " · " if status else "") + timings_line(record.timings)
        if record.follow_up:
            status += " · " + _("a follow-up")
        self.query_one("#answer", Static).update(
            answer_text(
                record.answer,
                record.citations,
                note,
                record.quote.text if record.quote else "",
                [u.sentence for u in record.unsupported],
            )
        )
        self.query_one("#answer-status", Static).update(status)

    def action_stop(self) -> None:
        self.stop_event.set()

    @work(thread=True, exclusive=True, group="warm", exit_on_error=False)
    def warm_sentences(self) -> None:
        """Embed every segment's sentences in the background, paused while a question runs,
        so evidence comes from the cache (when this fails, a question computes its own)."""

        try:
            warm_up(self.ctx.services.library, self.closing, self.idle)
        except LectureTuiError:
            return  # expected (no model yet): not worth a message


#: how the app shows each kind of request's record (core/requests/kinds.py), by kind name
VIEWS: dict[str, Callable[[AskingScreen, Any], None]] = {
    "answer": AskingScreen.show_question_answer,
    "summary": AskingScreen.show_summary,
    "overview": AskingScreen.show_overview,
}


def _ended(event: RequestEvent, serial: int, turn: Turn) -> Message | None:
    """The message a request's last event posts (None for any other event): what it was
    answered with, or why it failed (said in the answer pane and logged: context.py)."""
    if (end := ended(event)) is not None:
        return AnswerDone(serial, end.record, end.entry_id, turn)
    if isinstance(event, Failed):
        return WorkFailed("answer", event.error)
    return None
