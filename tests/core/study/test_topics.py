"""What a library's lectures are about: the word each one dwells on that few segments share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from lecturetui.core.storage.phrases import PhraseTable
from tests.fakes import FakeEmbedder

FILLER = "então a gente vai ver isso aqui porque the point is that we will see this here"


def _vtt(path: Path, sentences: list[str]) -> Path:
    cues = [
        f"00:{i // 60:02d}:{i % 60:02d}.000 --> 00:{i // 60:02d}:{i % 60 + 1:02d}.000\n{text}\n"
        for i, text in enumerate(sentences)
    ]
    path.write_text("WEBVTT\n\n" + "\n".join(cues), encoding="utf-8")
    return path


def _library(tmp_path: Path, filler: str = FILLER) -> Any:
    lib: Any = Library(DataHome.resolve(), embedder=FakeEmbedder())
    a = _vtt(
        tmp_path / "a.vtt", [f"{filler} Paralelização de dados e paralelização de modelos"] * 3
    )
    b = _vtt(
        tmp_path / "b.vtt", [f"{filler} Backpropagation computes gradients; backpropagation"] * 3
    )
    lib.ingest([a, b])
    return lib


def test_each_lecture_gives_a_key_phrase_of_what_it_dwells_on(home: Path, tmp_path: Path) -> None:
    lib = _library(tmp_path, filler="")
    found = lib.topics(3)
    assert len({t.lecture_id for t in found}) == len(found) == 2  # one per lecture
    for topic in found:
        kept = PhraseTable(lib.store).read(lib.store.lecture(topic.lecture_id))
        assert kept is not None and topic.term in kept.lecture  # one of its key phrases
    assert {t.term.split()[0].casefold() for t in found} == {"paralelização", "backpropagation"}
    lib.close()


def test_a_key_phrase_of_words_every_lecture_says_is_never_a_topic(
    home: Path, tmp_path: Path
) -> None:
    lib = _library(tmp_path)  # each lecture also says the same filler, in two languages
    found = lib.topics(3)
    assert len({t.lecture_id for t in found}) == len(found) == 2
    for topic in found:
        assert not {w.casefold() for w in topic.term.split()} & set(FILLER.split()), topic
    lib.close()


def test_without_key_phrases_a_lecture_gives_the_word_it_dwells_on(
    home: Path, tmp_path: Path
) -> None:
    lib = _library(tmp_path)
    with lib.store.transaction():  # a library kept before key phrases were found
        lib.store.connection.execute("DELETE FROM key_phrases")
    found = lib.topics(3)
    assert {t.term.casefold() for t in found} == {"paralelização", "backpropagation"}
    by_lecture = {t.lecture_id: t.term for t in found}
    assert len(by_lecture) == 2  # one per lecture, never a word every lecture says
    lib.close()


def test_an_empty_library_has_no_topics(home: Path) -> None:
    lib = Library(DataHome.resolve(), embedder=FakeEmbedder())
    assert lib.topics(3) == []
    lib.close()


def test_a_lecture_whose_summary_named_its_subjects_gives_its_first(
    home: Path, tmp_path: Path
) -> None:
    from lecturetui.core.storage.summaries import VERSION, SummaryKey, Written

    lib = _library(tmp_path, filler="")
    lecture = next(x for x in lib.lectures() if "b" in x.title.casefold())
    key = SummaryKey(lecture.id, lecture.content_hash, f"fake.gguf {VERSION}", "Portuguese")
    lib.summaries.keep(key, Written(1, 0.0, "Cálculo de gradientes", ()))
    lib.summaries.keep(key, Written(2, 1.0, "Palavra recusada", ("o rótulo do modelo",)))
    old = SummaryKey(lecture.id, lecture.content_hash, "fake.gguf", "Portuguese")
    lib.summaries.keep(old, Written(1, 0.0, "A parte explica tudo.", ()))  # written before
    found = {t.lecture_id: t.term for t in lib.topics(3)}
    assert found[lecture.id] == "Cálculo de gradientes"  # its subject, not its key phrase
    assert lib.summaries.subjects(lecture.id, lecture.content_hash) == ["Cálculo de gradientes"]
    lib.close()


def test_an_everyday_word_is_no_subject_to_suggest() -> None:
    from collections import Counter

    from lecturetui.core.study.keyphrases import common_words
    from lecturetui.core.study.topics import _phrase, _subject

    common = frozenset(common_words("pt"))
    holding: Counter[str] = Counter()
    assert _phrase(("pergunta", "tensores em GPU"), holding, 10.0, set(), common) == (
        "tensores em GPU"
    )
    assert _subject(["Exemplo", "Regra da cadeia"], set(), common) == "Regra da cadeia"
    assert _phrase(("pergunta",), holding, 10.0, set(), frozenset()) == "pergunta"  # unknown
