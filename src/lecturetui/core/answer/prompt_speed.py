"""How fast the answer model reads a prompt on this machine: measured once, kept in the models folder.

The answer's prompt is sized from this figure (budget.py). It is never measured on a question's
path: the first time a model is loaded on a device, the figure is the speed at which it read the
fixed start of every prompt (which it must read anyway, to keep it in its cache), and each answer
then adds the speed at which it read its own prompt as a sample until `KEPT` are kept. The
figure is stored in `<models folder>/llm_speed.json` (every data home shares it) under the model file, its size, the device, the
threads and the llama.cpp version. `lecturetui models speed` measures it again, `READS` times.

One measurement taken while another job loads the machine must not shrink every later prompt:
the figure is the median of the last `KEPT` samples, and once there are that many, an answer
whose prompt was read much faster or slower than the figure says (`observe`, a factor `OFF_BY`
either way) adds its own speed as a sample, so the figure follows the machine within a few
answers.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from lecturetui.core.answer.prompting import fixed_messages
from lecturetui.core.atomic import write_atomic
from lecturetui.core.paths import SPEED_FILE as SPEED_FILE  # core/paths.py places it
from lecturetui.core.timefmt import utc_now

#: reads of the fixed start when measuring (the first also warms the model up and is dropped)
READS = 4
#: samples kept per model and device; the figure is their median
KEPT = 5
#: an answer's prompt read this many times faster or slower than the figure is a new sample
OFF_BY = 1.5
#: prompts shorter than this (tokens) are too short to time
MIN_OBSERVED_TOKENS = 64


@runtime_checkable
class Prefilling(Protocol):
    speed_key: str
    prompt_tokens_per_s: float | None

    def prefill(
        self, messages: list[dict[str, str]], keep: Path | None = None
    ) -> tuple[int, float]: ...


@dataclass(frozen=True, slots=True)
class PromptSpeed:
    key: str  # model file, size, device, threads, llama.cpp version
    tokens_per_s: float
    tokens: int  # how many tokens the measurement read
    measured_at: str
    measured_now: bool = False  # measured by this call (else read from the data home)
    samples: tuple[float, ...] = ()  # the last KEPT speeds measured; tokens_per_s is their median


def stored_speed(path: Path, key: str) -> PromptSpeed | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        row = data[key]
        samples = tuple(float(x) for x in row.get("samples", [])) or (float(row["tokens_per_s"]),)
        return PromptSpeed(
            key,
            statistics.median(samples),
            int(row["tokens"]),
            str(row["measured_at"]),
            samples=samples,
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
    row["samples"] = list(speed.samples)
    data[speed.key] = row
    write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False).encode("utf-8"))


def prepare(
    generator: object, path: Path | None, remeasure: bool = False, keep: Path | None = None
) -> PromptSpeed | None:
    """Put the fixed start of every prompt in the model's cache and set its prompt speed.

    The speed is read from `path` when it was measured before for this model and device;
    otherwise the read of the fixed start that caches it is the first sample (answers add
    theirs: `observe`), so no question waits for a measurement. With `keep` (the data home),
    the model's state after the fixed start is restored from there when an earlier process saved
    it, and saved there otherwise (core/llm/prefix_state.py). `remeasure`
    (`lecturetui models speed`) reads it READS times, the first (warming up) dropped, and keeps
    the median of the others. None when the model has no chat template (nothing to cache, no
    measurement) or cannot read a prompt ahead (a stand-in model).
    """
    if not isinstance(generator, Prefilling):
        return None
    stored = None if remeasure or path is None else stored_speed(path, generator.speed_key)
    n, seconds = generator.prefill(fixed_messages(), None if remeasure else keep)
    if n and seconds <= 0 and stored is None:  # restored, but its speed was never kept
        n, seconds = generator.prefill(fixed_messages())
    if n == 0 or seconds <= 0:
        if stored is not None:
            generator.prompt_tokens_per_s = stored.tokens_per_s
        return stored
    if stored is None:
        if remeasure:  # the read above warmed the model up; READS - 1 more are timed
            reads = [generator.prefill(fixed_messages()) for _ in range(READS - 1)]
            speeds = [tokens / took for tokens, took in reads]
        else:
            speeds = [n / seconds]
        samples = tuple(speeds[-KEPT:])
        speed = statistics.median(samples)
        stored = PromptSpeed(generator.speed_key, speed, n, utc_now(), True, samples)
        if path is not None:
            store_speed(path, stored)
    generator.prompt_tokens_per_s = stored.tokens_per_s
    return stored


def observe(generator: object, path: Path | None, tokens: int, seconds: float) -> bool:
    """An answer's prompt took `seconds` for its `tokens` new tokens: while fewer than KEPT
    samples are kept, or when that is far from the figure (OFF_BY either way), keep it as a
    sample and move the figure to the new median. Returns whether the figure changed."""
    if not isinstance(generator, Prefilling) or tokens < MIN_OBSERVED_TOKENS or seconds <= 0:
        return False
    current = generator.prompt_tokens_per_s
    seen = tokens / seconds
    stored = stored_speed(path, generator.speed_key) if path is not None else None
    filling = stored is not None and len(stored.samples) < KEPT
    if current and not filling and 1 / OFF_BY <= seen / current <= OFF_BY:
        return False
    samples = ((*stored.samples, seen) if stored else (seen,))[-KEPT:]
    speed = PromptSpeed(
        generator.speed_key, statistics.median(samples), tokens, utc_now(), True, samples
    )
    if path is not None:
        store_speed(path, speed)
    generator.prompt_tokens_per_s = speed.tokens_per_s
    return True
