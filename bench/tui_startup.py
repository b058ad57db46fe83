"""Cold start of the real app in a real terminal (tmux): process start to first frame, and to the
status line saying the models are loaded ("pronto"/"ready").

    .venv/bin/python bench/tui_startup.py [--home .] [--llm qwen2.5-coder-1.5b] [--runs 3] [--quick]

`--quick`: one run of the small model over two demo lectures in a temporary home (the whole path
in seconds: a check, no figures).
"""

from __future__ import annotations

import argparse
import atexit
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import quick_corpus

ROOT = Path(__file__).resolve().parents[1]
#: the status line once the models are loaded ("  ready   lecturetui · …")
READY = re.compile(r"(^|\s)(ready|pronto)(\s|$)")


def once(home: str, llm: str) -> tuple[float, float]:
    cmd = f"{ROOT / '.venv/bin/lecturetui'} --home {home} app --llm {llm}"
    subprocess.run(["tmux", "kill-session", "-t", "ltbench"], capture_output=True)
    t0 = time.perf_counter()
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", "ltbench", "-x", "120", "-y", "32", cmd], check=True
    )
    first = ready = float("nan")
    while time.perf_counter() - t0 < 300:
        screen = subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", "ltbench"], capture_output=True, text=True
        ).stdout
        now = time.perf_counter() - t0
        if first != first and "Segment" in screen:
            first = now
        if READY.search(screen.split("\n", 1)[0]):  # the status line, first
            ready = now
            break
        time.sleep(0.02)
    subprocess.run(["tmux", "kill-session", "-t", "ltbench"], capture_output=True)
    return first, ready


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", default=str(ROOT))
    ap.add_argument("--llm", default="qwen2.5-coder-1.5b")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true",
                    help="one run, the small model, two demo lectures: a check, no figures")  # fmt: skip
    args = ap.parse_args()
    if not shutil.which("tmux"):
        sys.exit("needs tmux")
    if args.quick:
        home = Path(tempfile.mkdtemp(prefix="lt-bench-quick-"))
        atexit.register(shutil.rmtree, home, ignore_errors=True)
        env = dict(os.environ)
        env.setdefault("LECTURETUI_MODELS", str(ROOT / "models"))
        subprocess.run([str(ROOT / ".venv/bin/lecturetui"), "--home", str(home), "ingest",
                        str(quick_corpus(home))], env=env, check=True, capture_output=True)  # fmt: skip
        args.home, args.llm, args.runs = str(home), "qwen2.5-coder-0.5b", 1
    results = [once(args.home, args.llm) for _ in range(args.runs)]
    for i, (f, r) in enumerate(results, 1):
        print(f"run {i}: first frame {f:.2f} s, models ready {r:.2f} s")
    print(f"median: first frame {statistics.median(f for f, _ in results):.2f} s,"
          f" models ready {statistics.median(r for _, r in results):.2f} s")  # fmt: skip
    if any(r != r for _, r in results):
        sys.exit("the app never said it was ready")


if __name__ == "__main__":
    main()
