"""The explanation against its excerpts in meaning: citations moved to the closer excerpt, and
the grounding that tells an answer from what the model knows (fake embedder: shared words)."""

from __future__ import annotations

from lecturetui.core.answer.grounding import GROUNDED, Grounded, ground, ungrounded
from lecturetui.core.answer.prompting import Passage
from lecturetui.core.library import Library

ONE = "The block reward halves every four years. The supply is capped at twenty one million coins."
TWO = "Mining hardware uses a lot of electricity. Miners sell coins to pay for it."


def _passages() -> list[Passage]:
    return [
        Passage(1, "btc-1", "Bitcoin 1", 100.0, 220.0, ONE, 0.8, None),
        Passage(2, "btc-2", "Bitcoin 2", 300.0, 420.0, TWO, 0.6, None),
    ]


def test_a_sentence_is_cited_with_the_excerpt_it_says_again(seed_library: Library) -> None:
    text = (
        "The supply is capped at twenty one million coins [2]. "
        "Mining hardware uses a lot of electricity [2]. Ok [1]."
    )
    done = ground(seed_library, text, _passages())
    assert done.text.startswith("The supply is capped at twenty one million coins [1]. ")
    assert "Mining hardware uses a lot of electricity [2]." in done.text  # already right
    assert done.text.endswith("Ok [1].")  # too short to compare: left as written
    assert done.recited == 1
    assert done.grounding is not None and done.grounding > 0.9  # both say what the excerpts say


def test_grounding_is_low_for_what_no_excerpt_says(seed_library: Library) -> None:
    far = ground(seed_library, "Zebras listradas correm pelo campo ao entardecer [1].", _passages())
    assert far.grounding is not None and far.grounding < GROUNDED and far.recited == 0
    assert ungrounded(0.37, far)  # a weak best window and an explanation far from it
    assert not ungrounded(0.6, far)  # a strong window: answered
    assert not ungrounded(None, far)  # no relevance model: cannot be told
    assert not ungrounded(0.37, Grounded("", None, 0))  # nothing to compare
    assert ground(seed_library, "", _passages()).grounding is None
