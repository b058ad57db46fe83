"""The judge's prompts and replies, with a scripted model; one run with the real 1.5B judge."""

from __future__ import annotations

import json

import pytest

from lecturetui.core.evaluation.judge import (
    Groundedness,
    Judge,
    Relevance,
    auto_label,
    statements,
)
from tests.fakes import FakeJudgeModel


def ar(score: int) -> str:
    return json.dumps({"criteria": "c", "supporting_evidence": "e", "score": score})


def test_answer_relevance_reads_score_and_reasoning_like_the_seeds() -> None:
    model = FakeJudgeModel([ar(2)])
    rel = Judge(model).answer_relevance("Q?", "An answer.")
    assert rel.score == 2 and rel.value == pytest.approx(2 / 3)
    assert rel.reasoning == "Criteria: c Supporting Evidence: e Score: 2"
    messages, schema = model.calls[0]
    assert (
        "PROMPT: Q?" in messages[1]["content"] and "RESPONSE: An answer." in messages[1]["content"]
    )
    assert schema["properties"]["score"]["enum"] == [0, 1, 2, 3]  # type: ignore[index]


def test_an_unreadable_reply_is_retried_once_then_an_error_not_a_score() -> None:
    model = FakeJudgeModel(["not json", ar(3)])
    assert Judge(model).answer_relevance("Q?", "A.").score == 3
    model = FakeJudgeModel(["{", json.dumps({"criteria": "c", "score": 7})])
    rel = Judge(model).answer_relevance("Q?", "A.")
    assert rel.score is None and rel.value is None and "not 0-3" in (rel.error or "")
    assert len(model.calls) == 2
    assert rel.reasoning.startswith("(judge error")


def test_empty_answer_scores_zero_without_asking() -> None:
    model = FakeJudgeModel()
    assert Judge(model).answer_relevance("Q?", "  ").score == 0
    assert model.calls == []


def test_groundedness_counts_supported_statements() -> None:
    answer = "A GPU faz contas [1]. Ok. Tensor cores multiplicam matrizes [2]."
    assert statements(answer) == ["A GPU faz contas .", "Tensor cores multiplicam matrizes ."]
    model = FakeJudgeModel([json.dumps({"supported": [True, False]})])
    g = Judge(model).groundedness(answer, ["excerpt one", "excerpt two"])
    assert g.value == 0.5
    _, schema = model.calls[0]
    assert schema["properties"]["supported"]["minItems"] == 2  # type: ignore[index]
    assert "EXCERPT [2]: excerpt two" in model.calls[0][0][1]["content"]
    wrong_length = json.dumps({"supported": [True]})
    g = Judge(FakeJudgeModel([wrong_length, wrong_length])).groundedness(answer, ["x"])
    assert g.value is None and "expected 2" in (g.error or "")


def test_context_relevance_per_segment() -> None:
    model = FakeJudgeModel([json.dumps({"reason": "r", "score": s}) for s in (3, 0, "x", "x")])
    ctx = Judge(model).context_relevance("Q?", ["a", "b", "c"])
    assert ctx.scores == [3, 0, None]
    assert ctx.value == pytest.approx(0.5)  # the failed one is left out, not counted as 0


@pytest.mark.parametrize(
    ("score", "grounded", "label"),
    [
        (3, [True, True, False], "C"),
        (3, [True, False, False], "P"),
        (3, [], "C"),
        (2, [True], "P"),
        (1, [True], "I"),
        (0, [], "I"),
        (None, [True], None),
    ],
)
def test_auto_label_thresholds(score: int | None, grounded: list[bool], label: str | None) -> None:
    g = Groundedness([f"s{i}" for i in range(len(grounded))], grounded)
    assert auto_label(Relevance(score), g) == label


@pytest.mark.slow
def test_real_judge_scores_a_correct_answer_above_a_wrong_one() -> None:
    from lecturetui.core.llm.generation import LlamaGenerator
    from lecturetui.core.models.gguf import BUNDLED, DEFAULT_LLM, assemble
    from tests.conftest import MODELS_DIR

    generator = LlamaGenerator(assemble(BUNDLED[DEFAULT_LLM], MODELS_DIR), n_ctx=2048)
    try:
        judge = Judge(generator)
        question = "O que é um Tensor Core nas GPUs da NVidia?"
        right = (
            "Um Tensor Core é uma unidade das GPUs da NVidia que faz multiplicação de matriz e"
            " soma de vetores num único passo de tempo, a operação fundamental do back propagation."
        )
        wrong = "O Moodle é a plataforma onde ficam as atividades dirigidas da disciplina."
        good, bad = judge.answer_relevance(question, right), judge.answer_relevance(question, wrong)
        assert good.score is not None and bad.score is not None
        assert good.score > bad.score
        assert good.criteria and good.evidence
        excerpt = (
            "o que é esse tensor Core é basicamente multiplicação de matriz e vetor feita num"
            " passo de tempo ... a operação de multiplicação de matriz soma de vetores que é a"
            " operação fundamental do cálculo de back propagation"
        )
        grounded = judge.groundedness(right + " A NVidia foi fundada em Marte em 1850.", [excerpt])
        assert grounded.supported == [True, False]
    finally:
        generator.close()
