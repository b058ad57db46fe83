"""Bookmarks: the moments of a lecture a student keeps, each with an optional note.

A bookmark is kept as its lecture's id, a start and end time and the words said then (the
quote); the segment it was made on is only a hint. Re-ingesting a changed lecture replaces its
segments and their ids, and the bookmark then opens the segment that now covers its time most.

A bookmark outlives its lecture. Removing a lecture (also `ingest --watch --prune` when its file
goes away) keeps its bookmarks, marked orphaned: they still list and export, with the title,
course and link the lecture had when they were made, and the quote. A note is the student's own
work and cannot be made again, while a lecture can be ingested again (under the same id its
bookmarks attach to it again); `lecturetui bookmarks rm` deletes a bookmark on purpose.

One bookmark a moment: bookmarking the same lecture, start and end again updates the note.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Collection
from dataclasses import dataclass

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.links import deep_link
from lecturetui.core.sentences import Window, joined_text
from lecturetui.core.study.moments import Moment
from lecturetui.core.timefmt import format_timestamp, utc_now

_SELECT = """
SELECT b.id, b.lecture_id,
       CASE WHEN l.id IS NULL THEN b.lecture_title ELSE l.title END AS m_title,
       CASE WHEN l.id IS NULL THEN b.course ELSE l.course END AS m_course,
       CASE WHEN l.id IS NULL THEN b.source_url ELSE l.source_url END,
       b.start, b."end", b.quote, b.note, b.history_id, h.question, b.created_at, b.updated_at,
       l.id IS NULL,
       (SELECT id FROM (
          SELECT s.id, s.id = b.segment_id AS hinted, s.start AS begins,
                 min(s."end", b."end") - max(s.start, b.start) AS shared
          FROM segments s
          WHERE s.lecture_id = b.lecture_id AND s.start <= b."end" AND s."end" >= b.start)
        ORDER BY hinted DESC, shared DESC, begins LIMIT 1)
FROM bookmarks b
LEFT JOIN lectures l ON l.id = b.lecture_id
LEFT JOIN history h ON h.id = b.history_id
"""
_ORDER = " ORDER BY coalesce(m_course, ''), m_title, b.lecture_id, b.start, b.id"


@dataclass(frozen=True, slots=True)
class Bookmark:
    """A kept moment. `segment_id` is the segment that covers it now (None when orphaned)."""

    id: int
    moment: Moment
    quote: str  # the words said in the moment (the covering segments' text)
    note: str
    segment_id: int | None
    orphaned: bool  # its lecture was removed from the library
    history_id: int | None = None  # the answer it was bookmarked from
    question: str | None = None  # that answer's question
    created_at: str = ""
    updated_at: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            **self.moment.to_json(),
            "note": self.note,
            "quote": self.quote,
            "segment_id": self.segment_id,
            "orphaned": self.orphaned,
            "history_id": self.history_id,
            "question": self.question,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


def _bookmark(row: tuple[object, ...]) -> Bookmark:
    (
        bid,
        lecture_id,
        title,
        course,
        source_url,
        start,
        end,
        quote,
        note,
        history_id,
        question,
        created,
        updated,
        orphaned,
        segment_id,
    ) = row
    begin = float(str(start))
    moment = Moment(
        str(lecture_id),
        str(title),
        None if course is None else str(course),
        begin,
        float(str(end)),
        deep_link(None if source_url is None else str(source_url), begin),
    )
    return Bookmark(
        id=int(str(bid)),
        moment=moment,
        quote=str(quote),
        note=str(note),
        segment_id=None if segment_id is None else int(str(segment_id)),
        orphaned=bool(orphaned),
        history_id=None if history_id is None else int(str(history_id)),
        question=None if question is None else str(question),
        created_at=str(created),
        updated_at=str(updated),
    )


def _time(value: float, what: str) -> float:
    """`value` checked; `what` is "start" or "end"."""
    if not math.isfinite(value) or value < 0:
        message = (
            _("The start time {value} is not a time in a lecture.")
            if what == "start"
            else _("The end time {value} is not a time in a lecture.")
        )
        raise LectureTuiError(
            message.format(value=value), hint=_("give seconds from the lecture's start, 0 or more")
        )
    return float(value)


class Bookmarks:
    """The library's bookmarks, on its open database connection (see Library.bookmarks)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def add(
        self,
        segment_id: int,
        note: str = "",
        start: float | None = None,
        end: float | None = None,
        quote: str | None = None,
        history_id: int | None = None,
    ) -> Bookmark:
        """Bookmark a segment, or the moment `start`-`end` of its lecture (default: the
        segment's own times). The quote is, unless given, the text of the segment, or of the
        segments covering the moment when it reaches outside it. `history_id`: the answer it
        came from (a cited passage). The same moment again only updates the note."""
        row = self._db.execute(
            'SELECT s.lecture_id, s.start, s."end", s.text, l.title, l.course, l.source_url'
            " FROM segments s JOIN lectures l ON l.id = s.lecture_id WHERE s.id = ?",
            (segment_id,),
        ).fetchone()
        if row is None:
            raise LectureTuiError(
                _("There is no segment {segment_id} in the library.").format(segment_id=segment_id),
                hint=_(
                    "`lecturetui search … --json` and `lecturetui show LECTURE --json` give"
                    " segment ids"
                ),
            )
        lecture_id, seg_start, seg_end, seg_text, title, course, url = row
        begin = _time(seg_start if start is None else start, "start")
        finish = _time(seg_end if end is None else end, "end")
        if finish < begin:
            raise LectureTuiError(
                _("A bookmark cannot end before it starts."), hint=_("give --end after --start")
            )
        if (
            history_id is not None
            and not self._db.execute("SELECT 1 FROM history WHERE id = ?", (history_id,)).fetchone()
        ):
            raise LectureTuiError(
                _("There is no answer {entry_id} in the history.").format(entry_id=history_id),
                hint=_("`lecturetui export --answer last --md -` shows the latest"),
            )
        if quote is None:
            inside = seg_start <= begin and finish <= seg_end
            quote = seg_text if inside else self._said(lecture_id, begin, finish)
            if not quote:
                span = Moment(lecture_id, title, course, begin, finish, None).span
                raise LectureTuiError(
                    _("Nothing is said in {title} at {span}.").format(title=title, span=span),
                    hint=_("`lecturetui show LECTURE` gives its times"),
                )
        now = utc_now()
        self._db.execute(
            "INSERT INTO bookmarks (created_at, updated_at, lecture_id, lecture_title, course,"
            ' source_url, start, "end", quote, note, segment_id, history_id)'
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            ' ON CONFLICT (lecture_id, start, "end") DO UPDATE SET'
            " note = excluded.note, updated_at = excluded.updated_at WHERE excluded.note != ''",
            (
                now,
                now,
                lecture_id,
                title,
                course,
                url,
                begin,
                finish,
                quote,
                note.strip(),
                segment_id,
                history_id,
            ),
        )
        row = self._db.execute(
            'SELECT id FROM bookmarks WHERE lecture_id = ? AND start = ? AND "end" = ?',
            (lecture_id, begin, finish),
        ).fetchone()
        return self.get(int(row[0]))

    def segment_at(self, lecture_id: str, seconds: float) -> int:
        """The id of the lecture's segment that covers `seconds` and starts last before it
        (windows overlap: the one where the time is nearest its start)."""
        row = self._db.execute(
            'SELECT id FROM segments WHERE lecture_id = ? AND start <= ? AND "end" >= ?'
            " ORDER BY start DESC LIMIT 1",
            (lecture_id, seconds, seconds),
        ).fetchone()
        if row is None:
            raise LectureTuiError(
                _("Nothing is said in lecture {lecture} at {time}.").format(
                    lecture=lecture_id, time=format_timestamp(seconds)
                ),
                hint=_("`lecturetui show {lecture}` gives its times").format(lecture=lecture_id),
            )
        return int(row[0])

    def _said(self, lecture_id: str, start: float, end: float) -> str:
        """The text of the lecture's segments that overlap start-end, overlaps said once."""
        windows = [
            Window(int(r[0]), float(r[1]), float(r[2]), str(r[3]))
            for r in self._db.execute(
                'SELECT id, start, "end", text FROM segments'
                ' WHERE lecture_id = ? AND start <= ? AND "end" >= ? ORDER BY start',
                (lecture_id, end, start),
            )
        ]
        return joined_text(windows)

    def get(self, bookmark_id: int) -> Bookmark:
        row = self._db.execute(f"{_SELECT} WHERE b.id = ?", (bookmark_id,)).fetchone()
        if row is None:
            raise LectureTuiError(
                _("There is no bookmark {bookmark_id}.").format(bookmark_id=bookmark_id),
                hint=_("`lecturetui bookmarks` lists them"),
            )
        return _bookmark(row)

    def all(self, lecture_ids: Collection[str] | None = None) -> list[Bookmark]:
        """Bookmarks by course, lecture and time; with `lecture_ids`, only those lectures'."""
        if lecture_ids is None:
            rows = self._db.execute(_SELECT + _ORDER).fetchall()
        else:
            ids = sorted(lecture_ids)
            marks = ",".join("?" * len(ids))
            rows = self._db.execute(
                f"{_SELECT} WHERE b.lecture_id IN ({marks}){_ORDER}", ids
            ).fetchall()
        return [_bookmark(r) for r in rows]

    def set_note(self, bookmark_id: int, note: str) -> Bookmark:
        """Replace a bookmark's note ("" clears it)."""
        self.get(bookmark_id)
        self._db.execute(
            "UPDATE bookmarks SET note = ?, updated_at = ? WHERE id = ?",
            (note.strip(), utc_now(), bookmark_id),
        )
        return self.get(bookmark_id)

    def delete(self, bookmark_id: int) -> Bookmark:
        """Delete a bookmark; returns it as it was."""
        gone = self.get(bookmark_id)
        self._db.execute("DELETE FROM bookmarks WHERE id = ?", (bookmark_id,))
        return gone

    def count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM bookmarks").fetchone()[0])
