"""Retrieval on the realistic benchmark: every ranking idea scored on both halves, by language and style.

    .venv/bin/python bench/realistic.py [--questions bench/data/realistic_questions.jsonl]
                                        [--half tune|heldout|both] [--only NAME ...]

The library, the questions and the scoring are bench/_realistic.py's (the other scripts import
them from there); the ranking ideas are bench/variants.py's and bench/ranking_ideas.py's.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from _realistic import QUESTIONS, Corpus, library, load_questions, report
from variants import rankers as all_rankers


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--half", choices=["tune", "heldout", "both"], default="tune")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--compare", help="paired MRR differences against this variant")
    args = parser.parse_args()
    questions = [
        q for q in load_questions(args.questions) if args.half == "both" or q.half == args.half
    ]
    lib = library()
    corpus = Corpus(lib)
    rankers = all_rankers(corpus)
    if args.only:
        rankers = {k: v for k, v in rankers.items() if any(o in k for o in args.only)}
    print(f"{len(questions)} questions ({args.half}), {len(corpus.segs)} segments, "
          f"{len(corpus.lectures)} lectures")  # fmt: skip
    report(corpus, questions, rankers, args.compare)
    corpus.save()


if __name__ == "__main__":
    main()
