"""The re-ranking model's saved vectors read as they are, without loading the model: its
manifest says which model made them, which is what a pack's vectors are compared with, and
what they are exported and added under. The re-ranking stage reads the file again when it changed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lecturetui.core.retrieval.vector_index import VectorIndex

if TYPE_CHECKING:
    from lecturetui.core.library import Library


def saved_rerank(library: Library) -> VectorIndex | None:
    """The saved re-ranking vectors; None where none were saved or re-ranking is off."""
    if library.rerank_stage() is None:
        return None
    folder = library.home.rerank_dir
    saved = VectorIndex.read_manifest(folder)
    if saved is None:
        return None
    return VectorIndex.load(folder, saved.model_id, saved.model_hash, saved.dim)
