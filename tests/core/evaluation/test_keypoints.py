"""The key-point scorer: which answers state a point, and which citations are right."""

from __future__ import annotations

import pytest

from lecturetui.core.evaluation.keypoints import (
    CitedExcerpt,
    KeyPoint,
    score_answer,
    stated,
)
from lecturetui.core.evaluation.metrics import Gold, Span

GPU = KeyPoint.from_json(
    {
        "point": "TensorFlow prefers the GPU.",
        "en": ["prioritizes the GPU", "GPU first"],
        "pt": ["prioriza a GPU", "prefere a GPU"],
    }
)
LANGS = {"en", "pt", ""}


@pytest.mark.parametrize(
    "answer",
    [
        "O TensorFlow sempre prioriza a GPU [1].",
        "Ele prioriza as GPUs, mesmo com CPUs disponíveis [1].",
        "TensorFlow prioritizes GPUs even when a CPU is there.",
        "Ele PREFERE a gpu para as operações.",  # case and stemming
        "It runs on the GPU first.",
    ],
)
def test_a_point_is_stated_in_either_language_and_inflection(answer: str) -> None:
    assert stated(answer, GPU, LANGS).stated


@pytest.mark.parametrize(
    "answer",
    [
        "O TensorFlow prioriza a execução em um dispositivo específico [1].",
        "A GPU é uma placa de vídeo. O TensorFlow não diz o que prioriza em outras palavras.",
        "",
    ],
)
def test_a_point_is_not_stated_by_related_words_far_apart(answer: str) -> None:
    assert not stated(answer, GPU, LANGS).stated


def test_accents_do_not_matter() -> None:
    point = KeyPoint.from_json({"point": "p", "pt": ["paralelização de operações"]})
    assert stated("a paralelizacao das operacoes", point, {"pt"}).stated


def test_coverage_and_citation_precision() -> None:
    memory = KeyPoint.from_json({"point": "From memory.", "en": ["main memory"]})
    gold = Gold(spans=(Span("lec-a", 100.0, 160.0),))
    excerpts = [
        CitedExcerpt(1, ("lec-a", "Aula A"), 120.0, 240.0, "the next instruction"),  # gold span
        CitedExcerpt(2, ("lec-b", "Aula B"), 0.0, 60.0, "it prioritizes the GPU"),  # states a point
        CitedExcerpt(3, ("lec-c", "Aula C"), 0.0, 60.0, "something else entirely"),  # wrong
    ]
    score = score_answer(
        "TensorFlow prioritizes the GPU [1][2]. Instructions come from disk [3].",
        [GPU, memory],
        excerpts,
        gold,
    )
    assert score.coverage == 0.5 and score.stated == 1
    assert [p.stated for p in score.points] == [True, False]
    assert score.citations == 3
    assert score.citation_precision == pytest.approx(2 / 3)
    assert score.words == 10


def test_no_citation_gives_no_precision_and_unknown_numbers_are_ignored() -> None:
    assert score_answer("GPU first.", [GPU]).citation_precision is None
    assert score_answer("GPU first [7].", [GPU], []).citations == 0


def test_a_bare_string_is_its_own_wording_and_a_point_needs_text() -> None:
    assert stated("use the main memory", KeyPoint.from_json("main memory"), {"en"}).stated
    with pytest.raises(ValueError):
        KeyPoint.from_json({"en": ["x"]})


def test_a_numeral_is_not_dropped_as_an_article() -> None:
    point = KeyPoint.from_json({"point": "p", "pt": ["dois muitos para um"]})
    assert not stated("um relacionamento muitos para muitos", point, {"pt"}).stated
    assert stated("vira dois relacionamentos muitos para um", point, {"pt"}).stated


def test_a_negated_wording_is_not_stated_unless_the_wording_is_negative() -> None:
    sort = KeyPoint.from_json(
        {"point": "sort changes the list", "en": ["changes the list"], "pt": ["altera a lista"]}
    )
    assert stated("sort() changes the list itself", sort, LANGS).stated
    assert not stated("sort() does not change the list itself", sort, LANGS).stated
    assert not stated("Ele não altera a própria lista.", sort, LANGS).stated
    assert not stated("sort doesn't change the list", sort, LANGS).stated
    secret = KeyPoint.from_json({"point": "no encryption", "en": ["does not encrypt"]})
    assert stated("Telnet does not encrypt what it sends", secret, LANGS).stated
