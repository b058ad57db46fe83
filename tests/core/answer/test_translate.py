"""Cross-language questions: translated by the answer model, searched in the library's language."""

from __future__ import annotations

from pathlib import Path

from lecturetui.core.answer.translate import (
    clean_translation,
    translate,
    translate_messages,
    translator_for,
)
from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from lecturetui.core.requests.words import QuestionSettings
from tests.conftest import SEED_CORPUS
from tests.fakes import FakeEmbedder, FakeGenerator, ask

QUESTION = "Which device does TensorFlow prioritise when it runs operations?"
IN_PORTUGUESE = "Qual dispositivo o TensorFlow prioriza para executar operações?"


def test_a_reply_that_is_not_a_translation_is_dropped() -> None:
    assert clean_translation("o que é um tensor?", 'Tradução: "What is a tensor?"') == (
        "What is a tensor?"
    )
    assert clean_translation("o que é?", "What is it?\nIt is a thing.") == "What is it?"
    assert clean_translation("o que é?", "") is None
    assert clean_translation("o que é?", "A tensor is " + "a very long answer " * 20) is None


def test_translate_asks_for_the_target_language_by_name() -> None:
    system = translate_messages(QUESTION, "pt")[0]["content"]
    assert system.startswith("Translate the user's question into Portuguese.")
    gen = FakeGenerator(translations={QUESTION: IN_PORTUGUESE})
    assert translate(gen, QUESTION, "pt") == IN_PORTUGUESE
    assert gen.translated == [QUESTION]
    assert gen.prompts == []  # a translation is not an answer prompt


def test_only_a_question_in_another_language_is_translated(home: Path) -> None:
    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    library.ingest([SEED_CORPUS])
    gen = FakeGenerator()
    assert (
        translator_for(library, gen, library.asked("O TensorFlow prioriza qual dispositivo?"))
        is None
    )
    assert (
        translator_for(library, None, library.asked(QUESTION)) is None
    )  # no model loaded: no translation
    assert translator_for(library, gen, library.asked(QUESTION)) is not None
    # a short question that mixes terms is not clearly in another language: searched as asked
    assert translator_for(library, gen, library.asked("tensor Flow prioriza GPU")) is None


def test_a_translated_question_finds_what_the_original_words_cannot(home: Path) -> None:
    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    library.ingest([SEED_CORPUS])
    plain = library.search(QUESTION, 3, mode="lexical").hits
    translated = library.search(QUESTION, 3, mode="lexical", translation=IN_PORTUGUESE).hits
    assert len(translated) > len(plain) or [h.segment.id for h in translated] != [
        h.segment.id for h in plain
    ]
    assert any("prioriza" in h.segment.text for h in translated)
    gen = FakeGenerator("O TensorFlow prioriza a GPU [1].", translations={QUESTION: IN_PORTUGUESE})
    result = ask(library, gen, QUESTION, QuestionSettings(ttft_s=0))
    assert gen.translated == [QUESTION]
    searched = library.search(QUESTION, 10, translation=IN_PORTUGUESE).hits
    untranslated = library.search(QUESTION, 10).hits
    assert [h.segment.id for h in result.hits] == [h.segment.id for h in searched]
    assert [h.segment.id for h in searched] != [h.segment.id for h in untranslated]


async def test_the_app_searches_a_question_in_another_language_as_translated(home: Path) -> None:
    from tests.tui.test_tui import ask as ask_in_app
    from tests.tui.test_tui import make_app

    gen = FakeGenerator("O TensorFlow prioriza a GPU [1].", translations={QUESTION: IN_PORTUGUESE})
    app = make_app(home, gen)
    async with app.run_test(size=(160, 32)) as pilot:
        await app.workers.wait_for_complete()
        await ask_in_app(pilot, app, QUESTION)
        assert gen.translated == [QUESTION]
        searched = app.services.library.search(QUESTION, 10, translation=IN_PORTUGUESE).hits
        assert [h.segment_id for h in app.main.hits] == [h.segment.id for h in searched]
