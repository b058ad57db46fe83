"""One door to the models, for every face: the command line, the app, eval and doctor.

A `ModelSession` is built from the settings (data home, where the models run, embedding model,
the answer model's choice) and hands out each model when it is first wanted, loaded once, where
its placement (core/models/placement.py: from --device, the hardware and the workload, each part
settled once) puts it: the library (its embedders, E5 and EmbeddingGemma behind it, on OpenVINO on a CPU, and
its speech model), the answer model (the built-in GGUF, one of the student's own, or a model
server), an evaluation's judge. The answer model's prompt speed is measured once, here
(core/answer/prompt_speed.py). No face constructs a model, nor the library.

The pipeline gets the answer model through `source()`: it loads in a thread beside the search,
and the question waits for it only when it needs it (core/requests/words.py, ModelSource).
"""

from __future__ import annotations

import tempfile
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lecturetui.core.answer.prompt_speed import PromptSpeed, prepare
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _, decimal
from lecturetui.core.library import Library
from lecturetui.core.llm import process
from lecturetui.core.llm.model import Generator, lacks
from lecturetui.core.llm.server import ServerGenerator
from lecturetui.core.models.gguf import resolve_llm
from lecturetui.core.models.locate import Notify
from lecturetui.core.models.placement import Placement
from lecturetui.core.paths import DataHome
from lecturetui.core.requests.words import Loading, ModelSource

if TYPE_CHECKING:
    from lecturetui.core.llm.process import ProcessGenerator, Worker

    #: what the session loads: a GGUF model in llama.cpp's own process, or a model server's client
    AnswerModel = ProcessGenerator | ServerGenerator


@dataclass(frozen=True, slots=True)
class AnswerChoice:
    """Which answer model, and how it runs (the options `ask`, `app` and `eval` share)."""

    llm: str | None = None  # a built-in name or a GGUF path; None: the default
    n_ctx: int = 4096
    temperature: float = 0.0
    seed: int | None = None
    verbose: bool = False
    #: a model server the student runs (core/llm/server.py), instead of a GGUF file
    server: ServerGenerator | None = None


@dataclass
class ModelSession:
    home: DataHome
    placement: Placement = field(default_factory=Placement)
    embed_model: str | None = None
    answer: AnswerChoice = field(default_factory=AnswerChoice)
    notify: Notify | None = None
    _library: Library | None = None
    _own_library: bool = True
    _generator: AnswerModel | None = None
    _speed: PromptSpeed | None = None
    _loading: Future[AnswerModel] | None = None
    #: the answer model's process, started before the model is wanted (start_loading)
    _started: Worker | None = None
    _judges: dict[Path, AnswerModel] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    #: closed: a model still loading in a thread is not loaded after all (no process outlives it)
    _closed: bool = False

    # -- the library's embedders ------------------------------------------------------------
    @property
    def library(self) -> Library:
        """The library on this data home, with its embedders (loaded when first used)."""
        if self._library is None:
            self._library = Library(self.home, self.embed_model, self.placement, notify=self.notify)
        return self._library

    def use_library(self, library: Library) -> ModelSession:
        """Serve this library, opened elsewhere (and closed there)."""
        self._library = library
        self._own_library = False
        return self

    def answering(self, answer: AnswerChoice, notify: Notify | None) -> ModelSession:
        """A session for this answer model, on this session's library and placement (closing it
        frees its models and leaves the library open)."""
        session = ModelSession(self.home, self.placement, self.embed_model, answer, notify)
        return session.use_library(self.library)

    # -- the answer model -------------------------------------------------------------------
    def answer_path(self) -> Path:
        """The answer model's GGUF file (the default one when none is chosen)."""
        return resolve_llm(self.home.models_dir, self.answer.llm, self.notify)

    def answer_model(self, remeasure: bool = False) -> AnswerModel:
        """The answer model, loaded once; its prompt speed read (or measured the first time,
        or again with `remeasure`: `lecturetui models speed`)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the session is closed")
            if self._generator is None:
                path = None if self.answer.server else self.answer_path()
                generator = self._build(self.answer, path)
                notice = getattr(generator, "notice", None)  # e.g. the model cannot use the GPU
                # a model server gives no probabilities: what is done without them is said
                for said in (notice, lacks(generator)):
                    if said and self.notify:
                        self.notify(said)
                self._generator = generator
                self._prepare(remeasure)
            elif remeasure:
                self._prepare(True)
            return self._generator

    def _prepare(self, remeasure: bool) -> None:
        assert self._generator is not None
        self._speed = prepare(
            self._generator, self.home.speed_file, remeasure, keep=self.home.model_state
        )
        if self._speed is not None and self._speed.measured_now and self.notify:
            self.notify(_speed_note(self._generator, self._speed))

    def remeasure(self) -> PromptSpeed | None:
        """Measure the answer model's prompt speed again (`lecturetui models speed`)."""
        self.answer_model(remeasure=True)
        return self._speed

    def start_loading(self, after: threading.Event | None = None) -> Future[AnswerModel]:
        """Load the answer model in a thread (once), after `after` is set (the evidence is out:
        both need the CPU, and the speed measurement should not share it)."""
        with self._lock:
            if self._loading is None:
                future: Future[AnswerModel] = Future()

                def load() -> None:
                    self._start_process()  # it imports llama.cpp while the search runs
                    if after is not None:
                        after.wait()
                    try:
                        future.set_result(self.answer_model())
                    except BaseException as exc:  # said where the model is wanted
                        future.set_exception(exc)

                threading.Thread(target=load, name="answer-model", daemon=True).start()
                self._loading = future
            return self._loading

    def _start_process(self) -> None:
        if self.answer.server is not None or self._generator is not None:
            return
        try:
            self.answer_path()  # a missing model is said when it is wanted, before any process
            started = process.Worker(self.home.log_file, self.answer.verbose)
        except LectureTuiError:
            return
        with self._lock:
            self._started = started

    def source(self, evidence_out: threading.Event | None = None) -> ModelSource:
        """The answer model for the pipeline, loading beside the search (ModelSource)."""
        gate = evidence_out or threading.Event()
        future = self.start_loading(gate)
        name = self.answer_name()

        def now() -> Generator | None:
            done = future.done() and future.exception() is None
            return future.result() if done else None

        def wait(stop: threading.Event) -> Generator | None:
            # the model translates a question in another language than the lectures' first
            # (core/answer/translate.py) and guesses the lecturer's words (core/answer/guess.py):
            # it loads before the search when either is wanted, else once the evidence is out
            gate.set()
            while not stop.is_set():
                try:
                    return future.result(timeout=0.1)
                except TimeoutError:
                    continue
                except Exception as exc:  # the pipeline says it in one sentence
                    raise failed_to_load(exc) from None
            return None

        return Loading(now, wait, lambda: name, search_waits=True)

    def answer_name(self) -> str | None:
        """The answer model's name, known before it loads (None: it cannot be found)."""
        if self.answer.server is not None:
            return self.answer.server.name
        try:
            return self.answer_path().name
        except LectureTuiError:
            return None

    def loaded_answer_model(self) -> AnswerModel | None:
        """The answer model when it is loaded already, else None (never waits)."""
        return self._generator

    def judge(self, path: Path) -> AnswerModel:
        """The judge model of an evaluation: the answer model itself when it is the same file,
        else its own model, loaded once (greedy: a judge gives the same verdict every time)."""
        if not self.answer.server and path == self.answer_path():
            return self.answer_model()
        with self._lock:
            if path not in self._judges:
                self._judges[path] = self._build(AnswerChoice(n_ctx=self.answer.n_ctx), path)
            return self._judges[path]

    def probe(self, n_ctx: int = 512) -> AnswerModel:
        """The answer model loaded small, to see where it would run (doctor); not kept."""
        return self._build(AnswerChoice(self.answer.llm, n_ctx=n_ctx), self.answer_path())

    def _build(self, choice: AnswerChoice, path: Path | None) -> AnswerModel:
        if choice.server is not None:
            return choice.server
        assert path is not None
        extra: dict[str, Any] = {}  # only what differs from the model's own defaults
        if choice.seed is not None:
            extra["seed"] = choice.seed
        if choice.temperature:
            extra["temperature"] = choice.temperature
        if choice.verbose:
            extra["verbose"] = True
        if choice is self.answer and self._started is not None:  # started by start_loading
            extra["started"], self._started = self._started, None
        return process.open_model(
            path, n_ctx=choice.n_ctx, placement=self.placement, log=self.home.log_file, **extra
        )

    def close(self) -> None:
        """Free every model loaded here (the library too, when the session opened it)."""
        with self._lock:
            models = [self._generator, *self._judges.values()]
            self._generator, self._judges = None, {}
            self._closed = True
        for model in {id(m): m for m in models if m is not None}.values():
            model.close()  # the answer model may judge too: closed once
        if self._started is not None:  # started for a model never loaded
            self._started.close()
            self._started = None
        if self._library is not None and self._own_library:
            self._library.close()
        self._library = None


def connect_server(
    url: str, model: str | None, n_ctx: int, allow_remote: bool = False
) -> ServerGenerator:
    """A model server the student runs, as the answer model (checked now: an address that would
    leave the machine is refused, one where no server answers is said)."""
    return ServerGenerator(url, model, n_ctx, allow_remote)


def _speed_note(generator: AnswerModel, speed: PromptSpeed) -> str:
    return _(
        "{model} reads {speed} prompt tokens/s here (measured once, kept in the data home)"
    ).format(model=generator.name, speed=decimal(speed.tokens_per_s, 0, grouping=False))


def failed_to_load(exc: BaseException) -> LectureTuiError:
    """Any failure to load a model, as the one sentence the faces show."""
    if isinstance(exc, LectureTuiError):
        return exc
    return LectureTuiError(f"{exc}", hint=None)


def read_instructions(models_dir: Path) -> Path:
    """`models setup`: the default answer model loaded once and its fixed instructions read, so
    that their state and the prompt speed they measure are kept in the models folder
    (core/llm/prefix_state.py, core/answer/prompt_speed.py) before any question: no data home,
    fresh or used, reads them again or measures on a question's path. Returns the speed file."""
    with tempfile.TemporaryDirectory(prefix="lecturetui-setup-") as scratch:
        # a data home of its own for the model's log; what it reads is kept in `model_state`
        session = ModelSession(DataHome(Path(scratch), models_dir))
        try:
            session.answer_model()
        finally:
            session.close()
    return session.home.speed_file
