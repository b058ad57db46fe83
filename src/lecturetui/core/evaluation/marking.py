"""Marking a library against a question set, gathered for the faces (the command line reaches
the evaluation through here): the questions (questions.py), running them with an answer model
and a judge (evaluate.py, judge.py), the retrieval's scores alone (retrieval_scores.py), the
saved runs (saved_runs.py) and the report (report.py)."""

from __future__ import annotations

from lecturetui.core.evaluation.evaluate import NO_JUDGE, EvalSettings, run_evaluation
from lecturetui.core.evaluation.judge import Judge
from lecturetui.core.evaluation.questions import QuestionSet, load_questions
from lecturetui.core.evaluation.report import render_report, render_retrieval_table
from lecturetui.core.evaluation.retrieval_scores import evaluate_retrieval
from lecturetui.core.evaluation.saved_runs import EvalRecord, RunInfo, Runs, run_key

__all__ = [
    "NO_JUDGE",
    "EvalRecord",
    "EvalSettings",
    "Judge",
    "QuestionSet",
    "RunInfo",
    "Runs",
    "evaluate_retrieval",
    "load_questions",
    "render_report",
    "render_retrieval_table",
    "run_evaluation",
    "run_key",
]
