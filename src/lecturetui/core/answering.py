"""Question -> retrieved hits -> merged passages -> streamed, cited answer."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lecturetui.core.generation import Generator
from lecturetui.core.modes import DEFAULT_MODE
from lecturetui.core.prompting import (
    Passage,
    cited_numbers,
    fit_to_context,
    merge_hits,
    question_language,
)
from lecturetui.core.service import Hit, Library
from lecturetui.core.timefmt import format_timestamp


@dataclass(slots=True)
class Answer:
    question: str
    text: str
    passages: list[Passage]  # what the prompt numbered [1]..[n]
    hits: list[Hit]
    cited: list[int]
    stopped: bool = False
    # "model": the model wrote the [n]; "similarity": it wrote none, and each sentence was given
    # the passage most similar to it (E5 cosine >= ATTRIBUTION_THRESHOLD); "none": neither
    citation_source: str = "none"
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def citations(self) -> list[Passage]:
        return [self.passages[n - 1] for n in self.cited]

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.text,
            "stopped": self.stopped,
            "citation_source": self.citation_source,
            "citations": [passage_json(p) for p in self.citations],
            "passages": [passage_json(p) for p in self.passages],
            "hits": [h.to_json() for h in self.hits],
            "timings": self.timings,
        }


def passage_json(p: Passage) -> dict[str, Any]:
    first = p.hits[0].to_json() if p.hits else {}
    return {
        **first,
        "number": p.number,
        "start_s": p.start,
        "end_s": p.end,
        "start": format_timestamp(p.start),
        "end": format_timestamp(p.end),
        "score": p.score,
        "text": p.text,
        "url": p.url,
        "corpus_ids": p.corpus_ids,
        "segment_ids": p.segment_ids,
    }


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


def ask(
    library: Library,
    generator: Generator,
    question: str,
    k: int = 10,
    answer_tokens: int = 512,
    on_token: Callable[[str], None] | None = None,
    stop: threading.Event | None = None,
    on_retrieved: Callable[[list[Hit], list[Passage]], None] | None = None,
    mode: str = DEFAULT_MODE,
) -> Answer:
    """Retrieve, fit the passages to the context, stream the answer. Ctrl+C / `stop` ends it
    cleanly between tokens, keeping what was written."""
    library.warm()  # model loading is not retrieval time
    t0 = time.perf_counter()
    result = library.search(question, k, mode=mode)
    t1 = time.perf_counter()
    messages, passages = fit_to_context(
        question,
        merge_hits(result.hits),
        generator.count_prompt_tokens,
        generator.n_ctx,
        answer_tokens + 8,  # slack for the chat template's generation prompt
        question_language(question),
    )
    if on_retrieved:
        on_retrieved(result.hits, passages)
    stop = stop or threading.Event()
    pieces: list[str] = []
    first: float | None = None
    n_pieces = 0
    stopped = False
    t2 = time.perf_counter()
    try:
        for piece in generator.stream(messages, answer_tokens, stop):
            if first is None:
                first = time.perf_counter()
            pieces.append(piece)
            n_pieces += 1
            if on_token:
                on_token(piece)
    except KeyboardInterrupt:
        stopped = True
    stopped = stopped or stop.is_set()
    t3 = time.perf_counter()
    text = "".join(pieces).strip()
    gen_s = t3 - (first or t3)
    cited = cited_numbers(text, len(passages))
    source = "model" if cited else "none"
    if not cited and text and not stopped:
        text, cited = attribute(library, text, passages)
        source = "similarity" if cited else "none"
    return Answer(
        question=question,
        text=text,
        passages=passages,
        hits=result.hits,
        cited=cited,
        stopped=stopped,
        citation_source=source,
        timings={
            "retrieval_ms": (t1 - t0) * 1000,
            "prompt_tokens": float(generator.count_prompt_tokens(messages)),
            "time_to_first_token_ms": ((first or t3) - t2) * 1000,
            "tokens_per_s": (n_pieces - 1) / gen_s if n_pieces > 1 and gen_s > 0 else 0.0,
            "total_ms": (t3 - t0) * 1000,
        },
    )
