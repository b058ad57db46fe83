"""Cards as an Anki package (.apkg), written by genanki.

The note type and the deck have fixed ids, and a note's GUID is a hash of the card's content
(genanki.guid_for over Card.key), so importing a later export of the same cards updates them
in Anki instead of adding them again. Fields are HTML: the text is escaped, line breaks become
<br>, and each source is its lecture with a link at its time.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import genanki

from lecturetui.core.study.export.cards import Card, Source, unique
from lecturetui.core.study.export.text import clean, one_line, write_file

#: fixed for good: Anki knows the note type and the deck by these ids
MODEL_ID = 1_542_106_877
DECK_ID = 1_873_019_365
MODEL_NAME = "lecturetui card"
DECK_NAME = "lecturetui"
FIELDS = ("Front", "Back", "Source")

_FRONT = '<div class="front">{{Front}}</div>'
_BACK = (
    '{{FrontSide}}<hr id="answer"><div class="back">{{Back}}</div>'
    '<div class="source">{{Source}}</div>'
)
_CSS = (
    ".card { font-family: sans-serif; font-size: 20px; text-align: left; }\n"
    ".source { margin-top: 1em; font-size: 14px; color: #777; }\n"
)


def field_html(text: str) -> str:
    """Text as an Anki field: HTML-escaped, line breaks as <br>."""
    return html.escape(clean(text).strip(), quote=True).replace("\n", "<br>")


def source_html(source: Source) -> str:
    m = source.moment
    label = f"{html.escape(source.label)} " if source.label else ""
    span = html.escape(m.span)
    time = f'<a href="{html.escape(clean(m.url), quote=True)}">{span}</a>' if m.url else span
    return f"{label}{html.escape(one_line(m.lecture_title))} · {time}"


def note_fields(card: Card) -> list[str]:
    """The note's fields, in FIELDS order."""
    return [
        field_html(card.front),
        field_html(card.back),
        "<br>".join(source_html(s) for s in card.sources),
    ]


def note_guid(card: Card) -> str:
    return str(genanki.guid_for(*card.key))


def _model() -> Any:
    return genanki.Model(
        MODEL_ID,
        MODEL_NAME,
        fields=[{"name": name} for name in FIELDS],
        templates=[{"name": "Card 1", "qfmt": _FRONT, "afmt": _BACK}],
        css=_CSS,
    )


def write_anki(cards: Sequence[Card], path: Path) -> int:
    """Write the cards (each content once) as an Anki package; returns how many."""
    model = _model()
    deck = genanki.Deck(DECK_ID, DECK_NAME, description="Moments of lectures, from lecturetui.")
    kept = unique(cards)
    for card in kept:
        deck.add_note(genanki.Note(model=model, fields=note_fields(card), guid=note_guid(card)))
    package = genanki.Package(deck)
    write_file(path, lambda tmp: package.write_to_file(str(tmp)))
    return len(kept)
