"""A lecture at a glance: its outline, the video's chapters (time, title, length), or, for a
lecture without chapters, its segments by time; Enter gives the moment back to the screen that
opened it, which shows it in the segment screen."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from lecturetui.core.i18n import N_, _, ngettext
from lecturetui.core.lectures import StoredSegment
from lecturetui.core.links import deep_link
from lecturetui.core.study.outline import records
from lecturetui.core.timefmt import format_duration, format_timestamp
from lecturetui.tui.context import context, copy_link, open_link
from lecturetui.tui.i18n import Translated

#: the words of a segment shown for a lecture without chapters
PREVIEW_CHARS = 90


class OutlineScreen(Translated, Screen[StoredSegment]):
    """One lecture's outline; the chapter (or segment) at `at` is highlighted; Enter closes it
    with the segment where the chosen one begins."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", N_("Back")),
        Binding("o", "open", N_("Open video")),
        Binding("y", "copy", N_("Copy link")),
        Binding("S", "summary", N_("Summary"), key_display="S"),
    ]

    def __init__(self, lecture_id: str, at: float | None = None) -> None:
        super().__init__()
        self.lecture_id = lecture_id
        self.at = at
        self.starts: list[float] = []  # each line's time, in the list's order

    def compose(self) -> ComposeResult:
        yield Static(id="outline-title")
        yield OptionList(id="outline")
        yield Footer()

    def on_mount(self) -> None:
        library = context(self).services.library
        lecture = library.lecture(self.lecture_id)
        title = Text(lecture.title if lecture else self.lecture_id, style="bold")
        if lecture is None:  # deleted meanwhile
            self.query_one("#outline-title", Static).update(title)
            return
        title.append(f"  {format_duration(lecture.duration)}", style="magenta")
        chapters = records(lecture, library.chapters(lecture.id))
        options: list[Option] = []
        if chapters:
            count = ngettext("{n} chapter", "{n} chapters", len(chapters)).format(n=len(chapters))
            title.append(f"  {count}", style="dim")
            for c in chapters:
                line = Text.assemble((format_timestamp(c.start_s), "cyan"), "  ", c.title)
                line.append(f"  {format_duration(c.end_s - c.start_s)}", style="dim")
                options.append(Option(line))
                self.starts.append(c.start_s)
        else:
            title.append(
                "  " + _("no chapters: the video's author wrote none; its segments by time"),
                style="dim",
            )
            for seg in library.segments(lecture.id):
                words = " ".join(seg.text.split())
                if len(words) > PREVIEW_CHARS:
                    words = words[:PREVIEW_CHARS].rsplit(" ", 1)[0] + "…"
                line = Text.assemble((format_timestamp(seg.start), "cyan"), "  ", (words, "dim"))
                options.append(Option(line))
                self.starts.append(seg.start)
        self.query_one("#outline-title", Static).update(title)
        outline = self.query_one("#outline", OptionList)
        outline.add_options(options)
        if self.starts:
            at = self.at if self.at is not None else 0.0
            outline.highlighted = max(
                (i for i, start in enumerate(self.starts) if start <= at + 0.5), default=0
            )
        outline.focus()

    def _start(self) -> float | None:
        i = self.query_one("#outline", OptionList).highlighted
        return self.starts[i] if i is not None and 0 <= i < len(self.starts) else None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        start = self.starts[event.option_index]
        segment = context(self).services.library.segment_at(self.lecture_id, start)
        if segment is not None:
            self.dismiss(segment)

    def _url(self) -> str | None:
        lecture = context(self).services.library.lecture(self.lecture_id)
        start = self._start()
        return deep_link(lecture.source_url if lecture else None, start or 0.0)

    def action_open(self) -> None:
        open_link(self.app, self._url())

    def action_copy(self) -> None:
        copy_link(self.app, self._url())

    def action_summary(self) -> None:
        """This lecture's summary, part by part, on the main screen."""
        context(self).summarise(self.lecture_id)
