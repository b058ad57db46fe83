"""Re-ranking the default's top candidates with the answer model judging each passage (pointwise).

    PYTHONPATH=$PWD/src python bench/llm_rerank.py --half tune --model 0.5b [--top 10]
                                                  [--context unit|neighbours] [--weights ...]

For each question, the default search's top N segments (E5 small-to-big + window BM25, fused
0.6 / 0.4; a Portuguese question searched with its and its translation's vectors summed and BM25
on the translation, exactly as `r2 default` in bench/ranking_ideas.py). Each candidate's best
matching 48-word unit (the `match` the search shows; with `--context neighbours` also the units
either side, capped at ~120 words) goes into a short chat prompt with the question (its cached
English translation for a Portuguese one, as `ask` searches it), asking whether the passage
answers it. The model's score is log P(yes) - log P(no) for the first answer token (both
spellings of each word, logsumexp), read from the logits after one forward pass; the question
comes before the passage, so the 10 candidates of a question share the prompt's start in the
KV cache. Final score of a top-N candidate: w x its normalised model score + (1 - w) x its
fused score (min-max over the top N, or the probability sigmoid(log-odds)); candidates below N
keep the default's order. Every model score is cached in the bench home
(`llm_rerank_scores.json`, keyed by model and prompt), so a re-run is free.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import ALPHA, LEX, ROOT
from _realistic import (
    HOME,
    QUESTIONS,
    Corpus,
    Question,
    Ranker,
    library,
    load_questions,
    report,
)

MODELS = {
    "0.5b": "qwen2.5-coder-0.5b-instruct.gguf",
    "1.5b": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
}
SYSTEM = (
    "You judge search results for a student. Given a question and a passage from a lecture "
    "transcript, answer yes if the passage answers the question or explains what it asks "
    "about, and no otherwise. Reply with one word: yes or no."
)
CACHE = HOME / "llm_rerank_scores.json"


def loadavg() -> list[str]:
    return Path("/proc/loadavg").read_text().split()[:3]


def prompt(question: str, passage: str) -> str:
    return (
        f"<|im_start|>system\n{SYSTEM}<|im_end|>\n"
        f"<|im_start|>user\nQuestion: {question}\n\nPassage: {passage}\n\n"
        "Does the passage answer the question? Reply yes or no.<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


class Judge:
    """One GGUF model on the CPU; scores prompts by the first token's yes / no log-odds."""

    def __init__(self, path: Path, threads: int = 1) -> None:
        import llama_cpp

        from lecturetui.core.answer.generation import quiet_stderr

        with quiet_stderr(True):
            self.llm = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=1024,
                n_threads=threads,
                n_threads_batch=os.cpu_count() or 1,
                n_batch=512,
                n_ubatch=512,
                logits_all=False,
                verbose=False,
            )
        self.n_vocab = self.llm.n_vocab()

        def ids(words: list[str]) -> list[int]:
            out = []
            for w in words:
                t = self.llm.tokenize(w.encode(), add_bos=False, special=False)
                if len(t) == 1:
                    out.append(t[0])
            return sorted(set(out))

        self.yes = ids(["yes", "Yes", "YES"])
        self.no = ids(["no", "No", "NO"])
        self.evaluated = 0  # prompt tokens actually run (the rest came from the KV cache)

    def score(self, text: str) -> float:
        llm = self.llm
        tokens = llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        # reuse the longest common prefix with what the KV cache holds (the question's prompt)
        cached = list(llm.input_ids[: llm.n_tokens])
        n = 0
        for a, b in zip(cached, tokens[:-1], strict=False):
            if a != b:
                break
            n += 1
        llm.n_tokens = n
        llm.eval(tokens[n:])
        self.evaluated += len(tokens) - n
        logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(self.n_vocab,)).astype(
            np.float64
        )
        m = logits.max()
        logz = m + np.log(np.exp(logits - m).sum())
        lp = logits - logz
        yes = np.logaddexp.reduce(lp[self.yes])
        no = np.logaddexp.reduce(lp[self.no])
        return float(yes - no)


class Candidates:
    """The default ranking and each candidate's passage, from the bench's cached signals."""

    def __init__(self, corpus: Corpus) -> None:
        from ranking_ideas import Signals
        from variants import Units, word_units

        self.c = corpus
        u = Units(corpus, 48, 24)
        self.units: list[str] = []
        for seg in corpus.segs:
            self.units.extend(word_units(seg.text, 48, 24))
        assert len(self.units) == len(u.owner)
        self.owner = u.owner
        self.sig = Signals(corpus, u.vectors, u.owner)

    def fused(self, q: Question) -> tuple[list[int], dict[int, float]]:
        from ranking_ideas import convex, norm_lex, norm_top, order

        _, _, s2b = self.sig.dense(q)
        score = convex([(ALPHA, norm_top(s2b)), (LEX, norm_lex(self.sig.bm25w(q)))])
        return order(score, s2b), score

    def question_text(self, q: Question) -> str:
        return self.sig.lex_text(q)  # the translation for a Portuguese question

    def passage(self, q: Question, k: int, context: str) -> str:
        cos = self.sig.unit_cos(self.sig.qvec(q))
        mine = np.flatnonzero(self.owner == k)
        best = int(mine[np.argmax(cos[mine])])
        if context == "unit":
            return self.units[best]
        # the best unit with the units either side of it in the same segment: ~96 words
        # (half-overlapping units), capped at 120
        words = self.c.segs[k].text.split()
        pos = best - int(mine[0])
        start = max(0, (pos - 1) * 24)
        return " ".join(words[start : start + 120])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--half", choices=["tune", "heldout", "both"], default="tune")
    parser.add_argument("--model", choices=sorted(MODELS), default="0.5b")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--context", choices=["unit", "neighbours"], default="unit")
    parser.add_argument("--weights", type=float, nargs="*", default=[0.3, 0.5, 0.7, 1.0])
    parser.add_argument("--norm", choices=["minmax", "sigmoid", "both"], default="both")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--limit", type=int, help="the first N questions only (a smoke test)")
    args = parser.parse_args()
    os.environ.setdefault("LECTURETUI_MODELS", str(ROOT / "models"))
    models = Path(os.environ["LECTURETUI_MODELS"])
    questions = [
        q for q in load_questions(args.questions) if args.half == "both" or q.half == args.half
    ]
    questions = questions[: args.limit] if args.limit else questions
    corpus = Corpus(library())
    cands = Candidates(corpus)
    cache: dict[str, float] = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    judge: Any = None
    per_question: list[float] = []
    tokens_run: list[int] = []
    llm: dict[str, dict[int, float]] = {}
    base: dict[str, tuple[list[int], dict[int, float]]] = {}
    for qi, q in enumerate(questions):
        ranking, fused = cands.fused(q)
        base[q.qid + q.lang] = (ranking, fused)
        qtext = cands.question_text(q)
        scores: dict[int, float] = {}
        t0, fresh = time.perf_counter(), 0
        before = judge.evaluated if judge else 0
        for k in ranking[: args.top]:
            text = prompt(qtext, cands.passage(q, k, args.context))
            key = f"{MODELS[args.model]}\t{hashlib.sha1(text.encode()).hexdigest()}"
            if key not in cache:
                if judge is None:
                    t_load = time.perf_counter()
                    judge = Judge(models / MODELS[args.model], args.threads)
                    print(f"loaded {args.model} in {time.perf_counter() - t_load:.1f} s; "
                          f"yes ids {judge.yes}, no ids {judge.no}", flush=True)  # fmt: skip
                    t0, before = time.perf_counter(), 0
                cache[key] = judge.score(text)
                fresh += 1
            scores[k] = cache[key]
        llm[q.qid + q.lang] = scores
        if fresh == args.top:
            per_question.append(time.perf_counter() - t0)
            tokens_run.append(judge.evaluated - before)
        if fresh:
            CACHE.write_text(json.dumps(cache))
            if qi % 10 == 0:
                print(f"  {qi + 1}/{len(questions)} {per_question[-1] if per_question else 0:.2f}"
                      f" s, load {loadavg()[0]}", flush=True)  # fmt: skip
    if per_question:
        print(f"\n{args.model}, top {args.top}, {args.context}: {len(per_question)} questions "
              f"scored afresh; per question p50 {np.median(per_question) * 1000:.0f} ms, "
              f"p95 {np.percentile(per_question, 95) * 1000:.0f} ms, mean "
              f"{np.mean(per_question) * 1000:.0f} ms; prompt tokens run per question "
              f"{np.mean(tokens_run):.0f} (the rest from the KV cache); "
              f"load average {loadavg()}")  # fmt: skip

    def reranked(q: Question, w: float, norm: str) -> list[int]:
        ranking, fused = base[q.qid + q.lang]
        top = ranking[: args.top]
        raw = np.asarray([llm[q.qid + q.lang][k] for k in top])
        if norm == "minmax":
            lo, hi = raw.min(), raw.max()
            s = (raw - lo) / (hi - lo) if hi > lo else np.ones_like(raw)
        else:
            s = 1.0 / (1.0 + np.exp(-raw))
        final = {k: w * float(s[i]) + (1 - w) * fused.get(k, 0.0) for i, k in enumerate(top)}
        return sorted(top, key=lambda k: (-final[k], top.index(k))) + ranking[args.top :]

    variants: dict[str, Ranker] = {
        "default (s2b + window BM25, 0.6)": lambda q, _: base[q.qid + q.lang][0]
    }
    norms = ["minmax", "sigmoid"] if args.norm == "both" else [args.norm]
    for norm in norms:
        for w in args.weights:
            name = f"{args.model} top {args.top} {args.context}, {norm}, w={w}"
            variants[name] = lambda q, _, w=w, norm=norm: reranked(q, w, norm)
    print(f"\n{len(questions)} questions ({args.half})")
    report(corpus, questions, variants, compare="default")


if __name__ == "__main__":
    main()
