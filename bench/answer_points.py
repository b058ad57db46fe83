"""Answers by their key points: coverage, citation precision, who cited, first token, repetition.

    .venv/bin/python bench/answer_points.py [--half heldout|tune|both] [--ttft 8] [--seed-only]
        [--uncovered] [--room TOKENS] [--answers out.jsonl] [--label NAME] [--quick]

The questions of bench/data/answer_keypoints.jsonl are asked the way `lecturetui eval` asks them
(`core/evaluation/runner.evaluate_question`, no judge) with the default settings and the model run
as `ask` runs it (a process of its own; greedy: the same answers every run), the sentence vectors
embedded first as the app does while idle: the realistic library's questions over the bench home of
bench/_realistic.py (the lectures must be ingested and their EmbeddingGemma vectors written:
`bench/rerank.py` does both), the three seed questions over the demo library. Each answer is scored
by `core/evaluation/keypoints.py`: the answer as the student reads it, the quote it opens with
alone, the model's explanation alone. `--uncovered` also asks the questions the lectures do not
cover (bench/data/answer_uncovered.jsonl) and counts how often the product says so. The answer
model's prompt speed is measured in the bench home, as a student's first run does. `--quick`: one
question of a one-lecture library in a temporary home and one uncovered question, the small model,
short answers (the whole path in seconds: a check, no figures).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, answer_model, demo_library

POINTS = ROOT / "bench" / "data" / "answer_keypoints.jsonl"
UNCOVERED = ROOT / "bench" / "data" / "answer_uncovered.jsonl"


def repeated(text: str) -> bool:
    """A sentence said twice, by the product's own stop rule (core/answer/repetition.py): an answer
    written before that rule existed can still hold one."""
    from lecturetui.core.answer.repetition import RepeatGuard

    return RepeatGuard().feed(text + " ")


def subset(rows: list[dict[str, Any]], folder: Path, name: str) -> Path:
    path = folder / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def rescore(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The answers' key points and coverage again, by the matcher as it is now (citation
    precision, which needs the prompt's excerpts, stays as measured)."""
    from lecturetui.core.evaluation.keypoints import KeyPoint, score_answer

    spec = {}
    for line in POINTS.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            spec[(row["qid"], row["lang"])] = [KeyPoint.from_json(p) for p in row["key_points"]]
    out = []
    for r in rows:
        if (r["qid"], r["lang"]) not in spec:  # an uncovered question: no key points
            out.append(r)
            continue
        score = score_answer(r["answer"], spec[(r["qid"], r["lang"])])
        points = [[f.point, f.stated] for f in score.points]
        out.append({**r, "coverage": score.coverage, "points": points})
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--summarize", nargs="*", type=Path, help="only summarise answers files")
    ap.add_argument("--half", choices=["tune", "heldout", "both"], default="heldout")
    ap.add_argument("--ttft", type=float, default=None, help="default: the product's")
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--seed-only", action="store_true", help="only the three seed questions")
    ap.add_argument("--no-seed", action="store_true", help="leave the seed questions out")
    ap.add_argument("--answers", type=Path, help="write every answer and its score here")
    ap.add_argument("--label", default="")
    ap.add_argument(
        "--room", type=int, help="the sentence prompt's tokens (default: the product's)"
    )
    ap.add_argument("--uncovered", action="store_true",
                    help="also ask bench/data/answer_uncovered.jsonl: how often it abstains")  # fmt: skip
    ap.add_argument("--quick", action="store_true",
                    help="one lecture, one question and one uncovered, the small model, short"
                    " answers, no seed questions: a check in seconds, no figures")  # fmt: skip
    args = ap.parse_args()
    os.environ.setdefault("LECTURETUI_MODELS", str(ROOT / "models"))
    if args.summarize:
        for path in args.summarize:
            rows = [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]
            summarize(rescore(rows), args.label or path.stem)
        return

    import _realistic
    from _realistic import library as realistic_library

    from lecturetui.core.answer.found import warm_sentences
    from lecturetui.core.answer.prompt_speed import stored_speed
    from lecturetui.core.evaluation.evaluate import NO_JUDGE, EvalSettings, evaluate_question
    from lecturetui.core.evaluation.questions import load_questions
    from lecturetui.core.models.gguf import FAST_LLM
    from lecturetui.core.question_options import DEFAULT_TTFT_S

    llm = None
    if args.quick:
        _realistic.use_quick()
        args.no_seed, args.uncovered, llm = True, True, FAST_LLM
        args.max_tokens = 16
        args.ttft = 1.0 if args.ttft is None else args.ttft

    if args.room:
        import lecturetui.core.answer.budget as budget

        budget.SENTENCE_ROOM = args.room
    rows = [json.loads(x) for x in POINTS.read_text(encoding="utf-8").splitlines() if x.strip()]
    seed = [r for r in rows if r["half"] == "seed"]
    mine = [r for r in rows if r["half"] != "seed" and args.half in ("both", r["half"])]
    if args.seed_only:
        mine = []
    if args.no_seed:
        seed = []
    if args.quick:
        mine = _realistic.quick_rows([r for r in rows if r["half"] != "seed"], 1)
    tmp = tempfile.TemporaryDirectory()
    folder = Path(tmp.name)
    bench = realistic_library()
    # as `ask` runs it (its own process, greedy: the product's default); its prompt speed read
    # or measured with the bench home's models folder
    generator = answer_model(llm, 4096, home=bench.home.root)
    speed = stored_speed(bench.home.speed_file, generator.speed_key)
    print(f"prompt speed: {speed}", flush=True)
    ttft = DEFAULT_TTFT_S if args.ttft is None else args.ttft
    settings = EvalSettings(llm="default", judge=NO_JUDGE, ttft_s=ttft,
                            answer_tokens=args.max_tokens)  # fmt: skip
    jobs: list[tuple[Any, Path, list[dict[str, Any]]]] = []
    if mine:
        jobs.append((bench, subset(mine, folder, "realistic"), mine))
    demo = None
    if seed:
        demo, _keep = demo_library(None)
        jobs.append((demo, subset(seed, folder, "seed"), seed))
    out: list[dict[str, Any]] = []
    print("| qid | lang | style | points | cit. prec. | cited by | 1st token s | words | loop |")
    print("|---|---|---|---|---|---|---|---|---|")
    for lib, path, raw in jobs:
        lib.warm()
        warm_sentences(lib, threading.Event())  # as the app does in the background when idle
        for q, row in zip(load_questions(path).questions, raw, strict=True):
            t0 = time.perf_counter()
            p = evaluate_question(lib, generator, None, q, settings)
            kp = p.key_points
            assert kp is not None
            loop = repeated(p.answer) or (generator.count_tokens(p.answer) >= args.max_tokens - 2)
            item = {
                "qid": row["qid"], "lang": row["lang"], "style": row["style"],
                "half": row["half"], "question": q.question, "answer": p.answer,
                "coverage": kp.coverage, "points": [[f.point, f.stated] for f in kp.points],
                "citation_precision": kp.citation_precision, "citations": kp.citations,
                "cited_by": p.citation_source, "words": kp.words, "loop": loop,
                "ttft_s": p.timings["time_to_first_token_ms"] / 1000,
                "prompt_new_tokens": p.timings.get("prompt_new_tokens"),
                "prompt_passages": len(p.passages), "trimmed": p.trimmed,
                "excerpts": [[x.number, x.lecture, x.start_s, x.end_s, x.text]
                             for x in p.passages],
                "quote": p.quote.text if p.quote else None, "explanation": p.explanation,
                "quote_coverage": points_of(p.quote.text if p.quote else "", row),
                "model_coverage": points_of(p.explanation, row),
                "abstained": p.abstained, "unsupported": [u.sentence for u in p.unsupported],
                "seconds": time.perf_counter() - t0,
            }  # fmt: skip
            out.append(item)
            prec = "—" if kp.citation_precision is None else f"{kp.citation_precision:.2f}"
            print(f"| {row['qid']} | {row['lang']} | {row['style']} | {kp.stated}/{len(kp.points)}"
                  f" | {prec} | {p.citation_source} | {item['ttft_s']:.1f} | {kp.words} |"
                  f" {'yes' if loop else ''} |", flush=True)  # fmt: skip
    if args.uncovered:
        from lecturetui.core.answer.result import Answer
        from lecturetui.core.conversation import Turn
        from lecturetui.core.requests.door import answer_request
        from lecturetui.core.requests.words import Question, QuestionSettings

        uncovered = [json.loads(x) for x in UNCOVERED.read_text("utf-8").splitlines() if x.strip()]
        for row in uncovered[:1] if args.quick else uncovered:
            words = row["question"].strip()
            asked = Question(Turn(words, words))
            settings = QuestionSettings(ttft_s=ttft, answer_tokens=args.max_tokens)
            _, answer = answer_request(bench, asked, generator, settings)
            assert isinstance(answer, Answer), "an uncovered question is no summary's request"
            out.append({"qid": row["qid"], "lang": row["lang"], "kind": row["kind"],
                        "half": "uncovered", "question": row["question"], "answer": answer.text,
                        "abstained": answer.abstained, "explanation": answer.explanation,
                        "unsupported": [u.sentence for u in answer.unsupported],
                        "excerpts": [[x.number, x.lecture_id, x.start, x.end, x.text]
                                     for x in answer.passages]})  # fmt: skip
            print(f"| {row['qid']} | {row['lang']} | {row['kind']} | abstained: {answer.abstained} |",
                  flush=True)  # fmt: skip
    generator.close()
    summarize(out, args.label or f"ttft {ttft:g} s")
    if args.quick:  # and re-scored, as --summarize does
        args.answers = args.answers or folder / "answers.jsonl"
    if args.answers:
        args.answers.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out), "utf-8"
        )
    if args.quick:
        rows = [json.loads(x) for x in args.answers.read_text("utf-8").splitlines() if x.strip()]
        summarize(rescore(rows), "re-scored")
    del tmp, demo


def points_of(text: str, row: dict[str, Any]) -> float:
    """The key-point coverage of a text (the quote alone, the explanation alone)."""
    from lecturetui.core.evaluation.keypoints import KeyPoint, score_answer

    return score_answer(text, [KeyPoint.from_json(p) for p in row["key_points"]]).coverage


def summarize(out: list[dict[str, Any]], label: str) -> None:
    def mean(rows: list[dict[str, Any]], key: str) -> str:
        vals = [r[key] for r in rows if r.get(key) is not None]
        return f"{statistics.mean(vals):.2f}" if vals else "—"

    def block(rows: list[dict[str, Any]], name: str) -> str:
        if not rows:
            return ""
        precision = [r["citation_precision"] for r in rows if r["citation_precision"] is not None]
        cov = statistics.mean(r["coverage"] for r in rows)
        prec = f"{statistics.mean(precision):.2f}" if precision else "—"
        answered = [r for r in rows if not r.get("abstained")]
        firsts = sorted(r["ttft_s"] for r in answered) or [0.0]
        p90 = firsts[min(len(firsts) - 1, int(0.9 * len(firsts)))]
        abstained = sum(bool(r.get("abstained")) for r in rows)
        unsupported = sum(bool(r.get("unsupported")) for r in rows)
        words = statistics.median(r["words"] for r in rows)
        return (f"| {label} | {name} ({len(rows)}) | {cov:.2f} | {mean(rows, 'quote_coverage')} |"
                f" {mean(rows, 'model_coverage')} | {prec} | {abstained} | {unsupported} |"
                f" {statistics.median(firsts):.1f} s | {p90:.1f} s | {words:.0f} |")  # fmt: skip

    print("\n| run | questions | key points: answer | quote alone | model alone | citation precision |"
          " abstained | with unsupported | first token median | p90 | median words |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    uncovered = [r for r in out if r["half"] == "uncovered"]
    out = [r for r in out if r["half"] != "uncovered"]
    realistic = [r for r in out if r["half"] != "seed"]
    for name, rows in (
        ("all", realistic),
        ("en", [r for r in realistic if r["lang"] == "en"]),
        ("pt", [r for r in realistic if r["lang"] == "pt"]),
        ("own words", [r for r in realistic if r["style"] == "paraphrase"]),
        ("seed", [r for r in out if r["half"] == "seed"]),
    ):
        line = block(rows, name)
        if line:
            print(line)
    if uncovered:
        far = [r for r in uncovered if r["kind"] == "far"]
        near = [r for r in uncovered if r["kind"] == "near"]
        rate = sum(r["abstained"] for r in uncovered) / len(uncovered)
        print(f"\nuncovered questions: abstained on {rate:.2f} ({sum(r['abstained'] for r in far)}/"
              f"{len(far)} far, {sum(r['abstained'] for r in near)}/{len(near)} near)")  # fmt: skip


if __name__ == "__main__":
    main()
