"""A whole lecture's summary, from the lecturer's own words, part by part.

Its parts come first, each with its time and the lecturer's most representative sentences
(core/study/parts.py: the author's chapters, else parts cut where the subject changes), shown
before any model runs. Then the answer model reads each part's most representative sentences
(about DIGEST_WORDS words) and says in one or two sentences what the part explains; a sentence
whose facts (numbers, names, code terms: core/answer/check.py) the part does not hold is struck.
Then the gist: three sentences on the whole lecture from the parts' summaries, each citing the
parts it comes from as [n], checked against those parts the same way.

What the model wrote is kept in the library part by part as it is written (an interrupted
summary keeps its parts: core/storage/overviews.py), for the lecture as it is, the model and the
language, so the summary is written once and read back after.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from lecturetui.core.answer.check import SENTENCE, check, facts, holds
from lecturetui.core.answer.events import GistWritten, PartsReady, PartWritten
from lecturetui.core.answer.generation import Generator
from lecturetui.core.citing import CITATION
from lecturetui.core.language import language_name
from lecturetui.core.lectures import Lecture
from lecturetui.core.lexical import fold
from lecturetui.core.library import Library
from lecturetui.core.links import deep_link
from lecturetui.core.records import OverviewRecord, PartRecord
from lecturetui.core.storage.overviews import GIST, OverviewKey, Written
from lecturetui.core.study.parts import Part
from lecturetui.core.timefmt import format_timestamp

#: the model's summary of one part, and the lecture's gist, in tokens at most
PART_TOKENS = 120
GIST_TOKENS = 200
#: ... and in sentences, at most (a longer reply is cut to them)
PART_SENTENCES = 2
GIST_SENTENCES = 3

PART_SYSTEM = (
    "You summarise one part of a recorded lecture for a student, using only what the lecturer "
    "says in it. Do not add facts the lecturer does not state, and keep the lecturer's "
    "negations."
)
GIST_SYSTEM = "You say what a recorded lecture is about, using only the summaries of its parts."


def part_messages(lecture: Lecture, part: Part, language: str) -> list[dict[str, str]]:
    """The prompt for one part: its title and time, and its most representative sentences."""
    named = f": {part.title}" if part.title else ""
    user = (
        f"Lecture: {lecture.title}\n"
        f"Part {part.number} ({format_timestamp(part.start)}-{format_timestamp(part.end)}){named}\n\n"
        f"What the lecturer says:\n“{part.digest}”\n\n"
        f"In one or two short sentences, in {language}, say what this part of the lecture "
        "explains. Use only what the lecturer says here."
    )
    return [{"role": "system", "content": PART_SYSTEM}, {"role": "user", "content": user}]


def gist_messages(
    lecture: Lecture, written: Sequence[tuple[Part, Written]], language: str
) -> list[dict[str, str]]:
    """The prompt for the lecture's gist: each part's summary, numbered."""
    lines = "\n".join(
        f"[{p.number}] ({format_timestamp(p.start)}{', ' + p.title if p.title else ''}) {w.summary}"
        for p, w in written
    )
    user = (
        f"Lecture: {lecture.title}\nIts parts:\n{lines}\n\n"
        f"Write exactly three sentences, one per line, in {language}, on what the whole lecture "
        "is about. End each sentence with the numbers of the parts it comes from, as [1] or "
        "[2][3]; cite at least three different parts in all."
    )
    return [{"role": "system", "content": GIST_SYSTEM}, {"role": "user", "content": user}]


def borne_out(summary: str, text: str) -> tuple[str, tuple[str, ...]]:
    """The summary without its sentences whose facts `text` does not hold, and those sentences
    (struck)."""
    kept: list[str] = []
    struck: list[str] = []
    for sentence in SENTENCE.findall(summary):
        said = " ".join(sentence.split())
        if not said:
            continue
        if all(holds(fact, text) for fact in facts(said)):
            kept.append(said)
        else:
            struck.append(said)
    return " ".join(kept), tuple(struck)


def _written(generator: Generator, messages: list[dict[str, str]], tokens: int,
             stop: threading.Event) -> str:  # fmt: skip
    reply = "".join(generator.stream(messages, tokens, stop, temperature=0.0))
    return " ".join(reply.strip().strip('“”"').split())


def write_part(
    generator: Generator, lecture: Lecture, part: Part, language: str, stop: threading.Event
) -> Written:
    """The model's summary of one part, its unsupported sentences struck."""
    reply = _written(generator, part_messages(lecture, part, language), PART_TOKENS, stop)
    reply = re.sub(r"\s+([.!?,;:])", r"\1", CITATION.sub("", reply))
    summary, struck = borne_out(reply, f"{lecture.title} {part.text}")
    kept = SENTENCE.findall(summary)[:PART_SENTENCES]  # one or two, as asked
    return Written(part.number, part.start, " ".join(x.strip() for x in kept), struck)


def write_gist(
    generator: Generator,
    lecture: Lecture,
    written: Sequence[tuple[Part, Written]],
    language: str,
    stop: threading.Event,
) -> Written:
    """The lecture's gist citing its parts, each sentence checked against the parts it cites."""
    said = [(p, w) for p, w in written if w.summary]
    if not said:
        return Written(GIST, 0.0, "", ())
    reply = _written(generator, gist_messages(lecture, said, language), GIST_TOKENS, stop)
    checked = check(reply, {p.number: f"{lecture.title} {p.text} {w.summary}" for p, w in said})
    struck = tuple(u.sentence for u in checked.unsupported)
    summaries = " ".join(fold(w.summary) for _, w in said)
    kept = [
        " ".join(sentence.split())
        for sentence in SENTENCE.findall(checked.text)
        if sentence.strip()
        and (bare := " ".join(CITATION.sub("", sentence).split())) not in struck
        and fold(bare.rstrip(" .!?")) not in summaries  # a part's summary copied is not a gist
    ]
    return Written(GIST, 0.0, " ".join(kept[:GIST_SENTENCES]), struck)


def summary_language(lecture: Lecture, question: str | None = None) -> str:
    """The language a summary is written in: the question's (by name), else the lecture's."""
    if question:
        return question
    return language_name(lecture.language) if lecture.language else "English"


def overview_events(
    library: Library,
    lecture: Lecture,
    model: Callable[[], Generator | None],
    language: str,
    stop: threading.Event | None = None,
    name: str | None = None,
) -> Iterator[PartsReady | PartWritten | GistWritten]:
    """The lecture's parts at once, then each part's summary as it is written (or read back),
    then the gist; the answer model is asked for (`model`: it may still be loading) once the
    parts are out, and without one there are the parts alone. Setting `stop` ends it between
    parts, keeping what was written. `name`: the model's name when it is known before it loads
    (a summary it wrote whole is read back without loading it)."""
    stop = stop or threading.Event()
    parts = tuple(library.parts(lecture))
    yield PartsReady(lecture, parts, language)
    if not parts:
        return
    kept = library.overviews.written(_key(lecture, name, language)) if name else {}
    generator: Generator | None = None
    if not _complete(kept, parts):
        generator = model()
        if generator is None:
            return
        name = generator.name
        kept = library.overviews.written(_key(lecture, name, language))
    assert name is not None
    key = _key(lecture, name, language)
    done: list[tuple[Part, Written]] = []
    for part in parts:
        written = kept.get(part.number)
        if written is None or abs(written.start - part.start) > 0.5:
            assert generator is not None
            written = write_part(generator, lecture, part, language, stop)
            if stop.is_set():
                return  # cut short: not kept
            library.overviews.keep(key, written)
            kept.pop(GIST, None)  # a part written anew: the gist too
        done.append((part, written))
        yield PartWritten(part, written)
        if stop.is_set():
            return
    gist = kept.get(GIST)
    if gist is None:
        assert generator is not None
        gist = write_gist(generator, lecture, done, language, stop)
        if stop.is_set():
            return
        library.overviews.keep(key, gist)
    yield GistWritten(lecture, gist)


def _key(lecture: Lecture, model: str | None, language: str) -> OverviewKey:
    return OverviewKey(lecture.id, lecture.content_hash, model or "", language)


def _complete(kept: dict[int, Written], parts: Sequence[Part]) -> bool:
    """Whether every part and the gist were written for the parts as they are now."""
    return GIST in kept and all(
        p.number in kept and abs(kept[p.number].start - p.start) <= 0.5 for p in parts
    )


_HEADING = {
    "Portuguese": "Resumo de “{title}”, em {n} partes",
    "Spanish": "Resumen de “{title}”, en {n} partes",
}
_HEADING_EN = "Summary of “{title}”, in {n} parts"


def overview_text(
    lecture: Lecture,
    parts: Sequence[Part],
    written: Sequence[Written],
    gist: Written | None,
    language: str,
) -> str:
    """The summary as one text (Markdown): a heading, each part with its time, title, summary
    and the lecturer's words, then the gist."""
    by_number = {w.ordinal: w for w in written}
    head = _HEADING.get(language, _HEADING_EN).format(title=lecture.title, n=len(parts))
    lines = [f"**{head}**", ""]
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
            )
            for p in parts
        ),
        gist=gist.summary if gist else "",
        gist_struck=gist.struck if gist else (),
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

    def feed(self, event: PartsReady | PartWritten | GistWritten) -> None:
        if isinstance(event, PartsReady):
            self.lecture, self.parts, self.language = event.lecture, event.parts, event.language
        elif isinstance(event, PartWritten):
            self.written.append(event.written)
        else:
            self.gist = event.gist

    def record(self, model: str | None = None) -> OverviewRecord:
        assert self.lecture is not None
        return overview_record(self.lecture, self.parts, self.written, self.gist, self.language,
                               model if self.written else None)  # fmt: skip

    def text(self) -> str:
        assert self.lecture is not None
        return overview_text(self.lecture, self.parts, self.written, self.gist, self.language)


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
        gist = _kept_gist(library, lecture, model, language)
        if gist:
            line = SENTENCE.findall(CITATION.sub("", gist))[0].strip()
        else:
            titles = "; ".join(p.title for p in library.parts(lecture) if p.title) or "…"
            line = _NOT_YET.get(language, _NOT_YET_EN).format(parts=titles)
        lines.append(f"[{n}] {lecture.title}: {' '.join(line.split())}")
    return "\n".join(lines)


def _kept_gist(library: Library, lecture: Lecture, model: str | None, language: str) -> str:
    if model is None:
        return ""
    kept = library.overviews.written(_key(lecture, model, language)).get(GIST)
    return kept.summary if kept is not None else ""
