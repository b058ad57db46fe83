"""Answer model figures: load time, time to first token and tokens/s with the seed top-10 context.

    .venv/bin/python bench/llm_bench.py [--models qwen2.5-coder-0.5b qwen2.5-coder-1.5b] [--k 10]
        [--gpu-layers N] [--answers answers.jsonl] [--quick]

Retrieval uses the real E5 model over the seed corpus; the prompt holds the merged top-k passages
that fit a 4096-token context. `--answers` also writes each answer (for comparing with the seeds).
`--quick`: the small model, one question over two demo lectures, a short answer (the whole path
in seconds: a check, no figures).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, SEED_CORPUS, model_dir, quick_corpus

QUESTIONS = ROOT.parent / "shared" / "eval" / "seed_questions.jsonl"
#: --quick: the TensorFlow question (a seed question; bench/data has it without the shared folder)
QUICK_QUESTIONS = ROOT / "bench" / "data" / "answer_bench.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="+", default=["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"])
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--ctx", type=int, default=4096)
    ap.add_argument("--max-tokens", type=int, default=256)
    ap.add_argument("--gpu-layers", type=int, default=None)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--answers", type=Path)
    ap.add_argument("--questions", type=Path, default=QUESTIONS)
    ap.add_argument("--quick", action="store_true", help="the small model, one question: a check")
    args = ap.parse_args()
    settings = {}
    if args.quick:
        from lecturetui.core.models.gguf import FAST_LLM

        args.models, args.questions, args.k, args.ctx, args.max_tokens = (
            [FAST_LLM], QUICK_QUESTIONS, 1, 2048, 8)  # fmt: skip
        settings["ttft_s"] = 1.0

    from lecturetui.core.answer.question import QuestionSettings, ask
    from lecturetui.core.library import Library
    from lecturetui.core.llm.generation import LlamaGenerator
    from lecturetui.core.models.gguf import resolve_llm
    from lecturetui.core.paths import DataHome

    questions = [json.loads(x) for x in args.questions.read_text(encoding="utf-8").splitlines()]
    if args.quick:
        questions = [q for q in questions if q["number"] == "seed-43"]
    models = model_dir().parent
    rows, answers = [], []
    with tempfile.TemporaryDirectory() as tmp:
        library = Library(DataHome(Path(tmp), models))
        library.ingest([quick_corpus(Path(tmp)) if args.quick else SEED_CORPUS])
        library.warm()
        for name in args.models:
            path = resolve_llm(models, name)
            t0 = time.perf_counter()
            gen = LlamaGenerator(
                path, n_ctx=args.ctx, gpu_layers=args.gpu_layers, n_threads=args.threads
            )
            load_s = time.perf_counter() - t0
            for q in questions:
                a = ask(
                    library,
                    gen,
                    q["question"],
                    QuestionSettings(k=args.k, answer_tokens=args.max_tokens, **settings),
                )
                t = a.timings
                rows.append(
                    f"| {name} | {'GPU' if gen.gpu else 'CPU'} | {load_s:.1f} | Q{q['number']} | {int(t['prompt_tokens'])}"
                    f" | {t['time_to_first_token_ms'] / 1000:.2f} | {t['tokens_per_s']:.1f} |"
                )
                answers.append({"model": name, "number": q["number"], **a.to_json()})
                print(rows[-1], flush=True)
            gen.close()
    print("\n| model | device | load s | question | prompt tokens | first token s | tokens/s |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    if args.answers:
        args.answers.write_text(
            "\n".join(json.dumps(a, ensure_ascii=False) for a in answers) + "\n"
        )


if __name__ == "__main__":
    main()
