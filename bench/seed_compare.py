"""Our ranking for the seed questions next to the seed system's (a sanity check, not a target).

.venv/bin/python bench/seed_compare.py [--k 10]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, SEED_CORPUS, model_dir

QUESTIONS = ROOT.parent / "shared" / "eval" / "seed_questions.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--questions", type=Path, default=QUESTIONS)
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()

    from lecturetui.core.library import Library
    from lecturetui.core.paths import DataHome

    ours_ids = {json.loads(x)["corpus_id"] for x in SEED_CORPUS.read_text().splitlines()}
    models = model_dir().parent
    with tempfile.TemporaryDirectory() as tmp:
        home = DataHome(Path(tmp), models)
        lib = Library(home)
        lib.ingest([SEED_CORPUS])
        for line in args.questions.read_text(encoding="utf-8").splitlines():
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
                print(
                    f"| {i + 1} | {ours[i][0]} ({ours[i][1]:.4f}) | {ref[i][0]} ({ref[i][1]:.4f}) |"
                )
            print(
                f"top-{args.k} overlap: {overlap}/{args.k}; {len(ref_in_corpus)} of the seed's top-{args.k}"
                f" are in the 26-segment demo corpus, {overlap} of those in ours"
            )
        lib.close()


if __name__ == "__main__":
    main()
