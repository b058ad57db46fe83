"""A lecture's parts (core/study/parts.py): the author's chapters, else cut where the subject
changes, each with the lecturer's most representative sentences; on made-up vectors."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from lecturetui.core.lectures import Chapter, StoredSegment
from lecturetui.core.study.parts import (
    DIGEST_WORDS,
    LECTURE_DIGEST_WORDS,
    MIN_DIGEST_WORDS,
    boundaries,
    digest_words,
    lecture_parts,
    ranking,
    timeline,
)

MAX_UNITS = 64


def _segments(topics: list[str], seconds: float = 60.0) -> list[StoredSegment]:
    """One segment a minute, each saying its topic's sentence four times (no overlap)."""
    return [
        StoredSegment(i + 1, "lec", i + 1, i * seconds, (i + 1) * seconds,
                      " ".join(f"Agora falamos de {t} e mais {t} aqui." for _ in range(4)))
        for i, t in enumerate(topics)
    ]  # fmt: skip


def _vectors(segments: list[StoredSegment]) -> object:
    """Each unit's vector: its segment's topic (two topics, far apart)."""
    topic = {s.id: ("vetores" in s.text) for s in segments}

    def vectors(labels: list[int]) -> npt.NDArray[np.float32]:
        rows = [[1.0, 0.1] if topic[label // MAX_UNITS] else [0.1, 1.0] for label in labels]
        return np.asarray(rows, dtype=np.float32)

    return vectors


def test_a_lecture_is_cut_where_its_subject_changes() -> None:
    segments = _segments(["vetores"] * 5 + ["matrizes"] * 5)
    parts = lecture_parts(segments, [], _vectors(segments), MAX_UNITS)  # type: ignore[arg-type]
    assert len(parts) >= 2 and all(p.made for p in parts)
    starts = [p.start for p in parts]
    assert starts[0] == 0.0 and any(abs(s - 300.0) <= 30.0 for s in starts[1:]), starts
    assert [p.number for p in parts] == list(range(1, len(parts) + 1))
    assert parts[-1].end == 600.0
    # the title is the part's own words, and its sentences are its own
    first = next(p for p in parts if p.start == 0.0)
    assert "vetores" in first.title and all("vetores" in s.text for s in first.sentences)
    assert "vetores" in first.digest and len(first.digest.split()) <= 170


def test_the_authors_chapters_are_the_parts_when_there_are_some() -> None:
    segments = _segments(["vetores"] * 5 + ["matrizes"] * 5)
    chapters = [Chapter(0.0, "Introdução"), Chapter(240.0, "Matrizes enfim")]
    parts = lecture_parts(segments, chapters, _vectors(segments), MAX_UNITS)  # type: ignore[arg-type]
    assert [(p.start, p.end, p.title, p.made) for p in parts] == [
        (0.0, 240.0, "Introdução", False),
        (240.0, 600.0, "Matrizes enfim", False),
    ]


def test_overlapping_windows_are_read_once() -> None:
    a = StoredSegment(1, "lec", 1, 0.0, 120.0, "um dois três quatro. cinco seis sete oito.")
    b = StoredSegment(2, "lec", 2, 60.0, 180.0, "cinco seis sete oito. nove dez onze doze.")
    line = timeline([a, b], MAX_UNITS)
    assert [s.text for s in line.said] == [
        "um dois três quatro.",
        "cinco seis sete oito.",
        "nove dez onze doze.",
    ]
    assert line.times == sorted(line.times)


def test_a_short_lecture_is_one_part_and_the_ranking_puts_the_typical_first() -> None:
    times = [0.0, 30.0, 60.0]
    vectors = np.eye(2, dtype=np.float32)[[0, 0, 1]]
    assert boundaries(times, vectors, 0.0, 90.0) == []
    assert ranking(np.asarray([[1, 0], [0.9, 0.1], [0, 1]], dtype=np.float32))[0] in (0, 1)
    assert ranking(np.zeros((0, 2), dtype=np.float32)) == []


def test_a_long_lecture_s_parts_share_what_the_model_reads() -> None:
    # a short lecture's parts read up to DIGEST_WORDS each; a long one's share the lecture's
    # budget, never below MIN_DIGEST_WORDS
    assert digest_words(1) == DIGEST_WORDS
    assert digest_words(4) == min(DIGEST_WORDS, LECTURE_DIGEST_WORDS // 4)
    assert digest_words(12) * 12 <= LECTURE_DIGEST_WORDS < digest_words(4) * 12
    assert digest_words(1000) == MIN_DIGEST_WORDS


def test_a_part_titled_elsewhere_gets_no_word_run() -> None:
    segments = _segments(["vetores"] * 5 + ["matrizes"] * 5)
    parts = lecture_parts(segments, [], _vectors(segments), MAX_UNITS)  # type: ignore[arg-type]
    later = lecture_parts(segments, [], _vectors(segments), MAX_UNITS,  # type: ignore[arg-type]
                          titled_elsewhere=lambda start: start == 0.0)  # fmt: skip
    assert [p.start for p in later] == [p.start for p in parts]
    assert later[0].title == "" and parts[0].title
    assert [p.title for p in later[1:]] == [p.title for p in parts[1:]]
    # the author's chapters keep their titles whatever it says
    chapters = [Chapter(0.0, "Introdução"), Chapter(240.0, "Matrizes enfim")]
    named = lecture_parts(segments, chapters, _vectors(segments), MAX_UNITS,  # type: ignore[arg-type]
                          titled_elsewhere=lambda _start: True)  # fmt: skip
    assert [p.title for p in named] == ["Introdução", "Matrizes enfim"]


def test_a_part_quotes_the_lecturer_s_whole_sentences_across_windows_as_said() -> None:
    text = (
        "Se a velocidade e a distância fossem tudo, esta aula seria perda de tempo, pessoal. "
        "A derivada de d(x²) é 2x dx, e isso vale para todo x real que a gente escolher aqui. "
        "ALUNO: Vale para x negativo também, professor? "
        "PROFESSOR: Vale sim, para qualquer x real, positivo ou negativo, sem exceção nenhuma. "
        "Isso é o que chamamos de regra da potência para as funções do tipo x elevado a n."
    )
    words = text.split()
    a = StoredSegment(1, "lec", 0, 0.0, 2.0 * 40, " ".join(words[:40]))
    b = StoredSegment(2, "lec", 1, 2.0 * 28, 2.0 * len(words), " ".join(words[28:]))
    chapters = [Chapter(0.0, "Derivadas")]
    parts = lecture_parts([a, b], chapters, _vectors([a, b]), MAX_UNITS, language="pt")
    said = [s.text for s in parts[0].sentences]
    assert said, parts
    for piece in said:
        assert piece in " ".join(words)  # verbatim, across the windows' seam
        assert piece.endswith((".", "?")) and piece[0].isupper()
        assert "ALUNO" not in piece  # the student's question is not the lecturer's words
        assert not piece.startswith("Isso")  # a leaning sentence comes with the one before
    assert said[1] == (
        "A derivada de d(x²) é 2x dx, e isso vale para todo x real que a gente escolher aqui."
    )  # the condition and the formula kept, across the seam


def test_a_part_whose_sentences_are_all_long_still_quotes_the_lecturer() -> None:
    def long(n: int) -> str:
        return " ".join([f"No ponto {n} os vetores"] + [f"e mais uma coisa {n} sobre eles"] * 7)

    segments = [
        StoredSegment(
            i + 1, "lec", i + 1, i * 60.0, (i + 1) * 60.0, f"{long(2 * i)}. {long(2 * i + 1)}."
        )
        for i in range(4)
    ]
    vectors = _vectors(segments)
    (part,) = lecture_parts(segments, [Chapter(0.0, "Vetores")], vectors, MAX_UNITS)  # type: ignore[arg-type]
    assert min(len(long(n).split()) for n in range(8)) > 45  # longer than a part quotes by choice
    assert len(part.sentences) == 1
    said = part.sentences[0].text
    assert any(said == f"{long(n)}." for n in range(8)), said
