"""What a library's lectures are about: the word each one dwells on that few segments share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from tests.fakes import FakeEmbedder

FILLER = "então a gente vai ver isso aqui porque the point is that we will see this here"


def _vtt(path: Path, sentences: list[str]) -> Path:
    cues = [
        f"00:{i // 60:02d}:{i % 60:02d}.000 --> 00:{i // 60:02d}:{i % 60 + 1:02d}.000\n{text}\n"
        for i, text in enumerate(sentences)
    ]
    path.write_text("WEBVTT\n\n" + "\n".join(cues), encoding="utf-8")
    return path


def test_each_lecture_gives_the_word_it_dwells_on(home: Path, tmp_path: Path) -> None:
    lib: Any = Library(DataHome.resolve(), embedder=FakeEmbedder())
    a = _vtt(
        tmp_path / "a.vtt", [f"{FILLER} Paralelização de dados e paralelização de modelos"] * 3
    )
    b = _vtt(
        tmp_path / "b.vtt", [f"{FILLER} Backpropagation computes gradients; backpropagation"] * 3
    )
    lib.ingest([a, b])
    found = lib.topics(3)
    assert {t.term.casefold() for t in found} == {"paralelização", "backpropagation"}
    by_lecture = {t.lecture_id: t.term for t in found}
    assert len(by_lecture) == 2  # one per lecture, never a word every lecture says
    lib.close()


def test_an_empty_library_has_no_topics(home: Path) -> None:
    lib = Library(DataHome.resolve(), embedder=FakeEmbedder())
    assert lib.topics(3) == []
    lib.close()
