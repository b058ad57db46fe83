"""A text's language: its ISO 639-1 code (py3langid, offline) and its English name."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

_preloading: list[threading.Thread] = []

_LANGUAGE_NAMES = {
    "pt": "Portuguese", "en": "English", "es": "Spanish", "fr": "French", "de": "German",
    "it": "Italian", "nl": "Dutch", "ca": "Catalan", "pl": "Polish", "ru": "Russian",
    "zh": "Chinese", "ja": "Japanese", "ko": "Korean", "ar": "Arabic", "tr": "Turkish",
}  # fmt: skip


#: the languages a text is told among: those written with a standard of their own and widely
#: used. py3langid's model also knows regional varieties and creoles (Galician, Occitan,
#: Aragonese, Extremaduran, Haitian Creole…) that it picks for a short question in a
#: neighbouring major language: "pra que serve o dicionario" came out Galician, "qual a
#: diferenca entre lista e tupla" Extremaduran, and the answer model was then asked to answer in
#: them (bench/RESULTS.md, "A short question's language").
LANGUAGES = (
    "af", "ar", "az", "be", "bg", "bn", "ca", "cs", "cy", "da", "de", "el", "en", "es", "et",
    "eu", "fa", "fi", "fr", "ga", "he", "hi", "hr", "hu", "hy", "id", "is", "it", "ja", "ka",
    "kk", "ko", "lt", "lv", "mk", "ms", "nl", "nn", "no", "pl", "pt", "ro", "ru", "sk", "sl",
    "sq", "sr", "sv", "sw", "ta", "te", "th", "tl", "tr", "uk", "ur", "vi", "zh",
)  # fmt: skip
#: how much likelier (py3langid's log-probability, in nats) the library's and the interface's
#: languages are taken to be than any other: enough to decide a two-word question that scores
#: about even ("GPU ou CPU?": French -12.0, Portuguese -12.0), far too little to move a sentence,
#: whose margin is tens of nats (bench/RESULTS.md, "A short question's language")
LIKELY_PRIOR = 3.0
_restricted = threading.Lock()
_ready: list[bool] = []


@dataclass(frozen=True, slots=True)
class Told:
    """A text's language as told once: its code and py3langid's log-probability (nats) of each
    language it was told among (empty when no language was preferred: `classify` alone)."""

    code: str
    ranks: Mapping[str, float]

    @property
    def name(self) -> str:
        return language_name(self.code)

    def behind(self, code: str) -> float | None:
        """How much less likely `code` is than the most likely language (None: not ranked)."""
        if code not in self.ranks:
            return None
        return max(self.ranks.values()) - self.ranks[code]


def tell(text: str, likely: Iterable[str] = ()) -> Told:
    """A text's language, one of LANGUAGES (py3langid, offline); the `likely` ones (the
    library's, the interface's) win a near tie (LIKELY_PRIOR)."""
    import py3langid  # lazy: 60-100 ms (`preload` warms it); the library loads this module

    if not _ready:
        with _restricted:
            if not _ready:
                py3langid.set_languages(list(LANGUAGES))
                _ready.append(True)
    preferred = set(likely) & set(LANGUAGES)
    ranked = {str(code): float(score) for code, score in py3langid.rank(text)}
    code = max(ranked, key=lambda c: ranked[c] + (LIKELY_PRIOR if c in preferred else 0.0))
    return Told(code, ranked)


def language_code(text: str, likely: Iterable[str] = ()) -> str:
    """ISO 639-1 code of a text's language (`tell`)."""
    return tell(text, likely).code


def preload() -> None:
    """Load the identifier in the background, once per process (about 0.4 s: a search loads its
    embedders meanwhile)."""
    if not _preloading:
        thread = threading.Thread(target=language_code, args=("warm",), name="langid", daemon=True)
        _preloading.append(thread)
        thread.start()


def code_of(name: str) -> str:
    """An English language name's ISO 639-1 code ("Portuguese" -> "pt"); "" when unknown."""
    return next((c for c, n in _LANGUAGE_NAMES.items() if n == name), "")


def language_name(code: str) -> str:
    """An ISO 639-1 code's English name ("pt" -> "Portuguese"); the code when unknown."""
    return _LANGUAGE_NAMES.get(code, code)
