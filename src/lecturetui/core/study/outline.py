"""A lecture's outline: its chapters in order, each with its time, its title and a link that
opens the video there.

The chapters are the video's own, as its author typed them (yt-dlp's `.info.json`, read at
ingest: core/ingest/ytdlp.py). A lecture ingested before chapters were kept gets them here, once,
from the info file still beside its source file.
"""

from __future__ import annotations

from pathlib import Path

from lecturetui.core.ingest.ytdlp import read_info
from lecturetui.core.lectures import Chapter, Lecture
from lecturetui.core.links import deep_link
from lecturetui.core.records import ChapterRecord
from lecturetui.core.storage.store import Store
from lecturetui.core.timefmt import format_timestamp


def chapters(store: Store, lecture: Lecture) -> list[Chapter]:
    """The lecture's chapters: stored, else read once from yt-dlp's info file beside its source
    (and stored); none when it has no author's chapters."""
    found = store.chapters(lecture.id)
    if found or not lecture.source_path:
        return found
    info = read_info(Path(lecture.source_path))
    if info is None or not info.chapters:
        return []
    store.save_chapters(lecture.id, info.chapters)
    return list(info.chapters)


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
