"""The lecturer's guess (core/answer/guess.py): asked of the answer model, searched with the question."""

from __future__ import annotations

from pathlib import Path

import pytest

from lecturetui.core.answer.found import retrieve
from lecturetui.core.answer.guess import (
    clean_guess,
    courses_of,
    guess,
    guess_messages,
    guesser_for,
    wants_guess,
)
from lecturetui.core.answer.translate import Translator
from lecturetui.core.conversation import Turn
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.evaluation.metrics import Gold
from lecturetui.core.evaluation.questions import EvalQuestion
from lecturetui.core.evaluation.retrieval_scores import WITH_MODEL, evaluate_retrieval
from lecturetui.core.ingest.pipeline import IngestOptions
from lecturetui.core.library import Library
from lecturetui.core.models.placement import Placement
from lecturetui.core.paths import DataHome
from lecturetui.core.requests.words import QuestionSettings
from lecturetui.core.retrieval.scope import Scope
from tests.conftest import SEED_CORPUS
from tests.fakes import FakeEmbedder, FakeGenerator, ask

# asked in a student's own words: none of the lecture's terms (TensorFlow, GPU, priorizar)
QUESTION = "Qual peça a biblioteca do Google escolhe primeiro para fazer as contas?"
GUESS = "Quando os recursos estão disponíveis, o tensor Flow sempre vai priorizar a GPU."
GOLD = 6845


def corpus_ids(hits: list) -> list[int | None]:  # type: ignore[type-arg]
    return [h.segment.corpus_id for h in hits]


@pytest.fixture
def library(home: Path) -> Library:
    lib = Library(DataHome.resolve(), embedder=FakeEmbedder())
    lib.ingest([SEED_CORPUS])
    return lib


def test_the_prompt_names_the_one_course_and_the_language() -> None:
    system, user = guess_messages("o que é um tensor?", "Portuguese", ["Deep Learning"])
    assert system["content"] == 'You are the lecturer of the course "Deep Learning".'
    assert "A student asks: o que é um tensor?" in user["content"]
    assert user["content"].endswith("sentences only, in Portuguese.")
    system, user = guess_messages("what is a tensor?", None, ["A", "B"])
    assert system["content"] == "You are the lecturer of a university course."
    assert user["content"].endswith("sentences only.")


def test_a_reply_is_cleaned_to_its_sentences() -> None:
    assert clean_guess('Sure! Here they are:\n"A tensor is an array."\n') == "A tensor is an array."
    assert clean_guess("Claro. Um tensor é\num vetor.") == "Um tensor é um vetor."
    assert clean_guess("  \n ") is None


def test_auto_guesses_only_with_the_model_on_a_gpu() -> None:
    cpu, gpu = FakeGenerator(), FakeGenerator(gpu=True)
    assert not wants_guess("auto", cpu) and wants_guess("auto", gpu)
    assert wants_guess("on", cpu) and not wants_guess("off", gpu)
    assert not wants_guess("on", None)  # no model loaded (yet): no guess
    with pytest.raises(LectureTuiError, match="no guess setting"):
        wants_guess("always", gpu)


def test_a_failed_guess_costs_only_its_help() -> None:
    class Failing(FakeGenerator):
        def stream(self, messages, max_tokens, stop=None, temperature=None):  # type: ignore[no-untyped-def]
            raise LectureTuiError("The answer model failed (boom).")
            yield ""

    assert guess(Failing(), QUESTION, "Portuguese", []) is None


def test_the_guess_finds_what_the_students_words_cannot(library: Library) -> None:
    plain = corpus_ids(library.search(QUESTION, 10, mode="lexical").hits)
    guessed = corpus_ids(library.search(QUESTION, 10, mode="lexical", guess=GUESS).hits)
    assert guessed[0] == GOLD and plain[:1] != [GOLD]
    hybrid = corpus_ids(library.search(QUESTION, 26, guess=GUESS).hits)
    plain_hybrid = corpus_ids(library.search(QUESTION, 26).hits)
    assert hybrid.index(GOLD) < plain_hybrid.index(GOLD)


def test_ask_guesses_on_a_gpu_and_searches_with_it(library: Library) -> None:
    gen = FakeGenerator("O TensorFlow prioriza a GPU [1].", gpu=True, guesses={QUESTION: GUESS})
    result = ask(library, gen, QUESTION, QuestionSettings(ttft_s=0))
    [(system, user)] = gen.guessed
    assert system == "You are the lecturer of a university course."  # the seeds name no course
    assert user.endswith("in Portuguese.")
    assert result.guess == GUESS and result.record().guess == GUESS
    assert corpus_ids(result.hits) == corpus_ids(library.search(QUESTION, 10, guess=GUESS).hits)
    assert "translate_guess_ms" in result.timings

    cpu = FakeGenerator("O TensorFlow prioriza a GPU [1].", guesses={QUESTION: GUESS})
    plain = ask(library, cpu, QUESTION, QuestionSettings(ttft_s=0))
    assert cpu.guessed == [] and plain.guess is None  # auto on a CPU: no guess
    forced = ask(library, cpu, QUESTION, QuestionSettings(ttft_s=0, guess="on"))
    assert forced.guess == GUESS


def test_a_question_in_another_language_is_guessed_as_asked_in_the_librarys(
    library: Library,
) -> None:
    english = "Which part does Google's library pick first to do the maths?"
    gen = FakeGenerator(gpu=True, guesses={english: GUESS})
    translator = Translator(FakeGenerator(translations={english: QUESTION}), "pt")
    found = retrieve(library, Turn(english, english), translator=translator,
                     guesser=guesser_for(library, gen, "on"))  # fmt: skip
    assert found.translation == QUESTION and found.guess == GUESS
    [(_, user)] = gen.guessed
    # the question as asked, written in the translation's language (the library's)
    assert user.startswith(f"A student asks: {english}") and user.endswith("in Portuguese.")
    assert corpus_ids(found.hits) == corpus_ids(
        library.search(english, 10, translation=QUESTION, guess=GUESS).hits
    )


def test_the_scope_names_its_course(home: Path, fixtures: Path) -> None:
    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    library.ingest([SEED_CORPUS], IngestOptions(course="Computação em GPU"))
    library.ingest([fixtures / "lecture.vtt"], IngestOptions(course="Outra"))
    assert courses_of(library) == ["Computação em GPU", "Outra"]
    assert courses_of(library, Scope(lectures=("aula-A",))) == ["Computação em GPU"]
    gen = FakeGenerator(gpu=True)
    guesser = guesser_for(library, gen, "auto", Scope(courses=("Computação em GPU",)))
    assert guesser is not None
    guesser(library.asked(QUESTION))
    assert gen.guessed[0][0] == 'You are the lecturer of the course "Computação em GPU".'


def test_retrieval_evaluation_adds_the_row_searched_as_asked(library: Library) -> None:
    gen = FakeGenerator(gpu=True, guesses={QUESTION: GUESS})
    q = EvalQuestion(1, QUESTION, Gold(frozenset({GOLD})))
    without = evaluate_retrieval(library, [q], ["hybrid"])
    assert list(without) == ["hybrid"]
    table = evaluate_retrieval(library, [q], ["hybrid"], generator=gen, guess="auto")
    assert list(table) == ["hybrid", WITH_MODEL]
    assert table[WITH_MODEL].rows[0].ranking == corpus_ids(
        library.search(QUESTION, 10, guess=GUESS).hits
    )
    with_model, plain = table[WITH_MODEL].rows[0].metrics, table["hybrid"].rows[0].metrics
    assert with_model["mrr"] > plain["mrr"]


async def test_the_app_guesses_when_the_model_runs_on_a_gpu(home: Path) -> None:
    from textual.widgets import Static

    from tests.tui.test_tui import ask as ask_in_app
    from tests.tui.test_tui import make_app

    gen = FakeGenerator("O TensorFlow prioriza a GPU [1].", gpu=True, guesses={QUESTION: GUESS})
    app = make_app(home, gen)
    async with app.run_test(size=(200, 32)) as pilot:
        await app.workers.wait_for_complete()
        assert "lecturer's guess" in str(app.main.query_one("#status", Static).render())
        await ask_in_app(pilot, app, QUESTION)
        assert len(gen.guessed) == 1
        searched = app.services.library.search(QUESTION, 10, guess=GUESS).hits
        assert [h.segment_id for h in app.main.hits] == [h.segment.id for h in searched]
        await pilot.press("escape", "g")  # off for the next questions
        assert "guess" not in str(app.main.query_one("#status", Static).render())
        await ask_in_app(pilot, app, QUESTION)
        assert len(gen.guessed) == 1  # not asked again
        plain = app.services.library.search(QUESTION, 10).hits
        assert [h.segment_id for h in app.main.hits] == [h.segment.id for h in plain]


def test_eval_retrieval_only_adds_the_row_searched_as_asked_with_guess_on(
    library: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lecturetui.cli.context import Context
    from lecturetui.core.llm import process
    from lecturetui.core.models import hardware
    from tests.cli.test_cli import run

    made: list[Path] = []

    class FakeModel(FakeGenerator):
        def __init__(self, path: Path, n_ctx: int = 4096, seed: int | None = None,
                     placement: Placement | None = None, **_: object) -> None:  # fmt: skip
            super().__init__(guesses={QUESTION: GUESS})
            made.append(path)

        def close(self) -> None:
            pass

    monkeypatch.setattr(process, "open_model", FakeModel)
    monkeypatch.setattr(Context, "library", lambda self: library)  # the fake embedder's
    monkeypatch.setattr(hardware, "llama_report", lambda: None)  # no GPU build here
    questions = tmp_path / "q.jsonl"
    questions.write_text(f'{{"question": "{QUESTION}", "corpus_ids": [{GOLD}]}}\n', "utf-8")
    code, out = run("eval", str(questions), "--retrieval-only")
    assert code == 0 and WITH_MODEL not in out and made == [], out  # auto, no GPU: no model
    gguf = tmp_path / "answers.gguf"
    gguf.write_bytes(b"GGUF" + bytes(28))
    code, out = run("eval", str(questions), "--retrieval-only", "--guess", "on", "--llm", str(gguf))
    assert code == 0 and f"| {WITH_MODEL} |" in out and made == [gguf], out
