"""E5 adapted to one library with the questions written for its own segments (GPL-like).

    PYTHONPATH=$PWD/src:$PWD/bench python bench/adapt.py train [--epochs 1]
    PYTHONPATH=$PWD/src:$PWD/bench python bench/adapt.py score --half tune

The library's closely related lectures are what defeats the shipped E5: a paraphrased question
lands near several segments about the same subject. The questions the answer model wrote for
each segment (`bench/doc2query.py`, cached as `doc2query_1.5b.json`; no gold label is used, so
a product could do the same at ingest) pair each segment with three questions; E5 is fine-tuned
on those pairs with in-batch negatives (InfoNCE at E5's own temperature, 0.01; no two pairs of
one segment in a batch; word embeddings frozen, so languages the pairs lack keep their tokens),
then the windows, the units and the questions are embedded again and ranked by the default
fusion, with and without the lecturer's guess.

`train` writes the adapted model to the bench home (`e5_adapted_e<N>/`); `score` embeds with it
(cached beside it) and reports against the shipped model.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import ROOT
from _realistic import HOME, QUESTIONS, Corpus, library, load_questions, report
from doc2query import cache_path as d2q_path
from doc2query import key, questions_of
from hyde import guess_ranker, product_replies, signals
from ranking_ideas import default_ranker

BASE = ROOT / "models" / "multilingual-e5-small"


def model_dir(epochs: int) -> Path:
    return HOME / f"e5_adapted_e{epochs}"


def pairs(corpus: Corpus) -> list[tuple[str, int]]:
    """(written question, segment position) for every segment with questions."""
    replies: dict[str, str] = json.loads(d2q_path("1.5b").read_text())
    out = []
    for k, seg in enumerate(corpus.segs):
        for q in questions_of(replies.get(key(seg.text), "")):
            out.append((q, k))
    return out


def batches(items: list[tuple[str, int]], size: int, seed: int) -> list[list[tuple[str, int]]]:
    """Shuffled batches in which no segment appears twice (its other questions would be
    counted as negatives)."""
    rng = random.Random(seed)
    pool = items[:]
    rng.shuffle(pool)
    out: list[list[tuple[str, int]]] = []
    while pool:
        batch: list[tuple[str, int]] = []
        seen: set[int] = set()
        rest = []
        for item in pool:
            if len(batch) < size and item[1] not in seen:
                batch.append(item)
                seen.add(item[1])
            else:
                rest.append(item)
        out.append(batch)
        pool = rest
    return out


def train(epochs: int, batch_size: int, lr: float, max_len: int) -> None:
    import torch
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    corpus = Corpus(library())
    data = pairs(corpus)
    print(f"{len(data)} pairs over {len({k for _, k in data})} segments")
    model = SentenceTransformer(str(BASE), device="cpu")
    model.max_seq_length = max_len
    auto: Any = model[0].auto_model
    auto.embeddings.word_embeddings.weight.requires_grad = False
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    plan = [b for e in range(epochs) for b in batches(data, batch_size, seed=e)]
    warm = max(1, len(plan) // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (len(plan) - s) / len(plan))
    )
    model.train()
    t0 = time.perf_counter()
    for step, batch in enumerate(plan, 1):
        qs = model.tokenize(["query: " + q for q, _ in batch])
        ps = model.tokenize(["passage: " + corpus.segs[k].text for _, k in batch])
        qv = model(qs)["sentence_embedding"]
        pv = model(ps)["sentence_embedding"]
        logits = (qv @ pv.T) / 0.01
        loss = torch.nn.functional.cross_entropy(logits, torch.arange(len(batch)))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 5 == 0 or step == len(plan):
            rate = (time.perf_counter() - t0) / step
            print(
                f"step {step}/{len(plan)}  loss {loss.item():.3f}  {rate:.1f} s a step", flush=True
            )
    model.eval()
    model.save(str(model_dir(epochs)))


class AdaptedCorpus(Corpus):
    """The same library, with windows, units and questions embedded by the adapted model
    (cached in the model's folder)."""

    def __init__(self, lib: Any, path: Path) -> None:
        from sentence_transformers import SentenceTransformer

        super().__init__(lib, cache_dir=path)
        self.model = SentenceTransformer(str(path), device="cpu")
        wpath = path / "windows.npy"
        if not wpath.exists():
            print(f"embedding {len(self.segs)} windows…", flush=True)
            np.save(wpath, self.passages([s.text for s in self.segs]))
        self.vectors = np.load(wpath)

    def passages(self, texts: list[str]) -> np.ndarray:
        vecs = self.model.encode(
            ["passage: " + t for t in texts], batch_size=16, normalize_embeddings=True
        )
        return np.asarray(vecs, dtype=np.float32)

    def query_vector(self, text: str) -> np.ndarray:
        if text not in self._qcache:
            vec = self.model.encode(["query: " + text], normalize_embeddings=True)[0]
            self._qcache[text] = [float(x) for x in vec]
        return np.asarray(self._qcache[text], dtype=np.float32)


def score(half: str, epochs: int) -> None:
    lib = library()
    shipped = Corpus(lib)
    sig0 = signals(shipped)
    reply_of = product_replies("1.5b")
    adapted = AdaptedCorpus(lib, model_dir(epochs))
    sig1 = signals(adapted)
    rankers = {
        "default (E5 as shipped)": default_ranker(sig0),
        f"E5 adapted ({epochs} epoch)": default_ranker(sig1),
        "guess (E5 as shipped)": guess_ranker(sig0, reply_of),
        f"guess, E5 adapted ({epochs} epoch)": guess_ranker(sig1, reply_of),
    }
    questions = [q for q in load_questions(QUESTIONS) if q.half == half]
    report(shipped, questions, rankers, compare="default (E5 as shipped)")
    adapted.save()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("step", choices=["train", "score"])
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=2e-5)
    parser.add_argument("--max-len", type=int, default=256)
    parser.add_argument("--half", choices=["tune", "heldout"], default="tune")
    args = parser.parse_args()
    if args.step == "train":
        train(args.epochs, args.batch, args.lr, args.max_len)
    else:
        score(args.half, args.epochs)


if __name__ == "__main__":
    main()
