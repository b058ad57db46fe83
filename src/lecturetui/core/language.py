"""A text's language: its ISO 639-1 code (py3langid, offline) and its English name."""

from __future__ import annotations

import threading
from collections.abc import Iterable

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


def language_code(text: str, likely: Iterable[str] = ()) -> str:
    """ISO 639-1 code of a text's language, one of LANGUAGES (py3langid, offline); the
    `likely` ones (the library's, the interface's) win a near tie (LIKELY_PRIOR)."""
    import py3langid

    if not _ready:
        with _restricted:
            if not _ready:
                py3langid.set_languages(list(LANGUAGES))
                _ready.append(True)
    preferred = set(likely) & set(LANGUAGES)
    if not preferred:
        code, _ = py3langid.classify(text)
        return str(code)
    ranked = py3langid.rank(text)
    code, _ = max(
        ranked, key=lambda pair: pair[1] + (LIKELY_PRIOR if pair[0] in preferred else 0.0)
    )
    return str(code)


def preload() -> None:
    """Load the identifier in the background, once per process (about 0.4 s: a search loads its
    embedders meanwhile)."""
    if not _preloading:
        thread = threading.Thread(target=language_code, args=("warm",), name="langid", daemon=True)
        _preloading.append(thread)
        thread.start()


def language_name(code: str) -> str:
    """An ISO 639-1 code's English name ("pt" -> "Portuguese"); the code when unknown."""
    return _LANGUAGE_NAMES.get(code, code)


def question_language(question: str, likely: Iterable[str] = ()) -> str | None:
    """The question's language by name (small models follow "answer in Portuguese" far better
    than "answer in the language of the question"); `likely` as for `language_code`."""
    code = language_code(question, likely)
    return _LANGUAGE_NAMES.get(code, code)
