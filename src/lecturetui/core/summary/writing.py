"""A whole lecture's summary: the lecturer's own words carry its claims, the model names.

Its parts come first, each with its time and the lecturer's most representative whole sentences
(core/study/parts.py, core/study/quoting.py: the author's chapters, else parts cut where the subject
changes), shown before any model runs. Then the answer model reads each part's most
representative sentences (about DIGEST_WORDS words) and names what the part is about in a short
label (core/summary/label.py), never a claim: read by hand, a third of the 1.5B model's one-line
summaries were wrong, as fluent as the right ones, and no check measured on labelled sentences
let through under one wrong in twenty (bench/RESULTS.md, "Summaries: the lecturer claims, the
model names"). A label in the lecture's language is kept where it names its part in the
lecturer's words and sense (core/summary/label.py's `label_fault`), one in another language
where E5 finds it closest to that part, and where it differs from the labels before it; else
the author's chapter title names it, and a part lecturetui cut is left unnamed. The gist is the lecture's subjects in order, each citing its parts: nothing the parts do
not bear out.

What the model wrote is kept in the library part by part as it is written (an interrupted
summary keeps its parts: core/storage/summaries.py), for the lecture as it is, the model, the
language and the way summaries are written (VERSION), so it is written once and read back after.
"""

from __future__ import annotations

import functools
import itertools
import threading
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from lecturetui.core.citing import CITATION
from lecturetui.core.language import code_of, language_name
from lecturetui.core.lectures import Lecture
from lecturetui.core.library import Library
from lecturetui.core.llm.model import Generator
from lecturetui.core.storage.phrases import PhraseTable
from lecturetui.core.storage.summaries import GIST, VERSION, SummaryKey, Written
from lecturetui.core.study.keyphrases import stopwords
from lecturetui.core.study.lecture_keyphrases import part_vectors
from lecturetui.core.study.parts import Part
from lecturetui.core.summary.events import GistWritten, PartsReady, PartWritten
from lecturetui.core.summary.label import (
    LABEL_WORDS,
    NEGATIONS,
    Said,
    ask_label,
    closest_rank,
    content_words,
    label_fault,
    label_messages,
    names_part,
    without_title,
)

#: the gist's opening, by the summary's language
SUBJECTS = {"Portuguese": "Assuntos", "Spanish": "Temas"}
SUBJECTS_ANY = "Subjects"

#: whether a label names its part (label, part) -> bool
Check = Callable[[str, Part], bool]


def label_check(library: Library, lecture: Lecture, parts: Sequence[Part], language: str) -> Check:
    """The check of a part's label. A label in the lecture's language names its part where
    core/summary/label.py's `label_fault` finds no fault (half its words said in the part, in
    that sense; not the title; no scrap of speech). One in another language cannot be said there:
    its part must be among the third of the lecture's parts closest to it by E5 (the E5 vectors
    of what each part says are those the unit index holds)."""
    code = code_of(language)
    stop = stopwords(code) if code else frozenset()
    same = bool(code) and code == (lecture.language or "").split("-")[0]
    # read once, and only when a label is not in the lecture's language
    vectors = functools.cache(lambda: part_vectors(library.sources(), lecture, parts))

    def check(label: str, part: Part) -> bool:
        if same:
            said = Said(part.text, lecture.title, stop, NEGATIONS.get(code, frozenset()))
            return label_fault(label, said) is None
        found = vectors()
        if found.shape[1] != library.embedder.dim:
            return False  # no vectors to compare with: what cannot be vouched for is left out
        query = library.embedder.embed_queries([label])[0]
        query = query / (float(np.linalg.norm(query)) or 1.0)
        return names_part(closest_rank(query, found, part.number - 1), len(parts))

    return check


def write_part(
    generator: Generator,
    lecture: Lecture,
    part: Part,
    language: str,
    stop: threading.Event,
    check: Check,
    before: Sequence[str] = (),
) -> Written:
    """A part's label: the model's, where it has LABEL_WORDS words that carry meaning at most,
    `check` finds it names the part and it repeats none of the labels `before` it; else
    `fallback_label`, the model's then kept as refused."""
    messages = label_messages(lecture.title, part.digest, language)
    label = without_title(ask_label(generator, messages, stop), lecture.title)
    code = code_of(language)
    stop_words = stopwords(code) if code else frozenset()
    words = content_words(label, stop_words)
    repeats = any(set(words) == set(content_words(b, stop_words)) for b in before)
    if label and len(words) <= LABEL_WORDS and not repeats and check(label, part):
        return Written(part.number, part.start, label, ())
    return Written(part.number, part.start, fallback_label(part, check), (label,) if label else ())


def fallback_label(part: Part, check: Check) -> str:
    """A part's name where the model's label was not kept: its author's chapter title; else
    none, the part left unnamed rather than misnamed (read by hand, the key phrases and the
    word runs of the parts lecturetui cuts misnamed their part two times in five: "treatment 3
    cured", "squared variables"; bench/RESULTS.md, "The lecturer's words, never misquoted")."""
    return part.title if part.title and not part.made else ""


def write_gist(written: Sequence[tuple[Part, Written]], language: str) -> Written:
    """The lecture's subjects in order, each citing its parts: consecutive parts with the same
    label are one subject."""
    runs = []
    for label, group in itertools.groupby(written, key=lambda pw: pw[1].label.casefold()):
        items = list(group)
        if not label:
            continue
        cites = "".join(f"[{p.number}]" for p, _ in items)
        runs.append(f"{items[0][1].label} {cites}")
    if not runs:
        return Written(GIST, 0.0, "", ())
    opening = SUBJECTS.get(language, SUBJECTS_ANY)
    return Written(GIST, 0.0, f"{opening}: " + " · ".join(runs) + ".", ())


def first_sentence(text: str) -> str:
    """The gist's first subject (the course's overview lines and the map show it), without its
    citations."""
    body = text.split(": ", 1)[-1]
    first = body.split(" · ", 1)[0]
    return " ".join(CITATION.sub("", first).split()).rstrip(" .")


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
    check = label_check(library, lecture, parts, language)
    done: list[tuple[Part, Written]] = []
    for part in parts:
        written = kept.get(part.number)
        if written is None or abs(written.start - part.start) > 0.5:
            assert generator is not None
            before = [w.label for _, w in done]
            written = write_part(generator, lecture, part, language, stop, check, before)
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
        gist = write_gist(done, language)
        library.summaries.keep(key, gist)
    yield GistWritten(lecture, gist)


def summary_key(lecture: Lecture, model: str | None, language: str) -> SummaryKey:
    """Which summary is kept: this lecture as it is now, by this model, in this language, the
    way summaries are written now (VERSION)."""
    return SummaryKey(lecture.id, lecture.content_hash, f"{model or ''} {VERSION}", language)


def is_written(kept: dict[int, Written], parts: Sequence[Part]) -> bool:
    """Whether every part and the gist were written (`kept`: library.summaries.written(key))
    for the parts as they are now."""
    return GIST in kept and all(
        p.number in kept and abs(kept[p.number].start - p.start) <= 0.5 for p in parts
    )
