"""A library's contents as the faces read them: its lectures, their chapters and segments, the
questions asked there, the bookmarks and the topics.

`Library` (library.py) is one of these with the models, the indexes and search added; no screen
or command reads the store's tables but through here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from lecturetui.core.lectures import Chapter, Lecture, StoredSegment
from lecturetui.core.paths import DataHome
from lecturetui.core.progress import CountProgress
from lecturetui.core.storage.history import History
from lecturetui.core.storage.store import Store
from lecturetui.core.study import outline
from lecturetui.core.study.bookmarks import Bookmarks
from lecturetui.core.study.saved import SavedAnswer, saved_answer
from lecturetui.core.study.topics import Topic, topics

__all__ = ["LibraryContents"]


class LibraryContents:
    """A data home's library database, opened on first use."""

    def __init__(self, home: DataHome) -> None:
        self.home = home
        self._store: Store | None = None

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = Store(self.home.db_path)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    # -- lectures ----------------------------------------------------------------------------
    def lectures(self) -> list[Lecture]:
        return self.store.lectures()

    def resolve_lecture(self, name: str) -> list[Lecture]:
        """The lectures `name` (an id, a title or a prefix of either) names."""
        return self.store.resolve_lecture(name)

    def lecture(self, lecture_id: str) -> Lecture | None:
        return self.store.lecture(lecture_id)

    def update_lecture(
        self,
        lecture_id: str,
        title: str | None = None,
        course: str | None = None,
        url: str | None = None,
    ) -> None:
        """Change a lecture's title, course or link (None: unchanged; "" clears a course or a
        link); nothing is embedded again."""
        self.store.update_lecture(lecture_id, title, course, url)

    def counts(self) -> tuple[int, int]:
        """(lectures, segments)."""
        return self.store.counts()

    def topics(self, n: int = 3) -> list[Topic]:
        """Terms the lectures dwell on, one per lecture (core/study/topics.py)."""
        return topics(self.store, n)

    # -- chapters (core/study/outline.py) ------------------------------------------------------
    def chapters(self, lecture_id: str) -> list[Chapter]:
        """A lecture's stored chapters, in order (none: its video has none, or they were not
        looked for yet: `read_missing_chapters`)."""
        return self.store.chapters(lecture_id)

    def chapters_by_lecture(self, lecture_ids: Iterable[str]) -> dict[str, list[Chapter]]:
        """The chapters of each of these lectures (each read once, however often it is named)."""
        return self.store.chapters_by_lecture(lecture_ids)

    def author_chapters(self, lecture: Lecture) -> list[Chapter]:
        """The lecture's own chapters: stored, else read once from yt-dlp's info file beside its
        source (core/study/outline.py); none when its author marked none."""
        return outline.chapters(self.store, lecture)

    def unread_chapters(self) -> int:
        """How many lectures' chapters were never looked for (stored before chapters were kept)."""
        return len(self.store.chapters_unread())

    def read_missing_chapters(
        self, progress: CountProgress | None = None, cancel: Callable[[], bool] | None = None
    ) -> int:
        """Look once for the chapters of the lectures stored before chapters were kept; returns
        how many gained some (core/study/outline.py's read_missing)."""
        return outline.read_missing(self.store, progress, cancel)

    # -- segments ----------------------------------------------------------------------------
    def segment(self, segment_id: int) -> StoredSegment | None:
        return self.store.segments_by_id([segment_id]).get(segment_id)

    def segments(self, lecture_id: str) -> list[StoredSegment]:
        """A lecture's segments, in time order."""
        return self.store.segments(lecture_id)

    def neighbours(self, segment: StoredSegment) -> list[StoredSegment]:
        """The segment with the one before and the one after it in its lecture."""
        return self.store.neighbours(segment)

    def segment_at(self, lecture_id: str, start: float) -> StoredSegment | None:
        """The segment to open for a moment of a lecture (a chapter's beginning): see
        core/study/outline.py's segment_at."""
        return outline.segment_at(self.store.segments(lecture_id), start)

    # -- what the student keeps --------------------------------------------------------------
    @property
    def history(self) -> History:
        """The questions asked here and their answers (core/storage/history.py)."""
        return History(self.store)

    def bookmarks(self) -> Bookmarks:
        """The bookmarks kept in the library (core/study/bookmarks.py), for this thread."""
        return Bookmarks(self.store.connection)

    def saved_answer(self, entry_id: int | None = None) -> SavedAnswer:
        """A history entry (default: the latest) as an answer to export."""
        return saved_answer(self.history, entry_id)
