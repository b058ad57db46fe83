"""The lecturer's words, quoted whole and as said (core/study/quoting.py), from the windows
stitched into what was said (core/sentences.py)."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from lecturetui.core.sentences import Window, punctuated, stitch
from lecturetui.core.study.quoting import (
    choose,
    covering,
    quote_of_runs,
    quote_of_span,
    sentences,
    spoken,
)

CHAIN = (
    "If speed and distance were all we cared about, most of this lecture would be a waste of "
    "time. The derivative of the composite function is the derivative of g evaluated at h(x), "
    "times the derivative of h. That's why we call it the chain rule. Now, um, let us look at "
    "d(x²), which is 2x dx."
)


def windows(text: str, size: int = 14, overlap: int = 5, seconds: float = 2.0) -> list[Window]:
    """The text cut as ingest cuts it: windows of `size` words, each sharing `overlap` words
    with the one before, `seconds` per word."""
    words = text.split()
    out, i, k = [], 0, 0
    while i < len(words):
        piece = words[i : i + size]
        out.append(Window(k, i * seconds, (i + len(piece)) * seconds, " ".join(piece)))
        if i + size >= len(words):
            break
        i += size - overlap
        k += 1
    return out


def test_overlapping_windows_are_stitched_into_what_was_said_each_word_once() -> None:
    line = stitch(windows(CHAIN))
    assert " ".join(line.words) == " ".join(CHAIN.split())
    assert list(line.times) == sorted(line.times)
    assert line.offsets[0] == 0 and line.offsets[1] == 9  # 14 words, 5 shared
    assert line.owners[0] == 0 and line.owners[-1] == len(line.offsets) - 1


@given(
    st.lists(st.sampled_from(["a", "b", "the", "x²", "d(x)", "."]), min_size=1, max_size=80),
    st.integers(3, 20),
    st.integers(0, 2),
)
def test_stitching_never_loses_or_repeats_a_word(words: list[str], size: int, overlap: int) -> None:
    text = " ".join(words)
    line = stitch(windows(text, size, min(overlap, size - 1)))
    # repeated words at a seam may be taken as shared only if the text itself repeats them
    assert " ".join(line.words) == text


def test_sentences_run_across_caption_lines_and_keep_formulas() -> None:
    found = sentences(stitch(windows(CHAIN)), "en")
    texts = [s.text for s in found]
    assert texts[0].startswith("If speed and distance") and texts[0].endswith("waste of time.")
    assert texts[1].endswith("evaluated at h(x), times the derivative of h.")
    assert all(s.whole for s in found)
    assert found[2].leans and not found[1].leans  # "That's why..."
    assert "d(x²), which is 2x dx." in texts[3]


def test_a_stretch_that_may_begin_mid_sentence_does_not_call_its_first_sentence_whole() -> None:
    line = stitch([Window(1, 0.0, 10.0, "Times the derivative of h. That is all.")])
    found = sentences(line, "en", begins=False)
    assert not found[0].whole and found[1].whole
    cut = sentences(stitch([Window(1, 0.0, 9.0, "the derivative of g evaluated at")]), "en")
    assert not any(s.whole for s in cut)


def test_only_named_hesitations_and_noise_are_removed() -> None:
    assert spoken("Now, um, let us look at d(x²) [Music] and t(8-t).", "en") == (
        "Now, let us look at d(x²) and t(8-t)."
    )
    assert spoken("Então (risos) a função h(x) = 2*(1.5)*dx ♪ eh vale.", "pt") == (
        "Então a função h(x) = 2*(1.5)*dx vale."
    )
    assert spoken("(see the note) hmm", "en") == "(see the note)"
    assert spoken("um caso", "pt") == "um caso"  # "um" is a word in Portuguese


def test_unpunctuated_captions_give_pieces_never_called_whole() -> None:
    text = " ".join(["então a gente calcula a derivada né"] * 12)
    line = stitch([Window(1, 0.0, 60.0, text)])
    assert not punctuated(line.words)
    found = sentences(line, "pt")
    assert found and not any(s.whole for s in found)
    assert " ".join(s.text for s in found) == " ".join(text.split())


def test_a_quote_grows_around_the_answering_sentence_with_what_it_leans_on() -> None:
    found = sentences(stitch(windows(CHAIN)), "en")
    # the answer is "That's why we call it the chain rule": it brings the statement before it,
    # even past the words a quote grows to
    assert choose(found, [[2]], words=10) == [1, 2]
    assert quote_of_runs(found, [1, 2], "en").startswith("The derivative of the composite function")
    assert found[1].whole and found[2].whole
    # with room, the higher-scored neighbour comes next
    scores = {0: 0.1, 2: 0.5, 3: 0.9}
    assert choose(found, [[1]], words=40, score=lambda i: scores.get(i, 0.0)) == [1, 2, 3]
    assert "um," not in quote_of_runs(found, [1, 2, 3], "en")
    assert covering(found, found[1].first, found[1].first + 1) == [1]
    # the next best sentence where it fits; two runs of whole sentences joined by "…"
    assert choose(found, [[0], [3]], words=31) == [0, 3]
    assert quote_of_runs(found, [0, 3], "en") == (
        "If speed and distance were all we cared about, most of this lecture would be a waste "
        "of time. … Now, let us look at d(x²), which is 2x dx."
    )
    assert choose(found, [[0], [3]], words=20) == [0]  # it does not fit


WORDS = ["Se", "a", "h.", "x²", "d(x).", ".:!", "Isso", "é", "2.5", "?", "…", "Mr.", "J."]


@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=60))
def test_sentences_cover_every_word_once_in_order(words: list[str]) -> None:
    found = sentences(stitch([Window(0, 0.0, 60.0, " ".join(words))]), "pt")
    assert [w for s in found for w in s.text.split()] == words
    assert all(a.last == b.first for a, b in itertools.pairwise(found))


def test_a_piece_of_unpunctuated_speech_leaves_its_closing_tag_out() -> None:
    text = " ".join(["a gente calcula a derivada do produto de duas funções aqui né"] * 8)
    found = sentences(stitch([Window(1, 0.0, 60.0, text)]), "pt")
    piece = quote_of_span(found, 0, 1, "pt")
    assert piece == "a gente calcula a derivada do produto de duas funções aqui"
    whole = sentences(stitch([Window(1, 0.0, 9.0, "Isso vale, né. Fim.")]), "pt")
    assert quote_of_span(whole, 0, 1, "pt") == "Isso vale, né."  # a whole sentence keeps every word


def test_a_turn_the_captions_give_to_someone_in_the_room_is_not_the_lecturer_s() -> None:
    text = (
        "So the prior is one third. AUDIENCE: Why is it one third? Is it the dice? "
        "PROFESSOR: Because the dice are equal. GILBERT STRANG: Yes, equal."
    )
    found = sentences(stitch([Window(0, 0.0, 30.0, text)]), "en")
    assert [s.heard for s in found] == [False, True, True, False, False]


SAID = (
    "não existe não há nada análogo a cargas elétricas positivas ou negativas em um campo "
    "magnético da mesma forma as duas últimas equações dizem como os campos variam no tempo"
)
#: where the lecturer's sentences end in SAID (its captions mark none)
SAID_ENDS = {1, 14}


def test_the_model_s_ends_make_whole_sentences_of_unpunctuated_captions() -> None:
    words = SAID.split()
    cut = windows(SAID, size=10, overlap=3)
    at = [0, 7, 14, 21]  # where each window starts in SAID (10 words, 3 shared)
    with_ends = [
        Window(
            w.segment_id, w.start, w.end, w.text, tuple(e - a for e in SAID_ENDS if a <= e < a + 10)
        )
        for w, a in zip(cut, at, strict=False)
    ]
    line = stitch(with_ends)
    assert line.ends == frozenset(SAID_ENDS)
    found = sentences(line, "pt")
    assert [s.text for s in found] == [
        "não existe",
        " ".join(words[2:15]),
        " ".join(words[15:]),
    ]
    # the first is whole where the stretch begins the lecture; the last ends where the text does
    assert [s.whole for s in found] == [True, True, False]
    assert not sentences(line, "pt", begins=False)[0].whole
    # a window stored before the model (no ends looked for): pieces, never whole
    assert stitch([*with_ends[:1], cut[1]]).ends is None


@given(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=120), st.data())
def test_stitching_carries_each_window_s_ends_to_the_same_words(
    words: list[str], data: st.DataObject
) -> None:
    ends = set(data.draw(st.lists(st.integers(0, len(words) - 1), max_size=15)))
    text = " ".join(f"{w}{i}" for i, w in enumerate(words))  # distinct words: one way to stitch
    out, i = [], 0
    while i < len(words):
        own = text.split()[i : i + 12]
        out.append(
            Window(
                i,
                float(i),
                float(i + len(own)),
                " ".join(own),
                tuple(e - i for e in ends if i <= e < i + 12),
            )
        )
        if i + 12 >= len(words):
            break
        i += 8
    assert stitch(out).ends == frozenset(ends)
