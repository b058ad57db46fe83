"""What a sentence is (core/sentences.py): its end mark, captions that mark them, search's pieces,
and windows laid end to end."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lecturetui.core.sentences import (
    MAX_WORDS,
    Window,
    closes,
    joined_text,
    kept_ends,
    pieces,
    punctuated,
    stitch,
)


def test_a_sentence_ends_with_its_mark_and_what_closes_after_it() -> None:
    assert all(closes(w) for w in ("fim.", "é?", "isso!", "então…", 'disse."', "(x²).", "«sim.»"))
    assert not any(closes(w) for w in ("3.5", "e.g", "fim,", "d(x)", ""))


def test_captions_mark_their_sentences_when_one_word_in_sixty_ends_one() -> None:
    assert punctuated(["a"] * 59 + ["fim."])
    assert not punctuated(["a"] * 61 + ["fim."])
    assert not punctuated([])


def test_search_pieces_end_where_the_model_found_a_sentence_end() -> None:
    text = "a gente calcula a derivada aqui e depois a gente soma tudo no final da conta"
    by_model = pieces(text, ends=[5])
    assert next(p.text for p in by_model) == "a gente calcula a derivada aqui"
    assert " ".join(p.text for p in by_model) == text
    # without the model's ends, speech's words cut it (no end before MIN_WORDS words here)
    assert next(p.text for p in pieces(text)) != "a gente calcula a derivada aqui"


@given(st.lists(st.sampled_from(["a", "né", "então", "fim.", "x"]), max_size=200), st.data())
def test_pieces_cover_every_word_once_and_none_is_too_long(
    words: list[str], data: st.DataObject
) -> None:
    ends = data.draw(st.lists(st.integers(0, max(0, len(words) - 1)), max_size=20))
    found = pieces(" ".join(words), ends=ends)
    assert [w for p in found for w in p.text.split()] == words
    # a scrap of fewer than 4 words joins the piece before it
    assert all(p.size <= MAX_WORDS + 3 for p in found)


def test_stored_ends_from_elsewhere_are_kept_only_inside_the_window() -> None:
    assert kept_ends([5, -1, 3, 3, 99], words=10) == (3, 5)
    assert kept_ends(None, words=10) is None


def test_a_reader_is_shown_windows_joined_by_their_text_alone() -> None:
    a = Window(1, 0.0, 10.0, "one two three four five")
    shared = Window(2, 5.0, 15.0, "three four five six seven")
    assert joined_text([a, shared]) == "one two three four five six seven"
    assert joined_text([a, shared]) == " ".join(stitch([a, shared]).words)  # as the times say
    # two shared words are not enough to tell, and no words shared: both windows whole (where
    # stitch, by the times, takes the words said before the first window ends as said)
    short = Window(2, 5.0, 15.0, "four five six seven")
    assert joined_text([a, short]) == "one two three four five four five six seven"
    other = Window(2, 5.0, 15.0, "six seven eight nine ten")
    assert joined_text([a, other]) == "one two three four five six seven eight nine ten"
    assert " ".join(stitch([a, other]).words) != joined_text([a, other])
    # the longest run repeated wins; one window's text is kept as it is
    rep = Window(1, 0.0, 10.0, "x no no no no")
    assert joined_text([rep, Window(2, 9.0, 19.0, "no no no no y")]) == "x no no no no y"
    assert joined_text([Window(1, 0.0, 1.0, "as  said\n")]) == "as  said\n"
    assert joined_text([]) == ""
