"""Fill .gpucheck/ for bench/gpu_check.sh, the one-call GPU check of the moment check's speed.

    .venv/bin/python bench/gpu_check_stage.py [--out .gpucheck] [--llm models/MODEL.gguf] [--quick]

Writes: the llama-cpp-python sdist of this checkout's version without the parts a build does not
read (tens of MB of test models and docs), the wheels the GPU machine's image lacks for
lecturetui's answer modules (diskcache: llama_cpp imports it), and the answer model's skeleton
(bench/gguf_standin.py, a few MB). Prints their sizes and the working tree's (a device call
carries 64 MiB in all). `--quick` (a check the test suite runs, offline): the skeleton and the
sizes, in a temporary folder, without the downloads.
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import gguf_standin  # noqa: E402
from gpu_carry import LLM_FILE, pinned, pip, slim  # noqa: E402

# what the answer modules and llama_cpp import that the image lacks (its package list: the
# device tool's KINDS.md); numpy, jinja2, typing-extensions, click and rich are there
WHEELS = ["diskcache"]
LLM = ROOT / "models" / LLM_FILE


def sdist(dest: Path) -> Path:
    """Download llama-cpp-python's sdist (pip's cache answers a second time), slimmed as
    gpu_carry.py slims it."""
    with tempfile.TemporaryDirectory() as tmp:
        pip("download", "--no-deps", "--no-binary", "llama-cpp-python", "-d", tmp,
            pinned("llama-cpp-python"))  # fmt: skip
        (archive,) = Path(tmp).glob("llama_cpp_python-*.tar.gz")
        out = dest / archive.name
        slim(archive, out)
    return out


def tree_bytes() -> int:
    """What a device call carries of the working tree: tracked and untracked, not ignored."""
    names = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    return sum(p.stat().st_size for n in names if n and (p := ROOT / n).is_file())


def mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / ".gpucheck")
    ap.add_argument("--llm", type=Path, default=LLM)
    ap.add_argument("--quick", action="store_true",
                    help="no downloads, a temporary folder: a check, offline")  # fmt: skip
    args = ap.parse_args()
    if args.quick:
        args.out = Path(tempfile.mkdtemp(prefix="lt-bench-quick-")) / ".gpucheck"
        atexit.register(shutil.rmtree, args.out.parent, ignore_errors=True)
    if not args.llm.exists():
        sys.exit(f"{args.llm} is missing: run make run first.")
    if args.out.exists():
        shutil.rmtree(args.out)
    (args.out / "whl").mkdir(parents=True)
    if args.quick:
        print("--quick: the wheels and llama-cpp-python's sdist are not downloaded")
    else:
        for name in WHEELS:
            pip("download", "--no-deps", "--only-binary=:all:", "-d", str(args.out / "whl"),
                pinned(name))  # fmt: skip
        sdist(args.out)
    gguf_standin.skeleton(args.llm, args.out / "answer.skel")
    files = sorted(p for p in args.out.rglob("*") if p.is_file())
    for p in files:
        print(f"{mib(p.stat().st_size):>10}  {p.relative_to(args.out.parent)}")
    staged = sum(p.stat().st_size for p in files)
    tree = tree_bytes()
    print(f"staged {mib(staged)} in {args.out.name}/; the working tree {mib(tree)}; "
          f"together {mib(staged + tree)} (a call carries 64 MiB)")  # fmt: skip
    if staged + tree > 60 << 20:
        sys.exit("too large to carry")


if __name__ == "__main__":
    main()
