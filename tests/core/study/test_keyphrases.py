"""Key phrases (core/study/keyphrases.py, storage/phrases.py, study/lecture_keyphrases.py): the
candidates as said, KeyBERT's ranking on made-up vectors, the contrast between a lecture's parts,
and what a library keeps of them; the library cases on the demo corpus and the fake embedder."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from lecturetui.core.storage.phrases import PhraseTable
from lecturetui.core.study.keyphrases import (
    candidates,
    common_words,
    gathered,
    keyphrases,
    remembered,
    stopwords,
)
from lecturetui.core.study.lecture_keyphrases import fillers, titled

Vectors = npt.NDArray[np.float32]


def _axes(meaning: dict[str, int], dim: int = 4) -> Any:
    """Phrases as unit vectors: a phrase's axis is the first word of `meaning` it holds."""
    asked: list[list[str]] = []

    def embed(phrases: list[str]) -> Vectors:
        asked.append(list(phrases))
        out = np.full((len(phrases), dim), 0.01, dtype=np.float32)
        for row, p in enumerate(phrases):
            axis = next((a for w, a in meaning.items() if w in p.lower()), None)
            if axis is not None:
                out[row, axis] = 1.0
        return out

    embed.asked = asked  # type: ignore[attr-defined]
    return embed


def _axis(i: int, dim: int = 4) -> Vectors:
    out = np.zeros(dim, dtype=np.float32)
    out[i] = 1.0
    return out


def test_candidates_begin_and_end_with_a_content_word_and_stop_at_punctuation() -> None:
    stop = stopwords("pt")
    found = {c.said for c in candidates(
        "O conjunto de instruções é simples. Conjunto de instruções, de novo: 2024 e "
        "is-there-a-last-block na página.", stop)}  # fmt: skip
    assert "conjunto de instruções" in found and "instruções" in found
    assert not any(p.split()[0] in stop or p.split()[-1] in stop for p in found)
    assert not any("simples conjunto" in p or "2024" in p or "is-there" in p for p in found)


def test_candidates_never_run_across_a_sentence_of_captions_without_punctuation() -> None:
    # a part's text has a sentence (or a piece of one) a line: core/study/parts.py
    found = {
        c.said for c in candidates("a gente ajusta o processo\naos pesos da rede", stopwords("pt"))
    }
    assert "processo" in found and "pesos" in found
    assert not any("processo" in p and "pesos" in p for p in found)
    joined = {
        c.said for c in candidates("a gente ajusta o processo pesos da rede", stopwords("pt"))
    }
    assert any("processo" in p and "pesos" in p for p in joined)  # the line is what stops it


def test_the_phrase_closest_to_the_text_comes_first_and_none_repeats_a_word() -> None:
    embed = _axes({"autovetor": 0, "matriz": 1, "exemplo": 2})
    text = "O autovetor da matriz. Um autovetor é um exemplo. A matriz do autovetor."
    (found,) = keyphrases([text], np.stack([_axis(0)]), embed, "pt")
    assert found[0] == "autovetor"
    words = [w for p in found for w in p.split()]
    assert len(words) == len(set(words)) and len(found) <= 3


def test_a_phrase_the_rest_of_the_lecture_says_more_goes_after_the_parts_own() -> None:
    """'python' is as close to the first part's vector as 'loops' and said more there, but the
    other part says it more often per word: 'loops' names the first part."""
    embed = _axes({"python": 0, "loops": 0, "strings": 1})
    texts = ["Python loops. Python again. Python too.", "Python python strings. Python python."]
    vecs = np.stack([_axis(0), _axis(1)])
    first, _second = keyphrases(texts, vecs, embed, "en")
    assert "loops" in first[0] and "Python" not in first[1:]
    (alone,) = keyphrases(texts[:1], vecs[:1], embed, "en")
    assert alone[0] == "Python"  # with nothing to set it against


def test_each_phrase_is_embedded_once() -> None:
    embed = _axes({"a": 0})
    once = remembered(embed)
    once(["alpha", "beta"])
    out = once(["beta", "gamma", "alpha"])
    assert embed.asked == [["alpha", "beta"], ["gamma"]] and out.shape == (3, 4)


def test_a_library_keeps_each_lectures_key_phrases_and_titles_the_parts_it_cut(
    seed_library: Any,
) -> None:
    table = PhraseTable(seed_library.store)
    lectures = seed_library.lectures()
    assert table.missing(lectures) == []  # found at ingest
    lecture = max(lectures, key=lambda lec: lec.duration)
    kept = table.read(lecture)
    assert kept is not None and kept.lecture
    text = " ".join(s.text for s in seed_library.store.segments(lecture.id)).casefold()
    assert all(p.casefold() in text for p in kept.lecture)  # as the lecturer said them
    for part in seed_library.parts(lecture):
        found = kept.of_part(part.start)
        assert found and (part.title == found[0]) == part.made


def test_a_changed_lecture_has_no_key_phrases_until_they_are_found_again(
    seed_library: Any,
) -> None:
    import dataclasses

    table = PhraseTable(seed_library.store)
    lecture = seed_library.lectures()[0]
    changed = dataclasses.replace(lecture, content_hash="other")
    assert table.read(changed) is None and table.missing([changed]) == [changed]
    kept = table.read(lecture)
    bare = seed_library.parts(changed)  # no key phrases: the word-run titles
    assert titled(bare, kept) == seed_library.parts(lecture) != bare
    with seed_library.store.transaction():  # a library kept before key phrases were found
        seed_library.store.connection.execute("DELETE FROM key_phrases")
    assert table.read(lecture) is None
    assert seed_library.find_keyphrases() == len(seed_library.lectures())
    assert table.read(lecture) == kept  # found again, the same
    seed_library.remove_lecture(lecture.id)
    assert table.read(lecture) is None


def test_a_lecture_s_phrases_are_its_parts_closest_to_it_the_library_s_own_after() -> None:
    embed = _axes({"autovetor": 0, "inversa": 1, "exemplo": 2})
    found = [("autovetores da matriz", "exemplo"), ("matriz inversa",), ("exemplo",)]
    lecture = _axis(1) + 0.5 * _axis(0)  # about the inverse first, eigenvectors next
    # one phrase a word: "matriz inversa" taken, "autovetores da matriz" is not
    assert gathered(found, lecture, embed, "pt") == ("matriz inversa", "exemplo")
    # what the whole library says goes after the lecture's own
    later = gathered(found, lecture, embed, "pt",
                     elsewhere=lambda keys: {k for k in keys if "inversa" in k})  # fmt: skip
    assert later == ("autovetores da matriz", "exemplo")


def test_a_common_word_the_whole_library_says_is_a_filler(seed_library: Any) -> None:
    """The demo's spoken Portuguese: "né" and "assim" are fillers, "tensor" (said as often,
    but rare in the language) and "regular" (common, but said nowhere) are not."""
    found = fillers(seed_library.store, "pt")
    assert {"né", "assim"} <= found and not {"tensor", "gpu", "regular"} & found
    text = "então o tensor né assim a GPU né e o tensor"
    phrases = {c.said for c in candidates(text, stopwords("pt") | found)}
    assert "tensor" in phrases and not any(p.split()[-1] in ("né", "assim") for p in phrases)


def test_a_language_the_word_lists_lack_has_no_common_words_and_no_error() -> None:
    assert common_words("xx") == () and common_words("") == () and common_words("sw") == ()
    assert "né" in common_words("pt-BR") and "gonna" in common_words("en")
    assert stopwords("xx") == frozenset()
