"""The lecturer's words against the captions: every quoted piece and label, for reading by hand
and checked mechanically.

    .venv/bin/python bench/quote_read.py sheet --home H --out sheet.jsonl [--lectures L] [--questions Q]
    .venv/bin/python bench/quote_read.py sample old.jsonl new.jsonl --out DIR [--pieces N] [--labels N]
    .venv/bin/python bench/quote_read.py report sheet.jsonl [readings.jsonl ...]
    .venv/bin/python bench/quote_read.py --quick

`sheet` ingests the held-out lectures of bench/data/quotes/ (captions no one tuned on, their
source and licence in its README) into the data home H through the command line as a student
runs it, writes each lecture's summary (`summary ID --json`) and answers each question of
`questions.jsonl` (`ask Q --json`), and writes one row per quoted piece (a summary part's
lecturer's words, an answer's quote) and per label, each with the captions around it, so a
reader can mark it:
- a piece: `verdict` `borne` (says what the lecturer said) or `wrong` with `kind` (`cut`: the cut
  changes the meaning, `garbled`: a term lost or changed, `spliced`: pieces joined as one claim),
  and `whole` (a whole thought a student can read) or not;
- a label: `verdict` `names` (its own part), `generic` (a generic word or the lecture's title),
  `wrong` (misnames it: a word set aside, a lost negation, a word not said, a fragment).
Every row is also checked mechanically against the caption file itself (not the library): the
piece is a contiguous span of the captions' words (hesitations and noise markers aside), and that
span starts and ends where the captions' sentences do (punctuation).

`sample` draws the rows to read from one or more sheets (every answer, and a seeded sample of
summary pieces and labels per sheet), the same piece of two sheets read once, in a shuffled
order and without the name of the code that wrote it, and cuts them into files for readers.
`report` prints the figures of a sheet, with the readings when given (rows joined by `id`).

`--quick`: one lecture's parts, no model writing, in a temporary home (the path in seconds).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT

DATA = ROOT / "bench" / "data" / "quotes"
CLI = [str(ROOT / ".venv" / "bin" / "lecturetui")]
HESITATIONS = {"eh", "ehh", "ah", "ahn", "ahm", "hã", "hum", "humm", "hmm", "hm", "uh", "uhh",
               "um", "umm", "uhm", "er", "erm", "mm", "mmm"}  # fmt: skip
NOISE = re.compile(
    r"[\[(]\s*(?:música|musica|music|risos|riso|laughter|laughs|laughing|applause|aplausos|"
    r"palmas|inaudível|inaudible|silêncio|silence|noise|air whooshing|whooshing)[^\])]{0,20}[\])]"
    r"|[♪♫]+|>>+",
    re.IGNORECASE,
)
EDGE = ".,;:!?…\"“”'’«»"
END = re.compile(r"[.!?…][\"'”’)\]]*$")
TIME = re.compile(r"(\d+):(\d\d):(\d\d)[.,](\d+)|(\d+):(\d\d)[.,](\d+)")


# --- the captions, read here on their own (not through the product) ---------------------------


def _seconds(stamp: str) -> float:
    m = TIME.search(stamp)
    if not m:
        return 0.0
    if m.group(1):
        h, mi, s, f = m.group(1, 2, 3, 4)
        return int(h) * 3600 + int(mi) * 60 + int(s) + float(f"0.{f}")
    mi, s, f = m.group(5, 6, 7)
    return int(mi) * 60 + int(s) + float(f"0.{f}")


def cues(path: Path) -> list[tuple[float, str]]:
    """(start, text) of each cue of an SRT or WebVTT file, or of a Whisper-style JSON."""
    raw = path.read_text("utf-8-sig", errors="replace")
    if path.suffix == ".json":
        doc = json.loads(raw)
        return [(float(s["start"]), str(s["text"])) for s in doc.get("segments", [])]
    out: list[tuple[float, str]] = []
    for block in re.split(r"\n\s*\n", raw.replace("\r\n", "\n")):
        lines = [x for x in block.strip().split("\n") if x.strip()]
        at = next((i for i, x in enumerate(lines) if "-->" in x), None)
        if at is None:
            continue
        text = " ".join(re.sub(r"<[^>]+>", "", x) for x in lines[at + 1 :])
        out.append((_seconds(lines[at].split("-->")[0]), text))
    return out


#: the characters stripped from a word's edges before words are compared: the punctuation
#: captions have; in `--asr` runs, all that automatic captions lack (brackets and dashes too:
#: core/models/sentence_ends.py's STRIP, written here so that an older checkout runs this too)
STRIP = [EDGE]
ASR_STRIP = ".,;:!?…\"“”'’«»()[]{}¿¡-–—"


def words_of(text: str) -> list[tuple[str, str]]:
    """(raw word, normalised word) of a text, without noise markers and hesitations."""
    out = []
    for raw in NOISE.sub(" ", text).split():
        norm = raw.strip(STRIP[0]).lower()
        if norm and norm not in HESITATIONS:
            out.append((raw, norm))
    return out


class Captions:
    """A caption file's words, each with its cue's time."""

    def __init__(self, path: Path) -> None:
        self.raw: list[str] = []
        self.norm: list[str] = []
        self.times: list[float] = []
        for start, text in cues(path):
            for raw, norm in words_of(text):
                self.raw.append(raw)
                self.norm.append(norm)
                self.times.append(start)
        self.punctuated = sum(1 for w in self.raw if END.search(w)) * 60 >= max(len(self.raw), 1)

    def find(self, piece: str, near: float | None = None) -> tuple[int, int] | None:
        """Where the piece is a contiguous run of the captions' words (nearest `near`)."""
        want = [n for _, n in words_of(piece.replace("…", " "))]
        if not want:
            return None
        hits = [
            i
            for i in range(len(self.norm) - len(want) + 1)
            if self.norm[i] == want[0] and self.norm[i : i + len(want)] == want
        ]
        if not hits:
            return None
        best = min(hits, key=lambda i: abs(self.times[i] - near)) if near is not None else hits[0]
        return best, best + len(want)

    def context(self, start: float, end: float, pad: float = 25.0) -> str:
        return " ".join(
            w for w, t in zip(self.raw, self.times, strict=True) if start - pad <= t <= end + pad
        )

    def text(self, start: float, end: float) -> str:
        return " ".join(w for w, t in zip(self.raw, self.times, strict=True) if start <= t < end)


def mechanical(caps: Captions, piece: str, near: float | None) -> dict[str, Any]:
    """Each "…"-separated run of the piece (a piece a reader sees): whether it is a contiguous
    span of the captions' words, and whether that span starts and ends where a caption sentence
    does; and the same for the piece as a whole (one run, starting and ending on a sentence)."""
    runs = [r.strip() for r in piece.split("…") if r.strip(" .")]
    spans = [caps.find(r, near) for r in runs]

    def starts(span: tuple[int, int] | None) -> bool:
        return span is not None and (span[0] == 0 or bool(END.search(caps.raw[span[0] - 1])))

    def ends(span: tuple[int, int] | None) -> bool:
        return span is not None and bool(END.search(caps.raw[span[1] - 1]))

    return {
        "contiguous": bool(spans) and len(spans) == 1 and spans[0] is not None,
        "runs": len(runs),
        "found": sum(s is not None for s in spans),
        "runs_on_sentences": sum(starts(s) and ends(s) for s in spans),
        "starts_sentence": bool(spans) and starts(spans[0]),
        "ends_sentence": bool(spans) and ends(spans[-1]),
        "punctuated": caps.punctuated,
    }


def caption_file(lec: dict[str, Any]) -> Path:
    """A lecture's caption file: its `path` (from the repository's root), else in DATA."""
    if "path" in lec:
        return ROOT / str(lec["path"])
    return DATA / "captions" / f"{lec['id']}.{lec.get('format', 'srt')}"


def recheck(row: dict[str, Any], listed: Path = DATA / "lectures.jsonl") -> dict[str, Any]:
    """A sheet's row checked again against its caption file (the checks as they are now); its
    lecture is one of `listed`."""
    if not row.get("piece") or not row.get("lecture"):
        return row
    lectures = {
        json.loads(x)["id"]: json.loads(x)
        for x in listed.read_text("utf-8").splitlines()
        if x.strip()
    }
    caps = _captions(caption_file(lectures[row["lecture"]]))
    return {**row, **mechanical(caps, row["piece"], row.get("at"))}


_CAPTIONS: dict[Path, Captions] = {}


def _captions(path: Path) -> Captions:
    if path not in _CAPTIONS:
        _CAPTIONS[path] = Captions(path)
    return _CAPTIONS[path]


# --- the product, as a student runs it ---------------------------------------------------------


def run(home: Path, *args: str) -> Any:
    env = {**os.environ, "LECTURETUI_MODELS": str(ROOT / "models")}
    out = subprocess.run(
        [*CLI, "--home", str(home), *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=1800,
    )
    if out.returncode:
        print(f"failed: {' '.join(args)}: {out.stderr.strip()[-400:]}", file=sys.stderr)
        return None
    return json.loads(out.stdout) if "--json" in args else out.stdout


def _id(*parts: Any) -> str:
    return hashlib.blake2b("\n".join(map(str, parts)).encode(), digest_size=6).hexdigest()


def _label(part: dict[str, Any]) -> str:
    """A part's label in `summary --json` (schema 2: `label`; schema 1, an older version's:
    `summary`)."""
    return str(part.get("label", part.get("summary", "")))


def sheet(
    home: Path,
    lectures: list[dict[str, Any]],
    questions: list[dict[str, Any]],
    version: str,
    labels: bool = True,
    asr: Path | None = None,
) -> list[dict[str, Any]]:
    """The rows of every lecture's summary and every question's answer; with `asr`, each
    lecture ingested from its copy there as automatic captions give it (`sentence_bench.py
    --asr`), its pieces checked against its own captions all the same."""
    files = [str(caption_file(x)) for x in lectures]
    for lec, path in zip(lectures, files, strict=True):
        lang = str(lec["language"]).split("-")[0]
        given = str(asr / f"{lec['id']}.vtt") if asr else path
        run(home, "ingest", given, "--title", lec["id"], "--course", "quotes", "--lang", lang)
    rows: list[dict[str, Any]] = []
    caps = {x["id"]: Captions(Path(p)) for x, p in zip(lectures, files, strict=True)}
    titles = {x["id"]: x.get("title", x["id"]) for x in lectures}
    for lec in lectures:
        got = run(home, "summary", lec["id"], "--json", *(() if labels else ("--parts-only",)))
        if not got:
            continue
        c = caps[lec["id"]]
        parts = got.get("parts", [])
        for k, part in enumerate(parts):
            end = parts[k + 1]["start_s"] if k + 1 < len(parts) else part.get("end_s", 1e9)
            for piece in part.get("said", []):
                rows.append(
                    {
                        "id": _id(lec["id"], piece),
                        "version": version,
                        "what": "summary",
                        "lecture": lec["id"],
                        "language": lec["language"],
                        "formulas": lec.get("formulas", False),
                        "part": part["number"],
                        "at": part["start_s"],
                        "piece": piece,
                        "captions": c.context(part["start_s"], end, 0.0),
                        **mechanical(c, piece, part["start_s"]),
                    }
                )
            label = _label(part)
            if not labels:
                continue
            rows.append(
                {
                    "id": _id(lec["id"], part["number"], label),
                    "version": version,
                    "what": "label",
                    "lecture": lec["id"],
                    "language": lec["language"],
                    "formulas": lec.get("formulas", False),
                    "part": part["number"],
                    "at": part["start_s"],
                    "label": label,
                    "title": titles[lec["id"]],
                    "by_model": not part.get("refused", part.get("struck")),
                    "neighbours": [
                        _label(p) for p in parts if abs(p["number"] - part["number"]) == 1
                    ],
                    "captions": c.text(part["start_s"], end),
                }
            )
    for q in questions:
        got = run(home, "ask", q["question"], "--json")
        quote = (got or {}).get("quote") or {}
        text = quote.get("text") or ""
        lecture = next((x["id"] for x in lectures if x["id"] == quote.get("lecture_title")), None)
        if not text or lecture is None:
            rows.append(
                {
                    "id": _id(q["question"], "none"),
                    "version": version,
                    "what": "answer",
                    "question": q["question"],
                    "piece": "",
                    "missing": True,
                }
            )
            continue
        c = caps[lecture]
        at = float(quote.get("start_s", 0.0))
        rows.append(
            {
                "id": _id(q["question"], text),
                "version": version,
                "what": "answer",
                "question": q["question"],
                "lecture": lecture,
                "language": q["lang"],
                "formulas": next(x.get("formulas", False) for x in lectures if x["id"] == lecture),
                "gold": q.get("lecture"),
                "at": at,
                "piece": text,
                "captions": c.context(at, float(quote.get("end_s", at)), 40.0),
                **mechanical(c, text, at),
            }
        )
    return rows


# --- the figures ------------------------------------------------------------------------------


def _share(n: int, d: int) -> str:
    return f"{n}/{d} ({100 * n / d:.0f}%)" if d else "0/0"


def report(rows: list[dict[str, Any]], readings: dict[str, dict[str, Any]]) -> None:
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by[r["version"]].append(r)
    for version, mine in by.items():
        print(f"## {version}")
        for what in ("summary", "answer"):
            pieces = [r for r in mine if r["what"] == what and r.get("piece")]
            punct = [r for r in pieces if r.get("punctuated")]
            runs = sum(r["runs"] for r in pieces)
            print(
                f"{what}: {len(pieces)} quotes from {len({r['lecture'] for r in pieces})} lectures,"
                f" {runs} pieces (runs between '…'); pieces a contiguous span of the captions"
                f" {_share(sum(r['found'] for r in pieces), runs)}; pieces that start and end on a"
                f" sentence (punctuated captions)"
                f" {_share(sum(r['runs_on_sentences'] for r in punct), sum(r['runs'] for r in punct))};"
                f" quotes one contiguous span {_share(sum(r['contiguous'] for r in pieces), len(pieces))}"
            )
            read = [readings[r["id"]] for r in pieces if r["id"] in readings]
            if read:
                kinds = Counter(x.get("kind", "") for x in read if x["verdict"] == "wrong")
                if what == "answer":
                    answers = Counter(x.get("answers", "") for x in read)
                    print(f"  answers its question: {dict(answers)}")
                print(
                    f"  read: {len(read)}; borne out {_share(sum(x['verdict'] == 'borne' for x in read), len(read))};"
                    f" whole {_share(sum(bool(x.get('whole')) for x in read), len(read))};"
                    f" wrong by kind {dict(kinds)}"
                )
        labels = [r for r in mine if r["what"] == "label"]
        read = [readings[r["id"]] for r in labels if r["id"] in readings]
        print(
            f"labels: {len(labels)}; by the model {_share(sum(r['by_model'] for r in labels), len(labels))}"
        )
        if read:
            v = Counter(x["verdict"] for x in read)
            print(
                f"  read: {len(read)}; not wrong {_share(len(read) - v['wrong'], len(read))};"
                f" naming their part {_share(v['names'], len(read))}; {dict(v)}"
            )


def sample(
    sheets: list[list[dict[str, Any]]],
    pieces: int,
    labels: int,
    readers: int,
    out: Path,
    seed: int = 66,
) -> int:
    """Write `readers` files of rows to read under `out`; returns how many rows."""
    import random

    rng = random.Random(seed)
    chosen: dict[str, dict[str, Any]] = {}
    for rows in sheets:
        answers = [r for r in rows if r["what"] == "answer" and r.get("piece")]
        parts = [r for r in rows if r["what"] == "summary"]
        named = [r for r in rows if r["what"] == "label"]
        drawn = [
            *answers,
            *rng.sample(parts, min(pieces, len(parts))),
            *rng.sample(named, min(labels, len(named))),
        ]
        for r in drawn:
            shown = (
                "id",
                "what",
                "lecture",
                "language",
                "part",
                "at",
                "piece",
                "label",
                "title",
                "neighbours",
                "question",
                "captions",
            )
            chosen.setdefault(r["id"], {k: r[k] for k in shown if k in r})
    out.mkdir(parents=True, exist_ok=True)
    drawn_before = sorted(out.glob("read-*.jsonl"))
    seen = {
        json.loads(x)["id"]
        for p in drawn_before
        for x in p.read_text("utf-8").splitlines()
        if x.strip()
    }
    rows = [r for r in chosen.values() if r["id"] not in seen]  # read already: not again
    rng.shuffle(rows)
    for k in range(readers):
        mine = rows[k::readers]
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in mine)
        (out / f"read-{len(drawn_before) + k + 1}.jsonl").write_text(text, "utf-8")
    return len(rows)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("command", nargs="?", choices=["sheet", "sample", "report"], default="sheet")
    ap.add_argument("--pieces", type=int, default=150, help="sample: summary pieces per sheet")
    ap.add_argument("--labels", type=int, default=75, help="sample: labels per sheet")
    ap.add_argument("--readers", type=int, default=4, help="sample: files to cut the rows into")
    ap.add_argument("paths", nargs="*", type=Path)
    ap.add_argument("--home", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--version", default="new", help="the name of the code under test")
    ap.add_argument("--lectures", type=Path, default=DATA / "lectures.jsonl")
    ap.add_argument("--questions", type=Path, default=DATA / "questions.jsonl")
    ap.add_argument(
        "--asr", type=Path, help="sheet: ingest the copies there (sentence_bench.py --asr)"
    )
    ap.add_argument("--no-labels", action="store_true", help="sheet: the parts' words, no labels")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.asr:
        STRIP[0] = ASR_STRIP
    if args.command == "sample":
        sheets = [
            [json.loads(x) for x in p.read_text("utf-8").splitlines() if x.strip()]
            for p in args.paths
        ]
        n = sample(sheets, args.pieces, args.labels, args.readers, args.out)
        print(f"{n} rows to read in {args.readers} files under {args.out}")
        return
    if args.command == "report":
        rows = [json.loads(x) for x in args.paths[0].read_text("utf-8").splitlines() if x.strip()]
        rows = [recheck(r, args.lectures) for r in rows]
        readings = {}
        for p in args.paths[1:]:
            for line in p.read_text("utf-8").splitlines():
                if line.strip():
                    r = json.loads(line)
                    readings[r["id"]] = r
        report(rows, readings)
        return
    lectures = [json.loads(x) for x in args.lectures.read_text("utf-8").splitlines() if x.strip()]
    questions = [json.loads(x) for x in args.questions.read_text("utf-8").splitlines() if x.strip()]
    if args.quick:
        lectures, questions = lectures[:1], []  # the parts alone: no answer model
    with tempfile.TemporaryDirectory() as tmp:
        home = args.home or Path(tmp)
        labels = not (args.quick or args.no_labels)
        rows = sheet(home, lectures, questions, args.version, labels=labels, asr=args.asr)
    if args.out:
        args.out.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8"
        )
    report(rows, {})
    if args.quick and not any(r["what"] == "summary" for r in rows):
        sys.exit("no summary piece came back")


if __name__ == "__main__":
    main()
