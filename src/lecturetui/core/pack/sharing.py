"""Sharing a library as a course pack, gathered for the faces (the command line reaches the
packs through here): writing one (export.py) and reading one in (importer.py)."""

from __future__ import annotations

from lecturetui.core.pack.export import export_pack
from lecturetui.core.pack.importer import ImportResult, import_pack

__all__ = ["ImportResult", "export_pack", "import_pack"]
