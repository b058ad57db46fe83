"""The answer's opening quote, its check against the excerpts, and saying when the lectures do not
cover a question: pure logic and the pipeline with fakes."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from lecturetui.core.answer.check import check, facts, holds
from lecturetui.core.answer.events import Answered, EvidenceReady, Token, quote_block
from lecturetui.core.answer.evidence import ScoredPassage, Spoken
from lecturetui.core.answer.prompting import Passage
from lecturetui.core.answer.quote import choose_quote, names, names_unknown, relevance
from lecturetui.core.answer.repetition import RepeatGuard
from lecturetui.core.answer.verdict import COVERAGE_THRESHOLD, Signals
from lecturetui.core.conversation import Turn
from lecturetui.core.lectures import Lecture, StoredSegment
from lecturetui.core.library import Hit, Library
from lecturetui.core.requests.words import Loaded, QuestionSettings
from lecturetui.core.sentences import pieces
from tests.fakes import FakeGenerator, question_events

BTC = (
    "the total supply is capped at 21 million coins and the block reward halves every four "
    "years so the last bitcoin will be mined around the year 2140"
)


def test_facts_are_numbers_names_and_code_terms() -> None:
    found = facts(
        "O total é limitado a 21 milhões de moedas, segundo Satoshi, com `halving()` [1]."
    )
    assert "21" in found and "Satoshi" in found and "halving()" in found
    assert "O" not in found and "[1]" not in " ".join(found)
    assert facts("a lista é mutável e a tupla não [2].") == []  # nothing checkable


def test_a_fact_holds_by_value_across_spellings_and_speech() -> None:
    assert holds("21", BTC) and holds("4", BTC)  # "four"
    assert not holds("22", BTC) and not holds("unlimited", BTC)
    assert holds("TensorFlow", "o tensor flow prioriza a gpu")  # heard as two words
    assert holds("1,000", "about 1000 requests") and holds("3.5", "it takes 3,5 seconds")


def test_a_wrong_number_is_unsupported_and_loses_its_citation() -> None:
    text = "O número total de moedas é ilimitado [1]. Serão 22 milhões de moedas [1]."
    checked = check(text, {1: BTC, 2: "something else entirely"})
    assert [u.missing for u in checked.unsupported] == [("22",)]
    assert checked.text.endswith("Serão 22 milhões de moedas.")  # its citation removed
    assert checked.text.startswith("O número total de moedas é ilimitado [1].")  # nothing to check


def test_a_sentence_citing_the_wrong_excerpt_gets_the_right_one() -> None:
    text = "A oferta é limitada a 21 milhões de moedas [2]."
    checked = check(text, {1: BTC, 2: "python lists are mutable"})
    assert checked.text == "A oferta é limitada a 21 milhões de moedas [1]."
    assert checked.recited == 1 and not checked.unsupported


def test_supported_sentences_are_kept_as_written() -> None:
    text = "The supply is capped at 21 million [1]. The reward halves every 4 years [1]."
    checked = check(text, {1: BTC})
    assert checked.text == text and not checked.unsupported and checked.checked == 2


def _scored(text: str, scores: list[float]) -> ScoredPassage:
    lec = Lecture("btc", "Bitcoin 1", None, "en", None, None, "vtt", 600.0, "x")
    seg = StoredSegment(1, "btc", 1, 100.0, 220.0, text)
    p = Passage(1, "btc", "Bitcoin 1", 100.0, 220.0, text, 0.8, None, None,
                [Hit(1, 0.8, seg, lec, None)])  # fmt: skip
    sentences = tuple(pieces(text))
    assert len(sentences) == len(scores)
    return ScoredPassage(p, sentences, tuple(scores), len(text.split()))


def test_the_quote_is_whole_sentences_around_the_one_that_answers() -> None:
    text = ("Today we talk about money. How many coins will there ever be? "
            "The total supply is capped at 21 million coins. Now let us look at mining hardware.")  # fmt: skip
    quote = choose_quote(_scored(text, [0.2, 0.7, 0.5, 0.1]), words=20)
    assert quote is not None
    assert (
        quote.text
        == "How many coins will there ever be? The total supply is capped at 21 million coins."
    )
    assert quote.sentences == (1, 2) and quote.score == 0.7
    assert 100.0 < quote.start < quote.end < 220.0 and quote.segment_id == 1
    # the answering sentence and the next best where it fits, in the lecture's order, two runs
    # of whole sentences joined by "…"
    apart = choose_quote(_scored(text, [0.6, 0.1, 0.7, 0.1]), words=16)
    assert apart is not None and apart.sentences == (0, 2)
    assert (
        apart.text == "Today we talk about money. … The total supply is capped at 21 million coins."
    )
    alone = choose_quote(_scored(text, [0.6, 0.1, 0.7, 0.1]), words=10)
    assert alone is not None and alone.sentences == (2,)
    best = choose_quote(_scored(text, [0.2, 0.3, 0.5, 0.9]), words=3)  # the best, even too long
    assert best is not None and best.sentences == (3,)
    assert len(choose_quote(_scored(text, [0.2, 0.7, 0.5, 0.1])).sentences) == 4  # type: ignore[union-attr]
    block = quote_block(quote)
    assert block.startswith("“How many coins") and "(Bitcoin 1, 00:02:" in block
    assert block.rstrip().endswith("[1]")


def test_a_sentence_cut_by_the_window_s_edge_is_quoted_whole_from_its_neighbour() -> None:
    words = [
        "If",
        "the",
        "reward",
        "halves",
        "every",
        "four",
        "years,",
        "the",
        "last",
        "bitcoin",
        "will",
        "be",
        "mined",
        "around",
        "2140.",
        "That",
        "is",
        "why",
        "the",
        "supply",
        "is",
        "capped",
        "at",
        "21",
        "million",
        "coins.",
        "Fees",
        "then",
        "pay",
        "the",
        "miners.",
    ]
    before = StoredSegment(7, "btc", 0, 0.0, 40.0, " ".join(words[:9]))
    window = " ".join(words[6:])  # begins mid-sentence, at a caption line
    sp = _scored(window, [0.1, 0.9, 0.2][: len(pieces(window))])
    seg = sp.passage.hits[0].segment
    around = [before, StoredSegment(seg.id, "btc", 1, 26.0, 120.0, window)]
    quote = choose_quote(replace(sp, spoken=Spoken.of(window, 26.0, 120.0, around, "en")), words=40)
    assert quote is not None
    # the answering sentence leans on the one before it ("That is why"), which begins in the
    # window before: both quoted whole, the condition kept
    assert quote.text.startswith("If the reward halves every four years, the last bitcoin")
    assert "That is why the supply is capped at 21 million coins." in quote.text
    assert quote.start < 26.0


class _Vectors:
    """Sentence vectors that score a sentence by whether it holds a word (a stand-in for the
    relevance model)."""

    def __init__(self, word: str) -> None:
        self.word = word

    def vectors(self, texts: list[str]) -> np.ndarray:
        return np.array([[1.0, 0.0] if self.word in t else [0.0, 1.0] for t in texts], "f")


def test_the_sentence_that_answers_just_before_the_window_is_quoted() -> None:
    earlier = "Today: blocks. A hash function maps any input to a fixed size digest."
    window = (
        "Miners search for a nonce. They guess. Then the new block is broadcast to every other "
        "node of the network within a few seconds."
    )
    sp = _scored(window, [0.3, 0.1])
    seg = sp.passage.hits[0].segment
    around = [StoredSegment(7, "btc", 0, 40.0, 100.0, earlier), seg]
    spoken = Spoken.of(window, 100.0, 220.0, around, "en")
    alone = choose_quote(replace(sp, spoken=spoken), words=16)
    assert alone is not None and alone.text == "Miners search for a nonce. They guess."
    # the neighbouring window's pieces scored: the quote grows from the window's best sentence
    # over the one before it, which answers, rather than over the window's next one (the next
    # best piece is too long to fit)
    heard = spoken.with_neighbours(np.array([1.0, 0.0], "f"), _Vectors("digest"), 120)  # type: ignore[arg-type]
    quote = choose_quote(replace(sp, spoken=heard), words=16)
    assert quote is not None
    assert quote.text == (
        "A hash function maps any input to a fixed size digest. Miners search for a nonce."
    )
    assert quote.start < 100.0 and quote.segment_id == 1  # the moment is still the window's


def covers(hits: list[Hit], unknown: tuple[str, ...] = ()) -> bool:
    """The verdict's coverage of these hits, as retrieval measures it."""
    return Signals(relevance(hits), COVERAGE_THRESHOLD, unknown).covered


def test_coverage_follows_the_best_windows_relevance() -> None:
    lec = Lecture("btc", "Bitcoin 1", None, "en", None, None, "vtt", 600.0, "x")
    seg = StoredSegment(1, "btc", 1, 0.0, 120.0, BTC)

    def hit(relevance: float | None) -> Hit:
        own = {"dense": 0.8} if relevance is None else {"dense": 0.8, "rerank": relevance}
        return Hit(1, 0.8, seg, lec, None, own)

    assert covers([hit(0.6)]) and not covers([hit(0.1)])
    assert covers([hit(None)])  # without the relevance model it cannot be told: answered
    assert not covers([])


def test_the_explanation_stops_after_three_sentences() -> None:
    guard = RepeatGuard(3)
    stopped = False
    for piece in [
        "Um",
        "dois",
        "três",
        "[1].",
        "Quatro",
        "cinco",
        "seis",
        "[1].",
        "Sete",
        "oito",
        "nove",
        "[2].",
        "Dez",
        "onze",
        "[1].",
    ]:
        if guard.feed(piece + " "):
            stopped = True
            break
    assert stopped and guard.answer().strip().endswith("Sete oito nove [2].")


@pytest.fixture
def library(seed_library: Library) -> Library:
    return seed_library


class NoModel:
    """A model source that fails the test if the pipeline asks for the answer model."""

    def for_search(self, needed: object) -> None:
        return None

    def for_answer(self, stop: object) -> None:
        raise AssertionError("an uncovered question must not wait for the answer model")


def test_a_question_the_lectures_do_not_cover_is_said_so_without_the_model(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Signals, "covered", property(lambda self: False))
    question = "Quais são as fases da Lua?"
    events = list(question_events(library, Turn(question, question), NoModel(),  # type: ignore[arg-type]
                               QuestionSettings(keep=True)))  # fmt: skip
    assert isinstance(events[1], EvidenceReady) and events[1].found.quote is None
    done = events[-1]
    assert isinstance(done, Answered) and not any(isinstance(e, Token) for e in events)
    assert done.record.abstained and done.record.answer.startswith("As aulas não parecem")
    assert done.record.hits and not done.record.citations  # the closest moments are shown
    assert done.entry_id is not None  # kept in the history like any answer
    # a covered one is answered, with abstained false
    monkeypatch.setattr(Signals, "covered", property(lambda self: True))
    gen = FakeGenerator("Prioriza a GPU [1].")
    events = list(question_events(library, Turn(question, question), Loaded(gen)))
    last = events[-1]
    assert isinstance(last, Answered) and not last.record.abstained and last.record.quote


def test_an_explanation_far_from_its_excerpts_over_a_weak_window_is_an_abstention(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lecturetui.core.answer.found as retrieved

    question = "O TensorFlow prioriza a execução de operações em qual dispositivo?"
    monkeypatch.setattr(Signals, "covered", property(lambda self: True))
    monkeypatch.setattr(retrieved, "relevance", lambda *args: 0.37)  # covered, but weakly

    def answer(text: str) -> Answered:
        last = list(question_events(library, Turn(question, question), Loaded(FakeGenerator(text))))
        assert isinstance(last[-1], Answered)
        return last[-1]

    far = "Zebras listradas correm pelo campo aberto ao entardecer [1]."
    done = answer(far)
    assert done.record.abstained and done.record.quote is None
    assert done.record.answer.startswith("As aulas não parecem")
    # an explanation that says what its excerpt says stands
    said = pieces(done.record.passages[0].text)[1].text
    kept = answer(f"{said} [1].")
    assert not kept.record.abstained and kept.record.quote is not None
    # and over a strong best window the far one is answered (only checked where it is weak)
    monkeypatch.setattr(retrieved, "relevance", lambda *args: 0.6)
    assert not answer(far).record.abstained


def test_the_model_saying_the_excerpts_do_not_answer_is_an_abstention() -> None:
    from lecturetui.core.answer.check import says_not_answered

    assert says_not_answered("Os trechos não mencionam decoradores em Python.")
    assert says_not_answered("The excerpts do not answer this question [1].")
    assert says_not_answered("Isso não é mencionado nas aulas.")
    assert not says_not_answered("A lista é mutável [1]. Os trechos não falam de tuplas [2].")
    assert not says_not_answered("The CPU executes one instruction at a time [1].")


def test_a_name_the_lectures_never_mention_raises_the_bar(library: Library) -> None:
    assert names("How do Django ORM migrations work? Por que o GIL trava?") == [
        "Django",
        "ORM",
        "GIL",
    ]  # fmt: skip  ("Por" starts a sentence: not a name)
    assert names("What do __enter__ and __exit__ do to a DataFrame, in TensorFlow?") == [
        "__enter__", "__exit__", "DataFrame", "TensorFlow"]  # fmt: skip
    assert names("what is a list in python") == []
    # the seed lectures speak of TensorFlow and GPUs, never of Django
    assert names_unknown(library, "O TensorFlow roda na GPU ou no Django?") == ["Django"]
    lec = Lecture("btc", "Bitcoin 1", None, "en", None, None, "vtt", 600.0, "x")
    seg = StoredSegment(1, "btc", 1, 0.0, 120.0, BTC)
    hit = Hit(1, 0.8, seg, lec, None, {"dense": 0.8, "rerank": 0.40})
    assert covers([hit]) and not covers([hit], unknown=("Django",))
    high = Hit(1, 0.8, seg, lec, None, {"dense": 0.8, "rerank": 0.60})
    assert covers([high], unknown=("Django",))  # a relevant window still answers


def test_a_name_s_possessive_and_an_acronym_s_plural_hold_where_the_name_is_said() -> None:
    said = "It's not like Satoshi foresaw it: a single ASIC goes through the nonce space."
    assert holds("Satoshi's", said) and holds("ASICs", said)
    assert not holds("Nakamoto's", said) and not holds("GPUs", said)


def test_a_code_term_said_in_words_and_a_quoted_letter_hold() -> None:
    said = "So we use line starts with. Backslash capital S means a non-white space character."
    assert holds("line.startswith", said) and holds("S'", said)
    assert not holds("line.endswith", said)
