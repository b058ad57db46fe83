"""Every face as a student meets it: a fresh process, timed from its start, in a fresh and in a
used data home, on the product's runtime (OpenVINO on a CPU) or on PyTorch.

    .venv/bin/python bench/cold_start.py [--faces search,ask,ingest,ingest3,summary,app]
        [--runs 2] [--runtime auto|torch] [--profiles machine,laptop] [--old PATH] [--src PATH]
        [--lecture FILE.srt] [--quick]

- search: `lecturetui search` until the process ends (it prints its hits at the end).
- ask: `lecturetui ask` in a terminal (a pty): the lecturer's words on screen (the quote's opening
  mark), the explanation's first piece, the process's end.
- ingest: `lecturetui ingest` of one real lecture (default: a 13-window Python for Everybody
  lecture, `bench/data/realistic/lectures/`, see bench/data/README.md) into an empty home
  ("fresh") and into the demo library ("used").
- ingest3: three lectures in one `lecturetui ingest` command into an empty home: windows added
  per second (`THREE`).
- summary: `lecturetui summary` of that lecture until the process ends, in a home holding it
  alone: written ("fresh"), then read back ("used").
- app: `lecturetui app` in tmux; the question is typed as soon as the question box is drawn, and
  the clock stops when its quote appears.

A fresh home is new: the demo library ingested by an untimed command, nothing asked yet (no
measured prompt speed, no saved prompt start); a used home is the same after one run of the
face. The models folder is `models/` (as the README's set-up leaves it: exported and compiled).
`--old` runs another checkout's `src/` with this venv (PYTHONPATH) before each run of this one,
old and new alternating, each in homes of its own: a before/after table from one machine; `--src`
runs the new code from another `src/` (a staged snapshot: bench/cold_gpu.sh).
Each figure is taken in two profiles, alternating (`--profiles`): "machine", this CPU as it is,
and "laptop", a student's laptop on the same machine: oneDNN (OpenVINO's kernels) capped at AVX2
(`ONEDNN_MAX_CPU_ISA=AVX2`, so the embedders run in fp32: core/models/precision.py) and llama.cpp
built for AVX2 at most (bench/laptop_llama.sh, run first: about ten minutes, once). The laptop
profile has a models folder of its own (`bench/.laptop/models`: links to models/'s files, its own
measured prompt speed and saved prompt starts) and prepares its compiled models with `models
setup` once, as a laptop's set-up does, before anything is timed.
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


LAPTOP = ROOT / "bench" / ".laptop"
#: models/'s entries the laptop profile keeps its own of (measured on its own llama.cpp)
OWN = ("llm_speed.json", "llm_prefix", "README.md")


def laptop_models() -> Path:
    """The laptop profile's models folder: links to models/'s files and folders (the compiled
    models sit in a folder of their own for each precision and cap), without its speeds."""
    folder = LAPTOP / "models"
    folder.mkdir(parents=True, exist_ok=True)
    for entry in (ROOT / "models").iterdir():
        link = folder / entry.name
        if entry.name not in OWN and not link.is_symlink():
            link.symlink_to(entry.resolve())
    return folder


def env(args: argparse.Namespace) -> dict[str, str]:
    out = dict(os.environ, LECTURETUI_MODELS=str(ROOT / "models"), LECTURETUI_LANGUAGE="en")
    out["LECTURETUI_RUNTIME"] = args.runtime
    for name in ("PYTHONPATH", "ONEDNN_MAX_CPU_ISA", "LECTURETUI_PRECISION"):
        out.pop(name, None)
    path = [str(Path(args.src).resolve())] if args.src else []
    if args.profile == "laptop":
        out["ONEDNN_MAX_CPU_ISA"] = "AVX2"
        out["LECTURETUI_MODELS"] = str(laptop_models())
        path.append(str(LAPTOP / "llama"))  # before the venv's llama.cpp
    if path:
        out["PYTHONPATH"] = os.pathsep.join(path)
    return out


PROBE = (
    "import llama_cpp; from lecturetui.core.models.precision import current; "
    "info = llama_cpp.llama_print_system_info().decode(); "
    "print(current().tag, 'llama.cpp', 'AVX-512' if 'AVX512 = 1' in info else 'AVX2')"
)


def prepare(args: argparse.Namespace) -> str:
    """The laptop's compiled models made now (`models setup`, as its set-up does; the machine's
    are models/'s, as the README's set-up leaves them), and what the profile runs:
    "f32-avx2 llama.cpp AVX2"."""
    if args.profile == "laptop":
        if not (LAPTOP / "llama" / "llama_cpp").is_dir():
            sys.exit("the laptop profile needs llama.cpp built for AVX2: run bench/laptop_llama.sh")
        subprocess.run([PY, "-m", "lecturetui", "models", "setup"], env=env(args), check=True,
                       capture_output=True)  # fmt: skip
    probe = subprocess.run([PY, "-c", PROBE], env=env(args), capture_output=True, text=True)
    said = probe.stdout.strip() or (probe.stderr.strip().splitlines() or ["?"])[-1]
    return said if probe.returncode == 0 else f"(not probed: {said})"


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
    exports = " ".join(
        f"{k}={v!r}" for k, v in e.items() if k.startswith(("LECTURETUI", "PYTHON", "ONEDNN"))
    )
    cmd = f"env {exports} {' '.join(lt(home, 'app'))}"
    subprocess.run([tmux, "kill-session", "-t", session], capture_output=True)
    t0 = time.perf_counter()
    for attempt in range(3):  # a tmux server still exiting after the last kill refuses once
        started = subprocess.run(
            [tmux, "new-session", "-d", "-s", session, "-x", "120", "-y", "32", cmd],
            capture_output=True,
        )
        if started.returncode == 0:
            break
        if attempt == 2:
            sys.exit(f"tmux did not start the app: {started.stderr.decode().strip()}")
        time.sleep(0.5)
        t0 = time.perf_counter()
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


THREE = [ROOT / "bench/data/realistic/lectures" / f"py4e-{n}.srt" for n in
         ("ch06-p1-strings", "ch07-p1-files", "ch08-p1-python-lists")]  # fmt: skip


def windows(home: Path) -> int:
    import sqlite3

    with sqlite3.connect(home / "index" / "library.sqlite3") as db:
        return int(db.execute("SELECT count(*) FROM segments").fetchone()[0])


def face_runs(face: str, args: argparse.Namespace) -> dict[str, list[float]]:
    """One run of a face: its figures by row name (seconds; windows/s for ingest3)."""
    out: dict[str, list[float]] = {}

    def add(name: str, value: float) -> None:
        out.setdefault(name, []).append(value)

    if face == "search":
        home = demo_home(args)
        add("search, fresh", timed(lt(home, "search", QUESTION), args))
        add("search, used", timed(lt(home, "search", QUESTION), args))
        shutil.rmtree(home)
    elif face == "ask":
        home = demo_home(args)
        for state in ("fresh", "used"):
            quote, first, whole = ask_once(home, args)
            add(f"ask: the lecturer's words, {state}", quote)
            add(f"ask: first word of the explanation, {state}", first)
            add(f"ask: whole answer, {state}", whole)
        shutil.rmtree(home)
    elif face == "ingest":
        empty = Path(tempfile.mkdtemp(prefix="lt-cold-"))
        add("ingest one lecture, fresh", timed(lt(empty, "ingest", str(args.lecture)), args))
        shutil.rmtree(empty)
        home = demo_home(args)
        add("ingest one lecture, used", timed(lt(home, "ingest", str(args.lecture)), args))
        shutil.rmtree(home)
    elif face == "ingest3":
        empty = Path(tempfile.mkdtemp(prefix="lt-cold-"))
        took = timed(lt(empty, "ingest", *map(str, THREE)), args)
        add("ingest three lectures in one command (windows/s)", windows(empty) / took)
        shutil.rmtree(empty)
    elif face == "summary":
        home = Path(tempfile.mkdtemp(prefix="lt-cold-"))
        subprocess.run(lt(home, "ingest", str(args.lecture), "--no-summaries"), env=env(args),
                       check=True, capture_output=True)  # fmt: skip
        add("summary, fresh", timed(lt(home, "summary", args.lecture.stem), args))
        add("summary, again", timed(lt(home, "summary", args.lecture.stem), args))
        shutil.rmtree(home)
    elif face == "app":
        home = demo_home(args)
        add("app: launch to first quote, fresh", app_once(home, args))
        add("app: launch to first quote, used", app_once(home, args))
        shutil.rmtree(home)
    return out


def _cell(figures: list[float]) -> str:
    ok = [f for f in figures if f == f]
    med = f"{statistics.median(ok):.1f}" if ok else "-"
    return f"{med} ({' / '.join(f'{f:.1f}' for f in figures)})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--faces", default="search,ask,ingest,ingest3,summary,app")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--runtime", default="auto", choices=("auto", "torch", "openvino"))
    ap.add_argument("--profiles", default="machine,laptop",
                    help="machine (this CPU), laptop (AVX2 at most), or both")  # fmt: skip
    ap.add_argument("--old", default=None, help="another checkout's src/, run before each new run")
    ap.add_argument("--src", default=None, help="the new code's src/ (default: this venv's)")
    ap.add_argument("--lecture", type=Path, default=LECTURE)
    ap.add_argument("--quick", action="store_true",
                    help="the search face once, two demo lectures: a check, no figures")  # fmt: skip
    args = ap.parse_args()
    if args.quick:
        args.faces, args.runs, args.profiles = "search", 1, "machine"
    new = args.src
    versions = [("old", args.old), ("new", new)] if args.old else [("new", new)]
    profiles = args.profiles.split(",")
    for profile in profiles:
        args.profile, args.src = profile, new
        print(f"{profile}: {prepare(args)}", flush=True)
    table: dict[str, dict[str, list[float]]] = {}
    for face in args.faces.split(","):
        for _ in range(args.runs):
            for profile in profiles:  # each profile, old and new, alternating
                for name, src in versions:
                    args.profile, args.src = profile, src
                    column = f"{profile} {name}" if len(profiles) > 1 else name
                    for row, figures in face_runs(face, args).items():
                        table.setdefault(row, {}).setdefault(column, []).extend(figures)
    names = [f"{p} {n}" if len(profiles) > 1 else n for p in profiles for n, _ in versions]
    print("| face | " + " | ".join(f"{n}: median (runs)" for n in names) + " |")
    print("|---|" + "---|" * len(names))
    for row, by in table.items():
        print(f"| {row} | " + " | ".join(_cell(by.get(n, [])) for n in names) + " |")


if __name__ == "__main__":
    main()
