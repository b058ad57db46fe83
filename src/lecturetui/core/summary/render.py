"""How a lecture's summary looks, from its record (core/summary/fold.py), on the faces: in the
app (Rich text), on the terminal (`summary` and `ask`, piece by piece as it is written), and as
study notes (Markdown with a link at every part's time) and cards (one per part). The answer's
text, which the history keeps, is core/summary/text.py's. Only the faces import this module,
when they show a summary (Rich is theirs)."""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text

from lecturetui.core.citing import CITATION
from lecturetui.core.i18n import _
from lecturetui.core.records import PartRecord, SummaryRecord
from lecturetui.core.study.export import Targets, write_targets
from lecturetui.core.study.export import WrittenFile as Written
from lecturetui.core.study.export.cards import Card, Source, unique
from lecturetui.core.study.export.markdown import block_quote as quoted
from lecturetui.core.study.export.markdown import heading, link, paragraphs
from lecturetui.core.study.export.text import one_line
from lecturetui.core.study.moments import Moment
from lecturetui.core.summary.text import part_name


# -- the app ------------------------------------------------------------------------------------
def summary_rich(summary: SummaryRecord) -> Text:
    """Each part's number, time and what it is about, the lecturer's words; then the lecture's
    subjects, their citations highlighted."""
    out = Text()
    out.append(summary.title + "\n", style="bold")
    if summary.phrases:
        out.append(
            _("Key phrases: {phrases}").format(phrases=" · ".join(summary.phrases)) + "\n",
            style="italic",
        )
    if summary.parts and summary.parts[0].made:
        out.append(_("(parts cut by lecturetui where the subject changes)") + "\n", style="dim")
    for part in summary.parts:
        out.append("\n")
        out.append(f"[{part.number}] ", style="bold magenta")
        out.append(part.start, style="cyan")
        out.append(f" {part_name(part)}\n", style="bold")
        if part.said:
            out.append("“" + " … ".join(part.said) + "”\n", style="italic cyan")
    if summary.gist:
        out.append("\n" + _("In short") + "\n", style="bold")
        at = 0
        for m in CITATION.finditer(summary.gist):
            out.append(summary.gist[at : m.start()])
            out.append(m.group(0), style="bold magenta")
            at = m.end()
        out.append(summary.gist[at:])
    return out


# -- the terminal, piece by piece as the summary is written (Rich markup) -----------------------
def terminal_parts(summary: SummaryRecord) -> list[str]:
    """What is printed once the parts are out: the title, the key phrases, each part's time,
    title and the lecturer's words (one item a print)."""
    out = [f"# {escape(summary.title)}\n"]
    if summary.phrases:
        said = _("Key phrases: {phrases}").format(phrases=" · ".join(summary.phrases))
        out.append(f"[italic]{escape(said)}[/]\n")
    if summary.parts and summary.parts[0].made:
        out.append("[dim]" + _("(parts cut by lecturetui where the subject changes)") + "[/]\n")
    for p in summary.parts:
        words = escape(" … ".join(p.said))
        out.append(
            f"[cyan][{p.number}] {p.start}[/] [bold]{escape(p.title)}[/]\n  [dim]“{words}”[/]"
        )
    return [*out, ""]


def terminal_part(part: PartRecord) -> tuple[str, list[str]]:
    """What a part is about once named, and a note where the model's label was not kept."""
    left = _(
        "(the model's label {label!r} was not kept: it does not name this part, or repeats"
        " an earlier one)"
    )
    return (
        f"[cyan][{part.number}][/] [bold]{escape(part.label)}[/]",
        [left.format(label=s) for s in part.refused],
    )


def terminal_gist(summary: SummaryRecord) -> list[str]:
    """The gist once written: the lecture's subjects (made from the parts' names, nothing to
    strike)."""
    return ["\n[bold]" + _("In short") + "[/]", escape(summary.gist)]


# -- study notes and cards ----------------------------------------------------------------------
def part_moment(summary: SummaryRecord, part: PartRecord) -> Moment:
    return Moment(summary.lecture, summary.title, None, part.start_s, part.end_s, part.url)


def notes_markdown(summary: SummaryRecord) -> str:
    """The lecture as the title; each part a heading (what it is about) with a link at its
    time and the lecturer's words quoted; the lecture's subjects first."""
    out = [heading(1, summary.title)]
    if summary.phrases:
        out += [
            "",
            "*" + _("Key phrases: {phrases}").format(phrases=" · ".join(summary.phrases)) + "*",
        ]
    if summary.parts and summary.parts[0].made:
        out += ["", "*Parts cut by lecturetui where the subject changes.*"]
    if summary.gist:
        out += ["", paragraphs(summary.gist)]
    for part in summary.parts:
        name = part_name(part)
        title = f"{part.number}. {name}" if name else str(part.number)
        out += ["", heading(2, title), "", link(part_moment(summary, part))]
        if part.phrases:
            out += ["", "*" + " · ".join(part.phrases) + "*"]
        if part.said:
            out += ["", quoted(" … ".join(part.said))]
    return "\n".join(out) + "\n"


def notes_cards(summary: SummaryRecord) -> list[Card]:
    """One card per part that was named: the lecture and what the part is about on the front,
    the lecturer's words on the back."""
    cards = []
    for part in summary.parts:
        if not part.label or not part.said:
            continue
        front = f"{one_line(summary.title)}: {one_line(part.label)}"
        back = "“" + " … ".join(part.said) + "”"
        cards.append(Card(front, back, (Source(f"[{part.number}]", part_moment(summary, part)),)))
    return unique(cards)


def export_summary(summary: SummaryRecord, to: Targets) -> list[Written]:
    """Write a lecture's summary as study notes (Markdown) and cards, one per part."""
    return write_targets(notes_markdown(summary), len(summary.parts), notes_cards(summary), to)
