"""An answer as the history keeps it (an AnswerRecord; a summary's or an overview's record, its
text alone), shaped for the exports."""

from __future__ import annotations

from dataclasses import dataclass

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.records import Kept
from lecturetui.core.storage.history import History
from lecturetui.core.study.moments import Moment


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
    def of(
        cls,
        record: Kept,
        text: str,
        entry_id: int | None = None,
        asked_at: str | None = None,
    ) -> SavedAnswer:
        """From the answer's record (what `ask --json` prints and the history keeps) and the
        text it shows (its kind's, core/requests/kinds.py: a summary's or an overview's cites
        nothing of its own)."""
        citations = tuple(
            Citation(
                c.number,
                Moment(
                    c.lecture, c.lecture_title or c.lecture, c.course, c.start_s, c.end_s, c.url
                ),
                c.text,
            )
            for c in record.cited
        )
        return cls(record.question, text, citations, entry_id, asked_at, record.stopped)


def saved_answer(history: History, entry_id: int | None = None) -> SavedAnswer:
    """History entry `entry_id` (None: the latest answer). Raises LectureTuiError."""
    db = history.store.connection
    if entry_id is None:
        row = db.execute(
            "SELECT id, asked_at, answer FROM history ORDER BY id DESC LIMIT 1"
        ).fetchone()
    else:
        row = db.execute(
            "SELECT id, asked_at, answer FROM history WHERE id = ?", (entry_id,)
        ).fetchone()
    if row is None:
        recent = db.execute("SELECT id, question FROM history ORDER BY id DESC LIMIT 5").fetchall()
        listed = "; ".join(f"{r[0]}: {str(r[1])[:40]}" for r in recent)
        raise LectureTuiError(
            _("There is no answer in the history yet.")
            if not recent
            else _("There is no answer {entry_id} in the history.").format(entry_id=entry_id),
            hint=_("the latest: {entries}").format(entries=listed)
            if recent
            else _('ask one first: lecturetui ask "…"'),
        )
    record = history.entry(int(row[0]))
    assert record is not None  # the row is there
    return SavedAnswer.of(record, str(row[2]), int(row[0]), str(row[1]))
