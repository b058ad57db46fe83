"""Course packs for the tests: libraries made with the fake embedders, a pack's members taken
apart and put back together (sizes and checksums made right again, unless a case wants them
wrong), and the hashes of everything a data home holds."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from tests.fakes import FakeEmbedder

MANIFEST = "manifest.json"


def fake_library(
    home: Path, e5: str = "fake-e5", dim: int = 64, rerank: bool = True, sentence_ends: Any = None
) -> Library:
    """A library in `home` with the fake E5 (and a fake EmbeddingGemma, 32-d); `sentence_ends`:
    a stand-in sentence model."""
    reranker = FakeEmbedder(dim=32, model_id="fake-gemma") if rerank else None
    return Library(DataHome.resolve(home), embedder=FakeEmbedder(dim=dim, model_id=e5),
                   reranker=reranker, rerank=rerank, sentence_ends=sentence_ends)  # fmt: skip


@contextmanager
def opened(home: Path, **kwargs: Any) -> Iterator[Library]:
    library = fake_library(home, **kwargs)
    try:
        yield library
    finally:
        library.close()


def members_of(pack: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(pack)) as zf:
        return {info.filename: zf.read(info) for info in zf.infolist()}


def manifest_of(members: dict[str, bytes]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(members[MANIFEST])
    return data


def rebuild(
    members: dict[str, bytes], manifest: dict[str, Any] | None = None, fix: bool = True
) -> bytes:
    """A zip of `members` (their manifest replaced by `manifest`), the manifest's sizes and
    checksums made those of the members unless `fix` is False."""
    manifest = dict(manifest or manifest_of(members))
    if fix:
        manifest["members"] = [
            {"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            for name, data in members.items()
            if name != MANIFEST
        ]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr(MANIFEST, json.dumps(manifest))
        for name, data in members.items():
            if name != MANIFEST:
                zf.writestr(name, data, zipfile.ZIP_DEFLATED)
    return out.getvalue()


def jsonl(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.splitlines()]


def to_jsonl(rows: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(row).encode() + b"\n" for row in rows)


def home_state(home: Path) -> dict[str, str]:
    """Every file of a data home by its sha256 (the database's shared-memory index aside)."""
    return {
        str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(home.rglob("*"))
        if p.is_file() and not p.name.endswith("-shm")
    }
