"""How fast the answer model reads a prompt on this machine: measured once, kept in the data home.

The answer's prompt is sized from this figure (budget.py). It is measured the first time a model
is loaded on a device, by timing how long the model takes to read the fixed start of every
prompt (which it must read anyway, to keep it in its cache), and stored in
`<data home>/llm_speed.json` under the model file, its size, the device, the threads and the
llama.cpp version. `lecturetui models speed` measures again.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from lecturetui.core.prompting import fixed_messages
from lecturetui.core.timefmt import utc_now

SPEED_FILE = "llm_speed.json"


@runtime_checkable
class Prefilling(Protocol):
    speed_key: str
    prompt_tokens_per_s: float | None

    def prefill(self, messages: list[dict[str, str]]) -> tuple[int, float]: ...


@dataclass(frozen=True, slots=True)
class PromptSpeed:
    key: str  # model file, size, device, threads, llama.cpp version
    tokens_per_s: float
    tokens: int  # how many tokens the measurement read
    measured_at: str
    measured_now: bool = False  # measured by this call (else read from the data home)


def stored_speed(path: Path, key: str) -> PromptSpeed | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        row = data[key]
        return PromptSpeed(
            key, float(row["tokens_per_s"]), int(row["tokens"]), str(row["measured_at"])
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store_speed(path: Path, speed: PromptSpeed) -> None:
    """Add or replace the figure for speed.key (atomically; other keys are kept)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    row = asdict(speed)
    del row["key"], row["measured_now"]
    data[speed.key] = row
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".llm_speed-", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, ensure_ascii=False)
    Path(tmp).replace(path)


def prepare(generator: object, path: Path | None, remeasure: bool = False) -> PromptSpeed | None:
    """Put the fixed start of every prompt in the model's cache and set its prompt speed.

    The speed is read from `path` when it was measured before for this model and device;
    otherwise the fixed start is read twice and the faster time counts (the first read also
    pays for warming up), and the figure is stored. None when the model has no chat template
    (nothing to cache, no measurement) or cannot read a prompt ahead (a stand-in model).
    """
    if not isinstance(generator, Prefilling):
        return None
    stored = None if remeasure or path is None else stored_speed(path, generator.speed_key)
    n, seconds = generator.prefill(fixed_messages())
    if n == 0 or seconds <= 0:
        return stored
    if stored is None:
        n, again = generator.prefill(fixed_messages())
        now = utc_now()
        stored = PromptSpeed(generator.speed_key, n / min(seconds, again), n, now, True)
        if path is not None:
            store_speed(path, stored)
    generator.prompt_tokens_per_s = stored.tokens_per_s
    return stored
