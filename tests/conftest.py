from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).resolve().parents[1]
SEED_CORPUS = ROOT / "examples" / "seed_lectures.jsonl"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(autouse=True)
def _temp_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own data home; nothing touches the user's library."""
    home = tmp_path / "home"
    monkeypatch.setenv("LECTURETUI_HOME", str(home))
    monkeypatch.delenv("LECTURETUI_MODELS", raising=False)
    yield home


@pytest.fixture
def home(_temp_home: Path) -> Path:
    return _temp_home


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES
