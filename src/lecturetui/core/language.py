"""A text's language: its ISO 639-1 code (py3langid, offline) and its English name."""

from __future__ import annotations

import threading

_preloading: list[threading.Thread] = []

_LANGUAGE_NAMES = {
    "pt": "Portuguese", "en": "English", "es": "Spanish", "fr": "French", "de": "German",
    "it": "Italian", "nl": "Dutch", "ca": "Catalan", "pl": "Polish", "ru": "Russian",
    "zh": "Chinese", "ja": "Japanese", "ko": "Korean", "ar": "Arabic", "tr": "Turkish",
}  # fmt: skip


def language_code(text: str) -> str:
    """ISO 639-1 code of a text's language (py3langid, offline)."""
    import py3langid

    code, _ = py3langid.classify(text)
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


def question_language(question: str) -> str | None:
    """The question's language by name (small models follow "answer in Portuguese" far better
    than "answer in the language of the question")."""
    code = language_code(question)
    return _LANGUAGE_NAMES.get(code, code)
