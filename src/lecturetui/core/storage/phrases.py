"""What a lecture and its parts are about, in key phrases (the `key_phrases` table): found once
when the lecture is ingested (core/study/keyphrases.py) and read back while its content is the
same. A lecture's parts are matched by where they begin."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from lecturetui.core.lectures import Lecture
from lecturetui.core.storage.store import Store

#: the ordinal the lecture's own key phrases are kept under (its parts are 1, 2, ...)
LECTURE = 0


@dataclass(frozen=True, slots=True)
class KeyPhrases:
    """A lecture's key phrases and its parts', by where each part begins (seconds)."""

    lecture: tuple[str, ...] = ()
    parts: dict[float, tuple[str, ...]] = field(default_factory=dict)

    def of_part(self, start: float) -> tuple[str, ...]:
        """The key phrases of the part beginning at `start` (none when no part began there)."""
        return self.parts.get(round(start, 2), ())


class PhraseTable:
    """The key_phrases table of a library's store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def read(self, lecture: Lecture) -> KeyPhrases | None:
        """The lecture's key phrases, None when none were found for its content as it is."""
        rows = self.store.connection.execute(
            "SELECT ordinal, start, phrases FROM key_phrases WHERE lecture_id = ?"
            " AND content_hash = ?",
            (lecture.id, lecture.content_hash),
        ).fetchall()
        if not rows:
            return None
        by_ordinal = {int(o): (float(s), tuple(json.loads(p))) for o, s, p in rows}
        own = by_ordinal.pop(LECTURE, (0.0, ()))[1]
        return KeyPhrases(own, {round(s, 2): p for s, p in by_ordinal.values()})

    def keep(
        self, lecture: Lecture, own: Sequence[str], parts: Sequence[tuple[float, Sequence[str]]]
    ) -> None:
        """Keep the lecture's key phrases and its parts' (by start), replacing what it had."""
        rows = [(LECTURE, 0.0, list(own))] + [
            (n, start, list(found)) for n, (start, found) in enumerate(parts, start=1)
        ]
        with self.store.transaction():
            self.store.connection.execute(
                "DELETE FROM key_phrases WHERE lecture_id = ?", (lecture.id,)
            )
            self.store.connection.executemany(
                "INSERT INTO key_phrases (lecture_id, content_hash, ordinal, start, phrases)"
                " VALUES (?, ?, ?, ?, ?)",
                [
                    (lecture.id, lecture.content_hash, o, s, json.dumps(p, ensure_ascii=False))
                    for o, s, p in rows
                ],
            )

    def missing(self, lectures: Sequence[Lecture]) -> list[Lecture]:
        """The lectures with no key phrases for their content as it is."""
        found = {
            (str(i), str(h))
            for i, h in self.store.connection.execute(
                "SELECT lecture_id, content_hash FROM key_phrases WHERE ordinal = ?", (LECTURE,)
            )
        }
        return [lec for lec in lectures if (lec.id, lec.content_hash) not in found]
