"""`lecturetui summary`: a lecture's parts, each part's summary and the gist, as Markdown or
JSON, and as study notes; the answer model is a fake that answers every prompt alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lecturetui.cli import cli
from tests.conftest import SEED_CORPUS
from tests.fakes import FakeGenerator, FakeLabeller


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> list[FakeGenerator]:
    from lecturetui.core.llm import process

    made: list[FakeGenerator] = []

    class FakeModel(FakeLabeller):
        def __init__(self, path: Path, n_ctx: int = 4096, **kwargs: object) -> None:
            super().__init__("Esta parte apresenta o assunto da aula.", n_ctx)
            self.name = path.name  # as the real one is known before it loads
            self.notice = None
            made.append(self)

        def close(self) -> None:
            pass

    monkeypatch.setattr(process, "open_model", FakeModel)
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
    # each part named by the model's label, which its part says; the lecturer's words; no chapters
    assert parts and all(p["label"] for p in parts) and any(not p["refused"] for p in parts)
    assert all(p["said"] and p["made"] for p in parts)
    assert record["gist"].startswith("Assuntos: ") and "[1]" in record["gist"]
    text = notes.read_text("utf-8")
    assert text.startswith("# ") and text.count("## ") == len(parts) and "> " in text
    assert len(cards.read_text("utf-8").strip().splitlines()) >= len(parts)
    # asked again: read back, no model loaded
    fake_model.clear()
    again = runner.invoke(cli, ["summary", "aula-a"])
    assert again.exit_code == 0 and parts[0]["label"] in again.stdout
    read_back = json.loads(runner.invoke(cli, ["summary", "aula-a", "--json"]).stdout)
    assert read_back["model"] == record["model"] and record["model"]  # named, though not loaded
    assert fake_model == []
    # the parts alone need no model
    alone = runner.invoke(cli, ["summary", "aula-b", "--parts-only"])
    assert alone.exit_code == 0 and "[1]" in alone.stdout and fake_model == []


def test_a_lecture_that_does_not_exist_is_said_so(home: Path, models_env: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["ingest", str(SEED_CORPUS)]).exit_code == 0
    missing = runner.invoke(cli, ["summary", "no-such-lecture"])
    assert missing.exit_code != 0 and "Traceback" not in missing.output


def _gpu(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    """The answer model would run on a GPU (or not), without finding out."""
    from lecturetui.core.models.placement import Placement

    monkeypatch.setattr(Placement, "answer_on_gpu", property(lambda self: on))


def test_summary_all_writes_every_pending_summary_one_line_each(
    home: Path, models_env: Path, fake_model: list[FakeGenerator], monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    _gpu(monkeypatch, False)
    assert runner.invoke(cli, ["ingest", str(SEED_CORPUS)]).exit_code == 0
    assert fake_model == []  # on a CPU the ingest writes no summary
    assert runner.invoke(cli, ["summary", "aula-a"]).exit_code == 0  # one written already
    lectures = json.loads(runner.invoke(cli, ["lectures", "--json"]).stdout)["lectures"]
    done = runner.invoke(cli, ["summary", "--all"])
    assert done.exit_code == 0, done.output
    lines = [x for x in done.stdout.splitlines() if x.startswith("✓")]
    # each line names the lecture's first subject
    assert len(lines) == len(lectures) - 1 and not any(x.rstrip().endswith("…") for x in lines)
    assert not any("aula-a" in x.lower() for x in lines)  # written before: not again
    fake_model.clear()
    again = runner.invoke(cli, ["summary", "--all"])
    assert again.exit_code == 0 and "written already" in again.output and fake_model == []


@pytest.mark.parametrize("args", [["summary"], ["summary", "aula-a", "--all"],
                                  ["summary", "--all", "--json"]])  # fmt: skip
def test_summary_takes_a_lecture_or_all(home: Path, args: list[str]) -> None:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2 and "--all" in result.output and "Traceback" not in result.output


def test_ctrl_c_stops_summary_all_keeping_the_parts_written(
    home: Path, models_env: Path, fake_model: list[FakeGenerator], monkeypatch: pytest.MonkeyPatch
) -> None:
    from lecturetui.core.library import Library
    from lecturetui.core.paths import DataHome
    from lecturetui.core.summary.writing import summary_key, summary_language

    runner = CliRunner()
    _gpu(monkeypatch, False)
    assert runner.invoke(cli, ["ingest", str(SEED_CORPUS)]).exit_code == 0
    calls = 0
    real = FakeLabeller.stream

    def interrupted(self, messages, max_tokens, stop=None, temperature=None):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        if calls == 2:
            raise KeyboardInterrupt  # Ctrl+C while the second part is being written
        yield from real(self, messages, max_tokens, stop, temperature)

    monkeypatch.setattr(FakeLabeller, "stream", interrupted)
    result = runner.invoke(cli, ["summary", "--all"])
    assert result.exit_code == 130 and "kept" in result.output
    library = Library(DataHome.resolve())
    kept = [
        library.summaries.written(summary_key(x, fake_model[0].name, summary_language(x)))
        for x in library.lectures()
    ]
    # the one part written before Ctrl+C is kept (the gist is ordinal 0), nothing of the next
    assert sum(1 for k in kept for ordinal in k if ordinal) == 1
    library.close()


@pytest.mark.parametrize(("gpu", "flag", "writes"), [(True, None, True), (False, None, False),
                                                     (True, "--no-summaries", False),
                                                     (False, "--summaries", True)])  # fmt: skip
def test_ingest_writes_the_summaries_on_a_gpu_and_says_where_they_are_written_else(
    home: Path,
    models_env: Path,
    fake_model: list[FakeGenerator],
    monkeypatch: pytest.MonkeyPatch,
    gpu: bool,
    flag: str | None,
    writes: bool,
) -> None:
    _gpu(monkeypatch, gpu)
    result = CliRunner().invoke(cli, ["ingest", str(SEED_CORPUS), *([flag] if flag else [])])
    assert result.exit_code == 0, result.output
    lines = [x for x in result.stdout.splitlines() if x.startswith("✓")]
    assert bool(lines) == writes and bool(fake_model) == writes
    hinted = "summary --all" in result.output
    assert hinted == (not writes and flag is None)
    if writes:  # every lecture just added, and nothing on the next ingest: none was added
        assert len(lines) == len(json.loads(CliRunner().invoke(cli, ["lectures", "--json"])
                                            .stdout)["lectures"])  # fmt: skip
        fake_model.clear()
        again = CliRunner().invoke(cli, ["ingest", str(SEED_CORPUS), *([flag] if flag else [])])
        assert again.exit_code == 0 and fake_model == [] and "summary --all" not in again.output


def test_ask_answers_a_request_for_a_summary_or_a_course_with_its_own_record(
    home: Path, models_env: Path, fake_model: list[FakeGenerator]
) -> None:
    """`ask` routes a request for a lecture's summary or a course's overview through the front
    door: printed as the summary grows (or the overview's lines), and with --json its own record
    (`kind`), kept in the history as such."""
    runner = CliRunner()
    assert runner.invoke(cli, ["ingest", str(SEED_CORPUS)]).exit_code == 0
    summary = runner.invoke(cli, ["ask", "resuma a aula 1", "--json"], catch_exceptions=False)
    assert summary.exit_code == 0, summary.output
    record = json.loads(summary.stdout)
    assert record["schema"] == 2 and record["kind"] == "summary" and record["parts"]
    assert record["question"] == "resuma a aula 1" and "overview" not in record
    course = runner.invoke(cli, ["ask", "O que este curso cobre?"], catch_exceptions=False)
    assert course.exit_code == 0, course.output
    assert "aula por aula" in course.stdout and "[1]" in course.stdout  # its lines printed
    as_json = json.loads(runner.invoke(cli, ["ask", "O que este curso cobre?", "--json"]).stdout)
    assert as_json["kind"] == "overview" and len(as_json["lectures"]) >= 2
    assert as_json["text"].splitlines()[0] in course.stdout
