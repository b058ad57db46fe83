"""Secondary screens: a segment with its neighbours, the library, the history, help."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Input, Markdown, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, get_current_worker

from lecturetui.core.conversation import HistoryEntry
from lecturetui.core.lectures import Lecture, StoredSegment
from lecturetui.core.links import deep_link
from lecturetui.core.timefmt import format_duration, format_span, format_timestamp
from lecturetui.tui.context import WorkFailed, context, copy_link, open_link, worker_failed
from lecturetui.tui.render import highlighted, timeline


class Diagnosed(Message):
    """What `lecturetui doctor` says, for the library screen."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class LibraryChanged(Message):
    """Lectures were removed (or added): the table is drawn again, `note` said."""

    def __init__(self, note: str = "") -> None:
        super().__init__()
        self.note = note


class IngestProgress(Message):
    """Files done of the ingest in progress; a burst is coalesced into the newest."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__()
        self.done, self.total = done, total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IngestProgress)


class IngestLog(Message):
    """The ingest's log line (a transcription's progress), or its report when `done`."""

    def __init__(self, text: str, done: bool = False) -> None:
        super().__init__()
        self.text, self.done = text, done

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IngestLog) and not self.done


HELP = """\
| key | does |
|---|---|
| `/` | type a question (Enter asks; a new question cancels the one in flight); a short one ("e por quê?", "give an example") follows up the last |
| `↑` `↓` `j` `k` | move through the segments |
| `Enter` | open the segment with its neighbours |
| `1`…`9` | jump to the segment of citation [n] |
| `o` | open the lecture at that time (browser, or mpv/vlc for a local video) |
| `y` | copy the link |
| `b` | bookmark the segment, with a note (main and segment screens) |
| `B` | bookmarks: by course and lecture; Enter opens one, `e` edits its note, `d` deletes, `x` exports |
| `x` | export the answer on screen (Markdown, Anki, CSV) to `./lecturetui-export/` |
| `Esc` | stop the answer / go back |
| `[` `]` | previous / next segment (segment screen) |
| `l` | library: lectures, models, device; `i` ingest, `d` delete a lecture, `e` edit its title, course and link |
| `h` | history of questions |
| `m` | search mode: hybrid (E5 + BM25), dense (E5), lexical (BM25) |
| `n` | new thread: the next question is not taken as a follow-up |
| `t` | time to the answer's first token: 8 s, 15 s, 30 s, no limit, 4 s |
| `g` | search with the lecturer's guess (finds more questions asked in your own words) or without |
| `e` | evaluation runs: read records, label them `c` / `p` / `i` |
| `?` | this help |
| `Ctrl+P` | command palette |
| `q` | quit |
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Markdown(HELP)


class SegmentScreen(Screen[None]):
    """One segment, its neighbours dimmed around it, its place in the lecture."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("left_square_bracket,p", "move(-1)", "Previous"),
        Binding("right_square_bracket,n", "move(1)", "Next"),
        Binding("o", "open", "Open video"),
        Binding("y", "copy", "Copy link"),
        Binding("b", "bookmark", "Bookmark"),
    ]

    def __init__(
        self,
        segment: StoredSegment,
        score: float | None = None,
        match: tuple[int, int] | None = None,
        evidence: list[str] | None = None,
    ) -> None:
        super().__init__()
        self.segment = segment
        self.score = score
        self.match = match  # offsets of the unit that matched the question, in segment.text
        self.evidence = evidence or []  # sentences to highlight where the segment holds them

    def compose(self) -> ComposeResult:
        yield Static(id="segment-title")
        yield Static(id="timeline")
        with VerticalScroll(id="segment-body"):
            yield Static(id="segment-text")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_segment()

    def refresh_segment(self) -> None:
        library = context(self).services.library
        lecture = library.lecture(self.segment.lecture_id)
        around = library.neighbours(self.segment)
        title = Text()
        title.append(lecture.title if lecture else self.segment.lecture_id, style="bold")
        title.append(
            f"  {format_span(self.segment.start, self.segment.end)}",
            style="cyan",
        )
        if self.score is not None:
            title.append(f"  {self.score:.3f}", style="green")
        if self.segment.corpus_id is not None:
            title.append(f"  #{self.segment.corpus_id}", style="dim")
        self.query_one("#segment-title", Static).update(title)
        duration = lecture.duration if lecture else self.segment.end
        bar = timeline(self.segment.start, self.segment.end, duration)
        self.query_one("#timeline", Static).update(
            Text(f"{bar} {format_duration(duration)}", style="magenta")
        )
        body = Text()
        for seg in around:
            current = seg.id == self.segment.id
            body.append(
                f"{format_span(seg.start, seg.end)}\n",
                style="cyan" if current else "dim cyan",
            )
            if current:
                body.append_text(highlighted(seg.text, self.match, self.evidence))
                body.append("\n\n")
            else:
                body.append(seg.text + "\n\n", style="dim")
        self.query_one("#segment-text", Static).update(body)

    def action_move(self, step: int) -> None:
        around = context(self).services.library.neighbours(self.segment)
        ids = [s.id for s in around]
        i = ids.index(self.segment.id) + step
        if 0 <= i < len(around):
            self.segment = around[i]
            self.score = None
            self.refresh_segment()

    def _url(self) -> str | None:
        lecture = context(self).services.library.lecture(self.segment.lecture_id)
        return deep_link(lecture.source_url if lecture else None, self.segment.start)

    def action_open(self) -> None:
        open_link(self.app, self._url(), context(self).labels)

    def action_copy(self) -> None:
        copy_link(self.app, self._url(), context(self).labels)

    def action_bookmark(self) -> None:
        from lecturetui.tui.notes import bookmark_segment

        span = format_span(self.segment.start, self.segment.end)
        bookmark_segment(self, self.segment.id, span, None)


class HistoryScreen(Screen[int | None]):
    """Questions by thread, newest thread first; a follow-up is indented under its thread."""

    BINDINGS = [Binding("escape", "dismiss_none", "Back")]

    def __init__(self, entries: list[HistoryEntry]) -> None:
        super().__init__()
        self.entries = entries

    def compose(self) -> ComposeResult:
        options = []
        for e in self.entries:
            first = e.entry_id == e.thread_id
            mark = "" if first else ("  ↳ " if e.follow_up else "  · ")
            when = e.asked_at[:16].replace("T", " ")
            options.append(Option(Text.assemble((when, "dim"), "  ", (mark, "magenta"),
                                                 e.question), id=str(e.entry_id)))  # fmt: skip
        yield OptionList(*options, id="history")
        yield Footer()

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(event.option.id or 0))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


class LibraryScreen(Screen[None]):
    """Lectures, models and device; ingest a file or folder with a progress bar."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("i", "focus_ingest", "Ingest"),
        Binding("d", "delete_lecture", "Delete"),
        Binding("e", "edit_lecture", "Edit"),
    ]

    ingesting: Path | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="library-info")
        yield Static(id="doctor")
        yield DataTable(id="lectures", cursor_type="row", zebra_stripes=True)
        with Horizontal(id="ingest-row"):
            yield Input(placeholder=self.lt_labels["ingest"], id="ingest-path")
        yield ProgressBar(id="ingest-progress", show_eta=False)
        yield Static(id="ingest-log")
        yield Footer()

    @property
    def lt_labels(self) -> dict[str, str]:
        return context(self).labels

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*Lecture.TABLE_COLUMNS)
        self.refresh_table()
        self.diagnose()

    @work(thread=True, exclusive=True, group="doctor", exit_on_error=False)
    def diagnose(self) -> None:
        """What `lecturetui doctor` says, for the models this app has loaded."""
        from lecturetui.core.models.hardware import diagnose

        ctx = context(self)
        models = ctx.models
        ready = models.ready.is_set() and models.error is None
        embedder = ctx.services.library.embedder if ready else None
        report = diagnose(embedder, models.generator)
        stage = ctx.services.library.rerank_stage() if ready else None
        if stage is not None and stage.loaded:
            from lecturetui.core.models.runtime import runtime_of

            gemma = stage.embedder
            rerank = f" · EmbeddingGemma: {gemma.device} ({runtime_of(gemma)})"
        else:
            rerank = ""
        gpu = report.gpus[0] if report.gpus else None
        lines = [
            f"GPU: {gpu.name}, {gpu.free_mib:,} of {gpu.total_mib:,} MiB free"
            if gpu
            else "GPU: none",
            f"E5: {report.embedder_device}{rerank} · answers: {report.llm_device}"
            + (f" · llama.cpp {report.llama.backend}" if report.llama else ""),
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
        return context(self).services.library.store.lecture(str(key)) if key else None

    def action_delete_lecture(self) -> None:
        from lecturetui.tui.lecturedialogs import ConfirmScreen

        lec = self.selected()
        if lec is None:
            return

        def answer(yes: bool | None) -> None:
            if yes:
                self.delete_lecture(lec)

        question = f"Delete {lec.title} ({lec.id}, {lec.segment_count} segments)?"
        self.app.push_screen(ConfirmScreen(question), answer)

    @work(thread=True, exclusive=True, group="ingest", exit_on_error=False)
    def delete_lecture(self, lec: Lecture) -> None:
        removed = context(self).services.library.remove_lecture(lec.id)
        self.post_message(LibraryChanged(f"Deleted {lec.title} ({removed} segments)."))

    def on_library_changed(self, message: LibraryChanged) -> None:
        self.refresh_table()
        if message.note:
            self.notify(message.note)

    def action_edit_lecture(self) -> None:
        from lecturetui.tui.lecturedialogs import EditLectureScreen, LectureEdit

        lec = self.selected()
        if lec is None:
            return

        def save(edit: LectureEdit | None) -> None:
            if edit is not None:
                store = context(self).services.library.store
                store.update_lecture(lec.id, edit.title, edit.course, edit.url)
                self.refresh_table()
                self.notify(f"Saved {edit.title}.")

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
        from lecturetui.core.ingest.media import Cancelled

        def on_file(done: int, total: int, name: str) -> None:
            self.post_message(IngestProgress(done, max(total, 1)))

        worker = get_current_worker()

        def on_audio(done_s: float, total_s: float) -> None:
            line = f"transcribing {path.name}: {format_timestamp(done_s)} / {format_timestamp(total_s)}"
            self.post_message(IngestLog(line))

        self.ingesting = path
        try:
            report = context(self).services.library.ingest(
                [path], progress=on_file, audio_progress=on_audio,
                cancel=lambda: worker.is_cancelled,
            )  # fmt: skip
        except Cancelled:
            return  # the screen was left: nothing of the file in progress was stored
        lines = []
        for r in report.results:
            lines.append(
                f"{r.status:9} {r.path.name}"
                + (
                    f": {r.message}"
                    if r.failed
                    else f" ({r.segments} segments)"
                    if r.segments
                    else ""
                )
            )
            if r.status in ("added", "updated"):  # what was repaired or skipped, as the CLI says
                lines += [f"          note: {note}" for note in r.notes]
        self.post_message(IngestLog("\n".join(lines), done=True))

    def on_ingest_progress(self, message: IngestProgress) -> None:
        self.query_one(ProgressBar).update(total=message.total, progress=message.done)

    def on_ingest_log(self, message: IngestLog) -> None:
        # plain text: a file name or message is never read as markup
        self.query_one("#ingest-log", Static).update(Text(message.text))
        if message.done:
            self.refresh_table()
            context(self).write_rerank_vectors()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker_failed(self, event)

    def on_work_failed(self, event: WorkFailed) -> None:
        """Shown in place too (the app also shows it and logs the traceback)."""
        if event.task == "ingest":
            name = self.ingesting.name if self.ingesting else ""
            text = Text(f"failed    {name}: {event.message}")
            if event.hint:
                text.append(f"\n          {event.hint}")
            self.query_one("#ingest-log", Static).update(text)
        elif event.task == "doctor":
            self.query_one("#doctor", Static).update(Text(f"doctor: {event.message}", style="dim"))
