"""What a sentence is, for every stage: ingest, search's pieces, quotes, key phrases, prompts.

A sentence ends where the captions end it with a mark (. ? ! …, a closing quote or bracket
after it), across caption lines. Captions without such marks (automatic ones) have their ends
found at ingest by a model (core/models/sentence_ends.py), kept with each window (`Segment.ends`):
the words stay exactly as the captions give them, no mark or capital is added, and `--json`
keeps the captions' text. Where neither is there (a window stored before the model), speech's
own words cut the text into pieces that are not sentences.

Search scores a window by its `pieces`: its sentences, none longer than MAX_WORDS. A quote
(core/study/quoting.py) is made of whole `Sentence`s of a stitched stretch of a lecture.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lecturetui.core.lectures import StoredSegment

#: a word that ends a sentence: its last letters followed by . ! ? or …, then any closing
#: quotes and brackets
END = re.compile(r"[.!?…]+[\"'”’»)\]]*$")
#: captions whose sentences are marked have one end in this many words at least (automatic
#: captions have none, or one in a few hundred words)
MARKED_EVERY = 60


def closes(word: str) -> bool:
    """Whether the word ends a sentence by its mark."""
    return END.search(word) is not None


def punctuated(words: Sequence[str]) -> bool:
    """Whether the captions mark their sentences' ends (one end in MARKED_EVERY words)."""
    ends = sum(1 for w in words if closes(w))
    return bool(words) and ends * MARKED_EVERY >= len(words)


def kept_ends(ends: Sequence[int] | None, words: int) -> tuple[int, ...] | None:
    """Stored sentence ends as positions of a window's `words` words: sorted, each once, only
    those inside the window (a pack from elsewhere may hold any numbers)."""
    if ends is None:
        return None
    return tuple(sorted({int(e) for e in ends if 0 <= int(e) < words}))


@dataclass(frozen=True, slots=True)
class Sentence:
    """Words [first, last) of a text, joined by single spaces. `whole`: its ends are a
    sentence's on both sides (marked by the captions, or found by the sentence model), not a
    piece of speech or one cut at the text's edge; `leans`: it opens with a word that points back
    ("Isso", "That's why"); `heard`: said in a turn the captions give to someone in the room
    ("AUDIENCE:", "ALUNO:"), not the lecturer."""

    first: int
    last: int
    text: str
    whole: bool = False
    leans: bool = False
    heard: bool = False

    @property
    def size(self) -> int:
        return self.last - self.first


#: a search piece cut by speech's words has MIN_WORDS words at least, any piece MAX_WORDS at most
MIN_WORDS = 10
MAX_WORDS = 28
#: bump when the cutting rules change (vectors are cached by piece text, so old ones stay valid)
SPLITTER_VERSION = 1
#: where unmarked speech closes a thought (after these words) and opens one (before these)
_AFTER = frozenset({"né", "tá", "ok", "okay", "certo", "entendeu", "beleza", "right"})
_BEFORE = frozenset(
    [
        "então",
        "mas",
        "porque",
        "agora",
        "bom",
        "daí",
        "aí",
        "so",
        "but",
        "because",
        "now",
        "well",
        "then",
    ]  # pt, en
)


def pieces(text: str, ends: Sequence[int] | None = None) -> list[Sentence]:
    """The text cut into the pieces search scores: after each word that ends a sentence (its
    mark, or one of `ends`, the sentence model's), at MAX_WORDS words at the latest; in text
    with neither, after a spoken filler (né, right…) or before a connective (então, so…) once a
    piece has MIN_WORDS words. The cuts depend only on the text since the previous cut, so two
    overlapping windows cut their shared words alike soon after the overlap begins (and share
    cached vectors). A scrap of fewer than 4 words at the end joins the piece before it."""
    words = text.split()
    found = frozenset(ends or ())
    speech = not found
    out: list[Sentence] = []
    start = 0
    for i, word in enumerate(words):
        n = i - start + 1
        low = word.lower().rstrip("?!.,;")
        nxt = words[i + 1].lower() if i + 1 < len(words) else ""
        cut = (
            ((closes(word) or i in found) and n >= 3)
            or (
                speech
                and n >= MIN_WORDS
                and (low in _AFTER or nxt in _BEFORE or word.endswith((",", ";")))
            )
            or n >= MAX_WORDS
        )
        if cut:
            out.append(Sentence(start, i + 1, " ".join(words[start : i + 1])))
            start = i + 1
    if start < len(words):
        tail = Sentence(start, len(words), " ".join(words[start:]))
        if out and len(words) - start < 4:
            prev = out.pop()
            tail = Sentence(prev.first, len(words), f"{prev.text} {tail.text}")
        out.append(tail)
    return out


@dataclass(frozen=True, slots=True)
class Window:
    """A stored window of a lecture: its segment id, times and text, and where the sentence
    model found sentence ends in it (word positions; None: not looked for)."""

    segment_id: int
    start: float
    end: float
    text: str
    ends: tuple[int, ...] | None = None

    @classmethod
    def of(cls, segment: StoredSegment) -> Window:
        """A stored segment as a window (its sentence ends with it)."""
        return cls(segment.id, segment.start, segment.end, segment.text, segment.ends)


@dataclass(frozen=True, slots=True)
class Transcript:
    """A lecture's (or a stretch of it) words once each, in order: each word's time (placed by
    its position in the window it was read from) and that window's segment id; `offsets[k]` is
    where window k's first word lies in `words`."""

    words: tuple[str, ...]
    times: tuple[float, ...]
    owners: tuple[int, ...]
    offsets: tuple[int, ...]
    #: the words a sentence ends with where the sentence model found them (positions in
    #: `words`), None unless every window was looked at
    ends: frozenset[int] | None = None

    def time(self, word: int) -> float:
        return self.times[min(max(word, 0), len(self.times) - 1)] if self.times else 0.0


#: a run of words that a window repeats from the end of the text before it, where only the text
#: tells (`stitch`'s `text_only`), has this many words at least
SHARED_WORDS = 3


def _overlap(done: Sequence[str], words: Sequence[str], near: int | None) -> int:
    """How many words begin `words` that end `done`: of the runs that do, the one nearest to
    `near` (what the times say), a repeated phrase ("no, no, no") must not swallow a word;
    without `near`, the longest run of SHARED_WORDS words at least (0 where there is none)."""
    limit = min(len(done), len(words))
    runs = [
        k
        for k in range(limit, 0, -1)
        if done[len(done) - k] == words[0] and list(done[len(done) - k :]) == list(words[:k])
    ]
    if near is None:
        return next((k for k in runs if k >= SHARED_WORDS), 0)
    return min(runs, key=lambda k: (abs(k - near), -k), default=0)


def stitch(windows: Sequence[Window], text_only: bool = False) -> Transcript:
    """The windows (in time order) laid end to end, the words two neighbours share kept once.
    The shared words are found by the text (the next window begins at a caption line of the one
    before), the times telling which run where a phrase repeats; where none are shared (a window
    cut elsewhere), by time alone: what the next window says before the previous one ends is
    taken as already said. `text_only`: by the text alone, the times not asked (the longest run
    of SHARED_WORDS words at least; a window that shares none is kept whole), as a reader is
    shown the windows (`joined_text`)."""
    words: list[str] = []
    times: list[float] = []
    owners: list[int] = []
    offsets: list[int] = []
    ends: set[int] | None = set() if windows and all(w.ends is not None for w in windows) else None
    for k, win in enumerate(windows):
        own = win.text.split()
        n = max(len(own), 1)
        at = [win.start + (win.end - win.start) * i / n for i in range(len(own))]
        skip = 0
        if k and words and own and text_only:
            skip = _overlap(words[-len(own) :], own, None)
        elif k and words and own:
            near = sum(1 for t in at if t < windows[k - 1].end - 1e-6)
            if near:  # windows that only touch share nothing
                skip = _overlap(words[-len(own) :], own, near) or min(near, len(own))
        offsets.append(len(words) - skip)
        if ends is not None:
            ends.update(offsets[-1] + j for j in win.ends or () if skip <= j < len(own))
        words += own[skip:]
        times += at[skip:]
        owners += [win.segment_id] * (len(own) - skip)
    found = None if ends is None else frozenset(ends)
    return Transcript(tuple(words), tuple(times), tuple(owners), tuple(offsets), found)


def joined_text(windows: Sequence[Window]) -> str:
    """What the windows (in time order) say, as one text for a reader (the prompt's passages, a
    bookmark's words): `stitch`ed by the text alone, its words joined by single spaces; one
    window's text as it is."""
    if len(windows) == 1:
        return windows[0].text
    return " ".join(stitch(windows, text_only=True).words)
