"""The library database's schema: one migration per `PRAGMA user_version`, applied in order.

A migration is never edited once released; a change to the schema is a new one. `lt_terms` (the
lexical analyser, see lexical.py) is registered as an SQL function by the Store before they run.
"""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 15

MIGRATIONS: dict[int, str] = {
    1: """
    CREATE TABLE lectures (
        id             TEXT PRIMARY KEY,
        title          TEXT NOT NULL,
        course         TEXT,
        language       TEXT,
        source_path    TEXT,
        source_key     TEXT NOT NULL,
        source_url     TEXT,
        source_format  TEXT NOT NULL,
        duration       REAL NOT NULL,
        content_hash   TEXT NOT NULL,
        source_hash    TEXT,
        segment_config TEXT NOT NULL,
        added_at       TEXT NOT NULL,
        updated_at     TEXT NOT NULL,
        UNIQUE (source_path, source_key)
    );
    CREATE INDEX lectures_content_hash ON lectures (content_hash);
    CREATE TABLE segments (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: ids are vector labels
        lecture_id  TEXT NOT NULL REFERENCES lectures (id) ON DELETE CASCADE,
        ordinal     INTEGER NOT NULL,
        start       REAL NOT NULL,
        "end"       REAL NOT NULL,
        text        TEXT NOT NULL,
        corpus_id   INTEGER,
        n_tokens    INTEGER,
        UNIQUE (lecture_id, ordinal)
    );
    CREATE INDEX segments_corpus_id ON segments (corpus_id);
    CREATE VIRTUAL TABLE segments_fts USING fts5 (
        text, content='segments', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER segments_ai AFTER INSERT ON segments BEGIN
        INSERT INTO segments_fts (rowid, text) VALUES (new.id, new.text);
    END;
    CREATE TRIGGER segments_ad AFTER DELETE ON segments BEGIN
        INSERT INTO segments_fts (segments_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END;
    CREATE TRIGGER segments_au AFTER UPDATE ON segments BEGIN
        INSERT INTO segments_fts (segments_fts, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO segments_fts (rowid, text) VALUES (new.id, new.text);
    END;
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    2: """
    CREATE TABLE history (
        id        INTEGER PRIMARY KEY AUTOINCREMENT,
        asked_at  TEXT NOT NULL,
        question  TEXT NOT NULL,
        answer    TEXT NOT NULL,
        payload   TEXT NOT NULL  -- the answer's JSON: citations, passages, hits, timings
    );
    """,
    # lexical search on Snowball stems (lt_terms is registered by Store; see lexical.py)
    3: """
    DROP TRIGGER segments_ai;
    DROP TRIGGER segments_ad;
    DROP TRIGGER segments_au;
    DROP TABLE segments_fts;
    CREATE VIRTUAL TABLE segments_lex USING fts5 (terms, tokenize='unicode61 remove_diacritics 2');
    INSERT INTO segments_lex (rowid, terms)
        SELECT s.id, lt_terms(s.text, l.language) FROM segments s JOIN lectures l ON l.id = s.lecture_id;
    CREATE TRIGGER segments_lex_ai AFTER INSERT ON segments BEGIN
        INSERT INTO segments_lex (rowid, terms) VALUES (
            new.id, lt_terms(new.text, (SELECT language FROM lectures WHERE id = new.lecture_id)));
    END;
    CREATE TRIGGER segments_lex_ad AFTER DELETE ON segments BEGIN
        DELETE FROM segments_lex WHERE rowid = old.id;
    END;
    CREATE TRIGGER segments_lex_au AFTER UPDATE OF text ON segments BEGIN
        DELETE FROM segments_lex WHERE rowid = old.id;
        INSERT INTO segments_lex (rowid, terms) VALUES (
            new.id, lt_terms(new.text, (SELECT language FROM lectures WHERE id = new.lecture_id)));
    END;
    """,
    # evaluation runs (see evaluation/saved_runs.py)
    4: """
    CREATE TABLE eval_runs (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        key         TEXT NOT NULL UNIQUE,  -- question file hash + settings
        name        TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        settings    TEXT NOT NULL
    );
    CREATE TABLE eval_records (
        run_id        INTEGER NOT NULL REFERENCES eval_runs (id) ON DELETE CASCADE,
        number        INTEGER NOT NULL,
        question      TEXT NOT NULL,
        payload       TEXT NOT NULL,  -- retrieval, answer, judge scores (JSON)
        manual_label  TEXT CHECK (manual_label IN ('C', 'P', 'I')),
        annotated_at  TEXT,
        PRIMARY KEY (run_id, number)
    );
    """,
    # per-term document counts of the lexical index (to skip terms in most segments)
    5: """
    CREATE VIRTUAL TABLE segments_lex_vocab USING fts5vocab (segments_lex, 'row');
    """,
    # what reading a lecture's file repaired or skipped, one sentence a line (see repairs.py)
    6: """
    ALTER TABLE lectures ADD COLUMN notes TEXT NOT NULL DEFAULT '';
    """,
    # bookmarks: moments a student keeps, with a note (see bookmarks.py). No foreign key to
    # lectures: a bookmark outlives its lecture (orphaned), and re-ingest replaces segment ids,
    # so the moment is its lecture id and times, with what was said then and the lecture's
    # title, course and link as they were (shown while the lecture is gone)
    7: """
    CREATE TABLE bookmarks (
        id             INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at     TEXT NOT NULL,
        updated_at     TEXT NOT NULL,
        lecture_id     TEXT NOT NULL,
        lecture_title  TEXT NOT NULL,
        course         TEXT,
        source_url     TEXT,
        start          REAL NOT NULL,
        "end"          REAL NOT NULL,
        quote          TEXT NOT NULL,
        note           TEXT NOT NULL DEFAULT '',
        segment_id     INTEGER,  -- the segment bookmarked: a hint only
        history_id     INTEGER REFERENCES history (id) ON DELETE SET NULL,  -- the answer it came from
        CHECK (start <= "end")
    );
    CREATE UNIQUE INDEX bookmarks_moment ON bookmarks (lecture_id, start, "end");
    """,
    # what speech recognition made of a media file, so it is never transcribed twice (transcribe.py)
    8: """
    CREATE TABLE transcriptions (
        media_hash    TEXT NOT NULL,  -- sha256 of the audio or video file
        model         TEXT NOT NULL,  -- the speech model's name
        asked_language TEXT NOT NULL, -- --lang, or '' when the language was detected
        language      TEXT NOT NULL,
        language_probability REAL NOT NULL,
        duration      REAL NOT NULL,
        cues          TEXT NOT NULL,  -- JSON [[start, end, text], ...]
        made_at       TEXT NOT NULL,
        PRIMARY KEY (media_hash, model, asked_language)
    );
    """,
    # the day the lecture was given or published (YYYY-MM-DD; yt-dlp's upload_date), when known
    9: """
    ALTER TABLE lectures ADD COLUMN lecture_date TEXT;
    """,
    # a lecture's chapters: where each part begins and its title (the video's own, from yt-dlp)
    10: """
    CREATE TABLE chapters (
        lecture_id  TEXT NOT NULL REFERENCES lectures (id) ON DELETE CASCADE,
        ordinal     INTEGER NOT NULL,
        start       REAL NOT NULL CHECK (start >= 0),
        title       TEXT NOT NULL,
        source      TEXT NOT NULL,  -- 'author': the video's own chapters
        PRIMARY KEY (lecture_id, ordinal)
    );
    """,
    # 1 once the lecture's chapters were looked for beside its source (at ingest, or once for a
    # lecture stored before chapters were kept: core/study/outline.read_missing)
    11: """
    ALTER TABLE lectures ADD COLUMN chapters_read INTEGER NOT NULL DEFAULT 0;
    """,
    # a lecture's summary, part by part, as an answer model wrote it in a language: kept until
    # the lecture's content or the model changes (core/summary/writing.py); ordinal 0 is the gist
    12: """
    CREATE TABLE overview_parts (
        lecture_id   TEXT NOT NULL REFERENCES lectures (id) ON DELETE CASCADE,
        content_hash TEXT NOT NULL,  -- the lecture's when it was written
        model        TEXT NOT NULL,
        language     TEXT NOT NULL,
        ordinal      INTEGER NOT NULL,
        start        REAL NOT NULL,  -- where the part begins (the gist: 0)
        summary      TEXT NOT NULL,
        struck       TEXT NOT NULL,  -- JSON: the sentences the part did not bear out
        made_at      TEXT NOT NULL,
        PRIMARY KEY (lecture_id, model, language, ordinal)
    );
    """,
    # what a lecture (ordinal 0) and each of its parts are about, in key phrases
    # (core/study/keyphrases.py): kept until the lecture's content changes
    13: """
    CREATE TABLE key_phrases (
        lecture_id   TEXT NOT NULL REFERENCES lectures (id) ON DELETE CASCADE,
        content_hash TEXT NOT NULL,  -- the lecture's when they were found
        ordinal      INTEGER NOT NULL,
        start        REAL NOT NULL,  -- where the part begins (the lecture: 0)
        phrases      TEXT NOT NULL,  -- JSON: the phrases, the best first
        PRIMARY KEY (lecture_id, ordinal)
    );
    """,
    # a summary's parts hold labels: the table and its columns say so (summary -> label, the
    # struck sentences -> the model's refused label); a summary kept in the history becomes a
    # record of its own (core/records.py's SummaryRecord, `kind` "summary"), its parts' keys
    # renamed alike, and an answer's record loses its `overview` key
    14: """
    ALTER TABLE overview_parts RENAME TO summary_parts;
    ALTER TABLE summary_parts RENAME COLUMN summary TO label;
    ALTER TABLE summary_parts RENAME COLUMN struck TO refused;
    UPDATE history SET payload = json_set(
        json_remove(json(json_extract(payload, '$.overview')), '$.gist_struck'),
        '$.kind', 'summary',
        '$.question', json_extract(payload, '$.question'),
        '$.stopped', json(CASE WHEN json_extract(payload, '$.stopped') THEN 'true' ELSE 'false' END),
        '$.timings', json(coalesce(json_extract(payload, '$.timings'), '{}')),
        '$.parts', json((
            SELECT json_group_array(json(json_remove(json_set(p.value,
                '$.label', json_extract(p.value, '$.summary'),
                '$.refused', json(coalesce(json_extract(p.value, '$.struck'), '[]'))),
                '$.summary', '$.struck')))
            FROM json_each(json_extract(history.payload, '$.overview.parts')) AS p
        ))
    ) WHERE json_type(payload, '$.overview') = 'object';
    UPDATE history SET payload = json_remove(payload, '$.overview')
    WHERE json_type(payload, '$.overview') IS NOT NULL;
    """,
    # where the sentence model found a sentence's end in a window of captions without
    # punctuation (core/models/sentence_ends.py): the positions of those words in the window's text,
    # as JSON; NULL where the captions mark their own ends, or the window was stored before
    15: """
    ALTER TABLE segments ADD COLUMN ends TEXT;
    """,
}


def split_sql(script: str) -> list[str]:
    """Split a migration into statements (sqlite3.complete_statement knows about triggers)."""
    statements, buf = [], ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            statements.append(buf.strip())
            buf = ""
    if buf.strip():
        statements.append(buf.strip())
    return statements
