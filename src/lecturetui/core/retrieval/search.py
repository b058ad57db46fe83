"""Search: a question -> ranked segments, each with its best-matching unit (the `match`).

Dense side (small-to-big): the question is compared with every segment's window vector and with
the vectors of its small units (a few sentences, core/retrieval/small_units.py); a segment's dense score is
`UNIT_WEIGHT * best unit cosine + (1 - UNIT_WEIGHT) * window cosine`. Matching on short units
finds the one sentence that answers a question phrased in other words; the window keeps the
context. Lexical side: BM25 over the windows. Hybrid fuses the two (core/retrieval/fusion.py). That is the
first stage; EmbeddingGemma then re-scores its candidates (core/retrieval/rerank.py). The score shown with
a hit is the one that ranked it; the `match` is its best unit, with offsets in its text.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from lecturetui.core.lectures import Lecture, StoredSegment
from lecturetui.core.links import deep_link
from lecturetui.core.question_options import DEFAULT_MODE
from lecturetui.core.records import HitRecord, MatchRecord, to_json
from lecturetui.core.retrieval.fusion import CANDIDATES, FusionConfig, fuse
from lecturetui.core.retrieval.rerank import DEFAULT_RERANK, RerankConfig, rescore
from lecturetui.core.retrieval.small_unit_index import best_units, segment_of
from lecturetui.core.retrieval.vector_index import EXACT_SEARCH_LIMIT, unit_vector
from lecturetui.core.timefmt import format_timestamp

if TYPE_CHECKING:
    from lecturetui.core.models.embedding import Embedder
    from lecturetui.core.retrieval.asked import Asked
    from lecturetui.core.retrieval.rerank import RerankStage
    from lecturetui.core.retrieval.scope import ResolvedScope
    from lecturetui.core.retrieval.vector_index import VectorIndex
    from lecturetui.core.storage.store import Store


class SearchSource(Protocol):
    """What a search reads of the library (core/library.py's Library), without importing it."""

    @property
    def store(self) -> Store: ...

    @property
    def embedder(self) -> Embedder: ...

    def index(self, create: bool = True) -> VectorIndex | None: ...

    def unit_index(self, create: bool = True) -> VectorIndex | None: ...


#: weight of the best unit's cosine in a segment's dense score (bench/RESULTS.md, small-to-big)
UNIT_WEIGHT = 0.7
#: how many units the unit index returns per candidate segment wanted
UNITS_PER_CANDIDATE = 4
#: weight of the lecturer's guess's vector beside the question's (core/answer/guess.py; chosen on the
#: realistic benchmark's tune half, bench/RESULTS.md)
GUESS_WEIGHT = 1.0


@dataclass(frozen=True, slots=True)
class Match:
    """The unit of a hit's text that best matches the question: offsets into `segment.text`."""

    start: int
    end: int
    text: str
    score: float  # its cosine similarity to the question

    def record(self) -> MatchRecord:
        return MatchRecord(self.start, self.end, self.text, self.score)


@dataclass(frozen=True, slots=True)
class Hit:
    rank: int
    score: float  # the score that ranked it (see `run_search`), non-increasing with rank
    segment: StoredSegment
    lecture: Lecture
    url: str | None
    #: each retriever that ranked it, with its own score: "dense" (E5 small-to-big cosine),
    #: "lexical" (BM25), "rerank" (EmbeddingGemma cosine)
    retrievers: dict[str, float] = field(default_factory=dict)
    match: Match | None = None

    def record(self) -> HitRecord:
        return HitRecord(
            rank=self.rank,
            segment_id=self.segment.id,
            lecture=self.lecture.id,
            lecture_title=self.lecture.title,
            course=self.lecture.course,
            corpus_id=self.segment.corpus_id,
            start_s=self.segment.start,
            end_s=self.segment.end,
            start=format_timestamp(self.segment.start),
            end=format_timestamp(self.segment.end),
            score=self.score,
            text=self.segment.text,
            url=self.url,
            retrievers=dict(self.retrievers),
            match=self.match.record() if self.match else None,
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = to_json(self.record())
        return data


@dataclass(slots=True)
class SearchResult:
    query: str
    hits: list[Hit]
    timings_ms: dict[str, float] = field(default_factory=dict)
    exact: bool = True
    mode: str = DEFAULT_MODE


Vector = npt.NDArray[np.float32]


def dense_scores(
    index: VectorIndex,
    units: VectorIndex | None,
    vector: Vector,
    depth: int,
    exact: bool,
    scope: ResolvedScope | None = None,
) -> tuple[list[tuple[int, float]], dict[int, float]]:
    """The dense ranking (segment id, small-to-big score), best first, and window cosines;
    with a scope, both indexes search inside it (hnswlib's filter), not the whole library."""
    in_scope = None if scope is None else scope.segment_ids.__contains__
    unit_in_scope = None if scope is None else (lambda label: segment_of(label) in scope)
    if scope is not None:
        depth = min(depth, len(scope.segment_ids))
    window = dict(index.search(vector, depth, exact=exact, allowed=in_scope))
    if units is None or units.count == 0:
        return sorted(window.items(), key=lambda p: -p[1]), window
    best_unit: dict[int, float] = {}
    found = units.search(vector, depth * UNITS_PER_CANDIDATE, exact=exact, allowed=unit_in_scope)
    for label, sim in found:
        seg = segment_of(label)
        if seg in index and sim > best_unit.get(seg, -2.0):
            best_unit[seg] = sim
    missing = [s for s in best_unit if s not in window]
    if missing:
        window.update(
            zip(missing, (index.vectors(missing) @ unit_vector(vector)).tolist(), strict=True)
        )
    # a window found without any of its units in the unit top list: its units' worst case is
    # below every listed unit, so score it by its window alone, scaled the same way
    floor = min(best_unit.values()) if best_unit else 0.0
    scored = {
        s: UNIT_WEIGHT * best_unit.get(s, min(floor, window[s])) + (1 - UNIT_WEIGHT) * window[s]
        for s in window
    }
    ranked = sorted(scored.items(), key=lambda p: -p[1])[:depth]
    return ranked, window


def run_search(
    library: SearchSource,
    asked: Asked,
    k: int,
    exact: bool | None,
    mode: str,
    scope: ResolvedScope | None = None,
    rerank: RerankStage | None = None,
    rerank_config: RerankConfig | None = None,
) -> SearchResult:
    """See `Library.search` (which checks the question and the library first).

    The first stage ranks by `mode` (E5 small-to-big, BM25, or their fusion); with a `rerank`
    stage, every mode but lexical then has its first `depth` candidates re-scored by it. Each
    hit's `score` is the score that ranked it; `retrievers` holds each retriever's own. The
    question's facts come with it (`asked`: its text, translation, guess and language)."""
    config = rerank_config or DEFAULT_RERANK
    reranking = rerank is not None and mode != "lexical"
    query, translation, guess = asked.text, asked.translation, asked.guess
    t0 = time.perf_counter()
    index = library.index()
    assert index is not None
    units = library.unit_index()
    emb = library.embedder
    t1 = time.perf_counter()
    vector = question_vector(emb, asked)
    t2 = time.perf_counter()
    use_exact = exact if exact is not None else index.count <= EXACT_SEARCH_LIMIT
    depth = max(k, CANDIDATES, config.depth if reranking else 0)
    dense: list[tuple[int, float]] = []
    if mode != "lexical":
        unit_exact = (
            exact if exact is not None else (units.count if units else 0) <= EXACT_SEARCH_LIMIT
        )
        dense, _ = dense_scores(index, units, vector, depth, use_exact and unit_exact, scope)
    t3 = time.perf_counter()
    lexical = (
        library.store.lexical_search(
            " ".join(filter(None, (translation or query, guess))),
            depth,
            scope.lecture_ids if scope else None,
        )
        if mode != "dense"
        else []
    )
    t4 = time.perf_counter()
    ranked = first_stage(mode, dense, lexical, asked)
    own: dict[str, dict[int, float]] = {"dense": dict(dense), "lexical": dict(lexical)}
    if reranking and rerank is not None:
        model = rerank.scores(query, [seg for seg, _ in ranked[: config.depth]], config.dims)
        own["rerank"] = model
        ranked = rescore(ranked[: config.depth], model, config.weight)
    t5 = time.perf_counter()
    found = [
        (seg, score, {name: by[seg] for name, by in own.items() if seg in by})
        for seg, score in ranked[:k]
    ]
    hits = _hits(library, units, vector, found)
    t6 = time.perf_counter()
    timings = {
        "load_ms": (t1 - t0) * 1000,
        "embed_ms": (t2 - t1) * 1000,
        "ann_ms": (t3 - t2) * 1000,
        "lexical_ms": (t4 - t3) * 1000,
        "rerank_ms": (t5 - t4) * 1000,
        "store_ms": (t6 - t5) * 1000,
        "total_ms": (t6 - t1) * 1000,
    }
    return SearchResult(query, hits, timings, use_exact, mode)


def question_vector(emb: Embedder, asked: Asked) -> Vector:
    """The question's E5 vector, with its translation into the library's language and the
    lecturer's likely words (core/answer/guess.py, at a lesser weight) when it has them."""
    vector = emb.embed_query(asked.text)
    if asked.translation:
        vector = unit_vector(vector + emb.embed_query(asked.translation))
    if asked.guess:
        vector = unit_vector(vector + GUESS_WEIGHT * emb.embed_query(asked.guess))
    return vector


def first_stage(
    mode: str, dense: list[tuple[int, float]], lexical: list[tuple[int, float]], asked: Asked
) -> list[tuple[int, float]]:
    """The first stage's ranking in `mode`: E5's, BM25's, or their fusion (weighed by whether
    the question is in the library's language)."""
    if mode == "dense":
        return dense
    if mode == "lexical":
        return lexical
    fused = fuse(dense, lexical, FusionConfig(), asked.same_language)
    return [(f.segment_id, f.score) for f in fused]


def _hits(
    library: SearchSource,
    units: VectorIndex | None,
    vector: Vector,
    ranked: list[tuple[int, float, dict[str, float]]],
) -> list[Hit]:
    store = library.store
    segs = store.segments_by_id([label for label, _, _ in ranked])
    matches = best_units(units, segs, vector) if units is not None else {}
    lectures: dict[str, Lecture] = {}
    hits: list[Hit] = []
    for label, score, found in ranked:
        seg = segs.get(label)
        if seg is None:  # removed since the index was saved
            continue
        lec = lectures.get(seg.lecture_id) or store.lecture(seg.lecture_id)
        if lec is None:
            continue
        lectures[seg.lecture_id] = lec
        best = matches.get(label)
        match = Match(best[1].start, best[1].end, best[1].text, best[0]) if best else None
        url = deep_link(lec.source_url, seg.start)
        hits.append(Hit(len(hits) + 1, score, seg, lec, url, found, match))
    return hits
