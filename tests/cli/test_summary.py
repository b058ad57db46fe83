"""`lecturetui summary`: a lecture's parts, each part's summary and the gist, as Markdown or
JSON, and as study notes; the answer model is a fake that answers every prompt alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lecturetui.cli import cli
from tests.conftest import SEED_CORPUS
from tests.fakes import FakeGenerator


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> list[FakeGenerator]:
    from lecturetui.core.answer import generation

    made: list[FakeGenerator] = []

    class FakeModel(FakeGenerator):
        def __init__(self, path: Path, n_ctx: int = 4096, **kwargs: object) -> None:
            super().__init__("Esta parte apresenta o assunto da aula.", n_ctx)
            self.name = path.name  # as the real one is known before it loads
            self.notice = None
            made.append(self)

        def stream(self, messages, max_tokens, stop=None, temperature=None):  # type: ignore[no-untyped-def]
            if "These parts:" in messages[-1]["content"]:  # the gist
                yield "A aula inteira apresenta o assunto [1]."
                return
            yield from super().stream(messages, max_tokens, stop, temperature)

        def close(self) -> None:
            pass

    monkeypatch.setattr(generation, "LlamaGenerator", FakeModel)
    return made


def test_a_summary_prints_its_parts_and_is_kept(
    home: Path, tmp_path: Path, models_env: Path, fake_model: list[FakeGenerator]
) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["ingest", str(SEED_CORPUS)]).exit_code == 0
    notes, cards = tmp_path / "notes.md", tmp_path / "cards.csv"
    result = runner.invoke(cli, ["summary", "aula-a", "--json", "--md", str(notes),
                                 "--csv", str(cards)])  # fmt: skip
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["lecture"] == "aula-a" and record["language"] == "Portuguese"
    parts = record["parts"]
    assert parts and all(p["summary"] == "Esta parte apresenta o assunto da aula." for p in parts)
    assert all(p["said"] and p["made"] for p in parts)  # the lecturer's words; no chapters
    assert record["gist"]
    text = notes.read_text("utf-8")
    assert text.startswith("# ") and text.count("## ") == len(parts) and "> " in text
    assert len(cards.read_text("utf-8").strip().splitlines()) >= len(parts)
    # asked again: read back, no model loaded
    fake_model.clear()
    again = runner.invoke(cli, ["summary", "aula-a"])
    assert again.exit_code == 0 and "Esta parte apresenta o assunto da aula." in again.stdout
    assert fake_model == []
    # the parts alone need no model
    alone = runner.invoke(cli, ["summary", "aula-b", "--parts-only"])
    assert alone.exit_code == 0 and "[1]" in alone.stdout and fake_model == []


def test_a_lecture_that_does_not_exist_is_said_so(home: Path, models_env: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["ingest", str(SEED_CORPUS)]).exit_code == 0
    missing = runner.invoke(cli, ["summary", "no-such-lecture"])
    assert missing.exit_code != 0 and "Traceback" not in missing.output
