"""The answer model's guess at what the lecturer said (HyDE), searched with the question.

    PYTHONPATH=$PWD/src:$PWD/bench python bench/hyde.py generate [--model 1.5b]
    PYTHONPATH=$PWD/src:$PWD/bench python bench/hyde.py score --half tune

`generate`: for every English question of the realistic benchmark (the library's language), the
answer model (greedy) writes the two or three sentences the lecturer most likely said when
explaining it; cached in the bench home (`hyde_<model>.json`, keyed by the question), so the
figures can be scored again for free and the prompt is the one recorded here.

`score`: the default ranking (`r2 default` of bench/ranking_ideas.py) against the same with the
guess: E5 on the question's vector + w x the guess's vector (normalised), BM25 on the question
and the guess together. English questions only (a Portuguese question is translated first, and
its guess was not measured).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from doc2query import arguments, write_replies
from ranking_ideas import Signals, default_order, default_ranker
from realistic import HOME, QUESTIONS, Corpus, Question, Ranker, library, load_questions, report
from variants import Units

SYSTEM = "You are the lecturer of an introductory programming course."
ASK = (
    "A student asks: {question}\n\n"
    "Write the two or three sentences you most likely said in your lecture when you explained "
    "this. Reply with those sentences only."
)


def cache_path(model: str) -> Path:
    return HOME / f"hyde_{model}.json"


def generate(model: str, threads: int) -> None:
    questions = [q.text for q in load_questions(QUESTIONS) if q.lang == "en"]
    prompts = {text: (SYSTEM, ASK.format(question=text)) for text in questions}
    write_replies(cache_path(model), prompts, model, threads, "question")


def rankers(corpus: Corpus, model: str) -> dict[str, Ranker]:
    u48 = Units(corpus, 48, 24)
    sig = Signals(corpus, u48.vectors, u48.owner)
    guesses: dict[str, str] = json.loads(cache_path(model).read_text())

    default = default_ranker(sig)

    def with_guess(w: float) -> Ranker:
        def rank(q: Question, c: Corpus) -> list[int]:
            guess = guesses.get(q.text, "").strip()
            if not guess:
                return default(q, c)
            qv = c.query_vector(q.text) + w * c.query_vector(guess)
            s2b = sig.dense_of(qv / np.linalg.norm(qv))[2]
            both = Question(q.qid, q.lang, q.style, q.half, f"{q.text} {guess}", q.gold)
            return default_order(s2b, sig.bm25w(both))

        return rank

    out: dict[str, Ranker] = {"default": default}
    for w in (0.3, 0.5, 1.0):
        out[f"hyde w {w}"] = with_guess(w)
    return out


def main() -> None:
    args = arguments("1.5b").parse_args()
    if args.step == "generate":
        generate(args.model, args.threads)
        return
    corpus = Corpus(library())
    questions = [q for q in load_questions(QUESTIONS) if q.half == args.half and q.lang == "en"]
    report(corpus, questions, rankers(corpus, args.model), compare="default")
    corpus.save()


if __name__ == "__main__":
    main()
