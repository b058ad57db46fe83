"""A lecture's summary as every face shows it: as it unfolds (`Unfolding`), as Markdown text, as
its typed record; and the course's overview, one line per lecture from its kept gist."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from lecturetui.core.answer.events import GistWritten, PartsReady, PartWritten
from lecturetui.core.lectures import Lecture
from lecturetui.core.library import Library
from lecturetui.core.links import deep_link
from lecturetui.core.records import OverviewRecord, PartRecord
from lecturetui.core.storage.overviews import GIST, Written
from lecturetui.core.study.parts import Part
from lecturetui.core.summary.writing import first_sentence, overview_key
from lecturetui.core.timefmt import format_timestamp

_HEADING = {
    "Portuguese": "Resumo de “{title}”, em {n} partes",
    "Spanish": "Resumen de “{title}”, en {n} partes",
}
_HEADING_EN = "Summary of “{title}”, in {n} parts"
_PHRASES = {"Portuguese": "Palavras-chave: {phrases}", "Spanish": "Palabras clave: {phrases}"}
_PHRASES_EN = "Key phrases: {phrases}"


def overview_text(
    lecture: Lecture,
    parts: Sequence[Part],
    written: Sequence[Written],
    gist: Written | None,
    language: str,
    phrases: Sequence[str] = (),
) -> str:
    """The summary as one text (Markdown): a heading and the lecture's key phrases, each part
    with its time, title, summary and the lecturer's words, then the gist."""
    by_number = {w.ordinal: w for w in written}
    head = _HEADING.get(language, _HEADING_EN).format(title=lecture.title, n=len(parts))
    lines = [f"**{head}**", ""]
    if phrases:
        about = _PHRASES.get(language, _PHRASES_EN).format(phrases=" · ".join(phrases))
        lines[1:1] = [f"*{about}*"]
    for p in parts:
        said = by_number.get(p.number)
        title = f" {p.title}" if p.title else ""
        lines.append(f"[{p.number}] {format_timestamp(p.start)}{title}")
        if said is not None and said.summary:
            lines.append(said.summary)
        words = " … ".join(s.text for s in p.sentences)
        if words:
            lines.append(f"“{words}”")
        lines.append("")
    if gist is not None and gist.summary:
        lines.append(gist.summary)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def overview_record(
    lecture: Lecture,
    parts: Sequence[Part],
    written: Sequence[Written],
    gist: Written | None,
    language: str,
    model: str | None,
    phrases: Sequence[str] = (),
) -> OverviewRecord:
    """The summary as the faces show it and `--json` prints it."""
    by_number = {w.ordinal: w for w in written}
    return OverviewRecord(
        lecture=lecture.id,
        title=lecture.title,
        language=language,
        model=model,
        parts=tuple(
            PartRecord(
                number=p.number,
                start_s=p.start,
                end_s=p.end,
                start=format_timestamp(p.start),
                title=p.title,
                made=p.made,
                said=tuple(s.text for s in p.sentences),
                summary=w.summary if (w := by_number.get(p.number)) else "",
                struck=w.struck if w else (),
                url=deep_link(lecture.source_url, p.start),
                phrases=p.phrases,
            )
            for p in parts
        ),
        gist=gist.summary if gist else "",
        gist_struck=gist.struck if gist else (),
        phrases=tuple(phrases),
    )


@dataclass
class Unfolding:
    """A summary as its events arrive (`feed`): the parts, the parts written, the gist; what
    every face shows of it so far (`record`, `text`)."""

    language: str = ""
    lecture: Lecture | None = None
    parts: tuple[Part, ...] = ()
    written: list[Written] = field(default_factory=list)
    gist: Written | None = None
    phrases: tuple[str, ...] = ()

    def feed(self, event: PartsReady | PartWritten | GistWritten) -> None:
        if isinstance(event, PartsReady):
            self.lecture, self.parts, self.language = event.lecture, event.parts, event.language
            self.phrases = event.phrases
        elif isinstance(event, PartWritten):
            self.written.append(event.written)
        else:
            self.gist = event.gist

    def record(self, model: str | None = None) -> OverviewRecord:
        assert self.lecture is not None
        return overview_record(self.lecture, self.parts, self.written, self.gist, self.language,
                               model if self.written else None, self.phrases)  # fmt: skip

    def text(self) -> str:
        assert self.lecture is not None
        return overview_text(self.lecture, self.parts, self.written, self.gist, self.language,
                             self.phrases)  # fmt: skip


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


def course_text(library: Library, lectures: Sequence[Lecture], model: str | None,
                language: str) -> str:  # fmt: skip
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
    kept = library.overviews.written(overview_key(lecture, model, language)).get(GIST)
    return first_sentence(kept.summary) if kept is not None and kept.summary else ""
