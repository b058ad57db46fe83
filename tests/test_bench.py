"""Every script in bench/ runs in its quick mode, so that a change of an interface cannot break one
unseen: `python bench/SCRIPT.py --quick` runs the script's own path end to end on tiny data (the
small answer model, a lecture or two, temporary data homes) in seconds, and prints what the
script prints. A script without `--quick` fails here (argparse refuses the flag). Nothing is
asserted on timings: the figures are the scripts' to print and RESULTS.md's to record; what is
asserted is that the script ends well and prints its table.

The shell scripts (run on the GPU machine, with what bench/*_stage.py and gpu_carry.py staged)
are checked for their syntax and for the bench scripts they call.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"


def scripts() -> list[Path]:
    """bench/'s scripts: every module that runs as `__main__` (not the shared `_` modules)."""
    return sorted(
        p
        for p in BENCH.glob("*.py")
        if not p.name.startswith("_") and '__name__ == "__main__"' in p.read_text("utf-8")
    )


#: scripts that load no model (the others are `slow`: they load the real ones, offline)
NO_MODEL = {"lexical_latency", "watch_latency"}
NUMBER = r"-?\d[\d,.]*"
#: what each script's quick run prints, beyond ending well (regular expressions, in any order);
#: a script not listed here must print a Markdown table row with a figure
EXPECTED: dict[str, list[str]] = {
    "answer_bench": [rf"\| seed-43 \| {NUMBER} \| {NUMBER} \|", r"\| first token \| " + NUMBER],
    "answer_points": [
        r"\| ak-\d+ \| en \| ",
        r"\| re-scored \| all \(1\) \| " + NUMBER,
        r"uncovered questions: abstained on " + NUMBER,
    ],
    "asr_bench": [r'"wer \(pt given\)": ' + NUMBER, r'"rtf long \(pt given\)": ' + NUMBER],
    "chapters_bench": [rf"\| candidate \| all \| {NUMBER} \| {NUMBER} \|"],
    "cold_gpu_stage": [r"src of \w+; staged " + NUMBER + " MiB"],
    "cold_start": [rf"\| search, fresh \| {NUMBER} \(", rf"\| search, used \| {NUMBER} \("],
    "embed_standin": [
        r"\| token embeddings as the recipe.s \| True",
        rf"\| cosines \(`scores`\) \| {NUMBER} ",
    ],
    "gguf_standin": [
        r"same size and tensors as the original: True",
        rf"loaded and run in the model.s process \| {NUMBER} s",
    ],
    "gpu": [
        rf"\| cpu, 1 thread \| load {NUMBER} s \| pp32 {NUMBER}",
        rf"guess median {NUMBER} s",
        rf"\| cpu #0 \| session {NUMBER} s",
        r"status line: .*ready",
        r"\| embed \| needs CUDA: its child code compiles",
    ],
    "gpu_carry": [r"staged \d+ folders under", r"bench/gpu_device.sh assemble"],
    "judge_agreement": [r"1 answers judged", r"mean " + NUMBER],
    "judge_check": [r"\| \d+ \| \d \| \d \|", r"gold above not gold: " + NUMBER],
    "keyphrase_bench": [rf"\| all \| \d+ \| {NUMBER} \| {NUMBER} \| {NUMBER} \|"],
    "lexical_latency": [rf"\| 1,000 \| {NUMBER} \| left out \| {NUMBER} / {NUMBER} \|"],
    "moment_bench": [r"R@1 of the quoted window " + NUMBER, rf"\| 0.05 \| 0.02 \| {NUMBER} \|"],
    "pack_bench": [r"identical hits and scores: \d+/\d+ searches"],
    "query_latency": [rf"\| 1,000 \| {NUMBER} \| {NUMBER} / {NUMBER} \|"],
    "quote_read": [r"summary: \d+ quotes from 1 lectures, \d+ pieces .* of the captions \d+/\d+"],
    "quote_bench": [rf"\| quote \| {NUMBER} \|", r"abstains on \d/2 uncovered, falsely on"],
    "rerank": [
        rf"\| hybrid -> Gemma, depth 100 \| {NUMBER} / ",
        rf"\| hybrid -> Gemma, depth 100, translated \| {NUMBER} / ",
    ],
    "search_latency": [rf"\| hybrid -> EmbeddingGemma \| {NUMBER} \| {NUMBER} \|"],
    "seed_compare": [rf"\| 1 \| \d+ \({NUMBER}\) \|", r"top-10 overlap: \d+/10"],
    "sentence_bench": [rf"\| all \| {NUMBER} \| {NUMBER} \| {NUMBER} \| {NUMBER} \|"],
    "stop_latency": [rf"\| writing .* \| {NUMBER} s, {NUMBER} s \|"],
    "summary_bench": [
        r"English: reach \d+/\d+",
        r"\d+ items to read",
        r"all: chapters reached whose part says",
    ],
    "tui_bench": [rf"launch to first frame: {NUMBER} s", r"\| answer streaming \| \d+ \|"],
    "tui_startup": [rf"models ready {NUMBER} s"],
    "watch_latency": [rf"median {NUMBER} s, max {NUMBER} s"],
}


def params() -> list[object]:
    return [
        pytest.param(p, id=p.stem, marks=() if p.stem in NO_MODEL else pytest.mark.slow)
        for p in scripts()
    ]


def quick_env() -> dict[str, str]:
    env = dict(
        os.environ,
        LECTURETUI_MODELS=str(ROOT / "models"),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        PYTHONUNBUFFERED="1",
    )
    env.pop("LECTURETUI_RERANK", None)  # the product's default (the tests' fixture turns it off)
    return env


def test_the_scripts_are_found() -> None:
    names = {p.stem for p in scripts()}
    assert {"search_latency", "rerank", "gpu", "stop_latency"} <= names
    assert not {n for n in names if n.startswith("_")}


@pytest.mark.parametrize("script", params())
def test_quick_mode(script: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(script.relative_to(ROOT)), "--quick"],
        cwd=ROOT,
        env=quick_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, (
        f"{script.name} --quick ended with {done.returncode}:\n{out[-4000:]}"
    )
    wanted = EXPECTED.get(script.stem, [rf"^\|.*{NUMBER}.*\|$"])
    missing = [w for w in wanted if not re.search(w, done.stdout, re.MULTILINE)]
    assert missing == [], f"{script.name} --quick did not print {missing}:\n{done.stdout[-4000:]}"


@pytest.mark.parametrize("script", sorted(BENCH.glob("*.sh")), ids=lambda p: p.name)
def test_shell_script(script: Path) -> None:
    """Its syntax (`bash -n`), and the bench scripts it runs exist."""
    done = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    called = set(re.findall(r"bench/(\w+\.(?:py|sh))", script.read_text("utf-8")))
    assert called, f"{script.name} names no bench script"
    missing = sorted(name for name in called if not (BENCH / name).is_file())
    assert missing == [], f"{script.name} runs bench scripts that are gone: {missing}"
