"""The application: app-wide state (services, the models loading), screen routing, and
the one place a failed worker is shown and logged. The main screen is tui/mainscreen.py."""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable, Sequence
from typing import Any

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import Worker, get_current_worker

from lecturetui.core.i18n import N_, _, ngettext, set_language
from lecturetui.core.models.embedders import first_stage, reranker
from lecturetui.core.models.precision import shown_where
from lecturetui.core.session import failed_to_load
from lecturetui.tui import background
from lecturetui.tui.bookmarkscreen import BookmarksScreen
from lecturetui.tui.context import AppServices, ModelState, worker_failed
from lecturetui.tui.evalscreens import EvalRunsScreen
from lecturetui.tui.i18n import Translated, translated_commands
from lecturetui.tui.mainscreen import MainScreen
from lecturetui.tui.messages import (
    ChaptersProgress,
    ModelsChanged,
    RerankProgress,
    SummariesProgress,
    WorkFailed,
)
from lecturetui.tui.screens import HelpScreen, LibraryScreen

__all__ = ["AppServices", "LectureApp"]

log = logging.getLogger("lecturetui")


#: what each worker does, as a failure's title names it
TASKS = {
    "load": N_("loading the models"),
    "answer": N_("the answer"),
    "ingest": N_("adding lectures"),
    "rerank": N_("re-ranking vectors"),
    "doctor": N_("the devices"),
    "warm": N_("sentence vectors"),
    "topics": N_("the first screen"),
    "map": N_("the course map"),
    "chapters": N_("chapters of older lectures"),
    "summaries": N_("summaries written while idle"),
}


class LectureApp(Translated, App[None]):
    TITLE = "lecturetui"
    CSS_PATH = "app.tcss"
    BINDINGS = [
        Binding("slash", "focus_question", N_("Question"), key_display="/"),
        Binding("l", "library", N_("Library")),
        Binding("e", "evaluations", N_("Evaluations"), show=False),
        Binding("B", "bookmarks", N_("Bookmarks"), key_display="B"),
        Binding("question_mark", "help", N_("Help"), key_display="?"),
        Binding("q", "quit", N_("Quit"), show=False),
        # the help and the library from anywhere, the question box too (where ? and l are typed)
        Binding("f1", "help", N_("Help"), show=False),
        Binding("ctrl+l", "library", N_("Library"), show=False),
        # Textual's own (it adds it when the app has none), named in the app's language
        Binding(
            "ctrl+p",
            "command_palette",
            N_("palette"),
            show=False,
            priority=True,
            tooltip=N_("Open the command palette"),
        ),
    ]

    def __init__(self, services: AppServices) -> None:
        if services.language:  # else the language the command line chose
            set_language(services.language)
        super().__init__()
        self.services = services
        self.models = ModelState()
        self.main = MainScreen()
        self.known_counts = (0, 0)
        self.idle_summaries = background.IdleSummaries(services.summaries)

    def get_default_screen(self) -> Screen[Any]:
        return self.main

    def on_mount(self) -> None:
        self.known_counts = self.services.library.counts()
        self.load_models()
        self.read_old_chapters()
        # lectures ingested elsewhere (`ingest --watch`, another terminal) show up by themselves
        self.set_interval(2.0, self.check_library)
        # the summaries not written yet, while the student neither asks nor types
        self.set_interval(background.CHECK_S, self.write_idle_summaries)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            self.idle_summaries.touched()
        await super().on_event(event)

    def on_unmount(self) -> None:
        self.idle_summaries.stop.set()

    def check_library(self) -> None:
        counts = self.services.library.counts()
        if counts != self.known_counts:
            added = counts[0] - self.known_counts[0]
            self.known_counts = counts
            self.main.refresh_status()
            self.main.show_welcome()  # the way in, while it is on screen, says what was added
            if added > 0:
                self.notify(
                    ngettext("{n} lecture added", "{n} lectures added", added).format(n=added)
                )
            if self.models.ready.is_set():
                self.write_rerank_vectors()

    def models_line(self, scope: Sequence[str] = (), settings: Sequence[str] = ()) -> str:
        """The library, then where both models run, then the screen's settings: on a narrow
        terminal the end is what gets cut, so the devices come before the adjustable parts."""
        lib = self.services.library
        n_lectures, n_segments = lib.counts()
        courses = sorted({x.course for x in lib.lectures() if x.course})
        course = courses[0] if courses else "lecturetui"
        parts = [
            course if len(course) <= 32 else course[:31] + "…",
            ngettext("{n} lecture", "{n} lectures", n_lectures).format(n=n_lectures)
            + " · "
            + ngettext("{n} segment", "{n} segments", n_segments).format(n=n_segments),
            *scope,
            f"{first_stage().short} {self.models.where}",
            *([self.models.rerank] if self.models.rerank else []),
            *([self.models.chapters] if self.models.chapters else []),
            *([self.models.summaries] if self.models.summaries else []),
            *([self.services.llm_label] if self.services.llm_label else []),
            *settings,
            lib.model_id.split("/")[-1] if self.models.ready.is_set() else "…",
        ]
        return "  ·  ".join(parts)

    # -- models load while the student types -----------------------------------------------------
    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def load_models(self) -> None:
        models = self.models
        try:
            self._load_models()
        except BaseException as exc:
            # a question waiting for the models stops waiting, and says why
            models.error = failed_to_load(exc)
            raise
        finally:
            models.ready.set()
            models.answered.set()
        self.post_message(ModelsChanged(loaded=True))

    def _loading(self, what: str) -> None:
        self.models.loading = what
        self.post_message(ModelsChanged())

    def _load_models(self) -> None:
        library = self.services.library
        # a question typed meanwhile waits for these two, and shows its quote as soon as they are
        # in; the status line says which one is loading. The re-ranking model loads (and runs
        # once) beside the first stage's and the language identifier, as a search loads them
        library.preload()  # started already by the `app` command, before Textual was imported
        stage = library.rerank_stage()
        self._loading(first_stage().name)
        library.warm(rerank=False)
        if stage is not None:
            self._loading(reranker().name)
            stage.index()  # the model, once its load is done
        embedder = library.embedder
        # a session embeds a lot (every sentence, in the background): under `auto` the
        # embedder moves to the GPU now rather than after its first questions
        move = getattr(embedder, "use_accelerator", None)
        if callable(move):
            move()
        self.models.where = shown_where(embedder)
        self.models.rerank = self._rerank_label(0)
        self.models.ready.set()
        self._loading(_("the answer model"))
        # the session reads the fixed start of every prompt as it loads the model (or restores
        # it from the data home: core/session.py)
        generator = self.services.load_generator()
        self.models.generator = generator
        self.models.loading = ""
        placement = getattr(generator, "placement", "")
        if placement:
            self.services.llm_label = f"{self.services.llm_label} {placement}".strip()

    # -- the re-ranking vectors follow ingest in the background -------------------------------------
    def _rerank_label(self, pending: int, total: int = 0) -> str:
        library = self.services.library
        if not library.rerank_wanted:  # turned off on purpose ($LECTURETUI_RERANK=off)
            return ""
        if library.rerank_status():
            return _(reranker().off)
        if pending:
            return _("re-ranking vectors: {done}/{total}").format(done=total - pending, total=total)
        stage = library.rerank_stage()
        where = shown_where(stage.embedder) if stage is not None and stage.loaded else "…"
        return f"{reranker().short} {where}"

    @work(thread=True, exclusive=True, group="rerank", exit_on_error=False)
    def write_rerank_vectors(self) -> None:
        """Re-ranking vectors for what the library lacks (a lecture ingested here or elsewhere):
        search works with E5 meanwhile; leaving the app stops it between two saved batches."""
        library = self.services.library
        if library.rerank_status():
            return
        worker = get_current_worker()
        pending = library.rerank_pending()
        if not pending:
            return
        self.post_message(RerankProgress(pending, pending))

        def on_vectors(done: int, total: int) -> None:
            self.post_message(RerankProgress(total - done, total))

        library.sync_rerank(on_vectors, cancel=lambda: worker.is_cancelled)
        self.post_message(RerankProgress(library.rerank_pending(), pending))

    @work(thread=True, exclusive=True, group="chapters", exit_on_error=False)
    def read_old_chapters(self) -> None:
        """The chapters of lectures stored before chapters were kept, looked for once (their
        info files); leaving the app stops it between two lectures."""
        worker = get_current_worker()
        library = self.services.library
        total = library.unread_chapters()
        if not total:
            return
        self.post_message(ChaptersProgress(0, total))

        def on_lecture(done: int, all_: int) -> None:
            if done < all_:  # the last one is posted with what was gained
                self.post_message(ChaptersProgress(done, all_))

        gained = library.read_missing_chapters(on_lecture, cancel=lambda: worker.is_cancelled)
        self.post_message(ChaptersProgress(total, total, gained))

    # -- the summaries not written yet, while the app is idle (tui/background.py) ---------------
    def write_idle_summaries(self) -> None:
        generator = self.models.generator
        busy = generator is None or not self.main.idle.is_set()
        if generator is None or not self.idle_summaries.due(busy, self.known_counts):
            return
        stop = self.idle_summaries.start()
        write = functools.partial(
            self.idle_summaries.run,
            self.services.library,
            generator,
            background.app_language(),
            stop,
            self.post_message,
        )
        self.run_worker(write, thread=True, group="summaries", exclusive=True, exit_on_error=False)

    def hush_summaries(self) -> None:
        self.idle_summaries.hush()

    def on_summaries_progress(self, event: SummariesProgress) -> None:
        self.models.summaries = event.label
        if self.main.closing.is_set() or not self.main.query("#status"):
            return  # the app is closing
        self.main.refresh_status()
        if event.done and event.written:
            self.notify(
                ngettext(
                    "Summary written for {n} lecture.",
                    "Summaries written for {n} lectures.",
                    event.written,
                ).format(n=event.written)
            )

    def on_chapters_progress(self, event: ChaptersProgress) -> None:
        done = event.done >= event.total
        self.models.chapters = (
            "" if done else _("chapters: {done}/{total}").format(done=event.done, total=event.total)
        )
        self.main.refresh_status()
        if done and event.gained:
            self.notify(
                ngettext(
                    "Chapters read for {n} older lecture.",
                    "Chapters read for {n} older lectures.",
                    event.gained,
                ).format(n=event.gained)
            )

    def on_models_changed(self, event: ModelsChanged) -> None:
        self.main.refresh_status()
        if event.loaded:  # the sentences' vectors and the re-ranking vectors follow
            self.main.warm_sentences()
            self.write_rerank_vectors()

    def on_rerank_progress(self, event: RerankProgress) -> None:
        self.models.rerank = self._rerank_label(event.pending, event.total)
        self.main.refresh_status()
        if isinstance(self.screen, LibraryScreen):
            self.screen.refresh_table()

    # -- failures: one handler for every worker ----------------------------------------------
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker_failed(self, event)

    def on_work_failed(self, event: WorkFailed) -> None:
        log.error("%s failed:\n%s", event.task, event.trace)
        task = _(TASKS[event.task]) if event.task in TASKS else event.task
        self.notify(
            event.text, title=_("{task}: failed").format(task=task), severity="error", timeout=10
        )
        if event.task == "load":
            self.main.refresh_status()
            self.main.show_answer_text(event.text)
        else:
            self.main.refresh_status(f"⚠ {event.message}")

    # -- screens ------------------------------------------------------------------------------------
    def action_focus_question(self) -> None:
        """From any screen: back to the main one, ready to type a question."""
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.main.focus_question()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def summarise(self, lecture_id: str) -> None:
        """From any screen: back to the main one, which asks for the lecture's summary."""
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.main.ask_summary(lecture_id)

    def action_evaluations(self) -> None:
        self.push_screen(EvalRunsScreen(self.services.runs.list()))

    def action_library(self) -> None:
        if not isinstance(self.screen, LibraryScreen):
            self.push_screen(LibraryScreen())

    def action_bookmarks(self) -> None:
        self.push_screen(BookmarksScreen())

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from translated_commands(super().get_system_commands(screen))
        main = self.main
        yield SystemCommand(
            _("Ask a question"), _("Focus the question box (/)"), self.action_focus_question
        )
        yield SystemCommand(
            _("Library"), _("Lectures, models, device; ingest transcripts (l)"), self.action_library
        )
        yield SystemCommand(
            _("Evaluations"),
            _("Evaluation runs: read and label records C/P/I (e)"),
            self.action_evaluations,
        )
        yield SystemCommand(
            _("Bookmarks"), _("Bookmarked moments; export them (B)"), self.action_bookmarks
        )
        yield SystemCommand(_("Keys"), _("Every key (?)"), self.action_help)
        if screen is not main:
            return
        yield SystemCommand(
            _("Scope"),
            _("Ask within the whole library, one course or one lecture (s)"),
            main.action_scope,
        )
        yield SystemCommand(
            _("History"), _("Questions asked in this library (h)"), main.action_history
        )
        yield SystemCommand(
            _("Search mode"),
            _("Cycle hybrid / dense (E5) / lexical (BM25) (m)"),
            main.action_cycle_mode,
        )
        yield SystemCommand(_("Stop the answer"), _("Stop generating (Esc)"), main.action_stop)
        yield SystemCommand(
            _("New thread"), _("The next question is not a follow-up (n)"), main.action_new_thread
        )
        yield SystemCommand(
            _("Time budget"),
            _("Time to the answer's first token: 8/15/30 s, none, 4 s (t)"),
            main.action_cycle_ttft,
        )
        yield SystemCommand(
            _("Lecturer's guess"),
            _("Search with the answer model's guess at the lecture's words, or without (g)"),
            main.action_toggle_guess,
        )
        yield SystemCommand(
            _("Open the video"),
            _("The selected segment's lecture at its time (o)"),
            main.action_open,
        )
        yield SystemCommand(
            _("Copy the link"), _("The selected segment's link (y)"), main.action_copy
        )
        yield SystemCommand(
            _("Bookmark"), _("The selected segment, with a note (b)"), main.action_bookmark
        )
        yield SystemCommand(
            _("Export the answer"), _("Markdown, Anki and CSV (x)"), main.action_export
        )
