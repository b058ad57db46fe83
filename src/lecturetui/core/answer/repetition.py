"""A stop rule for a small model stuck in a loop: the same sentence said twice ends the answer.

Small answer models sometimes repeat a sentence until the token limit (one answer of a 1.5B
model repeated itself for 55 s). A repeat penalty would also penalise the citations `[1]` that
every sentence must carry, so the answer is watched instead: when a sentence of at least
`MIN_WORDS` words (citations and case aside) repeats an earlier one, the stream is stopped and
the repeat is dropped. The explanation is also held to `max_sentences` sentences: the stream
stops once that many are finished.
"""

from __future__ import annotations

import re

MIN_WORDS = 5
_END = re.compile(r"[.!?](?:\s*\[\d+(?:\s*[,;]\s*\d+)*\])*(?=\s|$)")
_CITE = re.compile(r"\[[\d\s,;]+\]")


def _key(sentence: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", _CITE.sub(" ", sentence)).casefold().split())


class RepeatGuard:
    """Fed the answer's pieces as they come; `stopped` turns true at the first repeat."""

    def __init__(self, max_sentences: int | None = None) -> None:
        self.max_sentences = max_sentences
        self._sentences = 0
        self.text = ""
        self._done = 0  # how much of `text` is cut into finished sentences
        self._seen: set[str] = set()
        self.stopped = False
        self._kept = 0  # length of the text before the repeated sentence

    def feed(self, piece: str) -> bool:
        """Add a piece; True when the answer should stop here."""
        if self.stopped:
            return True
        self.text += piece
        for match in _END.finditer(self.text, self._done):
            sentence = self.text[self._done : match.end()]
            key = _key(sentence)
            if len(key.split()) >= MIN_WORDS:
                if key in self._seen:
                    self.stopped = True
                    self._kept = self._done
                    return True
                self._seen.add(key)
            self._done = match.end()
            if len(key.split()) >= 2:
                self._sentences += 1
            if self.max_sentences is not None and self._sentences >= self.max_sentences:
                self.stopped = True
                self._kept = self._done
                return True
        return False

    def answer(self) -> str:
        """The text without the repeat (all of it when nothing repeated)."""
        return self.text[: self._kept] if self.stopped else self.text
