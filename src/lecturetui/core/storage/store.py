"""The SQLite library: lectures, segments and a full-text (FTS5) table over segment text.

The file, its connections and its schema are database.py's. Every change to a lecture runs in
one transaction, so an interrupted ingest leaves the library as it was before that file.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from lecturetui.core.lectures import Chapter, Lecture, Segment, StoredSegment
from lecturetui.core.lexical import fold, match_expression, query_terms
from lecturetui.core.storage.database import Database
from lecturetui.core.storage.rows import (
    LECTURE_COLUMNS,
    RECORD_SELECT,
    LectureRow,
    SaveResult,
    ends_json,
    full_lecture_row,
    lecture_row,
    optional,
    segment_row,
)
from lecturetui.core.storage.schema import SCHEMA_VERSION
from lecturetui.core.timefmt import utc_now

__all__ = ["PRUNE_COMMON_TERMS_FROM", "SCHEMA_VERSION", "LectureRow", "SaveResult", "Store"]

#: library size (segments) from which lexical search leaves out terms found in half of them
PRUNE_COMMON_TERMS_FROM = 2_000


class Store(Database):
    """The library database: lectures, their chapters and segments, and the full-text search
    over the segments' text. Use as a context manager, or call close(); each thread gets its
    own connection (database.py)."""

    # -- lectures ---------------------------------------------------------------------------
    def records_for_source(self, source_path: str) -> list[LectureRow]:
        rows = self._db.execute(
            f"SELECT {RECORD_SELECT} FROM lectures WHERE source_path = ?", (source_path,)
        )
        return [full_lecture_row(r) for r in rows]

    def find_by_content(self, content_hash: str) -> LectureRow | None:
        row = self._db.execute(
            f"SELECT {RECORD_SELECT} FROM lectures WHERE content_hash = ? LIMIT 1", (content_hash,)
        ).fetchone()
        return full_lecture_row(row) if row else None

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

    def save_lecture(self, record: LectureRow, segments: Sequence[Segment]) -> SaveResult:
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
            added_at = existing[0] if existing else utc_now()
            self._db.execute("DELETE FROM segments WHERE lecture_id = ?", (record.id,))
            self._db.execute(
                "INSERT OR REPLACE INTO lectures (id, title, course, language, source_path, source_key,"
                " source_url, source_format, duration, content_hash, source_hash, segment_config,"
                " added_at, updated_at, notes, lecture_date)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                    added_at,
                    utc_now(),
                    "\n".join(record.notes),
                    record.date,
                ),
            )
            added: list[int] = []
            for ordinal, seg in enumerate(segments):
                cur = self._db.execute(
                    "INSERT INTO segments"
                    ' (lecture_id, ordinal, start, "end", text, corpus_id, n_tokens, ends)'
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        record.id,
                        ordinal,
                        seg.start,
                        seg.end,
                        seg.text,
                        seg.corpus_id,
                        seg.n_tokens,
                        ends_json(seg.ends),
                    ),
                )
                added.append(int(cur.lastrowid or 0))
        return SaveResult(record.id, removed, added)

    def save_chapters(self, lecture_id: str, chapters: Sequence[Chapter]) -> None:
        """Replace a lecture's chapters (none: it has none); either way they were looked for."""
        with self.transaction():
            self._db.execute("DELETE FROM chapters WHERE lecture_id = ?", (lecture_id,))
            self._db.execute("UPDATE lectures SET chapters_read = 1 WHERE id = ?", (lecture_id,))
            self._db.executemany(
                "INSERT INTO chapters (lecture_id, ordinal, start, title, source)"
                " VALUES (?, ?, ?, ?, ?)",
                [(lecture_id, n, c.start, c.title, c.source) for n, c in enumerate(chapters)],
            )

    def chapters(self, lecture_id: str) -> list[Chapter]:
        """A lecture's chapters, in order."""
        rows = self._db.execute(
            "SELECT start, title, source FROM chapters WHERE lecture_id = ? ORDER BY ordinal",
            (lecture_id,),
        )
        return [Chapter(float(start), str(title), str(source)) for start, title, source in rows]

    def chapters_unread(self) -> list[str]:
        """The lectures whose chapters were never looked for (stored before chapters were kept)."""
        rows = self._db.execute("SELECT id FROM lectures WHERE chapters_read = 0 ORDER BY id")
        return [str(lid) for (lid,) in rows]

    def mark_chapters_read(self, lecture_id: str) -> None:
        """Remember that a lecture's chapters were looked for (its stored ones kept)."""
        with self.transaction():
            self._db.execute("UPDATE lectures SET chapters_read = 1 WHERE id = ?", (lecture_id,))

    def chapters_by_lecture(self, lecture_ids: Iterable[str]) -> dict[str, list[Chapter]]:
        """The chapters of each of these lectures (each read once, however often it is named)."""
        return {lid: self.chapters(lid) for lid in dict.fromkeys(lecture_ids)}

    def touch_source_hash(self, lecture_id: str, source_hash: str) -> None:
        with self.transaction():
            self._db.execute(
                "UPDATE lectures SET source_hash = ? WHERE id = ?", (source_hash, lecture_id)
            )

    def update_lecture(
        self,
        lecture_id: str,
        title: str | None = None,
        course: str | None = None,
        source_url: str | None = None,
    ) -> None:
        """Change a lecture's title, course or link (None: unchanged; "" clears a course or a
        link). Its segments and vectors are untouched: nothing is embedded again."""
        changes: dict[str, str | None] = {}
        if title is not None:
            changes["title"] = title
        if course is not None:
            changes["course"] = course or None
        if source_url is not None:
            changes["source_url"] = source_url or None
        if not changes:
            return
        sets = ", ".join(f"{column} = ?" for column in changes)
        with self.transaction():
            self._db.execute(
                f"UPDATE lectures SET {sets} WHERE id = ?", (*changes.values(), lecture_id)
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
            f"SELECT {LECTURE_COLUMNS} FROM lectures l ORDER BY coalesce(l.course, ''), l.title"
        )
        return [lecture_row(r) for r in rows]

    def lecture(self, lecture_id: str) -> Lecture | None:
        row = self._db.execute(
            f"SELECT {LECTURE_COLUMNS} FROM lectures l WHERE l.id = ?", (lecture_id,)
        ).fetchone()
        return lecture_row(row) if row else None

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
            'SELECT id, lecture_id, ordinal, start, "end", text, corpus_id, ends FROM segments'
            " WHERE lecture_id = ? ORDER BY ordinal",
            (lecture_id,),
        )
        return [segment_row(r) for r in rows]

    def segments_by_id(self, ids: Sequence[int]) -> dict[int, StoredSegment]:
        out: dict[int, StoredSegment] = {}
        for chunk_start in range(0, len(ids), 500):
            chunk = list(ids[chunk_start : chunk_start + 500])
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                'SELECT id, lecture_id, ordinal, start, "end", text, corpus_id, ends FROM segments'
                f" WHERE id IN ({marks})",
                chunk,
            )
            out.update((int(r[0]), segment_row(r)) for r in rows)
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
        return [optional(r[0]) for r in self._db.execute("SELECT DISTINCT language FROM lectures")]

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

    def term_shares(self, terms: Sequence[str]) -> tuple[int, dict[str, float]]:
        """How many segments the library holds, and the share of them holding each indexed
        term (stems as `lexical.index_terms` writes them) that some segment holds."""
        n_docs = int(self._db.execute("SELECT count(*) FROM segments").fetchone()[0])
        if not n_docs or not terms:
            return n_docs, {}
        unique = sorted(set(terms))
        marks = ",".join("?" * len(unique))
        rows = self._db.execute(
            f"SELECT term, doc FROM segments_lex_vocab WHERE term IN ({marks})", unique
        ).fetchall()
        return n_docs, {str(t): int(d) / n_docs for t, d in rows}

    def unknown_words(self, words: Sequence[str]) -> list[str]:
        """The words that no segment holds (under any of the library's stemmers, or as written)."""
        languages = self.languages()
        out: list[str] = []
        for word in words:
            forms = sorted(set(query_terms(word, languages)) | {fold(word)})
            marks = ",".join("?" * len(forms))
            row = self._db.execute(
                f"SELECT 1 FROM segments_lex_vocab WHERE term IN ({marks}) LIMIT 1", forms
            ).fetchone()
            if row is None:
                out.append(word)
        return out

    def neighbours(
        self, segment: StoredSegment, before: int = 1, after: int = 1
    ) -> list[StoredSegment]:
        """The segment with up to `before`/`after` segments around it in its lecture."""
        rows = self._db.execute(
            'SELECT id, lecture_id, ordinal, start, "end", text, corpus_id, ends FROM segments'
            " WHERE lecture_id = ? AND ordinal BETWEEN ? AND ? ORDER BY ordinal",
            (segment.lecture_id, segment.ordinal - before, segment.ordinal + after),
        )
        return [segment_row(r) for r in rows]
