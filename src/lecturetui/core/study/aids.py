"""The study aids, gathered for the faces (the command line reaches the study part of the core
through here): bookmarks (bookmarks.py), exporting an answer or the bookmarks as notes and cards
(export/), a lecture's outline (outline.py) and the course map (course_map.py); with the
lectures and their chapters (core/lectures.py) and the times they are shown at
(core/timefmt.py)."""

from __future__ import annotations

from lecturetui.core.lectures import Chapter, Lecture
from lecturetui.core.study.bookmarks import Bookmark
from lecturetui.core.study.course_map import MapRow, grid, heading, labels, legend
from lecturetui.core.study.export import (
    Targets,
    WrittenFile,
    export_answer,
    export_bookmarks,
    no_bookmarks,
)
from lecturetui.core.study.export.markdown import answer_markdown, bookmarks_markdown
from lecturetui.core.study.outline import records
from lecturetui.core.timefmt import format_span, format_timestamp, parse_timestamp

__all__ = [
    "Bookmark",
    "Chapter",
    "Lecture",
    "MapRow",
    "Targets",
    "WrittenFile",
    "answer_markdown",
    "bookmarks_markdown",
    "export_answer",
    "export_bookmarks",
    "format_span",
    "format_timestamp",
    "grid",
    "heading",
    "labels",
    "legend",
    "no_bookmarks",
    "parse_timestamp",
    "records",
]
