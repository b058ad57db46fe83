"""Question sets for `lecturetui eval`: JSONL or CSV, one question per line or row.

Fields: `question` (required); `number`; gold evidence as `corpus_ids` (a list, or "6702;6703" in
CSV) and/or `lecture` + `start` + `end` (seconds or hh:mm:ss), or `spans` (a list of such
objects, JSONL only); `reference_answer` (or `reference`); `reference_ranking` (a list of corpus
ids or of {"corpus_id": ...} objects: another system's top-k, to compare with); `key_points`
(JSONL only: what a correct answer must state, core/evaluation/keypoints.py).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.evaluation.keypoints import KeyPoint
from lecturetui.core.evaluation.metrics import Gold, Span
from lecturetui.core.i18n import N_, _
from lecturetui.core.timefmt import parse_timestamp

_HINT = N_("see 'Evaluation' in the README for the question file format")


@dataclass(frozen=True, slots=True)
class EvalQuestion:
    number: int
    question: str
    gold: Gold = field(default_factory=Gold)
    reference_answer: str | None = None
    reference_ranking: tuple[int, ...] = ()
    key_points: tuple[KeyPoint, ...] = ()


@dataclass(frozen=True, slots=True)
class QuestionSet:
    path: Path
    sha256: str
    questions: list[EvalQuestion]


def load_questions(path: Path) -> QuestionSet:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise LectureTuiError(
            _("The question file {path} cannot be read ({reason}).").format(
                path=path, reason=exc.strerror
            )
        ) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise LectureTuiError(
            _("The question file {path} is not UTF-8 text.").format(path=path), hint=_(_HINT)
        ) from None
    rows = _csv_rows(text) if path.suffix.lower() == ".csv" else _jsonl_rows(text, path)
    questions: list[EvalQuestion] = []
    numbers: set[int] = set()
    for line, row in rows:
        q = _question(row, len(questions) + 1, path, line)
        if q.number in numbers:
            raise LectureTuiError(
                _("{path}, line {line}: question number {number} is repeated.").format(
                    path=path, line=line, number=q.number
                ),
                hint=_("give each question its own number"),
            )
        numbers.add(q.number)
        questions.append(q)
    if not questions:
        raise LectureTuiError(
            _("The question file {path} has no questions.").format(path=path), hint=_(_HINT)
        )
    return QuestionSet(path, hashlib.sha256(raw).hexdigest(), questions)


def _jsonl_rows(text: str, path: Path) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LectureTuiError(
                _("{path}, line {line}: is not valid JSON ({reason}).").format(
                    path=path, line=n, reason=exc.msg
                ),
                hint=_(_HINT),
            ) from None
        if not isinstance(row, dict):
            raise LectureTuiError(
                _("{path}, line {line}: is not a JSON object.").format(path=path, line=n),
                hint=_(_HINT),
            )
        rows.append((n, row))
    return rows


def _csv_rows(text: str) -> list[tuple[int, dict[str, Any]]]:
    reader = csv.DictReader(io.StringIO(text))
    return [
        (reader.line_num, {k.strip(): v for k, v in row.items() if k and v not in (None, "")})
        for row in reader
    ]


def _question(row: dict[str, Any], default_number: int, path: Path, line: int) -> EvalQuestion:
    question = str(row.get("question") or "").strip()
    if not question:
        raise LectureTuiError(
            _("{path}, line {line}: has no 'question'.").format(path=path, line=line),
            hint=_(_HINT),
        )
    try:
        number = int(row.get("number", default_number))
        corpus_ids = frozenset(_ints(row.get("corpus_ids")))
        spans = [_span(s) for s in row.get("spans", []) if isinstance(row.get("spans"), list)]
        if row.get("lecture") is not None:
            spans.append(_span(row))
        ranking = tuple(
            int(r["corpus_id"] if isinstance(r, dict) else r)
            for r in row.get("reference_ranking") or []
        )
        points = row.get("key_points") or []
        key_points = tuple(
            KeyPoint.from_json(p) for p in (points if isinstance(points, list) else [])
        )
    except (TypeError, ValueError, KeyError) as exc:
        raise LectureTuiError(
            _("{path}, line {line}: has a malformed field ({exc}).").format(
                path=path, line=line, exc=exc
            ),
            hint=_(_HINT),
        ) from None
    reference = row.get("reference_answer") or row.get("reference")
    return EvalQuestion(
        number=number,
        question=question,
        gold=Gold(corpus_ids, tuple(spans)),
        reference_answer=str(reference) if reference else None,
        reference_ranking=ranking,
        key_points=key_points,
    )


def _ints(value: Any) -> list[int]:
    if value is None:
        return []
    if isinstance(value, str):
        return [int(v) for v in re.split(r"[;,\s]+", value.strip()) if v]
    if isinstance(value, int):
        return [value]
    return [int(v) for v in value]


def _span(data: dict[str, Any]) -> Span:
    lecture = str(data["lecture"])
    start, end = parse_timestamp(data["start"]), parse_timestamp(data["end"])
    if end <= start:
        raise ValueError(
            _("span {start}-{end} of {lecture} ends before it starts").format(
                start=data["start"], end=data["end"], lecture=lecture
            )
        )
    return Span(lecture, start, end)
