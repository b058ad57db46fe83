"""The lecturer's own words for a part of a summary: whole thoughts, trimmed of what speech adds.

A summary shows as fact only what the lecture bears out, and the lecturer's own sentence bears
itself out, if it is whole and readable. Captions are neither: automatic ones have no
punctuation, and every transcript carries hesitations ("eh", "um"), tag questions ("né",
"you know"), words said twice ("o o cálculo") and noise ("[Music]"). So a part's sentence is
cut where a thought ends (a full stop, else a tag question or a comma in a long run) and
cleaned of those, never reworded: every word shown is one the lecturer said, in order.

Nothing here assumes a language: the lists below hold the speech words of the languages the
library has met (Portuguese, English, Spanish) and an unknown language keeps its words as said.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: a thought shown for a part has this many words at least, and at most
MIN_WORDS = 6
MAX_WORDS = 40
#: sounds that are no words, by language ("um" is a word in Portuguese)
HESITATIONS = {
    "pt": frozenset(["eh", "ehh", "ah", "ahn", "ahm", "hã", "hum", "humm", "hmm", "hm", "h"]),
    "en": frozenset(["uh", "uhh", "um", "umm", "uhm", "er", "erm", "hmm", "hm", "mm", "mmm", "ah"]),
    "es": frozenset(["eh", "ehh", "ah", "mmm", "hmm"]),
}
#: words a speaker closes a thought with (a tag question), by language: only those that are
#: never anything else ("tá" is also "está", "right" also an adjective)
TAGS = {
    "pt": ("né", "entendeu"),
    "en": ("you know",),
    "es": ("¿no?", "o sea"),
}
#: words that open a thought without being part of it, by language
OPENERS = {
    "pt": ("então", "e", "mas", "aí", "daí", "bom", "tipo", "assim", "tipo assim", "enfim",
           "bem", "agora", "olha", "ok", "beleza", "gente", "pessoal", "né", "é"),
    "en": ("so", "and", "but", "now", "okay", "ok", "well", "alright", "all right", "right",
           "and so", "so now", "like"),
    "es": ("entonces", "y", "pero", "bueno", "pues", "o sea", "vale", "ahora"),
}  # fmt: skip
_NOISE = re.compile(r"\[[^\]]{0,40}\]|\([^)]{0,30}\)|[♪♫]+|>>+|&gt;&gt;")
_WORD = re.compile(r"\S+")
_END = re.compile(r"(?<=[.!?…])\s+")


@dataclass(frozen=True, slots=True)
class Thought:
    """A whole thought of the lecturer's, cleaned; `said` is the text it was cut from, which
    begins at word `first` of the text and holds `words` words."""

    text: str
    said: str
    first: int = 0
    words: int = 0


def _key(word: str) -> str:
    return word.lower().strip(".,;:!?…\"“”'()")


def _language(language: str) -> str:
    return (language or "").lower().split("-")[0].split("_")[0]


def _phrases(words: Sequence[str], phrases: Iterable[str]) -> list[tuple[int, int]]:
    """Where `phrases` (one or more words) occur in `words`: (start, length) pairs."""
    keys = [_key(w) for w in words]
    found: list[tuple[int, int]] = []
    for phrase in phrases:
        parts = phrase.split()
        n = len(parts)
        found += [(i, n) for i in range(len(keys) - n + 1) if keys[i : i + n] == parts]
    return found


def _without_repeats(words: list[str]) -> list[str]:
    """A word or a pair of words said twice in a row once ("o o cálculo", "in the in the")."""
    out: list[str] = []
    for word in words:
        out.append(word)
        for n in (1, 2):
            if len(out) >= 2 * n and [_key(w) for w in out[-n:]] == [
                _key(w) for w in out[-2 * n : -n]
            ]:
                del out[-n:]
                break
    return out


def clean(text: str, language: str) -> str:
    """The text without noise, hesitations, words said twice, openers before the first word
    and tags after the last, its first letter capitalised; never a word added or moved."""
    code = _language(language)
    sounds = HESITATIONS.get(code, frozenset())
    words = [w for w in _WORD.findall(_NOISE.sub(" ", text)) if _key(w) not in sounds]
    words = [w for w in words if _key(w)]  # a lone punctuation mark
    words = _without_repeats(words)
    openers = sorted(OPENERS.get(code, ()), key=lambda p: -len(p.split()))
    tags = sorted(TAGS.get(code, ()), key=lambda p: -len(p.split()))
    changed = True
    while words and changed:
        changed = False
        for phrase in openers:
            n = len(phrase.split())
            if [_key(w) for w in words[:n]] == phrase.split() and len(words) > n:
                words, changed = words[n:], True
                break
        for phrase in tags:
            n = len(phrase.split())
            if [_key(w) for w in words[-n:]] == phrase.split() and len(words) > n:
                words, changed = words[:-n], True
                break
    if not words:
        return ""
    words[-1] = words[-1].rstrip(",;:")
    first = words[0]
    words[0] = first[:1].upper() + first[1:]
    return " ".join(words)


def _pieces(sentence: str, code: str) -> list[str]:
    """A sentence longer than MAX_WORDS cut where the speaker closes a thought (a tag), else at
    its commas, else left whole (it is then too long to show)."""
    words = _WORD.findall(sentence)
    if len(words) <= MAX_WORDS:
        return [sentence]
    cuts = sorted({i + n for i, n in _phrases(words, TAGS.get(code, ()))})
    if not cuts:
        cuts = [i + 1 for i, w in enumerate(words[:-1]) if w.endswith((",", ";", ":"))]
    pieces, last = [], 0
    for cut in [*cuts, len(words)]:
        if cut > last:
            pieces.append(" ".join(words[last:cut]))
            last = cut
    return pieces


def thoughts(text: str, language: str) -> list[Thought]:
    """The text's whole thoughts, cleaned, in order: those of MIN_WORDS to MAX_WORDS words.
    Where the text has no full stop at an end (a caption window cut mid-speech), the piece at
    that end is no whole thought; nor is one cut here that stops on a function word ("...que")."""
    from lecturetui.core.study.keyphrases import fold, stopwords

    code = _language(language)
    stop = stopwords(code) if code else frozenset()
    flat = " ".join(text.split())
    pieces = [p for s in _END.split(flat) for p in _pieces(s, code)]
    found: list[Thought] = []
    at = 0
    for i, piece in enumerate(pieces):
        first, at = at, at + len(piece.split())
        if (i == 0 and not flat[:1].isupper()) or (
            i == len(pieces) - 1 and not flat.endswith((".", "!", "?", "…"))
        ):
            continue  # begun or ended outside the text
        cleaned = clean(piece, code)
        closed = piece.rstrip("\"”’')]").endswith((".", "!", "?", "…"))
        last = fold(_key(cleaned.split()[-1])) if cleaned else ""
        if MIN_WORDS <= len(cleaned.split()) <= MAX_WORDS and (closed or last not in stop):
            found.append(Thought(_closed(cleaned), piece, first, at - first))
    return found


def whole_thoughts(
    texts: Sequence[str], times: Sequence[float], ranked: Sequence[int], language: str,
    n: int = 2, words: int = 60,
) -> list[tuple[float, str, int]]:  # fmt: skip
    """A part's `n` most representative whole thoughts, in order, at most `words` words in all:
    (time, thought, index of the sentence it begins in). `texts` are the part's sentences as
    cut for search, in order, with their `times`; `ranked` their positions, the most
    representative first. A thought is as representative as the best sentence it covers."""
    place = {i: r for r, i in enumerate(ranked)}
    owner: list[int] = []
    for i, text in enumerate(texts):
        owner += [i] * len(text.split())
    found = thoughts(" ".join(texts), language)
    if not owner or not found:
        return []

    def rank(t: Thought) -> int:
        covered = set(owner[t.first : t.first + t.words])
        return min(place.get(i, len(place)) for i in covered)

    chosen: list[Thought] = []
    for thought in sorted(found, key=rank):
        if len(chosen) == n:
            break
        if sum(len(c.text.split()) for c in chosen) + len(thought.text.split()) <= words:
            chosen.append(thought)
    chosen.sort(key=lambda t: t.first)
    return [(times[owner[t.first]], t.text, owner[t.first]) for t in chosen]


def _closed(text: str) -> str:
    """A thought shown as a sentence: its own closing mark, else a full stop."""
    return text if text.endswith((".", "!", "?", "…")) else f"{text}."
