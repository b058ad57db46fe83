"""A stricter translation prompt ("do not answer it") against the product's, on Portuguese questions.

    PYTHONPATH=$PWD/src:$PWD/bench python bench/translation.py generate
    PYTHONPATH=$PWD/src:$PWD/bench python bench/translation.py score --half tune

`generate`: every Portuguese question of the realistic benchmark translated into English with
`STRICT` (greedy), cached in the bench home as `translations_strict.json`, beside
`translations.json` (the product's prompt, core/answer/translate.py `translate_messages`, which the
other benches use). The 1.5B model sometimes answers a question instead of translating it; the
stricter prompt was meant to stop that.

`score`: the default ranking (`r2 default`) of the Portuguese questions searched with either
prompt's translation (after the product's `clean_translation`; a reply it refuses leaves the question
untranslated, as in the product), and how many replies answer the question instead of
translating it (longer than 1.5 x the question).
"""

from __future__ import annotations

import json

from _realistic import HOME, QUESTIONS, Corpus, library, load_questions, report
from doc2query import arguments, write_replies
from ranking_ideas import Signals, default_ranker
from variants import Units

from lecturetui.core.answer.translate import clean_translation

CACHE = HOME / "translations_strict.json"
STRICT = (
    "You are a translator into English. The user's message is a student's question: translate"
    " it, do not answer it. Reply with the translation only."
)


def generate(model: str, threads: int) -> None:
    prompts = {}
    for q in load_questions(QUESTIONS):
        if q.lang == "pt":
            prompts[q.text] = (STRICT, q.text)
    write_replies(CACHE, prompts, model, threads, "question")


def cleaned(replies: dict[str, str]) -> dict[str, str]:
    out = {}
    for question, reply in replies.items():
        text = clean_translation(question, reply)
        if text:
            out[question] = text
    return out


def main() -> None:
    args = arguments("1.5b").parse_args()
    if args.step == "generate":
        generate(args.model, args.threads)
        return
    corpus = Corpus(library())
    questions = [q for q in load_questions(QUESTIONS) if q.half == args.half and q.lang == "pt"]
    u48 = Units(corpus, 48, 24)
    before = json.loads((HOME / "translations.json").read_text(encoding="utf-8"))
    after = json.loads(CACHE.read_text(encoding="utf-8"))
    for name, replies in (("product prompt", before), ("stricter prompt", after)):
        mine = {q.text: replies[q.text] for q in questions if q.text in replies}
        answers = sum(len(r) > 1.5 * len(t) for t, r in mine.items())
        refused = sum(clean_translation(t, r) is None for t, r in mine.items())
        print(f"{name}: {answers} of {len(mine)} replies answer instead, {refused} refused")
    rankers = {}
    for name, replies in (("product translation", before), ("stricter translation", after)):
        sig = Signals(corpus, u48.vectors, u48.owner)
        sig.trans = cleaned(replies)
        rankers[name] = default_ranker(sig)
    report(corpus, questions, rankers, compare="product translation")
    corpus.save()


if __name__ == "__main__":
    main()
