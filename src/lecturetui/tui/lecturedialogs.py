"""Managing lectures in the app's library screen: delete one (after a confirmation), edit its
title, course and link (nothing is embedded again), or name a course pack to import."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from lecturetui.core.i18n import N_, _
from lecturetui.core.lectures import Lecture
from lecturetui.tui.i18n import Translated


class ConfirmScreen(Translated, ModalScreen[bool]):
    """A yes/no question: y or Enter confirms, n or Esc declines."""

    BINDINGS = [
        Binding("y,enter", "answer(True)", N_("Yes")),
        Binding("n,escape", "answer(False)", N_("No")),
    ]
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > #confirm { width: 70%; height: auto; border: round $error; padding: 1 2; }
    """

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        yes, no = _("yes"), _("no")
        keys = f"[b]y[/] {yes} · [b]n[/] {no}"
        yield Static(f"{self.question}\n\n{keys}", id="confirm", markup=True)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


@dataclass(frozen=True, slots=True)
class LectureEdit:
    """What the edit dialog returns: the fields as typed (course and link may be empty)."""

    title: str
    course: str
    url: str


class EditLectureScreen(Translated, ModalScreen[LectureEdit | None]):
    """Title, course and link of a lecture: Enter in any field saves, Esc cancels."""

    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]
    DEFAULT_CSS = """
    EditLectureScreen { align: center middle; }
    EditLectureScreen > #edit-box { width: 80%; height: auto; border: round $accent; padding: 0 1; }
    """

    def __init__(self, lecture: Lecture) -> None:
        super().__init__()
        self.lecture = lecture

    def compose(self) -> ComposeResult:
        lec = self.lecture
        with Vertical(id="edit-box") as box:
            box.border_title = f"{lec.id} · " + _("Enter saves · Esc cancels")
            yield Input(value=lec.title, placeholder=_("title"), id="edit-title")
            yield Input(value=lec.course or "", placeholder=_("course"), id="edit-course")
            yield Input(
                value=lec.source_url or "", placeholder=_("video URL or file"), id="edit-url"
            )

    @on(Input.Submitted)
    def save(self) -> None:
        title = self.query_one("#edit-title", Input).value.strip()
        if not title:
            self.notify(_("A lecture needs a title."), severity="error")
            return
        course = self.query_one("#edit-course", Input).value.strip()
        url = self.query_one("#edit-url", Input).value.strip()
        self.dismiss(LectureEdit(title, course, url))

    def action_cancel(self) -> None:
        self.dismiss(None)


class PackPathScreen(Translated, ModalScreen[str | None]):
    """The path of a course pack to import: Enter imports, Esc cancels."""

    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]
    DEFAULT_CSS = """
    PackPathScreen { align: center middle; }
    PackPathScreen > #pack-box { width: 80%; height: auto; border: round $accent; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        with Vertical(id="pack-box") as box:
            box.border_title = _("Import a course pack") + " · " + _("Enter imports · Esc cancels")
            yield Input(
                placeholder=_("the pack's path, e.g. ~/Downloads/course.ltpack"), id="pack-path"
            )

    @on(Input.Submitted)
    def chosen(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
