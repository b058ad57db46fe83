"""The two-stage search on the realistic benchmark: E5 + BM25 candidates, EmbeddingGemma re-scores.

    .venv/bin/python bench/rerank.py [--half tune|heldout|both] [--only NAME ...] [--compare NAME]
        [--translate] [--quick]

Runs the product's own search (`Library.search`, the hnswlib index, BM25, `core/retrieval/rerank.py`) for
every question, so what is measured is what a student gets. The first run ingests the 56
lectures (bench/_realistic.py) and writes EmbeddingGemma's vectors of the windows with the
product's `Library.sync_rerank` into the bench home; question vectors of both models are cached
there, so a sweep of settings is seconds. Also reports the first stage's recall at the re-scored
depth (it bounds everything after it). `--quick`: one lecture's library in a temporary home, one
of its questions in both languages, translated by the small model (the whole path in seconds: a
check, no figures).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import _realistic
import numpy as np
from _common import answer_model
from _realistic import HOME, QUESTIONS, Corpus, Question, Ranker, library, load_questions, report

from lecturetui.core.retrieval.rerank import RerankConfig


class CachedQueries:
    """An embedder whose query vectors are cached on disk (the passages go to the real one)."""

    def __init__(self, inner: Any, name: str) -> None:
        self.inner = inner
        self.path = HOME / f"query_vectors_{name}.json"
        self.cache: dict[str, list[float]] = (
            json.loads(self.path.read_text()) if self.path.exists() else {}
        )

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.inner, attr)

    def embed_query(self, text: str) -> np.ndarray:
        if text not in self.cache:
            self.cache[text] = self.inner.embed_query(text).tolist()
        return np.asarray(self.cache[text], dtype=np.float32)

    def save(self) -> None:
        self.path.write_text(json.dumps(self.cache))


class PromptedQueries(CachedQueries):
    """EmbeddingGemma with another query prompt (the stored document vectors are unchanged)."""

    def __init__(self, inner: Any, prompt: str, name: str) -> None:
        super().__init__(inner, name)
        self.query_prefix = prompt

    def embed_query(self, text: str) -> np.ndarray:
        if text not in self.cache:
            self.cache[text] = self.inner._encode([self.query_prefix + text])[0].tolist()
        return np.asarray(self.cache[text], dtype=np.float32)


#: EmbeddingGemma's other query prompts (its config_sentence_transformers.json)
QUERY_PROMPTS = {"question answering": "task: question answering | query: "}


def prepare() -> tuple[Any, Any, Corpus, list[CachedQueries]]:
    """The bench library with EmbeddingGemma's vectors written, and one without re-ranking."""
    from lecturetui.core.library import Library
    from lecturetui.core.paths import DataHome

    lib = library()
    pending = lib.rerank_pending()
    if lib.rerank_status():
        raise SystemExit(lib.rerank_status() + " Run `lecturetui models setup` first.")
    if pending:
        t0 = time.perf_counter()
        print(f"EmbeddingGemma: embedding {pending} windows…", flush=True)
        lib.sync_rerank(
            lambda d, t: print(f"  {d}/{t} {time.perf_counter() - t0:.0f} s", flush=True)
        )
        print(f"  {pending / (time.perf_counter() - t0):.2f} windows/s")
    stage = lib.rerank_stage()
    gemma = CachedQueries(stage.embedder, "gemma")
    stage._embedder = gemma
    e5 = CachedQueries(lib.embedder, "e5")
    lib._embedder = e5
    plain = Library(DataHome.resolve(HOME), embedder=e5, rerank=False)
    caches = [gemma, e5]
    for name, prompt in QUERY_PROMPTS.items():
        prompted = PromptedQueries(gemma.inner, prompt, "gemma_" + name.replace(" ", "_"))
        PROMPTED[name] = Library(DataHome.resolve(HOME), embedder=e5, reranker=prompted)
        caches.append(prompted)
    return lib, plain, Corpus(lib), caches


PROMPTED: dict[str, Any] = {}


def searcher(lib: Any, mode: str, config: RerankConfig | None = None, k: int = 10) -> Ranker:
    def rank(q: Question, corpus: Corpus) -> list[int]:
        hits = lib.search(q.text, k, mode=mode, rerank_config=config).hits
        return [corpus.pos[h.segment.id] for h in hits]

    return rank


def first_stage_recall(
    corpus: Corpus, questions: list[Question], rank: Ranker, depths: list[int]
) -> None:
    """Share of questions with a gold segment among the first stage's top `depth`."""
    found = dict.fromkeys(depths, 0)
    for q in questions:
        relevant = corpus.relevant(q, rank(q, corpus))
        for d in depths:
            found[d] += any(relevant[:d])
    print(
        "first stage (hybrid, no re-ranking), questions with a gold segment in the top N: "
        + ", ".join(f"N={d}: {found[d] / len(questions):.3f}" for d in depths)
    )


def variants(lib: Any, plain: Any) -> dict[str, Ranker]:
    out: dict[str, Ranker] = {"product before (hybrid, E5 + BM25)": searcher(plain, "hybrid")}
    out["E5 dense (small-to-big), no re-ranking"] = searcher(plain, "dense")
    for depth in (30, 50, 100, 200):
        out[f"hybrid -> Gemma, depth {depth}"] = searcher(lib, "hybrid", RerankConfig(depth, 1.0))
    out["dense -> Gemma, depth 100"] = searcher(lib, "dense", RerankConfig(100, 1.0))
    for weight in (0.9, 0.8, 0.7, 0.6):
        out[f"hybrid -> Gemma {weight} + first stage, depth 100"] = searcher(
            lib, "hybrid", RerankConfig(100, weight)
        )
    for name, prompted in PROMPTED.items():
        out[f"hybrid -> Gemma, query prompt '{name}', depth 100"] = searcher(
            prompted, "hybrid", RerankConfig(100, 1.0)
        )
    for dims in (256, 512):
        out[f"hybrid -> Gemma {dims}-d, depth 100"] = searcher(
            lib, "hybrid", RerankConfig(100, 1.0, dims)
        )
    return out


def translations(questions: list[Question], llm: str | None = None) -> dict[str, str]:
    """The product's translation (core/answer/translate.py, the answer model `llm`, by default the
    1.5B, greedy) of each Portuguese question into English; cached in the bench home."""
    path = HOME / "translations_rerank.json"
    cache: dict[str, str] = json.loads(path.read_text()) if path.exists() else {}
    todo = [q.text for q in questions if q.lang == "pt" and q.text not in cache]
    if todo:
        from lecturetui.core.answer.translate import translate

        generator = answer_model(llm)  # in its own process, as `ask` runs it
        t0 = time.perf_counter()
        for n, text in enumerate(todo, 1):
            cache[text] = translate(generator, text, "en") or ""
            print(f"  translated {n}/{len(todo)} ({time.perf_counter() - t0:.0f} s)", flush=True)
        generator.close()
        path.write_text(json.dumps(cache, ensure_ascii=False))
    return cache


def translated(lib: Any, mode: str, config: RerankConfig | None, cache: dict[str, str]) -> Ranker:
    def rank(q: Question, corpus: Corpus) -> list[int]:
        hits = lib.search(
            q.text, 10, mode=mode, rerank_config=config, translation=cache.get(q.text) or None
        ).hits
        return [corpus.pos[h.segment.id] for h in hits]

    return rank


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", default=str(QUESTIONS))
    parser.add_argument("--half", choices=["tune", "heldout", "both"], default="tune")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--compare", default="product before")
    parser.add_argument("--depths", default="10,30,50,100,200")
    parser.add_argument(
        "--translate", action="store_true", help="also rank Portuguese questions translated first"
    )
    parser.add_argument("--quick", action="store_true",
                        help="one lecture, one question in both languages, the small model"
                        " translating, depths 10 and 30: a check, no figures")  # fmt: skip
    args = parser.parse_args()
    from pathlib import Path

    llm = None
    if args.quick:
        from lecturetui.core.models.gguf import FAST_LLM

        global HOME
        HOME = _realistic.use_quick()
        args.half, args.depths, args.translate, llm = "both", "10,30", True, FAST_LLM
    questions = [
        q
        for q in load_questions(Path(args.questions))
        if args.half == "both" or q.half == args.half
    ]
    if args.quick:
        questions = _realistic.quick_questions(questions)[:2]  # one, in English and Portuguese
    lib, plain, corpus, caches = prepare()
    print(f"{len(questions)} questions ({args.half}), {len(corpus.segs)} segments")
    depths = [int(d) for d in args.depths.split(",")]
    first_stage_recall(corpus, questions, searcher(plain, "hybrid", k=max(depths)), depths)
    rankers = variants(lib, plain)
    if args.translate:
        cache = translations(questions, llm)
        rankers["product before, translated"] = translated(plain, "hybrid", None, cache)
        rankers["hybrid -> Gemma, depth 100, translated"] = translated(
            lib, "hybrid", RerankConfig(100, 1.0), cache
        )
    if args.only:
        rankers = {k: v for k, v in rankers.items() if any(o in k for o in args.only)}
    report(corpus, questions, rankers, args.compare)
    for cache in caches:
        cache.save()


if __name__ == "__main__":
    main()
