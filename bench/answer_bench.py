"""Answer latency and citations: evidence time, time to first token, total time, tokens/s.

    .venv/bin/python bench/answer_bench.py [--llm qwen2.5-coder-1.5b] [--ttft 8] [--cold] [--seed N]
        [--questions bench/data/answer_bench.jsonl] [--answers out.jsonl]
    .venv/bin/python bench/answer_bench.py --summarize answers.jsonl   # a file another run wrote
    .venv/bin/python bench/answer_bench.py --quick   # the whole path in seconds (a check)

Over the demo library in a temporary home, as a new user has it: the model is started as `ask` runs
it (a process of its own) and its prompt speed measured (kept in the models folder), the sentence
vectors are embedded first, as the app does in the background while idle (`--cold` skips that),
then each question is asked as `ask` asks it. A question with `follows` is asked as a follow-up of
that one. Times are from the question (search included); the machine's load is printed before and
after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, answer_model, demo_library, pct

QUESTIONS = ROOT / "bench" / "data" / "answer_bench.jsonl"
#: --quick: a question of the quick demo library
QUICK_QUESTIONS = ("seed-43",)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def summary(rows: list[dict[str, Any]], label: str) -> str:
    def col(key: str, scale: float = 1.0) -> list[float]:
        return [float(r["timings"][key]) / scale for r in rows if key in r["timings"]]

    lines = [f"\n{label}: {len(rows)} answers", "| | median | p90 |", "|---|---|---|"]
    for name, key, scale, unit in (
        ("evidence shown", "evidence_ms", 1000, "s"),
        ("first token", "time_to_first_token_ms", 1000, "s"),
        ("whole answer", "total_ms", 1000, "s"),
        ("tokens/s (writing)", "tokens_per_s", 1, ""),
        ("new prompt tokens", "prompt_new_tokens", 1, ""),
    ):
        values = col(key, scale)
        if values:
            lines.append(
                f"| {name} | {statistics.median(values):.2f}{unit} | {pct(values, 90):.2f}{unit} |"
            )
    sources = [r.get("citation_source", "none") for r in rows]
    lines.append(
        f"\ncitations: model {sources.count('model')}/{len(rows)}, similarity"
        f" {sources.count('similarity')}, none {sources.count('none')}"
    )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--llm", default="qwen2.5-coder-1.5b")
    ap.add_argument("--ttft", type=float, default=8.0)
    ap.add_argument("--ctx", type=int, default=4096)
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--questions", type=Path, default=QUESTIONS)
    ap.add_argument("--answers", type=Path)
    ap.add_argument("--home", help="an existing data home instead of the demo library")
    ap.add_argument("--cold", action="store_true", help="do not embed the sentences first")
    ap.add_argument("--summarize", type=Path, help="only summarise an answers file")
    ap.add_argument("--seed", type=int, help="sample with this seed (runs repeat exactly)")
    ap.add_argument("--quick", action="store_true",
                    help="the small model, two demo lectures, one question, a short answer:"
                    " the whole path in seconds (a check, no figures)")  # fmt: skip
    args = ap.parse_args()
    if args.quick:
        from lecturetui.core.models.gguf import FAST_LLM

        args.llm, args.ctx, args.max_tokens, args.ttft, args.cold = FAST_LLM, 2048, 8, 1.0, True
    if args.summarize:
        rows = [json.loads(x) for x in args.summarize.read_text(encoding="utf-8").splitlines()]
        print(summary([r for r in rows if not r.get("follows")], str(args.summarize)))
        return

    from lecturetui.core.answer.events import EvidenceReady
    from lecturetui.core.answer.found import warm_sentences
    from lecturetui.core.answer.prompt_speed import stored_speed
    from lecturetui.core.answer.result import Answer
    from lecturetui.core.conversation import Exchange, make_turn
    from lecturetui.core.requests.door import answer_request
    from lecturetui.core.requests.kinds import RequestEvent
    from lecturetui.core.requests.words import Question, QuestionSettings

    print(f"load before: {load()}", flush=True)
    library, tmp = demo_library(args.home, quick=args.quick)
    library.warm()
    t0 = time.perf_counter()
    # in its own process, as `ask` runs it; its prompt speed read or measured (and stored) there
    gen = answer_model(args.llm, args.ctx, home=library.home.root, seed=args.seed)
    speed = stored_speed(library.home.speed_file, gen.speed_key)
    print(f"model loaded in {time.perf_counter() - t0:.1f} s; {speed}", flush=True)
    if not args.cold:
        t0 = time.perf_counter()
        n = warm_sentences(library, threading.Event())
        print(f"{n} sentences embedded in {time.perf_counter() - t0:.1f} s", flush=True)
    questions = [json.loads(x) for x in args.questions.read_text(encoding="utf-8").splitlines()]
    if args.quick:
        questions = [q for q in questions if q["number"] in QUICK_QUESTIONS]
    rows: list[dict[str, Any]] = []
    exchanges: dict[str, Exchange] = {}
    print(
        "| question | evidence s | first token s | total s | tok/s | new prompt tokens | cut | cited by |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for q in questions:
        previous = exchanges.get(q.get("follows", ""))
        turn = make_turn(q["question"], previous, force=previous is not None)
        seen: list[float] = []
        t_ask = time.perf_counter()

        def on_event(e: RequestEvent, t_ask: float = t_ask, seen: list[float] = seen) -> None:
            if isinstance(e, EvidenceReady):
                seen.append(time.perf_counter() - t_ask)

        settings = QuestionSettings(answer_tokens=args.max_tokens, ttft_s=args.ttft)
        _, a = answer_request(library, Question(turn), gen, settings, on_event=on_event)
        assert isinstance(a, Answer), "the bench's questions ask about moments"
        data = a.to_json()
        record = a.record()
        entry = library.history.add(record, record.answer)
        exchanges[q["number"]] = Exchange(entry, entry, a.question, a.text, turn.search_text)
        t = a.timings
        rows.append({"number": q["number"], "follows": q.get("follows"), **data})
        print(
            f"| {q['number']} | {seen[0]:.2f} | {t['time_to_first_token_ms'] / 1000:.2f} |"
            f" {t['total_ms'] / 1000:.1f} | {t['tokens_per_s']:.1f} | {int(t['prompt_new_tokens'])} |"
            f" {'yes' if a.trimmed else 'no'} | {a.citation_source} |",
            flush=True,
        )
    gen.close()
    print(f"load after: {load()}")
    print(summary([r for r in rows if not r.get("follows")], "questions"))
    follow = [r for r in rows if r.get("follows")]
    if follow:
        print(summary(follow, "follow-ups"))
    if args.answers:
        args.answers.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    del tmp


if __name__ == "__main__":
    main()
