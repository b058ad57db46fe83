"""What every screen may use of the app, without importing it: the services, the models' state,
links, and the message a failed worker posts.

The app module imports the screens; a screen reaches the app only through `context(self)`, typed
by the `AppContext` protocol, so no import runs from a screen back to the app.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import webbrowser
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable
from urllib.parse import unquote, urlsplit

from textual.worker import WorkerState

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.evaluation.saved_runs import Runs
from lecturetui.core.i18n import _, decimal
from lecturetui.core.library import Library
from lecturetui.core.llm.model import Generator
from lecturetui.core.question_options import DEFAULT_GUESS, DEFAULT_MODE, DEFAULT_TTFT_S
from lecturetui.tui.messages import WorkFailed

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode
    from textual.worker import Worker

    from lecturetui.core.evaluation.saved_runs import Runs


@dataclass
class AppServices:
    """What the app runs on: the same library as the CLI, and the answer model's loader (a
    ModelSession's, core/session.py)."""

    library: Library
    load_generator: Callable[[], Generator]
    llm_label: str = ""
    ttft_s: float = DEFAULT_TTFT_S
    #: search with the answer model's guess at the lecturer's words (core/answer/guess.py): auto/on/off
    guess: str = DEFAULT_GUESS
    mode: str = DEFAULT_MODE
    #: the app's language: en, pt, auto (the locale's), or "" (the one the command line chose)
    language: str = ""
    #: keeps a setting the student changed in the app (mode, ttft, guess) for the next start
    remember: Callable[[str, object], None] = lambda key, value: None
    #: write the summaries not written yet while the app is idle (tui/background.py)
    summaries: bool = True
    #: where `x` writes exports (Markdown, Anki, CSV): a folder in the current directory
    export_dir: Path = field(default_factory=lambda: Path.cwd() / "lecturetui-export")

    @property
    def runs(self) -> Runs:
        """The library's evaluation runs (core/evaluation/saved_runs.py)."""

        return Runs.of(self.library)


@dataclass
class ModelState:
    """The models the app loads while the student types (set by the app's loading worker)."""

    #: the first stage's embedder and the index loaded
    ready: threading.Event = field(default_factory=threading.Event)
    #: set once the answer model is loaded or has failed to (a question waits on it)
    answered: threading.Event = field(default_factory=threading.Event)
    #: where the first stage's embedder runs and in what, for the status line: "CPU bf16"
    where: str = "…"
    generator: Generator | None = None
    error: LectureTuiError | None = None  # why the models could not load
    #: the re-ranking model (core/models/embedders.py) in the status line: "Gemma CPU",
    #: "re-ranking vectors: 3/12", "Gemma off"
    rerank: str = ""
    #: the chapters of older lectures being read, for the status line ("chapters: 3/40")
    chapters: str = ""
    #: the summaries being written while the app is idle ("summaries 2/5: Aula 3, part 3 of 9")
    summaries: str = ""
    #: what is loading now, named for the status line ("EmbeddingGemma", an embedder's name:
    #: core/models/embedders.py); "" when nothing is
    loading: str = ""

    @property
    def settled(self) -> bool:
        """Loaded, or failed: nothing more will come."""
        return self.generator is not None or self.error is not None


@runtime_checkable
class AppContext(Protocol):
    services: AppServices
    models: ModelState

    def models_line(self, scope: Sequence[str] = (), settings: Sequence[str] = ()) -> str: ...

    def write_rerank_vectors(self) -> object: ...

    def hush_summaries(self) -> None:
        """Stop the summaries written in the background, and wait until the answer model is
        free (a question's thread, before it asks the model)."""
        ...

    def summarise(self, lecture_id: str) -> None:
        """Back to the main screen, asking for this lecture's summary."""
        ...


def context(node: DOMNode) -> AppContext:
    app = node.app
    assert isinstance(app, AppContext), "lecturetui's screens run inside LectureApp"
    return app


def ttft_label(seconds: float) -> str:
    """The time budget to the answer's first words, named: "first words ≤ 8 s"."""
    if seconds <= 0:
        return _("first words: no time limit")
    return _("first words ≤ {seconds} s").format(
        seconds=decimal(seconds, 0 if seconds == int(seconds) else 1)
    )


def open_link(app: App[None], url: str | None) -> None:
    """The lecture at its time: a local video in mpv or vlc, anything else in the browser."""
    if not url:
        app.notify(_("This lecture has no video link or file."), severity="warning")
        return
    parts = urlsplit(url)
    if parts.scheme == "file":
        path, start = unquote(parts.path), parts.fragment.removeprefix("t=") or "0"
        player = shutil.which("mpv") or shutil.which("vlc")
        if player:
            flag = f"--start={start}" if player.endswith("mpv") else f"--start-time={start}"
            subprocess.Popen(
                [player, flag, path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            return
        app.notify(
            _("No mpv or vlc to play {path} (at {start} s).").format(path=path, start=start),
            severity="warning",
        )
        return
    webbrowser.open(url)


def copy_link(app: App[None], url: str | None) -> None:
    if not url:
        app.notify(_("This lecture has no video link or file."), severity="warning")
        return
    app.copy_to_clipboard(url)
    app.notify(_("Link copied: {url}").format(url=url))


def worker_failed(node: DOMNode, event: Worker.StateChanged) -> None:
    """For a screen's or the app's `on_worker_state_changed`: a worker that raised (they all run
    with exit_on_error=False) becomes a WorkFailed message, handled once by the app."""

    if event.state == WorkerState.ERROR and event.worker.error is not None:
        node.post_message(WorkFailed(event.worker.group, event.worker.error))
