"""sha256 of files read in blocks: the index, the models, media files and their checksums."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import BinaryIO

BLOCK = 1 << 22


def feed(digest: hashlib._Hash, stream: BinaryIO) -> hashlib._Hash:
    """Add everything left in `stream` to `digest`, a block at a time; returns the digest."""
    for block in iter(lambda: stream.read(BLOCK), b""):
        digest.update(block)
    return digest


def file_sha256(path: Path) -> str:
    with path.open("rb") as f:
        return feed(hashlib.sha256(), f).hexdigest()
