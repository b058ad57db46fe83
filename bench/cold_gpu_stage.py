"""Fill .coldgpu/ for bench/cold_gpu.sh, bench/cold_start.py on the GPU machine in one call.

    .venv/bin/python bench/cold_gpu_stage.py [--out .coldgpu] [--rev HEAD] [--quick]

Writes (a device call carries 64 MiB with the working tree; this prints the sizes):

  src/        `git archive REV src` (a clean snapshot: the checkout may be in the middle of an
              edit), with its message catalogs compiled to .mo as the set-up compiles them;
              REV's commit id in src/COMMIT
  whl/        the wheels the machine's image lacks for lecturetui's commands (cp312, pinned to
              this venv's versions; its package list: the device tool's KINDS.md)
  sdist/      hnswlib and llama-cpp-python (slimmed as bench/gpu_carry.py slims it), built there
  models/     stand-ins of the three models: E5 and EmbeddingGemma as skeletons of their folders
              (bench/embed_standin.py: configs and tokenizers, the weights made there), the 1.5B
              answer model as a GGUF skeleton (bench/gguf_standin.py), and the record of a
              finished `models setup` (else the first command would try to prepare the models)
  lecture.srt the lecture cold_start.py's ingest face reads (bench/data/realistic/lectures/)
  tmux/       tmux and the libraries it links (the image may have none; the app face needs it)

`--quick` (a check the test suite runs, offline): into a temporary folder, without the wheels and
sdists (downloads), the skeletons compressed fast, the lecture taken from the chapter
benchmark's captions when the realistic library is not built.
"""

from __future__ import annotations

import argparse
import atexit
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import embed_standin  # noqa: E402
import gguf_standin  # noqa: E402
from gpu_carry import LLM_FILE, PLATFORMS, SDISTS, pinned, pip, slim  # noqa: E402

# lecturetui's imports on the way of search, ask, ingest and the app that the image lacks
# (gpu_carry.py's list, and tomlkit, which the settings now read)
WHEELS = ["diskcache", "ftfy", "wcwidth", "platformdirs", "py3langid", "PyStemmer", "textual",
          "mdit-py-plugins", "msgspec", "watchfiles", "tomlkit"]  # fmt: skip
MODELS = ROOT / "models"
E5_DIR = "multilingual-e5-small"
GEMMA_DIR = "embeddinggemma-300m"
PREPARED = ".lecturetui-prepared.json"
# EmbeddingGemma's stand-in (bench/embed_standin.py): the weight of the direction its token
# embeddings share and their seed, chosen with `embed_standin.scores` so that cold_start.py's
# question clears the coverage threshold (0.35) with its first two windows apart by more than
# the GPU's doubt margin (0.02), as with the real model (0.581 and 0.555 on the CPU): here 0.406
# and 0.365. Random weights would refuse it (about 0.2), and the ask and app faces would then
# time a refusal, without the answer model.
GEMMA_COMMON, GEMMA_SEED = 0.17, 6
LECTURE = ROOT / "bench/data/realistic/lectures/py4e-ch05-p4-loops-and-iteration.srt"
#: --quick's lecture where LECTURE is missing (the chapter benchmark's captions are committed)
QUICK_LECTURE = ROOT / "bench/data/chapters/captions/py4e-ch09-p2-dictionaries-en.srt"
TMUX_LIBS = ("libutempter.so.0", "libevent_core-2.1.so.7", "libtinfo.so.6")


def snapshot(rev: str, dest: Path) -> str:
    """`git archive REV src` into dest/src, the catalogs compiled; REV's commit id."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", rev], capture_output=True,
                            text=True, check=True).stdout.strip()  # fmt: skip
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "src"],
                             capture_output=True, check=True).stdout  # fmt: skip
    with tempfile.TemporaryFile() as tmp:
        tmp.write(archive)
        tmp.seek(0)
        with tarfile.open(fileobj=tmp) as tar:
            tar.extractall(dest, filter="data")
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po in (dest / "src").rglob("*.po"):
        with po.open("rb") as f:
            catalog = read_po(f)
        with po.with_suffix(".mo").open("wb") as f:
            write_mo(f, catalog)
    (dest / "src" / "COMMIT").write_text(commit + "\n")
    return commit


def wheels(dest: Path) -> None:
    plats = [x for p in PLATFORMS for x in ("--platform", p)]
    for name in WHEELS:  # one at a time: pip matches a platform tag exactly, per package
        pip("download", "--no-deps", "--only-binary=:all:", "--python-version", "3.12",
            "--implementation", "cp", *plats, "-d", str(dest), pinned(name))  # fmt: skip


def sdists(dest: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for name in SDISTS:
            pip("download", "--no-deps", "--no-binary", name, "-d", tmp, pinned(name))
        for archive in sorted(Path(tmp).glob("*.tar.gz")):
            slim(archive, dest / archive.name)


def models(dest: Path, preset: int = 6) -> None:
    """`preset`: xz's for the embedders' skeletons (0: fast, a little larger)."""
    for name in (E5_DIR, GEMMA_DIR):
        if not (MODELS / name).is_dir():
            sys.exit(f"{MODELS / name} is missing: run the set-up (make setup) first.")
    embed_standin.skeleton(MODELS / E5_DIR, dest / f"{E5_DIR}.skel", preset=preset)
    embed_standin.skeleton(MODELS / GEMMA_DIR, dest / f"{GEMMA_DIR}.skel", GEMMA_COMMON,
                           GEMMA_SEED, preset)  # fmt: skip
    gguf_standin.skeleton(MODELS / LLM_FILE, dest / "answer.skel")
    record = json.loads((MODELS / PREPARED).read_text()) if (MODELS / PREPARED).is_file() else {}
    (dest / PREPARED).write_text(json.dumps(record, indent=1))


def tmux(dest: Path) -> None:
    binary = shutil.which("tmux")
    if binary is None:
        print("no tmux here: the app face will need the machine's own")
        return
    dest.mkdir()
    shutil.copy(binary, dest / "tmux")
    for lib in TMUX_LIBS:
        for folder in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"):
            if (Path(folder) / lib).exists():
                shutil.copy(Path(folder) / lib, dest / lib)  # follows the link
                break


def mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / ".coldgpu")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--quick", action="store_true",
                    help="no downloads, a temporary folder: a check, offline")  # fmt: skip
    args = ap.parse_args()
    lecture = LECTURE
    if args.quick:
        args.out = Path(tempfile.mkdtemp(prefix="lt-bench-quick-")) / ".coldgpu"
        atexit.register(shutil.rmtree, args.out.parent, ignore_errors=True)
        lecture = LECTURE if LECTURE.exists() else QUICK_LECTURE
    if not lecture.exists():
        sys.exit(f"{LECTURE} is missing: run bench/data/build_realistic.py first.")
    if args.out.exists():
        shutil.rmtree(args.out)
    for sub in ("whl", "sdist", "models"):
        (args.out / sub).mkdir(parents=True)
    commit = snapshot(args.rev, args.out)
    if args.quick:
        print("--quick: no wheels or sdists downloaded")
    else:
        wheels(args.out / "whl")
        sdists(args.out / "sdist")
    models(args.out / "models", 0 if args.quick else 6)
    shutil.copy(lecture, args.out / "lecture.srt")
    tmux(args.out / "tmux")
    files = sorted(p for p in args.out.rglob("*") if p.is_file())
    staged = sum(p.stat().st_size for p in files)
    for p in files:
        if p.stat().st_size > 1 << 20:
            print(f"{mib(p.stat().st_size):>10}  {p.relative_to(args.out)}")
    tree = tree_bytes()
    print(f"src of {commit[:7]}; staged {mib(staged)} in {args.out.name}/; the working tree "
          f"{mib(tree)}; together {mib(staged + tree)} (a call carries 64 MiB)")  # fmt: skip
    if staged + tree > 60 << 20:
        sys.exit("too large to carry")


def tree_bytes() -> int:
    """What a device call carries of the working tree: tracked and untracked, not ignored."""
    names = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    return sum(p.stat().st_size for n in names if n and (p := ROOT / n).is_file())


if __name__ == "__main__":
    main()
