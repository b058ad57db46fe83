"""Embedding throughput: our ingest path against a plain SentenceTransformer.encode.

.venv/bin/python bench/embed_throughput.py [--device cpu|cuda|mps] [--n 104] [--repeat 2] [--quick]

`--quick`: 8 passages, once (the whole path in seconds: a check, no figures).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import model_dir, seed_texts


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="auto")
    ap.add_argument(
        "--n", type=int, default=104, help="passages (seed segments, cycled and varied)"
    )
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="8 passages, once: a check")
    args = ap.parse_args()
    if args.quick:
        args.n, args.repeat = 8, 1

    from sentence_transformers import SentenceTransformer

    from lecturetui.core.models.embedding import E5Embedder
    from lecturetui.core.models.hardware import accelerator
    from lecturetui.core.models.placement import pick_device

    base = seed_texts()
    # vary the lengths as real segments do: whole windows and their second halves
    pool = base + [" ".join(t.split()[len(t.split()) // 2 :]) for t in base]
    texts = [pool[i % len(pool)] for i in range(args.n)]
    path = model_dir()
    # one device for both (auto: the accelerator, else the CPU), so the two paths run alike
    device = pick_device(args.device)
    device = (accelerator() or "cpu") if device == "auto" else device
    ours = E5Embedder(path, device=device)
    counter = ours.token_counter()
    tokens = sum(counter.total(t) for t in texts)
    plain = SentenceTransformer(str(path), device=device)
    if device == "cuda":
        plain.half()
    prefixed = ["passage: " + t for t in texts]
    ours.embed_passages(texts[:8])  # warm up both
    plain.encode(prefixed[:8])

    def timed(fn) -> float:  # type: ignore[no-untyped-def]
        best = float("inf")
        for _ in range(args.repeat):
            if device == "cuda":
                import torch

                torch.cuda.synchronize()
            t0 = time.perf_counter()
            fn()
            if device == "cuda":
                import torch

                torch.cuda.synchronize()
            best = min(best, time.perf_counter() - t0)
        return best

    t_ours = timed(lambda: ours.embed_passages(texts))
    t_plain = timed(lambda: plain.encode(prefixed, batch_size=32))
    print(
        f"device: {device}; {len(texts)} passages, {tokens} tokens (mean {tokens / len(texts):.0f})"
    )
    print("| path | segments/s | tokens/s |")
    print("|---|---|---|")
    print(f"| lecturetui `embed_passages` | {len(texts) / t_ours:.1f} | {tokens / t_ours:.0f} |")
    print(
        f"| plain `SentenceTransformer.encode` | {len(texts) / t_plain:.1f} | {tokens / t_plain:.0f} |"
    )
    print(f"ratio ours/plain: {t_plain / t_ours:.2f}")


if __name__ == "__main__":
    main()
