"""The options several commands share: the mode, the scope, the time budget, the answer model
(built in or a server) and the guess."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from lecturetui.cli.output import USAGE_ERROR, fail
from lecturetui.core.asking import (
    DEFAULT_GUESS,
    DEFAULT_MODE,
    DEFAULT_TTFT_S,
    GUESS_SETTINGS,
    MODES,
    connect_server,
)
from lecturetui.core.i18n import _

if TYPE_CHECKING:
    from lecturetui.core.asking import ServerGenerator


F = TypeVar("F", bound=Callable[..., Any])


def mode_option(fn: F) -> F:
    """--mode, shared by `search`, `ask` and `eval`."""
    return click.option(
        "--mode",
        type=click.Choice(MODES),
        default=DEFAULT_MODE,
        show_default=True,
        help="Ranking: E5 + BM25 fused (hybrid), E5 cosine only (dense), or BM25 only (lexical).",
    )(fn)


def lecture_options(what: str) -> Callable[[F], F]:
    """--course and --lecture (repeatable): `what` (e.g. "Search only") this course's or this
    lecture's, as in scope_options."""

    def decorate(fn: F) -> F:
        fn = click.option(
            "--lecture",
            "lectures",
            multiple=True,
            metavar="ID|TITLE",
            help=f"{what} this lecture (an id, a title or a unique prefix); repeatable.",
        )(fn)
        return click.option(
            "--course",
            "courses",
            multiple=True,
            metavar="NAME",
            help=f"{what} this course's lectures (a name or a unique prefix); repeatable.",
        )(fn)

    return decorate


#: --course and --lecture, shared by `search`, `ask` and `eval`: the scope
scope_options = lecture_options("Search only")


def ttft_option(fn: F) -> F:
    """--ttft, shared by `ask`, `app` and `eval`."""
    return click.option(
        "--ttft",
        "ttft",
        type=click.FloatRange(0, 600),
        default=DEFAULT_TTFT_S,
        show_default=True,
        metavar="SECONDS",
        help="Time to the answer's first token: the prompt holds what the answer model reads in"
        " that time on this machine (0: as much as the context window holds).",
    )(fn)


def llm_options(fn: F) -> F:
    """--llm, --ctx and --temperature, shared by `ask` and `app`."""
    fn = click.option(
        "--temperature",
        type=click.FloatRange(0, 2),
        default=0.0,
        show_default=True,
        help="Sampling temperature of the answer model (0: greedy, the same answer every time).",
    )(fn)
    fn = click.option(
        "--ctx",
        "n_ctx",
        type=click.IntRange(512, 131072),
        default=4096,
        show_default=True,
        help="Context window of the answer model, tokens.",
    )(fn)
    return click.option(
        "--llm",
        metavar="MODEL",
        help="Answer model: a .gguf file, qwen2.5-coder-1.5b (default) or qwen2.5-coder-0.5b (fast).",
    )(fn)


def server_options(fn: F) -> F:
    """--llm-url, --llm-model and --allow-remote, shared by `ask` and `app` (with llm_options,
    whose --ctx it reads): the command gets them as one `server` argument, the server's
    generator (or None for the built-in model), checked before anything loads."""

    @functools.wraps(fn)
    def with_server(
        *args: Any, llm_url: str | None, llm_model: str | None, allow_remote: bool, **kwargs: Any
    ) -> Any:
        server = server_choice(llm_url, llm_model, allow_remote, kwargs["n_ctx"])
        if server is not None:
            server.temperature = kwargs["temperature"]
        return fn(*args, server=server, **kwargs)

    wrapped: F = with_server  # type: ignore[assignment]
    wrapped = click.option(
        "--allow-remote",
        is_flag=True,
        help="Let --llm-url name a server on another machine (your questions and lecture text go there).",
    )(wrapped)
    wrapped = click.option(
        "--llm-model",
        metavar="NAME",
        help="The model the server should answer with (default: the first it lists).",
    )(wrapped)
    return click.option(
        "--llm-url",
        metavar="URL",
        help="Answer with a model server already running here (OpenAI-compatible, e.g."
        " http://127.0.0.1:8080/v1 for llama-server, :11434/v1 for Ollama) instead of the built-in model.",
    )(wrapped)


def server_choice(
    url: str | None, model: str | None, allow_remote: bool, n_ctx: int
) -> ServerGenerator | None:
    """The server to answer with, or None for the built-in model. Checked before anything loads:
    an address that would leave the machine is refused, and one where no server answers is said
    (one GET of its models, which also names the default model)."""
    if not url:
        if model:
            fail(
                _("--llm-model names a model of a server: give its --llm-url too."),
                code=USAGE_ERROR,
            )
        return None
    return connect_server(url, model, n_ctx, allow_remote)


def guess_option(fn: F) -> F:
    """--guess, shared by `ask`, `app` and `eval`."""
    return click.option(
        "--guess",
        type=click.Choice(GUESS_SETTINGS),
        default=DEFAULT_GUESS,
        show_default=True,
        help="Search with the answer model's guess at the lecturer's words too: finds more"
        " questions asked in your own words, costs ~7 s on a 2-core CPU. auto: when the model"
        " runs on a GPU.",
    )(fn)


def export_options(markdown_help: str, card_help: str, stdout: bool = False) -> Callable[[F], F]:
    """--md FILE (`stdout`: - prints it), --anki FILE and --csv FILE: where an export writes."""

    def decorate(fn: F) -> F:
        fn = click.option(
            "--csv",
            "csv_path",
            type=click.Path(dir_okay=False, path_type=Path),
            help=f"Write {card_help} as CSV.",
        )(fn)
        fn = click.option(
            "--anki",
            type=click.Path(dir_okay=False, path_type=Path),
            help=f"Write {card_help} as an Anki package (.apkg).",
        )(fn)
        fn = click.option(
            "--md",
            "md",
            help=markdown_help,
            type=click.Path(dir_okay=False, path_type=Path, allow_dash=stdout),
        )(fn)
        return fn

    return decorate
