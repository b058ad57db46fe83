"""Follow-up questions: which ones, how they are searched and prompted, threads in the history."""

from __future__ import annotations

from pathlib import Path

import pytest

from lecturetui.core.conversation import Exchange, looks_like_follow_up, make_turn
from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from tests.conftest import SEED_CORPUS
from tests.fakes import FakeEmbedder, FakeGenerator, ask

FIRST = "O TensorFlow prioriza a execução de operações em qual dispositivo?"


@pytest.mark.parametrize(
    "question",
    ["e por quê?", "give an example", "E no PyTorch?", "Why?", "Como isso funciona na TPU?",
     "What does that cost on the CPU?", "Mas e se não tiver GPU disponível?"],
)  # fmt: skip
def test_follow_ups(question: str) -> None:
    assert looks_like_follow_up(question)


@pytest.mark.parametrize(
    "question",
    [FIRST, "Which environment variable makes each TensorFlow script see a single GPU?",
     "O que são as operações raízes de um grafo de tensores?",
     "Em que formato portável o modelo treinado é salvo?"],
)  # fmt: skip
def test_questions_that_stand_alone(question: str) -> None:
    assert not looks_like_follow_up(question)


def test_a_follow_up_is_searched_with_the_previous_question() -> None:
    previous = Exchange(7, 3, FIRST, "Na GPU [1].", FIRST)
    turn = make_turn("e por quê?", previous)
    assert turn.follow_up and turn.thread_id == 3 and turn.search_text == f"{FIRST} e por quê?"
    chained = make_turn("give an example", Exchange(8, 3, "e por quê?", "…", turn.search_text))
    assert chained.search_text.startswith(FIRST) and chained.search_text.endswith("give an example")
    alone = make_turn("Em que formato portável o modelo treinado é salvo?", previous)
    assert not alone.follow_up and alone.thread_id is None  # a new thread
    forced = make_turn("Em que formato portável o modelo treinado é salvo?", previous, force=True)
    assert forced.follow_up  # ask --continue


@pytest.fixture
def library(home: Path) -> Library:
    lib = Library(DataHome.resolve(), embedder=FakeEmbedder())
    lib.ingest([SEED_CORPUS])
    yield lib  # type: ignore[misc]
    lib.close()


def test_the_prompt_carries_the_last_exchange_and_history_keeps_threads(library: Library) -> None:
    gen = FakeGenerator("O TensorFlow prioriza a GPU [1]. Isso é mais rápido [2].")
    first = ask(library, gen, FIRST)
    library.history.add(first.record(), first.record().answer)
    previous = library.history.exchange()
    assert previous is not None and previous.question == FIRST
    turn = make_turn("e por quê?", previous)
    second = ask(library, gen, turn.question, turn=turn)
    prompt = gen.prompts[-1]
    assert [m["role"] for m in prompt[3:5]] == ["user", "assistant"]
    assert prompt[3]["content"] == FIRST
    assert "prioriza a GPU" in prompt[4]["content"] and "[1]" not in prompt[4]["content"]
    assert "follows up the previous one" in prompt[-1]["content"]
    data = second.to_json()
    assert data["follow_up"] and data["thread"] == previous.entry_id
    library.history.add(second.record(), second.record().answer)
    third = ask(library, gen, "Which file format is a saved model exported in?")
    library.history.add(third.record(), third.record().answer)
    threads = library.history.threads()
    assert [(e.question, e.follow_up) for e in threads] == [
        ("Which file format is a saved model exported in?", False),  # newest thread first
        (FIRST, False),
        ("e por quê?", True),  # in the order asked, under its thread
    ]
    assert threads[1].thread_id == threads[2].thread_id != threads[0].thread_id


def test_a_long_previous_answer_is_shortened_to_fit_the_time_budget(library: Library) -> None:
    long_answer = " ".join(["palavra"] * 400) + " [1]."
    previous = Exchange(1, 1, FIRST, long_answer, FIRST)
    gen = FakeGenerator("Porque sim [1].", tokens_per_s=40.0)
    ask(library, gen, "e por quê?", turn=make_turn("e por quê?", previous))
    carried = gen.prompts[-1][4]["content"]
    assert carried.endswith("…") and len(carried.split()) <= 81


def test_ask_continue_with_no_earlier_question_is_one_sentence(home: Path) -> None:
    from click.testing import CliRunner

    from lecturetui.cli import cli

    result = CliRunner().invoke(cli, ["ask", "--continue", "e por quê?"])
    assert result.exit_code == 1
    assert "There is no earlier question to continue." in result.output
    assert "Traceback" not in result.output
