"""Whether a question asks for a lecture's summary ("resuma a aula 3", "main topics of the
lecture on graphs", "o que vimos na aula passada?"), and which lecture; or what a whole course
covers. The front door (core/requests.py) answers such a question with that lecture's summary
(core/summary/writing.py), or a line per lecture, instead of one moment.

A question asks for a lecture's summary when it asks for a summary, an overview or the main
topics (in the languages below) and names a lecture: by its number ("aula 3", "lecture 5": a
number in its title, else the lecture in that place), by a word of its title ("a aula de
autovetores"), as this one or the last one (the last in course order: by date, then by the
numbers in the titles), or by the question's scope or the lecture open in the app. A
request for a summary that names no lecture ("resuma a aula") is about the lecture in scope or
open, else the last one. "Resuma o que é um tensor" names no lecture and asks about one
idea: it is a question about a moment.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lecturetui.core.lectures import Lecture
from lecturetui.core.lexical import fold

#: a request for a summary, an overview or the main topics (folded: no accents, lower case)
_ASKS = re.compile(
    r"\b(resum\w*|sumari\w*|sintetiz\w*|sintese|visao geral|panorama|recap\w*|summar\w*"
    r"|overview|outline|synops\w*|gist|esquema"
    r"|(principais|main|key|principales) (topicos|pontos|temas|assuntos|ideias|conceitos"
    r"|topics|points|ideas|themes|concepts|takeaways|temas|puntos)"
    r"|(topicos|temas|assuntos|topics|themes) (principais|da|de|do|of|in|covered|tratad\w*)"
    r"|what (did|do) (we|you|i) (see|cover|learn|study|do)|what was (covered|seen|taught)"
    r"|(o )?que (vimos|vemos|foi visto|aprendemos|estudamos|foi dado|se viu)"
    r"|do que (trata|fala)|sobre o que (e|foi|trata|fala)|de que (trata|habla|fala)"
    r"|que vimos|what is (it|this|the lecture|lecture \d+) about)\b"
)
#: a lecture named as such
_LECTURE = r"(aula|lecture|class|clase|video|aulas|lectures|classes|capitulo|chapter)"
_NUMBER = re.compile(rf"\b{_LECTURE}\s*(n[o.]?\s*)?(\d+)\b")
_LETTER = re.compile(rf"\b{_LECTURE}\s+([a-z])\b")  # "aula B"
_THIS = re.compile(
    rf"\b(esta|essa|nesta|nessa|desta|dessa|this|current|atual|este|ese|esa)\s+{_LECTURE}\b"
)
_LAST = re.compile(
    rf"\b{_LECTURE}\s+(passada|anterior|pasada|last|previous)\b"
    rf"|\b(last|previous|ultima|ultimo)\s+{_LECTURE}\b"
)
_NAMED = re.compile(rf"\b{_LECTURE}\s+(de|do|da|dos|das|sobre|on|about|of|del)\s+(.+)$")
_ANY_LECTURE = re.compile(rf"\b{_LECTURE}\b")
_WORD = re.compile(r"[^\W\d_]{4,}")
#: words of a request that never name a lecture
_STOP = frozenset(
    [
        "sobre",
        "aula",
        "aulas",
        "lecture",
        "lectures",
        "class",
        "video",
        "esta",
        "essa",
        "este",
        "what",
        "main",
        "topics",
        "pontos",
        "principais",
        "resuma",
        "resumo",
        "summary",
        "summarize",
        "summarise",
        "overview",
        "quais",
        "qual",
        "sao",
        "foram",
        "topicos",
        "temas",
        "assuntos",
        "ideias",
        "tema",
        "about",
        "from",
        "that",
        "this",
        "with",
        "para",
        "pelo",
        "pela",
        "como",
        "the",
    ]
)


_COURSE = re.compile(r"\b(curso|course|disciplina|materia|cadeira|asignatura)\b")
_COVERS = re.compile(r"\b(cobre|aborda|ensina|trata|cover\w*|teach\w*|cubre|ensena)\b")


def asks_course(question: str) -> bool:
    """Whether a question asks what a whole course covers ("o que este curso cobre?", "course
    overview"), naming no lecture."""
    text = " ".join(fold(question).split())
    named = _NUMBER.search(text) or _NAMED.search(text) or _LAST.search(text)
    asks = _ASKS.search(text) or _COVERS.search(text)
    return bool(_COURSE.search(text) and asks and not named)


def asks_summary(question: str) -> bool:
    """Whether a question asks for a summary, an overview or the main topics (of a lecture or
    a course): nothing more is looked up for any other question."""
    return _ASKS.search(" ".join(fold(question).split())) is not None


@dataclass(frozen=True, slots=True)
class NamedLecture:
    """The lecture a request for a summary names, and how it was found."""

    lecture: Lecture
    by: str  # number, title, search, this, last, scope, open, only, latest


def named_lecture(
    question: str,
    lectures: Sequence[Lecture],
    scoped: Sequence[str] = (),
    open_: str | None = None,
    find: Callable[[str], Lecture | None] | None = None,
) -> NamedLecture | None:
    """The lecture a request for a summary asks about, or None when the question is not one
    (or names a lecture that is not in the library). `scoped`: the lectures of the question's
    scope; `open_`: the lecture open in the app; `find`: the lecture that speaks most of a
    subject ("a aula sobre autovetores" when no title says it: the search's)."""
    text = " ".join(fold(question).split())
    if not lectures or not asks_summary(question):
        return None
    by_id = {lec.id: lec for lec in lectures}
    ordered = sorted(lectures, key=course_order)
    if m := _NUMBER.search(text):
        found = _numbered(ordered, int(m.group(3)))
        return NamedLecture(found, "number") if found else None
    if (m := _LETTER.search(text)) and (found := _lettered(ordered, m.group(2))) is not None:
        return NamedLecture(found, "number")
    if m := _NAMED.search(text):
        found = _titled(ordered, m.group(3))
        if found is not None:
            return NamedLecture(found, "title")
        found = find(m.group(3)) if find is not None else None
        return NamedLecture(found, "search") if found is not None else None
    if _LAST.search(text):
        return NamedLecture(ordered[-1], "last")
    here = _here(by_id, scoped, open_)
    if _THIS.search(text) and here is not None:
        return here
    found = _titled(ordered, text)
    if found is not None:
        return NamedLecture(found, "title")
    if not _ANY_LECTURE.search(text) and here is None:
        return None  # "resuma o que é um tensor": one idea, not a lecture
    if here is not None:
        return here
    if len(lectures) == 1:
        return NamedLecture(lectures[0], "only")
    return NamedLecture(ordered[-1], "latest")


def _here(
    by_id: dict[str, Lecture], scoped: Sequence[str], open_: str | None
) -> NamedLecture | None:
    if len(scoped) == 1 and scoped[0] in by_id:
        return NamedLecture(by_id[scoped[0]], "scope")
    if open_ is not None and open_ in by_id:
        return NamedLecture(by_id[open_], "open")
    return None


def course_order(lecture: Lecture) -> tuple[str, str, list[object]]:
    """Course order: by course, date when known, then the title's numbers as numbers."""
    key = [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", fold(lecture.title))]
    return (lecture.course or "", lecture.date or "", key)


def _numbered(ordered: Sequence[Lecture], n: int) -> Lecture | None:
    """The lecture whose title carries number `n` (its first number), else the n-th."""
    for lec in ordered:
        first = re.search(r"\d+", lec.title)
        if first is not None and int(first.group()) == n:
            return lec
    return ordered[n - 1] if 1 <= n <= len(ordered) else None


def _lettered(ordered: Sequence[Lecture], letter: str) -> Lecture | None:
    """The one lecture whose title has `letter` as a word of its own ("Aula B")."""
    found = [lec for lec in ordered if letter in re.findall(r"[^\W\d_]+", fold(lec.title))]
    return found[0] if len(found) == 1 else None


def _titled(ordered: Sequence[Lecture], words: str) -> Lecture | None:
    """The lecture whose title shares the most words with `words` (a word's first five letters
    will do: "autovetores" finds "Autovetores e autovalores"), when one shares more than any
    other."""
    wanted = {w[:5] for w in _WORD.findall(fold(words)) if w not in _STOP}
    if not wanted:
        return None
    scored = sorted(
        ((len(wanted & {w[:5] for w in _WORD.findall(fold(lec.title))}), i) for i, lec in
         enumerate(ordered)),
        reverse=True,
    )  # fmt: skip
    if not scored or scored[0][0] == 0 or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return ordered[scored[0][1]]
