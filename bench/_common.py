from __future__ import annotations

import json
import os
import statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED_CORPUS = ROOT / "examples" / "seed_lectures.jsonl"
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def seed_texts() -> list[str]:
    return [
        json.loads(line)["text"] for line in SEED_CORPUS.read_text(encoding="utf-8").splitlines()
    ]


def model_dir() -> Path:
    from lecturetui.core.modelstore import setup_default_embedder

    return setup_default_embedder(Path(os.environ.get("LECTURETUI_MODELS", ROOT / "models")))


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]
