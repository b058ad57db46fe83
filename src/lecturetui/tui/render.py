"""Rich renderables for hits, answers and segments (no widget state here)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.text import Text

from lecturetui.core.citing import CITATION
from lecturetui.core.records import EvidenceRecord, HitRecord, PassageRecord
from lecturetui.core.retrieval.fusion import retriever_tag
from lecturetui.core.timefmt import format_timestamp


def score_style(score: float, best: float, worst: float) -> str:
    """Colour by strength relative to the other hits of the same question."""
    span = max(best - worst, 1e-6)
    rel = (score - worst) / span
    return "bold green" if rel > 0.66 else "yellow" if rel > 0.33 else "dim"


def hit_row(hit: HitRecord, best: float, worst: float, mark: str, width: int = 60) -> Text:
    text = Text()
    text.append(f"{hit.rank:>2} ", style="bold")
    text.append(f"{hit.score:.3f} ", style=score_style(hit.score, best, worst))
    text.append(retriever_tag(list(hit.retrievers) or ["dense"]) + " ", style="dim")
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
    labels: dict[str, str],
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
        out.append("\n" + labels["unsupported_note"], style="dim italic")
    if note:
        out.append("\n" + note, style="dim italic")
    if references:
        out.append(f"\n\n{labels['references']}\n", style="bold")
        for ref in references:
            out.append(f"[{ref.number}] ", style="bold magenta")
            out.append(f"{ref.lecture_title}, {ref.span}")
            if ref.url:
                out.append(f"  {ref.url}", style="dim underline")
            out.append("\n")
    return out


def evidence_text(
    evidence: Sequence[EvidenceRecord], labels: dict[str, str], width: int = 12
) -> Text:
    """The evidence sentences: lecture and time, then the sentence highlighted among the words
    around it in its segment."""
    out = Text()
    if not evidence:
        return out
    out.append(f"{labels['evidence']}\n", style="bold")
    for e in evidence:
        out.append(f"{e.lecture_title} {format_timestamp(e.start_s)}", style="cyan")
        out.append(f"  {e.score:.3f}\n", style="dim")
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
