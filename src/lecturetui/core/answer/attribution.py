"""Citations for an answer whose model cited nothing: each sentence gets its most similar passage."""

from __future__ import annotations

import re

from lecturetui.core.answer.prompting import Passage
from lecturetui.core.library import Library

# E5 cosines are compressed: on the seed corpus, sentences the lectures support score 0.876-0.90
# against their best segment, unrelated ones ("Zebras listradas correm.") 0.83-0.85
ATTRIBUTION_THRESHOLD = 0.86
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)")


def attribute(library: Library, text: str, passages: list[Passage]) -> tuple[str, list[int]]:
    """Cite each sentence with the passage most similar to it, when similar enough.

    Used when the model cited nothing: small models often answer correctly but ignore the
    instruction to cite. Similarity is the E5 cosine between the sentence (as a query) and the
    passage's stored segment vectors, so a sentence the lectures do not support stays uncited.
    """
    index = library.index()
    if not passages or index is None:
        return text, []
    vectors = [index.vectors(p.segment_ids) for p in passages]
    out: list[str] = []
    cited: list[int] = []
    pos = 0
    for m in _SENTENCE.finditer(text):
        sentence = m.group(0)
        out.append(text[pos : m.start()])
        pos = m.end()
        if len(sentence.split()) < 3:
            out.append(sentence)
            continue
        q = library.embedder.embed_query(sentence.strip())
        sims = [float((v @ q).max()) for v in vectors]
        best = max(range(len(sims)), key=sims.__getitem__)
        if sims[best] < ATTRIBUTION_THRESHOLD:
            out.append(sentence)
            continue
        n = passages[best].number
        body = sentence.rstrip()
        trail = sentence[len(body) :]
        stripped = body.rstrip(".!?")
        out.append(f"{stripped} [{n}]{body[len(stripped) :]}{trail}")
        if n not in cited:
            cited.append(n)
    out.append(text[pos:])
    return "".join(out), cited
