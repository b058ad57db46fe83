"""The summaries still to write: the lectures whose summary by a model, in a language, is not
whole yet (core/summary/writing.py), in course order; and where their writing stands
(`SummaryProgress`). The front door writes them one after another (core/requests/door.py,
`write_summaries`), for the CLI's `summary --all`, its `ingest` on a GPU and the app while it is
idle."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

from lecturetui.core.i18n import _
from lecturetui.core.lectures import Lecture
from lecturetui.core.library import Library
from lecturetui.core.storage.summaries import Written
from lecturetui.core.summary.named import course_order
from lecturetui.core.summary.writing import is_written, summary_key, summary_language


@dataclass(frozen=True, slots=True)
class SummaryProgress:
    """Where the writing of the pending summaries stands: lecture `number` of `lectures` is
    being written, `written` of its `parts` parts so far (then its gist); `gist`: its summary
    is whole (and this is its gist)."""

    lecture: Lecture
    number: int
    lectures: int
    written: int
    parts: int
    gist: Written | None = None

    @property
    def part(self) -> int:
        """The part being written now (parts + 1: the gist)."""
        return min(self.written + 1, self.parts + 1)

    @property
    def whole(self) -> bool:
        return self.gist is not None


def part_label(progress: SummaryProgress) -> str:
    """What is being written: "part 3 of 9", "the gist" once every part is written ("" once
    the summary is whole)."""
    if progress.whole or not progress.parts:
        return ""
    if progress.part > progress.parts:
        return _("the gist")
    return _("part {n} of {parts}").format(n=progress.part, parts=progress.parts)


def pending_summaries(
    library: Library,
    model: str | None,
    language: str | None = None,
    among: Sequence[Lecture] | None = None,
    stop: threading.Event | None = None,
) -> list[Lecture]:
    """The lectures (of `among`, else the library's) with parts whose summary by `model` in
    `language` (None: each lecture's own) is not whole, in course order. Without a model's
    name every lecture with parts is pending. Setting `stop` ends the look: those found so
    far."""
    lectures = sorted(library.lectures() if among is None else among, key=course_order)
    pending: list[Lecture] = []
    for lecture in lectures:
        if stop is not None and stop.is_set():
            break
        kept = (
            library.summaries.written(
                summary_key(lecture, model, summary_language(lecture, language))
            )
            if model
            else {}
        )
        parts = library.parts(lecture)
        if parts and not is_written(kept, parts):
            pending.append(lecture)
    return pending
