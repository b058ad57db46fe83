"""The events of a lecture's summary (core/summary/writing.py's `summary_events`), as every face
reads them and core/summary/fold.py folds them:

    PartsReady -> PartWritten ... -> GistWritten

(through the front door, core/requests.py: Started first and Answered last, as a question).
"""

from __future__ import annotations

from dataclasses import dataclass

from lecturetui.core.lectures import Lecture
from lecturetui.core.storage.summaries import Written
from lecturetui.core.study.parts import Part


@dataclass(frozen=True, slots=True)
class PartsReady:
    """A lecture's parts, each with its time and the lecturer's most representative sentences,
    before any model writes."""

    lecture: Lecture
    parts: tuple[Part, ...]
    language: str = ""  # what the summary is written in, by name
    phrases: tuple[str, ...] = ()  # what the lecture is about (core/study/keyphrases.py)


@dataclass(frozen=True, slots=True)
class PartWritten:
    """The answer model's summary of one part (what the part did not bear out struck)."""

    part: Part
    written: Written


@dataclass(frozen=True, slots=True)
class GistWritten:
    """The lecture's gist, citing its parts as [n]."""

    lecture: Lecture
    gist: Written


SummaryEvent = PartsReady | PartWritten | GistWritten
