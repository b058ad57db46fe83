"""The course map of the question on screen: where it comes up across the lectures
(core/study/course_map.py), the hits numbered where they sit; keys move from hit to hit and
Enter opens one."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from lecturetui.core.i18n import N_, _
from lecturetui.core.records import HitRecord
from lecturetui.core.study.course_map import MARKS, MapRow, grid, heading, labels, legend
from lecturetui.core.summary.course import gist_line
from lecturetui.core.timefmt import format_span, format_timestamp
from lecturetui.tui.background import app_language
from lecturetui.tui.context import context
from lecturetui.tui.i18n import Translated
from lecturetui.tui.segmentscreen import SegmentScreen

#: columns of the time axis on screen
WIDTH = 72


class MapScreen(Translated, Screen[None]):
    """A row per lecture with a hit, time across, every window shaded by its closeness to the
    question; the highlighted hit is shown below the map, with what its lecture covers (its
    summary's gist, where it was written)."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", N_("Back")),
        Binding("right,j,n", "move(1)", N_("Next hit")),
        Binding("left,k,p", "move(-1)", N_("Previous hit")),
        Binding("enter", "open", N_("Open")),
    ]

    def __init__(self, question: str, rows: list[MapRow], hits: list[HitRecord]) -> None:
        super().__init__()
        self.question = question
        self.rows = rows
        self.hits = sorted(hits, key=lambda h: h.rank)
        self.current = 0
        self.gists: dict[str, str] = {}  # by lecture id, read once

    def compose(self) -> ComposeResult:
        yield Static(id="map-title")
        with VerticalScroll(id="map-body"):
            yield Static(id="map-grid")
        yield Static(id="map-hit")
        yield Static(id="map-gist")
        yield Footer()

    def on_mount(self) -> None:
        title = Text(heading(len(self.rows), len(self.hits)), style="bold")
        title.append("  ·  " + self.question, style="italic")
        self.query_one("#map-title", Static).update(title)
        self.draw()

    def draw(self) -> None:
        text = Text(legend(self.rows, WIDTH) + "\n\n", style="dim")
        chosen = self.hits[self.current] if self.hits else None
        mark = MARKS[chosen.rank - 1] if chosen and chosen.rank <= len(MARKS) else None
        for row, cells, label in zip(
            self.rows, grid(self.rows, WIDTH), labels(self.rows), strict=True
        ):
            text.append(label + "  ", style="bold")
            for ch in cells:
                if ch in MARKS:
                    here = chosen is not None and ch == mark and row.lecture.id == chosen.lecture
                    text.append(ch, style="bold reverse" if here else "bold")
                else:
                    text.append(ch, style="cyan")
            text.append(f"  {format_timestamp(row.lecture.duration)}\n", style="dim")
        self.query_one("#map-grid", Static).update(text)
        if chosen is not None:
            self.query_one("#map-hit", Static).update(
                Text.assemble(
                    (
                        f"{MARKS[chosen.rank - 1] if chosen.rank <= len(MARKS) else chosen.rank}  ",
                        "bold reverse",
                    ),
                    (chosen.lecture_title, "bold"),
                    "  ",
                    (format_span(chosen.start_s, chosen.end_s), "cyan"),
                    "  ",
                    (chosen.text[:160].replace("\n", " ") + "…", ""),
                )
            )
        self.show_gist(chosen.lecture if chosen is not None else None)

    def show_gist(self, lecture_id: str | None) -> None:
        """What the lecture covers, from its summary as the app's model wrote it in the app's
        language (the course's overview line: core/summary/course.py); nothing where it
        was not written."""

        line = ""
        ctx = context(self)
        generator = ctx.models.generator
        if lecture_id is not None and generator is not None:
            if lecture_id not in self.gists:
                lecture = ctx.services.library.lecture(lecture_id)
                self.gists[lecture_id] = (
                    gist_line(ctx.services.library, lecture, generator.name, app_language())
                    if lecture is not None
                    else ""
                )
            line = self.gists[lecture_id]
        widget = self.query_one("#map-gist", Static)
        widget.update(Text.assemble((_("In short") + ": ", "bold"), (line, "")) if line else "")
        widget.display = bool(line)

    def action_move(self, step: int) -> None:
        if self.hits:
            self.current = (self.current + step) % len(self.hits)
            self.draw()

    def action_open(self) -> None:
        if not self.hits:
            return
        hit = self.hits[self.current]
        segment = context(self).services.library.segment(hit.segment_id)
        if segment is not None:
            self.app.push_screen(SegmentScreen(segment, hit.score))
