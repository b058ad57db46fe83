"""How well the judge's context relevance tells answering segments from others.

    .venv/bin/python bench/judge_check.py [--questions 12] [--judge qwen2.5-coder-1.5b] [--home DIR]
        [--quick]

Uses the development set's gold evidence: for each of its first N questions (the first 12 are 8
Portuguese and 4 English), the judge scores the best-ranked gold segment and the two
best-ranked segments that are not gold (hybrid search: hard negatives, on the same subject). It
prints the mean score of each group and how often a gold segment outscores a non-gold one of the
same question (ties count half): 0.5 is chance, 1.0 is perfect. `--quick`: the small model, one
question over two demo lectures, one segment that is not gold (the whole path in seconds: a
check, no figures).
"""

from __future__ import annotations

import argparse
import time

from _common import ROOT, answer_model, demo_library, quick_ids

from lecturetui.core.evaluation.judge import Judge
from lecturetui.core.evaluation.questions import load_questions
from lecturetui.core.evaluation.retrieval_scores import hit_is_gold
from lecturetui.core.models.gguf import FAST_LLM


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--questions", type=int, default=12)
    ap.add_argument("--judge", default=None)
    ap.add_argument("--home")
    ap.add_argument("--quick", action="store_true", help="the small model, one question: a check")
    args = ap.parse_args()
    library, _tmp = demo_library(args.home, quick=args.quick)
    qset = load_questions(ROOT / "bench" / "data" / "retrieval_dev.jsonl")
    questions = qset.questions[: args.questions]
    others_n = 2
    if args.quick:
        questions = [q for q in qset.questions if q.gold.corpus_ids & quick_ids()][:1]
        args.judge, others_n = FAST_LLM, 1
    model = answer_model(args.judge, 4096, home=library.home.root)  # its own process
    judge = Judge(model)
    gold_scores: list[int] = []
    other_scores: list[int] = []
    wins = pairs = 0.0
    t0 = time.perf_counter()
    print("| Q | gold | not gold |")
    print("|---|---:|---|")
    for q in questions:
        hits = library.search(q.question, 10).hits
        gold = [h for h in hits if hit_is_gold(q.gold, h)][:1]
        others = [h for h in hits if not hit_is_gold(q.gold, h)][:others_n]
        if not gold or not others:
            continue
        scores = judge.context_relevance(q.question, [h.segment.text for h in gold + others])
        g, *o = scores.scores
        if g is None or None in o:
            print(f"| {q.number} | judge error | |")
            continue
        gold_scores.append(g)
        other_scores += [s for s in o if s is not None]
        for s in o:
            assert s is not None
            wins += 1.0 if g > s else 0.5 if g == s else 0.0
            pairs += 1
        print(f"| {q.number} | {g} | {' '.join(str(s) for s in o)} |")
    model.close()
    calls = len(gold_scores) + len(other_scores)
    print()
    print(f"judge: {model.name}; {len(gold_scores)} questions, {calls} calls, "
          f"{(time.perf_counter() - t0) / max(calls, 1):.1f} s a call")  # fmt: skip
    print(f"mean score (0-3): gold {sum(gold_scores) / len(gold_scores):.2f}, "
          f"not gold {sum(other_scores) / len(other_scores):.2f}")  # fmt: skip
    print(f"gold above not gold: {wins / pairs:.2f} of {pairs:.0f} pairs (ties count half)")


if __name__ == "__main__":
    main()
