"""The command line's output: the console, errors as one sentence and a hint, counts, notes (JSON:
cli/shared.py, `json_text`)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from lecturetui.core.i18n import _, decimal, ngettext

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from lecturetui.core.library import Library
    from lecturetui.core.study.aids import Lecture

T = TypeVar("T")


def console(stderr: bool = False) -> Console:
    from rich.console import Console  # lazy: rich only for output to people, not for --json

    return Console(stderr=stderr, highlight=False)


def escape(text: str) -> str:
    """`text` as it is, in Rich's markup (a `[` in it is not a style)."""
    from rich.markup import escape as escaped  # lazy: rich only for output to people

    return escaped(text)


def rich_table(**options: Any) -> Table:
    """A Rich table with these options, for the console."""
    from rich.table import Table  # lazy: rich only for output to people

    return Table(**options)


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


def one_lecture(library: Library, name: str) -> Lecture:
    """The one lecture `name` (an id, a title or a unique prefix) names, or one sentence."""
    matches = library.resolve_lecture(name)
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


#: set by a command whose process may end without the interpreter's teardown (`end_quickly`)
_QUICK: list[bool] = []


def end_quickly() -> None:
    """Let the process end at once when this command succeeds: its output is out and its session
    closed by then (the store, the answer model's process), and what the interpreter would still
    do is free the compiled models, about 0.2 s a student waits for (bench/RESULTS.md, "Cold
    start, third round"). `main` honours it on success only."""
    _QUICK.append(True)


def ends_quickly() -> bool:
    return bool(_QUICK)
