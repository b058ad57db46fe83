"""A lecture's outline: its chapters in order, each with its time, its title and a link that
opens the video there.

The chapters are the video's own, as its author typed them (yt-dlp's `.info.json`, read at
ingest: core/ingest/ytdlp.py). A lecture ingested before chapters were kept gets them once, from
the info file still beside its source file: every such lecture in one pass when a face that shows
chapters opens the library (`read_missing`), and `outline` looks again for the one it prints.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from lecturetui.core.ingest.ytdlp import read_info
from lecturetui.core.lectures import Chapter, Lecture, StoredSegment
from lecturetui.core.links import deep_link
from lecturetui.core.records import ChapterRecord
from lecturetui.core.storage.store import Store
from lecturetui.core.timefmt import format_timestamp


def chapters(store: Store, lecture: Lecture) -> list[Chapter]:
    """The lecture's chapters: stored, else read once from yt-dlp's info file beside its source
    (and stored); none when it has no author's chapters."""
    return store.chapters(lecture.id) or _from_info(store, lecture)


def _from_info(store: Store, lecture: Lecture) -> list[Chapter]:
    """The chapters in yt-dlp's info file beside the lecture's source, stored when there are
    any; none without such a file."""
    info = read_info(Path(lecture.source_path)) if lecture.source_path else None
    if info is None or not info.chapters:
        return []
    store.save_chapters(lecture.id, info.chapters)
    return list(info.chapters)


def read_missing(
    store: Store,
    progress: Callable[[int, int], None] | None = None,
    cancel: Callable[[], bool] | None = None,
) -> int:
    """Look once for the chapters of every lecture stored before chapters were kept (each one's
    info file, found or not, is remembered as looked for); returns how many lectures gained
    chapters. Stopping between two lectures keeps what was read."""
    unread = store.chapters_unread()
    gained = 0
    for done, lecture_id in enumerate(unread, 1):
        if cancel is not None and cancel():
            break
        lecture = store.lecture(lecture_id)
        if lecture is not None and not store.chapters(lecture_id) and _from_info(store, lecture):
            gained += 1
        store.mark_chapters_read(lecture_id)
        if progress is not None:
            progress(done, len(unread))
    return gained


def records(lecture: Lecture, found: list[Chapter]) -> list[ChapterRecord]:
    """The chapters as the faces show them: time, title, where each ends, the link."""
    ends = [c.start for c in found[1:]] + [lecture.duration] if found else []
    return [
        ChapterRecord(
            start_s=c.start,
            end_s=max(end, c.start),
            start=format_timestamp(c.start),
            title=c.title,
            source=c.source,
            url=deep_link(lecture.source_url, c.start),
        )
        for c, end in zip(found, ends, strict=True)
    ]


def segment_at(segments: Sequence[StoredSegment], start: float) -> StoredSegment | None:
    """The segment to open for a moment at `start` (a chapter's beginning): the last window
    that holds it (the one it opens, as windows overlap), else the first after it."""
    holding = [s for s in segments if s.start <= start + 0.5 < s.end]
    if holding:
        return holding[-1]
    return next((s for s in segments if s.start >= start), segments[-1] if segments else None)
