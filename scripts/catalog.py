"""The message catalogs: extract the marked strings, update the `.po` files, check them.

    .venv/bin/python scripts/catalog.py            # extract, update every .po (keeps translations), compile its .mo
    .venv/bin/python scripts/catalog.py --check    # say what is missing, untranslated or obsolete
    .venv/bin/python scripts/catalog.py --merge pt_BR FILE.json   # fill msgstr from {msgid: msgstr}

Strings are marked in src/lecturetui with `_()`, `N_()` and `ngettext()` (core/i18n.py); English
is the source language, so only the other languages have a catalog. `tests/test_catalog.py` runs
the check: a marked string without a translation, or a translation of nothing, fails it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "lecturetui"
LOCALE = SRC / "locale"
DOMAIN = "lecturetui"
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}


def template() -> Catalog:
    """Every marked string of the package, with where it is used."""
    catalog = Catalog(project="lecturetui", domain=DOMAIN)
    for filename, lineno, message, comments, context in extract_from_dir(
        str(SRC), [("**.py", "python")], KEYWORDS, comment_tags=("TRANSLATORS:",)
    ):
        catalog.add(message, None, [(f"src/lecturetui/{filename}", lineno)],
                    auto_comments=comments, context=context)  # fmt: skip
    return catalog


def catalogs() -> list[Path]:
    return sorted(LOCALE.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))


def read(path: Path) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle)


def write(path: Path, catalog: Catalog) -> None:
    with path.open("wb") as handle:
        write_po(handle, catalog, width=100, sort_output=False, omit_header=False)


def problems(po: Path, tmpl: Catalog | None = None) -> list[str]:
    """What is wrong with one catalog against the source: a marked string missing from it or
    untranslated or fuzzy, an entry no source string uses, a placeholder the translation lost."""
    tmpl = tmpl or template()
    cat = read(po)
    out: list[str] = []
    wanted = {m.id for m in tmpl if m.id}
    have = {m.id: m for m in cat if m.id}
    for msg in tmpl:
        if not msg.id:
            continue
        entry = have.get(msg.id)
        where = msg.locations[0][0] + f":{msg.locations[0][1]}" if msg.locations else "?"
        if entry is None:
            out.append(f"missing from {po.parent.parent.name}: {msg.id!r} ({where})")
        elif not entry.string or (isinstance(entry.string, tuple) and not all(entry.string)):
            out.append(f"untranslated in {po.parent.parent.name}: {msg.id!r} ({where})")
        elif entry.fuzzy:
            out.append(f"fuzzy in {po.parent.parent.name}: {msg.id!r} ({where})")
        else:
            out.extend(_placeholders(msg.id, entry.string, po.parent.parent.name))
    for mid in have:
        if mid not in wanted:
            out.append(f"obsolete in {po.parent.parent.name} (no source string): {mid!r}")
    return out


def _placeholders(mid: object, string: object, lang: str) -> list[str]:
    import re

    ids = mid if isinstance(mid, tuple) else (mid,)
    strings = string if isinstance(string, tuple) else (string,)
    pattern = re.compile(r"\{[a-z_0-9]*(?:![rsa])?(?::[^{}]*)?\}|%\(\w+\)[sd]|%[sd]")
    want = sorted(pattern.findall(str(ids[-1])))
    for s in strings:
        if sorted(pattern.findall(str(s))) != want:
            return [f"placeholders differ in {lang}: {ids[0]!r} -> {s!r}"]
    return []


def update() -> None:
    tmpl = template()
    for po in catalogs():
        cat = read(po)
        cat.update(tmpl, no_fuzzy_matching=True)
        cat.obsolete.clear()
        write(po, cat)
        compile_mo(po)
        print(f"{po.relative_to(ROOT)}: {len(cat)} messages")


def compile_mo(po: Path) -> None:
    """The `.mo` beside the `.po`, as the build compiles it (setup.py), for this checkout."""
    from lecturetui.core.i18n import compile_po

    po.with_suffix(".mo").write_bytes(compile_po(po))


def merge(lang: str, source: Path) -> None:
    po = LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    cat = read(po)
    pairs = json.loads(source.read_text("utf-8"))
    done = 0
    for mid, text in pairs.items():
        key = tuple(mid.split("\x00")) if "\x00" in mid else mid
        entry = cat.get(key if isinstance(key, str) else key[0])
        if entry is not None:
            entry.string = tuple(text) if isinstance(text, list) else text
            entry.flags.discard("fuzzy")
            done += 1
    write(po, cat)
    compile_mo(po)
    print(f"{done} of {len(pairs)} translations merged into {po.relative_to(ROOT)}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--merge", nargs=2, metavar=("LANG", "JSON"))
    args = ap.parse_args()
    if args.merge:
        merge(args.merge[0], Path(args.merge[1]))
    elif args.check:
        tmpl = template()
        found = [p for po in catalogs() for p in problems(po, tmpl)]
        print("\n".join(found) or "catalogs complete")
        sys.exit(1 if found else 0)
    else:
        update()


if __name__ == "__main__":
    main()
