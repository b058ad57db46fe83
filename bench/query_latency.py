"""Query latency (p50/p95) and hnswlib recall@10 against exact search, at 10k and 100k segments.

    .venv/bin/python bench/query_latency.py [--sizes 10000 100000] [--queries 200] [--quick]

The ANN part uses clustered synthetic 384-d vectors shaped like E5's (one shared direction,
topic clusters, low intrinsic dimension); query embedding uses the real model; the store lookup
runs against a SQLite library of the same size with lecture-like text. `--quick`: 1,000
segments, 10 queries (the whole path in seconds: a check, no figures).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import model_dir, pct, seed_texts


def clustered(rng: np.random.Generator, n: int, dim: int, clusters: int = 500) -> np.ndarray:
    basis = rng.normal(size=(48, dim)).astype(np.float32)
    basis /= np.linalg.norm(basis, axis=1, keepdims=True)
    centers = rng.normal(size=(clusters, 48)).astype(np.float32)
    labels = rng.integers(0, clusters, size=n)
    latent = centers[labels] + 0.6 * rng.normal(size=(n, 48)).astype(np.float32)
    v = basis[0] * 3.0 + latent @ basis + 0.03 * rng.normal(size=(n, dim)).astype(np.float32)
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def ms(values: list[float]) -> str:
    return f"{pct(values, 50) * 1000:.2f} / {pct(values, 95) * 1000:.2f}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--quick", action="store_true", help="1,000 segments, 10 queries: a check")
    args = ap.parse_args()
    if args.quick:
        args.sizes, args.queries = [1000], 10

    from lecturetui.core.lectures import Segment
    from lecturetui.core.models.torch_embedder import TorchEmbedder
    from lecturetui.core.retrieval.vector_index import EXACT_SEARCH_LIMIT, Manifest, VectorIndex
    from lecturetui.core.storage.store import LectureRow, Store

    rng = np.random.default_rng(0)
    emb = TorchEmbedder(model_dir(), device="cpu")
    questions = [
        f"{t.split()[i]} {t.split()[i + 3]} o que é isso na aula {i}?"
        for i, t in enumerate(seed_texts() * 8)
    ]
    emb.embed_query(questions[0])
    q_times = []
    for q in questions[: args.queries // 2]:
        t0 = time.perf_counter()
        emb.embed_query(q)
        q_times.append(time.perf_counter() - t0)
    print(
        f"query embedding (real model, cpu): p50/p95 {ms(q_times)} ms over {len(q_times)} questions\n"
    )
    print(
        "| segments | build s | ANN p50/p95 ms | exact p50/p95 ms | recall@10 ANN vs exact | store lookup p50/p95 ms | end to end p50/p95 ms (default mode) |"
    )
    print("|---|---|---|---|---|---|---|")
    texts = seed_texts()
    for n in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            vecs = clustered(rng, n, 384)
            queries = clustered(rng, args.queries, 384)
            manifest = Manifest("synthetic", "x", 384, "query: ", "passage: ", {})
            t0 = time.perf_counter()
            index = VectorIndex.create(folder / "index", manifest, capacity=n)
            index.add(list(range(1, n + 1)), vecs)
            build = time.perf_counter() - t0
            store = Store(folder / "library.sqlite3")
            per_lecture = 500
            for lec in range(n // per_lecture):
                rec = LectureRow(f"l{lec}", f"Aula {lec}", None, "pt", f"/x/{lec}", f"l{lec}", None,
                                    "jsonl", 3600.0, f"h{lec}", None, "{}")  # fmt: skip
                segs = [
                    Segment(i * 95.0, i * 95.0 + 130, texts[(lec + i) % len(texts)])
                    for i in range(per_lecture)
                ]
                store.save_lecture(rec, segs)
            ann, exact, lookup, e2e, recalls = [], [], [], [], []
            for q in queries:
                t0 = time.perf_counter()
                a = index.search(q, 10, exact=False)
                ann.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                e = index.search(q, 10, exact=True)
                exact.append(time.perf_counter() - t0)
                recalls.append(len({x for x, _ in a} & {x for x, _ in e}) / 10)
                t0 = time.perf_counter()
                store.segments_by_id([x for x, _ in a])
                lookup.append(time.perf_counter() - t0)
            for question in questions[: args.queries // 2]:
                t0 = time.perf_counter()
                qv = emb.embed_query(question)
                # the library's default: exact up to EXACT_SEARCH_LIMIT vectors, hnswlib beyond
                hits = index.search(
                    qv[:384] if qv.shape[0] >= 384 else qv, 10, exact=n <= EXACT_SEARCH_LIMIT
                )
                store.segments_by_id([x for x, _ in hits])
                e2e.append(time.perf_counter() - t0)
            store.close()
            print(
                f"| {n:,} | {build:.1f} | {ms(ann)} | {ms(exact)} | {np.mean(recalls):.3f} | {ms(lookup)} | {ms(e2e)} |"
            )


if __name__ == "__main__":
    main()
