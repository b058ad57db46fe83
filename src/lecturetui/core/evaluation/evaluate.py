"""Running an evaluation: per question retrieval, the answer, the judge; saved as it goes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from lecturetui.core.answer.prompting import Passage
from lecturetui.core.answer.result import Answer
from lecturetui.core.conversation import Turn
from lecturetui.core.evaluation.judge import PROMPT_VERSION, Judge, auto_label
from lecturetui.core.evaluation.keypoints import CitedExcerpt, KeyPointScore, score_answer
from lecturetui.core.evaluation.questions import EvalQuestion, QuestionSet
from lecturetui.core.evaluation.retrieval_scores import score_hits
from lecturetui.core.evaluation.saved_runs import (
    EvalPayload,
    EvalRecord,
    JudgeRecord,
    Runs,
    run_key,
)
from lecturetui.core.i18n import _
from lecturetui.core.library import Library
from lecturetui.core.llm.model import Generator
from lecturetui.core.progress import NotedProgress as EvalProgress
from lecturetui.core.question_options import DEFAULT_TTFT_S
from lecturetui.core.records import AnswerRecord
from lecturetui.core.requests.door import answer_request
from lecturetui.core.requests.kinds import Result, kind_of
from lecturetui.core.requests.words import Question, QuestionSettings
from lecturetui.core.retrieval.fusion import FusionConfig
from lecturetui.core.retrieval.scope import Scope

#: the judge setting of a run without the LLM judge
NO_JUDGE = "none"


@dataclass(frozen=True, slots=True)
class EvalSettings:
    mode: str = "hybrid"
    k: int = 10
    llm: str = ""
    judge: str = ""  # NO_JUDGE: answers scored by their key points only
    answer_tokens: int = 512
    n_ctx: int = 4096
    fusion: str = field(default_factory=lambda: FusionConfig().describe())
    judge_prompts: int = PROMPT_VERSION
    seed: int = 0  # the answers' sampling seed, so a run can be reproduced
    ttft_s: float = DEFAULT_TTFT_S  # the answers' time budget to the first token (0: none)
    courses: tuple[str, ...] = ()  # the scope the questions are asked in (none: everything)
    lectures: tuple[str, ...] = ()
    guess: bool = False  # searched with the lecturer's guess too (core/answer/guess.py)
    temperature: float = 0.0  # the answers' sampling temperature (0: greedy)

    def as_dict(self) -> dict[str, Any]:
        """The settings that identify a run (an empty scope and no guess are left out, so runs
        made before they existed keep their identity)."""
        data = asdict(self)
        for key in ("courses", "lectures"):
            if data[key]:
                data[key] = list(data[key])
            else:
                del data[key]
        if not data["guess"]:
            del data["guess"]
        return data

    def scope(self) -> Scope:
        return Scope(self.courses, self.lectures)


@dataclass(slots=True)
class EvalOutcome:
    run_id: int
    records: list[EvalRecord]
    evaluated: int  # questions done in this call (the others were already in the run)
    seconds_per_question: float | None


def evaluate_question(
    library: Library,
    generator: Generator,
    judge: Judge | None,
    question: EvalQuestion,
    settings: EvalSettings,
    stop: threading.Event | None = None,
    on_step: Callable[[str], None] | None = None,
) -> EvalPayload:
    """Everything the report shows of one question."""
    step = on_step or (lambda _what: None)
    t0 = time.perf_counter()
    # TRANSLATORS: the steps of evaluating one question, shown as "Q3: answering"
    step(_("answering"))
    searching = QuestionSettings(
        k=settings.k,
        mode=settings.mode,
        scope=settings.scope(),
        guess="on" if settings.guess else "off",
        ttft_s=settings.ttft_s,
        answer_tokens=settings.answer_tokens,
    )
    asked = question.question.strip()
    way, result = answer_request(library, Question(Turn(asked, asked)), generator, searching, stop)
    answer = as_answer(result, asked)
    t1 = time.perf_counter()
    verdict = JudgeRecord()
    if judge is not None:
        step(_("judging answer relevance"))
        relevance = judge.answer_relevance(question.question, answer.text)
        step(_("judging groundedness"))
        grounded = judge.groundedness(answer.text, [p.text for p in answer.passages])
        step(_("judging context relevance"))
        context = judge.context_relevance(question.question, [h.segment.text for h in answer.hits])
        verdict = JudgeRecord(relevance, grounded, context, auto_label(relevance, grounded))
    t2 = time.perf_counter()
    retrieval = score_hits(library, question, answer.hits, settings.mode)
    record = answer.record()
    base = {f.name: getattr(record, f.name) for f in fields(AnswerRecord)}
    base["timings"] = {
        **answer.timings,
        "answer_s": t1 - t0,
        "judge_s": t2 - t1,
        "total_s": t2 - t0,
    }
    return EvalPayload(
        **base,
        number=question.number,
        mode=settings.mode,
        reference_answer=question.reference_answer,
        retrieval=retrieval,
        judge=verdict,
        key_points=key_point_score(question, answer.text, answer.passages),
        answered_as=way.answered_as,
    )


def as_answer(result: Result, question: str) -> Answer:
    """What the report scores: the answer; a lecture's summary or a course's overview as the
    text a student reads (its kind's, core/requests/kinds.py), citing no passage."""
    if isinstance(result, Answer):
        return result
    text = kind_of(result).text(result)
    return Answer(question, text, [], [], [], result.stopped, timings=dict(result.timings))


def key_point_score(
    question: EvalQuestion, answer: str, passages: Sequence[Passage]
) -> KeyPointScore | None:
    """The answer against the question's key points (None when the file gives none)."""
    if not question.key_points:
        return None
    excerpts = [
        CitedExcerpt(
            p.number, (p.lecture_id, p.lecture_title), p.start, p.end, p.text, tuple(p.corpus_ids)
        )
        for p in passages
    ]
    return score_answer(answer, question.key_points, excerpts, question.gold)


def run_evaluation(
    library: Library,
    questions: QuestionSet,
    settings: EvalSettings,
    generator: Generator,
    judge: Judge | None,
    force: bool = False,
    progress: EvalProgress | None = None,
    stop: threading.Event | None = None,
) -> EvalOutcome:
    """Evaluate every question not yet in this run (all of them with `force`).

    Each record is committed when its question is done, so an interrupted run keeps what it
    finished and the next call goes on from there.
    """
    runs = Runs(library.store)
    run_id = runs.open(
        run_key(questions.sha256, settings.as_dict()),
        questions.path.name,
        {**settings.as_dict(), "questions": str(questions.path)},
        fresh=force,
    )
    done = runs.done(run_id)
    todo: Sequence[EvalQuestion] = [q for q in questions.questions if q.number not in done]
    total = len(questions.questions)
    finished = total - len(todo)
    t0 = time.perf_counter()
    for q in todo:
        if stop is not None and stop.is_set():
            break

        def on_step(what: str, q: EvalQuestion = q, n: int = finished) -> None:
            if progress:
                # TRANSLATORS: a question of the evaluation and what is being done: "Q3: answering"
                progress(n, total, _("Q{number}: {step}").format(number=q.number, step=what))

        payload = evaluate_question(library, generator, judge, q, settings, stop, on_step)
        if payload.stopped:
            break  # an answer cut short is not a result
        runs.save(run_id, q.number, q.question, payload)
        finished += 1
        if progress:
            progress(finished, total, _("Q{number}: done").format(number=q.number))
    evaluated = finished - (total - len(todo))
    per_question = (time.perf_counter() - t0) / evaluated if evaluated else None
    return EvalOutcome(run_id, runs.records(run_id), evaluated, per_question)
