"""BM25 (FTS5) search latency at 10k and 100k segments, with the development questions.

    .venv/bin/python bench/lexical_latency.py [--sizes 10000 100000] [--quick]

The library holds lecture-like text: each segment is ~400 words drawn from the demo transcripts
(a random window of their word stream, so common words are everywhere and rare terms are rare, as
in real lectures). Ingest cost per segment (the stemming trigger) is reported too. Each size is
timed with the store's pruning of common terms (the default) and without it, on the same library,
and the top-10 of both are compared: the same segment ids in the same order, and the same scores
(within 1e-4; the segments here are windows of one short word stream, so exact ties abound).
`--quick`: 1,000 segments (the whole path in seconds: a check, no figures).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, pct, seed_texts


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--quick", action="store_true", help="1,000 segments: a check, no figures")
    args = ap.parse_args()
    if args.quick:
        args.sizes = [1000]
    from lecturetui.core.lectures import Segment
    from lecturetui.core.storage import store as store_mod
    from lecturetui.core.storage.store import LectureRow, Store

    words = " ".join(seed_texts()).split()
    rng = random.Random(7)
    dev = ROOT / "bench" / "data" / "retrieval_dev.jsonl"
    questions = [
        json.loads(line)["question"] for line in dev.read_text(encoding="utf-8").splitlines()
    ]
    default_prune = store_mod.PRUNE_COMMON_TERMS_FROM
    print(
        "| segments | insert + stem ms/segment | common terms | BM25 top-50 p50 / p95 ms | max ms"
        " | top-10 ids as pruned | top-10 scores as pruned |"
    )
    print("|---:|---:|---|---:|---:|---:|---:|")
    for n in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            store = Store(Path(tmp) / "library.sqlite3")
            per_lecture = 500
            t0 = time.perf_counter()
            for lec in range(n // per_lecture):
                rec = LectureRow(f"l{lec}", f"Aula {lec}", None, "pt", f"/x/{lec}", f"l{lec}", None,
                                    "jsonl", 3600.0, f"h{lec}", None, "{}")  # fmt: skip
                segs = []
                for i in range(per_lecture):
                    start = rng.randrange(0, len(words) - 400)
                    segs.append(
                        Segment(i * 95.0, i * 95.0 + 130, " ".join(words[start : start + 400]))
                    )
                store.save_lecture(rec, segs)
            insert = (time.perf_counter() - t0) / n * 1000
            tops: dict[str, list[list[tuple[int, float]]]] = {}
            for label, prune_from in (("left out", default_prune), ("kept", 10**12)):
                store_mod.PRUNE_COMMON_TERMS_FROM = prune_from
                times = []
                tops[label] = [store.lexical_search(q, 10) for q in questions]
                for _ in range(3):
                    for q in questions:
                        t0 = time.perf_counter()
                        store.lexical_search(q, 50)
                        times.append(time.perf_counter() - t0)
                pruned = tops["left out"]
                same_ids = sum(
                    [i for i, _ in a] == [i for i, _ in b]
                    for a, b in zip(tops[label], pruned, strict=True)
                )
                same_scores = sum(
                    len(a) == len(b)
                    and all(
                        abs(x - y) <= 1e-4 * abs(y) for (_, x), (_, y) in zip(a, b, strict=True)
                    )
                    for a, b in zip(tops[label], pruned, strict=True)
                )
                print(
                    f"| {n:,} | {insert:.2f} | {label} | {pct(times, 50) * 1000:.1f} / "
                    f"{pct(times, 95) * 1000:.1f} | {max(times) * 1000:.1f} | {same_ids}/{len(questions)} | {same_scores}/{len(questions)} |"
                )
            store_mod.PRUNE_COMMON_TERMS_FROM = default_prune
            store.close()


if __name__ == "__main__":
    main()
