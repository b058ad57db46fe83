"""Questions written for each segment at ingest time (doc2query), as extra things to match.

    PYTHONPATH=$PWD/src:$PWD/bench python bench/doc2query.py generate --model 1.5b [--threads 2]
    PYTHONPATH=$PWD/src:$PWD/bench python bench/doc2query.py score --model 1.5b --half tune

`generate`: the answer model reads each segment of the realistic library (the default home) and
writes three questions a student could ask that the segment answers, in the segment's language
and in a student's own words; cached in the bench home (`doc2query_<model>.json`, keyed by the
sha256 of the segment's text), so an interrupted run goes on where it stopped.

`score`: the generated questions are embedded as E5 queries (`query: `, symmetric matching with
the student's question) and each segment gets the best cosine between the question and its
generated questions; that signal is mixed into the default ranking (`r2 default` of
bench/ranking_ideas.py) with several weights, on the dense side and, as classic doc2query, as
extra words for BM25.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import ALPHA, ROOT
from _realistic import HOME, QUESTIONS, Corpus, Question, Ranker, library, load_questions, report
from ranking_ideas import Signals, convex, norm_lex, norm_top, order
from variants import Units

from lecturetui.core.lexical import index_terms, match_expression, query_terms

MODELS = {
    "0.5b": "qwen2.5-coder-0.5b-instruct.gguf",
    "1.5b": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
}
SYSTEM = "You write study questions about lecture transcripts."
ASK = (
    "Here is part of a lecture transcript:\n\n{text}\n\n"
    "Write three different questions that a student could ask, each answered by this part of "
    "the lecture. Ask them in your own words, the way a student who half-remembers the lecture "
    "would ask, in the language of the transcript. Reply with exactly three lines, each one "
    "question ending with a question mark: no numbers, no answers, no introduction."
)


def key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def cache_path(model: str) -> Path:
    return HOME / f"doc2query_{model}.json"


def questions_of(reply: str) -> list[str]:
    out = []
    for line in reply.splitlines():
        line = line.strip().lstrip("-*0123456789.) ").strip()
        if len(line) > 8 and line.endswith("?"):
            out.append(line)
    return out[:5]


def load_llm(model: str, threads: int) -> Any:
    """One of the bundled answer models on the CPU (llama.cpp), for a bench's generation step."""
    import llama_cpp

    from lecturetui.core.answer.generation import quiet_stderr

    with quiet_stderr(True):
        return llama_cpp.Llama(
            model_path=str(ROOT / "models" / MODELS[model]),
            n_ctx=2048,
            n_threads=threads,
            n_threads_batch=os.cpu_count() or 1,
            verbose=False,
        )


def chat(llm: Any, system: str, user: str) -> str:
    """The model's greedy reply (at most 100 tokens) to one system and one user message."""
    reply = llm.create_chat_completion(
        messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
        max_tokens=100,
        temperature=0.0,
    )
    return str(reply["choices"][0]["message"]["content"])


def arguments(default_model: str) -> argparse.ArgumentParser:
    """The options shared by the generate-then-score benches (this one and bench/hyde.py)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("step", choices=["generate", "score"])
    parser.add_argument("--model", choices=sorted(MODELS), default=default_model)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--half", choices=["tune", "heldout"], default="tune")
    return parser


def write_replies(
    path: Path,
    prompts: dict[str, tuple[str, str]],
    model: str,
    threads: int,
    unit: str,
    limit: int | None = None,
) -> None:
    """Ask the model (greedy) each prompt (key -> system, user) whose key the cache at `path`
    lacks (the first `limit` of them), saving the cache every 10 replies, so an interrupted run
    goes on where it stopped."""
    done: dict[str, str] = json.loads(path.read_text()) if path.exists() else {}
    todo = [k for k in prompts if k not in done][:limit]
    print(f"{len(todo)} of {len(prompts)} {unit}s to do")
    if not todo:
        return
    llm = load_llm(model, threads)
    t0 = time.perf_counter()
    for n, k in enumerate(todo, 1):
        done[k] = chat(llm, *prompts[k])
        if n % 10 == 0 or n == len(todo):
            path.write_text(json.dumps(done, ensure_ascii=False, indent=0))
            rate = (time.perf_counter() - t0) / n
            print(f"{n}/{len(todo)}  {rate:.1f} s a {unit}", flush=True)


def generate(model: str, threads: int, limit: int | None = None) -> None:
    corpus = Corpus(library())
    prompts = {
        key(seg.text): (SYSTEM, ASK.format(text=" ".join(seg.text.split()[:330])))
        for seg in corpus.segs
    }
    write_replies(cache_path(model), prompts, model, threads, "segment", limit)


class Generated:
    """The generated questions of every segment, embedded as queries (cached)."""

    def __init__(self, corpus: Corpus, model: str) -> None:
        replies: dict[str, str] = json.loads(cache_path(model).read_text())
        texts: list[str] = []
        owner: list[int] = []
        self.by_seg: dict[int, list[str]] = {}
        for k, seg in enumerate(corpus.segs):
            qs = questions_of(replies.get(key(seg.text), ""))
            self.by_seg[k] = qs
            for q in qs:
                texts.append(q)
                owner.append(k)
        vpath = HOME / f"doc2query_{model}_vectors.npy"
        if vpath.exists() and len(np.load(vpath)) == len(texts):
            self.vectors = np.load(vpath)
        else:
            print(f"embedding {len(texts)} generated questions…")
            emb = corpus.lib.embedder
            self.vectors = np.stack([emb.embed_query(t) for t in texts]).astype(np.float32)
            np.save(vpath, self.vectors)
        self.owner = np.asarray(owner)
        self.n = len(corpus.segs)

    def seg_max(self, qv: np.ndarray) -> np.ndarray:
        out = np.full(self.n, -1.0)
        if len(self.owner):
            np.maximum.at(out, self.owner, self.vectors @ qv)
        return out


class ExpandedLex:
    """BM25 over each window's text plus its generated questions (in-memory FTS5)."""

    def __init__(self, corpus: Corpus, gen: Generated) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute(
            "CREATE VIRTUAL TABLE d USING fts5 (terms, tokenize='unicode61 remove_diacritics 2')"
        )
        for k, seg in enumerate(corpus.segs):
            lang = corpus.lectures[seg.lecture_id].language
            text = seg.text + " " + " ".join(gen.by_seg[k])
            self.db.execute(
                "INSERT INTO d (rowid, terms) VALUES (?, ?)", (k, index_terms(text, lang))
            )
        self.n = len(corpus.segs)
        self.languages = sorted({lec.language for lec in corpus.lectures.values()})

    def scores(self, text: str) -> np.ndarray:
        out = np.zeros(self.n)
        terms = query_terms(text, self.languages)
        if terms:
            for rowid, r in self.db.execute(
                "SELECT rowid, bm25(d) FROM d WHERE d MATCH ?", (match_expression(terms),)
            ):
                out[int(rowid)] = -float(r)
        return out


def rankers(corpus: Corpus, model: str) -> dict[str, Ranker]:
    u48 = Units(corpus, 48, 24)
    sig = Signals(corpus, u48.vectors, u48.owner)
    gen = Generated(corpus, model)
    lex = ExpandedLex(corpus, gen)

    def ranked(dense_fn: Any, lex_fn: Any, alpha: float = ALPHA) -> Ranker:
        def rank(q: Question, c: Corpus) -> list[int]:
            d = dense_fn(q)
            return order(convex([(alpha, norm_top(d)), (1 - alpha, norm_lex(lex_fn(q)))]), d)

        return rank

    def s2b(q: Question) -> Any:
        return sig.dense(q)[2]

    def with_gen(w: float) -> Any:
        def dense(q: Question) -> Any:
            win, unit, _ = sig.dense(q)
            g = gen.seg_max(sig.qvec(q))
            return (1 - w) * (0.7 * unit + 0.3 * win) + w * g

        return dense

    out: dict[str, Ranker] = {"default": ranked(s2b, sig.bm25w)}
    for w in (0.1, 0.15, 0.2, 0.25, 0.35, 0.5):
        out[f"d2q dense w {w}"] = ranked(with_gen(w), sig.bm25w)
    out["d2q BM25 expanded"] = ranked(s2b, lambda q: lex.scores(sig.lex_text(q)))
    for w in (0.15, 0.2):
        out[f"d2q dense w {w} + BM25 expanded"] = ranked(
            with_gen(w), lambda q: lex.scores(sig.lex_text(q))
        )
    out["d2q generated questions alone"] = lambda q, c: [
        int(i) for i in np.argsort(-gen.seg_max(sig.qvec(q)))
    ]
    return out


def main() -> None:
    parser = arguments("1.5b")
    parser.add_argument("--limit", type=int, help="generate for this many segments only")
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args()
    if args.step == "generate":
        generate(args.model, args.threads, args.limit)
        return
    corpus = Corpus(library())
    chosen = rankers(corpus, args.model)
    if args.only:
        chosen = {k: v for k, v in chosen.items() if any(o in k for o in args.only)}
    questions = [q for q in load_questions(QUESTIONS) if q.half == args.half]
    report(corpus, questions, chosen, compare="default")
    corpus.save()


if __name__ == "__main__":
    main()
