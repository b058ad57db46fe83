"""End-to-end `Library.search` latency at 10,000 segments (p50/p95), window and unit indexes,
with and without the re-ranking stage.

    .venv/bin/python bench/search_latency.py [--segments 10000] [--queries 100]
        [--runtimes auto,torch] [--quick]

A real library (SQLite store, FTS5, window index, unit index and EmbeddingGemma's vectors) of
lecture-like segments (the demo lectures' texts, repeated), searched through the product's own
`Library.search` in each mode. Questions are embedded by the real models (E5 and EmbeddingGemma,
on the CPU, through each runtime of --runtimes: `auto` is the product's choice, OpenVINO or ONNX
Runtime on a CPU; `torch` is PyTorch, as before); passages get clustered synthetic vectors shaped like theirs (embedding 10,000
windows for real would take hours on this CPU and does not change the search's cost). Also
prints the index sizes on disk. `--quick`: 300 segments, 5 questions, the product's runtime only
(the whole path in seconds; the test suite runs it).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import model_dir, pct, seed_texts
from query_latency import clustered


class SyntheticPassages:
    """A real model (E5 by default) for questions; clustered vectors for passages."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.model_id = self.real.model_id
        self.dim = self.real.dim
        self.device = "cpu"
        self.query_prefix = self.real.query_prefix
        self.passage_prefix = self.real.passage_prefix
        self.max_tokens = self.real.max_tokens
        self.rng = np.random.default_rng(0)

    def embed_passages(
        self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None
    ) -> np.ndarray:
        return clustered(self.rng, len(texts), self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        return self.real.embed_query(text)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Key phrases at ingest: clustered vectors too (the search's cost does not depend on
        them, and the real model would embed every window's candidate phrases)."""
        return clustered(self.rng, len(texts), self.dim)

    def token_counter(self):  # type: ignore[no-untyped-def]
        from lecturetui.core.models.tokens import TokenCounter

        return TokenCounter()

    def fingerprint(self) -> str:
        return "synthetic"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--segments", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--runtimes", default="auto,torch", help="the embedders' runtimes, in turn")
    ap.add_argument("--quick", action="store_true",
                    help="300 segments, 5 questions, the product's runtime (a check, no figures)")  # fmt: skip
    args = ap.parse_args()
    if args.quick:
        args.segments, args.queries, args.runtimes = 300, 5, "auto"

    from lecturetui.core.library import Library
    from lecturetui.core.paths import DataHome

    texts = seed_texts()
    per_lecture = 250
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus.jsonl"
        with corpus.open("w", encoding="utf-8") as f:
            for i in range(args.segments):
                lec, k = divmod(i, per_lecture)
                row = {"lecture": f"aula-{lec}", "title": f"Aula {lec}", "language": "pt",
                       "start": k * 95.0, "end": k * 95.0 + 130.0,
                       "text": texts[(lec + k) % len(texts)]}  # fmt: skip
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        home = DataHome.resolve(Path(tmp) / "home")
        library = Library(home, embedder=SyntheticPassages(real_model(None, "auto")), rerank=False)
        t0 = time.perf_counter()
        library.ingest([corpus])
        build = time.perf_counter() - t0
        gemma = Library(home, embedder=library.embedder,
                        reranker=SyntheticPassages(real_model("gemma", "auto")))  # fmt: skip
        gemma.sync_rerank()
        index, units = library.index(), library.unit_index()
        assert index is not None and units is not None
        folder = library.home.index_dir
        size = {
            name: sum(p.stat().st_size for p in path.glob("*.hnsw"))
            for name, path in (("windows", folder), ("units", folder / "units"))
        }
        print(
            f"{index.count:,} segments, {units.count:,} units; ingest (synthetic vectors) {build:.0f} s;"
            f" index files: windows {size['windows'] / 1e6:.1f} MB, units {size['units'] / 1e6:.1f} MB\n"
        )
        questions = [
            f"{t.split()[i % 50]} {t.split()[(i + 3) % 50]} o que é isso na aula {i}?"
            for i, t in enumerate(texts * 8)
        ][: args.queries]
        print("| runtime | mode | p50 ms | p95 ms |")
        print("|---|---|---:|---:|")
        for runtime in args.runtimes.split(","):
            e5, reranker = real_model(None, runtime), real_model("gemma", runtime)
            library.embedder.real = e5
            gemma.rerank_stage().embedder.real = reranker  # type: ignore[union-attr]
            label = f"{runtime_of(e5)} / {runtime_of(reranker)} ({reranker.dtype})"
            for name, lib in (("", library), (" -> EmbeddingGemma", gemma)):
                for mode in ("hybrid", "dense", "lexical"):
                    lib.search(questions[0], 10, mode=mode)
                    times = []
                    for q in questions:
                        t0 = time.perf_counter()
                        lib.search(q, 10, mode=mode)
                        times.append(time.perf_counter() - t0)
                    print(f"| {label} | {mode}{name} | {pct(times, 50) * 1000:.1f} |"
                          f" {pct(times, 95) * 1000:.1f} |", flush=True)  # fmt: skip
        library.close()


@functools.cache
def real_model(which: str | None, runtime: str) -> Any:
    """E5 (None) or EmbeddingGemma on the CPU through `runtime` (auto: the product's choice),
    loaded once."""
    import os

    from lecturetui.core.models.gemma import GEMMA_DIR, GEMMA_ID
    from lecturetui.core.models.placement import Placement
    from lecturetui.core.models.runtime import load_embedder

    models = Path(
        os.environ.get("LECTURETUI_MODELS", Path(__file__).resolve().parents[1] / "models")
    )
    cpu = Placement("cpu", runtime)
    if which == "gemma":
        return load_embedder(models / GEMMA_DIR, models, model_id=GEMMA_ID, placement=cpu,
                             batch_size=8)  # fmt: skip
    return load_embedder(model_dir(), models, placement=cpu)


def runtime_of(embedder: Any) -> str:
    from lecturetui.core.models.placement import runtime_of as name

    return name(embedder)


if __name__ == "__main__":
    main()
