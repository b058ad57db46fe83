"""app: the Textual interface (also what `lecturetui` with no command opens in a terminal)."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from lecturetui.cli.context import Context, pass_ctx
from lecturetui.cli.options import (
    guess_option,
    llm_options,
    mode_option,
    server_options,
    ttft_option,
)
from lecturetui.core.asking import AnswerChoice
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.models.management import DEFAULT_LLM, save_setting

if TYPE_CHECKING:
    from lecturetui.core.asking import ServerGenerator


@click.command("app")
@llm_options
@server_options
@ttft_option
@guess_option
@mode_option
@click.option(
    "--summaries/--no-summaries",
    default=True,
    show_default=True,
    help="Write the summaries not written yet while the app is idle.",
)
@pass_ctx
def app_cmd(
    obj: Context,
    llm: str | None,
    n_ctx: int,
    temperature: float,
    server: ServerGenerator | None,
    ttft: float,
    guess: str,
    mode: str,
    summaries: bool,
) -> None:
    """Open the app: ask, browse the segments, follow the citations. The mode, time budget and
    guess changed in the app (m, t, g) are kept in the settings file for the next start."""
    obj.first_run()
    # fd 2 already goes to the log while the app runs (see below): no per-call redirection;
    # no notes on the terminal either (the app shows what matters)
    obj.notify = None
    choice = AnswerChoice(llm, n_ctx, temperature, server=server)
    session = obj.session(choice)
    library = session.library
    # the longest loads start before Textual is imported (the app loads E5 once it is up)
    library.preload()
    from lecturetui.tui.app import AppServices, LectureApp  # lazy: Textual, after the loads start

    app = LectureApp(
        AppServices(
            library,
            session.answer_model,
            llm_label=server.model if server else (llm or DEFAULT_LLM).split("/")[-1],
            ttft_s=ttft,
            guess=guess,
            mode=mode,
            summaries=summaries,
            remember=remembering(obj.home.settings_file),
        )
    )
    log_path = obj.home.log_file
    log_path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(log_path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logger = logging.getLogger("lecturetui")
    logger.addHandler(handler)  # a failed worker's traceback (tui/app.py), never the screen
    logger.propagate = False
    try:
        with native_stderr_to(log_path):
            app.run()
    finally:
        logger.removeHandler(handler)
        handler.close()
    session.close()


def remembering(settings: Path) -> Callable[[str, object], None]:
    """Saves an app setting as `[app] key = value` (a failure is a note in the log, never a
    crash: the setting still holds for this session)."""

    def remember(key: str, value: object) -> None:
        try:
            save_setting(settings, "app", key, value)
        except (LectureTuiError, OSError) as exc:
            logging.getLogger("lecturetui").warning("settings not saved: %s", exc)

    return remember


@contextmanager
def native_stderr_to(log: Path) -> Iterator[None]:
    """Textual draws on stderr; llama.cpp and torch also write there, from C, at any time.

    The app gets its own duplicate of the terminal, and file descriptor 2 goes to a log file
    while it runs, so no library's chatter can land on (or blank) the screen.
    """
    if not sys.__stderr__ or not sys.__stderr__.isatty():
        yield
        return
    log.parent.mkdir(parents=True, exist_ok=True)
    terminal = os.dup(2)
    saved_stderr, saved_dunder = sys.stderr, sys.__stderr__
    logfd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    stream = os.fdopen(terminal, "w", encoding="utf-8", errors="replace", closefd=False)
    try:
        sys.stderr = stream
        setattr(sys, "__stderr__", stream)  # noqa: B010  (Textual's driver writes to sys.__stderr__)
        os.dup2(logfd, 2)
        yield
    finally:
        os.dup2(terminal, 2)
        sys.stderr = saved_stderr
        setattr(sys, "__stderr__", saved_dunder)  # noqa: B010
        stream.close()
        os.close(terminal)
        os.close(logfd)
