"""Bookmarks and answers leave the app: Markdown (markdown.py), flashcards (cards.py) as an
Anki package (anki.py) and as CSV (csvfile.py). Both faces call `export_bookmarks` and
`export_answer` with the files wanted; a lecture's summary is written the same way
(`write_targets`, from core/summary/render.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.lectures import Chapter
from lecturetui.core.study.bookmarks import Bookmark
from lecturetui.core.study.export.cards import Card, answer_cards, bookmark_cards
from lecturetui.core.study.export.csvfile import write_csv
from lecturetui.core.study.export.markdown import answer_markdown, bookmarks_markdown
from lecturetui.core.study.export.text import write_text
from lecturetui.core.study.saved import SavedAnswer

__all__ = [
    "Targets",
    "WrittenFile",
    "export_answer",
    "export_bookmarks",
    "no_bookmarks",
    "write_targets",
]


@dataclass(frozen=True, slots=True)
class Targets:
    """The files to write; None: not this format."""

    markdown: Path | None = None
    anki: Path | None = None
    csv: Path | None = None

    def __bool__(self) -> bool:
        return any((self.markdown, self.anki, self.csv))


@dataclass(frozen=True, slots=True)
class WrittenFile:
    """A file an export wrote: where, in which format, and how many moments or cards."""

    path: Path
    format: str  # "markdown", "anki" or "csv"
    count: int  # moments (Markdown) or cards


def write_targets(
    markdown: str, moments: int, cards: Sequence[Card], to: Targets
) -> list[WrittenFile]:
    """Write the Markdown and the cards to the files wanted (`moments`: how many the Markdown
    holds)."""
    from lecturetui.core.study.export.anki import write_anki  # lazy: genanki takes 50 ms

    if not to:
        raise LectureTuiError(
            _("Nothing to write."), hint=_("give --md FILE, --anki FILE or --csv FILE")
        )
    if (to.anki or to.csv) and not cards:
        raise LectureTuiError(
            _("There is nothing to make a card of."), hint=_("an empty answer makes no card")
        )
    out = []
    if to.markdown:
        write_text(to.markdown, markdown)
        out.append(WrittenFile(to.markdown, "markdown", moments))
    if to.anki:
        out.append(WrittenFile(to.anki, "anki", write_anki(cards, to.anki)))
    if to.csv:
        out.append(WrittenFile(to.csv, "csv", write_csv(cards, to.csv)))
    return out


def export_bookmarks(
    bookmarks: Sequence[Bookmark],
    to: Targets,
    title: str = "Bookmarks",
    chapters: Mapping[str, Sequence[Chapter]] | None = None,
) -> list[WrittenFile]:
    """Write the bookmarks (in the order given: Bookmarks.all's) to the target files, each
    moment with its chapter where its lecture has chapters."""
    if not bookmarks:
        raise no_bookmarks()
    markdown = bookmarks_markdown(bookmarks, title, chapters)
    return write_targets(markdown, len(bookmarks), bookmark_cards(bookmarks), to)


def no_bookmarks() -> LectureTuiError:
    return LectureTuiError(
        _("There are no bookmarks to export."),
        hint=_("bookmark a segment with b in the app, or `lecturetui bookmarks add SEGMENT_ID`"),
    )


def export_answer(answer: SavedAnswer, to: Targets) -> list[WrittenFile]:
    """Write an answer (question, answer, citations) to the target files."""
    return write_targets(answer_markdown(answer), len(answer.citations), answer_cards(answer), to)
