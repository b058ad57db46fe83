"""Course packs on a real course: the pack's size beside the library's own files, export and
import time, and whether the imported library answers every question with the same hits and
the same scores as the library it came from.

    .venv/bin/python bench/pack_bench.py --home TA_HOME [--runs 3] [--questions FILE]
    .venv/bin/python bench/pack_bench.py --quick

--home: the library to export (bench/RESULTS.md, "Course packs", says how the 29 lectures of
Python for Everybody were ingested). The pack is written to a temporary folder, then imported
--runs times into a fresh, empty data home by `lecturetui --home NEW pack import PACK` in its
own process: the time is the process's, from its start to its exit. Both libraries are then
searched with every question of bench/data/realistic_questions.jsonl whose gold lecture they
hold (English and Portuguese), in every mode, with the real models (E5 and EmbeddingGemma), and
each hit's lecture, times, score and retrievers' scores compared exactly.

--quick: the demo corpus's first two lectures ingested into a temporary home with the real
models, imported in this process once, and searched with four questions (seconds; the test
suite runs it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SEED_CORPUS = ROOT / "examples" / "seed_lectures.jsonl"
QUESTIONS = ROOT / "bench" / "data" / "realistic_questions.jsonl"
QUICK_QUESTIONS = ("O TensorFlow prioriza a execução de operações em qual dispositivo?",
                   "placa de vídeo", "What does the GPU do?", "memória")  # fmt: skip
MODES = ("hybrid", "dense", "lexical")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LECTURETUI_MODELS", str(ROOT / "models"))


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


#: the first library's models (E5, EmbeddingGemma), lent to the next ones: each is loaded once
_MODELS: list[Any] = []


def open_library(home: Path) -> Any:
    from lecturetui.core.library import Library
    from lecturetui.core.models.placement import ONE_SHOT, Placement
    from lecturetui.core.paths import DataHome

    placement = Placement("auto", workload=ONE_SHOT)
    if _MODELS:
        return Library(DataHome.resolve(home), placement=placement, embedder=_MODELS[0],
                       reranker=_MODELS[1], rerank=_MODELS[1] is not None)  # fmt: skip
    library = Library(DataHome.resolve(home), placement=placement)
    stage = library.rerank_stage()
    _MODELS[:] = [library.embedder, stage.embedder if stage is not None else None]
    return library


def answers(home: Path, questions: list[str]) -> list[Any]:
    """Every question's hits in every mode: (lecture, start, end, score, retrievers)."""
    library = open_library(home)
    try:
        return [
            [(h.lecture.id, h.segment.start, h.segment.end, h.score, sorted(h.retrievers.items()))
             for h in library.search(q, k=10, mode=mode).hits]
            for q in questions for mode in MODES
        ]  # fmt: skip
    finally:
        library.close()


def questions_for(home: Path, path: Path) -> list[str]:
    library = open_library(home)
    held = {lec.id for lec in library.lectures()}
    library.close()
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [r["question"] for r in rows if r.get("lecture") in held]


def import_in_a_process(pack: Path, runs: int) -> tuple[list[float], Path]:
    """`lecturetui --home NEW pack import PACK`, each run into a new empty home: wall seconds."""
    times, home = [], Path()
    for n in range(runs):
        home = Path(tempfile.mkdtemp(prefix=f"lt-pack-import-{n}-"))
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "lecturetui", "--home", str(home), "pack",
                               "import", str(pack)], capture_output=True, text=True)  # fmt: skip
        times.append(time.perf_counter() - t0)
        if done.returncode:
            raise SystemExit(f"the import failed: {done.stderr}")
    return times, home


def quick_home(folder: Path) -> Path:
    """The demo corpus's first two lectures, ingested with the real models."""
    from lecturetui.core.ingest.pipeline import IngestOptions

    rows = [json.loads(x) for x in SEED_CORPUS.read_text(encoding="utf-8").splitlines()]
    corpus = folder / "quick.jsonl"
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows
                              if r["lecture"] in ("aula-A", "aula-B")), encoding="utf-8")  # fmt: skip
    home = folder / "ta"
    library = open_library(home)
    library.ingest([corpus], IngestOptions(course="Demo"))
    library.sync_rerank()
    library.close()
    return home


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, help="the library to export (else --quick)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    from lecturetui.core.pack.export import export_pack
    from lecturetui.core.pack.importer import import_pack

    tmp = Path(tempfile.mkdtemp(prefix="lt-pack-bench-"))
    home = quick_home(tmp) if args.quick or args.home is None else args.home
    library = open_library(home)
    pack = tmp / "course.ltpack"
    t0 = time.perf_counter()
    made = export_pack(library, pack, library.lectures())
    export_s = time.perf_counter() - t0
    library.close()
    if args.quick or args.home is None:
        student = tmp / "student"
        t0 = time.perf_counter()
        lib = open_library(student)
        import_pack(lib, pack)
        lib.close()
        times = [time.perf_counter() - t0]
        questions = list(QUICK_QUESTIONS)
    else:
        times, student = import_in_a_process(pack, args.runs)
        questions = questions_for(home, args.questions)
    own = folder_bytes(home / "index")
    theirs, mine = answers(home, questions), answers(student, questions)
    same = sum(a == b for a, b in zip(theirs, mine, strict=True))
    figures = {
        "lectures": made.lectures, "segments": made.segments, "pack_bytes": made.bytes,
        "library_bytes": own, "ratio": round(made.bytes / own, 3), "export_s": round(export_s, 2),
        "import_s": [round(t, 2) for t in times], "import_median_s": round(statistics.median(times), 2),
        "searches": len(theirs), "identical": same, "questions": len(questions),
        "imported_bytes": folder_bytes(student / "index"),
    }  # fmt: skip
    print(json.dumps(figures))
    print(
        f"pack {made.bytes / 1e6:.2f} MB = {figures['ratio']}x the library's index folder"
        f" ({own / 1e6:.2f} MB); export {export_s:.1f} s; import {figures['import_s']} s"
        f" (median {figures['import_median_s']} s); identical hits and scores:"
        f" {same}/{len(theirs)} searches ({len(questions)} questions x {len(MODES)} modes)"
    )
    return 0 if same == len(theirs) else 1


if __name__ == "__main__":
    sys.exit(main())
