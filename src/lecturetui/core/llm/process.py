"""The built-in answer model, in a process of its own (worker.py): the client every face uses.

lecturetui embeds with torch or OpenVINO; llama.cpp runs in another process, started by
lecturetui (never forked: a fresh interpreter, `python -m lecturetui.core.llm.worker`), so the
two never share native libraries. The process starts as soon as a command knows it will answer
(a `Worker`: it imports llama.cpp while the search runs) and loads the model when told.

- The same greedy output, cached prompt start, yes/no probabilities, token counts and
  JSON-constrained replies as in process: the worker runs the same LlamaGenerator.
- A stop is a frame the worker acts on between tokens and, while it reads the prompt, through
  llama.cpp's abort callback; if it has not answered within STOP_GRACE_S it is killed and a new
  one starts in the background, so the reply ends within half a second in every case.
- If the process dies, the caller reads one sentence, and the next request starts a new one,
  which restores the cached prompt start from the data home.
"""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import IO, Any

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _, language
from lecturetui.core.llm import wire
from lecturetui.core.llm.model import ModelInfo
from lecturetui.core.llm.worker import WorkerConfig
from lecturetui.core.models.placement import Placement

#: how long a stopped reply may take to end before its process is killed
STOP_GRACE_S = 0.3
#: how long the process may take to end after it is asked to
CLOSE_S = 2.0
_CLOSED = ("closed",)


class Worker:
    """One model process, started at once (it imports llama.cpp while the caller goes on), and
    the frames it sends, read by a thread into a queue."""

    def __init__(self, log: Path | None, verbose: bool = False) -> None:
        self.log = log
        err: IO[bytes] | int | None = subprocess.DEVNULL
        if verbose:  # llama.cpp's own log on this process's stderr (ask --verbose)
            err = None
        elif log is not None:
            log.parent.mkdir(parents=True, exist_ok=True)
            err = log.open("ab")  # the child holds it; closed below
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "lecturetui.core.llm.worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                start_new_session=os.name == "posix",  # the terminal's Ctrl+C is the parent's
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        except OSError as exc:
            raise LectureTuiError(
                _("The answer model's process cannot be started ({error}).").format(error=exc),
                hint=_("search still works; check the installation with lecturetui doctor"),
            ) from None
        finally:
            if err is not None and not isinstance(err, int):
                err.close()
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin.fileno()
        self.frames: queue.Queue[tuple[Any, ...]] = queue.Queue()
        threading.Thread(target=self._read, name="answer-model-frames", daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while True:
            try:
                frame = wire.receive(fd)
            except wire.Closed:
                self.frames.put(_CLOSED)
                return
            self.frames.put(frame)

    def send(self, *frame: Any) -> None:
        try:
            wire.send(self._in, *frame)
        except wire.Closed:
            self.frames.put(_CLOSED)

    def next_frame(self, timeout: float | None = None) -> tuple[Any, ...] | None:
        """The next frame, `_CLOSED` once the process has gone; None after `timeout` seconds."""
        try:
            return self.frames.get(timeout=timeout)
        except queue.Empty:
            return None

    def kill(self) -> None:
        self.proc.kill()
        self._reap()

    def close(self) -> None:
        self.send("exit")
        try:
            self.proc.wait(CLOSE_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self._reap()

    def _reap(self) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(CLOSE_S)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()


def ended(log: Path | None) -> LectureTuiError:
    """The one sentence a face shows when the model's process ended under it."""
    where = _("what it wrote is in {log}").format(log=log) if log else ""
    return LectureTuiError(
        _("The answer model's process ended unexpectedly."),
        hint=_("ask again and a new one starts") + (f"; {where}" if where else ""),
    )


def open_model(
    path: Path,
    n_ctx: int = 4096,
    placement: Placement | None = None,
    log: Path | None = None,
    started: Worker | None = None,
    **options: Any,
) -> ProcessGenerator:
    """The GGUF model at `path` loaded in its own process (`started` if one was started for it),
    with LlamaGenerator's options (seed, temperature, verbose); its stderr goes to `log`."""
    device = placement.device if placement is not None else "auto"
    config = WorkerConfig(str(path), n_ctx, device, language=language(), **options)
    return ProcessGenerator(config, log, started)


class ProcessGenerator:
    """The Generator protocol (model.py) over the model's process, with what LlamaGenerator
    offers besides: prefill, yes_probability, complete_json, and where the model runs."""

    def __init__(
        self, config: WorkerConfig, log: Path | None = None, started: Worker | None = None
    ) -> None:
        self.config = config
        self.log = log
        self.prompt_tokens_per_s: float | None = None
        self.cached_tokens = 0
        self._fixed: tuple[list[dict[str, str]], Path | None] | None = None
        self._lock = threading.Lock()
        self._worker: Worker | None = None
        self.info = self._load(started or Worker(log, config.verbose))

    # -- the process -------------------------------------------------------------------------
    def _load(self, worker: Worker) -> ModelInfo:
        worker.send("load", self.config)
        frame = worker.next_frame()
        if frame is None or frame[0] != "ready":
            worker.kill()
            if frame is not None and frame[0] == "error":
                raise LectureTuiError(frame[1], hint=frame[2])
            raise ended(self.log)
        info: ModelInfo = frame[1]
        self._worker = worker
        self.name, self.n_ctx, self.gpu, self.backend = (
            info.name,
            info.n_ctx,
            info.gpu,
            info.backend,
        )
        self.layers, self.layers_on_gpu = info.layers, info.layers_on_gpu
        self.placement, self.speed_key, self.notice = info.placement, info.speed_key, info.notice
        return info

    def _alive(self) -> Worker:
        """The process, started anew when the last one ended (its prompt start restored)."""
        if self._worker is None:
            self.info = self._load(Worker(self.log, self.config.verbose))
            if self._fixed is not None:
                self._call("prefill", *self._fixed)
        assert self._worker is not None
        return self._worker

    def _lost(self) -> LectureTuiError:
        if self._worker is not None:
            self._worker.kill()
            self._worker = None
        return ended(self.log)

    def _call(self, name: str, *args: Any) -> Any:
        worker = self._alive()
        worker.send("call", name, args)
        frame = worker.next_frame()
        if frame is None or frame[0] == "closed":
            raise self._lost()
        if frame[0] == "error":
            raise LectureTuiError(frame[1], hint=frame[2])
        return frame[1]

    def call(self, name: str, *args: Any) -> Any:
        with self._lock:
            return self._call(name, *args)

    def restart_in_background(self) -> None:
        """A new process now (after a stop killed the last), so the next request finds it."""

        def start() -> None:
            with self._lock, contextlib.suppress(LectureTuiError):
                self._alive()  # a failure is said when the model is next wanted

        threading.Thread(target=start, name="answer-model-restart", daemon=True).start()

    # -- the Generator protocol ----------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        return int(self.call("count_tokens", text))

    def count_prompt_tokens(self, messages: list[dict[str, str]]) -> int:
        return int(self.call("count_prompt_tokens", messages))

    def prefill(
        self, messages: list[dict[str, str]], keep: Path | None = None
    ) -> tuple[int, float]:
        """As LlamaGenerator.prefill; replayed in every process started after this one."""
        with self._lock:
            n, seconds, cached = self._call("prefill", messages, keep)
            self._fixed = (messages, keep)
        self.cached_tokens = int(cached)
        return int(n), float(seconds)

    def yes_probability(self, messages: list[dict[str, str]]) -> float:
        return float(self.call("yes_probability", messages))

    def complete_json(
        self, messages: list[dict[str, str]], schema: dict[str, Any], max_tokens: int
    ) -> str:
        return str(self.call("complete_json", messages, schema, max_tokens))

    def report(self) -> ModelInfo:
        """What the process says now: where the model runs, what that process has imported."""
        info: ModelInfo = self.call("info")
        return info

    def stream(
        self,
        messages: list[dict[str, str]],
        max_tokens: int,
        stop: threading.Event | None = None,
        temperature: float | None = None,
    ) -> Iterator[str]:
        """Pieces of the reply as they come; setting `stop` ends it within STOP_GRACE_S, also
        while the prompt is read."""
        stop = stop or threading.Event()
        with self._lock:
            worker = self._alive()
            worker.send("stream", messages, max_tokens, temperature)
            ended_ok: bool | None = False
            try:
                ended_ok = yield from self._pieces(worker, stop)
            finally:
                if not ended_ok:  # stopped, or the consumer went away: the reply must end
                    self._halt(worker)

    def _pieces(self, worker: Worker, stop: threading.Event) -> Generator[str, None, bool]:
        while not stop.is_set():
            frame = worker.next_frame(0.05)
            if frame is None:
                continue
            kind = frame[0]
            if kind == "piece":
                yield str(frame[1])
            elif kind == "end":
                return True
            elif kind == "error":
                raise LectureTuiError(frame[1], hint=frame[2])
            else:
                raise self._lost()
        return False

    def _halt(self, worker: Worker) -> None:
        """Stop the reply in flight: its end within STOP_GRACE_S, else the process is killed
        and another started."""
        if self._worker is not worker:
            return  # it ended already
        worker.send("stop")
        deadline = time.monotonic() + STOP_GRACE_S
        while (left := deadline - time.monotonic()) > 0:
            frame = worker.next_frame(left)
            if frame is None:
                break
            if frame[0] in ("end", "error"):
                return
            if frame[0] == "closed":
                self._worker = None
                return
        worker.kill()
        self._worker = None
        self.restart_in_background()

    def close(self) -> None:
        with self._lock:
            if self._worker is not None:
                self._worker.close()
                self._worker = None
