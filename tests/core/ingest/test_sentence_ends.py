"""Ingest finds the sentence ends of captions without punctuation, once, and keeps them with
each window (core/ingest/pipeline.py, core/sentences.py); a quote then cuts there."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lecturetui.core.ingest.pipeline import IngestOptions
from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from lecturetui.core.sentences import Window, stitch
from lecturetui.core.study.quoting import sentences
from tests.fakes import FakeEmbedder

SENTENCE = "a gente calcula a derivada do produto de duas funções e soma tudo no final fim"


def _vtt(path: Path, text: str, words_per_cue: int = 6, seconds_per_word: float = 0.4) -> Path:
    words = text.split()
    lines = ["WEBVTT", ""]
    for k in range(0, len(words), words_per_cue):
        a, b = k * seconds_per_word, (k + words_per_cue) * seconds_per_word
        lines += [f"00:{int(a // 60):02d}:{a % 60:06.3f} --> 00:{int(b // 60):02d}:{b % 60:06.3f}"]
        lines += [" ".join(words[k : k + words_per_cue]), ""]
    path.write_text("\n".join(lines), "utf-8")
    return path


def _at_fim(words: Sequence[str]) -> list[int]:
    """A stand-in sentence model: a sentence ends at each "fim"."""
    return [i for i, w in enumerate(words) if w == "fim"]


def test_a_lecture_without_punctuation_keeps_the_model_s_ends_in_its_windows(
    tmp_path: Path,
) -> None:
    src = _vtt(tmp_path / "aula.vtt", " ".join([SENTENCE] * 60))  # 16 min: several windows
    asked: list[int] = []

    def ends(words: Sequence[str]) -> list[int]:
        asked.append(len(words))
        return _at_fim(words)

    lib = Library(DataHome.resolve(), embedder=FakeEmbedder(), sentence_ends=ends)
    lib.ingest([src], IngestOptions(language="pt"))
    (lecture,) = lib.store.lectures()
    segments = lib.store.segments(lecture.id)
    assert len(segments) > 2
    assert asked == [60 * len(SENTENCE.split())]  # the lecture read once, each word once
    for seg in segments:
        words = seg.text.split()
        assert seg.ends == tuple(i for i, w in enumerate(words) if w == "fim" and i < len(words))
    # a quote of any stretch of it is cut where the lecturer's sentences end
    line = stitch([Window(s.id, s.start, s.end, s.text, s.ends) for s in segments[1:3]])
    found = sentences(line, "pt", begins=False)
    assert all(s.text == SENTENCE for s in found if s.whole)
    assert sum(s.whole for s in found) >= 2
    lib.close()


def test_punctuated_captions_are_not_read_by_the_model(tmp_path: Path) -> None:
    text = " ".join(["A gente calcula a derivada. Depois soma tudo."] * 40)
    src = _vtt(tmp_path / "aula.vtt", text)
    calls: list[int] = []
    lib = Library(
        DataHome.resolve(),
        embedder=FakeEmbedder(),
        sentence_ends=lambda words: calls.append(1) or [],
    )
    lib.ingest([src], IngestOptions(language="pt"))
    (lecture,) = lib.store.lectures()
    assert calls == []
    assert all(s.ends is None for s in lib.store.segments(lecture.id))
    lib.close()


def test_without_the_model_nothing_is_kept_and_quotes_fall_back_to_speech_words(
    tmp_path: Path,
) -> None:
    src = _vtt(tmp_path / "aula.vtt", " ".join([SENTENCE] * 20))
    lib = Library(DataHome.resolve(), embedder=FakeEmbedder())  # $LECTURETUI_SENTENCES is off
    lib.ingest([src], IngestOptions(language="pt"))
    (lecture,) = lib.store.lectures()
    segments = lib.store.segments(lecture.id)
    assert all(s.ends is None for s in segments)
    line = stitch([Window(s.id, s.start, s.end, s.text, s.ends) for s in segments])
    assert not any(s.whole for s in sentences(line, "pt"))
    lib.close()
