"""Chapters against the authors' own: boundary F1 within ±30 s and ±60 s on the chapter
benchmark (bench/data/chapters/: real recordings with human chapter markers), against two
baselines with the same number of chapters as the author's: even splits, and cuts at the
largest pauses between captions.

    .venv/bin/python bench/chapters_bench.py [--half tune|held-out|both] [--titles FILE.jsonl]
        [--target 240] [--window 90] [--min 90] [--oracle] [--quick]

Each recording is ingested as `lecturetui ingest` does (into a bench home, once; E5 only), and
its chapters are made by the product's parts (core/study/parts.py) from its units' vectors (the E5
vectors of the unit index). `--oracle` gives it the author's number of chapters, as the
baselines have.
`--titles` writes every chapter made with its time, title and the author's nearest chapter, for
a reader to judge the titles. `--quick`: one 9-minute lecture in a temporary home (the whole path
in seconds: a check, no figures).
"""

from __future__ import annotations

import argparse
import atexit
import itertools
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, cut_captions

DATA = ROOT / "bench" / "data" / "chapters"
HOME = ROOT / "bench" / "data" / "realistic" / "chapters_home"
#: a script's --quick (here, keyphrase_bench.py, summary_bench.py): this recording alone
QUICK_IDS = ("py4e-ch09-p2-dictionaries-en",)
#: the recordings `entries` gives (None: all); use_quick sets QUICK_IDS
ONLY: tuple[str, ...] | None = None
#: where use_quick wrote shortened copies of the captions (None: the benchmark's own)
SHORTENED: Path | None = None
SRT_TIME = re.compile(r"(\d+):(\d+):(\d+)[,.](\d+)\s*-->\s*(\d+):(\d+):(\d+)[,.](\d+)")


def f1(pred: list[float], gold: list[float], tol: float) -> tuple[int, int, int]:
    """(matched, predicted, gold) boundaries, each matched at most once within `tol` s."""
    free = sorted(gold)
    hit = 0
    for p in sorted(pred):
        near = [g for g in free if abs(g - p) <= tol]
        if near:
            free.remove(min(near, key=lambda g: abs(g - p)))
            hit += 1
    return hit, len(pred), len(gold)


def score(counts: list[tuple[int, int, int]]) -> float:
    hit = sum(c[0] for c in counts)
    pred = sum(c[1] for c in counts)
    gold = sum(c[2] for c in counts)
    p = hit / pred if pred else 0.0
    r = hit / gold if gold else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def cues(path: Path) -> list[tuple[float, float]]:
    """(start, end) of every caption or paragraph, from the file itself."""
    if path.suffix == ".json":
        data = json.loads(path.read_text("utf-8"))
        return [(float(s["start"]), float(s["end"])) for s in data["segments"]]
    out = []
    for m in SRT_TIME.finditer(path.read_text("utf-8", "replace")):
        g = [int(x) for x in m.groups()]
        out.append((g[0] * 3600 + g[1] * 60 + g[2] + g[3] / 1000,
                    g[4] * 3600 + g[5] * 60 + g[6] + g[7] / 1000))  # fmt: skip
    return out


def pauses(path: Path, k: int, start: float, end: float, min_gap: float) -> list[float]:
    spans = sorted(cues(path))
    gaps = sorted(((b[0] - a[1], b[0]) for a, b in itertools.pairwise(spans)),
                  reverse=True)  # fmt: skip
    picked: list[float] = []
    for _gap, t in gaps:
        if len(picked) >= k:
            break
        if (
            t - start >= min_gap
            and end - t >= min_gap
            and all(abs(t - p) >= min_gap for p in picked)
        ):
            picked.append(t)
    return sorted(picked)


def library() -> Any:
    os.environ.setdefault("LECTURETUI_MODELS", str(ROOT / "models"))
    from lecturetui.core.ingest.pipeline import IngestOptions
    from lecturetui.core.library import Library
    from lecturetui.core.paths import DataHome

    lib = Library(DataHome.resolve(HOME), rerank=False)
    have = {lec.title for lec in lib.lectures()}
    for row in entries("both"):
        if row["id"] not in have:
            lib.ingest([captions(row)], IngestOptions(title=row["id"]))
    return lib


def entries(half: str) -> list[dict[str, Any]]:
    rows = [json.loads(x) for x in (DATA / "lectures.jsonl").read_text("utf-8").splitlines()]
    return [r for r in rows if half in ("both", r["half"]) and (ONLY is None or r["id"] in ONLY)]


def use_quick(seconds: float | None = None) -> Path:
    """The recordings of QUICK_IDS alone (`seconds`: their captions cut there), in a temporary
    bench home (removed at exit): the folder it is in, for the other homes a script's --quick
    makes."""
    global HOME, ONLY, SHORTENED
    folder = Path(tempfile.mkdtemp(prefix="lt-bench-quick-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    HOME, ONLY = folder / "chapters_home", QUICK_IDS
    if seconds is not None:
        SHORTENED = folder / "captions"
        SHORTENED.mkdir()
        for row in entries("both"):
            source = DATA / row["captions_file"]
            (SHORTENED / source.name).write_text(cut_captions(source, seconds), "utf-8")
    return folder


def captions(row: dict[str, Any]) -> Path:
    """A recording's captions file (use_quick's shortened copy, where it made one)."""
    name = DATA / row["captions_file"]
    return SHORTENED / name.name if SHORTENED is not None else name


def units_of(lib: Any, lecture_id: str) -> tuple[list[Any], Any, float, float]:
    """The lecture's sentences in time (overlapping windows read once) and their units' E5
    vectors, as the product cuts a lecture into parts (core/study/parts.py)."""
    from lecturetui.core.retrieval.small_units import MAX_UNITS
    from lecturetui.core.study.parts import timeline

    segments = lib.store.segments(lecture_id)
    line = timeline(segments, MAX_UNITS)
    return line.said, lib.unit_index().vectors(line.labels), segments[0].start, segments[-1].end


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--half", choices=["tune", "held-out", "both"], default="tune")
    ap.add_argument("--target", type=float, default=None)
    ap.add_argument("--window", type=float, default=None)
    ap.add_argument("--min", type=float, default=None)
    ap.add_argument("--titles", type=Path, default=None)
    ap.add_argument("--oracle", action="store_true", help="as many chapters as the author's")
    ap.add_argument("--quick", action="store_true", help="one lecture: a check, no figures")
    args = ap.parse_args()
    if args.quick:
        use_quick()
        args.half = "both"
    from lecturetui.core.study import parts as ch

    lib = library()
    by_title = {lec.title: lec.id for lec in lib.lectures()}
    target = args.target or ch.TARGET_S
    window = args.window or ch.WINDOW_S
    min_s = args.min or ch.MIN_PART_S
    results: dict[str, dict[float, list[tuple[int, int, int]]]] = {}
    titles = []
    for row in entries(args.half):
        gold = [c["start_s"] for c in row["chapters"]][1:]
        units, vectors, start, end = units_of(lib, by_title[row["id"]])
        goal = (end - start) / (len(gold) + 1) if args.oracle else target
        made = ch.boundaries([u.time for u in units], vectors, start, end, goal, min_s, window)
        k = len(gold)
        step = (end - start) / (k + 1)
        even = [start + step * (i + 1) for i in range(k)]
        pause = pauses(captions(row), k, start, end, min_s)
        for name, pred in (("candidate", made), ("even split", even), ("largest pauses", pause)):
            for kind in ("all", row["kind"] if row["kind"] in ("lecture", "podcast") else "talk"):
                for tol in (30.0, 60.0):
                    results.setdefault(f"{name}|{kind}", {}).setdefault(tol, []).append(
                        f1(pred, gold, tol)
                    )
        if args.titles:
            cuts = [start, *made, end]
            for a, b in itertools.pairwise(cuts):
                inside = [u.text for u in units if a <= u.time < b]
                made_title = ch.title(inside, [u.text for u in units if not a <= u.time < b])
                near = min(row["chapters"], key=lambda g: abs(g["start_s"] - a))
                titles.append(
                    {
                        "id": row["id"],
                        "start_s": round(a),
                        "title": made_title,
                        "author_start_s": near["start_s"],
                        "author_title": near["title"],
                    }
                )
    print("| method | kind | F1 ±30 s | F1 ±60 s | boundaries made / author's |")
    print("|---|---|---|---|---|")
    for key, by_tol in sorted(results.items(), key=lambda kv: (kv[0].split("|")[1], kv[0])):
        name, kind = key.split("|")
        made_n = sum(c[1] for c in by_tol[60.0])
        gold_n = sum(c[2] for c in by_tol[60.0])
        print(
            f"| {name} | {kind} | {score(by_tol[30.0]):.3f} | {score(by_tol[60.0]):.3f} |"
            f" {made_n} / {gold_n} |"
        )
    if args.titles:
        args.titles.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in titles))


if __name__ == "__main__":
    main()
