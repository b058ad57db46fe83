"""What a library's lectures are about, in their own words: the term each lecture says most often
that few of the library's segments share (a first screen suggests questions from them).

No word list and no language is assumed: a word that most segments hold (an article, "that",
"então") is left out by how many segments hold it; what remains is what a lecture dwells on.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from lecturetui.core.lectures import Lecture
from lecturetui.core.storage.store import Store

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
    lecture of each first), each the term that lecture says most that few segments share."""
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
            found = [w for w in _WORD.findall(seg.text) if len(w) >= MIN_LETTERS]
            for w in found:
                surface.setdefault(w.casefold(), Counter())[w] += 1
            lowered = [w.casefold() for w in found]
            tally.update(lowered)
            holding.update(set(lowered))
        counts[lecture.id] = tally
    limit = max(1.0, MAX_SHARE * read)
    out: list[Topic] = []
    taken: set[str] = set()
    for lecture in lectures:
        scored = [
            (c * math.log(read / holding[w]), w)
            for w, c in counts[lecture.id].items()
            if c >= 2 and holding[w] <= limit and w not in taken
        ]
        if not scored:
            continue
        _, word = max(scored)
        taken.add(word)
        out.append(Topic(surface[word].most_common(1)[0][0], lecture.id, lecture.title,
                         lecture.course))  # fmt: skip
        if len(out) == n:
            break
    return out


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
