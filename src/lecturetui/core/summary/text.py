"""A lecture's summary as one text (Markdown, in the summary's language): the answer's text,
what the history keeps and the front door shows (core/requests/kinds.py). How the faces show it
is core/summary/render.py's."""

from __future__ import annotations

import re

from lecturetui.core.records import PartRecord, SummaryRecord

_HEADING = {
    "Portuguese": "Resumo de “{title}”, em {n} partes",
    "Spanish": "Resumen de “{title}”, en {n} partes",
}
_HEADING_EN = "Summary of “{title}”, in {n} parts"
_PHRASES = {"Portuguese": "Palavras-chave: {phrases}", "Spanish": "Palabras clave: {phrases}"}
_PHRASES_EN = "Key phrases: {phrases}"


def part_name(part: PartRecord) -> str:
    """What a part is about: its label where written, else its title; the title after a label
    that differs from it ("Device placement · GPU")."""
    if part.label and part.title and part.title.casefold() != part.label.casefold():
        return f"{part.label} · {part.title}"
    return part.label or part.title


def summary_text(summary: SummaryRecord) -> str:
    """The summary as one text (Markdown): a heading and the lecture's key phrases, each part
    with its time, what it is about and the lecturer's words, then its subjects."""
    head = _HEADING.get(summary.language, _HEADING_EN).format(
        title=summary.title, n=len(summary.parts)
    )
    lines = [f"**{head}**", ""]
    if summary.phrases:
        about = _PHRASES.get(summary.language, _PHRASES_EN)
        lines[1:1] = [f"*{about.format(phrases=' · '.join(summary.phrases))}*"]
    for p in summary.parts:
        name = part_name(p)
        lines.append(f"[{p.number}] {p.start}" + (f" {name}" if name else ""))
        words = " … ".join(p.said)
        if words:
            lines.append(f"“{words}”")
        lines.append("")
    if summary.gist:
        lines.append(summary.gist)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
