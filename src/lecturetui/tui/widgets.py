"""Small helpers shared by the screens."""

from __future__ import annotations

from textual.widgets import OptionList


def move_highlight(options: OptionList, step: int) -> None:
    """Move an option list's highlight by `step`, staying inside the list (j / k)."""
    if options.option_count:
        current = options.highlighted or 0
        options.highlighted = max(0, min(options.option_count - 1, current + step))
