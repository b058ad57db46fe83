"""Lexical analysis and BM25 search over the store's FTS5 table."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from lecturetui.core.ingest.pipeline import ingest_paths
from lecturetui.core.lexical import fold, index_terms, match_expression, query_terms, stems
from lecturetui.core.storage import schema as schema_mod
from lecturetui.core.storage.store import Store
from tests.conftest import SEED_CORPUS


def test_fold_and_stems_meet_across_accents_and_inflection() -> None:
    assert fold("Paralelização ÇÃO") == "paralelizacao cao"
    assert stems("tensores", "pt") == stems("Tensor", "pt") == ["tensor"]
    # a word whose stem depends on its accents is indexed under both stems
    assert set(stems("paralelizacao", "pt")) <= set(index_terms("paralelização", "pt").split())
    assert set(stems("paralelização", "pt")) <= set(index_terms("paralelização", "pt").split())
    assert index_terms("tensores de dados", "pt") == "tensor de dad"
    assert stems("Networks", "en") == stems("network", "en")
    # no stemmer for the language: words are only folded
    assert stems("Überlegung", "xx") == ["uberlegung"]


def test_query_terms_union_the_library_languages_without_repeats() -> None:
    terms = query_terms("running tensores tensores", ["pt", "en"])
    assert "run" in terms and "tensor" in terms
    assert len(terms) == len(set(terms))
    assert query_terms("", ["pt"]) == []


def test_match_expression_quotes_terms() -> None:
    assert match_expression(['a"b', "or"]) == '"a""b" OR "or"'


def test_lexical_search_ranks_by_bm25_and_ignores_accents(tmp_path: Path) -> None:
    with Store(tmp_path / "lib.sqlite3") as store:
        ingest_paths(store, [SEED_CORPUS])
        plain = store.lexical_search("variavel de ambiente que restringe as gpus visiveis", 5)
        accented = store.lexical_search("variável de ambiente que restringe as GPUs visíveis", 5)
        assert plain == accented
        scores = [s for _, s in plain]
        assert scores == sorted(scores, reverse=True) and scores[0] > 0
        top = store.segments_by_id([plain[0][0]])[plain[0][0]]
        assert top.corpus_id == 7024  # the only segment about CUDA visible devices
        assert store.lexical_search("?!", 5) == []


def test_old_library_gains_the_lexical_table_on_open(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    for version in (1, 2):
        db.executescript(schema_mod.MIGRATIONS[version])
    db.execute("PRAGMA user_version = 2")
    db.execute(
        "INSERT INTO lectures (id, title, language, source_key, source_format, duration,"
        " content_hash, segment_config, added_at, updated_at)"
        " VALUES ('l1', 'L', 'pt', 'k', 'text', 10, 'h', '{}', 'now', 'now')"
    )
    db.execute(
        'INSERT INTO segments (lecture_id, ordinal, start, "end", text)'
        " VALUES ('l1', 0, 0, 10, 'As máquinas aprendem com descida do gradiente')"
    )
    db.close()
    with Store(path) as store:
        assert store.schema_version == schema_mod.SCHEMA_VERSION
        assert [i for i, _ in store.lexical_search("maquina gradientes")] == [1]


def test_common_terms_are_left_out_of_large_libraries_without_losing_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lecturetui.core.lectures import Segment
    from lecturetui.core.storage import store as store_mod
    from lecturetui.core.storage.store import LectureRow

    texts = ["aula sobre a descida do gradiente"] + [
        f"aula sobre {w}" for w in ("tensores", "matrizes", "vetores", "gpus", "cpus")
    ]
    with Store(tmp_path / "lib.sqlite3") as store:
        record = LectureRow("l1", "L", None, "pt", "/x", "l1", None, "jsonl", 60.0, "h", None, "{}")  # fmt: skip
        ids = store.save_lecture(
            record, [Segment(i * 10.0, i * 10.0 + 10, t) for i, t in enumerate(texts)]
        ).added_segment_ids

        def search(question: str) -> list[tuple[int, float]]:
            return store.lexical_search(question, 10)

        full = {q: search(q) for q in ("aula gradiente", "aula xyzzy")}
        assert len(full["aula gradiente"]) == 6 and full["aula gradiente"][0][0] == ids[0]
        monkeypatch.setattr(store_mod, "PRUNE_COMMON_TERMS_FROM", 4)
        pruned = search("aula gradiente")
        # "aula" is in every segment: BM25 gave it no weight, so only the ranking's head is left
        assert [i for i, _ in pruned] == [ids[0]]
        assert pruned[0][1] == pytest.approx(full["aula gradiente"][0][1], rel=1e-3)
        # no remaining term occurs in the library: every term is kept
        assert search("aula xyzzy") == full["aula xyzzy"] and len(full["aula xyzzy"]) == 6
