"""Evaluation runs in the library database: one record per question, saved as it is done.

A run is identified by the question file's content and the settings, so running the same
evaluation again continues it (questions already done are skipped) and keeps the manual labels.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from lecturetui.core.evaluation.judge import ContextRelevance, Groundedness, Relevance
from lecturetui.core.evaluation.keypoints import KeyPointScore
from lecturetui.core.evaluation.retrieval_scores import QuestionRetrieval
from lecturetui.core.i18n import _
from lecturetui.core.library import Library
from lecturetui.core.records import AnswerRecord, from_json, to_json
from lecturetui.core.storage.store import Store
from lecturetui.core.timefmt import utc_now

LABELS = ("C", "P", "I")


@dataclass(frozen=True, slots=True)
class RunInfo:
    id: int
    name: str
    created_at: str
    settings: dict[str, object]
    records: int
    annotated: int


@dataclass(frozen=True, slots=True)
class JudgeRecord:
    """The judge's three readings of an answer (core/evaluation/judge.py)."""

    answer_relevance: Relevance = field(default_factory=lambda: Relevance(None, error="not judged"))
    groundedness: Groundedness = field(default_factory=Groundedness)
    context_relevance: ContextRelevance = field(default_factory=ContextRelevance)
    auto_label: str | None = None


@dataclass(frozen=True, slots=True)
class EvalPayload(AnswerRecord):
    """Everything the report shows of one question: the answer's record, plus how it was
    asked, its retrieval scored against the gold segments, and the judge's readings."""

    number: int = 0
    mode: str = "dense"
    reference_answer: str | None = None
    retrieval: QuestionRetrieval | None = None
    judge: JudgeRecord = field(default_factory=JudgeRecord)
    key_points: KeyPointScore | None = None  # when the question file gives key points
    #: what the front door answered it as (core/requests/door.py): "moment", or "summary"/"course"
    #: for a question that asks for a lecture's summary or a course's overview
    answered_as: str = "moment"


@dataclass(slots=True)
class EvalRecord:
    number: int
    question: str
    payload: EvalPayload
    manual_label: str | None = None

    @property
    def auto_label(self) -> str | None:
        return self.payload.judge.auto_label or None


def run_key(questions_sha256: str, settings: dict[str, Any]) -> str:
    blob = json.dumps({"questions": questions_sha256, **settings}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


class Runs:
    """The evaluation runs kept in a library (`Runs.of(library)`)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    @classmethod
    def of(cls, library: Library) -> Runs:
        return cls(library.store)

    @property
    def db(self) -> sqlite3.Connection:
        return self.store.connection

    def open(self, key: str, name: str, settings: dict[str, Any], fresh: bool = False) -> int:
        """The run with this key (created if new; emptied of its records if `fresh`)."""
        with self.store.transaction():
            row = self.db.execute("SELECT id FROM eval_runs WHERE key = ?", (key,)).fetchone()
            if row is None:
                cur = self.db.execute(
                    "INSERT INTO eval_runs (key, name, created_at, settings) VALUES (?, ?, ?, ?)",
                    (key, name, utc_now(), json.dumps(settings, ensure_ascii=False)),
                )
                return int(cur.lastrowid or 0)
            if fresh:
                self.db.execute("DELETE FROM eval_records WHERE run_id = ?", (row[0],))
            return int(row[0])

    def find(self, key: str) -> int | None:
        row = self.db.execute("SELECT id FROM eval_runs WHERE key = ?", (key,)).fetchone()
        return None if row is None else int(row[0])

    def done(self, run_id: int) -> set[int]:
        rows = self.db.execute("SELECT number FROM eval_records WHERE run_id = ?", (run_id,))
        return {int(r[0]) for r in rows}

    def save(self, run_id: int, number: int, question: str, payload: EvalPayload) -> None:
        """Store a record (replacing one of the same number, keeping its manual label)."""
        with self.store.transaction():
            self.db.execute(
                "INSERT INTO eval_records (run_id, number, question, payload) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (run_id, number) DO UPDATE SET question = excluded.question,"
                " payload = excluded.payload",
                (run_id, number, question, json.dumps(to_json(payload), ensure_ascii=False)),
            )

    def records(self, run_id: int) -> list[EvalRecord]:
        rows = self.db.execute(
            "SELECT number, question, payload, manual_label FROM eval_records WHERE run_id = ?"
            " ORDER BY number",
            (run_id,),
        )
        return [
            EvalRecord(
                int(r[0]),
                str(r[1]),
                from_json(
                    json.loads(r[2]),
                    EvalPayload,
                    _("evaluation record {number}").format(number=r[0]),
                ),
                r[3],
            )
            for r in rows
        ]

    def annotate(self, run_id: int, number: int, label: str | None) -> None:
        if label is not None and label not in LABELS:
            raise ValueError(f"a manual label is one of {', '.join(LABELS)}")
        with self.store.transaction():
            self.db.execute(
                "UPDATE eval_records SET manual_label = ?, annotated_at = ?"
                " WHERE run_id = ? AND number = ?",
                (label, utc_now() if label else None, run_id, number),
            )

    def list(self) -> list[RunInfo]:
        rows = self.db.execute(
            "SELECT r.id, r.name, r.created_at, r.settings, count(e.number),"
            " count(e.manual_label) FROM eval_runs r LEFT JOIN eval_records e ON e.run_id = r.id"
            " GROUP BY r.id ORDER BY r.id DESC"
        )
        return [
            RunInfo(int(r[0]), str(r[1]), str(r[2]), json.loads(r[3]), int(r[4]), int(r[5]))
            for r in rows
        ]

    def info(self, run_id: int) -> RunInfo | None:
        return next((r for r in self.list() if r.id == run_id), None)
