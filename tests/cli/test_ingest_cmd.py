"""`ingest` checks what it is given before any work: a missing or unreadable path, or options
that do not go together, are said at once, and no model is prepared for them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from lecturetui.cli import cli


@pytest.fixture
def unprepared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A models folder where nothing is prepared yet; preparing anything fails the test."""
    models = tmp_path / "fresh-models"
    monkeypatch.setenv("LECTURETUI_MODELS", str(models))

    def prepare(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the models were being prepared")

    monkeypatch.setattr("lecturetui.cli.prepare.prepare", prepare)  # the one the CLI calls
    return models


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_the_fixture_sees_a_preparation(unprepared: Path, fixtures: Path) -> None:
    """Without the check, an ingest in a new data home would prepare the models first."""
    with pytest.raises(AssertionError, match="being prepared"):
        invoke("ingest", str(fixtures / "lecture.vtt"))


def test_a_missing_path_is_said_on_stderr_before_any_model(
    unprepared: Path, tmp_path: Path, fixtures: Path
) -> None:
    result = invoke("ingest", str(fixtures / "lecture.vtt"), str(tmp_path / "nao-existe.vtt"))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert f"{tmp_path / 'nao-existe.vtt'} does not exist." in result.stderr
    assert "hint:" in result.stderr
    assert not unprepared.exists()


def test_every_missing_path_is_named_in_one_sentence(unprepared: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "aula-1.vtt", tmp_path / "aulas"
    result = invoke("ingest", str(a), str(b))
    assert result.exit_code == 1
    assert f"{a}, {b} do not exist." in result.stderr


def test_an_unreadable_path_is_said_before_any_model(
    unprepared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = tmp_path / "locked.vtt"
    locked.write_text("WEBVTT\n")
    access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: Path(p) != locked and access(p, mode))
    result = invoke("ingest", str(locked))
    assert result.exit_code == 1 and result.stdout == ""
    assert f"{locked} cannot be read (permission denied)." in result.stderr
    assert not unprepared.exists()


def test_watch_on_a_file_is_refused_before_any_model(unprepared: Path, fixtures: Path) -> None:
    result = invoke("ingest", str(fixtures / "lecture.vtt"), "--watch")
    assert result.exit_code == 2 and "--watch takes one folder" in result.stderr


def test_the_settings_reach_the_grouped_options(
    unprepared: Path, home: Path, fixtures: Path
) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.toml").write_text("[ingest]\nwindow = 30\n")
    result = invoke("ingest", str(fixtures / "lecture.vtt"))  # the default overlap is 35
    assert result.exit_code == 2 and "overlap must be" in result.stderr
    assert invoke("ingest", str(fixtures / "lecture.vtt"), "--overlap", "40").exit_code == 2


def test_eval_of_a_missing_question_file_prepares_nothing(unprepared: Path, tmp_path: Path) -> None:
    result = invoke("eval", str(tmp_path / "missing.jsonl"), "--retrieval-only")
    assert result.exit_code == 1 and "cannot be read" in result.stderr
    assert not unprepared.exists()


def test_the_models_setting_is_kept_absolute(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lecturetui.core.paths import DataHome

    monkeypatch.delenv("LECTURETUI_MODELS")
    monkeypatch.chdir(tmp_path)
    assert invoke("config", "set", "models", "shared-models").exit_code == 0
    text = (home / "settings.toml").read_text()
    assert f'models = "{tmp_path / "shared-models"}"' in text
    assert DataHome.resolve().models_dir == (tmp_path / "shared-models").resolve()
