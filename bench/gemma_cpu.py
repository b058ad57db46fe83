"""EmbeddingGemma's ingest cost on the CPU: throughput of each variant and its cosine to fp32.

    .venv/bin/python bench/gemma_cpu.py [--n 32]

Windows of the realistic library (bench/realistic.py must have ingested it), embedded as the
product does (`E5Embedder.embed_passages`: length-sorted batches, the document prompt), in
segments/s, next to E5's throughput on the same windows. A variant is kept for the product only
if every window's vector has cosine >= 0.99 to fp32's.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from _realistic import library


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=32)
    args = ap.parse_args()
    import torch

    from lecturetui.core.models.embedding import E5Embedder
    from lecturetui.core.models.gemma import GEMMA_DIR, GEMMA_ID

    lib = library()
    ids = sorted(lib.store.all_segment_ids())[:: max(1, 396 // args.n)][: args.n]
    segs = lib.store.segments_by_id(ids)
    texts = [segs[i].text for i in ids]
    print(f"{len(texts)} windows, torch {torch.__version__}, {torch.get_num_threads()} threads")
    e5 = lib.embedder
    e5.embed_passages(texts[:2])
    dt, _ = timed(lambda: e5.embed_passages(texts))
    print("| variant | segments/s | min cosine to fp32 | mean |")
    print("|---|---:|---:|---:|")
    print(f"| E5 (multilingual-e5-small), fp32 | {len(texts) / dt:.2f} | | |")

    path = lib.home.models_dir / GEMMA_DIR

    def gemma(batch: int, attn: str | None = None) -> E5Embedder:
        emb = E5Embedder(path, model_id=GEMMA_ID, device="cpu", batch_size=batch)
        if attn:
            emb._model[0].auto_model.config._attn_implementation = attn
        return emb

    base = gemma(8)
    base.embed_passages(texts[:2])
    dt, ref = timed(lambda: base.embed_passages(texts))
    print(f"| EmbeddingGemma fp32, batch 8 (the product) | {len(texts) / dt:.2f} | 1 | 1 |")

    def row(name: str, emb: E5Embedder) -> None:
        emb.embed_passages(texts[:2])
        dt, vecs = timed(lambda: emb.embed_passages(texts))
        cos = (vecs * ref).sum(axis=1)
        print(f"| {name} | {len(texts) / dt:.2f} | {cos.min():.4f} | {cos.mean():.4f} |")

    for batch in (1, 4, 16):
        row(f"fp32, batch {batch}", gemma(batch))
    row("fp32, eager attention", gemma(8, "eager"))
    row("fp32, SDPA attention", gemma(8, "sdpa"))
    q = gemma(8)
    q._model = torch.ao.quantization.quantize_dynamic(q._model, {torch.nn.Linear}, torch.qint8)
    row("int8 dynamic quantisation, every Linear", q)
    mlp = gemma(8)
    layers = mlp._model[0].auto_model.layers
    for layer in layers:
        layer.mlp = torch.ao.quantization.quantize_dynamic(
            layer.mlp, {torch.nn.Linear}, torch.qint8
        )
    row("int8 dynamic quantisation, the MLPs only", mlp)
    bf = gemma(8)
    bf._model.to(torch.bfloat16)
    row("bfloat16", bf)


if __name__ == "__main__":
    main()
