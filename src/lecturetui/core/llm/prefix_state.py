"""The answer model's cache of the fixed start of every prompt, kept in the models folder.

Every prompt opens with the same instructions and worked example (prompting.fixed_messages), which
the model reads once when it loads (about 400 tokens: 4-12 s on a 2-core CPU). The state it leaves
(llama.cpp's KV cache for those tokens, about 12 MB for the default model) is written to
`<models folder>/llm_prefix/` (core/paths.py's `model_state`: every data home shares it) and
restored by the next process instead of reading them again. A
file is keyed by the set-up the state depends on (the model file, the device, the threads, the
context and batch sizes, llama.cpp's version) and holds the tokens it was made from; one of
another key or other tokens, or a truncated or damaged one, is read again (and rewritten),
never used. Writes are atomic.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from lecturetui.core.atomic import write_atomic
from lecturetui.core.paths import PREFIX_FOLDER

MAGIC = b"lecturetui-llm-prefix 1\n"


@dataclass(frozen=True, slots=True)
class SavedPrefix:
    tokens: list[int]
    state: bytes


def state_path(home_root: Path, key: str) -> Path:
    """The file for `key` (a digest names it: one file per model and set-up)."""
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
    return home_root / PREFIX_FOLDER / f"{digest}.state"


def load(path: Path, key: str) -> SavedPrefix | None:
    """The saved prefix for `key`, or None (missing, another key, truncated or damaged)."""
    try:
        with path.open("rb") as f:
            if f.readline() != MAGIC:
                return None
            header = json.loads(f.readline())
            state = f.read()
    except (OSError, ValueError):
        return None
    if not isinstance(header, dict) or header.get("key") != key:
        return None
    if len(state) != header.get("size") or hashlib.sha1(state).hexdigest() != header.get("sha1"):
        return None
    tokens = header.get("tokens")
    if not isinstance(tokens, list) or not all(isinstance(t, int) for t in tokens):
        return None
    return SavedPrefix(tokens, state)


def save(path: Path, key: str, saved: SavedPrefix) -> bool:
    """Write it whole or not at all; False when the data home cannot be written."""
    header = {
        "key": key,
        "tokens": saved.tokens,
        "size": len(saved.state),
        "sha1": hashlib.sha1(saved.state).hexdigest(),
    }
    try:
        write_atomic(path, MAGIC, json.dumps(header).encode("utf-8") + b"\n", saved.state)
    except OSError:
        return False
    return True
