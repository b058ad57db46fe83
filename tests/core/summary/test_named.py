"""Which questions ask for a lecture's summary, and which lecture (core/summary/named.py)."""

from __future__ import annotations

import pytest

from lecturetui.core.lectures import Lecture
from lecturetui.core.summary.named import named_lecture


def _lecture(lecture_id: str, title: str, course: str = "Álgebra linear") -> Lecture:
    return Lecture(lecture_id, title, course, "pt", None, None, "vtt", 1200.0, "h")


LECTURES = [
    _lecture("a1", "Aula 1 - Vetores e espaços vetoriais"),
    _lecture("a2", "Aula 2 - Matrizes"),
    _lecture("a3", "Aula 3 - Autovetores e autovalores"),
    _lecture("a10", "Aula 10 - Redes neurais"),
    _lecture("py", "Lecture 5: Graphs and trees", "Algorithms"),
]


@pytest.mark.parametrize(
    ("question", "lecture", "by"),
    [
        ("resuma a aula 3", "a3", "number"),
        ("Resuma a aula nº 10", "a10", "number"),
        ("summarize lecture 5", "py", "number"),
        ("resuma a aula de autovetores", "a3", "title"),
        ("quais são os principais tópicos da aula sobre redes neurais?", "a10", "title"),
        ("what are the main topics of the lecture on graphs?", "py", "title"),
        ("o que vimos na aula passada?", "a10", "last"),
        ("resumo da última aula", "a10", "last"),
        ("faça um resumo de Matrizes", "a2", "title"),
        ("de que trata a aula sobre espaços vetoriais?", "a1", "title"),
    ],
)
def test_a_request_for_a_summary_names_its_lecture(question: str, lecture: str, by: str) -> None:
    found = named_lecture(question, LECTURES)
    assert found is not None and (found.lecture.id, found.by) == (lecture, by)


@pytest.mark.parametrize(
    "question",
    [
        "O que é um autovetor?",  # one idea, not a lecture
        "resuma o que é um tensor",
        "Which device does TensorFlow prioritise?",
        "quais os principais tipos de matrizes?",  # "principais" alone is not a summary
        "What do the lectures say about eigenvalues?",  # the first screen's examples
        "O que as aulas dizem sobre matrizes?",
    ],
)
def test_a_question_about_a_moment_is_not_a_summary(question: str) -> None:
    assert named_lecture(question, LECTURES) is None


def test_the_lecture_in_scope_or_open_is_the_one_summarised() -> None:
    assert named_lecture("resuma esta aula", LECTURES, open_="a2").lecture.id == "a2"  # type: ignore[union-attr]
    scoped = named_lecture("resuma a aula", LECTURES, scoped=["a1"])
    assert scoped is not None and (scoped.lecture.id, scoped.by) == ("a1", "scope")
    # no lecture named, none open: the last one
    latest = named_lecture("resuma a aula", LECTURES)
    assert latest is not None and latest.by == "latest"
    # a number no title carries: the lecture in that place, else none
    assert named_lecture("resuma a aula 4", LECTURES[:4]) is not None
    assert named_lecture("resuma a aula 40", LECTURES) is None
    assert named_lecture("resuma a aula 3", []) is None


def test_a_subject_no_title_names_is_found_by_the_search() -> None:
    asked: list[str] = []

    def find(words: str) -> Lecture | None:
        asked.append(words)
        return LECTURES[2]

    found = named_lecture("resuma a aula sobre diagonalização", LECTURES, find=find)
    assert found is not None and (found.lecture.id, found.by) == ("a3", "search")
    assert asked == ["diagonalizacao"]
    # without a search, a subject no title names is not taken for another lecture
    assert named_lecture("resuma a aula sobre diagonalização", LECTURES) is None


@pytest.mark.parametrize(
    ("question", "course"),
    [
        ("o que este curso cobre?", True),
        ("What does this course cover?", True),
        ("resumo do curso", True),
        ("quais os principais tópicos da disciplina?", True),
        ("resuma a aula 3 do curso", False),  # a lecture of it
        ("o curso usa Python?", False),  # a question about a moment
    ],
)
def test_a_question_about_the_asks_course(question: str, course: bool) -> None:
    from lecturetui.core.summary.named import asks_course

    assert asks_course(question) is course


def test_a_lecture_named_by_a_letter() -> None:
    lettered = [_lecture(f"aula-{x}", f"Aula {x.upper()}") for x in "abc"]
    found = named_lecture("resuma a aula B", lettered)
    assert found is not None and found.lecture.id == "aula-b"
    # "a" is also a word of the question, never a lecture's name by itself
    assert named_lecture("resuma a aula", lettered).by == "latest"  # type: ignore[union-attr]


def test_the_longest_title_the_request_holds_is_the_one_named() -> None:
    """ "Revisão da aula 1" holds "aula 1", another lecture's whole title, and its number: the
    longer title wins, whatever the course order."""
    review = [_lecture("r1", "Revisão da aula 1"), _lecture("a1", "Aula 1")]
    for lectures in (review, review[::-1]):
        found = named_lecture("Resuma a revisão da aula 1", lectures)
        assert found is not None and (found.lecture.id, found.by) == ("r1", "title")
        found = named_lecture("Summarise this lecture: Revisão da aula 1", lectures)
        assert found is not None and found.lecture.id == "r1"
        found = named_lecture("resuma a aula 1", lectures)  # the shorter title, whole
        assert found is not None and (found.lecture.id, found.by) == ("a1", "title")
    # a title that does not hold the number named is no answer: the number decides
    intro = [_lecture("i", "Introdução"), *LECTURES]
    found = named_lecture("resuma a introdução da aula 3", intro)
    assert found is not None and (found.lecture.id, found.by) == ("a3", "number")


def test_the_course_in_scope_or_open_tells_two_lectures_named_alike_apart() -> None:
    files = _lecture("files", "Lecture 5: Files", "Python")
    graphs = _lecture("graphs", "Lecture 5: Graphs", "Algorithms")
    other = _lecture("p4", "Lecture 4: Strings", "Python")
    lectures = [graphs, files, other]  # "Algorithms" comes first in course order
    found = named_lecture("Summarise this lecture: Lecture 5: Files", lectures)
    assert found is not None and (found.lecture.id, found.by) == ("files", "title")
    # "lecture 5" alone: the course in scope, else the open lecture's, decides
    found = named_lecture("summarise lecture 5", lectures, scoped=["files", "p4"])
    assert found is not None and (found.lecture.id, found.by) == ("files", "number")
    found = named_lecture("summarise lecture 5", lectures, open_="p4")
    assert found is not None and found.lecture.id == "files"
    found = named_lecture("summarise lecture 5", lectures, open_="graphs")
    assert found is not None and found.lecture.id == "graphs"
    # and the last lecture is that course's
    last = named_lecture("summary of the last lecture", lectures, open_="p4")
    assert last is not None and (last.lecture.id, last.by) == ("files", "last")
