"""A question in another language than the lectures', translated before it is searched.

E5 is multilingual, but a Portuguese question about English lectures loses BM25 entirely (no
shared words) and much of E5's precision. Translated by the answer model into the library's
language, it is searched with both vectors (the question's and the translation's, summed) and
BM25 on the translation. On the realistic benchmark's held-out half this took Portuguese
questions about English lectures from MRR 0.395 to 0.551 and recall@10 0.60 to 0.81
(bench/RESULTS.md). It needs the answer model, so `ask`, the app and `eval` translate; `search`
(no model loaded) does not.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from lecturetui.core.language import language_name

if TYPE_CHECKING:
    from lecturetui.core.library import Library
    from lecturetui.core.llm.model import Generator
    from lecturetui.core.retrieval.asked import Asked


def library_language(library: Library) -> str | None:
    """The language most of the library's lectures are in (None when unknown)."""
    counts = Counter(x.language for x in library.lectures() if x.language)
    return counts.most_common(1)[0][0] if counts else None


def clean_translation(question: str, reply: str) -> str | None:
    """The translation in a model's reply, or None when the reply is not one (empty, an answer
    rather than a translation: far longer than the question)."""
    lines = [x.strip() for x in reply.strip().splitlines() if x.strip()]
    if not lines:
        return None
    text = re.sub(r"^(translation|tradução)\s*:\s*", "", lines[0], flags=re.I).strip(" \"'“”")
    if not text or len(text) > 2 * len(question) + 40:
        return None
    return text


def translate_messages(question: str, target: str) -> list[dict[str, str]]:
    """The chat that asks for a translation into `target` (an ISO code). A stricter one ("do not
    answer it") made the 1.5B model answer more questions, not fewer (bench/RESULTS.md)."""
    name = language_name(target)
    return [
        {
            "role": "system",
            "content": f"Translate the user's question into {name}. Reply with the translation only.",
        },
        {"role": "user", "content": question},
    ]


def translate(generator: Generator, question: str, target: str) -> str | None:
    """`question` in the language `target` (an ISO code), by the answer model (greedy); None on
    failure."""
    messages = translate_messages(question, target)
    try:
        reply = "".join(
            generator.stream(messages, min(160, len(question) // 2 + 32), temperature=0.0)
        )
    except Exception:  # a failed translation only costs the cross-language help
        return None
    return clean_translation(question, reply)


#: how much less likely (log-probability, py3langid) the library's language must be than the
#: question's for it to be translated: a short question mixing terms ("tensor Flow prioriza
#: GPU": 3 apart) is not, a question plainly in another language ("What is a tuple?": 28) is
MARGIN = 15.0


def target_language(library: Library, asked: Asked) -> str | None:
    """The library's language when the question is clearly in another one, else None (its
    language as told once, `asked`)."""
    if asked.same_language:
        return None
    target = library_language(library)
    if target is None:
        return None
    behind = asked.told.get().behind(target)
    if behind is None or behind < MARGIN:
        return None
    return target


def translator_for(
    library: Library, generator: Generator | None, asked: Asked
) -> Translator | None:
    """A translator into the library's language when the question is clearly in another one."""
    target = None if generator is None else target_language(library, asked)
    if generator is None or target is None:
        return None
    return Translator(generator, target)


@dataclass(frozen=True, slots=True)
class Translator:
    """Puts a question into `target` (the library's language) by the answer model."""

    generator: Generator
    target: str

    def __call__(self, asked: Asked) -> Asked:
        """The question with its translation (as it was when none could be made)."""
        translation = translate(self.generator, asked.text, self.target)
        if not translation:
            return asked
        return replace(asked, translation=translation, translated_to=self.target)
