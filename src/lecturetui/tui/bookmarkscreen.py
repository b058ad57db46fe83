"""The bookmarks screen (B): bookmarked moments by course and lecture, their notes, exports."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from lecturetui.core.i18n import N_, _, ngettext
from lecturetui.core.study.bookmarks import Bookmark
from lecturetui.core.study.export import export_bookmarks
from lecturetui.tui.context import context, copy_link, open_link
from lecturetui.tui.i18n import Translated
from lecturetui.tui.notes import NoteScreen, export_to, run_safely
from lecturetui.tui.segmentscreen import SegmentScreen
from lecturetui.tui.widgets import move_highlight


class BookmarksScreen(Translated, Screen[None]):
    """The bookmarks by course and lecture with their times; Enter opens the segment."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", N_("Back")),
        Binding("o", "open", N_("Open video")),
        Binding("y", "copy", N_("Copy link")),
        Binding("e", "edit", N_("Edit note")),
        Binding("d", "delete", N_("Delete")),
        Binding("x", "export", N_("Export")),
        Binding("j", "move(1)", N_("Down"), show=False),
        Binding("k", "move(-1)", N_("Up"), show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.marks: list[Bookmark] = []

    def compose(self) -> ComposeResult:
        yield Static(id="bookmarks-title")
        with Horizontal():
            yield OptionList(id="bookmarks")
            with VerticalScroll(id="bookmark-box"):
                yield Static(id="bookmark")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_list()
        self.query_one("#bookmarks", OptionList).focus()

    def refresh_list(self, keep: int | None = None) -> None:
        self.marks = context(self).services.library.bookmarks().all()
        options = self.query_one("#bookmarks", OptionList)
        options.clear_options()
        heading = None
        for mark in self.marks:
            m = mark.moment
            group = f"{m.course or '—'} · {m.lecture_title}" + (
                " " + _("(lecture removed)") if mark.orphaned else ""
            )
            if group != heading:
                heading = group
                options.add_option(Option(Text(group, style="bold"), disabled=True))
            row = Text(f"  {m.span}", style="cyan")
            row.append(f"  {mark.note or mark.quote[:60]}", style="" if mark.note else "dim")
            options.add_option(Option(row, id=str(mark.id)))
        n = len(self.marks)
        self.query_one("#bookmarks-title", Static).update(
            ngettext("{n} bookmark", "{n} bookmarks", n).format(n=n)
            + " · "
            + _("Enter opens · e note · d delete · x export")
        )
        ids = [o.id for o in options.options]
        wanted = str(keep) if keep is not None else next((i for i in ids if i), None)
        if wanted in ids:
            options.highlighted = ids.index(wanted)
        self.show_mark(self.current())

    def current(self) -> Bookmark | None:
        options = self.query_one("#bookmarks", OptionList)
        if options.highlighted is None:
            return None
        option_id = options.get_option_at_index(options.highlighted).id
        return next((b for b in self.marks if str(b.id) == option_id), None)

    @on(OptionList.OptionHighlighted, "#bookmarks")
    def highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.show_mark(self.current())

    def show_mark(self, mark: Bookmark | None) -> None:
        text = Text()
        if mark is not None:
            text.append(f"{mark.moment.lecture_title}  {mark.moment.span}\n\n", style="bold")
            if mark.note:
                text.append(f"{mark.note}\n\n", style="bold yellow")
            text.append(mark.quote)
            if mark.question:
                text.append(f"\n\n↳ {mark.question}", style="dim")
        self.query_one("#bookmark", Static).update(text)

    @on(OptionList.OptionSelected, "#bookmarks")
    def open_segment(self, event: OptionList.OptionSelected) -> None:
        mark = self.current()
        if mark is None:
            return
        library = context(self).services.library
        segment = library.segment(mark.segment_id) if mark.segment_id is not None else None
        if segment is None:
            self.notify(_("Its lecture is no longer in the library."), severity="warning")
            return
        self.app.push_screen(SegmentScreen(segment))

    def action_move(self, step: int) -> None:
        move_highlight(self.query_one("#bookmarks", OptionList), step)

    def action_open(self) -> None:
        mark = self.current()
        open_link(self.app, mark.moment.url if mark else None)

    def action_copy(self) -> None:
        mark = self.current()
        copy_link(self.app, mark.moment.url if mark else None)

    def action_edit(self) -> None:
        mark = self.current()
        if mark is None:
            return

        def save(note: str | None) -> None:
            if note is not None:
                bookmarks = context(self).services.library.bookmarks()
                run_safely(
                    self.app,
                    lambda: _("Note saved: {span}").format(
                        span=bookmarks.set_note(mark.id, note).moment.span
                    ),
                )
                self.refresh_list(keep=mark.id)

        self.app.push_screen(NoteScreen(mark.moment.span, mark.note), save)

    def action_delete(self) -> None:
        mark = self.current()
        if mark is not None:
            bookmarks = context(self).services.library.bookmarks()
            run_safely(
                self.app,
                lambda: _("Bookmark deleted: {span}").format(
                    span=bookmarks.delete(mark.id).moment.span
                ),
            )
            self.refresh_list()

    def action_export(self) -> None:
        folder = context(self).services.export_dir
        library = context(self).services.library
        chapters = library.chapters_by_lecture(m.moment.lecture_id for m in self.marks)
        export_to(
            self.app,
            folder,
            "bookmarks",
            lambda to: export_bookmarks(self.marks, to, chapters=chapters),
        )
