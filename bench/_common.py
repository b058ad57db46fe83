from __future__ import annotations

import json
import os
import re
import statistics
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SEED_CORPUS = ROOT / "examples" / "seed_lectures.jsonl"
os.environ.setdefault("HF_HUB_OFFLINE", "1")
#: a script's --quick (the test suite runs every script so: tests/test_bench.py): the demo
#: library cut to these lectures (6 segments; aula-B answers the TensorFlow questions), each
#: segment to its first QUICK_WORDS words (an answer model's prompt of a few hundred tokens)
QUICK_LECTURES = ("aula-A", "aula-B")
QUICK_WORDS = 30


def quick_corpus(folder: Path) -> Path:
    """The demo corpus cut to QUICK_LECTURES and QUICK_WORDS, written under `folder`."""
    rows = [json.loads(x) for x in SEED_CORPUS.read_text(encoding="utf-8").splitlines()]
    path = folder / "seed_quick.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for row in rows:
            if row["lecture"] in QUICK_LECTURES:
                row["text"] = " ".join(row["text"].split()[:QUICK_WORDS])
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def cut_captions(path: Path, seconds: float) -> str:
    """The captions of a file (SRT, or JSON segments) that start before `seconds` (a short
    lecture for a script's --quick)."""
    text = path.read_text("utf-8")
    if path.suffix == ".json":
        data = json.loads(text)
        data["segments"] = [s for s in data["segments"] if float(s["start"]) < seconds]
        return json.dumps(data, ensure_ascii=False)
    kept = []
    for block in re.split(r"\n\s*\n", text.replace("\r\n", "\n")):
        m = re.search(r"(\d+):(\d+):(\d+)[,.]\d+\s*-->", block)
        if m and int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3]) < seconds:
            kept.append(block.strip())
    return "\n\n".join(kept) + "\n"


def quick_ids() -> set[int]:
    """The corpus ids of the quick demo library's segments."""
    rows = [json.loads(x) for x in SEED_CORPUS.read_text(encoding="utf-8").splitlines()]
    return {int(r["corpus_id"]) for r in rows if r["lecture"] in QUICK_LECTURES}


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


def demo_library(
    home: str | None, quick: bool = False
) -> tuple[Any, tempfile.TemporaryDirectory[str] | None]:
    """The library at `home`, or else the demo library in a temporary home (models from models/;
    `quick`: cut to QUICK_LECTURES).

    Returns the Library and the temporary folder to keep alive while it is used (None for home).
    """
    from lecturetui.core.library import Library
    from lecturetui.core.paths import DataHome

    if home is not None:
        return Library(DataHome.resolve(Path(home))), None
    tmp = tempfile.TemporaryDirectory()
    os.environ.setdefault("LECTURETUI_MODELS", str(ROOT / "models"))
    library = Library(DataHome.resolve(tmp.name))
    library.ingest([quick_corpus(Path(tmp.name)) if quick else SEED_CORPUS])
    library.sync_rerank()  # as `lecturetui ingest` does: EmbeddingGemma re-ranks, as by default
    return library, tmp


def answer_model(
    llm: str | os.PathLike[str] | None = None,
    n_ctx: int = 4096,
    home: Path | None = None,
    seed: int | None = None,
) -> Any:
    """The answer model as `ask` runs it (core/session.py): in a process of its own, its
    instructions' state and prompt speed read from the models folder (`models/`, as the README's
    set-up leaves it); `llm`: a built-in name or a GGUF path (None: the default). Closed at exit."""
    import atexit

    from lecturetui.core.paths import DataHome
    from lecturetui.core.session import AnswerChoice, ModelSession

    os.environ.setdefault("LECTURETUI_MODELS", str(ROOT / "models"))
    where = home or Path(tempfile.mkdtemp(prefix="lt-bench-model-"))
    choice = AnswerChoice(str(llm) if llm is not None else None, n_ctx, seed=seed)
    session = ModelSession(DataHome.resolve(where), answer=choice)
    atexit.register(session.close)
    return session.answer_model()
