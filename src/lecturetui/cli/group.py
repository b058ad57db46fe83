"""The program itself: the `lecturetui` group, its own options and the errors it turns into one
sentence; and its commands, a table of where each one is (`COMMANDS`), imported only when it is
run or its own help is asked, so that `lecturetui --help` imports no command's module."""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any, NamedTuple

import click

from lecturetui import __version__
from lecturetui.cli.context import Context
from lecturetui.cli.defaults import setting_value, settings_defaults
from lecturetui.cli.output import fail
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _, set_language
from lecturetui.core.models.management import (
    DEVICES,
    ROOT,
    SETTINGS_FILE,
    DataHome,
    load_settings,
)

if TYPE_CHECKING:
    from click.formatting import HelpFormatter


class Entry(NamedTuple):
    """Where a command is (its module, and its name there) and its short help, as the top-level
    --help lists it: the first sentence of its help."""

    module: str
    attribute: str
    short_help: str


#: every command of `lecturetui`, by name (tests/cli/test_cli.py checks it against the commands)
COMMANDS: dict[str, Entry] = {
    "app": Entry(
        "lecturetui.cli.app_cmd",
        "app_cmd",
        "Open the app: ask, browse the segments, follow the citations.",
    ),
    "ask": Entry(
        "lecturetui.cli.ask_cmds",
        "ask_cmd",
        "Answer QUESTION from your lectures: the best evidence sentences at once, then the"
        " answer, citing the segments as [1], [2].",
    ),
    "bookmarks": Entry(
        "lecturetui.cli.notes_cmds",
        "bookmarks_group",
        "List the bookmarked moments by course, lecture and time, with their notes and links (b"
        " on a segment in the app bookmarks one); add, note and rm change them.",
    ),
    "config": Entry(
        "lecturetui.cli.config_cmd",
        "config_group",
        f"Show the settings file (<data home>/{SETTINGS_FILE}), or set a default: one table per"
        " command, e.g.",
    ),
    "doctor": Entry(
        "lecturetui.cli.doctor_cmd",
        "doctor_cmd",
        "Show the GPU, torch's device and dtype, llama.cpp's backend and offloaded layers, where"
        " each model runs and why.",
    ),
    "edit": Entry(
        "lecturetui.cli.manage_cmds",
        "edit_cmd",
        "Change LECTURE's title, course or link (nothing is embedded again).",
    ),
    "eval": Entry(
        "lecturetui.cli.eval_cmds",
        "eval_cmd",
        "Evaluate the library on QUESTIONS (JSONL or CSV): retrieval, answers and an LLM judge.",
    ),
    "export": Entry(
        "lecturetui.cli.notes_cmds",
        "export_cmd",
        "Export an answer (question, answer, citations with lecture, times and links) or the"
        " bookmarks to Markdown, and as flashcards to Anki and CSV.",
    ),
    "ingest": Entry(
        "lecturetui.cli.ingest_cmd",
        "ingest_cmd",
        "Add transcript, audio or video files, or folders of them, to the library and index them.",
    ),
    "lectures": Entry(
        "lecturetui.cli.library_cmds", "lectures_cmd", "List the lectures in the library."
    ),
    "models": Entry(
        "lecturetui.cli.models_cmds",
        "models_group",
        "Prepare, download and list models (kept in the data home's models/ folder).",
    ),
    "outline": Entry(
        "lecturetui.cli.outline_cmd",
        "outline_cmd",
        'Print a lecture\'s chapters, one "00:00 Title" line each (LECTURE: id, title or a'
        " prefix).",
    ),
    "pack": Entry(
        "lecturetui.cli.pack_cmds",
        "pack_group",
        "Course packs: a class's library built once and shared as one file.",
    ),
    "reindex": Entry(
        "lecturetui.cli.search_cmds",
        "reindex_cmd",
        "Rebuild the search index from the library (after a model change, or a damaged index).",
    ),
    "remove": Entry(
        "lecturetui.cli.manage_cmds",
        "remove_cmd",
        "Remove LECTURES (ids, titles or unique prefixes) from the library, with their segments"
        " and vectors.",
    ),
    "search": Entry(
        "lecturetui.cli.search_cmds",
        "search_cmd",
        "Find the lecture segments that answer QUESTION, best first.",
    ),
    "show": Entry(
        "lecturetui.cli.library_cmds",
        "show_cmd",
        "Print a lecture's segments with their timestamps (LECTURE: id, title or a prefix).",
    ),
    "summary": Entry(
        "lecturetui.cli.summary_cmd",
        "summary_cmd",
        "Summarise a lecture part by part (LECTURE: id, title or a prefix): each part's time and"
        " the lecturer's words at once, then what each part explains, then the gist citing the"
        " parts.",
    ),
}


class LtGroup(click.Group):
    """Turns the errors a user can cause into one sentence and a hint, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except LectureTuiError as exc:
            fail(exc.message, exc.hint)
        except KeyboardInterrupt:
            fail(_("Interrupted."), code=130)


class CommandTable(LtGroup):
    """The root group: its commands are `COMMANDS`, each module imported when first wanted
    (click's lazily loaded subcommands); its help lists them from the table alone."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is not None and cmd_name not in self.commands:
            module = importlib.import_module(entry.module)
            self.add_command(getattr(module, entry.attribute), cmd_name)
        return self.commands.get(cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.exceptions.NoSuchCommand as exc:  # a near name, among all the commands
            raise click.exceptions.NoSuchCommand(
                exc.command_name, possibilities=COMMANDS, ctx=ctx
            ) from None

    def format_commands(self, ctx: click.Context, formatter: HelpFormatter) -> None:
        """click's list of commands, made from the table: each command stands in by its short
        help, which click shortens to the width as it shortens a command's own."""
        listed = {name: click.Command(name, help=e.short_help) for name, e in COMMANDS.items()}
        click.Group(commands=listed).format_commands(ctx, formatter)


@click.group(
    cls=CommandTable,
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
        assert command is not None, f"the {name} command is in COMMANDS"
        ctx.invoke(command)
