"""The titles of the parts lecturetui cuts, against its authors' chapters: on the chapter benchmark
(bench/data/chapters/: real recordings with their authors' chapters, ingested without them, so
every part is cut by lecturetui), each part's title by key phrase (core/study/keyphrases.py, as
found at ingest) and by the word-run title it had before (core/study/parts.py `title()`).

    .venv/bin/python bench/keyphrase_bench.py [--candidates 40] [--out FILE.jsonl] [--quick]

A part is set against the author's chapter it starts in; a phrase matches when it shares a
content word with that chapter's title (case and accents folded, the language's stop words left
out, words compared on their first 5 letters; the titles are English, the pt-BR entry's too, so
its phrases match only by cognates). Reported per kind of recording: the share of parts whose
title matches, whose three key phrases hold one that does, and the seconds the key phrases of a
recording take (E5 loaded; its load is given apart). The bench home (bench/data/realistic/
chapters_home, made by chapters_bench.py) is copied first: nothing is written to it. `--quick`:
one lecture in a temporary home (the whole path in seconds: a check, no figures).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import chapters_bench
from chapters_bench import entries, library

_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")


def scoring_stop(language: str) -> frozenset[str]:
    """The stop words the scoring leaves out (package stop-words alone, whatever the product's
    key phrases leave out: the scoring is the same for every setting)."""
    from stop_words import AVAILABLE_LANGUAGES, get_stop_words

    from lecturetui.core.language import language_name
    from lecturetui.core.study.keyphrases import fold

    name = language_name(language.split("-")[0]).lower()
    return (
        frozenset(fold(w) for w in get_stop_words(name))
        if name in AVAILABLE_LANGUAGES
        else frozenset()
    )


def stems(text: str, stop: frozenset[str]) -> set[str]:
    from lecturetui.core.study.keyphrases import fold

    return {w[:5] for w in _WORD.findall(fold(text)) if w not in stop and len(w) >= 3}


def chapter_at(row: dict[str, Any], start: float) -> str:
    """The title of the author's chapter the moment `start` falls in."""
    found = row["chapters"][0]["title"]
    for ch in row["chapters"]:
        if ch["start_s"] <= start + 1.0:
            found = ch["title"]
    return str(found)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--candidates", type=int, default=None, help="MAX_CANDIDATES per text")
    ap.add_argument("--common", type=int, default=None, help="COMMON_WORDS")
    ap.add_argument("--out", type=Path, default=None, help="every part's titles, as JSON lines")
    ap.add_argument("--quick", action="store_true", help="one lecture: a check, no figures")
    args = ap.parse_args()
    if args.quick:
        chapters_bench.use_quick()

    from lecturetui.core.study import keyphrases as kp
    from lecturetui.core.study.lecture_keyphrases import Sources, find_keyphrases
    from lecturetui.core.study.parts import title

    if args.candidates:
        kp.MAX_CANDIDATES = args.candidates
    if args.common is not None:
        kp.COMMON_WORDS = args.common
    library().close()  # every recording ingested once (chapters_bench's home)
    work = Path(tempfile.mkdtemp(prefix="kp-bench-"))
    shutil.copytree(chapters_bench.HOME, work / "home")
    chapters_bench.HOME = work / "home"
    lib = library()
    t0 = time.perf_counter()
    lib.embedder  # noqa: B018 - loads it
    print(f"E5 loaded in {time.perf_counter() - t0:.1f} s")
    rows = {r["id"]: r for r in entries("both")}
    sources = Sources(lib.store, lib.unit_index(create=False), lambda: lib.embedder)
    tally: dict[str, list[tuple[bool, bool, bool]]] = defaultdict(list)
    seconds: list[float] = []
    out = args.out.open("w", encoding="utf-8") if args.out else None
    for lecture in lib.lectures():
        row = rows.get(lecture.title)
        if row is None:
            continue
        t = time.perf_counter()
        kept = find_keyphrases(sources, lecture)
        seconds.append(time.perf_counter() - t)
        parts = lib.parts(lecture)
        stop = scoring_stop(row["language"])
        for p in parts:
            others = [q.text for q in parts if q is not p]
            old = title([p.text], others)
            found = kept.of_part(p.start) if kept else ()
            gold = stems(chapter_at(row, p.start), scoring_stop("en"))
            tally[row["kind"]].append((
                bool(stems(old, stop) & gold),
                bool(found and stems(found[0], stop) & gold),
                any(stems(f, stop) & gold for f in found),
            ))  # fmt: skip
            if out:
                out.write(json.dumps({"id": row["id"], "start_s": p.start,
                                      "chapter": chapter_at(row, p.start), "title": old,
                                      "keyphrases": list(found)}, ensure_ascii=False) + "\n")  # fmt: skip
    lib.close()
    shutil.rmtree(work, ignore_errors=True)
    print("| kind | parts | title() matches | first key phrase | any of 3 key phrases |")
    print("|---|---:|---:|---:|---:|")
    every = [x for v in tally.values() for x in v]
    for kind, got in [*sorted(tally.items()), ("all", every)]:
        n = len(got)
        print(f"| {kind} | {n} | " + " | ".join(f"{sum(g[i] for g in got) / n:.3f}"
                                                  for i in range(3)) + " |")  # fmt: skip
    print(f"key phrases per recording: median {statistics.median(seconds):.2f} s, "
          f"max {max(seconds):.2f} s, {len(seconds)} recordings")  # fmt: skip


if __name__ == "__main__":
    main()
