"""Evaluation runs (resumable, with manual labels) and the report in the seeds' format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lecturetui.core.evaluation.evaluate import EvalSettings, run_evaluation
from lecturetui.core.evaluation.judge import Judge
from lecturetui.core.evaluation.questions import load_questions
from lecturetui.core.evaluation.report import parse_report, render_report, summarize
from lecturetui.core.evaluation.saved_runs import Runs
from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from tests.conftest import SEED_CORPUS
from tests.fakes import FakeEmbedder, FakeGenerator, FakeJudgeModel

FIXTURES = Path(__file__).parents[2] / "fixtures"


@pytest.fixture
def library(home: Path) -> Library:
    lib = Library(DataHome.resolve(), embedder=FakeEmbedder())
    lib.ingest([SEED_CORPUS])
    yield lib  # type: ignore[misc]
    lib.close()


@pytest.fixture
def questions(tmp_path: Path) -> Path:
    path = tmp_path / "questions.jsonl"
    rows = [
        {"number": 19, "question": "tensor cores multiplicação de matriz",
         "corpus_ids": [6702, 6703], "reference_ranking": [6703, 6702, 7062]},
        {"number": 43, "question": "o TensorFlow prioriza qual dispositivo GPU ou CPU"},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def run(library: Library, path: Path, force: bool = False, judge: FakeJudgeModel | None = None):  # type: ignore[no-untyped-def]
    return run_evaluation(
        library,
        load_questions(path),
        EvalSettings(llm="fake.gguf", judge="fake-judge.gguf"),
        FakeGenerator(
            "Tensor cores multiplicam matrizes num passo [1]. Isso acelera o treino [2]."
        ),
        Judge(judge or FakeJudgeModel()),
        force,
    )


def test_run_is_saved_resumed_and_forced(library: Library, questions: Path) -> None:
    first = run(library, questions)
    assert first.evaluated == 2 and [r.number for r in first.records] == [19, 43]
    rec = first.records[0].payload
    assert rec.judge.answer_relevance.score == 3
    assert rec.judge.groundedness.value == 1.0
    assert rec.judge.context_relevance.value == pytest.approx(2 / 3)
    assert first.records[0].auto_label == "C"
    assert rec.retrieval is not None and rec.retrieval.metrics["recall@10"] == 1.0
    assert rec.retrieval.reference_overlap is not None
    no_gold = first.records[1].payload.retrieval
    assert no_gold is not None and no_gold.metrics == {}  # no gold evidence
    runs = Runs(library.store)
    runs.annotate(first.run_id, 19, "P")
    again = run(library, questions)
    assert again.evaluated == 0 and again.run_id == first.run_id  # nothing left to do
    assert again.records[0].manual_label == "P"
    forced = run(library, questions, force=True)
    assert forced.evaluated == 2 and forced.run_id == first.run_id
    with pytest.raises(ValueError):
        runs.annotate(first.run_id, 19, "X")


def test_report_has_every_seed_field_and_reads_back(library: Library, questions: Path) -> None:
    judge = FakeJudgeModel([json.dumps({"criteria": "Whole PROMPT.", "supporting_evidence": "It says so.", "score": 2})])  # fmt: skip
    outcome = run(library, questions, judge=judge)
    runs = Runs(library.store)
    runs.annotate(outcome.run_id, 19, "C")
    records = runs.records(outcome.run_id)
    info = runs.info(outcome.run_id)
    assert info is not None and info.annotated == 1
    text = render_report(info, records, "pt")
    parsed = parse_report(text, "pt")
    assert [p["number"] for p in parsed] == [19, 43]
    for rec, back in zip(records, parsed, strict=True):
        p = rec.payload
        assert back["question"] == rec.question
        assert len(back["segments"]) == len(p.hits) == 10
        for hit, seg in zip(p.hits, back["segments"], strict=True):
            assert seg["corpus_id"] == str(hit.corpus_id)
            assert float(seg["score"]) == hit.score  # full precision, as in the seeds
            assert seg["url"] == "oculto"
            assert seg["start"] == hit.start and seg["end"] == hit.end
            assert seg["text"] == " ".join(hit.text.split())
        assert back["answer"] == p.answer
        assert len(back["references"]) == len(p.citations)
        assert back["ar"] == f"{p.judge.answer_relevance.value:.2f}"
        assert back["auto"] == rec.auto_label
        assert back["cot"].startswith("Criteria: ") and " Supporting Evidence: " in back["cot"]
        assert back["cot"].endswith(f"Score: {p.judge.answer_relevance.score}")
        assert back["grounded"].startswith("1.00")
    assert parsed[0]["ar"] == "0.67" and parsed[0]["manual"] == "C" and parsed[0]["auto"] == "P"
    assert parsed[1]["manual"] == "pendente"
    assert text.count("\n---\n") == 3  # after the summary and after each record
    summary = text.split("\n---\n")[0]
    assert "Concordância manual × automatizada: 0%" in summary  # C vs P on the one annotated
    assert "recall@1" in summary and "Top-10 em comum" in summary
    assert "semente 0" in summary  # the answers' seed, to reproduce the run
    english = parse_report(render_report(info, records, "en"), "en")
    assert english[0]["manual"] == "C" and english[1]["manual"] == "pending"
    assert english[0]["segments"][0]["url"] == "hidden"


def test_summary_means_and_kappa(library: Library, questions: Path) -> None:
    outcome = run(library, questions)
    runs = Runs(library.store)
    runs.annotate(outcome.run_id, 19, "C")
    runs.annotate(outcome.run_id, 43, "C")
    s = summarize(runs.records(outcome.run_id))
    assert s.n == 2 and s.answer_relevance == 1.0 and s.auto_counts == {"C": 2}
    assert s.agreement == 1.0 and s.kappa == 1.0 and s.paired == 2
    assert s.with_gold == 1 and s.retrieval["recall@10"] == 1.0


def test_the_parser_reads_the_seed_records() -> None:
    """Our parser (which reads our own reports back) reads the seeds' file the same way."""
    [seed] = parse_report((FIXTURES / "seed_record_000.txt").read_text(encoding="utf-8"))
    assert seed["number"] == 19
    assert len(seed["segments"]) == 10
    first = seed["segments"][0]
    assert first == {
        "corpus_id": "6703", "score": "0.8934205770492554", "url": "oculto",
        "start": "00:43:49", "end": "00:46:06", "text": first["text"],
    }  # fmt: skip
    assert first["text"].startswith("vetores que essa operação fundamental")
    assert seed["answer"].startswith("O treinamento de aprendizado de máquina")
    assert seed["references"] == ["[Vídeo de referência oculto]()"] * 2
    assert seed["manual"] == "C" and seed["ar"] == "1.00" and seed["auto"] == "C"
    assert seed["cot"].startswith("Criteria: ") and seed["cot"].endswith("Score: 3")


def test_key_points_are_scored_without_a_judge(library: Library, tmp_path: Path) -> None:
    """A question file with key points: each answer's coverage and citation precision are in
    the record, the summary and the report; with no judge, nothing is judged."""
    path = tmp_path / "points.jsonl"
    rows = [
        {"number": 1, "question": "tensor cores multiplicação de matriz",
         "corpus_ids": [6702, 6703], "reference": "Multiplicam matrizes num passo.",
         "key_points": [{"point": "Matrix products in one step.", "en": ["multiply matrices"],
                         "pt": ["multiplicam matrizes"]},
                        {"point": "They sum polynomials.", "pt": ["soma de polinômios"]}]},
        {"number": 2, "question": "o TensorFlow prioriza qual dispositivo GPU ou CPU",
         "key_points": [{"point": "The abacus (neither the answer nor its quote says it).",
                         "pt": ["prioriza o ábaco"]}]},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    qset = load_questions(path)
    assert qset.questions[0].reference_answer == "Multiplicam matrizes num passo."
    outcome = run_evaluation(
        library,
        qset,
        EvalSettings(llm="fake.gguf", judge="none"),
        FakeGenerator("Tensor cores multiplicam matrizes num passo [1]. Isso acelera [2]."),
        None,
    )
    first, second = (r.payload for r in outcome.records)
    assert first.key_points is not None and second.key_points is not None
    assert [p.stated for p in first.key_points.points] == [True, False]
    assert first.key_points.coverage == 0.5 and second.key_points.coverage == 0.0
    assert first.key_points.citations >= 1
    assert first.key_points.citation_precision is not None
    assert first.judge.answer_relevance.value is None  # not judged
    s = summarize(outcome.records)
    assert s.with_key_points == 2 and s.key_point_coverage == 0.25
    runs = Runs(library.store)
    info = runs.info(outcome.run_id)
    assert info is not None
    text = render_report(info, outcome.records, "en")
    assert "Key points (2 questions with key points): coverage 0.25" in text
    assert "What the judge's scores are worth" not in text  # no judge ran
    parsed = parse_report(text, "en")
    assert parsed[0]["keypoints"].startswith("1/2 stated")
    assert "✓ Matrix products in one step. · ✗ They sum polynomials." in parsed[0]["keypoints"]


def test_a_question_asking_for_a_summary_is_evaluated_as_one_and_the_report_says_so(
    library: Library, tmp_path: Path
) -> None:
    """Eval asks through the front door (core/requests/door.py): a question that asks for a
    lecture's summary is answered with the summary, and the record and the report say so."""
    path = tmp_path / "mixed.jsonl"
    rows = [
        {"number": 1, "question": "resuma a aula-D"},
        {"number": 2, "question": "o TensorFlow prioriza qual dispositivo GPU ou CPU"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    outcome = run_evaluation(
        library,
        load_questions(path),
        EvalSettings(llm="fake.gguf", judge="none"),
        FakeGenerator("Prioriza a GPU [1]."),
        None,
    )
    summary, moment = (r.payload for r in outcome.records)
    assert (summary.answered_as, moment.answered_as) == ("summary", "moment")
    assert not summary.hits and moment.hits  # a summary is no search
    info = Runs(library.store).info(outcome.run_id)
    assert info is not None
    text = render_report(info, outcome.records, "en")
    assert text.count("asks for a lecture's summary") == 1
    assert not library.history.rows()  # eval keeps nothing in the history
