"""Every face as a student meets it: a fresh process, timed from its start, in a fresh and in a
used data home, on the product's runtime (OpenVINO on a CPU) or on PyTorch.

    .venv/bin/python bench/cold_start.py [--faces search,ask,ingest,summary,app] [--runs 2]
        [--runtime auto|torch] [--src PATH] [--lecture FILE.srt] [--quick]

- search: `lecturetui search` until the process ends (it prints its hits at the end).
- ask: `lecturetui ask` in a terminal (a pty): the lecturer's words on screen (the quote's opening
  mark), the explanation's first piece, the process's end.
- ingest: `lecturetui ingest` of one real lecture (default: a 13-window Python for Everybody
  lecture, `bench/data/realistic/lectures/`, see bench/data/README.md) into an empty home
  ("fresh") and into the demo library ("used").
- summary: `lecturetui summary` of that lecture until the process ends, in a home holding it
  alone: written ("fresh"), then read back ("used").
- app: `lecturetui app` in tmux; the question is typed as soon as the question box is drawn, and
  the clock stops when its quote appears.

A fresh home is new: the demo library ingested by an untimed command, nothing asked yet (no
measured prompt speed, no saved prompt start); a used home is the same after one run of the
face. The models folder is `models/` (as the README's set-up leaves it: exported and compiled).
`--src` runs another checkout's `src/` with this venv (PYTHONPATH), for a before/after table.
`--quick`: the search face once, over two demo lectures (the whole path in seconds: a check, no
figures).
"""

from __future__ import annotations

import argparse
import os
import pty
import re
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import quick_corpus

ROOT = Path(__file__).resolve().parents[1]
PY = str(ROOT / ".venv" / "bin" / "python")
DEMO = ROOT / "examples" / "seed_lectures.jsonl"
COURSE = "Sistemas distribuídos para aprendizado profundo"
LECTURE = ROOT / "bench/data/realistic/lectures/py4e-ch05-p4-loops-and-iteration.srt"
QUESTION = "O TensorFlow prioriza a execução de operações em qual dispositivo?"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def env(args: argparse.Namespace) -> dict[str, str]:
    out = dict(os.environ, LECTURETUI_MODELS=str(ROOT / "models"), LECTURETUI_LANGUAGE="en")
    out["LECTURETUI_RUNTIME"] = args.runtime
    if args.src:
        out["PYTHONPATH"] = str(Path(args.src).resolve())
    return out


def lt(home: Path, *words: str) -> list[str]:
    return [PY, "-m", "lecturetui", "--home", str(home), *words]


def demo_home(args: argparse.Namespace) -> Path:
    home = Path(tempfile.mkdtemp(prefix="lt-cold-"))
    demo = str(quick_corpus(home)) if args.quick else str(DEMO)
    subprocess.run(lt(home, "ingest", demo, "--course", COURSE), env=env(args),
                   check=True, capture_output=True)  # fmt: skip
    return home


def timed(cmd: list[str], args: argparse.Namespace) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env(args), check=True, capture_output=True)
    return time.perf_counter() - t0


def ask_once(home: Path, args: argparse.Namespace) -> tuple[float, float, float]:
    """(quote on screen, first piece of the explanation, whole answer), seconds from start."""
    master, slave = pty.openpty()
    t0 = time.perf_counter()
    proc = subprocess.Popen(lt(home, "ask", QUESTION), env=env(args), stdout=slave,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)  # fmt: skip
    os.close(slave)
    text, quote, first = "", float("nan"), float("nan")
    while True:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            text += ANSI.sub("", chunk.decode("utf-8", "replace"))
            now = time.perf_counter() - t0
            if quote != quote and "\u201c" in text:
                quote = now
            # the quote block ends with its citation; the explanation is what comes next
            if quote == quote and first != first:
                after = text.split("\u201c", 1)[1]
                end = after.find("[1]")
                if end >= 0 and after[end + 3 :].strip():
                    first = now
        elif proc.poll() is not None:
            break
    proc.wait()
    os.close(master)
    return quote, first, time.perf_counter() - t0


def app_once(home: Path, args: argparse.Namespace) -> float:
    """Seconds from launch to the quote of a question typed as soon as the box is drawn."""
    session = "ltcold"
    tmux = shutil.which("tmux")
    if tmux is None:
        sys.exit("the app face needs tmux")
    e = env(args)
    exports = " ".join(f"{k}={v!r}" for k, v in e.items() if k.startswith(("LECTURETUI", "PYTHON")))
    cmd = f"env {exports} {' '.join(lt(home, 'app'))}"
    subprocess.run([tmux, "kill-session", "-t", session], capture_output=True)
    t0 = time.perf_counter()
    subprocess.run([tmux, "new-session", "-d", "-s", session, "-x", "120", "-y", "32", cmd],
                   check=True)  # fmt: skip
    typed, quote = False, float("nan")
    while time.perf_counter() - t0 < 300:
        screen = subprocess.run([tmux, "capture-pane", "-p", "-t", session],
                                capture_output=True, text=True).stdout  # fmt: skip
        if not typed and "Ask about your lectures" in screen:
            subprocess.run([tmux, "send-keys", "-t", session, "-l", QUESTION], check=True)
            subprocess.run([tmux, "send-keys", "-t", session, "Enter"], check=True)
            typed = True
        elif typed and "\u201c" in screen:
            quote = time.perf_counter() - t0
            break
        time.sleep(0.05)
    subprocess.run([tmux, "kill-session", "-t", session], capture_output=True)
    return quote


def row(face: str, state: str, figures: list[float]) -> str:
    ok = [f for f in figures if f == f]
    med = f"{statistics.median(ok):.1f}" if ok else "-"
    return f"| {face} | {state} | {med} | {' / '.join(f'{f:.1f}' for f in figures)} |"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--faces", default="search,ask,ingest,app")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--runtime", default="auto", choices=("auto", "torch", "openvino"))
    ap.add_argument("--src", default=None, help="another checkout's src/ (PYTHONPATH)")
    ap.add_argument("--lecture", type=Path, default=LECTURE)
    ap.add_argument("--quick", action="store_true",
                    help="the search face once, two demo lectures: a check, no figures")  # fmt: skip
    args = ap.parse_args()
    if args.quick:
        args.faces, args.runs = "search", 1
    faces = args.faces.split(",")
    rows = ["| face | data home | median s | runs |", "|---|---|---|---|"]
    if "search" in faces:
        fresh, used = [], []
        for _ in range(args.runs):
            home = demo_home(args)
            fresh.append(timed(lt(home, "search", QUESTION), args))
            used.append(timed(lt(home, "search", QUESTION), args))
            shutil.rmtree(home)
        rows += [row("search", "fresh", fresh), row("search", "used", used)]
    if "ask" in faces:
        runs: dict[str, list[tuple[float, float, float]]] = {"fresh": [], "used": []}
        for _ in range(args.runs):
            home = demo_home(args)
            runs["fresh"].append(ask_once(home, args))
            runs["used"].append(ask_once(home, args))
            shutil.rmtree(home)
        for state, got in runs.items():
            rows.append(row("ask: the lecturer's words", state, [g[0] for g in got]))
            rows.append(row("ask: first word of the explanation", state, [g[1] for g in got]))
            rows.append(row("ask: whole answer", state, [g[2] for g in got]))
    if "ingest" in faces:
        fresh, used = [], []
        for _ in range(args.runs):
            empty = Path(tempfile.mkdtemp(prefix="lt-cold-"))
            fresh.append(timed(lt(empty, "ingest", str(args.lecture)), args))
            shutil.rmtree(empty)
            home = demo_home(args)
            used.append(timed(lt(home, "ingest", str(args.lecture)), args))
            shutil.rmtree(home)
        rows += [row("ingest one lecture", "fresh", fresh), row("ingest one lecture", "used", used)]
    if "summary" in faces:
        fresh, used = [], []
        for _ in range(args.runs):
            home = Path(tempfile.mkdtemp(prefix="lt-cold-"))
            subprocess.run(lt(home, "ingest", str(args.lecture), "--no-summaries"), env=env(args),
                           check=True, capture_output=True)  # fmt: skip
            fresh.append(timed(lt(home, "summary", args.lecture.stem), args))
            used.append(timed(lt(home, "summary", args.lecture.stem), args))
            shutil.rmtree(home)
        rows += [row("summary of the lecture", "fresh", fresh),
                 row("summary of the lecture", "used", used)]  # fmt: skip
    if "app" in faces:
        fresh, used = [], []
        for _ in range(args.runs):
            home = demo_home(args)
            fresh.append(app_once(home, args))
            used.append(app_once(home, args))
            shutil.rmtree(home)
        rows += [row("app: launch to first quote", "fresh", fresh),
                 row("app: launch to first quote", "used", used)]  # fmt: skip
    print("\n".join(rows))


if __name__ == "__main__":
    main()
