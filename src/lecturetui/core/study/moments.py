"""A moment of a lecture: what a bookmark keeps and an answer cites, and what exports show."""

from __future__ import annotations

from dataclasses import dataclass

from lecturetui.core.timefmt import format_timestamp


@dataclass(frozen=True, slots=True)
class Moment:
    """From `start` to `end` (seconds) in a lecture; `url` opens its video at `start`."""

    lecture_id: str
    lecture_title: str
    course: str | None
    start: float
    end: float
    url: str | None

    @property
    def span(self) -> str:
        """`hh:mm:ss–hh:mm:ss`, as the app and the CLI show times."""
        return f"{format_timestamp(self.start)}–{format_timestamp(self.end)}"

    def to_json(self) -> dict[str, object]:
        return {
            "lecture": self.lecture_id,
            "lecture_title": self.lecture_title,
            "course": self.course,
            "start_s": self.start,
            "end_s": self.end,
            "start": format_timestamp(self.start),
            "end": format_timestamp(self.end),
            "url": self.url,
        }
