from __future__ import annotations

import json
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SEED_CORPUS = ROOT / "examples" / "seed_lectures.jsonl"
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def seed_texts() -> list[str]:
    return [
        json.loads(line)["text"] for line in SEED_CORPUS.read_text(encoding="utf-8").splitlines()
    ]


def model_dir() -> Path:
    from lecturetui.core.models.locate import setup_default_embedder

    return setup_default_embedder(Path(os.environ.get("LECTURETUI_MODELS", ROOT / "models")))


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def demo_library(home: str | None) -> tuple[Any, tempfile.TemporaryDirectory[str] | None]:
    """The library at `home`, or else the demo library in a temporary home (models from models/).

    Returns the Library and the temporary folder to keep alive while it is used (None for home).
    """
    from lecturetui.core.library import Library
    from lecturetui.core.paths import DataHome

    if home is not None:
        return Library(DataHome.resolve(Path(home))), None
    tmp = tempfile.TemporaryDirectory()
    os.environ.setdefault("LECTURETUI_MODELS", str(ROOT / "models"))
    library = Library(DataHome.resolve(tmp.name))
    library.ingest([SEED_CORPUS])
    library.sync_rerank()  # as `lecturetui ingest` does: EmbeddingGemma re-ranks, as by default
    return library, tmp
