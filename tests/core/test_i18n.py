"""One language at a time: which one, the catalogs complete, and no user-facing string left out."""

from __future__ import annotations

import ast
import gettext
import importlib.util
import io
import sys
from pathlib import Path
from types import ModuleType

import pytest

from lecturetui.core import i18n
from lecturetui.core.i18n import _, choose_language, decimal, load_catalog, ngettext, set_language

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "lecturetui"


def catalog_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("catalog", ROOT / "scripts" / "catalog.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["catalog"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("setting", "env", "expected"),
    [
        ("pt", {"LANG": "en_US.UTF-8"}, "pt"),  # the setting wins
        ("en", {"LANG": "pt_BR.UTF-8"}, "en"),
        ("auto", {"LANG": "pt_BR.UTF-8"}, "pt"),
        (None, {"LC_ALL": "en_GB.UTF-8", "LANG": "pt_BR.UTF-8"}, "en"),  # LC_ALL before LANG
        (None, {"LC_MESSAGES": "pt_PT", "LANG": "en_US"}, "pt"),
        (None, {"LANG": "de_DE.UTF-8"}, "en"),  # a language not spoken here: English
        (None, {"LANG": "C.UTF-8"}, "en"),
        (None, {}, "en"),
        ("pt-BR", {}, "pt"),
    ],
)
def test_the_language_is_the_setting_else_the_locale_else_english(
    setting: str | None, env: dict[str, str], expected: str
) -> None:
    assert choose_language(setting, env) == expected


def test_strings_numbers_and_plurals_follow_the_language() -> None:
    set_language("pt")
    assert _("Segments") == "Segmentos"
    assert _("Answer") == "Resposta"
    assert ngettext("{n} lecture", "{n} lectures", 1).format(n=1) == "1 aula"
    assert ngettext("{n} lecture", "{n} lectures", 3).format(n=3) == "3 aulas"
    assert decimal(4.5) == "4,5" and decimal(1234.5) == "1.234,5"
    assert decimal(1234.5, grouping=False) == "1234,5"
    set_language("en")
    assert _("Segments") == "Segments"
    assert decimal(4.5) == "4.5" and decimal(1234.5) == "1,234.5"
    assert decimal(1234.5, grouping=False) == "1234.5"


def test_the_catalog_is_read_from_its_po_where_no_mo_was_built(tmp_path: Path) -> None:
    po = SRC / "locale" / "pt_BR" / "LC_MESSAGES" / "lecturetui.po"
    folder = tmp_path / "pt_BR" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "lecturetui.po").write_bytes(po.read_bytes())
    assert load_catalog("pt_BR", tmp_path).gettext("Segments") == "Segmentos"
    assert load_catalog("fr_FR", tmp_path).gettext("Segments") == "Segments"  # none: English


def test_the_built_catalog_matches_its_source() -> None:
    """The `.mo` the build compiled (setup.py) says what the `.po` says."""
    folder = SRC / "locale" / "pt_BR" / "LC_MESSAGES"
    mo = folder / "lecturetui.mo"
    if not mo.exists():
        pytest.skip("no compiled catalog (the package was not built from this checkout)")
    with mo.open("rb") as handle:
        built = gettext.GNUTranslations(handle)
    source = gettext.GNUTranslations(io.BytesIO(i18n.compile_po(folder / "lecturetui.po")))
    assert built._catalog == source._catalog  # type: ignore[attr-defined]  # every message


def test_every_marked_string_has_a_translation_and_every_entry_a_string() -> None:
    catalog = catalog_script()
    template = catalog.template()
    assert len(template) > 100  # the app's and the CLI's strings are marked
    found = [p for po in catalog.catalogs() for p in catalog.problems(po, template)]
    assert not found, "\n".join(found[:40]) + "\n(scripts/catalog.py updates the catalogs)"


#: calls whose text a student reads, and which of their arguments hold it
_SHOWN = {"notify": (0, "title"), "Static": (0,), "Label": (0,), "Button": (0,), "Option": (0,),
          "Binding": (2, "description", "tooltip"), "Input": ("placeholder",),
          "SystemCommand": (0, 1), "ConfirmScreen": (0,), "IngestLog": (0,)}  # fmt: skip


def _literal_text(node: ast.expr) -> bool:
    """A string literal (or f-string) with words in it, not passed through `_`/`N_`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return any(c.isalpha() for c in node.value)
    if isinstance(node, ast.JoinedStr):
        return any(
            isinstance(v, ast.Constant) and any(c.isalpha() for c in str(v.value))
            for v in node.values
        )
    return False


def test_no_user_facing_string_of_the_app_is_left_untranslated() -> None:
    """Every text the app shows goes through the catalog: a literal handed to a widget, a
    notification, a key binding or a palette command is a string the other language misses."""
    found: list[str] = []
    for path in sorted((SRC / "tui").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Assign)
                and any(
                    isinstance(t, ast.Attribute) and t.attr in ("border_title", "border_subtitle")
                    for t in node.targets
                )
                and _literal_text(node.value)
            ):
                found.append(f"{path.name}:{node.lineno}")
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            for where in _SHOWN.get(name, ()):
                if isinstance(where, int):
                    args = node.args[where : where + 1]
                else:
                    args = [k.value for k in node.keywords if k.arg == where]
                if any(_literal_text(a) for a in args):
                    found.append(f"{path.name}:{node.lineno} ({name})")
    assert not found, f"untranslated text: {found}"


def test_no_string_is_marked_inside_an_f_string() -> None:
    """`f"{_('Answer')}"` works, but the catalog's extraction cannot see into an f-string (on
    Python 3.11): the string would never be translated."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.JoinedStr):
                for inner in ast.walk(node):
                    if (isinstance(inner, ast.Call) and getattr(inner.func, "id", "") in ("_", "N_")
                            and inner.args and isinstance(inner.args[0], ast.Constant)):  # fmt: skip
                        found.append(f"{path.relative_to(SRC)}:{inner.lineno}")
    assert not found, f"marked inside an f-string: {found}"
