"""The ranking ideas compared by bench/realistic.py (each returns positions into Corpus.segs)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import numpy as np
from _common import ALPHA, DEPTH, OTHER_ALPHA, UNIT_SHARE
from _realistic import HOME, Corpus, Question, Ranker


def word_units(text: str, width: int, stride: int) -> list[str]:
    words = text.split()
    if len(words) <= width:
        return [" ".join(words)]
    out = []
    for i in range(0, len(words), stride):
        piece = words[i : i + width]
        if i > 0 and len(piece) < width // 2:
            break
        out.append(" ".join(piece))
        if i + width >= len(words):
            break
    return out


class Units:
    """Short units cut from each segment's text, embedded as passages; cached on disk."""

    def __init__(self, corpus: Corpus, width: int, stride: int, sentences: bool = False) -> None:
        from lecturetui.core.retrieval.small_units import split_units

        texts: list[str] = []
        owner: list[int] = []
        for k, seg in enumerate(corpus.segs):
            pieces = (
                [u.text for u in split_units(seg.text, width, stride)]
                if sentences
                else word_units(seg.text, width, stride)
            )
            for u in pieces:
                texts.append(u)
                owner.append(k)
        path = corpus.cache_dir / f"units_{'s' if sentences else 'w'}{width}_{stride}.npy"
        if path.exists():
            vecs = np.load(path)
        else:
            print(f"embedding {len(texts)} units of {width} words (stride {stride})…")
            vecs = corpus.passages(texts)
            np.save(path, vecs)
        self.vectors = vecs
        self.owner = np.asarray(owner)
        self.n = len(corpus.segs)

    def seg_max(self, q: np.ndarray) -> np.ndarray:
        sims = self.vectors @ q
        out = np.full(self.n, -1.0, dtype=np.float32)
        np.maximum.at(out, self.owner, sims)
        return out


def minmax_top(scores: np.ndarray, depth: int) -> dict[int, float]:
    top = np.argsort(-scores)[:depth]
    vals = scores[top]
    lo, hi = float(vals.min()), float(vals.max())
    return {
        int(i): (float(s) - lo) / (hi - lo) if hi > lo else 1.0
        for i, s in zip(top, vals, strict=True)
    }


def lexical_scores(corpus: Corpus, q: Question, depth: int) -> dict[int, float]:
    pairs = _lex(corpus, q.text, depth)
    if not pairs:
        return {}
    vals = [s for _, s in pairs]
    lo, hi = min(vals), max(vals)
    return {corpus.pos[i]: (s - lo) / (hi - lo) if hi > lo else 1.0 for i, s in pairs}


_LEX: dict[tuple[str, int], list[tuple[int, float]]] = {}


def _lex(corpus: Corpus, text: str, depth: int) -> list[tuple[int, float]]:
    key = (text, depth)
    if key not in _LEX:
        _LEX[key] = corpus.lib.store.lexical_search(text, depth)
    return _LEX[key]


def fuse(dense: dict[int, float], lex: dict[int, float], alpha: float) -> list[int]:
    keys = set(dense) | set(lex)
    score = {k: alpha * dense.get(k, 0.0) + (1 - alpha) * lex.get(k, 0.0) for k in keys}
    return sorted(keys, key=lambda k: -score[k])


def rankers(corpus: Corpus) -> dict[str, Ranker]:
    out: dict[str, Ranker] = {}

    @cache
    def window(text: str) -> np.ndarray:
        return corpus.vectors @ corpus.query_vector(text)

    def cross(q: Question) -> bool:
        return q.lang != "en"  # the library is English

    out["dense (E5 windows)"] = lambda q, c: list(np.argsort(-window(q.text)))
    out["lexical (BM25)"] = lambda q, c: [c.pos[i] for i, _ in _lex(c, q.text, 200)]

    def hybrid(dense_fn: Any, same_a: float, cross_a: float, depth: int = DEPTH) -> Ranker:
        def rank(q: Question, c: Corpus) -> list[int]:
            d = minmax_top(dense_fn(q.text), depth)
            lx = lexical_scores(c, q, depth)
            fused = fuse(d, lx, cross_a if cross(q) else same_a)
            rest = [int(i) for i in np.argsort(-dense_fn(q.text)) if int(i) not in set(fused)]
            return fused + rest

        return rank

    out["hybrid today (0.6 / 0.9, depth 50)"] = hybrid(window, ALPHA, OTHER_ALPHA)

    units: dict[tuple[int, int, bool], Units] = {}

    def unit_scores(width: int, stride: int, blend: float, sentences: bool = False) -> Any:
        if (width, stride, sentences) not in units:
            units[(width, stride, sentences)] = Units(corpus, width, stride, sentences)
        u = units[(width, stride, sentences)]

        @cache
        def scores(text: str) -> np.ndarray:
            q = corpus.query_vector(text)
            return blend * u.seg_max(q) + (1 - blend) * window(text)

        return scores

    for width, stride in ((32, 16), (48, 24)):
        for blend in (1.0, 0.7, 0.5):
            s = unit_scores(width, stride, blend)
            out[f"s2b units {width}/{stride} blend {blend}"] = lambda q, c, s=s: list(
                np.argsort(-s(q.text))
            )
    for width in (32, 48):
        for blend in (1.0, 0.7, 0.5):
            s = unit_scores(width, width // 2, blend, True)
            out[f"s2b sentences {width} blend {blend}"] = lambda q, c, s=s: list(
                np.argsort(-s(q.text))
            )
    for width, stride, blend in ((48, 24, 0.7), (48, 24, 0.5), (32, 16, 0.7)):
        s = unit_scores(width, stride, blend)
        for same_a, cross_a in ((0.6, 0.9), (0.7, 0.9), (0.8, 1.0), (0.7, 1.0)):
            out[f"hybrid s2b {width}/{stride} b{blend} a={same_a}/{cross_a}"] = hybrid(
                s, same_a, cross_a
            )
    for same_a, cross_a in ((0.7, 0.9), (0.8, 0.9), (0.5, 0.9), (0.6, 1.0)):
        out[f"hybrid windows a={same_a}/{cross_a}"] = hybrid(window, same_a, cross_a)
    for depth in (20, 100):
        out[f"hybrid windows 0.6/0.9 depth {depth}"] = hybrid(window, 0.6, 0.9, depth)

    # pseudo-relevance feedback: the question's vector moved toward its m best segments' vectors
    # (Rocchio), then ranked again; helps a question phrased away from the lecture's words
    base = unit_scores(48, 24, 0.7)
    u48 = units[(48, 24, False)]

    def s2b_vec(qv: np.ndarray) -> np.ndarray:
        return UNIT_SHARE * u48.seg_max(qv) + (1 - UNIT_SHARE) * (corpus.vectors @ qv)

    for beta, m in ((0.3, 3), (0.5, 3), (0.5, 5), (1.0, 5)):

        @cache
        def prf(text: str, beta: float = beta, m: int = m) -> np.ndarray:
            top = np.argsort(-base(text))[:m]
            qv = corpus.query_vector(text) + beta * corpus.vectors[top].mean(axis=0)
            return s2b_vec(qv / np.linalg.norm(qv))

        out[f"hybrid s2b + PRF beta {beta} m {m}"] = hybrid(prf, ALPHA, OTHER_ALPHA)
    out.update(lecture_rankers(corpus, {"hybrid s2b": hybrid(base, ALPHA, OTHER_ALPHA)}))
    out.update(translation_rankers(corpus, base, s2b_vec))
    from ranking_ideas import idea_rankers

    unit_scores(32, 16, 0.7)  # loads the 32/16 units for the multi-granularity variants
    out.update(idea_rankers(corpus, units[(48, 24, False)], units[(32, 16, False)]))
    return out


def translation_rankers(corpus: Corpus, base: Any, s2b_vec: Any) -> dict[str, Ranker]:
    """A question in another language than the library's, translated first (by the answer
    model, cached in the bench home's translations.json): searched in the library's language."""
    import dataclasses

    path = HOME / "translations.json"
    if not path.exists():
        return {}
    trans: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))

    def as_english(q: Question) -> Question:
        return dataclasses.replace(q, lang="en", text=trans.get(q.text, q.text))

    def hybrid_on(scores: Any, q: Question, c: Corpus, alpha: float) -> list[int]:
        d = minmax_top(scores, DEPTH)
        lx = lexical_scores(c, q, DEPTH)
        fused = fuse(d, lx, alpha)
        seen = set(fused)
        return fused + [int(i) for i in np.argsort(-scores) if int(i) not in seen]

    out: dict[str, Ranker] = {}

    def translated_only(q: Question, c: Corpus) -> list[int]:
        t = as_english(q) if q.lang != "en" else q
        return hybrid_on(base(t.text), t, c, ALPHA)

    def both_vectors(q: Question, c: Corpus) -> list[int]:
        if q.lang == "en":
            return hybrid_on(base(q.text), q, c, ALPHA)
        t = as_english(q)
        qv = c.query_vector(q.text) + c.query_vector(t.text)
        return hybrid_on(s2b_vec(qv / np.linalg.norm(qv)), t, c, ALPHA)

    def both_scores(q: Question, c: Corpus) -> list[int]:
        if q.lang == "en":
            return hybrid_on(base(q.text), q, c, ALPHA)
        t = as_english(q)
        return hybrid_on(np.maximum(base(q.text), base(t.text)), t, c, ALPHA)

    hyde_path = HOME / "hyde.json"
    hyde: dict[str, str] = (
        json.loads(hyde_path.read_text(encoding="utf-8")) if hyde_path.exists() else {}
    )

    def hypothetical(q: Question, c: Corpus, weight: float = 1.0) -> list[int]:
        """The answer model's guess at what the lecturer said (HyDE), searched with the question."""
        if q.text not in hyde:  # (Portuguese questions: as the default ranks them)
            return hybrid_on(base(q.text), q, c, 0.9 if q.lang != "en" else 0.6)
        guess = hyde[q.text]
        qv = c.query_vector(q.text) + weight * c.query_vector(guess)
        both = dataclasses.replace(q, text=f"{q.text} {guess}")
        return hybrid_on(s2b_vec(qv / np.linalg.norm(qv)), both, c, 0.6)

    if hyde:
        out["hyde: question + guessed passage, weight 1"] = hypothetical
        out["hyde: question + guessed passage, weight 0.5"] = lambda q, c: hypothetical(q, c, 0.5)
    out["translated: hybrid on the translation"] = translated_only
    out["translated: dense on both vectors, BM25 on the translation"] = both_vectors
    out["translated: dense max of both, BM25 on the translation"] = both_scores
    return out


def lecture_rankers(corpus: Corpus, base: dict[str, Ranker]) -> dict[str, Ranker]:
    """A lecture-level signal: the question's cosine to the lecture's centroid, added to a score."""
    lec_ids = sorted(corpus.lectures)
    owner = np.asarray([lec_ids.index(s.lecture_id) for s in corpus.segs])
    cents = np.stack([corpus.vectors[owner == i].mean(axis=0) for i in range(len(lec_ids))])
    cents /= np.linalg.norm(cents, axis=1, keepdims=True)
    out: dict[str, Ranker] = {}
    for name, rank in base.items():
        for gamma in (0.1, 0.2):

            def boosted(
                q: Question, c: Corpus, rank: Ranker = rank, gamma: float = gamma
            ) -> list[int]:
                order = rank(q, c)
                lec = cents @ c.query_vector(q.text)
                lec = (lec - lec.min()) / max(float(lec.max() - lec.min()), 1e-9)
                n = len(order)
                base_score = {k: 1.0 - i / n for i, k in enumerate(order[:50])}
                score = {k: base_score.get(k, 0.0) + gamma * lec[owner[k]] for k in order[:50]}
                top = sorted(score, key=lambda k: -score[k])
                return top + order[50:]

            out[f"{name} + lecture centroid {gamma}"] = boosted
    return out
