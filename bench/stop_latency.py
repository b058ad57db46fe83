"""How fast a stop ends the answer model's reply: Esc while the model reads a long prompt, and
while it writes, through the product's own client (core/llm/process.py, the model's process).

From the moment the stop is set to the moment the reply's iterator returns, for each moment
of stopping; then how long the next reply takes to start (the process stopped in place, or
killed and started again). `.venv/bin/python bench/stop_latency.py [--runs 5] [--llm NAME]
[--quick]`. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT

LONG = "Resuma a aula: " + "a rede neural ajusta os pesos pelo gradiente da perda. " * 180
SHORT = [{"role": "user", "content": "Em uma frase: o que faz uma GPU?"}]


def one(
    gen: object, messages: list[dict[str, str]], after_s: float, tokens: int
) -> dict[str, float]:
    """Stop `after_s` seconds into a reply; the time the stop took and what came before it."""
    stop = threading.Event()
    pieces = 0
    stopped_at = [0.0]

    def fire() -> None:
        stopped_at[0] = time.perf_counter()
        stop.set()

    timer = threading.Timer(after_s, fire)
    timer.start()
    for _ in gen.stream(messages, tokens, stop):  # type: ignore[attr-defined]
        pieces += 1
    ended = time.perf_counter()
    timer.cancel()
    took = ended - stopped_at[0] if stop.is_set() else float("nan")
    t0 = time.perf_counter()
    next(iter(gen.stream(SHORT, 4)))  # type: ignore[attr-defined]
    return {"stop_s": took, "pieces": pieces, "next_first_s": time.perf_counter() - t0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--llm", default=None, help="a built-in model name (default: the default)")
    parser.add_argument("--quick", action="store_true", help="the small model, one run each")
    args = parser.parse_args()
    os.environ.setdefault("LECTURETUI_MODELS", str(ROOT / "models"))
    from lecturetui.core.llm.process import ProcessGenerator
    from lecturetui.core.llm.worker import WorkerConfig
    from lecturetui.core.models.gguf import BUNDLED, DEFAULT_LLM, FAST_LLM, assemble

    name = FAST_LLM if args.quick else (args.llm or DEFAULT_LLM)
    runs = 1 if args.quick else args.runs
    path = assemble(BUNDLED[name], Path(os.environ["LECTURETUI_MODELS"]))
    with tempfile.TemporaryDirectory() as tmp:
        gen = ProcessGenerator(WorkerConfig(str(path), n_ctx=4096), Path(tmp) / "log")
        reading = [{"role": "user", "content": LONG}]
        prompt = gen.count_prompt_tokens(reading)
        cases = {
            f"reading a {prompt}-token prompt (stop at 0.3 s)": (reading, 0.3, 64),
            "writing (stop at 0.5 s of a short prompt)": (SHORT, 0.5, 400),
        }
        rows = []
        for label, (messages, after, tokens) in cases.items():
            got = [one(gen, messages, after, tokens) for _ in range(runs)]
            rows.append((label, got))
        gen.close()
    print(f"model {path.name}, {os.cpu_count()} CPUs, {runs} run(s) each\n")
    print("| stopped while | stop took (median, max) | pieces before | next reply's first piece |")
    print("|---|---|---|---|")
    for label, got in rows:
        stops = [g["stop_s"] for g in got if g["stop_s"] == g["stop_s"]]  # not NaN
        took = f"{statistics.median(stops):.3f} s, {max(stops):.3f} s" if stops else "ended first"
        print(f"| {label} | {took} | "
              f"{statistics.median(g['pieces'] for g in got):.0f} | "
              f"{statistics.median(g['next_first_s'] for g in got):.2f} s |")  # fmt: skip


if __name__ == "__main__":
    main()
