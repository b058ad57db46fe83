"""What a text is about, in a few key phrases as the lecturer said them: KeyBERT over the E5
model lecturetui already loads (bench/RESULTS.md, "Key phrases: YAKE, KeyBERT over E5, the
hand-written title").

The candidates are the runs of one to three words the text says that begin and end with a content
word (a stop word of its language may sit between two: "conjunto de instruções"), never across
a sentence's end;
the MAX_CANDIDATES said most often are kept, each in the form the text says it most often.
KeyBERT ranks them by the cosine between each phrase's E5 vector (as a query) and the text's (the
mean of its passages of CHUNK_WORDS words, at most MAX_CHUNKS of them spread over the text, so a
long part is read whole). A phrase the contrast (the rest of the lecture, the other lectures)
says more often, per word, than the text itself goes after the others; a phrase that shares a
word with one already taken is skipped.

keybert (which imports sentence-transformers, hence torch) and the stop-word lists are imported
when key phrases are first asked for, never at import time.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from lecturetui.core.models.embedding import Embedder, Vectors

#: candidates embedded for a text: the phrases it says most often
MAX_CANDIDATES = 40
#: words in a candidate, at most
PHRASE_WORDS = 3
#: the text is embedded in passages of this many words ...
CHUNK_WORDS = 100
#: ... at most this many of them, spread over the text
MAX_CHUNKS = 8
_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
_CLAUSE = re.compile(r"[.!?;:,()\[\]\"“”]+|\s[-–—]\s")


@dataclass(frozen=True, slots=True)
class Candidate:
    """A phrase the text says: its folded key, the form said most often, how often."""

    key: str
    said: str
    count: int


def keyphrases(
    text: str,
    language: str | None,
    n: int = 3,
    contrast: Sequence[str] = (),
    *,
    embedder: Embedder,
) -> list[str]:
    """Up to `n` phrases that say what `text` is about, the best first, as the text says them.

    `language`: the text's ISO 639-1 code ("pt", "pt-BR", "en"), None to tell it from the text;
    `contrast`: texts it is set against (the rest of its lecture): what they say as much is not
    what distinguishes this one. `embedder`: the library's E5."""
    if n <= 0 or not text.strip():
        return []
    stop = stopwords(language or _language(text))
    found = candidates(text, stop)
    if not found:
        return []
    common = _common(found, text, contrast)
    ranked = _ranked(embedder, text, found)
    order = sorted(range(len(found)), key=lambda i: (found[i].key in common, ranked[i]))
    out: list[str] = []
    taken: set[str] = set()
    for i in order:
        words = set(found[i].key.split()) - stop
        if words & taken:
            continue
        out.append(found[i].said)
        taken |= words
        if len(out) == n:
            break
    return out


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


def _content(word: str, stop: frozenset[str]) -> bool:
    return len(word) > 1 and not word.isdigit() and word not in stop


@cache
def stopwords(language: str) -> frozenset[str]:
    """The language's stop words (package stop-words), folded; none for a language it lacks."""
    from stop_words import AVAILABLE_LANGUAGES, get_stop_words

    from lecturetui.core.language import language_name

    name = language_name(language.split("-")[0].split("_")[0].lower()).lower()
    if name not in AVAILABLE_LANGUAGES:
        return frozenset()
    return frozenset(fold(w) for w in get_stop_words(name))


def _language(text: str) -> str:
    from lecturetui.core.language import language_code

    return language_code(text[:2000])


def _common(found: list[Candidate], text: str, contrast: Sequence[str]) -> set[str]:
    """The candidates the contrast says more often per word than the text."""
    if not contrast:
        return set()
    other = " ".join(contrast)
    inside = max(1, len(_WORD.findall(text)))
    outside = max(1, len(_WORD.findall(other)))
    folded_other = " ".join(fold(w) for w in _WORD.findall(other))
    out = set()
    for c in found:
        hits = len(re.findall(r"(?<!\S)" + re.escape(c.key) + r"(?!\S)", folded_other))
        if hits / outside > c.count / inside:
            out.add(c.key)
    return out


def _chunks(text: str) -> list[str]:
    words = text.split()
    pieces = [" ".join(words[i : i + CHUNK_WORDS]) for i in range(0, len(words), CHUNK_WORDS)]
    if len(pieces) <= MAX_CHUNKS:
        return pieces
    step = len(pieces) / MAX_CHUNKS
    return [pieces[int(i * step)] for i in range(MAX_CHUNKS)]


def _text_vector(embedder: Embedder, text: str) -> Vectors:
    mean = embedder.embed_passages(_chunks(text)).mean(axis=0)
    out: Vectors = mean / (float(np.linalg.norm(mean)) or 1.0)
    return out


def _query_vectors(embedder: Embedder, phrases: list[str]) -> Vectors:
    return np.stack([embedder.embed_query(p) for p in phrases]).astype(np.float32)


def _ranked(embedder: Embedder, text: str, found: list[Candidate]) -> list[int]:
    """Each candidate's rank (0: the closest to the text) by KeyBERT over E5."""
    from keybert import KeyBERT
    from keybert.backend import BaseEmbedder
    from sklearn.feature_extraction.text import CountVectorizer

    class Backend(BaseEmbedder):  # type: ignore[misc]
        def embed(self, documents: Sequence[str], verbose: bool = False) -> Vectors:
            return _query_vectors(embedder, list(documents))

    said = [c.said for c in found]
    # the candidates are the features (KeyBERT's vectorizer); the text is E5's passages
    vectorizer = CountVectorizer(analyzer=lambda _doc: said, lowercase=False)
    scored = KeyBERT(model=Backend()).extract_keywords(
        text, vectorizer=vectorizer, top_n=len(said),
        doc_embeddings=_text_vector(embedder, text)[None, :],
    )  # fmt: skip
    position = {phrase: rank for rank, (phrase, _score) in enumerate(scored)}
    return [position.get(s, len(said)) for s in said]
