"""The quoted moment: is the window the answer quotes from the one that answers the question?
And when the answer says it is not sure (core/answer/doubt.py), is it the wrong one?

    .venv/bin/python bench/moment_bench.py [--half tune|heldout|both] [--out rows.jsonl]
        [--windows 5] [--check] [--read] [--rules] [--quick]

For each question of the realistic benchmark (bench/data/realistic_questions.jsonl, both
languages) and of the answer benchmark (answer_keypoints.jsonl), the product's own `retrieve`
runs as `ask` runs it (EmbeddingGemma re-ranks; no answer model), and the quote it opens with is
checked against the question's gold moments (lecture and time span): R@1 of the quoted moment.
Every question's first `--windows` passages are kept with what could decide between them (the
re-ranker's score of each best window, its sentences' best and second-best EmbeddingGemma
cosines, lecture and time, whether it holds a gold moment), so rules for choosing the moment or
saying it is uncertain can be compared on these rows (`--rules`) without running the models
again. Each row says whether the product marks the answer unsure by the margin alone (as on a
CPU) and, with `--check`, with the answer model looking closer (as on a GPU: it is loaded and
asked whatever the machine); the summary counts wrong moments shown without doubt and right ones
marked unsure, per half, and over the hand-read answers of bench/data/answer_labels.jsonl.
`--quick`: a one-lecture library in a temporary home, two questions of each file, the small
model checking, then the rules (the whole path in seconds: a check, no figures).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, answer_model

DATA = ROOT / "bench" / "data"


def seconds(text: str) -> float:
    h, m, s = (float(x) for x in text.split(":"))
    return h * 3600 + m * 60 + s


def gold_spans(row: dict[str, Any]) -> list[tuple[str, float, float]]:
    spans = row.get("spans") or [{"lecture": row["lecture"], "start": row["start"],
                                  "end": row["end"]}]  # fmt: skip
    return [(s["lecture"], seconds(s["start"]), seconds(s["end"])) for s in spans]


def holds(spans: list[tuple[str, float, float]], lecture: str, start: float, end: float) -> bool:
    return any(lec == lecture and start < e and s < end for lec, s, e in spans)


def questions(half: str, quick: bool = False) -> list[dict[str, Any]]:
    """`quick`: two of each file, of the quick library's lecture (bench/_realistic.py)."""
    rows = []
    for name in ("realistic_questions.jsonl", "answer_keypoints.jsonl"):
        mine = []
        for line in (DATA / name).read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if row.get("half") != "seed" and half in ("both", row["half"]):
                    mine.append({**row, "set": name.split("_")[0]})
        if quick:
            from _realistic import quick_rows

            mine = quick_rows(mine, 2)
        rows += mine
    return rows


def dump(args: argparse.Namespace) -> list[dict[str, Any]]:
    os.environ.setdefault("LECTURETUI_MODELS", str(ROOT / "models"))
    from _realistic import library as realistic_library

    from lecturetui.core.answer.doubt import checker
    from lecturetui.core.answer.evidence import score_passages
    from lecturetui.core.answer.found import retrieve
    from lecturetui.core.answer.quote import best_window, sentence_scorer
    from lecturetui.core.answer.verdict import ReadFirst, Unsure, Verdict, read
    from lecturetui.core.conversation import Turn

    lib = realistic_library()
    lib.sync_rerank()  # EmbeddingGemma's vectors of every window, as `lecturetui ingest` writes
    lib.warm()
    model = None
    if args.check:
        os.environ["LECTURETUI_CHECK_MOMENTS"] = "1"
        model = answer_model(args.llm, 4096)  # in its own process, as `ask` runs it
    out = []
    for row in questions(args.half, args.quick):
        question = row["question"]
        spans = gold_spans(row)
        t0 = time.perf_counter()
        found = retrieve(lib, Turn(question, question), 10)
        quote_ms = (time.perf_counter() - t0) * 1000
        scorer = sentence_scorer(lib)
        query = scorer.query(question)
        windows = []
        for passage in found.passages[: args.windows]:
            window = best_window(passage)
            sp = score_passages([window], query, scorer.vectors)[0]
            ranked = sorted(sp.scores, reverse=True)
            windows.append({
                "lecture": window.lecture_id, "start": window.start, "end": window.end,
                "score": window.score, "best": ranked[0] if ranked else 0.0,
                "second": ranked[1] if len(ranked) > 1 else 0.0, "n": len(ranked),
                "gold": holds(spans, window.lecture_id, window.start, window.end),
                "gold_passage": holds(spans, passage.lecture_id, passage.start, passage.end),
            })  # fmt: skip
        t1 = time.perf_counter()
        first = found.verdict
        close = isinstance(first, ReadFirst) and not first.near

        alone: Verdict = read(first, question, None) if close else first  # type: ignore[arg-type]
        checked: Verdict | None = None
        if model is not None:
            checked = read(first, question, checker(model)) if close else first  # type: ignore[arg-type]
        check_s = time.perf_counter() - t1
        q = found.quote
        item = {
            "qid": row["qid"], "lang": row["lang"], "half": row["half"], "set": row["set"],
            "style": row.get("style", ""), "covered": found.covered, "relevance": found.relevance,
            "quote_gold": bool(q and holds(spans, q.lecture_id, q.start, q.end)),
            "quote_window_gold": windows[0]["gold"] if windows else False,
            "quote_ms": quote_ms, "windows": windows,
            "unsure": isinstance(alone, Unsure), "margin": found.signals.margin if close else None,
            "unsure_checked": isinstance(checked, Unsure) if checked is not None else None,
            "checked": getattr(checked, "checked", None), "check_s": check_s,
        }  # fmt: skip
        out.append(item)
        print(f"{row['qid']} {row['lang']} quote {'ok' if item['quote_gold'] else '--'}"
              f" window {'ok' if item['quote_window_gold'] else '--'}"
              f" gold at {[w['gold'] for w in windows].index(True) + 1 if any(w['gold'] for w in windows) else '-'}",
              flush=True)  # fmt: skip
    return out


def summary(rows: list[dict[str, Any]]) -> None:
    for name, part in (("all", rows), *((h, [r for r in rows if r["half"] == h])
                                          for h in ("tune", "heldout"))):  # fmt: skip
        if not part:
            continue
        r1 = statistics.mean(r["quote_window_gold"] for r in part)
        anywhere = statistics.mean(any(w["gold"] for w in r["windows"]) for r in part)
        print(f"{name} ({len(part)}): R@1 of the quoted window {r1:.3f}; gold in the first"
              f" {len(part[0]['windows'])} windows {anywhere:.3f}")  # fmt: skip


def doubt_summary(rows: list[dict[str, Any]]) -> None:
    """Wrong moments shown without doubt, right ones marked unsure: per half, and over the
    hand-read answers (run "the moment that answers")."""
    keys = ["unsure"] + (["unsure_checked"] if any(r.get("unsure_checked") is not None
                                                   for r in rows) else [])  # fmt: skip
    print("\n| rule | half | right moments marked unsure | wrong moments marked unsure |"
          " wrong and sure |\n|---|---|---|---|---|")  # fmt: skip
    for key in keys:
        for half in ("tune", "heldout"):
            part = [r for r in rows if r["half"] == half and r["covered"] and r["windows"]]
            right = [r for r in part if r["quote_window_gold"]]
            wrong = [r for r in part if not r["quote_window_gold"]]
            if not part:
                continue
            print(f"| {key} | {half} | {sum(bool(r.get(key)) for r in right)}/{len(right)} |"
                  f" {sum(bool(r.get(key)) for r in wrong)}/{len(wrong)} |"
                  f" {sum(not r.get(key) for r in wrong) / len(part):.3f} |")  # fmt: skip
    labels = DATA / "answer_labels.jsonl"
    by_key = {(r["qid"], r["lang"]): r for r in rows}
    read = [json.loads(x) for x in labels.read_text("utf-8").splitlines() if x.strip()]
    read = [r for r in read if r["run"] == "the moment that answers"]
    for key in keys:
        counts: dict[str, list[int]] = {}
        for r in read:
            row = by_key.get((r["qid"], r["lang"]))
            if row is None:
                continue
            abstained = not row["covered"]
            kind = "abstained" if abstained else r["label"]
            seen = counts.setdefault(kind, [0, 0])
            seen[0] += 1
            seen[1] += bool(row.get(key)) and not abstained
        print(f"hand-read ({key}): " + ", ".join(f"{k} {v[1]}/{v[0]} marked unsure"
                                                 for k, v in sorted(counts.items())))  # fmt: skip


def choose(windows: list[dict[str, Any]], margin: float, lead: float, k: int = 3) -> int:
    """The window to quote: the first, unless a window among the first k whose re-ranking
    score is within `margin` of the first's has a sentence at least `lead` closer to the
    question than any of the first's."""
    first = windows[0]
    pick, best = 0, first["best"] + lead
    for j, w in enumerate(windows[1:k], start=1):
        if first["score"] - w["score"] <= margin and w["best"] >= best:
            pick, best = j, w["best"]
    return pick


def unsure(windows: list[dict[str, Any]], pick: int, gap: float, k: int = 3) -> bool:
    """Another window among the first k, of another moment (another lecture, or no overlap in
    time), has a best sentence within `gap` of the chosen window's."""
    chosen = windows[pick]
    for j, w in enumerate(windows[:k]):
        other = (
            w["lecture"] != chosen["lecture"]
            or w["end"] <= chosen["start"]
            or w["start"] >= chosen["end"]
        )
        if j != pick and other and chosen["best"] - w["best"] <= gap:
            return True
    return False


def evaluate(
    rows: list[dict[str, Any]], margin: float, lead: float, gap: float | None
) -> dict[str, float]:
    right = wrong = right_unsure = wrong_unsure = 0
    for r in rows:
        ws = r["windows"]
        if not ws or not r["covered"]:
            continue
        pick = choose(ws, margin, lead)
        ok = ws[pick]["gold"]
        flag = gap is not None and unsure(ws, pick, gap)
        right += ok
        wrong += not ok
        right_unsure += ok and flag
        wrong_unsure += (not ok) and flag
    n = max(right + wrong, 1)
    return {
        "r1": right / n,
        "wrong_sure": (wrong - wrong_unsure) / n,
        "wrong": wrong / n,
        "right_unsure": right_unsure / max(right, 1),
        "wrong_flagged": wrong_unsure / max(wrong, 1),
    }


def rules(rows: list[dict[str, Any]]) -> None:
    tune = [r for r in rows if r["half"] == "tune"]
    held = [r for r in rows if r["half"] == "heldout"]
    base_t, base_h = evaluate(tune, 0.0, 9.0, None), evaluate(held, 0.0, 9.0, None)
    print(f"\ntoday: R@1 of the quoted window tune {base_t['r1']:.3f}, held-out {base_h['r1']:.3f}")
    print("\n| margin | lead | tune R@1 | held-out R@1 |\n|---|---|---|---|")
    for margin in (0.01, 0.02, 0.03, 0.05, 0.08):
        for lead in (0.0, 0.02, 0.04, 0.06):
            t, h = evaluate(tune, margin, lead, None), evaluate(held, margin, lead, None)
            print(f"| {margin} | {lead} | {t['r1']:.3f} | {h['r1']:.3f} |")
    print(
        "\n| gap | half | wrong flagged | right flagged | wrong and sure |\n|---|---|---|---|---|"
    )
    for gap in (0.01, 0.02, 0.03, 0.05):
        for name, part in (("tune", tune), ("held-out", held)):
            e = evaluate(part, 0.0, 9.0, gap)
            print(
                f"| {gap} | {name} | {e['wrong_flagged']:.2f} | {e['right_unsure']:.2f} |"
                f" {e['wrong_sure']:.3f} |"
            )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--half", choices=["tune", "heldout", "both"], default="both")
    ap.add_argument("--out", type=Path, default=DATA / "realistic" / "moments.jsonl")
    ap.add_argument("--windows", type=int, default=5)
    ap.add_argument(
        "--check",
        action="store_true",
        help="also with the answer model checking close moments (as on a GPU)",
    )
    ap.add_argument("--read", action="store_true", help="summarise --out without running")
    ap.add_argument("--rules", action="store_true", help="compare choice and doubt rules on --out")
    ap.add_argument("--quick", action="store_true",
                    help="one lecture, two questions a file, the small model checking, the rules:"
                    " a check, no figures")  # fmt: skip
    args = ap.parse_args()
    args.llm = None  # the answer model that checks: the default
    if args.quick:
        import _realistic

        from lecturetui.core.models.gguf import FAST_LLM

        home = _realistic.use_quick()
        args.half, args.out, args.check, args.rules = (
            "both",
            home.parent / "moments.jsonl",
            True,
            True,
        )
        args.llm, args.read = FAST_LLM, False
    if args.read:
        rows = [json.loads(x) for x in args.out.read_text("utf-8").splitlines()]
    else:
        rows = dump(args)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    summary(rows)
    if any("unsure" in r for r in rows):
        doubt_summary(rows)
    if args.rules:
        rules(rows)


if __name__ == "__main__":
    main()
