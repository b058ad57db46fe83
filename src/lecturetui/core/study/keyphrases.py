"""What a lecture and each of its parts are about, in a few key phrases as the lecturer said them:
KeyBERT's method over the E5 model lecturetui already loads (bench/RESULTS.md, "Key phrases:
YAKE, KeyBERT over E5, the hand-written title", and "Key phrases in the product").

The candidates are the runs of one to three words a text says that begin and end with a content
word (a stop word of its language, from the package stop-words, may sit between two: "conjunto
de instruções"), never across a clause's punctuation or a line (a part's text has a sentence, or
a piece of one, a line: core/study/parts.py; in captions without punctuation, where the sentence
model found the sentence's end); the MAX_CANDIDATES said most often are kept,
each in the form the text says it most often. As in KeyBERT, they are ranked by the cosine
between each phrase's E5 vector (as a query) and the text's vector, here the mean of the E5
vectors the unit index already holds for the text's units (no passage is embedded again). The
candidates of all the texts of a lecture are embedded once, in one batch.

A phrase the other texts (the lecture's other parts) say more often per word than this one goes
after the others: a word the whole lecture says ("Python") names no part. A phrase that shares a
content word with one already taken is skipped.

The KeyBERT package itself is not imported: with the candidates and the vectors given, what it
does is that cosine and sort, and its import costs 2.6 s on a 2-core CPU (scikit-learn, SciPy
and its language-model back ends) against the 1-2 s the key phrases of a whole lecture take.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from lecturetui.core.language import language_name

#: key phrases kept per text
PHRASES = 3
#: candidates ranked per text: the phrases it says most often
MAX_CANDIDATES = 30
#: words in a candidate, at most
PHRASE_WORDS = 3
#: a language's most frequent words (those a filler is looked for among: see
#: core/study/lecture_keyphrases.py)
COMMON_WORDS = 2000
_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
_CLAUSE = re.compile(r"[.!?;:,()\[\]\"“”…\n]+|\s[-–—]\s")

Vectors = npt.NDArray[np.float32]
#: E5 query vectors of phrases, in their order
EmbedQueries = Callable[[list[str]], Vectors]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A phrase the text says: its folded key, the form said most often, how often."""

    key: str
    said: str
    count: int


def keyphrases(
    texts: Sequence[str],
    vectors: Vectors,
    embed_queries: EmbedQueries,
    language: str,
    n: int = PHRASES,
    fillers: frozenset[str] = frozenset(),
) -> list[tuple[str, ...]]:
    """Up to `n` key phrases for each text, the best first, as the text says them.

    `vectors[i]`: text i's vector (the mean of its units' E5 vectors); `language`: the texts'
    ISO 639-1 code (its stop words; none for a language stop-words lacks); `fillers`: more
    words (folded) no phrase begins or ends with. Each text is set against the others (see the
    module's notes)."""
    stop = stopwords(language) | fillers
    found = [candidates(text, stop) for text in texts]
    unique = sorted({c.said for cs in found for c in cs})
    if not unique or n <= 0:
        return [() for _ in texts]
    table = dict(zip(unique, (_unit(v) for v in embed_queries(unique)), strict=True))
    out: list[tuple[str, ...]] = []
    for i, (cs, common) in enumerate(zip(found, _common(texts, found), strict=True)):
        if not cs:
            out.append(())
            continue
        sims = np.stack([table[c.said] for c in cs]) @ _unit(vectors[i])
        order = sorted(range(len(cs)), key=lambda k: (cs[k].key in common, -float(sims[k])))
        out.append(_distinct([cs[k] for k in order], stop, n))
    return out


def gathered(
    found: Sequence[Sequence[str]],
    vector: Vectors,
    embed_queries: EmbedQueries,
    language: str,
    n: int = PHRASES,
    elsewhere: Callable[[list[str]], set[str]] | None = None,
) -> tuple[str, ...]:
    """Up to `n` of the phrases `found` for a whole's pieces (a lecture's parts) that say what
    the whole is about: the closest to its vector; `elsewhere` gives, of the phrases (folded),
    those said as much beyond it (the rest of the library), which go after the others."""
    seen: dict[str, Candidate] = {}
    for phrases in found:
        for said in phrases:
            key = " ".join(fold(w) for w in _WORD.findall(said))
            before = seen.get(key)
            seen[key] = Candidate(
                key, before.said if before else said, (before.count if before else 0) + 1
            )
    cs = list(seen.values())
    if not cs or n <= 0:
        return ()
    vecs = np.stack([_unit(v) for v in embed_queries([c.said for c in cs])])
    sims = vecs @ _unit(vector)
    later = elsewhere([c.key for c in cs]) if elsewhere is not None else set()
    order = sorted(range(len(cs)), key=lambda k: (cs[k].key in later, -float(sims[k])))
    return _distinct([cs[k] for k in order], stopwords(language), n)


def remembered(embed: EmbedQueries) -> EmbedQueries:
    """`embed`, each phrase embedded once however often it is asked for (a lecture's phrases
    are its parts' too)."""
    seen: dict[str, Vectors] = {}

    def run(phrases: list[str]) -> Vectors:
        new = list(dict.fromkeys(p for p in phrases if p not in seen))
        if new:
            seen.update(zip(new, embed(new), strict=True))
        return np.stack([seen[p] for p in phrases]).astype(np.float32)

    return run


def candidates(text: str, stop: frozenset[str]) -> list[Candidate]:
    """The runs of 1-PHRASE_WORDS words the text says that begin and end with a content word,
    the MAX_CANDIDATES said most often (ties: the first said first), each in its most frequent
    form."""
    counts: Counter[str] = Counter()
    forms: dict[str, Counter[str]] = {}
    for clause in _CLAUSE.split(text):
        words = _WORD.findall(clause)
        folded = [fold(w) for w in words]
        content = [_content(w, stop) for w in folded]
        for i in range(len(words)):
            if not content[i]:
                continue
            for j in range(i, min(len(words), i + PHRASE_WORDS)):
                if j > i and not content[j - 1] and not content[j]:
                    break
                if content[j]:
                    key = " ".join(folded[i : j + 1])
                    counts[key] += 1
                    forms.setdefault(key, Counter())[" ".join(words[i : j + 1])] += 1
    ranked = sorted(counts, key=lambda k: -counts[k])[:MAX_CANDIDATES]
    return [Candidate(k, forms[k].most_common(1)[0][0], counts[k]) for k in ranked]


def fold(word: str) -> str:
    """Lower case, accents kept (they tell Portuguese words apart), typographic apostrophe
    straightened."""
    return unicodedata.normalize("NFC", word.casefold()).replace("’", "'")


@cache
def stopwords(language: str) -> frozenset[str]:
    """The language's stop words (package stop-words), folded; none for a language it lacks."""
    from stop_words import AVAILABLE_LANGUAGES, get_stop_words  # lazy: the library loads us

    name = language_name(_code(language)).lower()
    if name not in AVAILABLE_LANGUAGES:
        return frozenset()
    return frozenset(fold(w) for w in get_stop_words(name))


@cache
def common_words(language: str) -> tuple[str, ...]:
    """The language's COMMON_WORDS most frequent words (package wordfreq, whose counts include
    film subtitles, so spoken words such as "né", "aí", "gonna" are among them), folded; none
    for a language it lacks."""
    from wordfreq import available_languages, top_n_list  # lazy: 80 ms; the library loads us

    code = _code(language)
    # a language it lacks: none (wordfreq itself would raise, or answer with a near one)
    if COMMON_WORDS <= 0 or code not in available_languages():
        return ()
    return tuple(fold(w) for w in top_n_list(code, COMMON_WORDS))


def _code(language: str) -> str:
    return language.split("-")[0].split("_")[0].lower()


def _content(word: str, stop: frozenset[str]) -> bool:
    """A word a phrase may begin or end with: not a stop word, a number, a code or a web
    address's slug ("is-there-a-last-block")."""
    return (
        len(word) > 1
        and word not in stop
        and not any(ch.isdigit() for ch in word)
        and word.count("-") < 3
    )


def _unit(vector: Vectors) -> Vectors:
    out: Vectors = vector / (float(np.linalg.norm(vector)) or 1.0)
    return out


def _grams(text: str) -> Counter[str]:
    """How often the text says each run of 1-PHRASE_WORDS words (folded, within a clause)."""
    out: Counter[str] = Counter()
    for clause in _CLAUSE.split(text):
        folded = [fold(w) for w in _WORD.findall(clause)]
        for n in range(1, PHRASE_WORDS + 1):
            out.update(" ".join(folded[i : i + n]) for i in range(len(folded) - n + 1))
    return out


def _common(texts: Sequence[str], found: Sequence[Sequence[Candidate]]) -> list[set[str]]:
    """For each text, its candidates the other texts say more often per word than it does."""
    grams = [_grams(t) for t in texts]
    words = [max(1, len(_WORD.findall(t))) for t in texts]
    total, all_words = sum(grams, Counter()), sum(words)
    out: list[set[str]] = []
    for own, n, cs in zip(grams, words, found, strict=True):
        rest = all_words - n
        out.append(
            {c.key for c in cs if rest and (total[c.key] - own[c.key]) / rest > own[c.key] / n}
        )
    return out


def _distinct(ranked: Sequence[Candidate], stop: frozenset[str], n: int) -> tuple[str, ...]:
    """The first `n` phrases of which none shares a content word with one before it."""
    out: list[str] = []
    taken: set[str] = set()
    for c in ranked:
        words = set(c.key.split()) - stop
        if words & taken:
            continue
        out.append(c.said)
        taken |= words
        if len(out) == n:
            break
    return tuple(out)
