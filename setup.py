"""The build step pyproject.toml cannot say: the message catalogs compiled (.po -> .mo, Babel).

setuptools reads everything else from pyproject.toml. The `.mo` files are written beside their
`.po` in the source tree (an editable install reads them there) and shipped as package data.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

LOCALE = Path(__file__).resolve().parent / "src" / "lecturetui" / "locale"


def compile_catalogs() -> None:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po in sorted(LOCALE.glob("*/LC_MESSAGES/*.po")):
        with po.open("rb") as handle:
            catalog = read_po(handle)
        with po.with_suffix(".mo").open("wb") as handle:
            write_mo(handle, catalog)


class BuildWithCatalogs(build_py):
    def run(self) -> None:
        compile_catalogs()
        super().run()


setup(cmdclass={"build_py": BuildWithCatalogs})
