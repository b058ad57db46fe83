"""A lecture's summary as study notes: Markdown with a link at every part's time, and one card
per part (its title, or what it explains, on the front; its summary and the lecturer's words on
the back)."""

from __future__ import annotations

from lecturetui.core.i18n import _
from lecturetui.core.records import OverviewRecord, PartRecord
from lecturetui.core.study.export.cards import Card, Source, unique
from lecturetui.core.study.export.markdown import heading, link, paragraphs, quoted
from lecturetui.core.study.export.text import one_line
from lecturetui.core.study.moments import Moment


def part_moment(overview: OverviewRecord, part: PartRecord) -> Moment:
    return Moment(overview.lecture, overview.title, None, part.start_s, part.end_s, part.url)


def summary_markdown(overview: OverviewRecord) -> str:
    """The lecture as the title; each part a heading with a link at its time, what it explains
    and the lecturer's words quoted; then the gist."""
    out = [heading(1, overview.title)]
    if overview.phrases:
        out += ["", "*" + _("Key phrases: {phrases}").format(phrases=" · ".join(overview.phrases))
                + "*"]  # fmt: skip
    if overview.parts and overview.parts[0].made:
        out += ["", "*Parts cut by lecturetui where the subject changes.*"]
    if overview.gist:
        out += ["", paragraphs(overview.gist)]
    for part in overview.parts:
        title = f"{part.number}. {part.title}" if part.title else str(part.number)
        out += ["", heading(2, title), "", link(part_moment(overview, part))]
        if part.phrases:
            out += ["", "*" + " · ".join(part.phrases) + "*"]
        if part.summary:
            out += ["", paragraphs(part.summary)]
        if part.said:
            out += ["", quoted(" … ".join(part.said))]
    return "\n".join(out) + "\n"


def summary_cards(overview: OverviewRecord) -> list[Card]:
    """One card per part that was summarised: its title (or its place in the lecture) on the
    front, its summary and the lecturer's words on the back."""
    cards = []
    for part in overview.parts:
        if not part.summary:
            continue
        front = (f"{one_line(overview.title)}: {one_line(part.title)}" if part.title
                 else f"{one_line(overview.title)}, {part.start}")  # fmt: skip
        back = part.summary + ("\n\n“" + " … ".join(part.said) + "”" if part.said else "")
        cards.append(Card(front, back, (Source(f"[{part.number}]", part_moment(overview, part)),)))
    return unique(cards)
