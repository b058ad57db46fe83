"""Flashcards from bookmarks and answers, for the Anki package and the CSV file.

A bookmark's card asks its note (or, without one, names its lecture and time) and answers with
the key sentences of its quote; an answer's card asks the question and answers with the answer.
Each card carries the moments it comes from (lecture, times, link). A card is known by its
content (`key`), so the same card made twice is exported once, and Anki recognises it again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lecturetui.core.sentences import Window, stitch
from lecturetui.core.study.bookmarks import Bookmark
from lecturetui.core.study.export.text import clean, one_line
from lecturetui.core.study.moments import Moment
from lecturetui.core.study.quoting import sentences
from lecturetui.core.study.saved import SavedAnswer

#: the most sentences, and about the most words, a bookmark card's back takes from its quote
KEY_SENTENCES = 3
KEY_WORDS = 80
_WORD = re.compile(r"\w{4,}")


@dataclass(frozen=True, slots=True)
class Source:
    """A moment a card comes from; `label` is its citation mark in an answer ("[2]"), or ""."""

    label: str
    moment: Moment


@dataclass(frozen=True, slots=True)
class Card:
    front: str
    back: str
    sources: tuple[Source, ...]

    @property
    def key(self) -> tuple[str, ...]:
        """What the card is: its text and the moments (not their links, which may change)."""
        return (
            self.front,
            self.back,
            *(
                f"{s.label}|{s.moment.lecture_id}|{s.moment.start:.1f}|{s.moment.end:.1f}"
                for s in self.sources
            ),
        )

    @property
    def first(self) -> Moment | None:
        return self.sources[0].moment if self.sources else None


def key_sentences(quote: str, note: str = "") -> str:
    """Up to KEY_SENTENCES whole sentences of `quote` (about KEY_WORDS words; core/study/quoting.py:
    a bookmark's words may begin or end mid-sentence, and those pieces are left out), in their
    order: those sharing words with the note (the most first), else the first ones; "…" marks a
    gap. Captions without punctuation have no whole sentence: their pieces are taken then."""
    found = sentences(stitch([Window(0, 0.0, 1.0, clean(quote))]), "", begins=_opens(quote))
    if not found:
        return ""
    whole = [i for i, s in enumerate(found) if s.whole] or list(range(len(found)))
    texts = [found[i].text for i in range(len(found))]
    wanted = {w.casefold() for w in _WORD.findall(note)}
    overlap = {i: len(wanted & {w.casefold() for w in _WORD.findall(texts[i])}) for i in whole}
    matching = [i for i in whole if overlap[i]]
    order = sorted(matching, key=lambda i: (-overlap[i], i)) or whole
    chosen: list[int] = []
    words = 0
    for i in order:
        # a sentence that leans on the one before ("Isso...", "That's why...") brings it along
        run = [i - 1, i] if found[i].leans and i - 1 in whole and i - 1 not in chosen else [i]
        n = sum(found[j].size for j in run)
        if chosen and (len(chosen) + len(run) > KEY_SENTENCES or words + n > KEY_WORDS):
            break
        chosen += [j for j in run if j not in chosen]
        words += n
    chosen.sort()
    out = "" if chosen[0] == 0 else "… "
    for a, b in zip(chosen, [*chosen[1:], None], strict=True):
        out += texts[a]
        if b is not None:
            out += " … " if b != a + 1 else " "
    return out + (" …" if chosen[-1] != len(found) - 1 else "")


def _opens(quote: str) -> bool:
    """Whether a bookmark's words seem to begin a sentence: with a capital or a sign."""
    first = quote.lstrip()[:1]
    return bool(first) and (first.isupper() or not first.isalpha())


def bookmark_cards(bookmarks: Iterable[Bookmark]) -> list[Card]:
    cards = []
    for b in bookmarks:
        m = b.moment
        front = clean(b.note).strip() or f"{one_line(m.lecture_title)}, {m.span}"
        back = key_sentences(b.quote, b.note) or one_line(b.quote)
        cards.append(Card(front, back, (Source("", m),)))
    return unique(cards)


def answer_cards(answer: SavedAnswer) -> list[Card]:
    """One card: the question, and the answer with its [n] marks and cited moments."""
    text = clean(answer.text).strip()
    if not answer.question.strip() or not text:
        return []
    sources = tuple(Source(f"[{c.number}]", c.moment) for c in answer.citations)
    return [Card(clean(answer.question).strip(), text, sources)]


def unique(cards: Sequence[Card]) -> list[Card]:
    """The cards in order, each content once."""
    seen: set[tuple[str, ...]] = set()
    out = []
    for card in cards:
        if card.key not in seen:
            seen.add(card.key)
            out.append(card)
    return out
