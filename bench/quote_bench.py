"""The lecturer's words first: which sentence the answer opens with, and when to say the lectures
do not cover a question. No answer model writes anything here (it only translates a question
in another language than the lectures', as `ask` does).

    .venv/bin/python bench/quote_bench.py [--half heldout|tune|both] [--out rows.jsonl] [--quick]

Part 1, the quote: for each question of bench/data/answer_keypoints.jsonl (the realistic
library of bench/_realistic.py, whose EmbeddingGemma vectors `bench/rerank.py` writes), the
product's own `retrieve` (core/answer/found.py) runs, and the key-point matcher
(core/evaluation/keypoints.py) scores several texts: the best-ranked window whole, the quote as
the product chooses it, and variants (the best sentence alone, with both neighbours, chosen by
E5 instead of EmbeddingGemma). Also: how long choosing the quote took, cold (no sentence vector
cached) and warm.

Part 2, abstention: the relevance of the best-ranked window (EmbeddingGemma's cosine, the
`rerank` score of the first hit) for every covered question (bench/data/realistic_questions.jsonl
and answer_keypoints.jsonl) and every uncovered one (bench/data/answer_uncovered.jsonl), and
for thresholds around the product's: abstention on uncovered, false abstention on covered; then
the product's own rule, where the answer model reads the two best moments of a question just
under the threshold before it is refused (core/answer/doubt.py; not with --no-translate).

`--quick`: a one-lecture library in a temporary home, two questions of each file, the small
model translating (the whole path in seconds: a check, no figures).
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
#: --quick: two questions of each file (of the quick library's lecture, where they have one)
QUICK = False


def load(name: str) -> list[dict[str, Any]]:
    rows = [json.loads(x) for x in (DATA / name).read_text("utf-8").splitlines() if x.strip()]
    if QUICK:
        from _realistic import quick_rows

        located = [r for r in rows if "lecture" in r or "spans" in r]
        rows = quick_rows(located, 2) if located else rows[:2]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--half", choices=["tune", "heldout", "both"], default="heldout")
    ap.add_argument("--out", type=Path, help="write every question's figures here (JSONL)")
    ap.add_argument("--no-translate", action="store_true", help="search as asked (no model)")
    ap.add_argument("--abstention-only", action="store_true", help="part 2 alone")
    ap.add_argument("--as-asked", action="store_true",
                    help="part 2: no translation (as `ask` does when EmbeddingGemma re-ranks)")  # fmt: skip
    ap.add_argument("--quick", action="store_true",
                    help="one lecture, two questions a file, the small model: a check")  # fmt: skip
    args = ap.parse_args()
    os.environ.setdefault("LECTURETUI_MODELS", str(ROOT / "models"))

    import _realistic
    from _realistic import library as realistic_library

    from lecturetui.core.answer import quote as quoting
    from lecturetui.core.answer import verdict as verdicts
    from lecturetui.core.answer.doubt import checker
    from lecturetui.core.answer.evidence import score_passages
    from lecturetui.core.answer.found import retrieve
    from lecturetui.core.answer.translate import Translator, target_language
    from lecturetui.core.conversation import Turn
    from lecturetui.core.evaluation.keypoints import KeyPoint, score_answer
    from lecturetui.core.retrieval.sentences import SentenceVectors
    from lecturetui.core.retrieval.vector_index import unit_vector

    llm = None
    if args.quick:
        from lecturetui.core.models.gguf import FAST_LLM

        global QUICK
        QUICK, llm, args.half = True, FAST_LLM, "both"
        _realistic.use_quick()
    lib = realistic_library()
    if args.quick:
        lib.sync_rerank()  # EmbeddingGemma's vectors, which bench/rerank.py writes in the bench home
    lib.warm()
    generator = None
    if not args.no_translate:
        generator = answer_model(llm, 4096)  # in its own process, as `ask` runs it
    # a cold cache: the sentence vectors are made as a first question makes them (in memory,
    # so the library's own cache, which the app and answer_points.py fill, is left alone)
    stage = lib.rerank_stage()
    emb = stage.embedder if stage else lib.embedder
    quoting._scorers[lib] = quoting.SentenceScorer(
        "EmbeddingGemma" if stage else "E5", emb, SentenceVectors(None, lambda: emb, "cold"), lib
    )
    e5_vectors = SentenceVectors(None, lambda: lib.embedder, "e5")

    rows = [r for r in load("answer_keypoints.jsonl")
            if r["half"] != "seed" and args.half in ("both", r["half"])]  # fmt: skip
    if args.abstention_only:
        rows = []
    out: list[dict[str, Any]] = []
    print(
        "| qid | lang | window | quote | best alone | best ± 1 | E5 quote | relevance | cold ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        points = [KeyPoint.from_json(p) for p in row["key_points"]]
        question = row["question"]
        target = target_language(lib, lib.asked(question)) if generator else None
        translator = Translator(generator, target) if generator and target else None
        t0 = time.perf_counter()
        found = retrieve(lib, Turn(question, question), 10, translator=translator)
        evidence_ms = (found.evidence_s - found.model_s) * 1000
        # the product: EmbeddingGemma over the best windows' sentences
        sp = found.scored[0] if found.scored else None
        q = found.quote
        cov = {}
        if sp is not None:
            best = max(range(len(sp.sentences)), key=lambda i: sp.scores[i])
            texts = {
                "window": sp.passage.text,
                "quote": q.text if q else "",
                "best": sp.sentences[best].text,
                "best±1": " ".join(s.text for s in sp.sentences[max(0, best - 1) : best + 2]),
                "best+next": " ".join(s.text for s in sp.sentences[best : best + 2]),
                "best+next 2": " ".join(s.text for s in sp.sentences[best : best + 3]),
            }
            for words in (20, 45, 75):  # the product's rule with other lengths (it uses 100)
                other = quoting.choose_quote(sp, words)
                texts[f"quote {words} words"] = other.text if other else ""
            e5 = score_passages([sp.passage], unit_vector(lib.embedder.embed_query(question)),
                                e5_vectors)[0]  # fmt: skip
            e5_quote = quoting.choose_quote(e5)
            texts["e5 quote"] = e5_quote.text if e5_quote else ""
            cov = {name: score_answer(t, points).coverage for name, t in texts.items()}
        relevance = quoting.relevance(found.hits)
        item = {"qid": row["qid"], "lang": row["lang"], "style": row["style"],
                "half": row["half"], "coverage": cov, "relevance": relevance,
                "quote": q.text if q else None, "evidence_ms": evidence_ms,
                "seconds": time.perf_counter() - t0}  # fmt: skip
        out.append(item)
        print(f"| {row['qid']} | {row['lang']} | {cov.get('window', 0):.2f} |"
              f" {cov.get('quote', 0):.2f} | {cov.get('best', 0):.2f} | {cov.get('best±1', 0):.2f} |"
              f" {cov.get('e5 quote', 0):.2f} | {relevance or 0:.3f} | {evidence_ms:.0f} |",
              flush=True)  # fmt: skip
    if out:
        print(f"\n| text | key-point coverage ({len(out)} questions, {args.half}) |")
        print("|---|---|")
        names = ("window", "quote", "quote 20 words", "quote 45 words", "quote 75 words", "best",
                 "best±1", "best+next", "best+next 2", "e5 quote")  # fmt: skip
        for name in names:
            vals = [r["coverage"].get(name, 0.0) for r in out]
            print(f"| {name} | {statistics.mean(vals):.3f} |")
        cold = [r["evidence_ms"] for r in out]
        print(f"\nretrieval + quote, cold cache: median {statistics.median(cold):.0f} ms,"
              f" max {max(cold):.0f} ms")  # fmt: skip
        warm = []
        for row in rows[:10]:
            found = retrieve(lib, Turn(row["question"], row["question"]), 10)
            warm.append((found.evidence_s - found.model_s) * 1000)
        print(
            f"retrieval + quote, warm cache (10 questions again): median {statistics.median(warm):.0f} ms"
        )

    # -- part 2: abstention -------------------------------------------------------------------
    # a Portuguese question is also scored as translated, as `ask` does (the best of the two);
    # its English twin (same id, same meaning) stands in for the model's translation here
    def twins(rows: list[dict[str, Any]]) -> list[tuple[str, str, str | None, str]]:
        en = {r["qid"]: r["question"] for r in rows if r["lang"] == "en"}
        return [(r["question"], r["lang"],
                 en.get(r["qid"]) if r["lang"] != "en" and not args.as_asked else None,
                 r.get("kind", "covered")) for r in rows]  # fmt: skip

    covered = twins(load("realistic_questions.jsonl"))
    covered += twins([r for r in load("answer_keypoints.jsonl") if r["half"] != "seed"])
    uncovered = twins(load("answer_uncovered.jsonl"))

    def top(question: str, translation: str | None) -> float:
        hits = lib.search(question, 10, translation=translation).hits
        return quoting.relevance(hits, stage, translation) or 0.0

    cov_scores = [(top(q, t), lang) for q, lang, t, _ in covered]
    unc_scores = [(top(q, t), lang, kind) for q, lang, t, kind in uncovered]
    print(
        f"\ncovered ({len(cov_scores)}): relevance median"
        f" {statistics.median(s for s, _ in cov_scores):.3f}, min {min(s for s, _ in cov_scores):.3f}"
    )
    print(f"uncovered ({len(unc_scores)}): median {statistics.median(s for s, *_ in unc_scores):.3f},"
          f" max {max(s for s, *_ in unc_scores):.3f}")  # fmt: skip
    print(
        "\n| threshold | abstains, uncovered (far / near) | false abstention, covered (en / pt) |"
    )
    print("|---|---|---|")
    for t in (0.30, 0.32, 0.34, 0.35, 0.36, 0.38, 0.40, 0.42, 0.45):
        unc = sum(s < t for s, *_ in unc_scores) / len(unc_scores)
        far = [s for s, _, k in unc_scores if k == "far"]
        near = [s for s, _, k in unc_scores if k == "near"]
        fa = sum(s < t for s, _ in cov_scores) / len(cov_scores)
        en = [s for s, lang in cov_scores if lang == "en"]
        pt = [s for s, lang in cov_scores if lang == "pt"]
        mark = " (product)" if abs(t - verdicts.COVERAGE_THRESHOLD) < 1e-9 else ""
        u_en = [s for s, lang, _ in unc_scores if lang == "en"]
        u_pt = [s for s, lang, _ in unc_scores if lang == "pt"]
        print(f"| {t:.2f}{mark} | {unc:.2f} ({sum(s < t for s in far)}/{len(far)} far,"
              f" {sum(s < t for s in near)}/{len(near)} near; {sum(s < t for s in u_en)}/{len(u_en)} en,"
              f" {sum(s < t for s in u_pt)}/{len(u_pt)} pt) | {fa:.3f}"
              f" ({sum(s < t for s in en)}/{len(en)} en, {sum(s < t for s in pt)}/{len(pt)} pt) |")  # fmt: skip

    # the product's rule: the threshold by language, raised for a name the lectures never
    # mention; a question just under it is read by the answer model first (without the model,
    # --no-translate: refused), as `ask` does
    def abstains(question: str) -> tuple[bool, bool]:
        found = retrieve(lib, Turn(question, question), 10)
        v = found.verdict
        near = isinstance(v, verdicts.ReadFirst) and v.near
        if near:
            v = verdicts.read(v, question, checker(generator))  # type: ignore[arg-type]
        return isinstance(v, verdicts.Refuse), near and generator is not None

    halves = [r.get("half", "") for r in load("realistic_questions.jsonl")]
    halves += [r["half"] for r in load("answer_keypoints.jsonl") if r["half"] != "seed"]
    unc = [abstains(q) for q, *_ in uncovered]
    cov = [abstains(q) for q, *_ in covered]
    read = sum(r for _, r in unc + cov)
    by_half = {h: f"{sum(a for (a, _), x in zip(cov, halves, strict=True) if x == h)}/"
                  f"{halves.count(h)}" for h in ("tune", "heldout")}  # fmt: skip
    print(f"\nthe product (as asked; {verdicts.COVERAGE_THRESHOLD} / {verdicts.OTHER_LANGUAGE_THRESHOLD}"
          f" by language, {verdicts.UNKNOWN_NAME_THRESHOLD} with a name the lectures never mention;"
          f" {read} questions just under it read by the answer model):"
          f" abstains on {sum(a for a, _ in unc)}/{len(uncovered)} uncovered, falsely on"
          f" {sum(a for a, _ in cov)}/{len(covered)} covered (tune {by_half['tune']},"
          f" held-out {by_half['heldout']})")  # fmt: skip
    if args.out:
        args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out), "utf-8")
        extra = [{"question": q, "relevance": s, "covered": True} for (q, *_), (s, _) in
                 zip(covered, cov_scores, strict=True)]  # fmt: skip
        extra += [{"question": q, "relevance": s, "covered": False, "kind": k}
                  for (q, _, _, k), (s, *_) in zip(uncovered, unc_scores, strict=True)]  # fmt: skip
        with args.out.open("a", encoding="utf-8") as handle:
            handle.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in extra)
    if generator is not None:
        generator.close()


if __name__ == "__main__":
    main()
