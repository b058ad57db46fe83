"""The scope picker: ask within the whole library, one course, or one lecture (key s)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from lecturetui.core.i18n import N_, _, ngettext
from lecturetui.core.lectures import Lecture
from lecturetui.core.retrieval.scope import Scope
from lecturetui.tui.i18n import Translated


class ScopeScreen(Translated, ModalScreen[Scope | None]):
    """Enter picks the highlighted scope; Esc keeps the current one."""

    BINDINGS = [Binding("escape", "dismiss_none", N_("Back"))]
    DEFAULT_CSS = """
    ScopeScreen { align: center middle; }
    ScopeScreen > #scope-box { width: 90%; height: 80%; border: round $accent; }
    """

    def __init__(self, lectures: list[Lecture], current: Scope) -> None:
        super().__init__()
        self.choices: list[Scope] = [Scope()]
        labels = [_("Whole library")]
        for course in sorted({x.course for x in lectures if x.course}):
            n = sum(1 for x in lectures if x.course == course)
            self.choices.append(Scope(courses=(course,)))
            labels.append(
                ngettext(
                    "Course  {course}  ({n} lecture)", "Course  {course}  ({n} lectures)", n
                ).format(course=course, n=n)
            )
        for lec in sorted(lectures, key=lambda x: (x.course or "", x.title)):
            self.choices.append(Scope(lectures=(lec.id,)))
            in_course = f"  · {lec.course}" if lec.course else ""
            labels.append(_("Lecture {title}").format(title=lec.title) + in_course)
        self.labels = labels
        self.current = current

    def compose(self) -> ComposeResult:
        options = OptionList(
            *[Option(label, id=str(i)) for i, label in enumerate(self.labels)], id="scope-box"
        )
        options.border_title = _("Ask within")
        yield options
        yield Static(_("Enter: ask within it · Esc: back"), id="scope-help")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        if self.current in self.choices:
            options.highlighted = self.choices.index(self.current)
        options.focus()

    @on(OptionList.OptionSelected)
    def picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.choices[int(event.option.id or 0)])

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
