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
- `product`: the product's own (core/answer/guess.py `guess_messages`), with the library's one course
  named as the product names it, and the language of the text guessed on
  (`hyde_<model>_product.json`);
With `product`, a Portuguese question is guessed on its English translation
(translations.json), as `ask` first did; `direct` is what it does now. The other prompts
(`GENERATORS`, `SCORERS`: cut, forms, titles, samples, fusion, terms) score variants of the
product's guess against it, each described by its function (bench/RESULTS.md, fifth round).

`score`: the default ranking (`r2 default` of bench/ranking_ideas.py) against the same with the
guess: E5 on the question's vector (with its translation's) + w x the guess's vector,
normalised, and BM25 on the text searched and the guess together: core/retrieval/search.py's way.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from _common import ALPHA, ROOT, UNIT_SHARE
from _realistic import HOME, QUESTIONS, Corpus, Question, Ranker, library, load_questions, report
from doc2query import MODELS, arguments, write_replies
from ranking_ideas import Signals, default_order, default_ranker
from variants import Units

from lecturetui.core.answer.guess import clean_guess, guess_messages
from lecturetui.core.language import question_language

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


def signals(corpus: Corpus) -> Signals:
    """The default ranking's signals (E5 small-to-big over 48/24-word units, BM25, the cached
    translations)."""
    u48 = Units(corpus, 48, 24)
    return Signals(corpus, u48.vectors, u48.owner)


def product_replies(model: str) -> Callable[[Question], str]:
    """The product's guess as the model replied it: an English question guessed on as asked
    (`product` cache), a Portuguese one as asked, in English (`direct` cache)."""
    product: dict[str, str] = json.loads(cache_path(model, "product").read_text())
    direct: dict[str, str] = json.loads(cache_path(model, "direct").read_text())

    def reply_of(q: Question) -> str:
        return product.get(q.text, "") if q.lang == "en" else direct.get(q.text, "")

    return reply_of


def bm25_with(sig: Signals, q: Question, extra: str) -> np.ndarray:
    """BM25 on the text the product searches (a Portuguese question's translation) + `extra`."""
    text = q.text if q.lang == "en" else sig.trans.get(q.text, q.text)
    return sig.bm25w(Question(q.qid, "en", q.style, q.half, f"{text} {extra}", q.gold))


def rank_with_guess(sig: Signals, q: Question, guess: str, w: float = 1.0) -> list[int]:
    """The default fusion searched as core/retrieval/search.py searches with a guess: E5 on the question's
    vector (with its translation's) + w x the guess's, BM25 on the searched text and the guess."""
    qv = sig.qvec(q) + (w * sig.c.query_vector(guess) if guess else 0.0)
    return default_order(sig.dense_of(qv / np.linalg.norm(qv))[2], bm25_with(sig, q, guess))


def guess_ranker(sig: Signals, reply_of: Callable[[Question], str], w: float = 1.0) -> Ranker:
    """Each question searched with its guess (`reply_of`: the model's reply, cleaned as the
    product cleans it); the product's own with `product_replies` and w 1.0."""
    return lambda q, c: rank_with_guess(sig, q, clean_guess(reply_of(q)) or "", w)


def in_this_run(q: Question) -> bool:
    """The new prompts are generated for the tune half; the held-out half only once the tune
    half has chosen (HYDE_HELDOUT=1)."""
    return q.half == "tune" or bool(os.environ.get("HYDE_HELDOUT"))


def generate(model: str, threads: int, prompt: str) -> None:
    questions = load_questions(QUESTIONS)
    if prompt == "bench":
        prompts = {
            q.text: (SYSTEM, ASK.format(question=q.text)) for q in questions if q.lang == "en"
        }
    elif prompt == "titles":  # the product's prompt with the course's lecture titles
        titles = lecture_titles()
        prompts = {}
        for q in filter(in_this_run, questions):
            system, user = guess_messages(q.text, "English", ["Python for Everybody"])
            system_text = f"{system['content']} Its lectures are: {'; '.join(titles)}."
            prompts[f"{q.lang}|{q.text}"] = (system_text, user["content"])
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
    sig = signals(corpus)
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
    sig = signals(corpus)
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


TERMS_SYSTEM = 'You are the lecturer of the course "Python for Everybody".'
TERMS_ASK = (
    "A student asks: {question}\n\n"
    "List the technical terms (names of functions, keywords, data types, concepts) you used in "
    "your lecture when you explained this, in English, separated by commas. Reply with the "
    "terms only."
)


def generate_terms(model: str, threads: int) -> None:
    """The lecture's likely technical terms for each tune question (query-to-keywords): a
    shorter reply than the guess, aimed at the words a paraphrase leaves out."""
    prompts = {
        f"{q.lang}|{q.text}": (TERMS_SYSTEM, TERMS_ASK.format(question=q.text))
        for q in filter(in_this_run, load_questions(QUESTIONS))
    }
    write_replies(cache_path(model, "terms"), prompts, model, threads, "question")


def terms_rankers(corpus: Corpus, model: str) -> dict[str, Ranker]:
    """The terms instead of the guess, and beside it."""
    sig = signals(corpus)
    reply_of = product_replies(model)
    terms: dict[str, str] = json.loads(cache_path(model, "terms").read_text())

    def ranked(use_guess: bool, terms_in_e5: bool = True) -> Ranker:
        def rank(q: Question, c: Corpus) -> list[int]:
            guess = (clean_guess(reply_of(q)) or "") if use_guess else ""
            found = " ".join(terms.get(f"{q.lang}|{q.text}", "").split())[:300]
            qv = sig.qvec(q)
            if guess:
                qv = qv + c.query_vector(guess)
            if found and terms_in_e5:
                qv = qv + c.query_vector(found)
            lex = bm25_with(sig, q, f"{guess} {found}")
            return default_order(sig.dense_of(qv / np.linalg.norm(qv))[2], lex)

        return rank

    return {
        "default": default_ranker(sig),
        "guess (product)": guess_ranker(sig, reply_of),
        "terms instead of the guess": ranked(False),
        "terms instead of the guess, BM25 only": ranked(False, terms_in_e5=False),
        "guess + terms": ranked(True),
        "guess + terms in BM25 only": ranked(True, terms_in_e5=False),
    }


SAMPLE_SEEDS = (1, 2, 3)


def generate_samples(model: str, threads: int) -> None:
    """More guesses per tune question, sampled (temperature 0.7, one seed each), with the
    product's prompt (an English question as asked; a Portuguese one as asked, in English):
    HyDE's own setting averages several hypothetical passages, not one greedy guess."""
    from doc2query import load_llm

    path = cache_path(model, "samples")
    done: dict[str, str] = json.loads(path.read_text()) if path.exists() else {}
    todo = []
    for q in filter(in_this_run, load_questions(QUESTIONS)):
        # the product's prompt: `product` (English) and `direct` (Portuguese) both ask in English
        system, user = guess_messages(q.text, "English", ["Python for Everybody"])
        for seed in SAMPLE_SEEDS:
            key = f"{seed}|{q.lang}|{q.text}"
            if key not in done:
                todo.append((key, seed, system["content"], user["content"]))
    print(f"{len(todo)} samples to do", flush=True)
    if not todo:
        return
    llm = load_llm(model, threads)
    t0 = time.perf_counter()
    for n, (key, seed, system_text, user_text) in enumerate(todo, 1):
        reply = llm.create_chat_completion(
            messages=[
                {"role": "system", "content": system_text},
                {"role": "user", "content": user_text},
            ],
            max_tokens=100,
            temperature=0.7,
            seed=seed,
        )
        done[key] = str(reply["choices"][0]["message"]["content"])
        if n % 10 == 0 or n == len(todo):
            path.write_text(json.dumps(done, ensure_ascii=False, indent=0))
            print(f"{n}/{len(todo)}  {(time.perf_counter() - t0) / n:.1f} s a sample", flush=True)


def samples_rankers(corpus: Corpus, model: str) -> dict[str, Ranker]:
    """The greedy guess (the product's) and the mean of it with 1-3 sampled guesses."""
    sig = signals(corpus)
    reply_of = product_replies(model)
    sampled: dict[str, str] = json.loads(cache_path(model, "samples").read_text())

    def guesses(q: Question, n: int) -> list[str]:
        greedy = reply_of(q)
        out = [greedy] + [sampled.get(f"{s}|{q.lang}|{q.text}", "") for s in SAMPLE_SEEDS[:n]]
        return [g for g in (clean_guess(x) for x in out) if g]

    def mean_of(n: int, all_words: bool, w: float = 1.0) -> Ranker:
        def rank(q: Question, c: Corpus) -> list[int]:
            found = guesses(q, n)
            if not found:
                return default_order(sig.dense(q)[2], sig.bm25w(q))
            gv = sum(c.query_vector(g) for g in found) / len(found)
            qv = sig.qvec(q) + w * gv
            words = " ".join(found) if all_words else found[0]
            return default_order(sig.dense_of(qv / np.linalg.norm(qv))[2], bm25_with(sig, q, words))

        return rank

    out: dict[str, Ranker] = {
        "default": default_ranker(sig),
        "greedy guess (product)": guess_ranker(sig, reply_of),
    }
    for n in (1, 2, 3):
        out[f"greedy + {n} sampled, E5 mean"] = mean_of(n, False)
        out[f"greedy + {n} sampled, E5 mean, BM25 all"] = mean_of(n, True)
    out["greedy + 3 sampled, E5 mean w 1.5, BM25 all"] = mean_of(3, True, 1.5)
    return out


def fusion_rankers(corpus: Corpus, model: str) -> dict[str, Ranker]:
    """The product's guess under other fusions: the dense weight (0.6 today, chosen without a
    guess, when BM25 had only the question's words) and the unit share of the dense score."""
    from ranking_ideas import convex, norm_lex, norm_top, order

    sig = signals(corpus)
    reply_of = product_replies(model)

    def fused(alpha: float, unit_share: float = UNIT_SHARE) -> Ranker:
        def rank(q: Question, c: Corpus) -> list[int]:
            guess = clean_guess(reply_of(q)) or ""
            qv = sig.qvec(q) + (c.query_vector(guess) if guess else 0.0)
            win, unit, _ = sig.dense_of(qv / np.linalg.norm(qv))
            dense = unit_share * unit + (1 - unit_share) * win
            lex = bm25_with(sig, q, guess)
            return order(convex([(alpha, norm_top(dense)), (1 - alpha, norm_lex(lex))]), dense)

        return rank

    out: dict[str, Ranker] = {
        "default": default_ranker(sig),
        "guess (product)": guess_ranker(sig, reply_of),
    }
    for alpha in (0.4, 0.5, 0.7, 0.8):
        out[f"guess, dense weight {alpha}"] = fused(alpha)
    for share in (0.5, 0.9):
        out[f"guess, unit share {share}"] = fused(ALPHA, share)
    return out


def lecture_titles() -> list[str]:
    """The library's lecture titles, in the order of their ids, as a prompt lists them."""
    lib = library()
    return [lec.title for lec in sorted(lib.lectures(), key=lambda x: x.id)]


def titles_rankers(corpus: Corpus, model: str) -> dict[str, Ranker]:
    """The guess written with the course's lecture titles in the prompt, against without."""
    sig = signals(corpus)
    titled: dict[str, str] = json.loads(cache_path(model, "titles").read_text())

    def titled_reply(q: Question) -> str:
        return titled.get(f"{q.lang}|{q.text}", "")

    return {
        "default": default_ranker(sig),
        "guess (product)": guess_ranker(sig, product_replies(model)),
        "guess with the lecture titles, w 0.5": guess_ranker(sig, titled_reply, 0.5),
        "guess with the lecture titles, w 1.0": guess_ranker(sig, titled_reply),
    }


def cut_rankers(corpus: Corpus, model: str) -> dict[str, Ranker]:
    """The product's guess (an English question guessed on as asked, `product` cache; a
    Portuguese one translated and guessed on as asked, `direct` cache) cut to its first k
    tokens: greedy decoding makes that exactly the guess a k-token limit would have written,
    so a shorter (cheaper) guess is scored without asking the model again."""
    from llama_cpp import Llama

    from lecturetui.core.answer.guess import GUESS_TOKENS

    llm = Llama(str(ROOT / "models" / MODELS[model]), vocab_only=True, verbose=False)
    sig = signals(corpus)
    reply_of = product_replies(model)

    def cut(reply: str, k: int) -> str:
        tokens = llm.tokenize(reply.encode("utf-8"), add_bos=False, special=False)
        return llm.detokenize(tokens[:k]).decode("utf-8", errors="ignore")

    def with_cut(k: int) -> Ranker:
        return guess_ranker(sig, lambda q: cut(reply_of(q), k))

    lengths = sorted(
        len(llm.tokenize(r.encode("utf-8"), add_bos=False, special=False))
        for r in map(reply_of, load_questions(QUESTIONS))
    )
    print(f"guess tokens: median {lengths[len(lengths) // 2]}, max {lengths[-1]}")
    out: dict[str, Ranker] = {"default": default_ranker(sig)}
    for k in (16, 24, 32, 48, 64, GUESS_TOKENS):
        out[f"guess cut to {k} tokens"] = with_cut(k)
    return out


def form_rankers(corpus: Corpus, model: str) -> dict[str, Ranker]:
    """The product's guess (as in `cut_rankers`, whole) in other forms: embedded with E5's
    `passage: ` prefix (it is lecture-like text, as HyDE's first paper encodes it), or
    sentence by sentence, each sentence beside the question, a segment taking its best."""
    import re

    sig = signals(corpus)
    reply_of = product_replies(model)
    pcache_path = HOME / "hyde_passage_vectors.json"
    pcache: dict[str, list[float]] = (
        json.loads(pcache_path.read_text()) if pcache_path.exists() else {}
    )

    def as_passage(text: str) -> np.ndarray:
        if text not in pcache:
            pcache[text] = corpus.lib.embedder.embed_passages([text])[0].tolist()
            pcache_path.write_text(json.dumps(pcache))
        return np.asarray(pcache[text], dtype=np.float32)

    def guess_of(q: Question) -> str:
        return clean_guess(reply_of(q)) or ""

    def passage_form(w: float) -> Ranker:
        def rank(q: Question, c: Corpus) -> list[int]:
            guess = guess_of(q)
            qv = sig.qvec(q) + (w * as_passage(guess) if guess else 0.0)
            return default_order(sig.dense_of(qv / np.linalg.norm(qv))[2], bm25_with(sig, q, guess))

        return rank

    def sentences(agg: str) -> Ranker:
        def rank(q: Question, c: Corpus) -> list[int]:
            guess = guess_of(q)
            parts = [x for x in re.split(r"(?<=[.!?])\s+", guess) if len(x.split()) >= 4]
            if not parts:
                return default_order(sig.dense(q)[2], sig.bm25w(q))
            base = sig.qvec(q)
            each = []
            for part in parts:
                qv = base + c.query_vector(part)
                each.append(sig.dense_of(qv / np.linalg.norm(qv))[2])
            stack = np.vstack(each)
            dense = stack.max(axis=0) if agg == "max" else stack.mean(axis=0)
            return default_order(dense, bm25_with(sig, q, guess))

        return rank

    out: dict[str, Ranker] = {"default": default_ranker(sig)}
    for w in (0.5, 1.0, 1.5):
        out[f"guess as a passage, w {w}"] = passage_form(w)
    out["guess sentence by sentence, best"] = sentences("max")
    out["guess sentence by sentence, mean"] = sentences("mean")
    return out


#: what `generate --prompt P` writes (the cache `score --prompt P` or a later prompt reads)
GENERATORS: dict[str, Callable[[str, int], None]] = {
    "bench": lambda model, threads: generate(model, threads, "bench"),
    "product": lambda model, threads: generate(model, threads, "product"),
    "direct": lambda model, threads: generate(model, threads, "direct"),
    "titles": lambda model, threads: generate(model, threads, "titles"),
    "terms": generate_terms,
    "samples": generate_samples,
}
#: what `score --prompt P` compares
SCORERS: dict[str, Callable[[Corpus, str], dict[str, Ranker]]] = {
    "bench": lambda corpus, model: rankers(corpus, model, "bench"),
    "product": lambda corpus, model: rankers(corpus, model, "product"),
    "direct": direct_rankers,
    "cut": cut_rankers,
    "forms": lambda corpus, model: {**cut_rankers(corpus, model), **form_rankers(corpus, model)},
    "titles": titles_rankers,
    "samples": samples_rankers,
    "fusion": fusion_rankers,
    "terms": terms_rankers,
}


def main() -> None:
    parser = arguments("1.5b")
    parser.add_argument("--prompt", choices=list(SCORERS), default="bench")
    args = parser.parse_args()
    if args.step == "generate":
        if args.prompt not in GENERATORS:
            parser.error(f"--prompt {args.prompt} scores cached replies; it generates nothing")
        GENERATORS[args.prompt](args.model, args.threads)
        return
    corpus = Corpus(library())
    questions = [
        q for q in load_questions(QUESTIONS)
        if q.half == args.half and (q.lang == "en" or args.prompt != "bench")
        and (q.lang != "en" or args.prompt != "direct")
    ]  # fmt: skip
    found = SCORERS[args.prompt](corpus, args.model)
    report(corpus, questions, found, compare=os.environ.get("HYDE_COMPARE", "default"))
    corpus.save()


if __name__ == "__main__":
    main()
