"""The default ranking on libraries segmented with other window lengths and overlaps (issue 12).

    REALISTIC_HOME=bench/data/realistic/home_w90_30 REALISTIC_WINDOW=90/30 \\
        .venv/bin/python bench/segmenting_sweep.py --half tune

The first run in a new home ingests the 56 lectures with that segmenting (the product's own
ingest, which embeds the windows and their small units); later runs read the vectors back. The
ranking is `r2 default` of bench/ranking_ideas.py (small-to-big + BM25 on the windows, a
Portuguese question searched with its translation), scored with the product's metrics: a hit is
gold when its window overlaps a gold span, so the figures of different segmentings are
comparable only with the window length beside them (a longer window overlaps gold more easily).
Copy `translations.json` and `query_vectors.json` from the default home into a new one first.
"""

from __future__ import annotations

import argparse

import numpy as np
from _realistic import QUESTIONS, WINDOW, Corpus, Question, Ranker, library, load_questions, report
from ranking_ideas import Signals, default_ranker

from lecturetui.core.retrieval.small_unit_index import segment_of
from lecturetui.core.retrieval.small_units import MAX_UNITS, split_units


class ProductUnits:
    """The small units' vectors as the product's unit index holds them."""

    def __init__(self, corpus: Corpus) -> None:
        index = corpus.lib.unit_index()
        labels = sorted(index.labels())
        self.vectors = np.asarray(index.vectors(labels), dtype=np.float32)
        self.owner = np.asarray([corpus.pos[segment_of(label)] for label in labels])
        texts = {k: split_units(seg.text) for k, seg in enumerate(corpus.segs)}
        self.texts = [texts[corpus.pos[segment_of(lab)]][lab % MAX_UNITS].text for lab in labels]


def same_moment_rankers(sig: Signals, units: ProductUnits) -> dict[str, Ranker]:
    """The default ranking with repeated moments moved down: a hit that shows again what a hit
    above it already shows (an overlapping window of the same lecture) goes below the others.

    `time f`: it overlaps a kept hit by at least f of its own length; `match`: its best unit's
    words are in a kept hit's text (the reason it matched is in the overlap)."""
    base = default_ranker(sig)
    top_n = 40

    def collapse(q: Question, c: Corpus, same: str, f: float = 0.0) -> list[int]:
        ranking = base(q, c)
        head, tail = ranking[:top_n], ranking[top_n:]
        best_text: dict[int, str] = {}
        if same == "match":
            cos = sig.unit_cos(sig.qvec(q))
            for k in head:
                mine = np.flatnonzero(units.owner == k)
                if len(mine):
                    best_text[k] = units.texts[int(mine[np.argmax(cos[mine])])]
        kept: list[int] = []
        moved: list[int] = []
        for k in head:
            seg = c.segs[k]
            dup = False
            for j in kept:
                other = c.segs[j]
                if other.lecture_id != seg.lecture_id:
                    continue
                if same == "match":
                    dup = k in best_text and best_text[k] in other.text
                else:
                    shared = min(seg.end, other.end) - max(seg.start, other.start)
                    dup = shared > 0 and shared >= f * (seg.end - seg.start)
                if dup:
                    break
            (moved if dup else kept).append(k)
        return kept + moved + tail

    out: dict[str, Ranker] = {}
    for f in (0.0, 0.25, 0.5):
        out[f"same moment down: time {f}"] = lambda q, c, f=f: collapse(q, c, "time", f)
    out["same moment down: match"] = lambda q, c: collapse(q, c, "match")
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--half", choices=["tune", "heldout", "both"], default="tune")
    args = parser.parse_args()
    halves = ["tune", "heldout"] if args.half == "both" else [args.half]
    questions = load_questions(QUESTIONS)
    corpus = Corpus(library())
    units = ProductUnits(corpus)
    sig = Signals(corpus, units.vectors, units.owner)
    lengths = [s.end - s.start for s in corpus.segs]
    print(
        f"window/overlap {WINDOW}: {len(corpus.segs)} segments, {len(units.owner)} units, "
        f"median window {np.median(lengths):.0f} s"
    )
    rankers = {f"default, windows {WINDOW}": default_ranker(sig)}
    rankers.update(same_moment_rankers(sig, units))
    for half in halves:
        print(f"\n{half} half")
        report(corpus, [q for q in questions if q.half == half], rankers, compare="default")
    corpus.save()


if __name__ == "__main__":
    main()
