"""Counting the tokens a passage costs the embedding model, so a segment never exceeds its limit."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

_WORD = re.compile(r"\S+")


class TokenCounter:
    """Counts the tokens a passage costs the encoder.

    `count(text)` is the cost of the text alone; `overhead` is what every passage adds (the
    `passage: ` prefix and the special tokens). The default is a conservative estimate for
    SentencePiece vocabularies (XLM-R): 1.25 tokens a word or one per 3.5 non-space characters,
    whichever is more (Portuguese lecture speech measures about 1.15 and 3.7), so it over-counts
    rather than lets the encoder truncate. Spaces are not counted, so the count of texts joined by
    spaces is never more than the sum of their counts. The search stage replaces it with the model's own tokenizer.
    """

    name = "estimate"

    def __init__(self, overhead: int = 6) -> None:
        self.overhead = overhead

    def count(self, text: str) -> int:
        words = _WORD.findall(text)
        chars = sum(len(w) for w in words)
        return math.ceil(max(1.25 * len(words), chars / 3.5)) if words else 0

    def total(self, text: str) -> int:
        return self.overhead + self.count(text)

    def counts(self, texts: Sequence[str]) -> list[int]:
        """`count` of each text (a tokenizer run once per batch counts many faster)."""
        return [self.count(t) for t in texts]


class CallableTokenCounter(TokenCounter):
    """A counter built on a function that counts a text's tokens (e.g. a real tokenizer)."""

    def __init__(
        self,
        fn: Callable[[str], int],
        overhead: int,
        name: str,
        many: Callable[[Sequence[str]], list[int]] | None = None,
    ) -> None:
        super().__init__(overhead)
        self._fn = fn
        self._many = many
        self.name = name

    def count(self, text: str) -> int:
        return self._fn(text)

    def counts(self, texts: Sequence[str]) -> list[int]:
        if self._many is None:
            return super().counts(texts)
        out: list[int] = []
        for start in range(0, len(texts), 256):
            out += self._many(texts[start : start + 256])
        return out


def tokenizer_counter(tokenizer: Any, passage_prefix: str, model_id: str) -> TokenCounter:
    """A counter on a model's own `tokenizers` tokenizer: counts are exact, the passage prefix
    and the special tokens included (in `overhead`)."""

    def count(text: str) -> int:
        return len(tokenizer.encode(text, add_special_tokens=False).ids)

    probe = "lecture"
    overhead = len(tokenizer.encode(passage_prefix + probe).ids) - count(probe)
    return CallableTokenCounter(count, overhead, name=f"tokenizer:{model_id}")


def read_tokenizer(path: Path) -> Any:
    """A `tokenizer.json` read by `tokenizers` (a second or two for a large vocabulary)."""
    from tokenizers import Tokenizer  # lazy: only a model without its OpenVINO tokenizer reads one

    return Tokenizer.from_file(str(path))
