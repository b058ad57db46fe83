"""The chapters of lectures stored before chapters were kept: looked for once, in one pass, each
lecture's info file beside its source; what was stored already stays."""

from __future__ import annotations

import json
from pathlib import Path

from lecturetui.core.lectures import Chapter
from lecturetui.core.paths import DataHome
from lecturetui.core.storage.store import Store
from lecturetui.core.study.outline import read_missing
from tests.conftest import old_library

INFO = {"title": "Aula 1", "chapters": [{"start_time": 0, "title": "Abertura"},
                                        {"start_time": 95, "title": "Gradiente"}]}  # fmt: skip


def _old_library(tmp_path: Path) -> Path:
    """A library of schema 10 (chapters kept, but never looked for when stored): one lecture
    whose info file has chapters, one with no info file, one with chapters already stored."""
    src = tmp_path / "downloads"
    src.mkdir()
    for name in ("aula1", "aula2", "aula3"):
        (src / f"{name}.pt.vtt").write_text("WEBVTT\n", "utf-8")
    (src / "aula1.info.json").write_text(json.dumps(INFO), "utf-8")
    path = DataHome.resolve().db_path
    db = old_library(path, 10)
    for lid in ("aula1", "aula2", "aula3"):
        db.execute(
            "INSERT INTO lectures (id, title, language, source_path, source_key, source_format,"
            " duration, content_hash, segment_config, added_at, updated_at)"
            " VALUES (?, ?, 'pt', ?, ?, 'vtt', 600.0, ?, '{}', 'now', 'now')",
            (lid, lid, str(src / f"{lid}.pt.vtt"), lid, "h" + lid),
        )
    db.execute("INSERT INTO chapters VALUES ('aula3', 0, 0.0, 'Já guardado', 'author')")
    db.close()
    return path


def test_older_lectures_get_their_chapters_once(tmp_path: Path) -> None:
    path = _old_library(tmp_path)
    with Store(path) as store:
        assert store.chapters_unread() == ["aula1", "aula2", "aula3"]
        # stopped before the first lecture: nothing read, nothing marked
        assert read_missing(store, cancel=lambda: True) == 0
        assert store.chapters_unread() == ["aula1", "aula2", "aula3"]
        steps: list[tuple[int, int]] = []
        assert read_missing(store, lambda done, total: steps.append((done, total))) == 1
        assert steps == [(1, 3), (2, 3), (3, 3)]
        assert store.chapters("aula1") == [Chapter(0.0, "Abertura"), Chapter(95.0, "Gradiente")]
        assert store.chapters("aula2") == []
        assert [c.title for c in store.chapters("aula3")] == ["Já guardado"]
        assert store.chapters_unread() == []
    # once: a later info file is not looked for by the pass (outline looks again for its lecture)
    (tmp_path / "downloads" / "aula2.info.json").write_text(json.dumps(INFO), "utf-8")
    with Store(path) as store:
        assert read_missing(store) == 0 and store.chapters("aula2") == []


def test_a_lecture_stored_with_its_chapters_is_not_looked_for_again(tmp_path: Path) -> None:
    path = _old_library(tmp_path)
    with Store(path) as store:
        store.save_chapters("aula2", [])  # what ingest does for a lecture with none
        store.save_chapters("aula1", [Chapter(0.0, "Outro")])
        assert store.chapters_unread() == ["aula3"]
        assert read_missing(store) == 0
        assert [c.title for c in store.chapters("aula1")] == ["Outro"]
