"""The language the program speaks to the student: English or Brazilian Portuguese, one at a time.

Every user-facing string of the app and of the command line's human output is written in
English and marked: `_("…")` translates it now, `N_("…")` only marks it (a class attribute such
as a key binding's description, translated where it is shown), `ngettext` picks a plural. The
catalogs are gettext's, kept with Babel: `src/lecturetui/locale/<lang>/LC_MESSAGES/lecturetui.po`
is what a translator edits, the `.mo` beside it is compiled by the project's build (setup.py);
`scripts/catalog.py` extracts the marked strings and updates the `.po` (docs/development.md).

The language: the `language` setting (`--language`, or `language = "pt"` in settings.toml),
else the locale (LC_ALL, LC_MESSAGES, LANG), else English. An answer stays in the language of
its question whatever this says; `--json` keys stay English.
"""

from __future__ import annotations

import gettext
import io
import os
from collections.abc import Mapping
from pathlib import Path

DOMAIN = "lecturetui"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
#: the languages the program speaks, by code, with their catalogs' locale
LANGUAGES = {"en": "en", "pt": "pt_BR"}
LANGUAGE_CHOICES = ("auto", "en", "pt")

_state: dict[str, gettext.NullTranslations] = {"en": gettext.NullTranslations()}
_current = ["en"]


def _(message: str) -> str:
    """`message` in the current language."""
    return _translations(_current[0]).gettext(message)


def N_(message: str) -> str:
    """Marks `message` for the catalog without translating it (translated where shown)."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or the plural of a message for `n`, in the current language."""
    return _translations(_current[0]).ngettext(singular, plural, n)


def language() -> str:
    """The current language's code: "en" or "pt"."""
    return _current[0]


def set_language(code: str) -> str:
    """Speak `code` from now on ("en", "pt", or "auto": the locale's); returns the code used."""
    chosen = choose_language(code)
    _current[0] = chosen
    return chosen


def choose_language(setting: str | None, env: Mapping[str, str] | None = None) -> str:
    """The setting when it names a language, else the locale's (LC_ALL, then LC_MESSAGES, then
    LANG, as POSIX reads them), else English."""
    code = _code(setting or "")
    if code:
        return code
    env = os.environ if env is None else env
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var, "")
        if value:  # the first one set decides, even when it names a language not spoken here
            return _code(value) or "en"
    return "en"


def _code(value: str) -> str:
    """ "pt", "pt_BR.UTF-8", "pt-BR" -> "pt"; "en_US" -> "en"; anything else -> ""."""
    base = value.strip().lower().replace("-", "_").split(".")[0].split("_")[0]
    return base if base in LANGUAGES else ""


def _translations(code: str) -> gettext.NullTranslations:
    if code not in _state:
        _state[code] = load_catalog(LANGUAGES[code])
    return _state[code]


def load_catalog(locale: str, locale_dir: Path = LOCALE_DIR) -> gettext.NullTranslations:
    """The compiled catalog of `locale`; its `.po` compiled in memory where the build has not
    made the `.mo` (a source checkout); English (the strings as written) where neither exists."""
    folder = locale_dir / locale / "LC_MESSAGES"
    mo, po = folder / f"{DOMAIN}.mo", folder / f"{DOMAIN}.po"
    try:
        if mo.is_file() and (not po.is_file() or mo.stat().st_mtime >= po.stat().st_mtime):
            with mo.open("rb") as handle:
                return gettext.GNUTranslations(handle)
        if po.is_file():
            return gettext.GNUTranslations(io.BytesIO(compile_po(po)))
    except (OSError, ValueError):
        pass
    return gettext.NullTranslations()


def compile_po(po: Path) -> bytes:
    """A `.po` catalog compiled to `.mo` bytes (Babel), fuzzy entries left out."""
    from babel.messages import mofile, pofile  # lazy: 18 ms, on --help's path; only a .po needs it

    with po.open("rb") as handle:
        catalog = pofile.read_po(handle)
    out = io.BytesIO()
    mofile.write_mo(out, catalog)
    return out.getvalue()


def decimal(value: float, digits: int = 1, grouping: bool = True) -> str:
    """A number as the current language writes it: 1,234.5 in English, 1.234,5 in Portuguese
    (without `grouping`, no thousands separator: 1234.5, 1234,5)."""
    text = f"{value:,.{digits}f}" if grouping else f"{value:.{digits}f}"
    if _current[0] == "pt":
        text = text.replace(",", "\0").replace(".", ",").replace("\0", ".")
    return text


def seconds(value: float) -> str:
    """A duration in seconds, short: "0.4 s", "12 s" (a decimal comma in Portuguese)."""
    return f"{decimal(value, 1 if value < 10 else 0)} s"
