"""Rich renderables for hits, answers and segments (no widget state here; a lecture's summary is
core/summary/render.py's)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.text import Text

from lecturetui.core.citing import CITATION
from lecturetui.core.i18n import _, decimal
from lecturetui.core.records import EvidenceRecord, HitRecord, PartRecord, PassageRecord
from lecturetui.core.timefmt import format_timestamp


def score_style(score: float, best: float, worst: float) -> str:
    """Colour by strength relative to the other hits of the same question."""
    span = max(best - worst, 1e-6)
    rel = (score - worst) / span
    return "bold green" if rel > 0.66 else "yellow" if rel > 0.33 else "dim"


#: which retrievers found a hit, as one sign each (explained by `hit_legend`)
RETRIEVER_SIGNS = (("dense", "≈"), ("lexical", "="), ("rerank", "↑"))


def retriever_signs(retrievers: list[str]) -> str:
    """`≈=↑`: found by meaning (E5), by the same words (BM25), re-ranked (EmbeddingGemma); a
    dot where one did not take part."""
    return "".join(sign if name in retrievers else "·" for name, sign in RETRIEVER_SIGNS)


def hit_legend(long: bool = False) -> str:
    """What a hit row's figures and signs mean: short on the segments pane's lower border, in
    full in the help."""
    if long:
        return _(
            "relevance 0–1 · ≈ meaning (E5) · = same words (BM25) · ↑ re-ranked (EmbeddingGemma)"
        )
    return _("relevance · ≈ meaning · = words · ↑ re-ranked")


def hit_row(hit: HitRecord, best: float, worst: float, mark: str, width: int = 60) -> Text:
    text = Text()
    text.append(f"{hit.rank:>2} ", style="bold")
    text.append(f"{decimal(hit.score, 3)} ", style=score_style(hit.score, best, worst))
    text.append(retriever_signs(list(hit.retrievers) or ["dense"]) + " ", style="dim")
    text.append(f"{hit.lecture_title}  ", style="bold")
    text.append(hit.span, style="cyan")
    if mark:
        text.append(f" {mark}", style="bold magenta")
    if hit.match:  # the sentence that matched the question, not the window's first words
        snippet = " ".join(hit.match.text.split())
        text.append("\n   " + snippet[: max(20, width)] + ("…" if len(snippet) > width else ""))
    else:
        snippet = " ".join(hit.text.split()[:24])
        text.append("\n   " + snippet[: max(20, width)] + "…", style="dim")
    return text


def part_row(part: PartRecord, width: int = 60) -> Text:
    """A summary's part in the left pane: its number, its time and what it is about (its label,
    else its title; "…" while it is being named)."""
    name = part.label or part.title or "…"
    row = Text.assemble((f"[{part.number}] ", "bold magenta"), (part.start, "cyan"), " ")
    row.append(name if len(name) <= width else name[: width - 1] + "…", style="bold")
    return row


def lecture_row(number: int, line: str, width: int = 60) -> Text:
    """A course overview's lecture in the left pane: its number and its line (title, subject)."""
    text = line.split("] ", 1)[-1] if line.startswith("[") else line
    row = Text(f"[{number}] ", style="bold magenta")
    row.append(text if len(text) <= width else text[: width - 1] + "…")
    return row


def highlighted(
    text: str,
    match: tuple[int, int] | None,
    sentences: list[str] | None = None,
    style: str = "",
) -> Text:
    """A segment's text with its matching unit (character offsets) in reverse and each of the
    evidence `sentences` it holds in bold yellow (found whatever the spacing)."""
    out = Text(text, style=style)
    if match is not None and 0 <= match[0] < match[1] <= len(text):
        out.stylize("bold reverse", match[0], match[1])
    for sentence in sentences or []:
        words = sentence.split()
        if not words:
            continue
        found = re.search(r"\s+".join(re.escape(w) for w in words), text)
        if found:
            out.stylize("bold yellow", found.start(), found.end())
    return out


def answer_text(
    answer: str,
    references: Sequence[PassageRecord],
    note: str = "",
    quote: str = "",
    unsupported: Sequence[str] = (),
) -> Text:
    """The answer: the quote it opens with (italic), the explanation with its citations
    highlighted, sentences its excerpts do not bear out dimmed with a note, the references."""
    out = Text()
    pos = 0
    for m in CITATION.finditer(answer):
        out.append(answer[pos : m.start()])
        out.append(m.group(0), style="bold magenta")
        pos = m.end()
    out.append(answer[pos:])
    if quote:
        out.highlight_words([quote], style="italic cyan")
    if unsupported:
        out.highlight_words(list(unsupported), style="dim strike")
        out.append(
            "\n"
            + _("(struck out: not found in the excerpts it cites; check it against the lecture)"),
            style="dim italic",
        )
    if note:
        out.append("\n" + note, style="dim italic")
    if references:
        out.append("\n\n" + _("References") + "\n", style="bold")
        for ref in references:
            out.append(f"[{ref.number}] ", style="bold magenta")
            out.append(f"{ref.lecture_title}, {ref.span}")
            if ref.url:
                out.append(f"  {ref.url}", style="dim underline")
            out.append("\n")
    return out


def evidence_text(evidence: Sequence[EvidenceRecord], width: int = 12) -> Text:
    """The evidence sentences: lecture and time, then the sentence highlighted among the words
    around it in its segment."""
    out = Text()
    if not evidence:
        return out
    out.append(_("Evidence"), style="bold")
    out.append(
        "  " + _("(the lectures' sentences closest to the question, with their relevance)") + "\n",
        style="dim",
    )
    for e in evidence:
        out.append(f"{e.lecture_title} {format_timestamp(e.start_s)}", style="cyan")
        out.append(f"  {decimal(e.score, 3)}\n", style="dim")
        before = " ".join(e.before.split()[-width:])
        after = " ".join(e.after.split()[:width])
        if before:
            out.append(f"…{before} ", style="dim")
        out.append(e.text, style="bold yellow")
        if after:
            out.append(f" {after}…", style="dim")
        out.append("\n")
    out.append("\n")
    return out


def timeline(start: float, end: float, duration: float, width: int = 40) -> str:
    """`▁▁▁██▁▁▁` with the segment's place in the lecture."""
    duration = max(duration, end, 1.0)
    a = int(start / duration * width)
    b = max(a + 1, int(end / duration * width))
    return "▁" * a + "█" * (b - a) + "▁" * max(0, width - b)
