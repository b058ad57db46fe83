"""The program itself: the `lecturetui` group, its own options and the errors it turns into one
sentence; the commands are added in cli/__init__.py."""

from __future__ import annotations

import sys
from typing import Any

import click

from lecturetui import __version__
from lecturetui.cli.context import Context
from lecturetui.cli.defaults import setting_value, settings_defaults
from lecturetui.cli.output import fail
from lecturetui.core.i18n import _, set_language
from lecturetui.core.models.placement import DEVICES


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
    type=click.Choice(DEVICES),
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
    obj = Context(home, embed_model, device, ctx.invoked_subcommand)
    ctx.obj = obj
    ctx.call_on_close(obj.close)
    ctx.default_map = settings_defaults(path, ctx, tables)
    if ctx.invoked_subcommand is None:
        # in a terminal the app; else (a pipe, a script) the library's lectures, as text
        name = "app" if sys.stdin.isatty() and sys.stdout.isatty() else "lectures"
        command = cli.get_command(ctx, name)
        assert command is not None, f"the {name} command is registered in cli/__init__.py"
        ctx.invoke(command)
