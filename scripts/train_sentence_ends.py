"""Train the sentence-end model (core/models/sentence_ends.py): LoRA deltas on E5-small's first layers
and a linear head, from punctuated text read as automatic captions give it.

    python scripts/train_sentence_ends.py TRAIN_DIR --e5 models/multilingual-e5-small \
        [--out src/lecturetui/core/data/sentence_ends.npz] [--epochs 2] [--seed 0]

TRAIN_DIR holds UTF-8 text files of running, punctuated speech or text, one document a file,
named `<lang>-<source>-<name>.txt` (`bench/data/sentences/fetch_train.py` rebuilds the set from
the sources and licences listed in `bench/data/sentences/train_sources.jsonl`). Each document is
read as automatic captions give it: the punctuation at the words' edges stripped and the case
lowered (the model's own `norm`); a word whose original ends a sentence (. ? ! …) is labelled as
ending one. Documents are cut into the model's chunks (CHUNK words with MARGIN words of context
on each side, as at run time), at a random offset each epoch; only the words a chunk judges
count in the loss. Every sixth document (by name) is kept aside to choose the threshold that
gives the best F1 of the decoded ends; no held-out lecture of `bench/data/sentences/lectures.jsonl`
is among the documents.

Needs PyTorch and transformers (the project's own dependencies). Prints the aside F1, the
threshold and the weights' sha256, which goes into `WEIGHTS_SHA256`.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from lecturetui.core.models import sentence_ends as sm
from lecturetui.core.sentences import closes


def document(text: str) -> tuple[list[str], list[int]]:
    """The document's words as captions without punctuation give them (empty ones dropped, their
    sentence end moved to the word before) and, for each, whether a sentence ends after it."""
    words: list[str] = []
    ends: list[int] = []
    for raw in text.split():
        end = closes(raw)
        if sm.norm(raw):
            words.append(sm.norm(raw))
            ends.append(int(end))
        elif end and ends:
            ends[-1] = 1
    if ends:
        ends[-1] = 0  # the document's end is no evidence of a sentence's
    return words, ends


class LoRA:
    """A frozen linear layer plus a trained low-rank delta (B A, scaled by 2 / rank)."""

    @staticmethod
    def wrap(linear: Any, rank: int) -> Any:
        import torch

        class Adapted(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.base = linear
                self.a = torch.nn.Parameter(torch.randn(rank, linear.in_features) * 0.01)
                self.b = torch.nn.Parameter(torch.zeros(linear.out_features, rank))
                self.scale = 2.0 / rank

            def forward(self, x: Any) -> Any:
                return self.base(x) + (x @ self.a.T @ self.b.T) * self.scale

        return Adapted()


def build(e5: Path, rank: int) -> tuple[Any, Any, list[tuple[str, Any]]]:
    import torch
    from transformers import BertModel

    model = BertModel.from_pretrained(str(e5), add_pooling_layer=False)
    model.encoder.layer = model.encoder.layer[: sm.LAYERS]
    model.config.num_hidden_layers = sm.LAYERS
    for p in model.parameters():
        p.requires_grad = False
    adapted: list[tuple[str, Any]] = []
    for k, layer in enumerate(model.encoder.layer):
        for path in sm.ADAPTED:
            parent_path, _, attr = path.rpartition(".")
            parent = layer.get_submodule(parent_path)
            wrapped = LoRA.wrap(getattr(parent, attr), rank)
            setattr(parent, attr, wrapped)
            adapted.append((f"{k}.{path}", wrapped))
    head = torch.nn.Linear(2 * model.config.hidden_size, 1)
    return model, head, adapted


def batches(
    docs: list[tuple[list[str], list[int]]], pieces: sm.Pieces, rng: random.Random
) -> list[list[tuple[sm.Chunk, list[int]]]]:
    items: list[tuple[sm.Chunk, list[int]]] = []
    for words, ends in docs:
        shift = rng.randrange(sm.CHUNK)
        first = [words[:shift], words[shift:]] if shift < len(words) else [words]
        at = 0
        for part in first:
            for c in sm.chunks(pieces(part)):
                lo = at + c.first_word
                items.append((c, ends[lo : lo + len(c.last)]))
            at += len(part)
    rng.shuffle(items)
    items.sort(key=lambda it: len(it[0].ids) // 32)  # similar lengths together
    groups = [items[i : i + 16] for i in range(0, len(items), 16)]
    rng.shuffle(groups)
    return groups


def forward(model: Any, head: Any, group: list[tuple[sm.Chunk, list[int]]]) -> tuple[Any, Any]:
    import torch

    longest = max(len(c.ids) for c, _ in group)
    ids = torch.full((len(group), longest), 1, dtype=torch.long)
    mask = torch.zeros((len(group), longest), dtype=torch.long)
    for r, (c, _) in enumerate(group):
        ids[r, : len(c.ids)] = torch.tensor(c.ids)
        mask[r, : len(c.ids)] = 1
    states = model(input_ids=ids, attention_mask=mask).last_hidden_state
    rows, last, after, labels = [], [], [], []
    for r, (c, y) in enumerate(group):
        for i in c.judged:
            rows.append(r)
            last.append(c.last[i])
            after.append(c.after[i])
            labels.append(float(y[i]))
    r = torch.tensor(rows)
    both = torch.cat([states[r, torch.tensor(last)], states[r, torch.tensor(after)]], dim=1)
    return head(both).squeeze(-1), torch.tensor(labels)


def probabilities(model: Any, head: Any, words: list[str], pieces: sm.Pieces) -> np.ndarray:
    import torch

    out = np.zeros(len(words), dtype=np.float32)
    with torch.no_grad():
        for c in sm.chunks(pieces(words)):
            logits, _ = forward(model, head, [(c, [0] * len(c.last))])
            out[[c.first_word + i for i in c.judged]] = torch.sigmoid(logits).numpy()
    return out


def f1(found: set[int], gold: set[int]) -> tuple[int, int, int]:
    return len(found & gold), len(found - gold), len(gold - found)


def report(
    lectures: Path, model: Any, head: Any, pieces: sm.Pieces, threshold: float, shortest: int
) -> None:
    """F1 on held-out lectures (reported only: nothing is chosen on them)."""
    import json

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from sentence_bench import lecture_words

    root = Path(__file__).resolve().parents[1]
    totals: dict[str, list[int]] = {}
    for line in lectures.read_text("utf-8").splitlines():
        lec = json.loads(line)
        words, _times, ends = lecture_words(root / lec["path"])
        got = f1(
            set(sm.decode(probabilities(model, head, words, pieces), threshold, shortest)),
            set(ends),
        )
        for key in (lec["language"][:2], "all"):
            totals[key] = [a + b for a, b in zip(totals.get(key, [0, 0, 0]), got, strict=True)]
    for key, (tp, fp, fn) in sorted(totals.items()):
        print(
            f"held-out {key}: P {tp / max(1, tp + fp):.3f} R {tp / max(1, tp + fn):.3f} F1 {2 * tp / max(1, 2 * tp + fp + fn):.3f}",
            flush=True,
        )


def main() -> None:
    import torch
    from tokenizers import Tokenizer

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("train", type=Path)
    ap.add_argument("--e5", type=Path, default=Path("models/multilingual-e5-small"))
    ap.add_argument("--out", type=Path, default=Path("src/lecturetui/core/data/sentence_ends.npz"))
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--limit", type=int, default=0, help="read at most this many documents")
    ap.add_argument(
        "--repeat",
        action="append",
        default=[],
        metavar="PREFIX=N",
        help="read the documents whose name starts with PREFIX N times an epoch (spoken text)",
    )
    ap.add_argument(
        "--resume", type=Path, help="a weights file to start from (--epochs 0: re-tune)"
    )
    ap.add_argument(
        "--report",
        type=Path,
        help="held-out lectures (bench's lectures.jsonl) to report F1 on, after the threshold is chosen",
    )
    args = ap.parse_args()
    rng = random.Random(args.seed)
    torch.manual_seed(args.seed)
    files = sorted(args.train.glob("*.txt"))
    if args.limit:
        files = rng.sample(files, min(args.limit, len(files)))
        files.sort()
    docs = [document(f.read_text(encoding="utf-8")) for f in files]
    aside = [d for i, d in enumerate(docs) if i % 6 == 5]
    times = {p: int(n) for p, _, n in (r.partition("=") for r in args.repeat)}
    kept = [
        d
        for i, (f, d) in enumerate(zip(files, docs, strict=True))
        if i % 6 != 5
        for _ in range(max((n for p, n in times.items() if f.name.startswith(p)), default=1))
    ]
    print(f"{len(files)} documents, {sum(len(w) for w, _ in docs)} words", flush=True)
    tokenizer = Tokenizer.from_file(str(args.e5 / "tokenizer.json"))
    pieces = sm.word_pieces(lambda texts: [e.ids for e in tokenizer.encode_batch(texts)])
    model, head, adapted = build(args.e5, sm.RANK)
    if args.resume:
        load_into(args.resume, adapted, head)
    params = [p for _, m in adapted for p in (m.a, m.b)] + list(head.parameters())
    optimizer = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor(3.0))
    for epoch in range(args.epochs):
        groups = batches(kept, pieces, rng)
        steps = len(groups)
        t0 = time.time()
        for step, group in enumerate(groups):
            for g in optimizer.param_groups:
                g["lr"] = args.lr * (1 - (epoch * steps + step) / (args.epochs * steps))
            logits, labels = forward(model, head, group)
            loss = loss_fn(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 100 == 0:
                print(
                    f"epoch {epoch} step {step}/{steps} loss {loss.item():.3f} {time.time() - t0:.0f}s",
                    flush=True,
                )
    model.eval()
    threshold, shortest = choose_decoding(model, head, aside, pieces)
    if args.report:
        report(args.report, model, head, pieces, threshold, shortest)
    save(args.out, adapted, head, threshold, shortest)


def choose_decoding(
    model: Any, head: Any, aside: list[tuple[list[str], list[int]]], pieces: sm.Pieces
) -> tuple[float, int]:
    """The threshold and the fewest words of a sentence with the best F1 of the decoded ends on
    the documents kept aside."""
    probs = [(probabilities(model, head, w, pieces), e) for w, e in aside]
    best = (0.0, 0.5, sm.SHORTEST)
    for shortest in (1, 2, 3):
        for t in np.arange(0.1, 0.96, 0.025):
            tp = fp = fn = 0
            for p, e in probs:
                found = set(sm.decode(p, float(t), shortest))
                a, b, c = f1(found, {i for i, x in enumerate(e) if x})
                tp, fp, fn = tp + a, fp + b, fn + c
            score = 2 * tp / max(1, 2 * tp + fp + fn)
            if score > best[0]:
                best = (score, float(t), shortest)
    print(f"aside: F1 {best[0]:.3f} at threshold {best[1]:.3f}, shortest {best[2]}", flush=True)
    for t in np.arange(0.5, 0.96, 0.05):  # what a higher threshold trades
        tp = fp = fn = 0
        for p, e in probs:
            a, b, c = f1(set(sm.decode(p, float(t), best[2])), {i for i, x in enumerate(e) if x})
            tp, fp, fn = tp + a, fp + b, fn + c
        print(f"aside at {t:.2f}: P {tp / max(1, tp + fp):.3f} R {tp / max(1, tp + fn):.3f}")
    return best[1], best[2]


def load_into(path: Path, adapted: list[tuple[str, Any]], head: Any) -> None:
    """The deltas and head of a weights file, into the model being trained."""
    import torch

    deltas, found = sm.read_weights(path.read_bytes())
    with torch.no_grad():
        for name, m in adapted:
            m.a.copy_(torch.from_numpy(deltas[f"{name}.a"]))
            m.b.copy_(torch.from_numpy(deltas[f"{name}.b"]))
        head.weight.copy_(torch.from_numpy(found.weights)[None, :])
        head.bias.fill_(found.bias)


def save(
    out: Path, adapted: list[tuple[str, Any]], head: Any, threshold: float, shortest: int
) -> None:
    """The deltas (float16), the head and the threshold, in the file the package ships."""
    arrays = {
        f"{name}.{x}": getattr(m, x).detach().numpy().astype(np.float16)
        for name, m in adapted
        for x in ("a", "b")
    }
    arrays["head.weight"] = head.weight.detach().numpy()[0].astype(np.float16)
    arrays["head.bias"] = np.float32(head.bias.item())
    arrays["threshold"] = np.float32(round(threshold, 3))
    arrays["shortest"] = np.float32(shortest)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as handle:
        np.savez_compressed(handle, **arrays)
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    print(f"{out}: {out.stat().st_size} bytes, sha256 {digest}")


if __name__ == "__main__":
    main()
