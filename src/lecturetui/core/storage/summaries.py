"""A lecture's summary as an answer model wrote it, part by part (the `summary_parts` table):
each part's label is kept as soon as it is written, so an interrupted summary keeps its parts,
and read back while the lecture's content and the model are the same
(core/summary/writing.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from lecturetui.core.storage.store import Store
from lecturetui.core.timefmt import utc_now

#: the ordinal the lecture's gist is kept under (its parts are 1, 2, ...)
GIST = 0
#: how summaries are written now, the end of their key's model (core/summary/writing.py): a
#: part's summary is then its label, what the part is about
VERSION = "labels-3"


@dataclass(frozen=True, slots=True)
class Written:
    """A part's label as kept (ordinal GIST: the gist, the lecture's subjects in order)."""

    ordinal: int
    start: float
    label: str  # the model's label where it names the part, else the author's chapter title
    refused: tuple[str, ...]  # the model's label where it was not kept


@dataclass(frozen=True, slots=True)
class SummaryKey:
    """Which summary: a lecture as it is now, by one model, in one language."""

    lecture_id: str
    content_hash: str
    model: str
    language: str


class Summaries:
    """The summaries kept in a library's store (its summary_parts table)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def written(self, key: SummaryKey) -> dict[int, Written]:
        """What was written for this lecture, model and language, by ordinal (nothing when the
        lecture changed since)."""
        rows = self.store.connection.execute(
            "SELECT ordinal, start, label, refused FROM summary_parts WHERE lecture_id = ?"
            " AND model = ? AND language = ? AND content_hash = ? ORDER BY ordinal",
            (key.lecture_id, key.model, key.language, key.content_hash),
        ).fetchall()
        return {
            int(o): Written(int(o), float(s), str(label), tuple(json.loads(refused)))
            for o, s, label, refused in rows
        }

    def keep(self, key: SummaryKey, part: Written) -> None:
        """Keep one written part (replacing what an older content of the lecture had)."""
        with self.store.transaction():
            self.store.connection.execute(
                "DELETE FROM summary_parts WHERE lecture_id = ? AND model = ? AND language = ?"
                " AND content_hash != ?",
                (key.lecture_id, key.model, key.language, key.content_hash),
            )
            self.store.connection.execute(
                "INSERT OR REPLACE INTO summary_parts (lecture_id, content_hash, model, language,"
                " ordinal, start, label, refused, made_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key.lecture_id,
                    key.content_hash,
                    key.model,
                    key.language,
                    part.ordinal,
                    part.start,
                    part.label,
                    json.dumps(list(part.refused), ensure_ascii=False),
                    utc_now(),
                ),
            )

    def subjects(self, lecture_id: str, content_hash: str) -> list[str]:
        """What the lecture's parts are about as a model named them and its check kept (labels
        of summaries written the way they are now, the latest first), in the parts' order."""
        rows = self.store.connection.execute(
            "SELECT model, language, label FROM summary_parts WHERE lecture_id = ? AND"
            " content_hash = ? AND ordinal > 0 AND refused = '[]' AND model LIKE ?"
            " ORDER BY made_at DESC, ordinal",
            (lecture_id, content_hash, f"% {VERSION}"),
        ).fetchall()
        first = (rows[0][0], rows[0][1]) if rows else None
        return [str(r[2]) for r in rows if (r[0], r[1]) == first and r[2]]

    def lectures_written(self, model: str, language: str) -> set[str]:
        """The lectures whose gist this model wrote in this language (whole summaries)."""
        rows = self.store.connection.execute(
            "SELECT p.lecture_id FROM summary_parts p JOIN lectures l ON l.id = p.lecture_id"
            " WHERE p.model = ? AND p.language = ? AND p.ordinal = ? AND"
            " p.content_hash = l.content_hash",
            (model, language, GIST),
        ).fetchall()
        return {str(r[0]) for r in rows}
