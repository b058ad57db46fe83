"""Lexical analysis for BM25 search: words, Snowball stems, accents folded.

Each segment is indexed (in SQLite FTS5, see store.py) as the stems of its words, stemmed with the
Snowball stemmer of its lecture's language (PyStemmer: the Snowball project's own C stemmers, for
about 30 languages) and then folded to ASCII-like letters, so `tensores`, `Tensor` and `tensor`,
or `paralelização` and `paralelizacao`, meet. Stemming runs before folding because the Snowball
rules are written for the accented spellings. A question is analysed with the stemmers of every
language in the library, since a short question's own language cannot be told reliably.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import cache
from typing import Any

#: ISO 639-1 code -> Snowball algorithm name (the languages PyStemmer ships)
SNOWBALL = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "cs": "czech",
    "da": "danish", "nl": "dutch", "en": "english", "eo": "esperanto", "et": "estonian",
    "fi": "finnish", "fr": "french", "de": "german", "el": "greek", "hi": "hindi",
    "hu": "hungarian", "id": "indonesian", "ga": "irish", "it": "italian", "lt": "lithuanian",
    "ne": "nepali", "no": "norwegian", "nb": "norwegian", "fa": "persian", "pl": "polish",
    "pt": "portuguese", "ro": "romanian", "ru": "russian", "sr": "serbian", "es": "spanish",
    "sv": "swedish", "ta": "tamil", "tr": "turkish", "yi": "yiddish",
}  # fmt: skip

_WORD = re.compile(r"\w+", re.UNICODE)
_MAX_QUERY_TERMS = 64


@cache
def _stemmer(language: str | None) -> Any:
    name = SNOWBALL.get((language or "").split("-")[0].lower())
    if name is None:
        return None
    import Stemmer  # lazy: PyStemmer stays off the start-up of the library, which loads us

    return Stemmer.Stemmer(name)


def fold(text: str) -> str:
    """Lowercase without accents: `Paralelização` -> `paralelizacao`."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def stems(text: str, language: str | None) -> list[str]:
    """The folded stems of a text's words, in order (words without a stemmer are only folded)."""
    tokens = words(text)
    stemmer = _stemmer(language)
    if stemmer is not None:
        tokens = stemmer.stemWords(tokens)
    return [fold(t) for t in tokens]


def index_terms(text: str, language: str | None) -> str:
    """What the FTS table stores for a segment: its stems, space-separated.

    A word whose stem changes when its accents are dropped first (`paralelização` -> `paraleliz`,
    `paralelizacao` -> `paralelizaca`) is stored under both, so a question typed without
    accents finds it too; a question's words are stemmed as typed (`stems`).
    """
    tokens = words(text)
    stemmer = _stemmer(language)
    if stemmer is None:
        return " ".join(fold(t) for t in tokens)
    folded = [fold(t) for t in tokens]
    as_written = stemmer.stemWords(tokens)
    unaccented = stemmer.stemWords(folded)
    out: list[str] = []
    for word, plain, a, b in zip(tokens, folded, as_written, unaccented, strict=True):
        out.append(fold(a))
        if word != plain and b != fold(a):
            out.append(b)
    return " ".join(out)


def query_terms(question: str, languages: Iterable[str | None]) -> list[str]:
    """Distinct stems of a question under each of the library's languages, in question order."""
    seen: dict[str, None] = {}
    langs = list(dict.fromkeys(languages)) or [None]
    per_language = [stems(question, lang) for lang in langs]
    for i in range(max((len(s) for s in per_language), default=0)):
        for s in per_language:
            if i < len(s):
                seen.setdefault(s[i], None)
    return list(seen)[:_MAX_QUERY_TERMS]


def match_expression(terms: Iterable[str]) -> str:
    """An FTS5 query matching any of the terms (each quoted, so no term is read as syntax)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
