"""The lecturer's own words for a part: whole thoughts, cleaned, never reworded."""

from __future__ import annotations

from lecturetui.core.study.said import clean, thoughts

SPOKEN_PT = (
    "não tem a gente não usa a saída de vídeo dela né a placa mãe do servidor já tem uma saída "
    "de vídeo VGA que para nós é mais do que suficiente né mas eh por exemplo os meus alunos "
    "né eles usam o o cálculo da placa para treinar redes neurais em casa entendeu então eu "
    "acho que as duas coisas podem coexistir sem resetar a placa né e aí tipo assim essa que"
)


def test_a_caption_run_is_cut_into_thoughts_at_its_tags_and_its_cut_ends_are_dropped() -> None:
    found = [t.text for t in thoughts(SPOKEN_PT, "pt")]
    assert found == [
        "A placa mãe do servidor já tem uma saída de vídeo VGA que para nós é mais do que"
        " suficiente.",
        "Eles usam o cálculo da placa para treinar redes neurais em casa.",
        "Eu acho que as duas coisas podem coexistir sem resetar a placa.",
    ]  # the first piece began before the window, the last ends on "que"; "os meus alunos" is
    # too short once "mas eh por exemplo" goes


def test_every_word_shown_was_said_in_order() -> None:
    for thought in thoughts(SPOKEN_PT, "pt"):
        said = thought.said.lower().split()
        words = [w.strip(".").lower() for w in thought.text.split()]
        it = iter(said)
        assert all(any(w == s for s in it) for w in words), thought


def test_cleaning_keeps_a_language_s_words_and_drops_only_its_sounds() -> None:
    assert clean("so um the the basic goal is to teach everybody, you know", "en") == (
        "The basic goal is to teach everybody"
    )
    # "um" is a word in Portuguese; "não" is never a filler
    assert clean("então o cálculo é um pouco diferente não é igual né", "pt") == (
        "O cálculo é um pouco diferente não é igual"
    )
    assert clean("[Music] in the in the loop we count >> we stop", "en") == (
        "In the loop we count we stop"
    )
    assert clean("well ok", "xx") == "Well ok"  # a language it has no lists for: as said


def test_punctuated_captions_keep_their_sentences() -> None:
    text = (
        "Hello everybody. The basic goal of this class is to teach everybody how to program. "
        "You don't have to be a math whiz to take it. And so we begin"
    )
    assert [t.text for t in thoughts(text, "en")] == [
        "The basic goal of this class is to teach everybody how to program.",
        "You don't have to be a math whiz to take it.",
    ]
