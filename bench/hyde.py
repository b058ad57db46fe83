"""The answer model's guess at what the lecturer said (HyDE), searched with the question.

    PYTHONPATH=$PWD/src:$PWD/bench python bench/hyde.py generate [--prompt product] [--model 1.5b]
    PYTHONPATH=$PWD/src:$PWD/bench python bench/hyde.py score --half tune [--prompt product]

`generate`: for every question of the realistic benchmark, the answer model (greedy, at most
100 tokens) writes the two or three sentences the lecturer most likely said when explaining it;
cached in the bench home (keyed by the text guessed on), so the figures can be scored again for
free and the prompt is the one recorded here. Prompts (`--prompt`):
- `bench`: the first, kept prompt, which names the benchmark's subject ("an introductory
  programming course"); English questions only (`hyde_<model>.json`);
- `direct`: the product's, for Portuguese questions only, guessed on as asked (no
  translation), in English (`hyde_<model>_direct.json`); `score` compares it with the product's
  way (translate, then guess);
- `product`: the product's own (core/guess.py `guess_messages`), with the library's one course
  named as the product names it, and the language of the text guessed on
  (`hyde_<model>_product.json`);
With `product`, a Portuguese question is guessed on its English translation
(translations.json), as `ask` first did; `direct` is what it does now.

`score`: the default ranking (`r2 default` of bench/ranking_ideas.py) against the same with the
guess: E5 on the question's vector (with its translation's) + w x the guess's vector,
normalised, and BM25 on the text searched and the guess together: core/search.py's way.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from doc2query import arguments, write_replies
from ranking_ideas import Signals, default_order, default_ranker
from realistic import HOME, QUESTIONS, Corpus, Question, Ranker, library, load_questions, report
from variants import Units

from lecturetui.core.guess import clean_guess, guess_messages
from lecturetui.core.prompting import question_language

SYSTEM = "You are the lecturer of an introductory programming course."
ASK = (
    "A student asks: {question}\n\n"
    "Write the two or three sentences you most likely said in your lecture when you explained "
    "this. Reply with those sentences only."
)


def cache_path(model: str, prompt: str = "bench") -> Path:
    return HOME / (f"hyde_{model}.json" if prompt == "bench" else f"hyde_{model}_{prompt}.json")


def translations() -> dict[str, str]:
    path = HOME / "translations.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def guessed_text(q: Question, trans: dict[str, str]) -> str:
    """What `--prompt product` guesses on: a question in another language's translation."""
    return trans.get(q.text, q.text) if q.lang != "en" else q.text


def generate(model: str, threads: int, prompt: str) -> None:
    questions = load_questions(QUESTIONS)
    if prompt == "bench":
        prompts = {
            q.text: (SYSTEM, ASK.format(question=q.text)) for q in questions if q.lang == "en"
        }
    elif prompt == "direct":  # a Portuguese question guessed on as asked, in English
        prompts = {}
        for q in questions:
            if q.lang != "en":
                system, user = guess_messages(q.text, "English", ["Python for Everybody"])
                prompts[q.text] = (system["content"], user["content"])
    else:
        trans = translations()
        courses = ["Python for Everybody"]  # the library's one course, as the product names it
        prompts = {}
        for q in questions:
            text = guessed_text(q, trans)
            system, user = guess_messages(text, question_language(text), courses)
            prompts[text] = (system["content"], user["content"])
    write_replies(cache_path(model, prompt), prompts, model, threads, "question")


def rankers(corpus: Corpus, model: str, prompt: str) -> dict[str, Ranker]:
    u48 = Units(corpus, 48, 24)
    sig = Signals(corpus, u48.vectors, u48.owner)
    guesses: dict[str, str] = json.loads(cache_path(model, prompt).read_text())
    trans = sig.trans if prompt != "bench" else {}

    default = default_ranker(sig)

    def with_guess(w: float, dense: bool = True, lexical: bool = True) -> Ranker:
        """The guess in E5 (question + w x guess) and/or in BM25 (the words of both)."""

        def rank(q: Question, c: Corpus) -> list[int]:
            text = guessed_text(q, trans)
            guess = (
                clean_guess(guesses.get(text, ""))
                if prompt != "bench"
                else guesses.get(text, "").strip()
            )
            if not guess:
                return default(q, c)
            qv = sig.qvec(q) + (w * c.query_vector(guess) if dense else 0.0)
            s2b = sig.dense_of(qv / np.linalg.norm(qv))[2]
            words = f"{text} {guess}" if lexical else text
            both = Question(q.qid, "en", q.style, q.half, words, q.gold)
            return default_order(s2b, sig.bm25w(both))

        return rank

    out: dict[str, Ranker] = {"default": default}
    for w in (0.3, 0.5, 1.0):
        out[f"hyde w {w}"] = with_guess(w)
    # where the gain comes from: the guess in one retriever only
    out["hyde w 1.0, E5 only"] = with_guess(1.0, lexical=False)
    out["hyde, BM25 only"] = with_guess(1.0, dense=False)
    return out


def direct_rankers(corpus: Corpus, model: str) -> dict[str, Ranker]:
    """Portuguese questions: translated then guessed on (the product) against guessed on as
    asked, in English, with or without the translation (no translation saves a model call)."""
    u48 = Units(corpus, 48, 24)
    sig = Signals(corpus, u48.vectors, u48.owner)
    product = rankers(corpus, model, "product")["hyde w 1.0"]
    direct: dict[str, str] = json.loads(cache_path(model, "direct").read_text())
    trans = sig.trans

    def guessed_as_asked(translated: bool) -> Ranker:
        def rank(q: Question, c: Corpus) -> list[int]:
            guess = clean_guess(direct.get(q.text, "")) or ""
            base = sig.qvec(q) if translated else c.query_vector(q.text)
            qv = base + c.query_vector(guess) if guess else base
            s2b = sig.dense_of(qv / np.linalg.norm(qv))[2]
            words = f"{trans.get(q.text, '')} {guess}" if translated else guess
            both = Question(q.qid, "en", q.style, q.half, words or q.text, q.gold)
            return default_order(s2b, sig.bm25w(both))

        return rank

    return {
        "default": default_ranker(sig),
        "translated, then guessed (product)": product,
        "guessed as asked, no translation": guessed_as_asked(False),
        "translated, guessed as asked": guessed_as_asked(True),
    }


def main() -> None:
    parser = arguments("1.5b")
    parser.add_argument("--prompt", choices=["bench", "product", "direct"], default="bench")
    args = parser.parse_args()
    if args.step == "generate":
        generate(args.model, args.threads, args.prompt)
        return
    corpus = Corpus(library())
    questions = [
        q for q in load_questions(QUESTIONS)
        if q.half == args.half and (q.lang == "en" or args.prompt != "bench")
        and (q.lang != "en" or args.prompt != "direct")
    ]  # fmt: skip
    found = (
        direct_rankers(corpus, args.model)
        if args.prompt == "direct"
        else rankers(corpus, args.model, args.prompt)
    )
    report(corpus, questions, found, compare="default")
    corpus.save()


if __name__ == "__main__":
    main()
