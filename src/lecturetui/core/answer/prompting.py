"""From retrieved hits to a grounded, numbered prompt: the instructions, overlapping windows
merged into numbered passages, and the messages (with the last exchange of a follow-up).

Pure logic (no model import). How much of each passage the prompt holds is budget.py's choice
(the time budget), how an answer's `[n]` citations are read and checked is citing.py's and
check.py's; `generation.py` runs the model on what this builds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lecturetui.core.citing import CITATION
from lecturetui.core.conversation import Exchange
from lecturetui.core.links import deep_link
from lecturetui.core.sentences import Window, joined_text
from lecturetui.core.timefmt import format_span

SYSTEM_PROMPT = (
    "You explain a lecture's answer to a student's question, using ONLY the numbered lecture "
    "excerpts given; the student already sees the lecturer's own words from excerpt [1]. Write at "
    "most three short sentences, in the language the question asks for, that state the answer "
    "and explain it. End every sentence with the number of the excerpt that supports it in "
    "square brackets, like [1] or [2]. Keep the lecturer's numbers, names and terms exactly as "
    "the excerpts give them and add no fact they do not state. If the excerpts do not answer the "
    "question, say so plainly in one sentence. Excerpts are automatic transcriptions of speech "
    "and may contain recognition errors; '…' marks words left out."
)

# A worked example, fixed like the instructions: the model sees what a cited answer looks like.
# The instructions and this example come first in every prompt, byte for byte the same, so
# llama.cpp evaluates them once (when the model loads) and reuses them for every question.
EXAMPLE_QUESTION = (
    "Lecture excerpts:\n\n"
    "Excerpt [1] (Aula 2, 00:10:05–00:10:40):\n"
    "… então a lista em Python ela é mutável né a gente pode adicionar elementos com append e "
    "remover com pop a qualquer momento …\n\n"
    "Excerpt [2] (Aula 2, 00:12:30–00:13:02):\n"
    "… já a tupla não dá para alterar depois de criada por isso ela pode ser usada como chave "
    "de um dicionário e a lista não …\n\n"
    "Question: Qual a diferença entre lista e tupla em Python?\n\n"
    "(Answer in Portuguese, the language of the question, in at most three sentences; end every "
    "sentence with the excerpt that supports it, like [1].)"
)
EXAMPLE_ANSWER = (
    "A lista é mutável: dá para adicionar elementos com append e remover com pop a qualquer "
    "momento [1]. A tupla não pode ser alterada depois de criada [2]. Por isso a tupla pode ser "
    "chave de um dicionário, e a lista não [2]."
)


def fixed_messages() -> list[dict[str, str]]:
    """The part of every prompt that never changes: instructions and the worked example."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": EXAMPLE_QUESTION},
        {"role": "assistant", "content": EXAMPLE_ANSWER},
    ]


@dataclass(slots=True)
class Passage:
    """One or more overlapping windows of the same lecture, merged: what the prompt numbers."""

    number: int
    lecture_id: str
    lecture_title: str
    start: float
    end: float
    text: str
    score: float  # best cosine similarity among its hits
    url: str | None
    source_url: str | None = None
    hits: list[Any] = field(
        default_factory=list
    )  # core/library.py's Hit, kept loose to avoid a cycle

    @property
    def segment_ids(self) -> list[int]:
        return [h.segment.id for h in self.hits]

    @property
    def corpus_ids(self) -> list[int]:
        return [h.segment.corpus_id for h in self.hits if h.segment.corpus_id is not None]

    def header(self) -> str:
        span = f"{format_span(self.start, self.end)}"
        return f"Excerpt [{self.number}] ({self.lecture_title}, {span}):"


def _touch(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """Whether two groups of hits are of one lecture and some window of each overlaps."""
    return a[0].lecture.id == b[0].lecture.id and any(
        x.segment.start <= y.segment.end and y.segment.start <= x.segment.end for x in a for y in b
    )


def _bridged(groups: Sequence[Sequence[Any]]) -> tuple[int, int] | None:
    """The first two groups (in order) that `_touch`, or None."""
    n = len(groups)
    pairs = ((i, j) for i in range(n) for j in range(i + 1, n))
    return next(((i, j) for i, j in pairs if _touch(groups[i], groups[j])), None)


def merge_hits(hits: Sequence[Any]) -> list[Passage]:
    """Merge hits of the same lecture whose time spans overlap into one passage (no text twice).

    Passages keep the order of their best hit; inside a passage, windows are in time order.
    """
    groups: list[list[Any]] = []
    for hit in hits:
        group = next((g for g in groups if _touch(g, [hit])), None)
        if group is None:
            groups.append([hit])
        else:
            group.append(hit)
    # a later hit may bridge two groups of the same lecture: merge until stable
    while pair := _bridged(groups):
        i, j = pair
        groups[i].extend(groups.pop(j))
    passages = []
    for n, group in enumerate(groups, start=1):
        ordered = sorted(group, key=lambda h: (h.segment.start, h.segment.end))
        text = joined_text([Window.of(h.segment) for h in ordered])
        lec = ordered[0].lecture
        start = min(h.segment.start for h in ordered)
        passages.append(
            Passage(
                number=n,
                lecture_id=lec.id,
                lecture_title=lec.title,
                start=start,
                end=max(h.segment.end for h in ordered),
                text=text,
                score=max(h.score for h in ordered),
                url=deep_link(lec.source_url, start),
                source_url=lec.source_url,
                hits=ordered,
            )
        )
    return passages


def render_user_message(
    question: str, passages: Sequence[Passage], language: str | None = None, follow_up: bool = False
) -> str:
    parts = ["Lecture excerpts:"]
    for p in passages:
        parts.append(f"{p.header()}\n{p.text}")
    if not passages:
        parts.append("(none)")
    label = "Question (it follows up the previous one)" if follow_up else "Question"
    parts.append(f"{label}: {question}")
    lang = (
        f"in {language}, the language of the question"
        if language
        else "in the language of the question"
    )
    parts.append(
        f"(Answer {lang}, in at most three sentences; end every sentence with the excerpt that"
        " supports it, like [1].)"
    )
    return "\n\n".join(parts)


def previous_messages(
    previous: Exchange | None, answer_words: int | None = None
) -> list[dict[str, str]]:
    """The last exchange as a user and an assistant turn (its [n] referred to other excerpts, so
    they are left out); `answer_words` keeps only the answer's first words."""
    if previous is None:
        return []
    answer = " ".join(CITATION.sub("", previous.answer).split())
    if answer_words is not None and len(answer.split()) > answer_words:
        answer = " ".join(answer.split()[:answer_words]) + " …"
    return [
        {"role": "user", "content": previous.question},
        {"role": "assistant", "content": answer or "…"},
    ]


def messages_for(
    question: str,
    passages: Sequence[Passage],
    language: str | None = None,
    previous: Exchange | None = None,
    answer_words: int | None = None,
) -> list[dict[str, str]]:
    """The fixed part, the last exchange for a follow-up, then the excerpts and the question."""
    return [
        *fixed_messages(),
        *previous_messages(previous, answer_words),
        {
            "role": "user",
            "content": render_user_message(question, passages, language, previous is not None),
        },
    ]
