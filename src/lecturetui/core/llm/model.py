"""What the rest of lecturetui knows of an answer model: the `Generator` protocol, served by the
built-in model's process (process.py) and by a model server the student runs (server.py) alike.

A model that can also read its reply's first-token probabilities (the moment check, core/answer/
doubt.py) or constrain a reply to a JSON schema (the judge) has `yes_probability` and
`complete_json`; a face that needs them says what it does without them (`lacks`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from lecturetui.core.i18n import _


class Generator(Protocol):
    """What the answer pipeline needs of a language model."""

    name: str
    n_ctx: int
    gpu: bool
    #: how fast it reads a prompt on this machine (prompt_speed.py), None when not measured
    prompt_tokens_per_s: float | None
    #: tokens at the start of every prompt already in its cache (the fixed instructions)
    cached_tokens: int

    def count_prompt_tokens(self, messages: list[dict[str, str]]) -> int: ...

    def count_tokens(self, text: str) -> int: ...

    def stream(
        self,
        messages: list[dict[str, str]],
        max_tokens: int,
        stop: threading.Event | None = None,
        temperature: float | None = None,
    ) -> Iterator[str]: ...


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """What the model's process says of the model once it is loaded."""

    name: str
    n_ctx: int
    gpu: bool
    backend: str
    layers: int
    layers_on_gpu: int
    placement: str
    speed_key: str
    notice: str | None
    #: the process that runs it: its id, and whether torch or llama_cpp were imported there
    pid: int
    imported: tuple[str, ...]
    #: GPU libraries (cudart, cuBLAS...) that process has loaded from more than one file
    loaded_twice: tuple[str, ...]


def lacks(model: object) -> str | None:
    """What a face says when the answer model gives no probabilities (a model server): the
    moment check is not made; None when it gives them."""
    if hasattr(model, "yes_probability"):
        return None
    return _(
        "this answer model gives no token probabilities, so a doubtful moment is shown as"
        " doubtful instead of being checked"
    )
