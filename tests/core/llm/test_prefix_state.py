"""The fixed start's state kept in the data home: read back only whole and for its own key."""

from __future__ import annotations

from pathlib import Path

from lecturetui.core.llm.prefix_state import SavedPrefix, load, save, state_path


def test_saved_state_comes_back_only_for_its_key_and_whole(tmp_path: Path) -> None:
    path = state_path(tmp_path, "model|cpu|ctx 4096")
    assert load(path, "model|cpu|ctx 4096") is None  # nothing saved yet
    saved = SavedPrefix([1, 2, 3], b"\x00kv-cache\xff" * 100)
    assert save(path, "model|cpu|ctx 4096", saved)
    assert load(path, "model|cpu|ctx 4096") == saved
    assert load(path, "model|cpu|ctx 2048") is None  # another set-up's state is never used
    assert state_path(tmp_path, "model|cpu|ctx 2048") != path
    data = path.read_bytes()
    path.write_bytes(data[:-10])  # truncated
    assert load(path, "model|cpu|ctx 4096") is None
    path.write_bytes(data[:-1] + b"\x01")  # damaged
    assert load(path, "model|cpu|ctx 4096") is None
    path.write_bytes(b"garbage")
    assert load(path, "model|cpu|ctx 4096") is None
    assert list(path.parent.glob("*.tmp")) == []  # no temporary file left behind


def test_a_data_home_that_cannot_be_written_is_not_an_error(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", "utf-8")
    assert not save(state_path(blocked, "k"), "k", SavedPrefix([1], b"x"))
