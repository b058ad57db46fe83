"""Summaries of whole lectures against their authors' chapters: on lectures of the chapter
benchmark (bench/data/chapters/), ingested WITHOUT their chapters, the product's own
`summary_events` (core/summary/writing.py) writes each summary with the default answer model, in
English and in Portuguese; each row holds the parts with their times, the lecturer's sentences,
the part summaries, the struck sentences, the gist, the authors' chapters and the seconds.

    .venv/bin/python bench/summary_bench.py [--ids ID ...] [--languages English Portuguese]
        [--out bench/data/summaries/rows.jsonl] [--cli ID] [--figures-only] [--labels [FILE]]
        [--quick]

Figures (printed, and recomputed from the rows with --figures-only):
* reach: the share of the authors' chapters in which some part of the summary starts (the part's
  start inside [chapter start, next chapter start)), the opening chapter left aside when it is
  an introduction (its title says "Introduction", or it lasts under 30 s) and the last when it is
  a closing (its title says final/closing/conclusion/wrap-up/summary); also with the parts the
  gist cites only;
* parts per summary, parts the gist cites, struck sentences, seconds per lecture (the model
  already loaded; the model's load is timed once), and again when read back.
* `--cli ID`: `lecturetui summary ID` as a real process from its start, in a fresh copy of the
  bench home (nothing written yet), then again (the summary kept).

Summaries are kept in the bench home and read back on a later run: `--fresh` starts from a new
copy of the ingested lectures. `--home H --out F --languages L` runs one language beside another.
The hand-read labels (bench/data/summary_labels.jsonl) are scored with --labels. `--quick`: the
first 2 minutes of one lecture, in English, by the small model, in a temporary folder, then the
figures, the reader's sheet and the labels (the whole path in seconds: a check, no figures; not
`--cli`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import chapters_bench
from _common import ROOT, answer_model
from chapters_bench import captions, entries

OUT = ROOT / "bench" / "data" / "summaries"
#: the ingested lectures before any summary is written (copied for each fresh run)
INGESTED = OUT / "ingested_home"
HOME = OUT / "home"
LABELS = ROOT / "bench" / "data" / "summary_labels.jsonl"
#: the classroom lectures of 10 minutes or more, and a 23-minute explainer episode
DEFAULT_IDS = (
    "py4e-ch01-p1-introduction-en",
    "py4e-ch01-p4-introduction-en",
    "py4e-ch06-p1-strings-en",
    "py4e-ch10-p2-tuples-en",
    "py4e-ch11-p1-regex-en",
    "btc-chaincode-chaincode-decoded-blockchain",
)
_CLOSING = re.compile(r"final|closing|conclu|wrap|summary|outro|recap", re.I)
#: --quick: the seconds of the lecture kept
QUICK_SECONDS = 120.0
#: the secondary reach figure: a part starting this many seconds before a chapter reaches it
EARLY_S = 10.0
_CITE = re.compile(r"\[(\d+)\]")
#: a summary's sentences for the reader's sheet, a code term's dot kept inside its sentence (the
#: rule the product used while it checked the model's sentences)
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[^\s.!?]))+(?:[.!?]+(?:\s*\[[\d,;\s]+\])*|$)")


def sentences(text: str) -> list[str]:
    return [x.strip() for x in _SENTENCE.findall(text) if x.strip()]


def counted(chapters: list[dict[str, Any]]) -> list[int]:
    """Positions of the chapters that count for reach (introduction and closing aside)."""
    keep = list(range(len(chapters)))
    if _opening(chapters):
        keep.remove(0)
    if _CLOSING.search(chapters[-1]["title"]) and len(keep) > 1:
        keep.remove(len(chapters) - 1)
    return keep


def _opening(chapters: list[dict[str, Any]]) -> bool:
    first = chapters[0]
    return (
        "introduction" in first["title"].lower() or chapters[1]["start_s"] - first["start_s"] < 30
    )


def reached(
    chapters: list[dict[str, Any]], starts: list[float], joined: bool = False, early: float = 0.0
) -> list[bool]:
    """For each chapter, whether some part starts inside it (`joined`: an introduction set aside
    belongs to the chapter after it, so the lecture's first part reaches that chapter; `early`:
    a part starting up to this many seconds before a chapter reaches it)."""
    bounds = [c["start_s"] for c in chapters] + [float("inf")]
    if joined and _opening(chapters):
        bounds[1] = bounds[0]
    return [
        any(bounds[i] <= s + early < bounds[i + 1] for s in starts) for i in range(len(chapters))
    ]


def ingested(ids: list[str], home: Path | None = None) -> Any:
    """The bench library with the chosen lectures, ingested as `lecturetui ingest` does, without
    their chapters (the caption files carry none); kept once in INGESTED, copied to `home`
    (HOME)."""
    home = home or HOME
    os.environ.setdefault("LECTURETUI_MODELS", str(ROOT / "models"))
    from lecturetui.core.ingest.pipeline import IngestOptions
    from lecturetui.core.library import Library
    from lecturetui.core.paths import DataHome

    rows = {r["id"]: r for r in entries("both")}
    lib = Library(DataHome.resolve(INGESTED), rerank=False)
    have = {lec.title for lec in lib.lectures()}
    for i in ids:
        if i not in have:
            lib.ingest([captions(rows[i])], IngestOptions(title=i))
    lib.find_keyphrases()  # of lectures ingested before key phrases were found at ingest
    lib.close()
    if not home.exists():
        shutil.copytree(INGESTED, home)
    return Library(DataHome.resolve(home), rerank=False)


def summarise(lib: Any, lecture: Any, generator: Any, language: str) -> dict[str, Any]:
    """One summary through the product's summary_events, timed part by part."""
    from lecturetui.core.summary.events import GistWritten, PartsReady, PartWritten
    from lecturetui.core.summary.writing import summary_events

    t0 = time.perf_counter()
    parts: list[dict[str, Any]] = []
    gist = None
    ready = 0.0
    last = t0
    for event in summary_events(lib, lecture, lambda: generator, language, threading.Event()):
        now = time.perf_counter()
        if isinstance(event, PartsReady):
            ready = now - t0
            for p in event.parts:
                parts.append({"number": p.number, "start_s": round(p.start, 1),
                              "end_s": round(p.end, 1), "title": p.title,
                              "said": [s.text for s in p.sentences], "digest": p.digest,
                              "text": p.text, "phrases": list(p.phrases)})  # fmt: skip
        elif isinstance(event, PartWritten):
            row = parts[event.part.number - 1]
            row.update(summary=event.written.label, struck=list(event.written.refused),
                       seconds=round(now - last, 1))  # fmt: skip
        elif isinstance(event, GistWritten):
            gist = {"summary": event.gist.label, "struck": list(event.gist.refused),
                    "seconds": round(now - last, 1)}  # fmt: skip
        last = now
    return {"parts": parts, "gist": gist, "seconds": round(time.perf_counter() - t0, 1),
            "parts_ready_s": round(ready, 2)}  # fmt: skip


def figures(rows: list[dict[str, Any]]) -> None:
    for lang in sorted({r["language"] for r in rows}):
        mine = [r for r in rows if r["language"] == lang]
        hits = {"strict": 0, "joined": 0, "cited": 0, "early": 0}
        total = 0
        for r in mine:
            chapters = r["chapters"]
            keep = counted(chapters)
            starts = [p["start_s"] for p in r["parts"] if p.get("summary")]
            cited = {int(n) for n in _CITE.findall(r["gist"]["summary"] if r["gist"] else "")}
            cited_starts = [p["start_s"] for p in r["parts"] if p["number"] in cited]
            mine_hits = {
                "strict": reached(chapters, starts),
                "joined": reached(chapters, starts, joined=True),
                "cited": reached(chapters, cited_starts, joined=True),
                "early": reached(chapters, starts, joined=True, early=EARLY_S),
            }
            for k, by in mine_hits.items():
                hits[k] += sum(by[i] for i in keep)
            total += len(keep)
            struck = sum(len(p.get("struck", [])) for p in r["parts"])
            print(f"{lang:10} {r['id'][:44]:44} parts {len(r['parts']):2}  reach "
                  f"{sum(mine_hits['joined'][i] for i in keep)}/{len(keep)} (strict "
                  f"{sum(mine_hits['strict'][i] for i in keep)})  gist cites {len(cited)}  "
                  f"struck {struck}+{len(r['gist']['struck']) if r['gist'] else 0}  "
                  f"{r['seconds']:.0f} s (again {r.get('again_s', float('nan')):.1f} s)")  # fmt: skip
        secs = [r["seconds"] for r in mine]
        three = sum(len(set(_CITE.findall(r["gist"]["summary"] if r["gist"] else ""))) >= 3
                    for r in mine)  # fmt: skip
        print(
            f"{lang}: reach {hits['joined']}/{total} = {hits['joined'] / total:.0%} (strict, "
            f"the introduction apart: {hits['strict'] / total:.0%}; by the parts the gist cites: "
            f"{hits['cited'] / total:.0%}; a part starting up to {EARLY_S:.0f} s before the "
            f"chapter counted: {hits['early'] / total:.0%}); parts per summary "
            f"{statistics.mean(len(r['parts']) for r in mine):.1f}; gists citing 3+ parts "
            f"{three}/{len(mine)}; seconds per lecture median {statistics.median(secs):.0f} "
            f"(max {max(secs):.0f}), per minute of lecture "
            f"{statistics.mean(r['seconds'] / (r['duration_s'] / 60) for r in mine):.1f} s\n"
        )


def labels(path: Path = LABELS) -> None:
    """The hand-read labels: whether the summary of the part reaching a chapter says what the
    chapter is about (yes/partly/no); whether each summary sentence is borne out by the lecture
    (yes/no; "cut": a sentence cut off by the token limit, counted apart); whether each struck
    sentence was in fact borne out."""
    rows = [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]
    for lang in [*sorted({r["language"] for r in rows}), "all"]:
        mine = [r for r in rows if lang in ("all", r["language"])]
        a = [r["label"] for r in mine if r["kind"] == "chapter"]
        s = [r["label"] for r in mine if r["kind"] == "sentence"]
        gist = [r["label"] for r in mine if r["kind"] == "sentence" and r["where"] == "gist"]
        struck = [r["label"] for r in mine if r["kind"] == "struck"]
        said = s.count("yes") + s.count("no")
        print(
            f"{lang}: chapters reached whose part says what they are about: yes {a.count('yes')}, "
            f"partly {a.count('partly')}, no {a.count('no')} of {len(a)} (yes "
            f"{a.count('yes') / max(1, len(a)):.0%}); sentences borne out {s.count('yes')}/"
            f"{said} = {s.count('yes') / max(1, said):.0%} (gist {gist.count('yes')}/"
            f"{gist.count('yes') + gist.count('no')}), cut off {s.count('cut')} of {len(s)}; "
            f"struck sentences borne out {struck.count('yes')}/{len(struck)}"
        )


def sheet(rows: list[dict[str, Any]], out: Path) -> None:
    """What a reader labels, from the rows (the labels file's records without `label`/`why`):
    each counted chapter reached with the summary of the part that reaches it, each summary
    sentence (parts and gist) and each struck sentence, with the captions file to read."""
    meta = {r["id"]: r for r in entries("both")}
    items: list[dict[str, Any]] = []
    for r in rows:
        base = {"id": r["id"], "language": r["language"],
                "captions_file": str(captions(meta[r["id"]]))}  # fmt: skip
        chapters, parts = r["chapters"], [p for p in r["parts"] if p.get("summary")]
        bounds = [c["start_s"] for c in chapters] + [float("inf")]
        if _opening(chapters):
            bounds[1] = bounds[0]
        for i in counted(chapters):
            inside = [p for p in parts if bounds[i] <= p["start_s"] < bounds[i + 1]]
            if inside:
                items.append({"kind": "chapter", **base, "chapter": chapters[i]["title"],
                              "chapter_start_s": chapters[i]["start_s"],
                              "chapter_end_s": bounds[i + 1], "part": inside[0]["number"],
                              "part_start_s": inside[0]["start_s"],
                              "summary": inside[0]["summary"]})  # fmt: skip
        said = [(f"part {p['number']}", p["summary"], p["struck"], p["start_s"], p["end_s"])
                for p in r["parts"]]  # fmt: skip
        if r["gist"]:
            said.append(("gist", r["gist"]["summary"], r["gist"]["struck"], 0.0, float("inf")))
        for where, summary, struck, a, b in said:
            for kind, found in (("sentence", sentences(summary)), ("struck", struck)):
                for n, x in enumerate((y.strip() for y in found if y.strip()), 1):
                    items.append({"kind": kind, **base, "where": where, "index": n,
                                  "sentence": x, "start_s": a, "end_s": b})  # fmt: skip
    out.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items), "utf-8")
    print(f"{len(items)} items to read: {out}")


def cli(lecture_id: str) -> None:
    """`lecturetui summary` as a real process, in a fresh copy of the ingested home, twice."""
    fresh = OUT / "cli_home"
    if fresh.exists():
        shutil.rmtree(fresh)
    shutil.copytree(INGESTED, fresh)
    env = dict(os.environ, LECTURETUI_HOME=str(fresh),
               LECTURETUI_MODELS=str(ROOT / "models"), PYTHONPATH=str(ROOT / "src"))  # fmt: skip
    seconds = {}
    for run in ("fresh", "again"):
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "lecturetui", "summary", lecture_id, "--json"], env=env,
                              capture_output=True, text=True, check=True)  # fmt: skip
        record = json.loads(done.stdout)
        (OUT / f"cli_{lecture_id}_{run}.json").write_text(done.stdout, "utf-8")
        seconds[run] = round(time.perf_counter() - t0, 1)
        print(f"lecturetui summary {lecture_id} ({run}): {time.perf_counter() - t0:.1f} s, "
              f"{len(record['parts'])} parts, gist: {record['gist'][:80]}")  # fmt: skip
    with (OUT / "rows_cli.jsonl").open("a", encoding="utf-8") as out:
        row = cli_row(fresh, record, seconds["fresh"], seconds["again"])
        out.write(json.dumps(row, ensure_ascii=False) + "\n")


def cli_row(home: Path, record: dict[str, Any], seconds: float, again: float) -> dict[str, Any]:
    """A row as summarise() writes it, from `lecturetui summary --json` and the parts' text."""
    from lecturetui.core.library import Library
    from lecturetui.core.paths import DataHome

    lib = Library(DataHome.resolve(home), rerank=False)
    lecture = next(lec for lec in lib.lectures() if lec.id == record["lecture"])
    texts = {p.number: (p.digest, p.text) for p in lib.parts(lecture)}
    meta = {r["id"]: r for r in entries("both")}[record["title"]]
    parts = [{"number": p["number"], "start_s": round(p["start_s"], 1),
              "end_s": round(p["end_s"], 1), "title": p["title"], "said": p["said"],
              "digest": texts[p["number"]][0], "text": texts[p["number"]][1],
              "summary": p["label"], "struck": p["refused"]} for p in record["parts"]]  # fmt: skip
    return {"parts": parts, "gist": {"summary": record["gist"], "struck": []},
            "seconds": seconds, "again_s": again, "id": record["title"],
            "language": record["language"], "kind": meta["kind"],
            "duration_s": meta["duration_s"], "chapters": meta["chapters"],
            "model": record["model"], "cli": True}  # fmt: skip


def main() -> None:
    global OUT, INGESTED, HOME  # --quick: a temporary folder
    ap = argparse.ArgumentParser()
    ap.add_argument("--ids", nargs="*", default=list(DEFAULT_IDS))
    ap.add_argument("--languages", nargs="*", default=["English", "Portuguese"])
    ap.add_argument("--out", type=Path, default=OUT / "rows.jsonl")
    ap.add_argument("--home", type=Path, default=HOME, help="the bench home summaries go to")
    ap.add_argument("--fresh", action="store_true", help="a new copy of the ingested home first")
    ap.add_argument("--figures-only", action="store_true")
    ap.add_argument("--rows", type=Path, nargs="*", help="--figures-only: these rows files")
    ap.add_argument("--labels", nargs="?", const=LABELS, type=Path, default=None,
                    help="score the hand-read labels (default: %(const)s)")  # fmt: skip
    ap.add_argument("--sheet", type=Path, default=None,
                    help="with --figures-only: write what a reader labels to this file")  # fmt: skip
    ap.add_argument("--cli", default=None, help="time `lecturetui summary` for this lecture")
    ap.add_argument("--quick", action="store_true",
                    help="2 minutes of one lecture, in English, the small model, then the figures,"
                    " the sheet and the labels: a check, no figures")  # fmt: skip
    args = ap.parse_args()
    llm = None
    if args.quick:
        from lecturetui.core.models.gguf import FAST_LLM

        OUT = chapters_bench.use_quick(QUICK_SECONDS)
        INGESTED, HOME = OUT / "ingested_home", OUT / "home"
        args.ids, args.languages, args.out, args.home = (
            list(chapters_bench.QUICK_IDS), ["English"], OUT / "rows.jsonl", HOME)  # fmt: skip
        args.sheet, args.labels, args.cli, llm = OUT / "sheet.jsonl", None, None, FAST_LLM
    if args.labels:
        labels(args.labels)
        return
    if args.figures_only:
        files = args.rows or [args.out]
        rows = [
            json.loads(x) for f in files for x in f.read_text("utf-8").splitlines() if x.strip()
        ]
        figures(rows)
        if args.sheet:
            sheet(rows, args.sheet)
        return
    OUT.mkdir(parents=True, exist_ok=True)
    if args.fresh and args.home.exists():
        shutil.rmtree(args.home)  # summaries kept there would be read back, not written
    lib = ingested(args.ids, args.home)
    if args.cli:
        cli(args.cli)
        return
    t0 = time.perf_counter()
    generator = answer_model(llm, 4096)  # in its own process, as `ask` runs it
    print(f"answer model {generator.name} loaded in {time.perf_counter() - t0:.1f} s")
    meta = {r["id"]: r for r in entries("both")}
    by_title = {lec.title: lec for lec in lib.lectures()}
    rows = []
    with args.out.open("a", encoding="utf-8") as out:
        for language in args.languages:
            for i in args.ids:
                row = summarise(lib, by_title[i], generator, language)
                again = summarise(lib, by_title[i], generator, language)
                m = meta[i]
                row.update(id=i, language=language, kind=m["kind"], duration_s=m["duration_s"],
                           chapters=m["chapters"], again_s=again["seconds"],
                           model=generator.name)  # fmt: skip
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                out.flush()
                rows.append(row)
                print(f"{language} {i}: {row['seconds']} s, {len(row['parts'])} parts", flush=True)
    figures(rows)
    if args.quick:
        sheet(rows, args.sheet)
        labels()


if __name__ == "__main__":
    main()
