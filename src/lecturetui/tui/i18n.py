"""The app in one language: key bindings translated where Textual shows them (footer, palette).

Strings are translated with core/i18n.py's `_`; a class's BINDINGS are built when the module is
imported, before the language is chosen, so their descriptions are marked with `N_` and each
screen translates its own copy when it is made (`Translated`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from textual.app import SystemCommand
from textual.dom import DOMNode

from lecturetui.core.i18n import N_, _

#: what Textual itself names in the command palette (its system commands), for the catalog
TEXTUAL_COMMANDS = (
    N_("Theme"), N_("Change the current theme"), N_("Quit"),
    N_("Quit the application as soon as possible"), N_("Keys"),
    N_("Show help for the focused widget and a summary of available keys"),
    N_("Hide the keys and widget help panel"), N_("Screenshot"),
    N_("Save an SVG 'screenshot' of the current screen"), N_("Minimize"),
    N_("Minimize the widget and restore to normal size"), N_("Maximize"),
    N_("Maximize the focused widget"),
)  # fmt: skip


def translate_bindings(node: DOMNode) -> None:
    """The node's own copy of its bindings, with descriptions and tooltips in the current
    language (Textual copies a class's bindings into each node when it is made)."""
    table = node._bindings.key_to_bindings
    for key, bindings in table.items():
        table[key] = [
            replace(
                b,
                description=_(b.description) if b.description else b.description,
                tooltip=_(b.tooltip) if b.tooltip else b.tooltip,
            )
            for b in bindings
        ]


class Translated:
    """A screen (or the app) whose key bindings speak the current language: put it first among
    the bases."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        assert isinstance(self, DOMNode)
        translate_bindings(self)


def translated_commands(commands: Iterable[SystemCommand]) -> Iterable[SystemCommand]:
    """Textual's own palette commands in the current language."""
    for c in commands:
        yield SystemCommand(_(c.title), _(c.help), c.callback, c.discover)
