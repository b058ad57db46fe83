"""A lecture's summary as the faces follow and show it, gathered for them (the command line
reaches the summaries through here): what a summary request reports as it goes (events.py) and
hands back (asked.py), the summaries still to write (pending.py), how one is shown and exported
(render.py), and the words it is written in (writing.py)."""

from __future__ import annotations

from lecturetui.core.summary.asked import LectureSummary
from lecturetui.core.summary.events import PartsReady, PartWritten, SummaryDone, SummaryGrew
from lecturetui.core.summary.pending import SummaryProgress, part_label, pending_summaries
from lecturetui.core.summary.render import (
    export_summary,
    terminal_gist,
    terminal_part,
    terminal_parts,
)
from lecturetui.core.summary.writing import first_sentence, summary_language

__all__ = [
    "LectureSummary",
    "PartWritten",
    "PartsReady",
    "SummaryDone",
    "SummaryGrew",
    "SummaryProgress",
    "export_summary",
    "first_sentence",
    "part_label",
    "pending_summaries",
    "summary_language",
    "terminal_gist",
    "terminal_part",
    "terminal_parts",
]
