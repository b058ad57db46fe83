"""What a course pack (core/pack/) reads from and writes into the library's tables: the
library's own origin id, segment ids reserved before their vectors are saved, and a lecture
stored whole with its segments (under those ids), chapters, key phrases and summaries."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from lecturetui.core.lectures import Chapter
from lecturetui.core.storage.rows import (
    RECORD_SELECT,
    LectureRow,
    ends_json,
    ends_of,
    full_lecture_row,
)
from lecturetui.core.storage.store import Store
from lecturetui.core.timefmt import utc_now

#: the meta key of the library's origin id (a pack's lectures made here carry it)
ORIGIN_KEY = "pack_origin"
#: a lecture imported from a pack keeps `PACK_SOURCE + origin` as its source path and its key
#: there as its source key: the pair says which lecture it is wherever it travels
PACK_SOURCE = "pack:"


@dataclass(frozen=True, slots=True)
class StoredSegmentRow:
    id: int
    start: float
    end: float
    text: str
    corpus_id: int | None
    n_tokens: int | None
    ends: tuple[int, ...] | None = None  # as Segment.ends


@dataclass(frozen=True, slots=True)
class PhraseRow:
    ordinal: int
    start: float
    phrases: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SummaryRow:
    model: str
    language: str
    ordinal: int
    start: float
    label: str
    refused: tuple[str, ...]
    made_at: str


def library_origin(store: Store) -> str:
    """This library's origin id, made (random) the first time it is asked for."""
    db = store.connection
    with store.transaction():
        row = db.execute("SELECT value FROM meta WHERE key = ?", (ORIGIN_KEY,)).fetchone()
        if row:
            return str(row[0])
        origin = uuid.uuid4().hex
        db.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (ORIGIN_KEY, origin))
    return origin


def lecture_record(store: Store, lecture_id: str) -> LectureRow:
    """Everything stored about a lecture but its segments (it is there)."""
    row = store.connection.execute(
        f"SELECT {RECORD_SELECT} FROM lectures WHERE id = ?", (lecture_id,)
    ).fetchone()
    return full_lecture_row(row)


def segment_rows(store: Store, lecture_id: str) -> list[StoredSegmentRow]:
    rows = store.connection.execute(
        'SELECT id, start, "end", text, corpus_id, n_tokens, ends FROM segments WHERE lecture_id = ?'
        " ORDER BY ordinal",
        (lecture_id,),
    )
    return [
        StoredSegmentRow(
            int(i),
            float(s),
            float(e),
            str(t),
            None if c is None else int(c),
            None if n is None else int(n),
            ends_of(x),
        )
        for i, s, e, t, c, n, x in rows
    ]


def phrase_rows(store: Store, lecture_id: str, content_hash: str) -> list[PhraseRow]:
    rows = store.connection.execute(
        "SELECT ordinal, start, phrases FROM key_phrases WHERE lecture_id = ? AND content_hash = ?"
        " ORDER BY ordinal",
        (lecture_id, content_hash),
    )
    return [PhraseRow(int(o), float(s), tuple(json.loads(p))) for o, s, p in rows]


def summary_rows(store: Store, lecture_id: str, content_hash: str) -> list[SummaryRow]:
    rows = store.connection.execute(
        "SELECT model, language, ordinal, start, label, refused, made_at FROM summary_parts"
        " WHERE lecture_id = ? AND content_hash = ? ORDER BY model, language, ordinal",
        (lecture_id, content_hash),
    )
    return [
        SummaryRow(str(m), str(lang), int(o), float(s), str(t), tuple(json.loads(k)), str(at))
        for m, lang, o, s, t, k, at in rows
    ]


def reserve_segment_ids(store: Store, n: int) -> int:
    """Reserve `n` segment ids no segment has had (AUTOINCREMENT never gives them again);
    returns the first. A kill after this wastes them, nothing else."""
    db = store.connection
    with store.transaction():
        row = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'segments'").fetchone()
        top = db.execute("SELECT coalesce(max(id), 0) FROM segments").fetchone()[0]
        base = max(int(row[0]) if row else 0, int(top))
        if row:
            db.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = 'segments'", (base + n,))
        else:
            db.execute(
                "INSERT INTO sqlite_sequence (name, seq) VALUES ('segments', ?)", (base + n,)
            )
    return base + 1


def put_lecture(
    store: Store,
    record: LectureRow,
    segments: Sequence[StoredSegmentRow],
    chapters: Sequence[Chapter],
    phrases: Sequence[PhraseRow],
    summaries: Sequence[SummaryRow],
) -> list[int]:
    """Store a lecture whole (replacing the one with its id, if any, and everything of it) in
    the caller's transaction; returns the ids of the segments it replaced."""
    db = store.connection
    removed = _clear_lecture(db, record.id, summaries)
    _upsert_lecture(db, record, utc_now())
    _insert_segments(db, record.id, segments)
    db.executemany(
        "INSERT INTO chapters (lecture_id, ordinal, start, title, source) VALUES (?, ?, ?, ?, ?)",
        [(record.id, n, c.start, c.title, c.source) for n, c in enumerate(chapters)],
    )
    _insert_phrases(db, record, phrases)
    _insert_summaries(db, record, summaries)
    return removed


def _clear_lecture(
    db: sqlite3.Connection, lecture_id: str, summaries: Sequence[SummaryRow]
) -> list[int]:
    """Delete the lecture's segments, chapters, key phrases and the summaries by the models (and
    languages) of `summaries`; returns the ids of the segments deleted."""
    removed = [
        int(r[0]) for r in db.execute("SELECT id FROM segments WHERE lecture_id = ?", (lecture_id,))
    ]
    for table in ("segments", "chapters", "key_phrases"):
        db.execute(f"DELETE FROM {table} WHERE lecture_id = ?", (lecture_id,))
    models = sorted({(s.model, s.language) for s in summaries})
    db.executemany(
        "DELETE FROM summary_parts WHERE lecture_id = ? AND model = ? AND language = ?",
        [(lecture_id, m, lang) for m, lang in models],
    )
    return removed


def _upsert_lecture(db: sqlite3.Connection, record: LectureRow, now: str) -> None:
    """The lecture's row, added or updated (its `added_at` kept where it was there)."""
    db.execute(
        "INSERT INTO lectures (id, title, course, language, source_path, source_key, source_url,"
        " source_format, duration, content_hash, source_hash, segment_config, added_at,"
        " updated_at, notes, lecture_date, chapters_read)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1) ON CONFLICT (id) DO UPDATE SET"
        " title = excluded.title, course = excluded.course, language = excluded.language,"
        " source_path = excluded.source_path, source_key = excluded.source_key,"
        " source_url = excluded.source_url, source_format = excluded.source_format,"
        " duration = excluded.duration, content_hash = excluded.content_hash,"
        " source_hash = excluded.source_hash, segment_config = excluded.segment_config,"
        " updated_at = excluded.updated_at, notes = excluded.notes,"
        " lecture_date = excluded.lecture_date, chapters_read = 1",
        (
            record.id,
            record.title,
            record.course,
            record.language,
            record.source_path,
            record.source_key,
            record.source_url,
            record.source_format,
            record.duration,
            record.content_hash,
            record.source_hash,
            record.segment_config,
            now,
            now,
            "\n".join(record.notes),
            record.date,
        ),
    )


def _insert_segments(
    db: sqlite3.Connection, lecture_id: str, segments: Sequence[StoredSegmentRow]
) -> None:
    db.executemany(
        "INSERT INTO segments"
        ' (id, lecture_id, ordinal, start, "end", text, corpus_id, n_tokens, ends)'
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                s.id,
                lecture_id,
                n,
                s.start,
                s.end,
                s.text,
                s.corpus_id,
                s.n_tokens,
                ends_json(s.ends),
            )
            for n, s in enumerate(segments)
        ],
    )


def _insert_phrases(
    db: sqlite3.Connection, record: LectureRow, phrases: Sequence[PhraseRow]
) -> None:
    db.executemany(
        "INSERT INTO key_phrases (lecture_id, content_hash, ordinal, start, phrases)"
        " VALUES (?, ?, ?, ?, ?)",
        [
            (
                record.id,
                record.content_hash,
                p.ordinal,
                p.start,
                json.dumps(list(p.phrases), ensure_ascii=False),
            )
            for p in phrases
        ],
    )


def _insert_summaries(
    db: sqlite3.Connection, record: LectureRow, summaries: Sequence[SummaryRow]
) -> None:
    db.executemany(
        "INSERT OR REPLACE INTO summary_parts (lecture_id, content_hash, model, language,"
        " ordinal, start, label, refused, made_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                record.id,
                record.content_hash,
                s.model,
                s.language,
                s.ordinal,
                s.start,
                s.label,
                json.dumps(list(s.refused), ensure_ascii=False),
                s.made_at,
            )
            for s in summaries
        ],
    )
