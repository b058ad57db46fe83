"""Small helpers shared by the screens, and the question box."""

from __future__ import annotations

from textual import events
from textual.widgets import Input, OptionList


def move_highlight(options: OptionList, step: int) -> None:
    """Move an option list's highlight by `step`, staying inside the list (j / k)."""
    if options.option_count:
        current = options.highlighted or 0
        options.highlighted = max(0, min(options.option_count - 1, current + step))


class QuestionBox(Input):
    """The question's input: `?` in it while it is empty opens the help, as it does everywhere
    else (no question begins with one); typed after any text, it is part of the question."""

    async def _on_key(self, event: events.Key) -> None:
        if event.character == "?" and not self.value:
            event.stop()
            event.prevent_default()  # Input's own handler would type it
            await self.run_action("app.help")
