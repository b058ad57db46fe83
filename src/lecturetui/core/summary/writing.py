"""A whole lecture's summary, from the lecturer's own words, part by part.

Its parts come first, each with its time and the lecturer's most representative sentences
(core/study/parts.py: the author's chapters, else parts cut where the subject changes), shown
before any model runs. Then the answer model reads each part's most representative sentences
(about DIGEST_WORDS words) and says in one or two sentences what the part explains; a sentence
whose facts (numbers, names, code terms: core/answer/check.py) the part does not hold is struck.
Then the gist: the parts in three runs (the lecture's beginning, middle and end), one sentence on
each from its parts' summaries, citing them as [n] and checked against them the same way.

What the model wrote is kept in the library part by part as it is written (an interrupted
summary keeps its parts: core/storage/summaries.py), for the lecture as it is, the model and the
language, so the summary is written once and read back after.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from lecturetui.core.answer.check import facts, holds
from lecturetui.core.citing import CITATION
from lecturetui.core.language import language_name
from lecturetui.core.lectures import Lecture
from lecturetui.core.lexical import fold
from lecturetui.core.library import Library
from lecturetui.core.llm.model import Generator
from lecturetui.core.storage.phrases import PhraseTable
from lecturetui.core.storage.summaries import GIST, SummaryKey, Written
from lecturetui.core.study.parts import Part
from lecturetui.core.summary.events import GistWritten, PartsReady, PartWritten
from lecturetui.core.timefmt import format_timestamp

_P = TypeVar("_P")

#: the model's summary of one part, and one sentence of the lecture's gist, in tokens at most
PART_TOKENS = 90
GIST_TOKENS = 70
#: ... and in sentences, at most: the reply stops being written once it has them
PART_SENTENCES = 2
GIST_SENTENCES = 3

PART_SYSTEM = (
    "You summarise one part of a recorded lecture for a student, using only what the lecturer "
    "says in it. Do not add facts the lecturer does not state, and keep the lecturer's "
    "negations. In one or two short sentences (30 words in all at most), in {language}, say "
    "what this part of the lecture explains."
)
GIST_SYSTEM = (
    "You say what a stretch of a recorded lecture is about, using only the summaries of its "
    "parts. Name its common subject in one short sentence (under 20 words), in "
    "{language}{opening}. Do not list the parts."
)
#: the request closing a part's prompt, in the language the summary is written in: the small
#: model, reading the lecturer's words in another language, otherwise often answers in theirs
PART_ASK = {
    "Portuguese": "Resumo em português, em uma ou duas frases curtas, só com o que o professor diz aqui:",
    "Spanish": "Resumen en español, en una o dos frases cortas, solo con lo que dice el profesor aquí:",
}
PART_ASK_ANY = (
    "Summary in {language}, in one or two short sentences, only what the lecturer says here:"
)
#: how a gist sentence begins, by language: the small model then names the subject instead of
#: listing the parts (and writes in the language asked)
GIST_OPENING = {"English": "It", "Portuguese": "A aula", "Spanish": "La clase"}


def part_messages(lecture: Lecture, part: Part, language: str) -> list[dict[str, str]]:
    """The prompt for one part: its title and time, and its most representative sentences.
    The instructions come first and are the same for every part of a summary, so the model
    reads them once (llama.cpp keeps the prompt's common start)."""
    named = f": {part.title}" if part.title else ""
    user = (
        f"Lecture: {lecture.title}\n"
        f"Part {part.number} ({format_timestamp(part.start)}-{format_timestamp(part.end)}){named}\n\n"
        f"What the lecturer says:\n“{part.digest}”\n\n"
        + PART_ASK.get(language, PART_ASK_ANY.format(language=language))
    )
    system = PART_SYSTEM.format(language=language)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def gist_groups(parts: Sequence[_P]) -> list[list[_P]]:
    """The parts in up to GIST_SENTENCES runs of consecutive parts, as even as they go: the
    gist says one sentence on each (its beginning, middle and end)."""
    n = min(GIST_SENTENCES, len(parts))
    if n == 0:
        return []
    bounds = [round(i * len(parts) / n) for i in range(n + 1)]
    return [list(parts[a:b]) for a, b in itertools.pairwise(bounds) if b > a]


def gist_messages(
    lecture: Lecture, group: Sequence[tuple[Part, Written]], language: str
) -> list[dict[str, str]]:
    """The prompt for one sentence of the gist: the summaries of a run of parts."""
    lines = "\n".join(
        f"- ({format_timestamp(p.start)}{', ' + p.title if p.title else ''}) {w.summary}"
        for p, w in group
    )
    user = f"Lecture: {lecture.title}\nThese parts:\n{lines}\n\n({language}, one short sentence)"
    opening = GIST_OPENING.get(language)
    system = GIST_SYSTEM.format(
        language=language, opening=f', that begins with "{opening}"' if opening else ""
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


#: a summary's sentences: a full stop inside a word (`line.startswith`, "e.g.") ends none
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[^\s.!?]))+(?:[.!?]+(?:\s*\[[\d,;\s]+\])*|$)")


def sentences(text: str) -> list[str]:
    """The text's sentences, a code term's dot kept inside its sentence."""
    return [x.strip() for x in _SENTENCE.findall(text) if x.strip()]


def borne_out(summary: str, text: str, lecture: str = "") -> tuple[str, tuple[str, ...]]:
    """The summary without its sentences whose facts `text` does not hold, and those sentences
    (struck). A name or a code term the `lecture` says elsewhere holds too ("Python" in a part
    that never says it); a number must be in `text`."""
    kept: list[str] = []
    struck: list[str] = []
    for sentence in sentences(summary):
        said = " ".join(sentence.split())
        if all(
            holds(fact, text) or (not fact[:1].isdigit() and holds(fact, lecture))
            for fact in facts(said)
        ):
            kept.append(said)
        else:
            struck.append(said)
    return " ".join(kept), tuple(struck)


_ENDED = re.compile(r"[.!?][\"”’')\]]*(?=\s)|\n")


def _written(generator: Generator, messages: list[dict[str, str]], tokens: int,
             stop: threading.Event, sentences: int) -> str:  # fmt: skip
    """The model's reply, no longer than `sentences` sentences: it stops being written at the
    end of the last one (the small model goes on, and every token costs time on a CPU)."""
    reply = ""
    for piece in generator.stream(messages, tokens, stop, temperature=0.0):
        reply += piece
        if len(_ENDED.findall(reply.strip())) >= sentences:
            break
    return " ".join(reply.strip().strip('“”"').split())


def write_part(
    generator: Generator,
    lecture: Lecture,
    part: Part,
    language: str,
    stop: threading.Event,
    said: str = "",
) -> Written:
    """The model's summary of one part, its unsupported sentences struck (`said`: what the
    whole lecture says, where a name the part does not say may be)."""
    messages = part_messages(lecture, part, language)
    reply = _written(generator, messages, PART_TOKENS, stop, PART_SENTENCES)
    summary, struck = borne_out(_uncited(reply), f"{lecture.title} {part.text}", said)
    kept = sentences(summary)[:PART_SENTENCES]  # one or two, as asked
    if len(kept) > 1 and not _ended(kept[-1]):
        kept.pop()  # cut off by the token limit
    return Written(part.number, part.start, " ".join(kept), struck)


def write_gist(
    generator: Generator,
    lecture: Lecture,
    written: Sequence[tuple[Part, Written]],
    language: str,
    stop: threading.Event,
) -> Written:
    """The lecture's gist: one sentence on each run of its parts (gist_groups), citing them,
    each checked against the parts it cites; a sentence that copies a part's summary, or that
    the parts do not bear out, is left out."""
    said = [(p, w) for p, w in written if w.summary]
    kept: list[str] = []
    struck: list[str] = []
    summaries = " ".join(fold(w.summary) for _, w in said)
    for group in gist_groups(said):
        reply = _written(generator, gist_messages(lecture, group, language), GIST_TOKENS, stop, 1)
        if stop.is_set():
            break
        sentence = first_sentence(reply)
        if not _ended(sentence):
            continue  # none, or cut off by the token limit
        text = " ".join(f"{lecture.title} {p.text} {w.summary}" for p, w in group)
        if not all(holds(fact, text) for fact in facts(sentence)):
            struck.append(sentence)
        elif fold(sentence.rstrip(" .!?")) not in summaries:  # a copy of a part's is no gist
            cites = "".join(f"[{p.number}]" for p, _ in group)
            body, end = (sentence[:-1], sentence[-1]) if sentence[-1] in ".!?" else (sentence, ".")
            kept.append(f"{body} {cites}{end}")
    return Written(GIST, 0.0, " ".join(kept), tuple(struck))


def _ended(sentence: str) -> bool:
    return sentence.rstrip(" \"”’')").endswith((".", "!", "?"))


def _uncited(text: str) -> str:
    """The text without its citations ([1], [2, 3]) and the spaces they leave."""
    return re.sub(r"\s+([.!?,;:])", r"\1", " ".join(CITATION.sub("", text).split()))


def first_sentence(reply: str) -> str:
    """The reply's first sentence, without citations the model made up."""
    found = sentences(_uncited(reply))
    return found[0] if found else ""


def summary_language(lecture: Lecture, question: str | None = None) -> str:
    """The language a summary is written in: the question's (by name; the app's, for the
    summaries it writes while idle), else the lecture's."""
    if question:
        return question
    return language_name(lecture.language) if lecture.language else "English"


def summary_events(
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
    found = PhraseTable(library.store).read(lecture)
    yield PartsReady(lecture, parts, language, found.lecture if found else ())
    if not parts:
        return
    kept = library.summaries.written(summary_key(lecture, name, language)) if name else {}
    generator: Generator | None = None
    if not is_written(kept, parts):
        generator = model()
        if generator is None:
            return
        name = generator.name
        kept = library.summaries.written(summary_key(lecture, name, language))
    assert name is not None
    key = summary_key(lecture, name, language)
    said = " ".join(p.text for p in parts)
    done: list[tuple[Part, Written]] = []
    for part in parts:
        written = kept.get(part.number)
        if written is None or abs(written.start - part.start) > 0.5:
            assert generator is not None
            written = write_part(generator, lecture, part, language, stop, said)
            if stop.is_set():
                return  # cut short: not kept
            library.summaries.keep(key, written)
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
        library.summaries.keep(key, gist)
    yield GistWritten(lecture, gist)


def summary_key(lecture: Lecture, model: str | None, language: str) -> SummaryKey:
    """Which summary is kept: this lecture as it is now, by this model, in this language."""
    return SummaryKey(lecture.id, lecture.content_hash, model or "", language)


def is_written(kept: dict[int, Written], parts: Sequence[Part]) -> bool:
    """Whether every part and the gist were written (`kept`: library.summaries.written(key))
    for the parts as they are now."""
    return GIST in kept and all(
        p.number in kept and abs(kept[p.number].start - p.start) <= 0.5 for p in parts
    )
