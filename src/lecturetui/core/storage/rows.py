"""The library database's rows as values: what a lecture's row holds, and the decoding of the
lectures' and segments' rows (core/storage/store.py runs the queries)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from lecturetui.core.lectures import Lecture, StoredSegment

LECTURE_COLUMNS = (
    "l.id, l.title, l.course, l.language, l.source_path, l.source_url, l.source_format, "
    "l.duration, l.content_hash, (SELECT count(*) FROM segments s WHERE s.lecture_id = l.id),"
    " l.notes, l.lecture_date"
)


RECORD_COLUMNS = (
    "id",
    "title",
    "course",
    "language",
    "source_path",
    "source_key",
    "source_url",
    "source_format",
    "duration",
    "content_hash",
    "source_hash",
    "segment_config",
    "notes",
    "lecture_date",
)
RECORD_SELECT = ", ".join(RECORD_COLUMNS)


@dataclass(frozen=True, slots=True)
class LectureRow:
    """Everything stored about a lecture except its segments: the lectures table's row (the
    faces get core/lectures.py's `Lecture`; core/records.py holds what they print as JSON)."""

    id: str
    title: str
    course: str | None
    language: str | None
    source_path: str | None
    source_key: str
    source_url: str | None
    source_format: str
    duration: float
    content_hash: str
    source_hash: str | None
    segment_config: str
    notes: tuple[str, ...] = ()  # what reading its file repaired or skipped
    date: str | None = None  # YYYY-MM-DD


@dataclass(frozen=True, slots=True)
class SaveResult:
    lecture_id: str
    removed_segment_ids: list[int]
    added_segment_ids: list[int]


def full_lecture_row(row: Sequence[object]) -> LectureRow:
    data = dict(zip(RECORD_COLUMNS, row, strict=True))
    return LectureRow(
        id=str(data["id"]),
        title=str(data["title"]),
        course=optional(data["course"]),
        language=optional(data["language"]),
        source_path=optional(data["source_path"]),
        source_key=str(data["source_key"]),
        source_url=optional(data["source_url"]),
        source_format=str(data["source_format"]),
        duration=float(str(data["duration"])),
        content_hash=str(data["content_hash"]),
        source_hash=optional(data["source_hash"]),
        segment_config=str(data["segment_config"]),
        notes=notes_of(data["notes"]),
        date=optional(data["lecture_date"]),
    )


def optional(value: object) -> str | None:
    return None if value is None else str(value)


def notes_of(value: object) -> tuple[str, ...]:
    return tuple(str(value).splitlines()) if value else ()


def lecture_row(row: Sequence[object]) -> Lecture:
    return Lecture(
        id=str(row[0]),
        title=str(row[1]),
        course=optional(row[2]),
        language=optional(row[3]),
        source_path=optional(row[4]),
        source_url=optional(row[5]),
        source_format=str(row[6]),
        duration=float(str(row[7])),
        content_hash=str(row[8]),
        segment_count=int(str(row[9])),
        notes=notes_of(row[10]),
        date=optional(row[11]),
    )


def segment_row(row: Sequence[object]) -> StoredSegment:
    return StoredSegment(
        id=int(str(row[0])),
        lecture_id=str(row[1]),
        ordinal=int(str(row[2])),
        start=float(str(row[3])),
        end=float(str(row[4])),
        text=str(row[5]),
        corpus_id=None if row[6] is None else int(str(row[6])),
        ends=ends_of(row[7]) if len(row) > 7 else None,
    )


def ends_json(ends: Sequence[int] | None) -> str | None:
    """A window's sentence ends as stored (None: not looked for)."""
    return None if ends is None else json.dumps(list(ends))


def ends_of(value: object) -> tuple[int, ...] | None:
    """A window's sentence ends from the database (None, or a JSON list of positions)."""
    if value is None:
        return None
    try:
        found = json.loads(str(value))
    except ValueError:
        return None
    return tuple(int(x) for x in found) if isinstance(found, list) else None
