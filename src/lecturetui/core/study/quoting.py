"""The lecturer's words, quoted: whole sentences exactly as the captions give them.

Every face that shows what the lecturer said (an answer's lead, a summary's parts, study notes
and cards, the app, `--json`) quotes through this module, so a quote is never a fragment cut
where a caption line or a window starts, and nothing inside it is changed but the sounds and
markers named below.

- A lecture's windows overlap (core/ingest/segmenting.py); `stitch` (core/sentences.py) lays
  them end to end once, each word once, with its time and the window it was read from, so a
  sentence that runs across two windows is whole.
- `sentences` cuts that text where its punctuation ends a sentence, across caption lines, with
  sentencex (Wikimedia's rule-based segmenter: ~300 languages, abbreviations and decimals
  handled, maintained, no model to load). Captions without punctuation (automatic ones) are cut
  where the sentence model found their sentences' ends at ingest (core/models/sentence_ends.py,
  kept with each window); in windows stored before it, by the words speech closes and opens
  thoughts with (core/sentences.py's `pieces`), marked as not whole.
- `spoken` removes only hesitations ("eh", "um") and the noise markers listed in NOISE_WORDS
  ("[Música]", "(risos)", "♪"); formulas, numbers, symbols and parentheses stay.
- `choose` grows a quote from the sentence that answers: the sentence a leaning one
  ("Isso...", "That's why...") needs before it, the next best sentence where it fits, then
  whole neighbours while they fit; two runs of whole sentences are joined by "…".
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Sequence

from lecturetui.core.sentences import (
    Sentence,
    Transcript,
    closes,
    pieces,
    punctuated,
)

#: sounds that are no words, by language (spoken hesitations; "um" is a word in Portuguese)
HESITATIONS = {
    "pt": frozenset(["eh", "ehh", "ah", "ahn", "ahm", "hã", "hum", "humm", "hmm", "hm"]),
    "en": frozenset(["uh", "uhh", "um", "umm", "uhm", "er", "erm", "hmm", "hm", "mm", "mmm"]),
    "es": frozenset(["eh", "ehh", "mmm", "hmm"]),
}
#: the tag questions a speaker closes a thought with, by language: only those that are never
#: anything else ("tá" is also "está", "right" also an adjective)
TAGS = {"pt": ("né", "entendeu"), "en": ("you know",), "es": ("¿no?", "o sea")}
#: what a caption marks that nobody said: a bracket or parenthesis holding one of these words,
#: and the music signs and speaker-change marks
NOISE_WORDS = (
    "música", "musica", "music", "risos", "riso", "laughter", "laughs", "laughing", "applause",
    "aplausos", "palmas", "inaudível", "inaudivel", "inaudible", "silêncio", "silence", "noise",
    "ruído", "tosse", "cough", "coughs", "risas", "aplauso", "crosstalk", "background noise",
)  # fmt: skip
_NOISE = re.compile(
    r"[\[(]\s*(?:" + "|".join(NOISE_WORDS) + r")\s*[\])]|[♪♫]+|>>+|&gt;&gt;", re.IGNORECASE
)
#: a sentence that opens with one of these leans on the one before it, which it brings along
LEANERS = {
    "pt": ("isso", "isto", "esse", "essa", "esses", "essas", "este", "esta", "estes", "estas",
           "aquilo", "por isso", "portanto", "logo", "ou seja", "daí", "dessa forma",
           "desse jeito", "nesse caso", "neste caso", "assim", "também"),
    "en": ("this", "that", "these", "those", "that's", "this is", "it", "it's", "they",
           "therefore", "thus", "hence", "which", "such", "so that's", "that is", "in that case",
           "also", "otherwise"),
    "es": ("esto", "eso", "esta", "este", "esa", "ese", "por eso", "por lo tanto", "así",
           "también"),
}  # fmt: skip
_EDGE = ".,;:!?…\"“”'’()[]"


def _base_code(language: str) -> str:
    return (language or "").lower().split("-")[0].split("_")[0]


def _leans(words: Sequence[str], code: str) -> bool:
    """Whether the words open with one that points back (in any language the library has met
    when the language is not known)."""
    keys = [w.strip(_EDGE).lower() for w in words[:3]]
    known = LEANERS.get(code) if code else None
    for phrase in known if known is not None else [p for ps in LEANERS.values() for p in ps]:
        parts = phrase.split()
        if keys[: len(parts)] == parts:
            return True
    return False


def sentences(transcript: Transcript, language: str, begins: bool = True) -> list[Sentence]:
    """The transcript's sentences in order, covering every word once. With punctuation, cut by
    sentencex; the last is whole only if it closes, the first only where the transcript
    `begins` the lecture (a stretch of it may begin mid-sentence) and with a capital. Without
    punctuation, the pieces that speech's words mark (never whole)."""
    words = transcript.words
    if not words:
        return []
    code = _base_code(language)
    if not punctuated(words):
        return _unpunctuated(transcript, code, begins)
    out: list[Sentence] = []
    first = 0
    heard = _heard(words)
    for last in _cuts(words, code):
        own = words[first:last]
        closed = closes(own[-1])
        opened = first > 0 or (begins and (own[0][:1].isupper() or not own[0][:1].isalpha()))
        whole = closed and opened
        out.append(Sentence(first, last, " ".join(own), whole, _leans(own, code), heard[first]))
        first = last
    return out


#: the speakers captions name who are not the lecturer ("AUDIENCE: Yes."), in capitals
ROOM = frozenset(
    [
        "AUDIENCE",
        "AUDIENCE MEMBER",
        "STUDENT",
        "STUDENTS",
        "ALUNO",
        "ALUNA",
        "ALUNOS",
        "PLATEIA",
        "PÚBLICO",
        "ESTUDANTE",
        "ESTUDANTES",
        "PARTICIPANTE",
        "ALUMNO",
        "ALUMNA",
    ]
)
_TAG_WORD = re.compile(r"^[A-ZÀ-Ý][A-ZÀ-Ý.'-]*:?$")


def _heard(words: Sequence[str]) -> list[bool]:
    """For each word, whether it is said in a turn the captions give to someone in the room:
    from a speaker's tag in capitals ("AUDIENCE:", "GILBERT STRANG:") to the next tag."""
    out: list[bool] = []
    room = False
    i = 0
    while i < len(words):
        j = i
        while j < len(words) and j - i < 3 and _TAG_WORD.match(words[j]):
            if words[j].endswith(":"):
                room = " ".join(words[i : j + 1])[:-1] in ROOM
                break
            j += 1
        out.append(room)
        i += 1
    return out


_VARIABLE_END = re.compile(r"^[a-z]\.$")


def _cuts(words: Sequence[str], code: str) -> list[int]:
    """Where sentencex's sentences end, as word positions (a sentence ends with a whole word:
    a mark inside a word, ".:!", cuts nothing), the last one `len(words)`; each cut again after
    a one-letter variable that ends a sentence ("... the derivative of h. That's why"), which
    its rules take for an initial ("J. Smith"): an initial is a capital."""
    from sentencex import get_sentence_boundaries  # lazy: the library loads this module

    text = " ".join(words)
    starts = list(itertools.accumulate((len(w) + 1 for w in words[:-1]), initial=0))
    cuts = {
        bisect.bisect_left(starts, int(b["end_index"]))
        for b in get_sentence_boundaries(code or "en", text)
    }
    cuts |= {
        i + 1
        for i in range(len(words) - 1)
        if _VARIABLE_END.match(words[i]) and words[i + 1][:1].isupper()
    }
    return sorted(c for c in cuts | {len(words)} if 0 < c <= len(words))


def _unpunctuated(transcript: Transcript, code: str, begins: bool) -> list[Sentence]:
    """The sentences of captions without punctuation: cut where the sentence model found their
    ends at ingest (core/models/sentence_ends.py), each whole but the first where the transcript does
    not begin the lecture, and the last unless an end was found there; in windows stored before
    the model (no ends looked for), the pieces speech's words mark (never whole)."""
    words = transcript.words
    if transcript.ends is None:
        return [
            Sentence(s.first, s.last, s.text, False, _leans(words[s.first : s.last], code))
            for s in pieces(" ".join(words))
        ]
    out: list[Sentence] = []
    first = 0
    for last in [*sorted(e + 1 for e in transcript.ends if e < len(words) - 1), len(words)]:
        own = words[first:last]
        whole = (first > 0 or begins) and (last - 1 in transcript.ends)
        out.append(Sentence(first, last, " ".join(own), whole, _leans(own, code)))
        first = last
    return out


def covering(found: Sequence[Sentence], first: int, last: int) -> list[int]:
    """The positions of the sentences that hold any of words [first, last)."""
    return [i for i, s in enumerate(found) if s.first < last and s.last > first]


def spoken(text: str, language: str) -> str:
    """The text as said: without the noise markers of NOISE_WORDS and the language's
    hesitations (with the comma that set one off); every other word, sign and parenthesis kept,
    in order."""
    sounds = HESITATIONS.get(_base_code(language), frozenset())
    kept = [w for w in _NOISE.sub(" ", text).split() if w.strip(_EDGE).lower() not in sounds]
    kept = [w for w in kept if w.strip(_EDGE) or w in ("=", "+", "-", "*", "/", "<", ">")]
    return " ".join(kept)


def leaned_on(found: Sequence[Sentence], i: int) -> int:
    """The first sentence of the run a quote of sentence `i` needs: `i` itself, or the sentence
    before it when it leans on it ("Isso...", "That's why..."), and so on back."""
    while i > 0 and found[i].leans:
        i -= 1
    return i


def choose(
    found: Sequence[Sentence],
    cores: Sequence[Sequence[int]],
    words: int,
    score: Callable[[int], float] = lambda _i: 0.0,
) -> list[int]:
    """The sentences a quote holds, in order: the first core (the sentences that hold the piece
    that answers) with what it leans on, always; each next core (the next best piece) with what
    it leans on where it fits in `words` words; then, one at a time, the neighbour of a chosen
    sentence that scores higher (the earlier on a tie), with what it leans on, while it fits."""

    def need(group: Sequence[int]) -> set[int]:
        return set(range(leaned_on(found, min(group)), max(group) + 1))

    def size(group: set[int]) -> int:
        return sum(found[i].size for i in group)

    picked = need(cores[0])
    for core in cores[1:]:
        more = need(core) - picked
        if size(picked) + size(more) <= words:
            picked |= more
    while True:
        sides = {j for i in picked for j in (i - 1, i + 1) if 0 <= j < len(found)} - picked
        steps = [(j, need([j]) - picked) for j in sorted(sides)]
        fits = [(j, more) for j, more in steps if size(picked) + size(more) <= words]
        if not fits:
            return sorted(picked)
        picked |= max(fits, key=lambda step: (score(step[0]), -step[0]))[1]


def runs(chosen: Sequence[int]) -> list[tuple[int, int]]:
    """Chosen sentence positions (sorted) as runs [a, b) of consecutive ones."""
    out: list[tuple[int, int]] = []
    for i in chosen:
        if out and out[-1][1] == i:
            out[-1] = (out[-1][0], i + 1)
        else:
            out.append((i, i + 1))
    return out


def quote_of_runs(found: Sequence[Sentence], chosen: Sequence[int], language: str) -> str:
    """The chosen sentences as one quote: each run as said (`quote_of_span`), runs joined by "…"."""
    return " … ".join(quote_of_span(found, a, b, language) for a, b in runs(chosen))


def quote_of_span(found: Sequence[Sentence], a: int, b: int, language: str) -> str:
    """The sentences [a, b) as one quote, as said (`spoken`); a piece of unpunctuated speech
    without the tag question it was cut after ("né", "you know": TAGS), which closes a thought
    and says nothing."""
    text = spoken(" ".join(found[i].text for i in range(a, b)), language)
    if found[b - 1].whole:
        return text
    words = text.split()
    for tag in TAGS.get(_base_code(language), ()):
        n = len(tag.split())
        if len(words) > n and [w.strip(_EDGE).lower() for w in words[-n:]] == tag.split():
            return " ".join(words[:-n]).rstrip(",;:")
    return text
