"""One segment with its neighbours, its place in the lecture and its chapter; keys move to the
previous or next segment and chapter."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from lecturetui.core.i18n import N_, _, decimal
from lecturetui.core.lectures import Chapter, StoredSegment, chapter_at
from lecturetui.core.links import deep_link
from lecturetui.core.timefmt import format_duration, format_span, format_timestamp
from lecturetui.tui.context import context, copy_link, open_link
from lecturetui.tui.i18n import Translated
from lecturetui.tui.notes import bookmark_segment
from lecturetui.tui.outlinescreen import OutlineScreen
from lecturetui.tui.render import highlighted, timeline


class SegmentScreen(Translated, Screen[None]):
    """One segment, its neighbours dimmed around it, its place in the lecture."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", N_("Back")),
        Binding("left_square_bracket,p", "move(-1)", N_("Previous")),
        Binding("right_square_bracket,n", "move(1)", N_("Next")),
        Binding("left_curly_bracket", "chapter(-1)", N_("Previous chapter"), show=False),
        Binding("right_curly_bracket", "chapter(1)", N_("Next chapter"), show=False),
        Binding("O", "outline", N_("Outline"), key_display="O"),
        Binding("o", "open", N_("Open video")),
        Binding("y", "copy", N_("Copy link")),
        Binding("b", "bookmark", N_("Bookmark")),
        Binding("S", "summary", N_("Summary"), key_display="S"),
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
            title.append(
                "  " + _("relevance {score}").format(score=decimal(self.score, 3)), style="green"
            )
        if self.segment.corpus_id is not None:
            title.append(f"  #{self.segment.corpus_id}", style="dim")
        self.query_one("#segment-title", Static).update(title)
        duration = lecture.duration if lecture else self.segment.end
        bar = timeline(self.segment.start, self.segment.end, duration)
        line = Text(f"{bar} {format_duration(duration)}", style="magenta")
        chapters = library.chapters(self.segment.lecture_id)
        chapter = self._chapter(chapters)
        if chapter is not None:  # the video's own chapters ({ and } move between them)
            place = f"{chapters.index(chapter) + 1}/{len(chapters)}"
            line.append(f"  {place} {format_timestamp(chapter.start)} {chapter.title}", "bold")
        self.query_one("#timeline", Static).update(line)
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

    def _chapter(self, chapters: list[Chapter]) -> Chapter | None:
        """The segment's chapter: the first that begins inside it, else the one under way."""
        seg = self.segment
        inside = [c for c in chapters if seg.start <= c.start < seg.end]
        return inside[0] if inside else chapter_at(chapters, seg.start)

    def action_chapter(self, step: int) -> None:
        """To the segment where the previous or next chapter begins (or is under way)."""
        library = context(self).services.library
        chapters = library.chapters(self.segment.lecture_id)
        current = self._chapter(chapters)
        i = (chapters.index(current) if current else -1) + step
        if not chapters or not 0 <= i < len(chapters):
            return
        target = library.segment_at(self.segment.lecture_id, chapters[i].start)
        if target is not None and target.id != self.segment.id:
            self.segment = target
            self.score = None
            self.refresh_segment()

    def action_outline(self) -> None:
        """The lecture's outline, at this segment's chapter (tui/outlinescreen.py)."""

        chapters = context(self).services.library.chapters(self.segment.lecture_id)
        chapter = self._chapter(chapters)
        at = chapter.start if chapter is not None else self.segment.start
        self.app.push_screen(OutlineScreen(self.segment.lecture_id, at), self._go_to)

    def _go_to(self, segment: StoredSegment | None) -> None:
        """To the segment chosen in the outline."""
        if segment is not None and segment.id != self.segment.id:
            self.segment = segment
            self.score = None
            self.refresh_segment()

    def action_summary(self) -> None:
        """This lecture's summary, part by part, on the main screen."""
        context(self).summarise(self.segment.lecture_id)

    def _url(self) -> str | None:
        lecture = context(self).services.library.lecture(self.segment.lecture_id)
        return deep_link(lecture.source_url if lecture else None, self.segment.start)

    def action_open(self) -> None:
        open_link(self.app, self._url())

    def action_copy(self) -> None:
        copy_link(self.app, self._url())

    def action_bookmark(self) -> None:
        span = format_span(self.segment.start, self.segment.end)
        bookmark_segment(self, self.segment.id, span, None)
