"""The model's explanation against its excerpts, in meaning: which excerpt each sentence says
again, and whether it says any of them at all.

Each sentence of the explanation (three words or more, citations left out) is compared with
every sentence of the prompt's excerpts by the relevance model (EmbeddingGemma, else E5: both as
documents; the excerpts' vectors come from the sentence cache), in one embedding call after the
answer is written. Two things follow:

- a sentence that cites an excerpt when another is clearly closer to it (by RECITE_MARGIN) is
  cited with the closer one (the small model often cites [2] for what [1] says);
- the explanation's grounding is the mean, over its sentences, of the best cosine to any excerpt
  sentence. A question near a course's topics that the lectures do not answer (decorators beside
  lectures on functions, asyncio beside lectures on sockets) can score like a covered one, and
  the model then answers from what it knows, far from every excerpt: when the best window's
  relevance is weak (under WEAK_RELEVANCE) and the grounding is under GROUNDED, the lectures are
  taken not to cover the question (bench/RESULTS.md, "The moment that answers").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from lecturetui.core.answer.check import SENTENCE
from lecturetui.core.answer.prompting import Passage
from lecturetui.core.answer.quote import sentence_scorer
from lecturetui.core.citing import CITATION
from lecturetui.core.library import Library
from lecturetui.core.retrieval.sentences import split_sentences

#: a best window's relevance under which the explanation is checked for grounding (the covered
#: questions that score this low are few, and their explanations stay close to the excerpts)
WEAK_RELEVANCE = 0.40
#: the grounding under which an explanation is taken to say what the excerpts do not
GROUNDED = 0.45
#: how much closer another excerpt must be for a sentence's citation to move to it
RECITE_MARGIN = 0.05
#: sentences shorter than this (in words) are not compared
MIN_WORDS = 3


@dataclass(frozen=True, slots=True)
class Grounded:
    """The explanation with each sentence cited by the excerpt closest to it, and how close."""

    text: str
    grounding: float | None  # None: nothing to compare
    recited: int  # sentences whose citation moved


def _bare(sentence: str) -> str:
    return " ".join(CITATION.sub(" ", sentence).split())


def _moved(citation: re.Match[str], moves: dict[int, int]) -> str:
    """A citation with its numbers moved to the closer excerpt (`moves`), without repeats."""
    numbers = [int(x) for x in re.split(r"\s*[,;]\s*", citation.group(1))]
    return "[" + ", ".join(str(n) for n in dict.fromkeys(moves.get(n, n) for n in numbers)) + "]"


def ground(library: Library, explanation: str, passages: Sequence[Passage]) -> Grounded:
    """Compare the explanation's sentences with the excerpts' (see the module's docstring)."""
    spans = [
        m for m in SENTENCE.finditer(explanation) if len(_bare(m.group(0)).split()) >= MIN_WORDS
    ]
    split = {p.number: [s.text for s in split_sentences(p.text)] for p in passages}
    split = {n: texts for n, texts in split.items() if texts}
    if not spans or not split:
        return Grounded(explanation, None, 0)
    scorer = sentence_scorer(library)
    said = np.asarray(
        scorer.embedder.embed_passages([_bare(m.group(0)) for m in spans]), dtype=np.float32
    )
    said /= np.maximum(np.linalg.norm(said, axis=1, keepdims=True), 1e-12)
    # per sentence of the explanation, its best cosine to each excerpt
    sims = {n: (said @ scorer.vectors.vectors(texts).T).max(axis=1) for n, texts in split.items()}
    out: list[str] = []
    pos = recited = 0
    for row, m in enumerate(spans):
        closest = max(sims, key=lambda n: float(sims[n][row]))
        top = float(sims[closest][row])
        moves = {n: closest for n in sims if float(sims[n][row]) < top - RECITE_MARGIN}
        sentence = m.group(0)
        fixed = CITATION.sub(partial(_moved, moves=moves), sentence)
        recited += fixed != sentence
        out.append(explanation[pos : m.start()] + fixed)
        pos = m.end()
    out.append(explanation[pos:])
    best = np.max(np.stack(list(sims.values())), axis=0)
    return Grounded("".join(out), float(best.mean()), recited)


def ungrounded(relevance: float | None, grounded: Grounded) -> bool:
    """Whether the answer says what the lectures do not: a weak best window (relevance under
    WEAK_RELEVANCE, as the relevance model scores it; None: cannot be told) and an explanation
    far from its excerpts."""
    if relevance is None or relevance >= WEAK_RELEVANCE:
        return False
    return grounded.grounding is not None and grounded.grounding < GROUNDED
