"""Time the answer model's moment check (core/answer/doubt.py): the pair of `yes_probability`
calls that `settle` makes for two close moments, and the model's load.

    python bench/gpu_check.py --model MODEL.gguf [--reps 20] [--require-gpu] [--out result.json]
    python bench/gpu_check.py --quick   # models/'s small answer model, once

On the GPU machine MODEL is the stand-in built by bench/gguf_standin.py (the answer model's
header and shapes, nonsense weights: the same speed); bench/gpu_check.sh runs it there. Prints a
markdown table; --out also writes the figures as JSON. --require-gpu fails unless every layer is
on the GPU. `--quick` (a check of the whole path in seconds on any machine, no figures): the small
answer model from models/, one repetition.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import numpy as np  # noqa: E402

from lecturetui.core.answer.doubt import check_messages  # noqa: E402
from lecturetui.core.answer.quote import Quote  # noqa: E402
from lecturetui.core.llm.process import ProcessGenerator  # noqa: E402
from lecturetui.core.llm.worker import WorkerConfig  # noqa: E402

QUESTION = "What is the difference between = and == in Python?"
# two close moments of the realistic library (py4e lectures, bench/data/realistic): the first
# answers, the second is about assignment alone
TEXTS = (
    (
        "Conditional execution, part 1",
        412.0,
        "So, we have a number of different comparison operators that we can use to ask these "
        '"true-false" questions. Less than, less than or equal to. This double equals is '
        'asking, "Is this equal to?" So that\'s a little tricky, the equals sign is that '
        "assignment operator. If I was building a language today from scratch, I would probably "
        "make assignment be arrow, and the equals question to have an equals. But I'm not "
        "building this language, so that's not up to me. So this is the question, double equals "
        "is asking the question, is equal to. Greater than or equal, greater than, and not equal.",
    ),
    (
        "Variables, expressions and statements, part 1",
        583.0,
        "And the variable, how we control the variable, is through the assignment statement, and "
        "as I said before, it's important to think of the assignment statement as having an "
        "arrow to it. So this is not saying x for all time is the same as 12.2, what it's saying "
        "is take 12.2, find a place, find some memory in your computer there Mr. Python, give it "
        "a label x, we get to choose the x, that's the variable part, and then stick 12.2 in it. "
        "So, think of this as an arrow every time you see that equality, the assignment, in an "
        "assignment statement.",
    ),
)


def quotes() -> list[Quote]:
    return [
        Quote(f"lecture-{i}", title, start, start + 40.0, text, 0.5, None, None, (0, 1, 2))
        for i, (title, start, text) in enumerate(TEXTS)
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--require-gpu", action="store_true")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--quick", action="store_true", help="the small model, once: a check")
    args = ap.parse_args()
    if args.quick:
        import os

        from lecturetui.core.models.gguf import FAST_LLM, resolve_llm

        models = Path(os.environ.get("LECTURETUI_MODELS", ROOT / "models"))
        args.model, args.reps = args.model or resolve_llm(models, FAST_LLM), 1
    if args.model is None:
        ap.error("--model is required")
    import llama_cpp

    t0 = time.perf_counter()
    gen = ProcessGenerator(WorkerConfig(str(args.model), n_ctx=4096))  # as the product runs it
    load_s = time.perf_counter() - t0
    print(f"loaded {args.model.name} in {load_s:.2f} s: gpu {gen.gpu}, {gen.placement}", flush=True)
    on_gpu = gen.gpu and gen.layers_on_gpu == gen.layers > 0
    if args.require_gpu and not on_gpu:
        sys.exit(f"FAILED: the model is not all on the GPU ({gen.placement})")
    prompts = [check_messages(QUESTION, q) for q in quotes()]
    tokens = [gen.count_prompt_tokens(m) for m in prompts]
    probs = [gen.yes_probability(m) for m in prompts]  # the warm-up
    if not all(0.0 <= p <= 1.0 for p in probs):
        sys.exit(f"FAILED: yes_probability gave {probs}")
    calls: list[list[float]] = [[], []]
    for _ in range(args.reps):
        for times, m in zip(calls, prompts, strict=True):
            t = time.perf_counter()
            gen.yes_probability(m)
            times.append((time.perf_counter() - t) * 1000)
    gen.close()
    pair = np.add(*calls)
    result = {
        "model": args.model.name,
        "model_bytes": args.model.stat().st_size,
        "llama_cpp_python": getattr(llama_cpp, "__version__", "?"),
        "gpu_offload": bool(llama_cpp.llama_supports_gpu_offload()),
        "gpu": gen.gpu,
        "placement": gen.placement,
        "load_s": round(load_s, 3),
        "prompt_tokens": tokens,
        "quote_words": [len(q.text.split()) for q in quotes()],
        "yes_probability": [round(p, 4) for p in probs],
        "reps": args.reps,
        "pair_ms_median": round(float(np.median(pair)), 2),
        "pair_ms_p90": round(float(np.percentile(pair, 90)), 2),
        "call_ms_median": [round(float(np.median(c)), 2) for c in calls],
        "pair_ms": [round(float(x), 2) for x in pair],
    }
    rows = [
        ("llama-cpp-python", result["llama_cpp_python"]),
        ("llama_supports_gpu_offload()", result["gpu_offload"]),
        ("placement", f"{result['placement']} (gpu {result['gpu']})"),
        ("load (the model's process, once)", f"{load_s:.2f} s"),
        ("prompt tokens (first, second)", ", ".join(map(str, tokens))),
        (f"check pair, median of {args.reps}", f"{result['pair_ms_median']:.1f} ms"),
        (f"check pair, p90 of {args.reps}", f"{result['pair_ms_p90']:.1f} ms"),
        ("one check, median (first, second)",
         ", ".join(f"{x:.1f} ms" for x in result["call_ms_median"])),
    ]  # fmt: skip
    print("\n| what | figure |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
