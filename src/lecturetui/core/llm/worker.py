"""The answer model's process: `python -m lecturetui.core.llm.worker`, started by process.py.

It loads one GGUF model in llama.cpp (generation.py) and answers the frames (wire.py) its parent
sends on standard input, on standard output; what llama.cpp writes goes to standard error, which
the parent points at the data home's log. It never imports torch: two builds of the CUDA
libraries in one process (torch's wheels and llama.cpp's toolkit) aborted answers on a GPU.

A stop frame ends the reply in flight: between two tokens, and while the prompt is read through
llama.cpp's abort callback, which its CPU backend checks between the graph's operations. The
process ends when its parent closes the pipe (or dies), whatever it is doing.
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import set_language
from lecturetui.core.llm import wire
from lecturetui.core.llm.model import ModelInfo
from lecturetui.core.models.hardware import loaded_twice
from lecturetui.core.models.placement import Placement

#: the requests a parent may make of the model, besides a streamed reply
CALLS = frozenset(
    {"count_tokens", "count_prompt_tokens", "prefill", "yes_probability", "complete_json", "info"}
)
#: the modules whose presence in this process the parent's tests and doctor read
WATCHED = ("torch", "sentence_transformers", "transformers", "openvino", "llama_cpp")


@dataclass(frozen=True, slots=True)
class WorkerConfig:
    """How the model is loaded (the options of core/session.py's AnswerChoice)."""

    path: str
    n_ctx: int = 4096
    device: str = "auto"
    seed: int | None = None
    temperature: float = 0.0
    verbose: bool = False
    #: the interface's language, for the sentences this process says (core/i18n.py)
    language: str = "en"


class _Requests:
    """The frames read from the parent, with the stop of the reply in flight set at once."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.todo: queue.Queue[tuple[tuple[Any, ...], threading.Event]] = queue.Queue()
        self.current = threading.Event()
        #: llama.cpp's abort callback, kept alive while the model may call it (_abort_on)
        self.abort: Any = None

    def read(self) -> None:
        while True:
            try:
                frame = wire.receive(self.fd)
            except wire.Closed:
                os._exit(0)  # the parent has gone: nothing to answer for
            if frame[0] == "stop":
                self.current.set()
            elif frame[0] == "exit":
                os._exit(0)
            else:
                self.current = threading.Event()
                self.todo.put((frame, self.current))


def _abort_on(model: Any, requests: _Requests) -> Any:
    """llama.cpp's abort callback on the model's context: the prompt being read stops when the
    reply in flight is stopped. Returns the callback (kept alive by the caller); None where this
    llama-cpp-python has no such call."""
    llama_cpp = sys.modules.get("llama_cpp")  # imported by main, before the model loaded
    if llama_cpp is None:
        return None
    setter = getattr(llama_cpp, "llama_set_abort_callback", None)
    kind = getattr(llama_cpp, "ggml_abort_callback", None)
    ctx = getattr(getattr(getattr(model, "_llm", None), "_ctx", None), "ctx", None)
    if setter is None or kind is None or ctx is None:
        return None
    callback = kind(lambda _data: bool(requests.current.is_set()))
    setter(ctx, callback, None)
    return callback


def _info(model: Any) -> Any:
    return ModelInfo(
        name=model.name,
        n_ctx=model.n_ctx,
        gpu=model.gpu,
        backend=model.backend,
        layers=model.layers,
        layers_on_gpu=model.layers_on_gpu,
        placement=model.placement,
        speed_key=model.speed_key,
        notice=model.notice,
        pid=os.getpid(),
        imported=tuple(m for m in WATCHED if m in sys.modules),
        loaded_twice=loaded_twice(),
    )


def _load(config: WorkerConfig) -> Any:
    from lecturetui.core.llm.generation import LlamaGenerator  # lazy: numpy after llama_cpp

    return LlamaGenerator(
        Path(config.path),
        n_ctx=config.n_ctx,
        verbose=config.verbose,
        redirect_stderr=False,
        seed=config.seed,
        temperature=config.temperature,
        placement=Placement(config.device),
    )


def _error(exc: BaseException) -> tuple[Any, ...]:
    if isinstance(exc, LectureTuiError):
        return ("error", exc.message, exc.hint)
    return ("error", f"{type(exc).__name__}: {exc}", None)


def _stream(model: Any, out: int, frame: tuple[Any, ...], stop: threading.Event) -> None:
    _, messages, max_tokens, temperature = frame
    try:
        for piece in model.stream(messages, max_tokens, stop, temperature):
            wire.send(out, "piece", piece)
    except Exception as exc:  # a reply stopped while its prompt was read ends as stopped
        if not stop.is_set():
            wire.send(out, *_error(exc))
            return
    wire.send(out, "end", stop.is_set())


def serve(config: WorkerConfig, fd_in: int, fd_out: int) -> None:
    """Load the model, then answer requests one at a time until the parent goes."""
    requests = _Requests(fd_in)
    threading.Thread(target=requests.read, name="requests", daemon=True).start()
    try:
        model = _load(config)
    except Exception as exc:
        wire.send(fd_out, *_error(exc))
        return
    requests.abort = _abort_on(model, requests)
    wire.send(fd_out, "ready", _info(model))
    while True:
        frame, stop = requests.todo.get()
        if frame[0] == "stream":
            _stream(model, fd_out, frame, stop)
            continue
        name, args = frame[1], frame[2]
        try:
            if name not in CALLS:
                raise ValueError(f"no call {name!r}")
            value = _info(model) if name == "info" else getattr(model, name)(*args)
            if name == "prefill":
                value = (*value, model.cached_tokens)
        except Exception as exc:
            wire.send(fd_out, *_error(exc))
            continue
        wire.send(fd_out, "result", value)


def main() -> None:
    """The frames move to private descriptors; standard input and output then point at
    /dev/null and the log, so nothing a library prints can break a frame."""
    fd_in, fd_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    os.close(null)
    # while the parent searches; before numpy, as llama.cpp's CUDA build wants; its absence is
    # said when the model loads (llama_load.import_llama)
    with contextlib.suppress(ImportError):
        import llama_cpp  # noqa: F401  # lazy: first, before numpy; the parent imports this module
    try:
        kind, config = wire.receive(fd_in)
    except wire.Closed:
        return
    if kind != "load" or not isinstance(config, WorkerConfig):
        return
    set_language(config.language)
    serve(config, fd_in, fd_out)


if __name__ == "__main__":  # run as the package's module, so pickled classes are its own
    from lecturetui.core.llm import worker

    worker.main()
