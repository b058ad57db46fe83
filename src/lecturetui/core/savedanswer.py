"""An answer as the history keeps it (Answer.to_json), read back typed for the exports."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.moments import Moment


@dataclass(frozen=True, slots=True)
class Citation:
    """Passage [number] of an answer: a moment, and what was said in it."""

    number: int
    moment: Moment
    text: str


@dataclass(frozen=True, slots=True)
class SavedAnswer:
    """A question, its answer (with [n] markers) and the passages it cites."""

    question: str
    text: str
    citations: tuple[Citation, ...]
    entry_id: int | None = None  # its history entry
    asked_at: str | None = None
    stopped: bool = False  # the answer was stopped before its end

    def citation(self, number: int) -> Citation | None:
        return next((c for c in self.citations if c.number == number), None)

    @classmethod
    def from_json(
        cls, payload: Mapping[str, object], entry_id: int | None = None, asked_at: str | None = None
    ) -> SavedAnswer:
        """From Answer.to_json() (what the history keeps); missing or odd fields are skipped."""
        items = payload.get("citations")
        citations = tuple(
            c
            for c in (_citation(item) for item in (items if isinstance(items, list) else []))
            if c is not None
        )
        return cls(
            str(payload.get("question") or ""),
            str(payload.get("answer") or ""),
            citations,
            entry_id,
            asked_at,
            bool(payload.get("stopped")),
        )


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _citation(item: object) -> Citation | None:
    if not isinstance(item, dict):
        return None
    number, start, end = (_number(item.get(k)) for k in ("number", "start_s", "end_s"))
    if number is None or start is None or end is None:
        return None
    course, url = item.get("course"), item.get("url")
    moment = Moment(
        str(item.get("lecture") or ""),
        str(item.get("lecture_title") or item.get("lecture") or ""),
        course if isinstance(course, str) else None,
        start,
        end,
        url if isinstance(url, str) else None,
    )
    return Citation(int(number), moment, str(item.get("text") or ""))


def saved_answer(db: sqlite3.Connection, entry_id: int | None = None) -> SavedAnswer:
    """History entry `entry_id` (None: the latest answer). Raises LectureTuiError."""
    if entry_id is None:
        row = db.execute(
            "SELECT id, asked_at, payload FROM history ORDER BY id DESC LIMIT 1"
        ).fetchone()
    else:
        row = db.execute(
            "SELECT id, asked_at, payload FROM history WHERE id = ?", (entry_id,)
        ).fetchone()
    if row is None:
        recent = db.execute("SELECT id, question FROM history ORDER BY id DESC LIMIT 5").fetchall()
        listed = "; ".join(f"{r[0]}: {str(r[1])[:40]}" for r in recent)
        raise LectureTuiError(
            "There is no answer in the history yet."
            if not recent
            else f"There is no answer {entry_id} in the history.",
            hint=f"the latest: {listed}" if recent else 'ask one first: lecturetui ask "…"',
        )
    try:
        payload = json.loads(row[2])
    except ValueError:
        payload = None
    if not isinstance(payload, dict):
        raise LectureTuiError(f"The history entry {row[0]} cannot be read.",
                              hint="ask the question again")  # fmt: skip
    return SavedAnswer.from_json(payload, int(row[0]), str(row[1]))
