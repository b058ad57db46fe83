"""The events of a lecture's summary and of a course's overview, as the front door
(core/requests/door.py) yields them and every face reads them:

    Started -> SummaryGrew ... -> SummaryDone      a lecture's summary (or Failed)
    Started -> OverviewDone                        what a course covers (or Failed)

A summary is written in steps (core/summary/writing.py's `summary_events`): its parts at once
(PartsReady), each part's label (PartWritten), then its gist (GistWritten). The front door folds
them once (core/summary/fold.py) and yields, after each, the summary as it stands (SummaryGrew):
the faces show what they receive and never fold again.
"""

from __future__ import annotations

from dataclasses import dataclass

from lecturetui.core.lectures import Lecture
from lecturetui.core.records import OverviewRecord, SummaryRecord
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
    """One part's label, as written or read back (the model's, where it names the part)."""

    part: Part
    written: Written


@dataclass(frozen=True, slots=True)
class GistWritten:
    """The lecture's gist: its subjects in order, citing its parts as [n]."""

    lecture: Lecture
    gist: Written


#: a step of writing a summary
SummaryStep = PartsReady | PartWritten | GistWritten


@dataclass(frozen=True, slots=True)
class SummaryGrew:
    """The summary as it stands after one step (`step`): `summary` to show, `labelled` parts
    named so far (by the model or read back)."""

    step: SummaryStep
    summary: SummaryRecord
    labelled: int

    @property
    def done(self) -> int:
        """How many of the summary's steps are done: the parts labelled, then the gist."""
        return self.labelled + isinstance(self.step, GistWritten)

    @property
    def steps(self) -> int:
        """How many steps the summary takes: a label per part, then the gist."""
        return len(self.summary.parts) + 1


@dataclass(frozen=True, slots=True)
class SummaryDone:
    """A lecture's summary, whole or stopped (`summary.stopped`), and its history entry (None
    when not kept)."""

    summary: SummaryRecord
    entry_id: int | None


@dataclass(frozen=True, slots=True)
class OverviewDone:
    """What a course covers, a line per lecture, and its history entry (None when not kept)."""

    overview: OverviewRecord
    entry_id: int | None


SummaryEvent = SummaryGrew | SummaryDone | OverviewDone
