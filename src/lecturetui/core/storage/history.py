"""The questions asked in a library and their answers (the `history` table), kept as records.

Each entry keeps the record (core/records.py) as JSON: a question's answer, or a lecture's summary
or a course's overview asked for (its `kind` says which); a thread is the id of its first entry
(`thread` in an answer's record, absent on a first question), so follow-ups need no table of
their own (core/conversation.py).
"""

from __future__ import annotations

import json

from lecturetui.core.conversation import Exchange, HistoryEntry
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.records import KEPT, AnswerRecord, Kept, from_json, to_json
from lecturetui.core.storage.store import Store
from lecturetui.core.timefmt import utc_now


class History:
    """The history table of a library's store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def add(self, record: Kept, text: str) -> int:
        """Keep an answer, a summary or an overview with the text it shows (its kind's text,
        core/requests/kinds.py); returns its entry id."""
        with self.store.transaction():
            cur = self.store.connection.execute(
                "INSERT INTO history (asked_at, question, answer, payload) VALUES (?, ?, ?, ?)",
                (
                    utc_now(),
                    record.question,
                    text,
                    json.dumps(to_json(record), ensure_ascii=False),
                ),
            )
        return int(cur.lastrowid or 0)

    def rows(self, limit: int = 200) -> list[tuple[int, str, str, str]]:
        """(id, asked_at, question, answer), newest first."""
        rows = self.store.connection.execute(
            "SELECT id, asked_at, question, answer FROM history ORDER BY id DESC LIMIT ?", (limit,)
        )
        return [(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]

    def entry(self, entry_id: int) -> Kept | None:
        """An entry's record (an answer's, a summary's or an overview's, as its `kind` says);
        None when there is no such entry. A damaged entry raises LectureTuiError."""
        row = self.store.connection.execute(
            "SELECT payload FROM history WHERE id = ?", (entry_id,)
        ).fetchone()
        if row is None:
            return None
        try:
            data = json.loads(row[0])
        except json.JSONDecodeError as exc:
            raise LectureTuiError(
                _("History entry {entry_id} is damaged ({reason}).").format(
                    entry_id=entry_id, reason=exc.msg
                ),
                hint=_("ask the question again"),
            ) from None
        kind = data.get("kind") if isinstance(data, dict) else None
        what = _("history entry {entry_id}").format(entry_id=entry_id)
        return from_json(data, KEPT.get(str(kind), AnswerRecord), what)

    def exchange(self, entry_id: int | None = None) -> Exchange | None:
        """An entry (default: the latest, what `ask --continue` continues) as an exchange a
        follow-up can continue."""
        db = self.store.connection
        if entry_id is None:
            row = db.execute("SELECT id FROM history ORDER BY id DESC LIMIT 1").fetchone()
            if row is None:
                return None
            entry_id = int(row[0])
        try:
            record = self.entry(entry_id)
        except LectureTuiError:
            return None  # a damaged entry is not continued
        if record is None:
            return None
        row = db.execute("SELECT answer FROM history WHERE id = ?", (entry_id,)).fetchone()
        return record.exchange(entry_id, str(row[0]) if row else "")

    def threads(self, limit: int = 200) -> list[HistoryEntry]:
        """The latest entries grouped by thread: threads newest first, each in the order asked."""
        rows = self.store.connection.execute(
            "SELECT id, asked_at, question, COALESCE(json_extract(payload, '$.thread'), id),"
            " COALESCE(json_extract(payload, '$.follow_up'), 0) FROM history"
            " ORDER BY id DESC LIMIT ?",
            (limit,),
        ).fetchall()
        threads: dict[int, list[HistoryEntry]] = {}
        for entry_id, asked, question, thread, follow in rows:
            entry = HistoryEntry(
                int(entry_id), str(asked), str(question), int(thread), bool(follow)
            )
            threads.setdefault(entry.thread_id, []).append(entry)
        return [e for entries in threads.values() for e in reversed(entries)]
