"""What a course covers, lecture by lecture (the answer to a CourseOverview: core/requests/door.py):
one line per lecture, its gist's first sentence where its summary was written, else its parts'
titles; the course map (`c` in the app) shows the same line (`gist_line`)."""

from __future__ import annotations

from collections.abc import Sequence

from lecturetui.core.lectures import Lecture
from lecturetui.core.library import Library
from lecturetui.core.storage.summaries import GIST
from lecturetui.core.summary.writing import first_sentence, summary_key

_COURSE_HEADING = {
    "Portuguese": "O que o curso cobre, aula por aula",
    "Spanish": "Lo que cubre el curso, clase por clase",
}
_COURSE_HEADING_EN = "What the course covers, lecture by lecture"
_NOT_YET = {
    "Portuguese": "(ainda sem resumo; suas partes: {parts})",
    "Spanish": "(aún sin resumen; sus partes: {parts})",
}
_NOT_YET_EN = "(not summarised yet; its parts: {parts})"


def course_text(
    library: Library, lectures: Sequence[Lecture], model: str | None, language: str
) -> str:
    """One line per lecture, in course order: its gist's first sentence where its summary was
    written (by this model, in this language), else its parts' titles."""
    lines = [f"**{_COURSE_HEADING.get(language, _COURSE_HEADING_EN)}**", ""]
    for n, lecture in enumerate(lectures, 1):
        line = gist_line(library, lecture, model, language)
        if not line:
            titles = "; ".join(p.title for p in library.parts(lecture) if p.title) or "…"
            line = _NOT_YET.get(language, _NOT_YET_EN).format(parts=titles)
        lines.append(f"[{n}] {lecture.title}: {' '.join(line.split())}")
    return "\n".join(lines)


def gist_line(library: Library, lecture: Lecture, model: str | None, language: str) -> str:
    """The first sentence of the lecture's gist where its summary was written by this model in
    this language, else "" (the course's overview line; the course map's too)."""
    if model is None:
        return ""
    kept = library.summaries.written(summary_key(lecture, model, language)).get(GIST)
    return first_sentence(kept.label) if kept is not None and kept.label else ""
