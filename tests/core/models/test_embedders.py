"""The one list of embedders (core/models/embedders.py) drives setup, the ONNX exports, doctor and
the packs: a fake third embedder, with a role of its own, is picked up where they read it."""

from __future__ import annotations

import dataclasses
import json
import sys
import types
from pathlib import Path

import pytest

from lecturetui.core.models import embedders
from lecturetui.core.models.embedders import (
    E5,
    EMBEDDERS,
    FIRST_STAGE,
    GEMMA,
    ROLE_LABELS,
    EmbedderSpec,
    ModelStatus,
    first_stage,
    reranker,
)

FAKE_MODULE = "lecturetui_test_fake_embedder"


def _fake(tmp_path: Path, *, bundled: bool, ready: bool = True) -> tuple[EmbedderSpec, list[str]]:
    """A third embedder with its own role, and its module (installed in sys.modules by the
    caller): it records what was asked of it and loads nothing."""
    calls: list[str] = []
    module = types.ModuleType(FAKE_MODULE)

    def install(models_dir: Path, *, progress=None, force: bool = False) -> Path:  # type: ignore[no-untyped-def]
        calls.append("install")
        if progress:
            progress("fetch", 1, 1)
        return models_dir / "fake-embedder"

    def status(models_dir: Path) -> ModelStatus:
        calls.append("status")
        return ModelStatus(models_dir / "fake-embedder", ready, "" if ready else "not here")

    module.install = install  # type: ignore[attr-defined]
    module.status = status  # type: ignore[attr-defined]
    sys.modules[FAKE_MODULE] = module
    spec = dataclasses.replace(
        GEMMA,
        name="Fake",
        short="Fk",
        role="summaries",
        folder="fake-embedder",
        hub_id="example/fake-embedder",
        files=FAKE_MODULE,
        bundled=bundled,
        setup_step="fake",
        setup_what="fake ({step})",
        pack_role=None,
        pack_vectors=(),
    )
    return spec, calls


@pytest.fixture
def clean_modules() -> object:
    yield
    sys.modules.pop(FAKE_MODULE, None)


def test_every_embedder_has_a_role_and_exactly_one_is_the_first_stage() -> None:
    assert EMBEDDERS[0] is first_stage() is E5 and reranker() is GEMMA
    roles = [e.role for e in EMBEDDERS]
    assert all(r in ROLE_LABELS for r in roles)
    assert roles.count(FIRST_STAGE) == 1 and len(set(roles)) == len(roles)
    assert len({e.folder for e in EMBEDDERS}) == len(EMBEDDERS)
    assert len({e.setup_step for e in EMBEDDERS}) == len(EMBEDDERS)
    for e in EMBEDDERS:
        assert e.name and e.short and e.hub_id and e.setup_name and e.max_tokens > 0
        assert callable(e.module().install) and callable(e.module().status)


def test_the_packs_file_format_is_the_lists() -> None:
    """The roles and members a pack's manifest names come from the list, and are those of
    format version 1."""
    from lecturetui.core.pack import format as fmt

    assert (fmt.FIRST_STAGE_ROLE, fmt.RERANK_ROLE) == ("e5", "rerank")
    assert {"e5", "rerank"} == fmt.PACK_ROLES
    assert (fmt.WINDOWS, fmt.UNITS, fmt.RERANK) == (
        "vectors/windows.npy",
        "vectors/units.npy",
        "vectors/rerank.npy",
    )
    assert fmt.MEMBERS[-3:] == (fmt.WINDOWS, fmt.UNITS, fmt.RERANK)


def test_the_setup_steps_and_names_follow_the_list(tmp_path: Path, clean_modules: object) -> None:
    from lecturetui.core.models import setup

    assert [role for role, _step in setup.STEPS] == [
        "embedding",
        "answers",
        "re-ranking",
        "speech",
        "fast embeddings",
        "sentence ends",
    ]
    assert setup.MODEL_NAMES["embedding"] == "embedding model"
    assert setup.MODEL_NAMES["re-ranking"] == "re-ranking model"
    fake, calls = _fake(tmp_path, bundled=False)
    steps = setup.steps((*EMBEDDERS, fake))
    assert [role for role, _step in steps][:4] == ["embedding", "answers", "re-ranking", "fake"]
    seen: list[tuple[str, int, int]] = []
    path = dict(steps)["fake"](tmp_path, lambda what, done, total: seen.append((what, done, total)))
    assert path == tmp_path / "fake-embedder" and calls == ["install"]
    assert seen == [("fake (fetch)", 1, 1)]


def test_the_onnx_exports_take_every_embedder_that_is_there(
    tmp_path: Path, clean_modules: object
) -> None:
    from lecturetui.core.models.setup import exported_models

    fake, calls = _fake(tmp_path, bundled=False)
    assert exported_models(tmp_path, [fake]) == [tmp_path / "fake-embedder"]
    assert calls == ["status"]  # installed by its own step, never here
    missing, _calls = _fake(tmp_path, bundled=False, ready=False)
    assert exported_models(tmp_path, [missing]) == []
    bundled, calls = _fake(tmp_path, bundled=True)
    assert exported_models(tmp_path, [bundled]) == [tmp_path / "fake-embedder"]
    assert calls == ["install"]  # made wherever it is wanted
    assert exported_models(tmp_path, [dataclasses.replace(bundled, exported=False)]) == []


def test_doctor_names_every_embedder_in_its_row(
    tmp_path: Path, clean_modules: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lecturetui.core.models.doctor import embedder_rows
    from lecturetui.core.models.placement import Placement

    monkeypatch.delenv("LECTURETUI_RUNTIME", raising=False)
    placement = Placement(device="cpu", runtime="onnxruntime")
    assert [r.model for r in embedder_rows(placement)] == ["E5, EmbeddingGemma"]
    fake, _calls = _fake(tmp_path, bundled=False)
    rows = embedder_rows(placement, (*EMBEDDERS, fake))
    assert [r.model for r in rows] == ["E5, EmbeddingGemma, Fake"]
    assert rows[0].runs == "CPU, ONNX Runtime"


def test_doctors_labels_are_the_roles() -> None:
    from lecturetui.cli.doctor_cmd import labels

    assert labels()[4:6] == ("embeddings", "re-ranking")
    assert [ROLE_LABELS[e.role] for e in EMBEDDERS] == ["embeddings", "re-ranking"]


def test_models_list_notes_a_downloaded_embedder(
    tmp_path: Path, clean_modules: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from lecturetui.cli import cli

    fake, _calls = _fake(tmp_path, bundled=False, ready=False)
    monkeypatch.setattr(embedders, "EMBEDDERS", (*EMBEDDERS, fake))
    monkeypatch.setattr(embedders, "ROLE_LABELS", {**ROLE_LABELS, "summaries": "summaries"})
    models = tmp_path / "models"
    (models / "fake-embedder").mkdir(parents=True)
    (models / "fake-embedder" / "w.bin").write_bytes(b"0" * 10)
    monkeypatch.setenv("LECTURETUI_MODELS", str(models))
    result = CliRunner().invoke(cli, ["models", "list"])
    assert result.exit_code == 0, result.output
    assert "fake-embedder" in result.output
    assert "summaries; Gemma Terms of Use; not here" in " ".join(result.output.split())


def test_the_specs_say_what_the_model_folders_say(e5_dir: Path) -> None:
    """Prefixes and token limits as each model's own folder gives them (read, not loaded; the
    models not installed here are not read)."""
    checked = []
    for spec in EMBEDDERS:
        folder = e5_dir.parent / spec.folder
        if not (folder / "config_sentence_transformers.json").is_file():
            continue
        checked.append(spec.name)
        prompts = json.loads((folder / "config_sentence_transformers.json").read_text())["prompts"]
        assert prompts["query"] == spec.query_prefix
        assert prompts.get("passage", prompts.get("document")) == spec.passage_prefix
        bert = json.loads((folder / "sentence_bert_config.json").read_text())
        tokens = json.loads((folder / "tokenizer_config.json").read_text())
        limit = bert.get("max_seq_length") or tokens.get("model_max_length")
        assert int(limit) == spec.max_tokens
    assert "E5" in checked
