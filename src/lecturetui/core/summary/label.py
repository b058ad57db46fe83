"""What a part of a lecture is about, named by the answer model: a label, never a claim.

A small model names a passage's subject reliably and states its facts unreliably (read by hand,
a third of its one-sentence summaries were wrong: bench/RESULTS.md, "Summaries: the lecturer
claims, the model names"). So the model is asked for a short noun phrase, and the phrase is
kept only where it names this part. In the lecture's language (`label_fault`): at least half of
its words are said in the part, it drops no negation the part says ("linear" for a "não linear"
function), it is not the lecture's title and no scrap of speech. In another language, where
nothing can be said: its E5 vector is closer to this part than to most of the lecture's others.
A label that fails, or that repeats its neighbour's, leaves the part to its author's chapter
title, else unnamed.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from lecturetui.core.llm.model import Generator
from lecturetui.core.study.keyphrases import fold

#: a label has this many words that carry meaning at most (`content_words`)...
LABEL_WORDS = 6
#: ... and this many in all: the short words a language joins them with are not counted
#: ("Manipulação de pontos de referência com quadro-chaves" names its part in seven). On 14
#: parts of punctuated Portuguese, a limit of six words in all dropped three of the model's
#: labels, each a name (bench/RESULTS.md, "Labels in the lecture's own words")
LABEL_MAX_WORDS = 9
#: tokens the model may write for one: a Portuguese word is about two, and a reply cut here
#: is longer than LABEL_MAX_WORDS, never a name cut short
LABEL_TOKENS = 24
#: the share of a label's content words its part must say (the lecture's language)
SAID_SHARE = 0.5
#: a label in another language than the lecture's: its part must be among this share of the
#: lecture's parts closest to it (E5)
CLOSEST_SHARE = 1 / 3

LABEL_SYSTEM = (
    "You write the table of contents of a recorded lecture. Name the subject of one part in "
    "{language}: a noun phrase of two to six words, as a chapter title. Not the lecture's "
    "title: what this part is about. No verb, no sentence, no quotes, nothing the lecturer does "
    "not talk about."
)

LABEL_ASK = {
    "Portuguese": "Título do assunto (português, duas a seis palavras):",
    "Spanish": "Título del tema (español, dos a seis palabras):",
}
LABEL_ASK_ANY = "Subject title ({language}, two to six words):"
_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
_TRIM = " \t\"“”'‘’«»*:.-–—"


@dataclass(frozen=True, slots=True)
class Label:
    """A part's label, and whether the model's phrase was kept (else the key phrase)."""

    text: str
    by_model: bool


def label_messages(title: str, digest: str, language: str) -> list[dict[str, str]]:
    """The prompt for one part's label: the instructions and the lecture's title first (the same
    for every part of a lecture, read once and then kept in llama.cpp's cache), then what the
    lecturer says in the part. With the title among the instructions rather than beside each
    part, the model repeats it less: of 43 parts read by hand (English with and without
    punctuation, Portuguese automatic captions), its kept labels named their part 15 times
    against 9; read blind on 47 parts of 6 other lectures (with LABEL_MAX_WORDS), 19 against 15,
    one naming something else as before (bench/RESULTS.md, "Labels in the lecture's own
    words"). The labels of the parts before it are not listed: shown them, the small model
    copied one in two of them (bench/RESULTS.md, "Summaries: the lecturer claims, the model
    names")."""
    ask = LABEL_ASK.get(language, LABEL_ASK_ANY.format(language=language))
    user = f"What the lecturer says in this part:\n“{digest}”\n\n{ask}"
    system = LABEL_SYSTEM.format(language=language) + f"\n\nThe lecture: {title}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def without_title(label: str, title: str) -> str:
    """The label without the lecture's title the model put before it ("Aula D: Black Friday")."""
    for sep in (":", " - ", " – ", " — "):
        head, found, rest = label.partition(sep)
        if found and rest.strip() and head.strip().casefold() in title.casefold():
            return rest.strip(_TRIM)
    return label


def ask_label(generator: Generator, messages: list[dict[str, str]], stop: threading.Event) -> str:
    """The model's label: its first line, without quotes or a closing stop, LABEL_MAX_WORDS words
    at most ("" when it wrote none, or a sentence)."""
    reply = ""
    for piece in generator.stream(messages, LABEL_TOKENS, stop, temperature=0.0):
        reply += piece
        if "\n" in reply.strip() or len(reply.split()) > LABEL_MAX_WORDS:
            break  # its first line is written, or it is a sentence
    line = next((x for x in reply.strip().splitlines() if x.strip(_TRIM)), "")
    words = line.strip(_TRIM).split()
    if len(words) > LABEL_MAX_WORDS:
        return ""  # a sentence, not a name
    return " ".join(words).strip(_TRIM)


def content_words(text: str, stop: frozenset[str]) -> list[str]:
    """The text's folded words that are no stop words and have three letters or more."""
    return [w for w in (fold(x) for x in _WORD.findall(text)) if len(w) >= 3 and w not in stop]


def closest_rank(
    label_vector: npt.NDArray[np.float32], part_vectors: npt.NDArray[np.float32], index: int
) -> int:
    """Where the part `index` ranks among the lecture's parts by cosine to the label (1: the
    closest). The vectors are unit-length rows."""
    sims = part_vectors @ label_vector
    return int((sims > sims[index]).sum()) + 1


def names_part(rank: int, parts: int) -> bool:
    """Whether a label in another language names its part: closer to it than to most others."""
    return rank <= max(1, round(parts * CLOSEST_SHARE))


#: words that turn what follows into its opposite, by language: a label that drops one names
#: the opposite of what the lecturer said ("linear" for "não linear")
NEGATIONS = {
    "pt": frozenset(["não", "nao", "nem", "sem", "nunca", "jamais"]),
    "en": frozenset(["not", "no", "non", "without", "never", "isn't", "aren't", "don't",
                     "doesn't", "can't", "cannot", "won't", "nor"]),
    "es": frozenset(["no", "sin", "nunca", "jamás", "ni"]),
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Said:
    """What a label is checked against: the part's words, the lecture's title and the
    language's stop words and negations."""

    part: str
    title: str
    stop: frozenset[str]
    negations: frozenset[str]


def _folded(text: str) -> list[str]:
    return [fold(x) for x in _WORD.findall(text)]


def _affirmed(word: str, words: list[str], negations: frozenset[str]) -> int:
    """How often `word` (its first five letters) is said without a negation in the two words
    before it (or a "non-"/"não-" glued to it)."""
    n = 0
    for i, w in enumerate(words):
        if w[:5] != word[:5]:
            continue
        if any(x in negations for x in words[max(0, i - 2) : i]):
            continue
        n += 1
    return n


def fragment(label: str) -> bool:
    """Whether a phrase is a scrap of speech rather than a name: a word said twice in it
    ("partial derivative partial", "Olá, Olá mundo"), or a lone letter or a two-letter token
    that is no word, number or acronym ("equal b yk", "transpose S inverse": a symbol without
    its formula)."""
    tokens = _WORD.findall(label)
    folded = [t.casefold() for t in tokens]
    if len(set(folded)) < len(folded):
        return True
    short = [
        t
        for t in tokens
        if len(t) <= 2
        and not t.isdigit()
        and t.casefold() not in _SHORT_WORDS
        and not (len(t) == 2 and t.isupper())
    ]
    return len(tokens) > 1 and bool(short)


#: short words a name may hold (articles, prepositions) in the languages the library has met
_SHORT_WORDS = frozenset(
    [
        "a",
        "o",
        "e",
        "é",
        "de",
        "da",
        "do",
        "em",
        "na",
        "no",
        "as",
        "os",
        "um",
        "to",
        "of",
        "in",
        "on",
        "an",
        "by",
        "or",
        "la",
        "el",
        "en",
        "y",
        "se",
        "ao",
        "à",
        "at",
        "is",
    ]
)


def label_fault(label: str, said: Said) -> str | None:
    """Why a label misnames its part, or None where it names it: it is a `fragment` (a scrap of
    speech); under SAID_SHARE of its content words are said in the part ("unsaid": a word no one
    said names another subject); a word the part says only after a negation is given without it
    ("negation": "linear" for a "não linear" function); it is the lecture's title ("title")."""
    words = content_words(label, said.stop)
    if not words:
        return "empty"
    if fragment(label):
        return "fragment"
    part = _folded(said.part)
    label_words = _folded(label)
    stems = {x[:5] for x in part}
    if sum(w[:5] in stems for w in words) < SAID_SHARE * len(words):
        return "unsaid"
    for w in words:
        at = label_words.index(w) if w in label_words else 0
        negated_here = any(x in said.negations for x in label_words[max(0, at - 2) : at])
        if w[:5] in stems and not negated_here and _affirmed(w, part, said.negations) == 0:
            return "negation"
    title = {w[:5] for w in content_words(said.title, said.stop)}
    if title and {w[:5] for w in words} <= title:
        return "title"
    return None
