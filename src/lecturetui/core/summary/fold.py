"""A lecture's summary as its events arrive, folded in one place (`Unfolding`): the parts, the
parts written, the gist; and what it is so far as its typed record, which every face shows
(core/summary/render.py) and `--json` prints."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from lecturetui.core.lectures import Lecture
from lecturetui.core.links import deep_link
from lecturetui.core.records import PartRecord, SummaryRecord
from lecturetui.core.storage.summaries import Written
from lecturetui.core.study.parts import Part
from lecturetui.core.summary.events import GistWritten, PartsReady, PartWritten, SummaryEvent
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
                summary=w.summary if (w := by_number.get(p.number)) else "",
                struck=w.struck if w else (),
                url=deep_link(lecture.source_url, p.start),
                phrases=p.phrases,
            )
            for p in parts
        ),
        gist=gist.summary if gist else "",
        gist_struck=gist.struck if gist else (),
        phrases=tuple(phrases),
    )


@dataclass
class Unfolding:
    """A summary as its events arrive (`feed`): the parts, the parts written, the gist; its
    record so far (`record`)."""

    language: str = ""
    lecture: Lecture | None = None
    parts: tuple[Part, ...] = ()
    written: list[Written] = field(default_factory=list)
    gist: Written | None = None
    phrases: tuple[str, ...] = ()

    def feed(self, event: SummaryEvent) -> None:
        if isinstance(event, PartsReady):
            self.lecture, self.parts, self.language = event.lecture, event.parts, event.language
            self.phrases = event.phrases
        elif isinstance(event, PartWritten):
            self.written.append(event.written)
        elif isinstance(event, GistWritten):
            self.gist = event.gist

    @property
    def done(self) -> int:
        """How many of the summary's steps are done: the parts written, then the gist."""
        return len(self.written) + (self.gist is not None)

    def record(self, model: str | None = None) -> SummaryRecord:
        """What the summary is so far (`model`: the answer model's name, kept where it wrote
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
