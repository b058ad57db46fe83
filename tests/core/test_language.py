"""A question's language is told among the widely written languages: a short question in a
major language is not taken for a regional variety or a creole of its neighbours."""

from __future__ import annotations

import pytest

from lecturetui.core.language import LANGUAGES, language_code, tell


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("qual a diferenca entre lista e tupla", "pt"),  # was Extremaduran
        ("explica de novo", "pt"),  # was Galician
        ("diferencia entre lista y tupla", "es"),  # was Aragonese
        ("what does append do", "en"),
        ("O que é um tensor?", "pt"),
    ],
)
def test_a_short_question_is_told_its_language(question: str, language: str) -> None:
    assert language_code(question) == language


def test_every_language_told_is_one_the_answer_model_can_be_asked_for() -> None:
    for question in ("GPU ou CPU?", "e o gradiente?", "pra que serve o dicionario", "why?"):
        assert language_code(question) in LANGUAGES
    told = tell("Por que o gmodel.py apaga e recria o index toda vez?")
    assert told.name == "Portuguese" and told.code == "pt"
    behind = told.behind("en")
    assert behind is not None and behind > 0 and told.behind("pt") == 0.0


@pytest.mark.parametrize(
    ("question", "likely", "language"),
    [
        ("GPU ou CPU?", ("pt",), "pt"),  # French and Portuguese score even: the library's wins
        ("pra que serve o dicionario", ("en", "pt"), "pt"),  # Spanish by 2.4 nats alone
        ("list vs tuple", ("en",), "en"),  # Slovenian alone
        ("diferencia entre lista y tupla", ("pt",), "es"),  # a clear margin is kept
        ("What is the difference between a list and a tuple?", ("pt",), "en"),
    ],
)
def test_the_library_s_and_the_interface_s_languages_win_a_near_tie(
    question: str, likely: tuple[str, ...], language: str
) -> None:
    assert language_code(question, likely) == language
