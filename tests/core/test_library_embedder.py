"""The library's embedding model as the ingest sees it: its tokenizer counts a file's cues in
batches, loaded only when asked."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lecturetui.core.library_embedder import LibraryEmbedder
from lecturetui.core.models.tokens import CallableTokenCounter, TokenCounter
from tests.fakes import FakeEmbedder


class _Counted(FakeEmbedder):
    """An embedder whose tokenizer says how it was asked: one text, or a batch."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def token_counter(self) -> TokenCounter:
        def one(text: str) -> int:
            self.calls.append("one")
            return len(text.split())

        def many(texts: Sequence[str]) -> list[int]:
            self.calls.append(f"batch of {len(texts)}")
            return [len(t.split()) for t in texts]

        return CallableTokenCounter(one, 4, "words", many)


def test_the_lazy_counter_counts_a_batch_in_one_run(tmp_path: Path) -> None:
    embedder = _Counted()
    counter = LibraryEmbedder(tmp_path, embedder=embedder).token_counter()
    assert embedder.calls == []  # nothing loaded or run until a text is counted
    assert counter.counts(["a b", "c", "d e f"]) == [2, 1, 3]
    assert embedder.calls == ["batch of 3"]  # not one run per cue
    assert counter.count("a b c") == 3 and embedder.calls[-1] == "one"
    assert counter.total("a b") == 2 + 4  # the passage's overhead, once loaded
