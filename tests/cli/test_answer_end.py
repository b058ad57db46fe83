"""The line of timings under an answer says what the answer model did for it."""

from __future__ import annotations

import pytest

from lecturetui.cli.ask_cmds import print_answer_end
from lecturetui.core.answer.result import Answer

TIMINGS = {"retrieval_ms": 300.0, "evidence_ms": 310.0, "time_to_first_token_ms": 4200.0,
           "tokens_per_s": 9.5, "prompt_new_tokens": 280.0, "check_ms": 0.0}  # fmt: skip


class Model:
    name, placement = "small.gguf", "CPU"


@pytest.mark.parametrize(
    ("explanation", "check_ms", "said", "not_said"),
    [
        ("", 0.0, "no answer model run", "first token"),  # refused before any model
        ("", 4600.0, "moments checked in 4.6 s", "no answer model run"),  # refused once read
        ("Ele explica [1].", 0.0, "first token 4.2 s", "no answer model run"),  # its explanation
    ],  # replaced by the refusal: the model did run
)
def test_the_timings_of_a_refusal_say_what_the_model_did(
    capsys: pytest.CaptureFixture[str], explanation: str, check_ms: float, said: str, not_said: str
) -> None:
    from rich.console import Console

    answer = Answer("q", "As aulas não parecem tratar desta pergunta.", [], [], [],
                    timings={**TIMINGS, "check_ms": check_ms}, explanation=explanation,
                    abstained=True)  # fmt: skip
    print_answer_end(Console(record=True), answer, Model())  # type: ignore[arg-type]
    footer = " ".join(capsys.readouterr().err.split())
    assert said in footer and not_said not in footer, footer
