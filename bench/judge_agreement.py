"""Is the LLM judge worth its scores? Its answer relevance against key points and hand labels.

    .venv/bin/python bench/judge_agreement.py ANSWERS.jsonl [...] [--labels bench/data/answer_labels.jsonl]
        [--judge MODEL] [--cache judged.jsonl]
    .venv/bin/python bench/judge_agreement.py --quick

ANSWERS: files written by `bench/answer_points.py --answers`. Each answer is judged by the
product's judge (`core/evaluation/judge.py`, answer relevance 0-3, the default judge is the answer
model) and compared with (a) its key-point coverage (`core/evaluation/keypoints.py`) and (b) the
hand labels C/P/I in --labels (one JSON object a line: qid, lang, answer's first 60 characters,
label, and for each key point whether the answer states it: how the matcher was checked).

Prints: the judge's mean score per hand label, how often it ranks a correct answer above an
incorrect one (AUC; 0.5 is chance), its Spearman correlation with key-point coverage, and the
matcher's agreement with the hand-checked key points. `--quick`: one answer made of the key-point
file's reference answers, judged by the small model in a temporary folder (the whole path in
seconds: a check, no figures).
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, answer_model


def key(row: dict[str, Any]) -> str:
    return f"{row['qid']}|{row['lang']}|{' '.join(row['answer'].split())[:60].rstrip()}"


def auc(pos: list[float], neg: list[float]) -> float | None:
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def spearman(a: list[float], b: list[float]) -> float:
    def ranks(x: list[float]) -> np.ndarray:
        order = np.argsort(x, kind="stable")
        r = np.empty(len(x))
        xs = np.asarray(x)[order]
        i = 0
        while i < len(x):
            j = i
            while j + 1 < len(x) and xs[j + 1] == xs[i]:
                j += 1
            r[order[i : j + 1]] = (i + j) / 2
            i = j + 1
        return r

    ra, rb = ranks(a), ranks(b)
    if ra.std() == 0 or rb.std() == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("answers", nargs="*", type=Path)
    ap.add_argument("--labels", type=Path, default=ROOT / "bench" / "data" / "answer_labels.jsonl")
    ap.add_argument("--judge", default=None)
    ap.add_argument("--cache", type=Path, default=Path("judged.jsonl"))
    ap.add_argument("--quick", action="store_true",
                    help="a reference answer, the small model: a check, no figures")  # fmt: skip
    args = ap.parse_args()
    if not args.answers and not args.quick:
        ap.error("the answers files are required")
    os.environ.setdefault("LECTURETUI_MODELS", str(ROOT / "models"))
    from answer_points import POINTS, rescore

    if args.quick:
        from lecturetui.core.models.gguf import FAST_LLM

        folder = Path(tempfile.mkdtemp(prefix="lt-bench-quick-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        points = [json.loads(x) for x in POINTS.read_text("utf-8").splitlines() if x.strip()]
        made = [{"qid": r["qid"], "lang": r["lang"], "question": r["question"],
                 "answer": r["reference"]} for r in points if r["half"] != "seed"][:1]  # fmt: skip
        args.answers = [folder / "answers.jsonl"]
        args.answers[0].write_text("".join(json.dumps(r) + "\n" for r in made), "utf-8")
        args.cache, args.judge = folder / "judged.jsonl", FAST_LLM

    rows = rescore(
        [json.loads(x) for f in args.answers for x in f.read_text("utf-8").splitlines() if x]
    )
    labels = {}
    if args.labels.exists():
        labels = {
            key(r): r for x in args.labels.read_text("utf-8").splitlines() if (r := json.loads(x))
        }
    judged: dict[str, float | None] = {}
    if args.cache.exists():
        judged = {
            k: v
            for x in args.cache.read_text("utf-8").splitlines()
            for k, v in json.loads(x).items()
        }
    todo = [r for r in rows if key(r) not in judged]
    if todo:
        from lecturetui.core.evaluation.judge import Judge

        model = answer_model(args.judge, 4096, seed=0)  # in its own process
        judge = Judge(model)
        with args.cache.open("a", encoding="utf-8") as out:
            for n, r in enumerate(todo, 1):
                value = judge.answer_relevance(r["question"], r["answer"]).value
                judged[key(r)] = value
                out.write(json.dumps({key(r): value}, ensure_ascii=False) + "\n")
                out.flush()
                print(f"judged {n}/{len(todo)}: {value}", flush=True)
        model.close()

    scored = [(r, judged[key(r)]) for r in rows if judged.get(key(r)) is not None]
    print(f"\n{len(scored)} answers judged; judge's answer relevance (0-1):")
    values = [v for _, v in scored if v is not None]
    print(f"  mean {np.mean(values):.2f}, share at 1.00: {np.mean([v == 1.0 for v in values]):.0%}")
    cov = [float(r["coverage"]) for r, _ in scored]
    print(
        f"  Spearman with key-point coverage: {spearman([float(v) for _, v in scored], cov):+.2f}"
    )  # type: ignore[arg-type]
    by_label: dict[str, list[float]] = {}
    for r, v in scored:
        lab = labels.get(key(r))
        if lab and v is not None:
            by_label.setdefault(lab["label"], []).append(v)
    for lab in ("C", "P", "I"):
        vals = by_label.get(lab, [])
        if vals:
            print(f"  hand label {lab}: {len(vals)} answers, judge mean {np.mean(vals):.2f}")
    a = auc(by_label.get("C", []), by_label.get("I", []))
    if a is not None:
        print(f"  AUC, correct above incorrect (0.5 = chance): {a:.2f}")
    cov_by: dict[str, list[float]] = {}
    for r in rows:
        lab = labels.get(key(r))
        if lab:
            cov_by.setdefault(lab["label"], []).append(float(r["coverage"]))
    a2 = auc(cov_by.get("C", []), cov_by.get("I", []))
    for lab in ("C", "P", "I"):
        if cov_by.get(lab):
            print(f"  hand label {lab}: key-point coverage mean {np.mean(cov_by[lab]):.2f}")
    if a2 is not None:
        print(f"  key-point coverage AUC, correct above incorrect: {a2:.2f}")
    matcher(rows, labels)


def matcher(rows: list[dict[str, Any]], labels: dict[str, dict[str, Any]]) -> None:
    """The matcher's decisions against the hand-checked key points."""
    tp = fp = fn = tn = 0
    answers = 0
    for r in rows:
        lab = labels.get(key(r))
        if not lab or "points" not in lab:
            continue
        answers += 1
        for (_, auto), hand in zip(r["points"], lab["points"], strict=True):
            tp += auto and hand
            fp += auto and not hand
            fn += hand and not auto
            tn += not auto and not hand
    if answers:
        total = tp + fp + fn + tn
        print(f"\nmatcher against hand-checked key points: {answers} answers, {total} points")
        print(f"  agreement {(tp + tn) / total:.2f}; precision {tp / max(tp + fp, 1):.2f},"
              f" recall {tp / max(tp + fn, 1):.2f} (stated by hand: {tp + fn})")  # fmt: skip


if __name__ == "__main__":
    main()
