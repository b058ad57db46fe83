"""The SQLite library: lectures, segments and a full-text (FTS5) table over segment text.

One file, WAL mode, schema versioned with `PRAGMA user_version`. Every change to a lecture runs in
one transaction, so an interrupted ingest leaves the library as it was before that file.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from lecturetui.core.errors import StoreError
from lecturetui.core.lexical import index_terms, match_expression, query_terms
from lecturetui.core.models import Cue, Lecture, Segment, StoredSegment, Transcription
from lecturetui.core.schema import MIGRATIONS, SCHEMA_VERSION, split_sql

_LECTURE_COLUMNS = (
    "l.id, l.title, l.course, l.language, l.source_path, l.source_url, l.source_format, "
    "l.duration, l.content_hash, (SELECT count(*) FROM segments s WHERE s.lecture_id = l.id),"
    " l.notes"
)


_RECORD_COLUMNS = (
    "id", "title", "course", "language", "source_path", "source_key", "source_url",
    "source_format", "duration", "content_hash", "source_hash", "segment_config", "notes",
)  # fmt: skip
_RECORD_SELECT = ", ".join(_RECORD_COLUMNS)

#: library size (segments) from which lexical search leaves out terms found in half of them
PRUNE_COMMON_TERMS_FROM = 2_000


@dataclass(frozen=True, slots=True)
class LectureRecord:
    """Everything stored about a lecture except its segments."""

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


@dataclass(frozen=True, slots=True)
class SaveResult:
    lecture_id: str
    removed_segment_ids: list[int]
    added_segment_ids: list[int]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Store:
    """A connection to the library database. Use as a context manager, or call close()."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.create_function("lt_terms", 2, index_terms, deterministic=True)
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"The library database {path} cannot be opened: {exc}.",
                hint="move the file away and ingest your transcripts again",
            ) from None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    # -- schema -----------------------------------------------------------------------------
    def _migrate(self) -> None:
        version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"The library at {self.path} was made by a newer lecturetui (schema {version}).",
                hint="upgrade lecturetui",
            )
        for target in range(version + 1, SCHEMA_VERSION + 1):
            with self.transaction():
                for statement in split_sql(MIGRATIONS[target]):
                    self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {target}")

    @property
    def connection(self) -> sqlite3.Connection:
        """The open connection, for the modules that keep their own tables (evaluation runs)."""
        return self._db

    @property
    def schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT; any exception (KeyboardInterrupt too) rolls back."""
        if self._db.in_transaction:
            yield
            return
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # -- lectures ---------------------------------------------------------------------------
    def records_for_source(self, source_path: str) -> list[LectureRecord]:
        rows = self._db.execute(
            f"SELECT {_RECORD_SELECT} FROM lectures WHERE source_path = ?", (source_path,)
        )
        return [self._record(r) for r in rows]

    def find_by_content(self, content_hash: str) -> LectureRecord | None:
        row = self._db.execute(
            f"SELECT {_RECORD_SELECT} FROM lectures WHERE content_hash = ? LIMIT 1", (content_hash,)
        ).fetchone()
        return self._record(row) if row else None

    def _record(self, row: Sequence[object]) -> LectureRecord:
        data = dict(zip(_RECORD_COLUMNS, row, strict=True))
        return LectureRecord(
            id=str(data["id"]),
            title=str(data["title"]),
            course=_opt(data["course"]),
            language=_opt(data["language"]),
            source_path=_opt(data["source_path"]),
            source_key=str(data["source_key"]),
            source_url=_opt(data["source_url"]),
            source_format=str(data["source_format"]),
            duration=float(str(data["duration"])),
            content_hash=str(data["content_hash"]),
            source_hash=_opt(data["source_hash"]),
            segment_config=str(data["segment_config"]),
            notes=_notes(data["notes"]),
        )

    def unique_lecture_id(self, base: str, taken: Collection[str] = ()) -> str:
        """`base`, or `base-2`, `base-3`...: the first id neither stored nor in `taken`."""
        candidate, n = base, 2
        while (
            candidate in taken
            or self._db.execute("SELECT 1 FROM lectures WHERE id = ?", (candidate,)).fetchone()
        ):
            candidate = f"{base}-{n}"
            n += 1
        return candidate

    def save_lecture(self, record: LectureRecord, segments: Sequence[Segment]) -> SaveResult:
        """Insert a lecture, or replace an existing one (same id) and all its segments."""
        with self.transaction():
            removed = [
                int(r[0])
                for r in self._db.execute(
                    "SELECT id FROM segments WHERE lecture_id = ?", (record.id,)
                )
            ]
            existing = self._db.execute(
                "SELECT added_at FROM lectures WHERE id = ?", (record.id,)
            ).fetchone()
            added_at = existing[0] if existing else _now()
            self._db.execute("DELETE FROM segments WHERE lecture_id = ?", (record.id,))
            self._db.execute(
                "INSERT OR REPLACE INTO lectures (id, title, course, language, source_path, source_key,"
                " source_url, source_format, duration, content_hash, source_hash, segment_config,"
                " added_at, updated_at, notes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.id, record.title, record.course, record.language, record.source_path,
                    record.source_key, record.source_url, record.source_format, record.duration,
                    record.content_hash, record.source_hash, record.segment_config, added_at, _now(),
                    "\n".join(record.notes),
                ),
            )  # fmt: skip
            added: list[int] = []
            for ordinal, seg in enumerate(segments):
                cur = self._db.execute(
                    'INSERT INTO segments (lecture_id, ordinal, start, "end", text, corpus_id, n_tokens)'
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (record.id, ordinal, seg.start, seg.end, seg.text, seg.corpus_id, seg.n_tokens),
                )
                added.append(int(cur.lastrowid or 0))
        return SaveResult(record.id, removed, added)

    def touch_source_hash(self, lecture_id: str, source_hash: str) -> None:
        with self.transaction():
            self._db.execute(
                "UPDATE lectures SET source_hash = ? WHERE id = ?", (source_hash, lecture_id)
            )

    def delete_lecture(self, lecture_id: str) -> list[int]:
        with self.transaction():
            removed = [
                int(r[0])
                for r in self._db.execute(
                    "SELECT id FROM segments WHERE lecture_id = ?", (lecture_id,)
                )
            ]
            self._db.execute("DELETE FROM lectures WHERE id = ?", (lecture_id,))
        return removed

    def lectures(self) -> list[Lecture]:
        rows = self._db.execute(
            f"SELECT {_LECTURE_COLUMNS} FROM lectures l ORDER BY coalesce(l.course, ''), l.title"
        )
        return [_lecture(r) for r in rows]

    def lecture(self, lecture_id: str) -> Lecture | None:
        row = self._db.execute(
            f"SELECT {_LECTURE_COLUMNS} FROM lectures l WHERE l.id = ?", (lecture_id,)
        ).fetchone()
        return _lecture(row) if row else None

    def resolve_lecture(self, name: str) -> list[Lecture]:
        """Lectures matching `name`: exact id, exact title (any case), else id/title prefix."""
        all_lectures = self.lectures()
        needle = name.casefold()
        for match in (
            [x for x in all_lectures if x.id == name],
            [x for x in all_lectures if x.title.casefold() == needle or x.id.casefold() == needle],
            [
                x
                for x in all_lectures
                if x.id.casefold().startswith(needle) or x.title.casefold().startswith(needle)
            ],
        ):
            if match:
                return match
        return []

    # -- segments ---------------------------------------------------------------------------
    def segment_ids_of(self, lecture_ids: list[str]) -> list[int]:
        """The ids of these lectures' segments."""
        out: list[int] = []
        for i in range(0, len(lecture_ids), 500):
            part = lecture_ids[i : i + 500]
            marks = ",".join("?" * len(part))
            rows = self._db.execute(
                f"SELECT id FROM segments WHERE lecture_id IN ({marks})", part
            ).fetchall()
            out += [int(r[0]) for r in rows]
        return out

    def segments(self, lecture_id: str) -> list[StoredSegment]:
        rows = self._db.execute(
            'SELECT id, lecture_id, ordinal, start, "end", text, corpus_id FROM segments'
            " WHERE lecture_id = ? ORDER BY ordinal",
            (lecture_id,),
        )
        return [_segment(r) for r in rows]

    def segments_by_id(self, ids: Sequence[int]) -> dict[int, StoredSegment]:
        out: dict[int, StoredSegment] = {}
        for chunk_start in range(0, len(ids), 500):
            chunk = list(ids[chunk_start : chunk_start + 500])
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                'SELECT id, lecture_id, ordinal, start, "end", text, corpus_id FROM segments'
                f" WHERE id IN ({marks})",
                chunk,
            )
            out.update((int(r[0]), _segment(r)) for r in rows)
        return out

    def all_segment_ids(self) -> list[int]:
        return [int(r[0]) for r in self._db.execute("SELECT id FROM segments ORDER BY id")]

    def counts(self) -> tuple[int, int]:
        lectures = int(self._db.execute("SELECT count(*) FROM lectures").fetchone()[0])
        segments = int(self._db.execute("SELECT count(*) FROM segments").fetchone()[0])
        return lectures, segments

    def segment_ids_for_corpus_ids(self, corpus_ids: Sequence[int]) -> list[int]:
        out: list[int] = []
        for i in range(0, len(corpus_ids), 500):
            chunk = list(corpus_ids[i : i + 500])
            marks = ",".join("?" * len(chunk))
            out += [
                int(r[0])
                for r in self._db.execute(
                    f"SELECT id FROM segments WHERE corpus_id IN ({marks})", chunk
                )
            ]
        return out

    def languages(self) -> list[str | None]:
        """The distinct lecture languages in the library."""
        return [_opt(r[0]) for r in self._db.execute("SELECT DISTINCT language FROM lectures")]

    def lexical_search(
        self, question: str, limit: int = 10, lecture_ids: frozenset[str] | None = None
    ) -> list[tuple[int, float]]:
        """(segment id, BM25 score) pairs for a question, best first (higher is better);
        with `lecture_ids`, only their segments are ranked (the scope applies before the LIMIT)."""
        terms = self._informative(query_terms(question, self.languages()))
        if not terms or (lecture_ids is not None and not lecture_ids):
            return []
        where, params = "", []
        if lecture_ids is not None:
            ids = sorted(lecture_ids)
            where = (
                " AND rowid IN (SELECT id FROM segments WHERE lecture_id IN"
                f" ({','.join('?' * len(ids))}))"
            )
            params = ids
        rows = self._db.execute(
            "SELECT rowid, bm25(segments_lex) AS r FROM segments_lex WHERE segments_lex MATCH ?"
            f"{where} ORDER BY r LIMIT ?",
            (match_expression(terms), *params, limit),
        )
        return [(int(r[0]), -float(r[1])) for r in rows]

    def _informative(self, terms: list[str]) -> list[str]:
        """Drop terms found in half the segments or more, in a large library.

        BM25 gives such a term no weight (FTS5 clamps its IDF to ~0) but its long posting list is
        most of a query's cost at 100k segments (bench/RESULTS.md). When no remaining term occurs
        in the library at all, every term is kept, so a question still finds what it used to.
        """
        if len(terms) < 2:
            return terms
        n_docs = int(self._db.execute("SELECT count(*) FROM segments").fetchone()[0])
        if n_docs < PRUNE_COMMON_TERMS_FROM:
            return terms
        marks = ",".join("?" * len(terms))
        df: dict[str, int] = dict(
            self._db.execute(
                f"SELECT term, doc FROM segments_lex_vocab WHERE term IN ({marks})", terms
            ).fetchall()
        )
        kept = [t for t in terms if 2 * df.get(t, 0) < n_docs]
        return kept if any(df.get(t, 0) for t in kept) else terms

    # -- transcriptions of media files -------------------------------------------------------
    def transcription(
        self, media_hash: str, model: str, asked_language: str | None
    ) -> Transcription | None:
        row = self._db.execute(
            "SELECT language, language_probability, duration, cues FROM transcriptions"
            " WHERE media_hash = ? AND model = ? AND asked_language = ?",
            (media_hash, model, asked_language or ""),
        ).fetchone()
        if row is None:
            return None
        cues = tuple(Cue(float(a), float(b), str(t)) for a, b, t in json.loads(row[3]))
        return Transcription(cues, str(row[0]), float(row[1]), float(row[2]), model)

    def save_transcription(
        self, media_hash: str, asked_language: str | None, t: Transcription
    ) -> None:
        cues = json.dumps([[c.start, c.end, c.text] for c in t.cues], ensure_ascii=False)
        with self.transaction():
            self._db.execute(
                "INSERT OR REPLACE INTO transcriptions (media_hash, model, asked_language, language,"
                " language_probability, duration, cues, made_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (media_hash, t.model, asked_language or "", t.language, t.language_probability,
                 t.duration, cues, _now()),
            )  # fmt: skip

    # -- history ---------------------------------------------------------------------------
    def add_history(self, question: str, answer: str, payload: dict[str, object]) -> int:
        with self.transaction():
            cur = self._db.execute(
                "INSERT INTO history (asked_at, question, answer, payload) VALUES (?, ?, ?, ?)",
                (_now(), question, answer, json.dumps(payload, ensure_ascii=False)),
            )
        return int(cur.lastrowid or 0)

    def history(self, limit: int = 200) -> list[tuple[int, str, str, str]]:
        """(id, asked_at, question, answer), newest first."""
        rows = self._db.execute(
            "SELECT id, asked_at, question, answer FROM history ORDER BY id DESC LIMIT ?", (limit,)
        )
        return [(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]

    def history_payload(self, entry_id: int) -> dict[str, object] | None:
        row = self._db.execute("SELECT payload FROM history WHERE id = ?", (entry_id,)).fetchone()
        if row is None:
            return None
        data = json.loads(row[0])
        return data if isinstance(data, dict) else None

    def neighbours(
        self, segment: StoredSegment, before: int = 1, after: int = 1
    ) -> list[StoredSegment]:
        """The segment with up to `before`/`after` segments around it in its lecture."""
        rows = self._db.execute(
            'SELECT id, lecture_id, ordinal, start, "end", text, corpus_id FROM segments'
            " WHERE lecture_id = ? AND ordinal BETWEEN ? AND ? ORDER BY ordinal",
            (segment.lecture_id, segment.ordinal - before, segment.ordinal + after),
        )
        return [_segment(r) for r in rows]

    def integrity_ok(self) -> bool:
        return bool(self._db.execute("PRAGMA quick_check").fetchone()[0] == "ok")


def _opt(value: object) -> str | None:
    return None if value is None else str(value)


def _notes(value: object) -> tuple[str, ...]:
    return tuple(str(value).splitlines()) if value else ()


def _lecture(row: Sequence[object]) -> Lecture:
    return Lecture(
        id=str(row[0]),
        title=str(row[1]),
        course=_opt(row[2]),
        language=_opt(row[3]),
        source_path=_opt(row[4]),
        source_url=_opt(row[5]),
        source_format=str(row[6]),
        duration=float(str(row[7])),
        content_hash=str(row[8]),
        segment_count=int(str(row[9])),
        notes=_notes(row[10]),
    )


def _segment(row: Sequence[object]) -> StoredSegment:
    return StoredSegment(
        id=int(str(row[0])),
        lecture_id=str(row[1]),
        ordinal=int(str(row[2])),
        start=float(str(row[3])),
        end=float(str(row[4])),
        text=str(row[5]),
        corpus_id=None if row[6] is None else int(str(row[6])),
    )
