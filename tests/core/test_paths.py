"""The data home and the models folder: one models folder per user, shared by every data home."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lecturetui.core.paths import DataHome


@pytest.fixture
def user_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The platform's data folder, moved into the test's folder; LECTURETUI_MODELS unset."""
    folder = tmp_path / "user-data" / "lecturetui"
    monkeypatch.setattr("lecturetui.core.paths.default_home", lambda: folder)
    monkeypatch.delenv("LECTURETUI_MODELS", raising=False)
    return folder


def test_every_data_home_shares_the_users_models_folder(tmp_path: Path, user_folder: Path) -> None:
    course_a = DataHome.resolve(tmp_path / "course-a")
    course_b = DataHome.resolve(tmp_path / "course-b")
    assert course_a.models_dir == course_b.models_dir == (user_folder / "models").resolve()
    assert course_a.index_dir != course_b.index_dir
    assert DataHome.resolve(None).models_dir == course_a.models_dir  # the default home's own
    assert not (tmp_path / "course-a").exists() and not user_folder.exists()  # nothing created


def test_a_data_home_that_holds_its_models_keeps_them(tmp_path: Path, user_folder: Path) -> None:
    """A data home from before the models were shared: its 6 GB are not prepared again."""
    old = tmp_path / "old-home"
    (old / "models").mkdir(parents=True)
    assert DataHome.resolve(old).models_dir == (old / "models").resolve()
    assert DataHome.resolve(tmp_path / "new-home").models_dir == (user_folder / "models").resolve()


def test_the_environment_then_the_settings_name_another_folder(
    tmp_path: Path, user_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "models").mkdir()  # the setting wins over the home's own folder
    (home / "settings.toml").write_text('models = "elsewhere"\n\n[ask]\nmode = "dense"\n')
    assert DataHome.resolve(home).models_dir == (home / "elsewhere").resolve()
    (home / "settings.toml").write_text(f'models = "{tmp_path / "mine"}"\n')
    assert DataHome.resolve(home).models_dir == (tmp_path / "mine").resolve()
    monkeypatch.setenv("LECTURETUI_MODELS", str(tmp_path / "from-env"))
    assert DataHome.resolve(home).models_dir == (tmp_path / "from-env").resolve()


def test_the_data_home_names_its_files(tmp_path: Path) -> None:
    home = DataHome.resolve(tmp_path)
    files = [home.settings_file, home.log_file, home.db_path, home.sentences_db, home.units_dir,
             home.rerank_dir]  # fmt: skip
    assert all(f.is_relative_to(home.root) for f in files)
    assert len(set(files)) == len(files)
    assert home.db_path.parent == home.sentences_db.parent == home.index_dir


#: where the product keeps the answer model's state (before tests/conftest.py moves it)
MODEL_STATE = DataHome.model_state


def test_the_answer_model_s_speed_and_prompt_state_are_kept_where_every_home_finds_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the product's own rule, not the tests' (tests/conftest.py)
    monkeypatch.setattr(DataHome, "model_state", MODEL_STATE)
    models = tmp_path / "models"
    models.mkdir()
    monkeypatch.setenv("LECTURETUI_MODELS", str(models))
    one, two = DataHome.resolve(tmp_path / "one"), DataHome.resolve(tmp_path / "two")
    assert one.speed_file == two.speed_file == models.resolve() / "llm_speed.json"
    assert one.prefix_dir == two.prefix_dir == models.resolve() / "llm_prefix"
    models.chmod(0o555)  # a models folder that cannot be written (a class's shared install)
    try:
        if not os.access(models, os.W_OK):  # (root writes anywhere)
            assert one.speed_file.parent == one.root and one.prefix_dir.parent == one.root
    finally:
        models.chmod(0o755)
