"""Citations in an answer: `[1]`, `[2, 3]`, the numbers of the excerpts the prompt gave."""

from __future__ import annotations

import re

CITATION = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")


def cited_numbers(answer: str, limit: int) -> list[int]:
    """Citation numbers in order of first appearance, only those that name a passage."""
    seen: list[int] = []
    for m in CITATION.finditer(answer):
        for part in re.split(r"\s*[,;]\s*", m.group(1)):
            n = int(part)
            if 1 <= n <= limit and n not in seen:
                seen.append(n)
    return seen
