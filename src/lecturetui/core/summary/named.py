"""Whether a question asks for a lecture's summary ("resuma a aula 3", "main topics of the
lecture on graphs", "o que vimos na aula passada?"), and which lecture; or what a whole course
covers. The front door (core/requests/door.py) answers such a question with that lecture's summary
(core/summary/writing.py), or a line per lecture, instead of one moment.

A question asks for a lecture's summary when it asks for a summary, an overview or the main
topics (in the languages below) and names a lecture: by its whole title ("Revisão da aula 1":
the longest title the question holds, before any number in it), by its number ("aula 3",
"lecture 5": a number in its title, else the lecture in that place), by a word of its title ("a
aula de autovetores"), as this one or the last one (the last in course order: by date, then by
the numbers in the titles), or by the question's scope or the lecture open in the app. A
request for a summary that names no lecture ("resuma a aula") is about the lecture in scope or
open, else the last one. "Resuma o que é um tensor" names no lecture and asks about one
idea: it is a question about a moment. Where two lectures answer alike ("Lecture 5" of two
courses), the course in scope, else the open lecture's, decides.
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
    by: str  # title, number, search, this, last, scope, open, only, latest


def named_lecture(
    question: str,
    lectures: Sequence[Lecture],
    scoped: Sequence[str] = (),
    open_: str | None = None,
    find: Callable[[str], Lecture | None] | None = None,
) -> NamedLecture | None:
    """The lecture a request for a summary asks about, or None when the question is not one
    (or names a lecture that is not in the library). `scoped`: the lectures of the question's
    scope; `open_`: the lecture open in the app (their course decides between two lectures
    named alike); `find`: the lecture that speaks most of a subject ("a aula sobre autovetores"
    when no title says it: the search's)."""
    text = " ".join(fold(question).split())
    if not lectures or not asks_summary(question):
        return None
    by_id = {lec.id: lec for lec in lectures}
    ordered = sorted(lectures, key=course_order)
    course = _course(by_id, scoped, open_)
    number = _NUMBER.search(text)
    if (found := _entitled(ordered, text, course, number)) is not None:
        return NamedLecture(found, "title")
    if number:
        found = _numbered(ordered, int(number.group(3)), course)
        return NamedLecture(found, "number") if found else None
    if (m := _LETTER.search(text)) and (found := _lettered(ordered, m.group(2), course)):
        return NamedLecture(found, "number")
    if m := _NAMED.search(text):
        return _subject(ordered, m.group(3), course, find)
    return _unnamed(text, ordered, course, _here(by_id, scoped, open_))


def _subject(
    ordered: Sequence[Lecture],
    words: str,
    course: str | None,
    find: Callable[[str], Lecture | None] | None,
) -> NamedLecture | None:
    """The lecture "a aula sobre X" names: by its title, else the one the search finds most of
    X in."""
    found = _titled(ordered, words, course)
    if found is not None:
        return NamedLecture(found, "title")
    found = find(words) if find is not None else None
    return NamedLecture(found, "search") if found is not None else None


def _unnamed(
    text: str, ordered: Sequence[Lecture], course: str | None, here: NamedLecture | None
) -> NamedLecture | None:
    """The lecture a request that gives no title, number or letter is about: the last one, this
    one (in scope or open), one a title's words name, else the only or latest one; None when it
    names no lecture at all ("resuma o que é um tensor": one idea)."""
    if _LAST.search(text):
        return NamedLecture(_among(ordered, course)[-1], "last")
    if _THIS.search(text) and here is not None:
        return here
    found = _titled(ordered, text, course)
    if found is not None:
        return NamedLecture(found, "title")
    if not _ANY_LECTURE.search(text) and here is None:
        return None  # "resuma o que é um tensor": one idea, not a lecture
    if here is not None:
        return here
    if len(ordered) == 1:
        return NamedLecture(ordered[0], "only")
    return NamedLecture(_among(ordered, course)[-1], "latest")


def _here(
    by_id: dict[str, Lecture], scoped: Sequence[str], open_: str | None
) -> NamedLecture | None:
    if len(scoped) == 1 and scoped[0] in by_id:
        return NamedLecture(by_id[scoped[0]], "scope")
    if open_ is not None and open_ in by_id:
        return NamedLecture(by_id[open_], "open")
    return None


def _course(by_id: dict[str, Lecture], scoped: Sequence[str], open_: str | None) -> str | None:
    """The course a request is about where it names none: the one course of the lectures in
    scope, else the open lecture's."""
    courses = {by_id[x].course for x in scoped if x in by_id}
    if len(courses) == 1:
        return courses.pop()
    return by_id[open_].course if open_ is not None and open_ in by_id else None


def _among(ordered: Sequence[Lecture], course: str | None) -> list[Lecture]:
    """The lectures of `course` (all of them when it has none, or none is given)."""
    return [lec for lec in ordered if course and lec.course == course] or list(ordered)


def _one(found: Sequence[Lecture], course: str | None) -> Lecture | None:
    """The one lecture found, or the one of them in `course`; None when that does not decide."""
    if len(found) == 1:
        return found[0]
    ours = [lec for lec in found if course and lec.course == course]
    return ours[0] if len(ours) == 1 else None


def course_order(lecture: Lecture) -> tuple[str, str, list[object]]:
    """Course order: by course, date when known, then the title's numbers as numbers."""
    key = [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", fold(lecture.title))]
    return (lecture.course or "", lecture.date or "", key)


def _numbered(ordered: Sequence[Lecture], n: int, course: str | None) -> Lecture | None:
    """The lecture whose title carries number `n` (its first number; of `course` first), else
    the n-th (of `course`)."""
    carrying = [
        lec
        for lec in ordered
        if (first := re.search(r"\d+", lec.title)) and int(first.group()) == n
    ]
    if carrying:
        return next((lec for lec in carrying if course and lec.course == course), carrying[0])
    among = _among(ordered, course)
    return among[n - 1] if 1 <= n <= len(among) else None


def _lettered(ordered: Sequence[Lecture], letter: str, course: str | None) -> Lecture | None:
    """The one lecture whose title has `letter` as a word of its own ("Aula B")."""
    return _one(
        [lec for lec in ordered if letter in re.findall(r"[^\W\d_]+", fold(lec.title))], course
    )


def _entitled(
    ordered: Sequence[Lecture], text: str, course: str | None, number: re.Match[str] | None
) -> Lecture | None:
    """The lecture whose whole title the request holds ("resuma a revisão da aula 1"): the
    longest such title, so "Revisão da aula 1" before "Aula 1"; where a lecture's number is
    named too, only a title that holds it ("Lecture 5: Files" holds "lecture 5")."""
    held: list[tuple[int, Lecture]] = []
    for lec in ordered:
        words = re.findall(r"\w+", fold(lec.title))
        if len(words) < 2 and not (words and len(words[0]) >= 4 and words[0] not in _STOP):
            continue  # one short or common word ("Aula") names no lecture by itself
        at = re.search(r"\b" + r"\W+".join(map(re.escape, words)) + r"\b", text)
        if at and (number is None or at.start() <= number.start() <= number.end() <= at.end()):
            held.append((len(words), lec))
    if not held:
        return None
    longest = max(n for n, _ in held)
    return _one([lec for n, lec in held if n == longest], course)


def _titled(ordered: Sequence[Lecture], words: str, course: str | None) -> Lecture | None:
    """The lecture whose title shares the most words with `words` (a word's first five letters
    will do: "autovetores" finds "Autovetores e autovalores"), when one shares more than any
    other (or is the one of `course` among those)."""
    wanted = {w[:5] for w in _WORD.findall(fold(words)) if w not in _STOP}
    if not wanted:
        return None
    shared = [len(wanted & {w[:5] for w in _WORD.findall(fold(lec.title))}) for lec in ordered]
    best = max(shared, default=0)
    if best == 0:
        return None
    return _one([lec for lec, n in zip(ordered, shared, strict=True) if n == best], course)
