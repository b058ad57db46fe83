"""Study notes in the app: a note for a bookmark (b), and the exports (x)."""

from __future__ import annotations

from collections.abc import Callable, Sized
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.widgets import Input

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import N_, _, ngettext
from lecturetui.core.study.export import Targets
from lecturetui.tui.context import context
from lecturetui.tui.i18n import Translated

if TYPE_CHECKING:
    from lecturetui.core.study.export import Targets


class NoteScreen(Translated, ModalScreen[str | None]):
    """One line of note: Enter keeps it (empty is fine), Esc cancels."""

    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]
    DEFAULT_CSS = """
    NoteScreen { align: center middle; }
    NoteScreen > #note-box { width: 80%; height: auto; border: round $accent; padding: 0 1; }
    """

    def __init__(self, title: str, note: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.note = note

    def compose(self) -> ComposeResult:
        box = Input(
            value=self.note,
            placeholder=_("note (optional) · Enter saves · Esc cancels"),
            id="note-box",
        )
        box.border_title = self.title_text
        yield box

    @on(Input.Submitted)
    def saved(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


def run_safely(app: App[None], action: Callable[[], str]) -> None:
    """A quick library action on the UI thread: its message as a notification, and a failure
    (a damaged row, a file that cannot be written) as a message, never the app's end."""
    try:
        app.notify(action())
    except (LectureTuiError, OSError) as exc:
        message = getattr(exc, "message", None) or str(exc)
        hint = getattr(exc, "hint", None)
        app.notify(message + (f"\n{hint}" if hint else ""), severity="error")


def bookmark_segment(screen: Screen[None], segment_id: int, title: str, entry: int | None) -> None:
    """Ask for a note, then bookmark the segment (b, on the main and the segment screen)."""

    def save(note: str | None) -> None:
        if note is not None:
            bookmarks = context(screen).services.library.bookmarks()

            def add() -> str:
                mark = bookmarks.add(segment_id, note, history_id=entry)
                return _("Bookmarked: {lecture} {span}").format(
                    lecture=mark.moment.lecture_title, span=mark.moment.span
                )

            run_safely(screen.app, add)

    screen.app.push_screen(NoteScreen(title), save)


def export_to(app: App[None], folder: Path, stem: str, write: Callable[[Targets], Sized]) -> None:
    """Export as `folder/stem.md`, `.apkg` and `.csv` (`write` writes them); the notification
    says where, or why not."""

    def export() -> str:
        folder.mkdir(parents=True, exist_ok=True)
        names = (folder / f"{stem}.{suffix}" for suffix in ("md", "apkg", "csv"))
        written = write(Targets(*names))
        n = len(written)
        return ngettext(
            "Exported {n} file to {folder}", "Exported {n} files to {folder}", n
        ).format(n=n, folder=folder)

    run_safely(app, export)
