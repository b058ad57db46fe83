"""What a library's lectures are about, in their own words (a first screen suggests questions
from them): each lecture's first key phrase (found at ingest: core/study/keyphrases.py) that no
lecture before it gave and whose words few of the library's segments share; for a lecture without
key phrases, the term it says most often that few segments share.

No word list and no language is assumed: a word that most segments hold (an article, "that",
"então", a course's "Python") is left out by how many segments hold it; what remains is what a
lecture dwells on.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from lecturetui.core.lectures import Lecture
from lecturetui.core.storage.phrases import PhraseTable
from lecturetui.core.storage.store import Store
from lecturetui.core.storage.summaries import Summaries
from lecturetui.core.study.keyphrases import common_words, fold

#: a topic is a word of at least this many letters (short words are rarely a subject)
MIN_LETTERS = 5
#: ... held by at most this share of the library's segments (more: a common word)
MAX_SHARE = 0.25
#: segments read per lecture (evenly spread): enough to find what it dwells on, fast for a
#: library of hundreds of lectures
SEGMENTS_READ = 40
_WORD = re.compile(r"[^\W\d_]+(?:[-'][^\W\d_]+)*")


@dataclass(frozen=True, slots=True)
class Topic:
    """A term a lecture dwells on, as the lecture writes it most often."""

    term: str
    lecture_id: str
    lecture_title: str
    course: str | None


def topics(store: Store, n: int = 3) -> list[Topic]:
    """Up to `n` topics from `n` different lectures, taking courses in turn (the most recent
    lecture of each first): the first subject its summary named (core/summary/writing.py),
    else its first key phrase that few segments share, else the term it says most that few
    segments share."""
    lectures = _spread(store.lectures(), n * 3)
    if not lectures:
        return []
    counts: dict[str, Counter[str]] = {}
    surface: dict[str, Counter[str]] = {}
    holding: Counter[str] = Counter()  # segments holding each word (folded to lower case)
    read = 0
    for lecture in lectures:
        segments = store.segments(lecture.id)
        step = max(1, len(segments) // SEGMENTS_READ)
        tally: Counter[str] = Counter()
        for seg in segments[::step][:SEGMENTS_READ]:
            read += 1
            words = _WORD.findall(seg.text)
            found = [w for w in words if len(w) >= MIN_LETTERS]
            for w in found:
                surface.setdefault(w.casefold(), Counter())[w] += 1
            tally.update(w.casefold() for w in found)
            holding.update({w.casefold() for w in words})
        counts[lecture.id] = tally
    limit = max(1.0, MAX_SHARE * read)
    phrases = PhraseTable(store)
    out: list[Topic] = []
    taken: set[str] = set()
    summaries = Summaries(store)
    for lecture in lectures:
        kept = phrases.read(lecture)
        common = frozenset(common_words(lecture.language or ""))
        term = _subject(summaries.subjects(lecture.id, lecture.content_hash), taken, common)
        if term is None:
            term = _phrase(kept.lecture if kept else (), holding, limit, taken, common)
        if term is None:
            term = _term(counts[lecture.id], holding, read, limit, taken, surface, common)
        if term is None:
            continue
        taken.update(w.casefold() for w in _WORD.findall(term))
        out.append(Topic(term, lecture.id, lecture.title, lecture.course))
        if len(out) == n:
            break
    return out


def _everyday(phrase: str, common: frozenset[str]) -> bool:
    """Whether a phrase is one everyday word of its language ("pergunta", "example"): no
    subject a student would ask about."""
    words = _WORD.findall(phrase)
    return len(words) == 1 and fold(words[0]) in common


def _subject(subjects: list[str], taken: set[str], common: frozenset[str]) -> str | None:
    """The first subject a summary named (its parts' labels) no word of which was taken and
    that is no everyday word."""
    for subject in subjects:
        words = {w.casefold() for w in _WORD.findall(subject) if len(w) >= MIN_LETTERS}
        if words and not words & taken and not _everyday(subject, common):
            return subject
    return None


def _phrase(
    found: tuple[str, ...],
    holding: Counter[str],
    limit: float,
    taken: set[str],
    common: frozenset[str],
) -> str | None:
    """The first key phrase no word of which was taken or is held by over `limit` segments,
    and that is no everyday word."""
    for phrase in found:
        words = [w.casefold() for w in _WORD.findall(phrase)]
        taken_or_shared = any(w in taken or holding[w] > limit for w in words)
        if words and not taken_or_shared and not _everyday(phrase, common):
            return phrase
    return None


def _term(
    tally: Counter[str],
    holding: Counter[str],
    read: int,
    limit: float,
    taken: set[str],
    surface: dict[str, Counter[str]],
    common: frozenset[str] = frozenset(),
) -> str | None:
    """The word the lecture says most that few segments hold (tf-idf), as it writes it most;
    never one of the language's everyday words (`common`: "pergunta", "exemplo" name no
    subject)."""
    scored = [
        (c * math.log(read / holding[w]), w)
        for w, c in tally.items()
        if c >= 2 and holding[w] <= limit and w not in taken and fold(w) not in common
    ]
    if not scored:
        return None
    return surface[max(scored)[1]].most_common(1)[0][0]


def _spread(lectures: list[Lecture], n: int) -> list[Lecture]:
    """`n` lectures taking the courses in turn, the most recently added of each first."""
    by_course: dict[str, list[Lecture]] = {}
    for lecture in reversed(lectures):
        by_course.setdefault(lecture.course or "", []).append(lecture)
    out: list[Lecture] = []
    queues = list(by_course.values())
    while len(out) < n and any(queues):
        for queue in queues:
            if queue and len(out) < n:
                out.append(queue.pop(0))
    return out
