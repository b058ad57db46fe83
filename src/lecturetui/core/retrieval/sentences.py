"""The E5 vectors of a window's search pieces (core/sentences.py's `pieces`), kept on disk so
each is embedded once."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from lecturetui.core.models.embedding import Embedder
from lecturetui.core.sentences import SPLITTER_VERSION

Vectors = npt.NDArray[np.float32]


def _key(model: str, text: str) -> bytes:
    return hashlib.blake2b(f"{SPLITTER_VERSION}\n{model}\n{text}".encode(), digest_size=16).digest()


class SentenceVectors:
    """E5 passage vectors of sentences, cached in `index/sentences.sqlite3` by model and text.

    The file is a cache: deleting it costs only re-embedding. Thread-safe: the app's question
    worker and its background warm-up share one instance (one embedding at a time).
    """

    def __init__(self, path: Path | None, embedder: Callable[[], Embedder], model: str) -> None:
        self._embedder = embedder
        self._model = model
        self._lock = threading.Lock()
        self._memory: dict[bytes, Vectors] = {}
        self._db: sqlite3.Connection | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS sentence_vectors (key BLOB PRIMARY KEY, vector BLOB)"
                )
            except sqlite3.Error:  # a cache that cannot be opened is only slower
                self._db = None

    def missing(self, texts: Sequence[str]) -> list[str]:
        """The texts with no cached vector yet."""
        with self._lock:
            self._load([_key(self._model, t) for t in texts])
            return [t for t in dict.fromkeys(texts) if _key(self._model, t) not in self._memory]

    def vectors(self, texts: Sequence[str]) -> Vectors:
        """One normalised vector per text (rows in the order given), embedding the missing ones."""
        keys = [_key(self._model, t) for t in texts]
        with self._lock:
            self._load(keys)
            todo = list(
                dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in self._memory)
            )
            if todo:
                fresh = self._embedder().embed_passages(todo)
                rows = [(_key(self._model, t), v) for t, v in zip(todo, fresh, strict=True)]
                self._memory.update(rows)
                self._save(rows)
            if not keys:
                return np.zeros((0, 1), np.float32)
            return np.stack([self._memory[k] for k in keys])

    def _load(self, keys: list[bytes]) -> None:
        want = [k for k in dict.fromkeys(keys) if k not in self._memory]
        if not want or self._db is None:
            return
        try:
            for i in range(0, len(want), 500):
                chunk = want[i : i + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT key, vector FROM sentence_vectors WHERE key IN ({marks})", chunk
                )
                for key, blob in rows:
                    self._memory[bytes(key)] = np.frombuffer(blob, dtype=np.float32)
        except sqlite3.Error:
            return

    def _save(self, rows: list[tuple[bytes, Vectors]]) -> None:
        if self._db is None:
            return
        try:
            self._db.executemany(
                "INSERT OR REPLACE INTO sentence_vectors (key, vector) VALUES (?, ?)",
                [(k, np.asarray(v, np.float32).tobytes()) for k, v in rows],
            )
        except sqlite3.Error:
            return

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
