"""A stand-in for a GGUF model that carries in a few MB and runs at the real model's speed.

    python bench/gguf_standin.py skeleton SRC.gguf OUT.skel   # the header and each tensor's start
    python bench/gguf_standin.py build OUT.skel OUT.gguf      # a file of the original size
    python bench/gguf_standin.py --quick   # the small answer model's stand-in, made and run

The skeleton keeps the GGUF file's bytes up to its data section (header, metadata with the
tokenizer, tensor infos) and the first quantised blocks of each tensor (whole blocks, at most
4096 bytes); `build` writes every tensor's region by repeating them. The stand-in has the real
architecture, shapes, quantisation types and tokenizer, so llama.cpp reads and runs it like the
real model, writing nonsense. Standard library only (GGUF v2/v3, little-endian); `--quick` (a
check that the test suite runs) makes the stand-in of models/'s small answer model in a temporary
folder and has lecturetui's answer model process (core/llm/process.py) load it and write a few
tokens.

Skeleton format (gzip): b"GGUFSKEL1", u64 header size, the header bytes, u64 tensor count, then
per tensor u64 offset (from the file's start), u64 byte size (to the next tensor or the end of
the file), u32 length of its first bytes, those bytes.
"""

from __future__ import annotations

import gzip
import struct
import sys
from pathlib import Path
from typing import BinaryIO

MAGIC = b"GGUFSKEL1"
KEEP = 4096
# GGUF value types of fixed size: uint8 int8 uint16 int16 uint32 int32 float32 bool uint64
# int64 float64 (8 is a string, 9 an array)
FIXED = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
# ggml tensor types: bytes of one block (F32, F16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q8_1, Q2_K ..
# Q8_K, BF16); a tensor's first bytes are cut to whole blocks, so repeating them keeps every
# block's scales where llama.cpp reads them
BLOCK_BYTES = {0: 4, 1: 2, 2: 18, 3: 20, 6: 22, 7: 24, 8: 34, 9: 36, 10: 84, 11: 110,
               12: 144, 13: 176, 14: 210, 15: 292, 30: 2}  # fmt: skip


class Reader:
    def __init__(self, f: BinaryIO) -> None:
        self.f = f

    def take(self, fmt: str) -> int:
        size = struct.calcsize(fmt)
        (value,) = struct.unpack("<" + fmt, self.f.read(size))
        return int(value)

    def string(self) -> bytes:
        return self.f.read(self.take("Q"))

    def value(self, kind: int) -> object:
        """Read one value; only strings and integers are kept (skipped values give None)."""
        if kind == 8:
            return self.string()
        if kind == 9:
            item, count = self.take("I"), self.take("Q")
            if item in FIXED:
                self.f.seek(FIXED[item] * count, 1)
            else:
                for _ in range(count):
                    self.value(item)
            return None
        raw = self.f.read(FIXED[kind])
        if kind in (4, 5, 10, 11):
            return int.from_bytes(raw, "little", signed=kind in (5, 11))
        return None


def parse(path: Path) -> tuple[int, list[tuple[int, int]]]:
    """The data section's start and each tensor's (offset from the file's start, ggml type), in
    file order."""
    with path.open("rb") as f:
        r = Reader(f)
        if f.read(4) != b"GGUF":
            raise SystemExit(f"{path} is not a GGUF file")
        version = r.take("I")
        if version not in (2, 3):
            raise SystemExit(f"{path}: GGUF version {version} is not supported")
        n_tensors, n_kv = r.take("Q"), r.take("Q")
        alignment = 32
        for _ in range(n_kv):
            key = r.string()
            value = r.value(r.take("I"))
            if key == b"general.alignment" and isinstance(value, int):
                alignment = value
        infos = []
        for _ in range(n_tensors):
            r.string()  # name
            f.seek(8 * r.take("I"), 1)  # the dimensions
            kind, offset = r.take("I"), r.take("Q")
            infos.append((offset, kind))
        start = -(-f.tell() // alignment) * alignment
    return start, sorted((start + offset, kind) for offset, kind in infos)


def skeleton(src: Path, out: Path) -> None:
    start, tensors = parse(src)
    total = src.stat().st_size
    ends = [offset for offset, _ in tensors[1:]] + [total]
    with src.open("rb") as f, gzip.open(out, "wb", compresslevel=6) as w:
        w.write(MAGIC)
        w.write(struct.pack("<Q", start))
        w.write(f.read(start))
        w.write(struct.pack("<Q", len(tensors)))
        for (offset, kind), end in zip(tensors, ends, strict=True):
            block = BLOCK_BYTES.get(kind, 1)
            keep = min(end - offset, max(block, KEEP // block * block))
            f.seek(offset)
            head = f.read(keep)
            w.write(struct.pack("<QQI", offset, end - offset, len(head)))
            w.write(head)


def build(skel: Path, out: Path) -> None:
    with gzip.open(skel, "rb") as r, out.open("wb") as w:
        if r.read(len(MAGIC)) != MAGIC:
            raise SystemExit(f"{skel} is not a skeleton")
        (start,) = struct.unpack("<Q", r.read(8))
        w.write(r.read(start))
        (count,) = struct.unpack("<Q", r.read(8))
        for _ in range(count):
            offset, size, n = struct.unpack("<QQI", r.read(20))
            head = r.read(n)
            if w.tell() != offset:
                raise SystemExit(f"{skel}: a tensor at {offset}, the file is at {w.tell()}")
            chunk = head * ((1 << 22) // max(1, len(head)))  # about 4 MB a write
            left = size if head else 0
            while left:
                w.write(chunk[:left])
                left -= min(left, len(chunk))


def quick() -> None:
    """The small answer model's stand-in, made and run: a check in seconds (no figures)."""
    import os
    import tempfile
    import time

    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "src"))
    from lecturetui.core.llm import process
    from lecturetui.core.models.gguf import FAST_LLM, resolve_llm

    src = resolve_llm(Path(os.environ.get("LECTURETUI_MODELS", root / "models")), FAST_LLM)
    with tempfile.TemporaryDirectory() as tmp:
        skel, out = Path(tmp) / "answer.skel", Path(tmp) / "answer.gguf"
        t0 = time.perf_counter()
        skeleton(src, skel)
        t1 = time.perf_counter()
        build(skel, out)
        t2 = time.perf_counter()
        same = out.stat().st_size == src.stat().st_size and parse(out) == parse(src)
        skel_mib = skel.stat().st_size / 2**20
        gen = process.open_model(out, n_ctx=512)
        text = "".join(gen.stream([{"role": "user", "content": "Olá"}], 4))
        gen.close()
        t3 = time.perf_counter()
    print("| step | figure |\n|---|---|")
    print(f"| skeleton of {src.name} | {skel_mib:.1f} MiB, {t1 - t0:.1f} s |")
    print(f"| build | {t2 - t1:.1f} s; same size and tensors as the original: {same} |")
    print(
        f"| loaded and run in the model's process | {t3 - t2:.1f} s, wrote {len(text)} characters |"
    )
    if not same:
        raise SystemExit("the stand-in differs from the original")


def main() -> None:
    if sys.argv[1:] == ["--quick"]:
        quick()
        return
    if len(sys.argv) != 4 or sys.argv[1] not in ("skeleton", "build"):
        raise SystemExit(__doc__.split("\n\n")[1])
    step = skeleton if sys.argv[1] == "skeleton" else build
    step(Path(sys.argv[2]), Path(sys.argv[3]))


if __name__ == "__main__":
    main()
