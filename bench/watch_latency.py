"""How long after a file is closed in a watched folder its lecture is searchable.

    .venv/bin/python bench/watch_latency.py [--real] [--files 10] [--quick]

Each file is tests/fixtures/lecture.vtt plus a cue of its own (identical files are duplicates,
which are not stored again), written and closed, then
`search` is polled until a hit from it comes back. `--real` uses the offline E5 model (the
embedding is then most of the time); without it, a stand-in embedder isolates the watcher.
`--quick`: one file (the whole path in seconds: a check, no figures).
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--real", action="store_true")
    ap.add_argument("--files", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="one file: a check, no figures")
    args = ap.parse_args()
    if args.quick:
        args.files = 1
    import os

    from lecturetui.core.library import Library
    from lecturetui.core.paths import DataHome
    from lecturetui.core.watch import FolderWatcher

    os.environ.setdefault("LECTURETUI_MODELS", str(ROOT / "models"))
    tmp = Path(tempfile.mkdtemp())
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    folder = tmp / "aulas"
    folder.mkdir()
    if args.real:
        library = Library(DataHome.resolve(tmp / "home"))
    else:
        from tests.fakes import FakeEmbedder

        library = Library(DataHome.resolve(tmp / "home"), embedder=FakeEmbedder())
    library.ingest([ROOT / "tests" / "fixtures" / "rolling.vtt"])  # a library to search
    library.warm()
    stop = threading.Event()
    thread = threading.Thread(target=FolderWatcher(library, folder).run, args=(stop,), daemon=True)
    thread.start()
    time.sleep(1.0)
    text = (ROOT / "tests" / "fixtures" / "lecture.vtt").read_text(encoding="utf-8")
    delays = []
    for i in range(args.files):
        name = f"aula-{i:02d}"
        unique = f"\n00:10:00.000 --> 00:10:05.000\nexemplo número {i} da aula\n"
        (folder / f"{name}.vtt").write_text(text + unique, encoding="utf-8")  # not a duplicate
        t0 = time.perf_counter()
        while not any(x.id == name for x in library.lectures()):
            time.sleep(0.02)
        library.search("TensorFlow prioriza a GPU", 5)
        delays.append(time.perf_counter() - t0)
        print(f"{name}: searchable {delays[-1]:.2f} s after closing", flush=True)
    stop.set()
    thread.join(timeout=5)
    print(f"median {statistics.median(delays):.2f} s, max {max(delays):.2f} s "
          f"({'E5' if args.real else 'stand-in embedder'}, {args.files} files)")  # fmt: skip


if __name__ == "__main__":
    main()
