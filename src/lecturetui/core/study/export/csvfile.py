"""Cards as a CSV file: front, back, lecture, start, link.

UTF-8 with a byte-order mark, so that spreadsheets (Excel) read accents and non-Latin scripts
right; Python's `utf-8-sig`, LibreOffice and flashcard apps read it as plain UTF-8. One header
row, fields quoted by the csv module where needed (commas, quotes, line breaks). An answer's
card names its first citation in the lecture, start and link columns (the others are in its
back, after the answer).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from lecturetui.core.study.export.cards import Card, unique
from lecturetui.core.study.export.text import clean, one_line, write_text
from lecturetui.core.timefmt import format_timestamp

HEADER = ("front", "back", "lecture", "start", "link")
ENCODING = "utf-8-sig"


def _back(card: Card) -> str:
    back = clean(card.back).strip()
    cited = [
        f"{s.label} {one_line(s.moment.lecture_title)}, {s.moment.span}"
        for s in card.sources
        if s.label
    ]
    return "\n".join([back, "", *cited]) if cited else back


def csv_text(cards: Sequence[Card]) -> str:
    """The CSV (header and a row per card, each content once), lines ending in CRLF."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(HEADER)
    for card in unique(cards):
        first = card.first
        writer.writerow(
            (
                clean(card.front).strip(),
                _back(card),
                one_line(first.lecture_title) if first else "",
                format_timestamp(first.start) if first else "",
                clean(first.url or "") if first else "",
            )
        )
    return out.getvalue()


def write_csv(cards: Sequence[Card], path: Path) -> int:
    """Write the cards as CSV; returns how many rows (the header aside)."""
    write_text(path, csv_text(cards), ENCODING)
    return len(unique(cards))
