"""A lecture's summary as its steps arrive, folded in one place (`unfold`, which the front door
calls): the parts, the parts labelled, the gist; after each step the summary so far as its typed
record, which every face shows (core/summary/render.py) and `--json` prints."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from lecturetui.core.lectures import Lecture
from lecturetui.core.links import deep_link
from lecturetui.core.records import PartRecord, SummaryRecord
from lecturetui.core.storage.summaries import Written
from lecturetui.core.study.parts import Part
from lecturetui.core.summary.events import (
    GistWritten,
    PartsReady,
    PartWritten,
    SummaryGrew,
    SummaryStep,
)
from lecturetui.core.timefmt import format_timestamp


def summary_record(
    lecture: Lecture,
    parts: Sequence[Part],
    written: Sequence[Written],
    gist: Written | None,
    language: str,
    model: str | None,
    phrases: Sequence[str] = (),
) -> SummaryRecord:
    """The summary as the faces show it and `--json` prints it."""
    by_number = {w.ordinal: w for w in written}
    return SummaryRecord(
        lecture=lecture.id,
        title=lecture.title,
        language=language,
        model=model,
        parts=tuple(
            PartRecord(
                number=p.number,
                start_s=p.start,
                end_s=p.end,
                start=format_timestamp(p.start),
                title=p.title,
                made=p.made,
                said=tuple(s.text for s in p.sentences),
                label=w.label if (w := by_number.get(p.number)) else "",
                refused=w.refused if w else (),
                url=deep_link(lecture.source_url, p.start),
                phrases=p.phrases,
            )
            for p in parts
        ),
        gist=gist.label if gist else "",
        phrases=tuple(phrases),
    )


@dataclass
class _Unfolding:
    """A summary as its steps arrive (`feed`): the parts, the parts labelled, the gist."""

    language: str = ""
    lecture: Lecture | None = None
    parts: tuple[Part, ...] = ()
    written: list[Written] = field(default_factory=list)
    gist: Written | None = None
    phrases: tuple[str, ...] = ()

    def feed(self, step: SummaryStep) -> None:
        if isinstance(step, PartsReady):
            self.lecture, self.parts, self.language = step.lecture, step.parts, step.language
            self.phrases = step.phrases
        elif isinstance(step, PartWritten):
            self.written.append(step.written)
        elif isinstance(step, GistWritten):
            self.gist = step.gist

    def record(self, model: str | None) -> SummaryRecord:
        """What the summary is so far (`model`: the answer model's name, kept where it labelled
        any part)."""
        assert self.lecture is not None
        return summary_record(
            self.lecture,
            self.parts,
            self.written,
            self.gist,
            self.language,
            model if self.written else None,
            self.phrases,
        )


def unfold(steps: Iterable[SummaryStep], model: str | None = None) -> Iterator[SummaryGrew]:
    """After each of a summary's steps, the summary as it stands (`model`: the answer model's
    name where it is known)."""
    so_far = _Unfolding()
    for step in steps:
        so_far.feed(step)
        yield SummaryGrew(step, so_far.record(model), len(so_far.written))
