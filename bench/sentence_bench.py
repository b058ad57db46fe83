"""Sentence ends in captions without punctuation: found against the lecturer's own, on held-out
lectures.

    .venv/bin/python bench/sentence_bench.py [--lectures L] [--asr DIR] [--quick]

Each held-out lecture (`bench/data/sentences/lectures.jsonl`: punctuated captions that no choice
of the model was made on, their sources and licences in its README) is read as automatic
captions would give it: the punctuation and case stripped (a minus sign before a number kept),
noise markers and the transcriber's speaker tags dropped, and the cues re-cut to a few words
(ASR_WORDS, timed by the original cues). The product's sentence ends
(core/models/sentence_ends.py) on that text are scored against the ends the punctuation marked
(precision, recall, F1 per language), beside the rule the product cut such captions with before
(core/retrieval/sentences.py's speech words). `--asr DIR` also writes the stripped copies as
WebVTT files, for the quote benchmark (`quote_read.py sheet --asr DIR`) and for ingest timing.

`--quick`: the first 400 words of two lectures (one a language).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT
from quote_read import cues, words_of

from lecturetui.core.models import sentence_ends
from lecturetui.core.sentences import closes, pieces

DATA = ROOT / "bench" / "data" / "sentences"
#: words of an automatic caption cue
ASR_WORDS = 7
#: a speaker's tag the captions' transcriber wrote ("AUDIENCE:", "PROFESSOR 2:"), which no
#: recogniser writes
SPEAKER = re.compile(r"\b[A-ZÀ-Ý][A-ZÀ-Ý.'-]+(?:\s+(?:[A-ZÀ-Ý][A-ZÀ-Ý.'-]+|\d+)){0,2}:")


def lecture_words(path: Path) -> tuple[list[str], list[float], list[int]]:
    """The lecture's words as automatic captions give them (lower case, no punctuation, noise
    and hesitations dropped), each word's time, and the positions after which a sentence ends
    in the original."""
    words: list[str] = []
    times: list[float] = []
    ends: list[int] = []
    timed = cues(path)
    for k, (start, text) in enumerate(timed):
        own = words_of(SPEAKER.sub(" ", text))
        until = timed[k + 1][0] if k + 1 < len(timed) else start + 0.4 * len(own)
        for j, (raw, _norm) in enumerate(own):
            bare = sentence_ends.norm(raw)
            if not bare:
                continue
            if raw.startswith("-") and raw[1:2].isdigit():
                bare = "-" + bare  # a minus sign is said ("minus"), not punctuation
            words.append(bare)
            times.append(start + (until - start) * j / max(1, len(own)))
            if closes(raw):
                ends.append(len(words) - 1)
    return words, times, [e for e in ends if e < len(words) - 1]


def asr_vtt(words: list[str], times: list[float]) -> str:
    """The words as automatic captions: cues of ASR_WORDS words, each until the next."""

    def stamp(t: float) -> str:
        h, rest = divmod(t, 3600)
        m, s = divmod(rest, 60)
        return f"{int(h):02d}:{int(m):02d}:{s:06.3f}"

    out = ["WEBVTT", ""]
    for a in range(0, len(words), ASR_WORDS):
        b = min(a + ASR_WORDS, len(words))
        end = times[b] if b < len(words) else times[-1] + 2.0
        out += [
            f"{stamp(times[a])} --> {stamp(max(end, times[a] + 0.1))}",
            " ".join(words[a:b]),
            "",
        ]
    return "\n".join(out)


def scored(found: set[int], gold: set[int]) -> tuple[int, int, int]:
    return len(found & gold), len(found - gold), len(gold - found)


def figures(tp: int, fp: int, fn: int) -> str:
    p = tp / max(1, tp + fp)
    r = tp / max(1, tp + fn)
    f = 2 * tp / max(1, 2 * tp + fp + fn)
    return f"{p:.3f} | {r:.3f} | {f:.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lectures", type=Path, default=DATA / "lectures.jsonl")
    ap.add_argument("--asr", type=Path, help="write the stripped copies here")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    lectures = [json.loads(x) for x in args.lectures.read_text("utf-8").splitlines() if x.strip()]
    if args.quick:
        firsts: dict[str, dict[str, object]] = {}
        for lec in lectures:
            firsts.setdefault(str(lec["language"])[:2], lec)
        lectures = list(firsts.values())
    os.environ[sentence_ends.ENV] = "on"  # measured here whatever the caller's setting
    model = sentence_ends.from_models(ROOT / "models")
    if model is None:
        raise SystemExit("the sentence model is not built: run `lecturetui models setup`")
    totals: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    print("| lecture | language | words | ends | model P | R | F1 | speech words F1 |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for lec in lectures:
        words, times, ends = lecture_words(ROOT / str(lec["path"]))
        if args.quick:
            words, times, ends = words[:400], times[:400], [e for e in ends if e < 399]
        gold = set(ends)
        found = set(model.ends(words))
        rule = {s.last - 1 for s in pieces(" ".join(words))} - {len(words) - 1}
        lang = str(lec["language"])[:2]
        for name, got in (("model", found), ("rule", rule)):
            for key in ((name, lang), (name, "all")):
                totals[key] = [a + b for a, b in zip(totals[key], scored(got, gold), strict=True)]
        tp, fp, fn = scored(rule, gold)
        rule_f1 = f"{2 * tp / max(1, 2 * tp + fp + fn):.3f}"
        print(
            f"| {lec['id']} | {lang} | {len(words)} | {len(gold)} | "
            f"{figures(*scored(found, gold))} | {rule_f1} |"
        )
        if args.asr:
            args.asr.mkdir(parents=True, exist_ok=True)
            (args.asr / f"{lec['id']}.vtt").write_text(asr_vtt(words, times), "utf-8")
    print()
    print("| language | model P | R | F1 | speech words P | R | F1 |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for lang in sorted({k[1] for k in totals}):
        print(f"| {lang} | {figures(*totals['model', lang])} | {figures(*totals['rule', lang])} |")


if __name__ == "__main__":
    main()
