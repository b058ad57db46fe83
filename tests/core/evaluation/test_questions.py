"""Question files: JSONL and CSV, gold evidence, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.evaluation.metrics import Span
from lecturetui.core.evaluation.questions import load_questions


def test_jsonl_with_every_kind_of_evidence(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(
        '{"number": 19, "question": "Q19?", "corpus_ids": [6703, 6702],'
        ' "reference_ranking": [{"corpus_id": 6703, "score": 0.9}, {"corpus_id": 1}],'
        ' "reference_answer": "R"}\n'
        "\n"
        '{"question": "Q2?", "lecture": "aula-D", "start": "00:35:40", "end": 2200}\n'
        '{"question": "Q3?"}\n',
        encoding="utf-8",
    )
    qs = load_questions(path)
    q1, q2, q3 = qs.questions
    assert q1.number == 19 and q1.gold.corpus_ids == {6702, 6703}
    assert q1.reference_ranking == (6703, 1) and q1.reference_answer == "R"
    assert q2.number == 2 and q2.gold.spans == (Span("aula-D", 2140.0, 2200.0),)
    assert q3.number == 3 and not q3.gold
    assert len(qs.sha256) == 64


def test_csv_questions(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_text(
        "number,question,corpus_ids,lecture,start,end\n"
        '1,"O que é, afinal, um tensor?",6702;6703,,,\n'
        "2,Quando?,,aula-b,00:38:00,00:38:30\n",
        encoding="utf-8",
    )
    q1, q2 = load_questions(path).questions
    assert q1.question == "O que é, afinal, um tensor?" and q1.gold.corpus_ids == {6702, 6703}
    assert q2.gold.spans == (Span("aula-b", 2280.0, 2310.0),)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"question": "a"}\n{"broken"\n', "line 2: is not valid JSON"),
        ('{"number": 1}\n', "line 1: has no 'question'"),
        ('{"question": "a", "number": 1}\n{"question": "b", "number": 1}\n', "repeated"),
        ('{"question": "a", "lecture": "x", "start": 10, "end": 5}\n', "ends before it starts"),
        ('{"question": "a", "corpus_ids": ["x"]}\n', "malformed field"),
        ("\n\n", "has no questions"),
        ("[1, 2]\n", "is not a JSON object"),
    ],
)
def test_bad_question_files_say_where(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(LectureTuiError, match=message) as info:
        load_questions(path)
    assert info.value.hint


def test_missing_or_binary_file(tmp_path: Path) -> None:
    with pytest.raises(LectureTuiError, match="cannot be read"):
        load_questions(tmp_path / "nope.jsonl")
    (tmp_path / "b.jsonl").write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(LectureTuiError, match="not UTF-8"):
        load_questions(tmp_path / "b.jsonl")
