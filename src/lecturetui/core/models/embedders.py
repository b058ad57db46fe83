"""The embedding models lecturetui runs, and the role each has: the one list (EMBEDDERS) that
`models setup`, the ONNX exports, doctor, the packs, the commands and the app read.

E5 (multilingual-e5-small) is the first stage: it embeds every window and its small units into
the hnswlib indexes (core/indexes.py) and finds a question's candidates. EmbeddingGemma-300M
re-ranks them (core/retrieval/rerank.py). Each entry says where its folder is, how its own module
(`files`) makes it, what `models setup` calls it, what a pack keeps of it, and how it is loaded.
Nothing here is imported but this list: a model's module is imported where it is set up.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, cast

from lecturetui.core.i18n import N_

#: the roles: the first stage builds the vector indexes and finds the candidates; re-ranking
#: re-scores them
FIRST_STAGE, RERANKING = "first stage", "re-ranking"
#: each role as doctor's rows and `models list` name it (translated where shown)
ROLE_LABELS = {
    FIRST_STAGE: N_("embeddings"),
    RERANKING: N_("re-ranking"),
}

StepProgress = Callable[[str, int, int], None]  # (step, done, total); the step's name translated


@dataclass(frozen=True, slots=True)
class ModelStatus:
    """Whether a model is ready in the models folder, and if not, why (one sentence)."""

    path: Path
    ready: bool
    problem: str = ""
    size: int = 0


class ModelFiles(Protocol):
    """What an embedder's own module offers (`EmbedderSpec.files`)."""

    def install(
        self, models_dir: Path, *, progress: StepProgress | None = None, force: bool = False
    ) -> Path:
        """The model's folder in `models_dir`, made now where it is not there whole (or `force`)."""
        ...

    def status(self, models_dir: Path) -> ModelStatus:
        """Cheap: whether the folder is there whole, without loading or hashing anything."""
        ...


@dataclass(frozen=True, slots=True)
class EmbedderSpec:
    """One embedding model and its role."""

    name: str  # as doctor's rows and the app's loading line name it: "EmbeddingGemma"
    short: str  # in the app's status line, before its device: "Gemma CPU"
    title: str  # its full name, in doctor's line: "EmbeddingGemma-300M"
    role: str  # FIRST_STAGE or RERANKING
    folder: str  # its folder in the models folder
    hub_id: str  # its model id (what the vector indexes' manifests record)
    files: str  # its module (ModelFiles): how its folder is made and checked
    #: comes with the program (made from an installed package wherever it is wanted); else
    #: downloaded by `models setup` only
    bundled: bool
    setup_step: str  # its key in `models setup`'s record and lines: "embedding"
    setup_name: str  # its name in "Preparing the {model} failed" (translated where shown)
    setup_what: str  # its progress bar in `models setup`, "{step}" its current step (translated)
    query_prefix: str  # what its folder's prompts put before a question
    passage_prefix: str  # and before a passage
    max_tokens: int  # its token limit
    batch_size: int = 32  # texts in a batch on PyTorch
    accelerator_dtype: str = "float16"  # on a GPU (Gemma 3 overflows float16: bfloat16)
    exported: bool = True  # exported to ONNX and compiled for OpenVINO by `models setup`
    #: the role a pack's manifest names it by, and the members holding its vectors (None: a pack
    #: holds none of its vectors)
    pack_role: str | None = None
    pack_vectors: tuple[str, ...] = ()
    licence: str = ""
    licence_url: str = ""
    loading: str = ""  # said while it loads (translated where shown)
    off: str = ""  # the app's status line where its stage is off (translated where shown)

    def module(self) -> ModelFiles:
        """Its own module, imported now."""
        return cast(ModelFiles, importlib.import_module(self.files))


E5 = EmbedderSpec(
    name="E5",
    short="E5",
    title="multilingual-e5-small",
    role=FIRST_STAGE,
    folder="multilingual-e5-small",
    hub_id="intfloat/multilingual-e5-small",
    files="lecturetui.core.models.e5convert",
    bundled=True,
    setup_step="embedding",
    # TRANSLATORS: the models `lecturetui models setup` prepares, named in
    # "Preparing the {model} failed" and beside each one's outcome
    setup_name=N_("embedding model"),
    setup_what=N_("embedding model (E5)"),
    query_prefix="query: ",
    passage_prefix="passage: ",
    max_tokens=512,
    pack_role="e5",
    pack_vectors=("vectors/windows.npy", "vectors/units.npy"),
    licence="MIT",
)
GEMMA = EmbedderSpec(
    name="EmbeddingGemma",
    short="Gemma",
    title="EmbeddingGemma-300M",
    role=RERANKING,
    folder="embeddinggemma-300m",
    hub_id="google/embeddinggemma-300m",
    files="lecturetui.core.models.gemma",
    bundled=False,
    setup_step="re-ranking",
    setup_name=N_("re-ranking model"),
    setup_what=N_("re-ranking ({step})"),
    query_prefix="task: search result | query: ",
    passage_prefix="title: none | text: ",
    max_tokens=2048,
    batch_size=8,
    accelerator_dtype="bfloat16",
    pack_role="rerank",
    pack_vectors=("vectors/rerank.npy",),
    licence="Gemma Terms of Use",
    licence_url="https://ai.google.dev/gemma/terms",
    loading=N_("Loading EmbeddingGemma…"),
    off=N_("Gemma off"),
)
#: every embedder, the first stage first
EMBEDDERS: tuple[EmbedderSpec, ...] = (E5, GEMMA)


def with_role(role: str, embedders: Sequence[EmbedderSpec] = EMBEDDERS) -> EmbedderSpec:
    """The embedder that has `role` (each role has one)."""
    return next(e for e in embedders if e.role == role)


def first_stage(embedders: Sequence[EmbedderSpec] = EMBEDDERS) -> EmbedderSpec:
    return with_role(FIRST_STAGE, embedders)


def reranker(embedders: Sequence[EmbedderSpec] = EMBEDDERS) -> EmbedderSpec:
    return with_role(RERANKING, embedders)
