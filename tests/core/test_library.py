"""The library facade: ingest embeds as it stores, the index follows the store, search."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.ingest.pipeline import IngestOptions
from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from lecturetui.core.retrieval.small_units import split_units
from lecturetui.core.retrieval.vector_index import SearchIndexError, VectorIndex
from tests.conftest import HIT_FIELDS, SEED_CORPUS
from tests.fakes import FakeEmbedder


@pytest.fixture
def library(home: Path) -> Library:
    lib = Library(DataHome.resolve(), embedder=FakeEmbedder())
    yield lib  # type: ignore[misc]
    lib.close()


def test_ingest_embeds_and_search_finds(library: Library) -> None:
    report = library.ingest([SEED_CORPUS])
    assert report.count("added") == 1
    index = library.index()
    assert index is not None and index.labels() == set(library.store.all_segment_ids())
    result = library.search("tensor Flow prioriza GPU", k=5)
    assert len(result.hits) == 5
    assert result.hits[0].score >= result.hits[-1].score
    assert {"embed_ms", "ann_ms", "store_ms", "total_ms"} <= set(result.timings_ms)
    hit = result.hits[0].to_json()
    assert set(hit) >= HIT_FIELDS


def test_unchanged_files_are_not_embedded_again(library: Library) -> None:
    library.ingest([SEED_CORPUS])
    fake = library.embedder
    assert isinstance(fake, FakeEmbedder)
    n = len(fake.embedded)
    segments = library.store.segments_by_id(library.store.all_segment_ids()).values()
    assert n == 26 + sum(len(split_units(s.text)) for s in segments)  # windows, then their units
    library.ingest([SEED_CORPUS])
    assert len(fake.embedded) == n


def test_replacing_a_lecture_replaces_its_vectors(
    library: Library, fixtures: Path, tmp_path: Path
) -> None:
    src = tmp_path / "aula.vtt"
    shutil.copy(fixtures / "lecture.vtt", src)
    library.ingest([src])
    before = library.index().labels()  # type: ignore[union-attr]
    src.write_text(
        src.read_text(encoding="utf-8").replace("CUDA_VISIBLE_DEVICES", "zeppelin"),
        encoding="utf-8",
    )
    library.ingest([src])
    after = library.index().labels()  # type: ignore[union-attr]
    assert after == set(library.store.all_segment_ids())
    assert not (before & after)
    assert "zeppelin" in library.search("zeppelin", k=1).hits[0].segment.text
    # and the saved index agrees after a reload
    again = Library(library.home, embedder=FakeEmbedder())
    assert again.index().labels() == after  # type: ignore[union-attr]


def test_index_catches_up_after_a_crash_between_store_and_index(
    library: Library, fixtures: Path
) -> None:
    library.ingest([SEED_CORPUS])
    # as if killed after the store committed but before the index was saved
    from lecturetui.core.ingest.pipeline import ingest_paths

    ingest_paths(
        library.store, [fixtures / "whisper.json"], IngestOptions(), library.token_counter()
    )
    fresh = Library(library.home, embedder=FakeEmbedder())
    result = fresh.search("taxa de aprendizado controla o passo", k=1)
    assert result.hits[0].lecture.id == "whisper"
    assert fresh.index().count == library.store.counts()[1]  # type: ignore[union-attr]


def test_interrupted_embedding_stores_nothing(
    library: Library, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library.ingest([fixtures / "lecture.vtt"])
    counts = library.store.counts()

    def interrupted(texts, progress=None):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    monkeypatch.setattr(library.embedder, "embed_passages", interrupted)
    with pytest.raises(KeyboardInterrupt):
        library.ingest([SEED_CORPUS])
    assert library.store.counts() == counts
    monkeypatch.undo()
    fresh = Library(library.home, embedder=FakeEmbedder())
    assert fresh.index().labels() == set(fresh.store.all_segment_ids())  # type: ignore[union-attr]


def test_other_model_is_refused_then_reindex_fixes_it(library: Library) -> None:
    library.ingest([SEED_CORPUS])
    other = Library(library.home, embedder=FakeEmbedder(dim=48, model_id="other-e5"))
    with pytest.raises(SearchIndexError) as info:
        other.search("gpu")
    assert "built with fake-e5" in info.value.message and "reindex" in (info.value.hint or "")
    assert other.reindex() == 26
    assert other.search("gpu", k=3).hits
    manifest = VectorIndex.read_manifest(library.home.index_dir)
    assert manifest is not None and (manifest.model_id, manifest.dim) == ("other-e5", 48)


def test_empty_library_and_empty_question(library: Library) -> None:
    with pytest.raises(LectureTuiError, match="library is empty"):
        library.search("gpu")
    library.ingest([SEED_CORPUS])
    with pytest.raises(LectureTuiError, match="question is empty"):
        library.search("   ")


def test_deep_links_at_the_segment_start(library: Library, fixtures: Path) -> None:
    library.ingest([fixtures / "lecture.vtt"], IngestOptions(url="https://youtu.be/abc123"))
    hit = library.search("TensorFlow GPU", k=1).hits[0]
    assert hit.url == f"https://youtu.be/abc123?t={int(hit.segment.start)}"


def test_missing_default_model_is_prepared_or_named(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LECTURETUI_MODELS", str(tmp_path / "no-models"))
    lib = Library(DataHome.resolve(), embed_model="someone/unknown-e5")
    with pytest.raises(LectureTuiError, match="not in") as info:
        _ = lib.embedder
    assert "models pull someone/unknown-e5" in (info.value.hint or "")


def test_search_modes_rank_differently_and_report_their_retrievers(library: Library) -> None:
    library.ingest([SEED_CORPUS])
    question = "variável de ambiente para escolher a GPU"
    dense = library.search(question, k=10, mode="dense")
    lexical = library.search(question, k=10, mode="lexical")
    hybrid = library.search(question, k=10)
    assert hybrid.mode == "hybrid"
    assert all(set(h.retrievers) == {"dense"} for h in dense.hits)
    assert all(set(h.retrievers) == {"lexical"} for h in lexical.hits)
    assert any(set(h.retrievers) == {"dense", "lexical"} for h in hybrid.hits)
    # the score shown is the one that ranked the hit: each retriever's own in its mode, the
    # fused one in hybrid; never rising with rank
    for result, own in ((dense, "dense"), (lexical, "lexical")):
        assert all(h.score == pytest.approx(h.retrievers[own]) for h in result.hits)  # type: ignore[call-overload]
    for result in (dense, lexical, hybrid):
        scores = [h.score for h in result.hits]
        assert scores == sorted(scores, reverse=True)
    assert lexical.hits[0].segment.corpus_id == 7024  # BM25 on the words "variável de ambiente"
    with pytest.raises(LectureTuiError, match="search mode"):
        library.search(question, mode="fuzzy")


def test_the_question_language_is_compared_with_the_library_languages(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lecturetui.core import library as library_module

    library.ingest([SEED_CORPUS])  # Portuguese lectures
    assert library.asked("O TensorFlow prioriza a GPU ou a CPU?").same_language
    english = library.asked("Does TensorFlow prefer the GPU over the CPU?")
    assert not english.same_language and english.language_name == "English"
    # translated into the library's language, it is searched as the library's
    assert replace(english, translation="O TensorFlow prefere a GPU?").same_language
    # the lectures' language and the interface's are the likeliest for a short question
    assert library.asked("GPU ou CPU?").same_language  # French and Portuguese score even
    # told once, whatever asks for it
    told: list[str] = []
    tell = library_module.tell
    monkeypatch.setattr(
        library_module, "tell", lambda text, likely: told.append(text) or tell(text, likely)
    )
    asked = library.asked("Qual é a diferença entre GPU e CPU?")
    assert not told  # not before it is wanted
    assert asked.same_language and asked.language == "pt" and asked.language_name == "Portuguese"
    assert told == ["Qual é a diferença entre GPU e CPU?"]
