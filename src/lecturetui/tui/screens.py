"""Secondary screens: a segment with its neighbours, the library, the history, help."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Input, Markdown, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, get_current_worker

from lecturetui.core.conversation import HistoryEntry
from lecturetui.core.i18n import N_, _, ngettext
from lecturetui.core.ingest.media import Cancelled
from lecturetui.core.lectures import Lecture, StoredSegment
from lecturetui.core.models.doctor import diagnose, where_line
from lecturetui.core.models.embedders import reranker
from lecturetui.core.models.placement import runtime_of
from lecturetui.core.timefmt import format_timestamp
from lecturetui.tui.context import context, worker_failed
from lecturetui.tui.i18n import Translated
from lecturetui.tui.lecturedialogs import (
    ConfirmScreen,
    EditLectureScreen,
    LectureEdit,
    PackPathScreen,
)
from lecturetui.tui.messages import Diagnosed, IngestLog, IngestProgress, LibraryChanged, WorkFailed
from lecturetui.tui.outlinescreen import OutlineScreen
from lecturetui.tui.render import hit_legend
from lecturetui.tui.segmentscreen import SegmentScreen

#: an ingested file's status, as the library screen names it
STATUS = {
    "added": N_("added"),
    "updated": N_("updated"),
    "unchanged": N_("unchanged"),
    "duplicate": N_("duplicate"),
    "failed": N_("failed"),
    "skipped": N_("skipped"),
}


#: every key, with what it does (the help screen; the footer shows the main ones)
KEYS = (
    (
        "`/`",
        N_(
            'type a question (Enter asks; a new question cancels the one in flight); a short one ("why?", "give an example") follows up the last'
        ),
    ),
    ("`↑` `↓` `j` `k`", N_("move through the segments")),
    (
        "`Enter`",
        N_(
            "open the segment with its neighbours; on the first screen, reopen a question or ask an example"
        ),
    ),
    ("`1`…`9`", N_("jump to the segment of citation [n]")),
    ("`o`", N_("open the lecture at that time (browser, or mpv/vlc for a local video)")),
    ("`y`", N_("copy the link")),
    ("`b`", N_("bookmark the segment, with a note (main and segment screens)")),
    (
        "`B`",
        N_(
            "bookmarks: by course and lecture; Enter opens one, `e` edits its note, `d` deletes, `x` exports"
        ),
    ),
    ("`x`", N_("export the answer on screen (Markdown, Anki, CSV) to `./lecturetui-export/`")),
    (
        "`c`",
        N_(
            "course map: where the question comes up across the lectures; `←` `→` move from hit to hit, Enter opens one"
        ),
    ),
    ("`Esc`", N_("stop the answer / go back")),
    ("`[` `]`", N_("previous / next segment (segment screen)")),
    (
        "`{` `}`",
        N_("previous / next chapter, for a lecture with its video's chapters (segment screen)"),
    ),
    (
        "`O`",
        N_(
            "the lecture's outline: its chapters (or its segments by time); Enter opens one (segment screen; Enter on a lecture in the library)"
        ),
    ),
    (
        "`S`",
        N_(
            "the lecture's summary, part by part: the lecturer's words for each part, what it explains, then the gist (library, outline and segment screens; or ask \"summarise lecture 3\")"
        ),
    ),
    (
        "`l`",
        N_(
            "library: lectures, models, device; `i` adds lectures, `d` deletes one, `e` edits its title, course and link"
        ),
    ),
    (
        "`p`",
        N_(
            "in the library: import a course pack (a class's library made once, shared as one file)"
        ),
    ),
    ("`h`", N_("history of questions")),
    ("`m`", N_("search mode: hybrid (E5 + BM25), meaning (E5), words (BM25)")),
    ("`n`", N_("new thread: the next question is not taken as a follow-up")),
    ("`t`", N_("time to the answer's first words: 8 s, 15 s, 30 s, no limit, 4 s")),
    (
        "`g`",
        N_(
            "search with the lecturer's guess (finds more questions asked in your own words) or without"
        ),
    ),
    ("`e`", N_("evaluation runs: read records, label them `c` / `p` / `i`")),
    ("`?`", N_("this help")),
    ("`Ctrl+P`", N_("command palette")),
    ("`q`", N_("quit")),
)


def help_markdown() -> str:
    """The keys, then what the figures on screen mean, in the app's language."""

    rows = "\n".join(f"| {keys} | {_(does)} |" for keys, does in KEYS)
    figures = [
        hit_legend(long=True),
        _("first words ≤ 8 s: the time budget to the answer's first words (t changes it)"),
        _(
            "search 0.4 s · first words 4.5 s · 15 words/s: how long the search took, how long the"
            " first words of the explanation took, how fast it was written"
        ),
        _(
            "re-ranking vectors: 12/26: EmbeddingGemma's vectors being written for new lectures"
            " (search works meanwhile)"
        ),
    ]
    legend = "\n".join(f"- {line}" for line in figures)
    head = "| " + _("key") + " | " + _("does") + " |\n|---|---|\n"
    return f"{head}{rows}\n\n**" + _("What the figures mean") + f"**\n\n{legend}\n"


class HelpScreen(Translated, ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss", N_("Close"))]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Markdown(help_markdown())


class HistoryScreen(Translated, Screen[int | None]):
    """Questions by thread, newest thread first; a follow-up is indented under its thread."""

    BINDINGS = [Binding("escape", "dismiss_none", N_("Back"))]

    def __init__(self, entries: list[HistoryEntry]) -> None:
        super().__init__()
        self.entries = entries

    def compose(self) -> ComposeResult:
        options = []
        for e in self.entries:
            first = e.entry_id == e.thread_id
            mark = "" if first else ("  ↳ " if e.follow_up else "  · ")
            when = e.asked_at[:16].replace("T", " ")
            options.append(
                Option(
                    Text.assemble((when, "dim"), "  ", (mark, "magenta"), e.question),
                    id=str(e.entry_id),
                )
            )
        yield OptionList(*options, id="history")
        yield Footer()

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(event.option.id or 0))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


#: the lecture table's columns (Lecture.table_row's order)
COLUMNS = (N_("id"), N_("title"), N_("course"), N_("language"), N_("duration"), N_("segments"))


class LibraryScreen(Translated, Screen[None]):
    """Lectures, models and device; add a file or folder, with progress while it runs."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", N_("Back")),
        Binding("i", "focus_ingest", N_("Add lectures")),
        Binding("d", "delete_lecture", N_("Delete")),
        Binding("e", "edit_lecture", N_("Edit")),
        Binding("O", "outline", N_("Outline"), key_display="O"),
        Binding("S", "summary", N_("Summary"), key_display="S"),
        Binding("p", "import_pack", N_("Import a pack")),
    ]

    ingesting: Path | None = None
    packing = False  # what runs is a course pack's import

    def compose(self) -> ComposeResult:
        yield Static(id="library-info")
        yield Static(id="doctor")
        yield DataTable(id="lectures", cursor_type="row", zebra_stripes=True)
        with Horizontal(id="ingest-row"):
            yield Input(
                placeholder=_("Add a file or folder: type its path and press Enter"),
                id="ingest-path",
            )
        with Horizontal(id="ingest-running"):
            yield Static(id="ingest-what")
            yield ProgressBar(id="ingest-progress", show_eta=False)
        yield Static(id="ingest-log")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*(_(c) for c in COLUMNS))
        self.query_one("#ingest-running").display = False  # shown while lectures are added
        self.refresh_table()
        self.diagnose()

    @work(thread=True, exclusive=True, group="doctor", exit_on_error=False)
    def diagnose(self) -> None:
        """What `lecturetui doctor` says, for the models this app has loaded."""

        ctx = context(self)
        models = ctx.models
        ready = models.ready.is_set() and models.error is None
        embedder = ctx.services.library.embedder if ready else None
        placement = ctx.services.library.placement
        report = diagnose(embedder, models.generator, placement)
        stage = ctx.services.library.rerank_stage() if ready else None
        if stage is not None and stage.loaded:
            second = stage.embedder
            rerank = f" · {reranker().name}: {second.device} ({runtime_of(second)})"
        else:
            rerank = ""
        gpu = report.gpus[0] if report.gpus else None
        lines = [
            _("GPU: {name}, {free} of {total} MiB free").format(
                name=gpu.name, free=f"{gpu.free_mib:,}", total=f"{gpu.total_mib:,}"
            )
            if gpu
            else _("GPU: none"),
            _("E5: {device}").format(device=report.embedder_device)
            + rerank
            + " · "
            + _("answers: {device}").format(device=report.llm_device)
            + (f" · llama.cpp {report.llama.backend}" if report.llama else ""),
            # where this app runs each model, and why (the other workload's rows are doctor's)
            *[where_line(w) for w in report.where if w.workload in ("", placement.workload)],
            *[f"! {p}" for p in report.problems],
        ]
        self.post_message(Diagnosed("\n".join(lines)))

    def on_diagnosed(self, message: Diagnosed) -> None:
        self.query_one("#doctor", Static).update(Text(message.text, style="dim"))

    def refresh_table(self) -> None:
        ctx = context(self)
        lectures = ctx.services.library.lectures()
        table = self.query_one(DataTable)
        table.clear()
        for x in lectures:
            table.add_row(*x.table_row(), key=x.id)
        self.query_one("#library-info", Static).update(ctx.models_line())

    def selected(self) -> Lecture | None:
        """The lecture under the table's cursor (None when the library is empty)."""
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return context(self).services.library.lecture(str(key)) if key else None

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_outline()

    def action_outline(self) -> None:
        """The selected lecture's outline (tui/outlinescreen.py)."""

        lecture = self.selected()
        if lecture is not None:
            self.app.push_screen(OutlineScreen(lecture.id), self._open_segment)

    def action_summary(self) -> None:
        """The selected lecture's summary, part by part, on the main screen."""
        lecture = self.selected()
        if lecture is not None:
            context(self).summarise(lecture.id)

    def _open_segment(self, segment: StoredSegment | None) -> None:
        if segment is not None:
            self.app.push_screen(SegmentScreen(segment))

    def action_delete_lecture(self) -> None:
        lec = self.selected()
        if lec is None:
            return

        def answer(yes: bool | None) -> None:
            if yes:
                self.delete_lecture(lec)

        question = ngettext(
            "Delete {title} ({id}, {n} segment)?",
            "Delete {title} ({id}, {n} segments)?",
            lec.segment_count,
        ).format(title=lec.title, id=lec.id, n=lec.segment_count)
        self.app.push_screen(ConfirmScreen(question), answer)

    @work(thread=True, exclusive=True, group="ingest", exit_on_error=False)
    def delete_lecture(self, lec: Lecture) -> None:
        removed = context(self).services.library.remove_lecture(lec.id)
        note = ngettext(
            "Deleted {title} ({n} segment).", "Deleted {title} ({n} segments).", removed
        )
        self.post_message(LibraryChanged(note.format(title=lec.title, n=removed)))

    def on_library_changed(self, message: LibraryChanged) -> None:
        self.refresh_table()
        if message.note:
            self.notify(message.note)

    def action_edit_lecture(self) -> None:
        lec = self.selected()
        if lec is None:
            return

        def save(edit: LectureEdit | None) -> None:
            if edit is not None:
                library = context(self).services.library
                library.update_lecture(lec.id, edit.title, edit.course, edit.url)
                self.refresh_table()
                self.notify(_("Saved {title}.").format(title=edit.title))

        self.app.push_screen(EditLectureScreen(lec), save)

    def action_focus_ingest(self) -> None:
        self.query_one("#ingest-path", Input).focus()

    @on(Input.Submitted, "#ingest-path")
    def start_ingest(self, event: Input.Submitted) -> None:
        path = Path(event.value.strip()).expanduser()
        if event.value.strip():
            self.ingest(path)

    @work(thread=True, exclusive=True, group="ingest", exit_on_error=False)
    def ingest(self, path: Path) -> None:
        def on_file(done: int, total: int, name: str) -> None:
            self.post_message(IngestProgress(done, max(total, 1), name))

        worker = get_current_worker()

        def on_audio(done_s: float, total_s: float) -> None:
            line = _("transcribing {name}: {done} / {total}").format(
                name=path.name, done=format_timestamp(done_s), total=format_timestamp(total_s)
            )
            self.post_message(IngestLog(line))

        self.ingesting, self.packing = path, False
        self.post_message(IngestProgress(0, 1, path.name))
        try:
            report = context(self).services.library.ingest(
                [path],
                progress=on_file,
                audio_progress=on_audio,
                cancel=lambda: worker.is_cancelled,
            )
        except Cancelled:
            return  # the screen was left: nothing of the file in progress was stored
        lines = []
        for r in report.results:
            status = _(STATUS.get(r.status, r.status))
            if r.failed:
                lines.append(f"{status:9} {r.path.name}: {r.message}")
            elif r.segments:
                n = ngettext("{n} segment", "{n} segments", r.segments).format(n=r.segments)
                lines.append(f"{status:9} {r.path.name} ({n})")
            else:
                lines.append(f"{status:9} {r.path.name}")
            if r.status in ("added", "updated"):  # what was repaired or skipped, as the CLI says
                lines += ["          " + _("note: {note}").format(note=note) for note in r.notes]
        self.post_message(IngestLog("\n".join(lines), done=True))

    def action_import_pack(self) -> None:
        def chosen(path: str | None) -> None:
            if path:
                self.import_pack(Path(path).expanduser())

        self.app.push_screen(PackPathScreen(), chosen)

    @work(thread=True, exclusive=True, group="ingest", exit_on_error=False)
    def import_pack(self, path: Path) -> None:
        """A course pack merged into the library (core/pack/importer.py), with progress; a
        refused pack is one sentence in place (on_work_failed), the library unchanged."""
        from lecturetui.core.pack import importer  # lazy: 14 ms at the app's start

        def on_progress(_stage: str, done: int, total: int) -> None:
            self.post_message(IngestProgress(done, max(total, 1), path.name))

        self.ingesting, self.packing = path, True
        self.post_message(IngestProgress(0, 1, path.name))
        result = importer.import_pack(context(self).services.library, path, on_progress)
        lines = []
        for lec in result.lectures:
            note = f": {lec.note}" if lec.note else ""
            lines.append(f"{_(STATUS.get(lec.status, lec.status)):9} {lec.id}{note}")
        said = {lec.note for lec in result.lectures}
        lines += [_("note: {note}").format(note=n) for n in result.notes if n not in said]
        self.post_message(IngestLog("\n".join(lines), done=True))

    def on_ingest_progress(self, message: IngestProgress) -> None:
        self.query_one("#ingest-running").display = True
        label = (
            _("importing {name}: step {done} of {total}")
            if self.packing
            else _("adding {name}: {done}/{total} files")
        )
        what = label.format(name=message.name, done=message.done, total=message.total)
        self.query_one("#ingest-what", Static).update(what)
        self.query_one(ProgressBar).update(total=message.total, progress=message.done)

    def on_ingest_log(self, message: IngestLog) -> None:
        # plain text: a file name or message is never read as markup
        self.query_one("#ingest-log", Static).update(Text(message.text))
        if message.done:
            self.query_one("#ingest-running").display = False
            self.refresh_table()
            context(self).write_rerank_vectors()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker_failed(self, event)

    def on_work_failed(self, event: WorkFailed) -> None:
        """Shown in place too (the app also shows it and logs the traceback)."""
        if event.task == "ingest":
            name = self.ingesting.name if self.ingesting else ""
            self.query_one("#ingest-running").display = False
            failed = _("failed")
            text = Text(f"{failed:9} {name}: {event.message}")
            if event.hint:
                text.append(f"\n          {event.hint}")
            self.query_one("#ingest-log", Static).update(text)
        elif event.task == "doctor":
            self.query_one("#doctor", Static).update(
                Text(_("devices: {message}").format(message=event.message), style="dim")
            )
