"""The realistic benchmark's library, questions and scoring, shared by the bench scripts
(`bench/rerank.py`, `bench/answer_points.py`, `bench/quote_bench.py`, `bench/gpu_carry.py`).

Needs the lectures (`python bench/data/build_realistic.py`). The first run ingests them into
`bench/data/realistic/home` with the product's own ingest (default segmenting); the scripts
cache what they compute there too. A ranking is scored with the product's own metrics
(`core/evaluation/metrics.py`): a hit is gold when it overlaps a gold span.
"""

from __future__ import annotations

import atexit
import csv
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from _common import ROOT, cut_captions

from lecturetui.core.evaluation.metrics import Gold, RetrievalScores, Span
from lecturetui.core.timefmt import parse_timestamp

DATA = ROOT / "bench" / "data"
LECTURES = DATA / "realistic" / "lectures"
#: the bench home (library + caches); another home measures another segmenting (see `window`)
HOME = Path(os.environ.get("REALISTIC_HOME", DATA / "realistic" / "home"))
#: window / overlap in seconds of the library's segments, as `120/35` (the product's default)
WINDOW = os.environ.get("REALISTIC_WINDOW", "120/35")
QUESTIONS = DATA / "realistic_questions.jsonl"
#: a script's --quick (tests/test_bench.py runs every script so): a library of this lecture alone,
#: from the chapter benchmark's committed captions (no download), its first QUICK_SECONDS (the
#: gold moments of hc-09, ak-13 and ak-28 are there), in a temporary home
QUICK_LECTURES = {
    "py4e-ch06-p1-strings": DATA / "chapters" / "captions" / "py4e-ch06-p1-strings-en.srt"
}
QUICK_SECONDS = 240.0


def use_quick() -> Path:
    """Point LECTURES and HOME at a temporary folder holding QUICK_LECTURES (removed at exit);
    returns the new HOME. Scripts that imported HOME by name set theirs from this."""
    global HOME, LECTURES
    folder = Path(tempfile.mkdtemp(prefix="lt-bench-quick-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    LECTURES = folder / "lectures"
    LECTURES.mkdir()
    for name, source in QUICK_LECTURES.items():
        (LECTURES / f"{name}.srt").write_text(cut_captions(source, QUICK_SECONDS), "utf-8")
    HOME = folder / "home"
    return HOME


def quick_rows(rows: list[dict[str, Any]], n: int | None = None) -> list[dict[str, Any]]:
    """The question rows (realistic_questions.jsonl, answer_keypoints.jsonl) with a gold moment
    in QUICK_LECTURES, at most `n`."""
    return [
        r for r in rows if {s["lecture"] for s in r.get("spans") or [r]} & QUICK_LECTURES.keys()
    ][:n]


@dataclass(frozen=True)
class Question:
    qid: str
    lang: str
    style: str
    half: str
    text: str
    gold: Gold


def load_questions(path: Path) -> list[Question]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        spans = row.get("spans") or [row]
        gold = Gold(
            spans=tuple(
                Span(s["lecture"], parse_timestamp(str(s["start"])), parse_timestamp(str(s["end"])))
                for s in spans
            )
        )
        out.append(
            Question(row["qid"], row["lang"], row["style"], row["half"], row["question"], gold)
        )
    return out


def library() -> Any:
    from lecturetui.core.ingest.pipeline import IngestOptions
    from lecturetui.core.ingest.segmenting import SegmentConfig
    from lecturetui.core.library import Library
    from lecturetui.core.paths import DataHome

    os.environ.setdefault("LECTURETUI_MODELS", str(ROOT / "models"))
    lib = Library(DataHome.resolve(HOME))
    if lib.counts()[1] == 0:
        files = sorted(LECTURES.glob("*.srt"))
        if not files:
            raise SystemExit("no lectures: run python bench/data/build_realistic.py first")
        titles = {r["id"]: r["title"] for r in csv.DictReader((DATA / "py4e_lectures.csv").open())}
        window_s, overlap_s = (float(x) for x in WINDOW.split("/"))
        t0 = time.perf_counter()
        for f in files:
            options = IngestOptions(
                course="Python for Everybody",
                title=titles.get(f.stem),
                segment_config=SegmentConfig(window_s, overlap_s),
            )
            lib.ingest([f], options)
        print(f"ingested {len(files)} lectures in {time.perf_counter() - t0:.1f} s")
    return lib


def quick_questions(questions: list[Question]) -> list[Question]:
    """The questions with a gold moment in QUICK_LECTURES."""
    return [q for q in questions if {s.lecture for s in q.gold.spans} & QUICK_LECTURES.keys()]


class Corpus:
    """Every segment of the library, in a fixed order (a ranking is positions into `segs`), and
    which of them answer a question."""

    def __init__(self, lib: Any) -> None:
        self.lib = lib
        store = lib.store
        self.ids = sorted(store.all_segment_ids())
        segs = store.segments_by_id(self.ids)
        self.segs = [segs[i] for i in self.ids]
        self.lectures = {lec.id: lec for lec in lib.lectures()}
        self.pos = {sid: k for k, sid in enumerate(self.ids)}

    def relevant(self, q: Question, ranking: list[int]) -> list[bool]:
        out = []
        for k in ranking:
            seg = self.segs[k]
            lec = self.lectures[seg.lecture_id]
            out.append(q.gold.matches(None, [lec.id, lec.title], seg.start, seg.end))
        return out

    def n_gold(self, q: Question) -> int:
        return sum(self.relevant(q, list(range(len(self.segs)))))


Ranker = Callable[[Question, Corpus], list[int]]  # positions into Corpus.segs, best first


def report(
    corpus: Corpus,
    questions: list[Question],
    rankers: dict[str, Ranker],
    compare: str | None = None,
) -> None:
    groups: dict[str, Callable[[Question], bool]] = {
        "all": lambda q: True,
        "en": lambda q: q.lang == "en",
        "pt": lambda q: q.lang == "pt",
        "en para": lambda q: q.lang == "en" and q.style == "paraphrase",
        "pt para": lambda q: q.lang == "pt" and q.style == "paraphrase",
        "terms": lambda q: q.style == "terms",
    }
    print("| variant | " + " | ".join(f"{g} R@1 / R@10 / MRR" for g in groups) + " |")
    print("|---|" + "---|" * len(groups))
    rr: dict[str, list[float]] = {}
    for name, rank in rankers.items():
        scores = {g: RetrievalScores() for g in groups}
        rr[name] = []
        for q in questions:
            ranking = rank(q, corpus)[:10]
            row = RetrievalScores().add(corpus.relevant(q, ranking), corpus.n_gold(q))
            rr[name].append(row["mrr"])
            for g, pred in groups.items():
                if pred(q):
                    scores[g].add_row(row)
        cells = []
        for g in groups:
            m = scores[g].means()
            cells.append(
                f"{m['recall@1']:.2f} / {m['recall@10']:.2f} / {m['mrr']:.3f} ({scores[g].n})"
                if m
                else "-"
            )
        print(f"| {name} | " + " | ".join(cells) + " |")
    if compare:
        paired(rr, compare)


def paired(rr: dict[str, list[float]], base_name: str) -> None:
    """Each variant's MRR against one base, question by question: the mean difference, its
    95% bootstrap interval (10,000 resamples of the questions) and the questions won / lost."""
    base = [k for k in rr if base_name in k]
    if not base:
        return
    b = np.asarray(rr[base[0]])
    rng = np.random.default_rng(0)
    idx = rng.integers(0, len(b), size=(10_000, len(b)))
    print(f"\nPaired against {base[0]!r}: MRR difference [95% bootstrap], questions won / lost")
    for name, values in rr.items():
        d = np.asarray(values) - b
        lo, hi = np.percentile(d[idx].mean(axis=1), [2.5, 97.5])
        won, lost = int((d > 1e-9).sum()), int((d < -1e-9).sum())
        print(f"  {d.mean():+.3f} [{lo:+.3f}, {hi:+.3f}] {won:3d} / {lost:3d}  {name}")
