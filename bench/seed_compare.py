"""Our ranking for the seed questions next to the seed system's (a sanity check, not a target).

.venv/bin/python bench/seed_compare.py [--k 10] [--questions FILE] [--quick]

`--quick`: the first question over two demo lectures (the whole path in seconds: a check, no
figures); without the seed questions' file (the shared folder beside the checkout), the
TensorFlow question of bench/data/answer_bench.jsonl with no seed ranking to compare.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, SEED_CORPUS, model_dir, quick_corpus

QUESTIONS = ROOT.parent / "shared" / "eval" / "seed_questions.jsonl"


QUICK_QUESTION = "O TensorFlow prioriza a execução de operações em qual dispositivo?"


def cell(ranking: list[tuple[int, float]], i: int) -> str:
    return f"{ranking[i][0]} ({ranking[i][1]:.4f})" if i < len(ranking) else "-"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--questions", type=Path, default=QUESTIONS)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="one question, two demo lectures")
    args = ap.parse_args()

    from lecturetui.core.library import Library
    from lecturetui.core.paths import DataHome

    ours_ids = {json.loads(x)["corpus_id"] for x in SEED_CORPUS.read_text().splitlines()}
    models = model_dir().parent
    with tempfile.TemporaryDirectory() as tmp:
        home = DataHome(Path(tmp), models)
        lib = Library(home)
        lib.ingest([quick_corpus(Path(tmp)) if args.quick else SEED_CORPUS])
        if args.quick and not args.questions.exists():
            lines = [json.dumps({"number": 43, "reference_ranking": [],
                                 "question": QUICK_QUESTION})]  # fmt: skip
        else:
            lines = args.questions.read_text(encoding="utf-8").splitlines()
        for line in lines[:1] if args.quick else lines:
            q = json.loads(line)
            result = lib.search(q["question"], args.k)
            ours = [(h.segment.corpus_id, h.score) for h in result.hits]
            ref = [(r["corpus_id"], r["score"]) for r in q["reference_ranking"]][: args.k]
            ref_in_corpus = [c for c, _ in ref if c in ours_ids]
            overlap = len({c for c, _ in ours} & {c for c, _ in ref})
            print(f"\n**Q{q['number']}** {q['question']}")
            print("| rank | ours: corpus id (score) | seed system: corpus id (score) |")
            print("|---|---|---|")
            for i in range(5):
                print(f"| {i + 1} | {cell(ours, i)} | {cell(ref, i)} |")
            print(
                f"top-{args.k} overlap: {overlap}/{args.k}; {len(ref_in_corpus)} of the seed's top-{args.k}"
                f" are in the 26-segment demo corpus, {overlap} of those in ours"
            )
        lib.close()


if __name__ == "__main__":
    main()
