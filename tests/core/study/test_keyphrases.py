"""Key phrases from KeyBERT over the real E5 (small texts in Portuguese and English)."""

from __future__ import annotations

from typing import Any

import pytest

from lecturetui.core.study.keyphrases import candidates, fold, keyphrases, stopwords

PT = (
    "Então, hoje a gente vai falar da Revolução Francesa. A Revolução Francesa começou em 1789, "
    "quando a burguesia e os camponeses se revoltaram contra a monarquia absolutista. "
    "A queda da Bastilha foi o símbolo da revolução. Depois veio o período do Terror, com "
    "Robespierre e a guilhotina. No fim, a monarquia absolutista caiu e a Revolução Francesa "
    "mudou a Europa."
)
EN = (
    "So, you know, today we look at dictionaries in Python. A dictionary maps keys to values, "
    "and a dictionary lookup is fast because Python hashes the key. You can loop over the keys "
    "of a dictionary. The get method returns a default value when the key is not in the "
    "dictionary, which makes counting words with a dictionary a common idiom."
)
REGEX = (
    "Regular expressions are a language for matching strings. A regular expression like "
    "caret From space finds the lines that start with From. Regular expressions use special "
    "characters: the dot matches any character, the star repeats it."
)


def _folded(phrases: list[str]) -> str:
    return " | ".join(fold(p) for p in phrases)


def test_portuguese_phrases_are_the_subject_as_said(e5: Any) -> None:
    found = keyphrases(PT, "pt", embedder=e5)
    assert 1 <= len(found) <= 3
    assert "revolução francesa" in _folded(found) or "monarquia" in _folded(found)
    # as the lecturer said them: capitals kept, each phrase a run of the text's own words
    assert any(p[0].isupper() for p in found)
    assert all(p in PT for p in found)
    assert not any(fold(p) in {"então", "gente", "hoje"} for p in found)


def test_english_phrases_name_the_subject(e5: Any) -> None:
    found = keyphrases(EN, "en", n=2, embedder=e5)
    assert len(found) == 2
    assert "dictionar" in _folded(found)
    assert all(p in EN for p in found)


def test_the_language_is_told_when_not_given(e5: Any) -> None:
    found = keyphrases(PT, None, embedder=e5)
    assert found
    assert not any(fold(p) in stopwords("pt") for p in found)


def test_no_two_phrases_share_a_word(e5: Any) -> None:
    found = keyphrases(EN, "en", n=3, embedder=e5)
    words = [set(fold(p).split()) - stopwords("en") for p in found]
    for i, a in enumerate(words):
        for b in words[i + 1 :]:
            assert not a & b


def test_what_the_contrast_says_as_much_goes_last(e5: Any) -> None:
    both = REGEX + " " + EN
    alone = keyphrases(both, "en", n=1, embedder=e5)
    against = keyphrases(both, "en", n=1, contrast=[EN, EN], embedder=e5)
    assert "dictionar" not in _folded(against)
    assert "regular" in _folded(against) or "expression" in _folded(against)
    assert alone and against


@pytest.mark.parametrize("text", ["", "   ", "a o e de"])
def test_nothing_to_say(e5: Any, text: str) -> None:
    assert keyphrases(text, "pt", embedder=e5) == []
    assert keyphrases(PT, "pt", n=0, embedder=e5) == []


def test_candidates_begin_and_end_with_a_content_word_within_a_sentence() -> None:
    stop = stopwords("pt")
    found = candidates(PT, stop)
    keys = {c.key for c in found}
    assert "revolução francesa" in keys
    assert "monarquia absolutista" in keys
    for c in found:
        words = c.key.split()
        assert words[0] not in stop and words[-1] not in stop
        assert len(words) <= 3
    # "1789, quando": a comma ends the run; "símbolo da revolução": a stop word inside
    assert not any("1789" in k for k in keys)
    assert "símbolo da revolução" in keys
    counts = {c.key: c.count for c in found}
    assert counts["revolução francesa"] == 3
    assert next(c.said for c in found if c.key == "revolução francesa") == "Revolução Francesa"


def test_stop_words_of_an_unknown_language_are_none() -> None:
    assert stopwords("xx") == frozenset()
    assert "de" in stopwords("pt-BR")
