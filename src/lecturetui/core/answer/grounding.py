"""Whether the model's explanation says what its excerpts say: the second test of coverage.

A question near a course's topics that the lectures do not answer (decorators beside lectures on
functions, asyncio beside lectures on sockets) can score like a covered one, and the small model
then answers it from what it knows, citing excerpts that say something else. What gives it away
is the explanation itself: its sentences are far, in meaning, from every sentence of the
excerpts. Each sentence of the explanation (three words or more, citations left out) is
compared with every sentence of the prompt's excerpts by the relevance model (EmbeddingGemma:
both as documents; the excerpts' vectors come from the sentence cache); the explanation's
grounding is the mean, over its sentences, of the best cosine. When the best window's relevance
is weak (under WEAK_RELEVANCE) and the grounding is under GROUNDED, the lectures are taken not to
cover the question (bench/RESULTS.md, "The moment that answers").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lecturetui.core.answer.check import SENTENCE
from lecturetui.core.answer.prompting import Passage
from lecturetui.core.answer.quote import sentence_scorer
from lecturetui.core.citing import CITATION
from lecturetui.core.library import Library
from lecturetui.core.sentences import pieces

#: a best window's relevance under which the explanation is checked for grounding (the covered
#: questions that score this low are few, and their explanations stay close to the excerpts)
WEAK_RELEVANCE = 0.40
#: the grounding under which an explanation is taken to say what the excerpts do not
GROUNDED = 0.45
#: sentences shorter than this (in words) are not compared
MIN_WORDS = 3


def explanation_sentences(explanation: str) -> list[str]:
    """The explanation's sentences worth comparing, without their [n] citations."""
    out = []
    for sentence in SENTENCE.findall(explanation):
        bare = " ".join(CITATION.sub(" ", sentence).split())
        if len(bare.split()) >= MIN_WORDS:
            out.append(bare)
    return out


def grounding(library: Library, explanation: str, passages: Sequence[Passage]) -> float | None:
    """The mean, over the explanation's sentences, of the relevance model's best cosine to a
    sentence of the excerpts; None when there is nothing to compare."""
    said = explanation_sentences(explanation)
    excerpt = [s.text for p in passages for s in pieces(p.text)]
    if not said or not excerpt:
        return None
    scorer = sentence_scorer(library)
    known = scorer.vectors.vectors(excerpt)
    fresh = np.asarray(scorer.embedder.embed_passages(said), dtype=np.float32)
    fresh /= np.maximum(np.linalg.norm(fresh, axis=1, keepdims=True), 1e-12)
    return float((fresh @ known.T).max(axis=1).mean())


def ungrounded(
    library: Library, relevance: float | None, explanation: str, passages: Sequence[Passage]
) -> bool:
    """Whether the answer says what the lectures do not: a weak best window (relevance under
    WEAK_RELEVANCE, as the relevance model scores it; None: cannot be told) and an explanation
    far from its excerpts."""
    if relevance is None or relevance >= WEAK_RELEVANCE:
        return False
    score = grounding(library, explanation, passages)
    return score is not None and score < GROUNDED
