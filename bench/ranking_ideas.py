"""Ranking ideas on top of today's default (issue 12, 2026-11-23, second round).

Every variant here starts from the default search: small-to-big dense (0.7 x best 48-word
unit + 0.3 x window cosine), and for a Portuguese question the question's and its translation's
vectors summed, with BM25 on the translation (bench/RESULTS.md). Names start with `r2 ` so
`bench/realistic.py --only "r2 "` runs them all.

Signals per question (arrays over every segment of the library):
- `win`: window cosine, `unit`: best unit cosine, `s2b`: 0.7 unit + 0.3 window;
- `bm25w`: BM25 over the ~2-minute windows (the product's FTS5 table, store.lexical_search);
- `bm25u`: BM25 over the same 48/24-word units the dense side uses, in an in-memory FTS5 table
  with the product's analyser (core/lexical.py); a segment's score is its best unit's.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
from _common import ALPHA, LEX
from _realistic import HOME, Corpus, Question, Ranker

from lecturetui.core.lexical import index_terms, match_expression, query_terms
from lecturetui.core.retrieval.small_units import split_units

Arr = np.ndarray
DEPTH = 50


class UnitLex:
    """BM25 over the small units (FTS5 in memory, the product's analyser)."""

    def __init__(self, corpus: Corpus, width: int = 48, stride: int = 24) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute(
            "CREATE VIRTUAL TABLE u USING fts5 (terms, tokenize='unicode61 remove_diacritics 2')"
        )
        owner: list[int] = []
        texts: list[str] = []
        for k, seg in enumerate(corpus.segs):
            lang = corpus.lectures[seg.lecture_id].language
            for unit in split_units(seg.text, width, stride):
                owner.append(k)
                texts.append(unit.text)
                self.db.execute(
                    "INSERT INTO u (rowid, terms) VALUES (?, ?)",
                    (len(owner) - 1, index_terms(unit.text, lang)),
                )
        self.owner = np.asarray(owner)
        self.texts = texts
        self.n = len(corpus.segs)
        self.languages = sorted({lec.language for lec in corpus.lectures.values()})

    def unit_scores(self, text: str) -> Arr:
        out = np.zeros(len(self.owner), dtype=np.float64)
        terms = query_terms(text, self.languages)
        if not terms:
            return out
        rows = self.db.execute(
            "SELECT rowid, bm25(u) FROM u WHERE u MATCH ?", (match_expression(terms),)
        ).fetchall()
        for rowid, r in rows:
            out[int(rowid)] = -float(r)
        return out

    def seg_scores(self, text: str, agg: str = "max") -> Arr:
        us = self.unit_scores(text)
        out = np.zeros(self.n, dtype=np.float64)
        if agg == "max":
            np.maximum.at(out, self.owner, us)
        elif agg == "top2":  # best + half the second best
            for k in range(self.n):
                s = np.sort(us[self.owner == k])[::-1]
                out[k] = s[0] + (0.5 * s[1] if len(s) > 1 else 0.0)
        return out


def norm_top(scores: Arr, depth: int = DEPTH) -> dict[int, float]:
    """Min-max over the `depth` best (the product's fusion); positives only for BM25."""
    top = np.argsort(-scores, kind="stable")[:depth]
    top = top[scores[top] > -1e9]
    vals = scores[top]
    lo, hi = float(vals.min()), float(vals.max())
    return {
        int(i): (float(s) - lo) / (hi - lo) if hi > lo else 1.0
        for i, s in zip(top, vals, strict=True)
    }


def norm_lex(scores: Arr, depth: int = DEPTH) -> dict[int, float]:
    hit = scores > 0
    if not hit.any():
        return {}
    masked = np.where(hit, scores, -np.inf)
    top = np.argsort(-masked, kind="stable")[: min(depth, int(hit.sum()))]
    vals = scores[top]
    lo, hi = float(vals.min()), float(vals.max())
    return {
        int(i): (float(s) - lo) / (hi - lo) if hi > lo else 1.0
        for i, s in zip(top, vals, strict=True)
    }


def convex(lists: list[tuple[float, dict[int, float]]]) -> dict[int, float]:
    keys: set[int] = set()
    for _, d in lists:
        keys |= set(d)
    return {k: sum(w * d.get(k, 0.0) for w, d in lists) for k in keys}


def rrf(lists: list[tuple[float, dict[int, float]]], k: float) -> dict[int, float]:
    out: dict[int, float] = {}
    for w, d in lists:
        for r, seg in enumerate(sorted(d, key=lambda s: -d[s]), 1):
            out[seg] = out.get(seg, 0.0) + w / (k + r)
    return out


def order(score: dict[int, float], fallback: Arr) -> list[int]:
    top = sorted(score, key=lambda k: (-score[k], k))
    seen = set(top)
    return top + [int(i) for i in np.argsort(-fallback, kind="stable") if int(i) not in seen]


class Signals:
    """The per-question arrays, for the question as the default search sees it."""

    def __init__(self, corpus: Corpus, units_vectors: Arr, units_owner: Arr) -> None:
        self.c = corpus
        self.uv = units_vectors
        self.uowner = units_owner
        self.ulex = UnitLex(corpus)
        path = HOME / "translations.json"
        self.trans: dict[str, str] = (
            json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        )
        ids = sorted(corpus.lectures)
        self.lec_of = np.asarray([ids.index(s.lecture_id) for s in corpus.segs])
        self.lec_ids = ids
        # neighbours in time: the previous and next segment of the same lecture (or -1)
        by_lec: dict[str, list[tuple[int, int]]] = {}
        for k, s in enumerate(corpus.segs):
            by_lec.setdefault(s.lecture_id, []).append((s.ordinal, k))
        self.prev = np.full(len(corpus.segs), -1)
        self.next = np.full(len(corpus.segs), -1)
        for items in by_lec.values():
            items.sort()
            for (_, a), (_, b) in itertools.pairwise(items):
                self.next[a] = b
                self.prev[b] = a

    def lex_text(self, q: Question) -> str:
        return self.trans.get(q.text, q.text) if q.lang != "en" else q.text

    @cache  # noqa: B019 - one Signals per run
    def qvec(self, q: Question) -> Arr:
        v = self.c.query_vector(q.text)
        if q.lang != "en" and q.text in self.trans:
            v = v + self.c.query_vector(self.trans[q.text])
        return v / np.linalg.norm(v)

    def unit_cos(self, qv: Arr) -> Arr:
        return self.uv @ qv

    def seg_max(self, per_unit: Arr) -> Arr:
        out = np.full(len(self.c.segs), -1.0, dtype=np.float64)
        np.maximum.at(out, self.uowner, per_unit)
        return out

    @cache  # noqa: B019
    def dense(self, q: Question) -> tuple[Arr, Arr, Arr]:
        return self.dense_of(self.qvec(q))

    def dense_of(self, qv: Arr) -> tuple[Arr, Arr, Arr]:
        """Window cosine, best unit cosine and small-to-big score of a query vector."""
        win = (self.c.vectors @ qv).astype(np.float64)
        unit = self.seg_max(self.unit_cos(qv))
        return win, unit, 0.7 * unit + 0.3 * win

    @cache  # noqa: B019
    def bm25w(self, q: Question) -> Arr:
        out = np.zeros(len(self.c.segs))
        for sid, s in self.c.lib.store.lexical_search(self.lex_text(q), 1000):
            out[self.c.pos[sid]] = s
        return out

    @cache  # noqa: B019
    def bm25u(self, q: Question, agg: str = "max") -> Arr:
        return self.ulex.seg_scores(self.lex_text(q), agg)

    def neighbour(self, arr: Arr, how: str = "mean") -> Arr:
        """Each segment's neighbours' value: their mean or max (a lecture's first and last
        segment have one neighbour; a one-segment lecture gets 0)."""
        has_p, has_n = self.prev >= 0, self.next >= 0
        p = np.where(has_p, arr[np.maximum(self.prev, 0)], 0.0)
        n = np.where(has_n, arr[np.maximum(self.next, 0)], 0.0)
        if how == "max":
            return np.where(has_p & has_n, np.maximum(p, n), p + n)
        return (p + n) / np.maximum(has_p.astype(int) + has_n.astype(int), 1)


def default_order(s2b: Arr, bm25: Arr) -> list[int]:
    """Today's default fusion: 0.6 x small-to-big + 0.4 x BM25, each min-max over its top 50;
    the rest of the library after them, by small-to-big."""
    return order(convex([(ALPHA, norm_top(s2b)), (LEX, norm_lex(bm25))]), s2b)


def default_ranker(sig: Signals) -> Ranker:
    """`r2 default`: the default fusion of the question as searched (with its translation)."""
    return lambda q, c: default_order(sig.dense(q)[2], sig.bm25w(q))


def idea_rankers(corpus: Corpus, u48: Any, u32: Any) -> dict[str, Ranker]:
    sig = Signals(corpus, u48.vectors, u48.owner)
    out: dict[str, Ranker] = {}

    def default_scores(q: Question, alpha: float = ALPHA) -> dict[int, float]:
        _, _, s2b = sig.dense(q)
        return convex([(alpha, norm_top(s2b)), (1 - alpha, norm_lex(sig.bm25w(q)))])

    def ranked(fn: Callable[[Question], dict[int, float]]) -> Ranker:
        def rank(q: Question, c: Corpus) -> list[int]:
            return order(fn(q), sig.dense(q)[2])

        return rank

    out["r2 default (s2b + window BM25, 0.6)"] = ranked(default_scores)

    # 1. BM25 on the small units, instead of or besides the windows
    for alpha in (0.5, 0.6, 0.7):
        out[f"r2 unit BM25 instead, a={alpha}"] = ranked(
            lambda q, a=alpha: convex(
                [(a, norm_top(sig.dense(q)[2])), (1 - a, norm_lex(sig.bm25u(q)))]
            )
        )
    out["r2 unit BM25 top2 instead, a=0.6"] = ranked(
        lambda q: convex(
            [(ALPHA, norm_top(sig.dense(q)[2])), (LEX, norm_lex(sig.bm25u(q, "top2")))]
        )
    )
    for wu in (0.25, 0.5, 0.75):
        out[f"r2 window+unit BM25 (unit share {wu}), a=0.6"] = ranked(
            lambda q, wu=wu: convex(
                [
                    (ALPHA, norm_top(sig.dense(q)[2])),
                    (LEX * (1 - wu), norm_lex(sig.bm25w(q))),
                    (LEX * wu, norm_lex(sig.bm25u(q))),
                ]
            )
        )
    out["r2 lexical units alone"] = ranked(lambda q: norm_lex(sig.bm25u(q), 1000))
    out["r2 lexical windows alone"] = ranked(lambda q: norm_lex(sig.bm25w(q), 1000))

    # 2. lecture-level signals on the default's fused scores
    @cache
    def title_vecs() -> Arr:
        titles = [corpus.lectures[i].title for i in sig.lec_ids]
        v = np.stack([corpus.query_vector(t) for t in titles])
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    def lecture_boost(q: Question, how: str, gamma: float) -> dict[int, float]:
        base = default_scores(q)
        n_lec = len(sig.lec_ids)
        lec = np.zeros(n_lec)
        if how in ("max", "mean3", "sum"):
            per: dict[int, list[float]] = {}
            for k, s in base.items():
                per.setdefault(int(sig.lec_of[k]), []).append(s)
            for li, vals in per.items():
                vals.sort(reverse=True)
                lec[li] = (
                    vals[0]
                    if how == "max"
                    else float(np.mean(vals[:3]))
                    if how == "mean3"
                    else float(sum(vals))
                )
            lec = lec / max(lec.max(), 1e-9)
        elif how == "title":
            sims = title_vecs() @ sig.qvec(q)
            lec = (sims - sims.min()) / max(float(sims.max() - sims.min()), 1e-9)
        return {k: s + gamma * lec[sig.lec_of[k]] for k, s in base.items()}

    for how in ("max", "mean3", "sum", "title"):
        for gamma in (0.05, 0.1, 0.2):
            out[f"r2 lecture {how} gamma {gamma}"] = ranked(
                lambda q, how=how, g=gamma: lecture_boost(q, how, g)
            )

    # 3. neighbour smoothing in time
    def smoothed_dense(q: Question, w: float, how: str) -> Arr:
        s2b = sig.dense(q)[2]
        return s2b + w * sig.neighbour(s2b, how)

    for w in (0.1, 0.2, 0.3):
        for how in ("mean", "max"):
            out[f"r2 neighbours on dense {how} w={w}"] = ranked(
                lambda q, w=w, how=how: convex(
                    [(ALPHA, norm_top(smoothed_dense(q, w, how))), (LEX, norm_lex(sig.bm25w(q)))]
                )
            )

    def smoothed_fused(q: Question, w: float) -> dict[int, float]:
        base = default_scores(q)
        arr = np.zeros(len(corpus.segs))
        for k, s in base.items():
            arr[k] = s
        nb = sig.neighbour(arr, "mean")
        return {k: s + w * nb[k] for k, s in base.items()}

    for w in (0.1, 0.2, 0.3):
        out[f"r2 neighbours on fused mean w={w}"] = ranked(lambda q, w=w: smoothed_fused(q, w))

    # 4. fusion of four lists: window dense, unit dense, window BM25, unit BM25
    def four(q: Question) -> list[dict[int, float]]:
        win, unit, _ = sig.dense(q)
        return [norm_top(win), norm_top(unit), norm_lex(sig.bm25w(q)), norm_lex(sig.bm25u(q))]

    for ws in (
        (0.18, 0.42, 0.4, 0.0),
        (0.15, 0.45, 0.2, 0.2),
        (0.2, 0.5, 0.15, 0.15),
        (0.1, 0.5, 0.2, 0.2),
        (0.2, 0.4, 0.2, 0.2),
        (0.15, 0.55, 0.15, 0.15),
        (0.1, 0.6, 0.15, 0.15),
        (0.25, 0.45, 0.3, 0.0),
    ):
        out[f"r2 four-list convex {ws}"] = ranked(
            lambda q, ws=ws: convex(list(zip(ws, four(q), strict=True)))
        )
    for k in (10, 60):
        for ws in ((1, 1, 1, 1), (1, 2, 1, 1), (0.5, 1.5, 1, 1), (1, 2, 1, 0)):
            out[f"r2 four-list rrf k={k} {ws}"] = ranked(
                lambda q, ws=ws, k=k: rrf(list(zip(ws, four(q), strict=True)), k)
            )

    # what the four-list gain is made of: the dense weight, and the lexical mix
    for alpha in (0.65, 0.7, 0.75):
        out[f"r2 s2b + window BM25, a={alpha}"] = ranked(lambda q, a=alpha: default_scores(q, a))
        out[f"r2 s2b + half window half unit BM25, a={alpha}"] = ranked(
            lambda q, a=alpha: convex(
                [
                    (a, norm_top(sig.dense(q)[2])),
                    ((1 - a) / 2, norm_lex(sig.bm25w(q))),
                    ((1 - a) / 2, norm_lex(sig.bm25u(q))),
                ]
            )
        )
    out["r2 s2b + lexical summed (windows + units, raw), a=0.7"] = ranked(
        lambda q: convex(
            [(0.7, norm_top(sig.dense(q)[2])), (0.3, norm_lex(sig.bm25w(q) + sig.bm25u(q)))]
        )
    )

    # dense pooling over a segment's units: the best, plus a share of the second best
    @cache
    def unit_top2(q: Question) -> tuple[Arr, Arr]:
        cos = sig.unit_cos(sig.qvec(q))
        best = np.full(len(corpus.segs), -1.0)
        second = np.full(len(corpus.segs), -1.0)
        for k in range(len(corpus.segs)):
            v = np.sort(cos[sig.uowner == k])[::-1]
            best[k] = v[0]
            second[k] = v[1] if len(v) > 1 else v[0]
        return best, second

    for share in (0.2, 0.4):

        def pooled(q: Question, share: float = share) -> dict[int, float]:
            win = sig.dense(q)[0]
            best, second = unit_top2(q)
            dense = 0.7 * ((1 - share) * best + share * second) + 0.3 * win
            return convex([(ALPHA, norm_top(dense)), (LEX, norm_lex(sig.bm25w(q)))])

        out[f"r2 dense pool best + {share} second unit"] = ranked(pooled)

    # two unit sizes at once (48/24 and 32/16 words, both cached by variants.py)
    def multi(q: Question, w32: float) -> dict[int, float]:
        win, unit48, _ = sig.dense(q)
        unit32 = u32.seg_max(sig.qvec(q).astype(np.float32)).astype(np.float64)
        dense = 0.7 * ((1 - w32) * unit48 + w32 * unit32) + 0.3 * win
        return convex([(ALPHA, norm_top(dense)), (LEX, norm_lex(sig.bm25w(q)))])

    for w32 in (0.3, 0.5):
        out[f"r2 units 48 and 32 words, 32 share {w32}"] = ranked(lambda q, w=w32: multi(q, w))

    # 5. unit-level pseudo-relevance feedback: the question's vector moved toward its m best
    # units (Rocchio), and re-ranking the top 20 by the best unit's cosine
    def unit_prf(q: Question, beta: float, m: int) -> dict[int, float]:
        qv = sig.qvec(q)
        cos = sig.unit_cos(qv)
        top = np.argsort(-cos)[:m]
        nv = qv + beta * sig.uv[top].mean(axis=0)
        nv = nv / np.linalg.norm(nv)
        win = (corpus.vectors @ nv).astype(np.float64)
        dense = 0.7 * sig.seg_max(sig.unit_cos(nv)) + 0.3 * win
        return convex([(ALPHA, norm_top(dense)), (LEX, norm_lex(sig.bm25w(q)))])

    for beta, m in ((0.2, 3), (0.5, 3), (0.5, 10)):
        out[f"r2 unit PRF beta {beta} m {m}"] = ranked(lambda q, b=beta, m=m: unit_prf(q, b, m))

    def rerank_units(q: Question, gamma: float, n: int = 20) -> dict[int, float]:
        base = default_scores(q)
        top = sorted(base, key=lambda k: -base[k])[:n]
        vs = [c for c in (q.text, sig.trans.get(q.text)) if c] if q.lang != "en" else [q.text]
        best = np.max(
            np.stack([sig.seg_max(sig.unit_cos(corpus.query_vector(t))) for t in vs]), axis=0
        )
        vals = best[top]
        lo, hi = float(vals.min()), float(vals.max())
        out_s = dict(base)
        for k in top:
            out_s[k] = 10.0 + base[k] + gamma * (best[k] - lo) / max(hi - lo, 1e-9)
        return out_s

    for gamma in (0.2, 0.5):
        out[f"r2 rerank top 20 by best unit of question or translation, gamma {gamma}"] = ranked(
            lambda q, g=gamma: rerank_units(q, g)
        )

    # fusion after z-scores (over each list's top 50) instead of min-max, and the unit weight
    # of the dense score re-tuned now that questions in Portuguese are translated
    def zs(scores: Arr, lexical: bool) -> dict[int, float]:
        top = [
            k for k in np.argsort(-scores, kind="stable")[:DEPTH] if not lexical or scores[k] > 0
        ]
        if not top:
            return {}
        vals = scores[top]
        sd = float(vals.std()) or 1.0
        return {int(k): (float(scores[k]) - float(vals.mean())) / sd for k in top}

    def zfuse(q: Question, a: float) -> dict[int, float]:
        d, lx = zs(sig.dense(q)[2], False), zs(sig.bm25w(q), True)
        floor_d, floor_l = min(d.values()), min(lx.values(), default=0.0)
        return {k: a * d.get(k, floor_d) + (1 - a) * lx.get(k, floor_l) for k in set(d) | set(lx)}

    for a in (0.5, 0.6, 0.7):
        out[f"r2 z-score fusion a={a}"] = ranked(lambda q, a=a: zfuse(q, a))
    for uw in (0.6, 0.8, 0.9):

        def reweighted(q: Question, uw: float = uw) -> dict[int, float]:
            win, unit, _ = sig.dense(q)
            return convex(
                [(ALPHA, norm_top(uw * unit + (1 - uw) * win)), (LEX, norm_lex(sig.bm25w(q)))]
            )

        out[f"r2 unit weight {uw}"] = ranked(reweighted)

    # hubness: a unit (or window) close to many others of other lectures is close to many
    # questions too; its cosine is lowered by beta x its mean cosine to its k nearest such
    # neighbours (CSLS, Lample et al. 2018, with the library's own passages as the reference)
    @cache
    def hub(k: int) -> tuple[Arr, Arr]:
        lec_u = sig.lec_of[sig.uowner]
        uu = sig.uv @ sig.uv.T
        uu[lec_u[:, None] == lec_u[None, :]] = -1.0
        hu = np.sort(uu, axis=1)[:, -k:].mean(axis=1).astype(np.float64)
        ww = corpus.vectors @ corpus.vectors.T
        ww[sig.lec_of[:, None] == sig.lec_of[None, :]] = -1.0
        hw = np.sort(ww, axis=1)[:, -k:].mean(axis=1).astype(np.float64)
        return hu, hw

    def csls(q: Question, beta: float, k: int) -> dict[int, float]:
        hu, hw = hub(k)
        qv = sig.qvec(q)
        unit = sig.seg_max(sig.unit_cos(qv) - beta * hu)
        win = (corpus.vectors @ qv).astype(np.float64) - beta * hw
        return convex([(ALPHA, norm_top(0.7 * unit + 0.3 * win)), (LEX, norm_lex(sig.bm25w(q)))])

    settings = ((0.25, 10), (0.5, 10), (1.0, 10), (0.1, 10), (0.15, 10), (0.25, 3), (0.25, 30))
    for beta, k in settings:
        out[f"r2 hubness CSLS beta {beta} k {k}"] = ranked(lambda q, b=beta, k=k: csls(q, b, k))
    # the question embedded a second time as a passage (E5's `passage: ` prefix), summed with
    # its query vector: a paraphrase is closer in form to what was said than to a query
    pcache_path = HOME / "question_passage_vectors.json"
    pcache: dict[str, list[float]] = (
        json.loads(pcache_path.read_text()) if pcache_path.exists() else {}
    )

    def as_passage(text: str) -> Arr:
        if text not in pcache:
            pcache[text] = corpus.lib.embedder.embed_passages([text])[0].tolist()
            pcache_path.write_text(json.dumps(pcache))
        return np.asarray(pcache[text], dtype=np.float64)

    def passage_too(q: Question, w: float) -> dict[int, float]:
        qv = sig.qvec(q).astype(np.float64)
        texts = [q.text] + ([sig.trans[q.text]] if q.lang != "en" and q.text in sig.trans else [])
        pv = sum(as_passage(t) for t in texts)
        pv = pv / np.linalg.norm(pv)
        nv = qv + w * pv
        nv = (nv / np.linalg.norm(nv)).astype(np.float32)
        dense = 0.7 * sig.seg_max(sig.unit_cos(nv)) + 0.3 * (corpus.vectors @ nv)
        return convex([(ALPHA, norm_top(dense)), (LEX, norm_lex(sig.bm25w(q)))])

    for w in (0.3, 0.6, 1.0):
        out[f"r2 question also as a passage, weight {w}"] = ranked(lambda q, w=w: passage_too(q, w))

    # not a method: how far off the default is, if the answering lecture were known (its
    # segments first, in the default's order); and the default's lecture ranking alone (every
    # segment of the gold lecture counted gold)
    def oracle_lecture(q: Question, c: Corpus) -> list[int]:
        gold = {sp.lecture for sp in q.gold.spans}
        order_ = order(default_scores(q), sig.dense(q)[2])
        return [k for k in order_ if c.segs[k].lecture_id in gold] + [
            k for k in order_ if c.segs[k].lecture_id not in gold
        ]

    def lecture_only(q: Question, c: Corpus) -> list[int]:
        gold = {sp.lecture for sp in q.gold.spans}
        order_ = order(default_scores(q), sig.dense(q)[2])
        lectures = list(dict.fromkeys(c.segs[k].lecture_id for k in order_))
        # one representative per lecture, gold when the lecture is: rank = the lecture's rank
        reps: dict[str, int] = {}
        for k in order_:
            lec = c.segs[k].lecture_id
            if lec not in reps or (lec in gold and c.relevant(q, [k])[0]):
                reps.setdefault(lec, k)
                if lec in gold and c.relevant(q, [k])[0] and not c.relevant(q, [reps[lec]])[0]:
                    reps[lec] = k
        return [reps[lec] for lec in lectures]

    out["r2 oracle: the gold lecture known"] = oracle_lecture
    out["r2 oracle: lecture ranking only"] = lecture_only
    # lecture-level BM25: each lecture's whole transcript one document (in-memory FTS5, the
    # product's analyser); its min-max score, times gamma, added to its segments' fused score
    lecdb = sqlite3.connect(":memory:")
    lecdb.execute(
        "CREATE VIRTUAL TABLE l USING fts5 (terms, tokenize='unicode61 remove_diacritics 2')"
    )
    for li, lec_id in enumerate(sig.lec_ids):
        text = " ".join(seg.text for seg in corpus.segs if seg.lecture_id == lec_id)
        lang = corpus.lectures[lec_id].language
        lecdb.execute("INSERT INTO l (rowid, terms) VALUES (?, ?)", (li, index_terms(text, lang)))

    @cache
    def lecture_bm25(text: str) -> Arr:
        arr = np.zeros(len(sig.lec_ids))
        terms = query_terms(text, sig.ulex.languages)
        if terms:
            for rowid, r in lecdb.execute(
                "SELECT rowid, bm25(l) FROM l WHERE l MATCH ?", (match_expression(terms),)
            ):
                arr[int(rowid)] = -float(r)
        return arr / arr.max() if arr.max() > 0 else arr

    def lecture_lex(q: Question, gamma: float) -> dict[int, float]:
        base = default_scores(q)
        lb = lecture_bm25(sig.lex_text(q))
        return {k: s + gamma * lb[sig.lec_of[k]] for k, s in base.items()}

    for gamma in (0.05, 0.1, 0.2, 0.3):
        out[f"r2 lecture BM25 (whole transcript) gamma {gamma}"] = ranked(
            lambda q, g=gamma: lecture_lex(q, g)
        )

    # contextual units: each unit embedded with its lecture's title in front ("Title: text"),
    # so a unit that only says "so we do this" carries what it is about (cached in the home)
    @cache
    def titled_units() -> tuple[Arr, Arr]:
        path = HOME / "units_w48_24_titled.npy"
        texts: list[str] = []
        owner: list[int] = []
        for k, seg in enumerate(corpus.segs):
            title = corpus.lectures[seg.lecture_id].title
            for unit in split_units(seg.text):
                texts.append(f"{title}: {unit.text}")
                owner.append(k)
        if path.exists():
            vecs = np.load(path)
        else:
            print(f"embedding {len(texts)} units with their lecture's title...")
            vecs = np.asarray(corpus.lib.embedder.embed_passages(texts), dtype=np.float32)
            np.save(path, vecs)
        return vecs, np.asarray(owner)

    def titled(q: Question, mix: float) -> dict[int, float]:
        vecs, owner = titled_units()
        qv = sig.qvec(q)
        best = np.full(len(corpus.segs), -1.0)
        np.maximum.at(best, owner, (vecs @ qv).astype(np.float64))
        win, unit, _ = sig.dense(q)
        dense = 0.7 * (mix * best + (1 - mix) * unit) + 0.3 * win
        return convex([(ALPHA, norm_top(dense)), (LEX, norm_lex(sig.bm25w(q)))])

    for mix in (1.0, 0.5):
        out[f"r2 units with the lecture title, share {mix}"] = ranked(lambda q, m=mix: titled(q, m))
    return out
