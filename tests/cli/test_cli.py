from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lecturetui.cli import cli
from tests.conftest import HIT_FIELDS, SEED_CORPUS


def run(*args: str) -> tuple[int, str]:
    """Exit code and what a terminal would show (stdout and stderr)."""
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def run_json(*args: str) -> Any:
    """A command's --json output: an object whose "schema" is 1, the payload's keys beside it."""
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert isinstance(data, dict) and data.pop("schema") == 2
    return data


def test_ingest_list_show_seed_corpus(home: Path) -> None:
    code, out = run("ingest", str(SEED_CORPUS), "--course", "Sistemas distribuídos")
    assert code == 0, out
    assert "added" in out and "8 lectures, 26 segments" in out
    code, out = run("ingest", str(SEED_CORPUS))
    assert code == 0 and "unchanged" in out
    lectures = run_json("lectures", "--json")["lectures"]
    assert isinstance(lectures, list)
    assert len(lectures) == 8 and sum(x["segments"] for x in lectures) == 26
    assert {x["course"] for x in lectures} == {"Sistemas distribuídos"}
    shown = run_json("show", "aula-f", "--json")
    assert isinstance(shown, dict)
    assert shown["title"] == "Aula F" and len(shown["segments"]) == 5
    code, out = run("show", "aula-f")
    assert code == 0 and "00:05:17–00:07:31" in out and "#7016" in out
    assert (home / "index" / "library.sqlite3").exists()


def test_show_unknown_and_ambiguous(home: Path) -> None:
    run("ingest", str(SEED_CORPUS))
    code, out = run("show", "nope")
    assert code == 1 and "No lecture matches 'nope'" in out
    code, out = run("show", "aula")
    assert code == 1 and "matches 8 lectures" in out


def test_empty_library_says_what_to_do(home: Path) -> None:
    code, out = run("lectures")
    assert code == 0 and "is empty" in out and "lecturetui ingest" in out


def test_bad_inputs_each_get_one_line_and_the_batch_goes_on(home: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "a_empty.srt").write_text("")
    (bad / "b_timestamp.vtt").write_text("WEBVTT\n\n00:00:01.000 --> 00:0x:04.000\noi\n")
    (bad / "c_backwards.srt").write_text("1\n00:00:09,000 --> 00:00:02,000\noi\n")
    (bad / "d_binary.srt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 20)
    (bad / "e_untimed.txt").write_text("only words here\nand no times at all\n")
    with (bad / "f_huge.vtt").open("wb") as f:  # sparse: 200 MB without using the disk
        f.truncate(200 * 1024 * 1024)
    (bad / "g_good.vtt").write_text("WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nolá, turma\n")
    (tmp_path / "slides.md").write_text("# Aula 1\n\n- GPUs\n")
    code, out = run("ingest", str(bad), str(tmp_path / "slides.md"))
    assert code == 1
    lines = [ln for ln in out.splitlines() if ln.startswith("failed")]
    assert len(lines) == 6
    expect = {
        "a_empty.srt": "is empty",
        "b_timestamp.vtt": "line 3: has a malformed timestamp '00:0x:04.000', and nothing else",
        "d_binary.srt": "is not a text transcript (binary data)",
        "e_untimed.txt": "has no timestamped lines (expected lines like '[00:01:02] text')",
        "slides.md": "is not in a format lecturetui knows",
        "f_huge.vtt": "is too large (210 MB; the limit is 50 MB)",
    }
    for name, message in expect.items():
        [line] = [ln for ln in lines if name in ln]
        assert message in line
    assert "added" in out and "g_good.vtt" in out
    # a cue ending before it starts is repaired, and the output says so
    assert "c_backwards.srt" in out and "note: 1 backwards cue time repaired (line 2)" in out
    assert "Traceback" not in out
    listed = run_json("lectures", "--json")["lectures"]
    assert isinstance(listed, list)
    assert {x["id"]: x["notes"] for x in listed} == {
        "c_backwards": ["1 backwards cue time repaired (line 2)"],
        "g_good": [],
    }
    code, out = run("lectures")
    assert code == 0 and "notes" in out and "backwards" in out  # wrapped at 80 columns
    # --strict refuses what needs a repair, as lecturetui always did
    (bad / "h_backwards.srt").write_text("1\n00:00:19,000 --> 00:00:12,000\ntchau\n")
    code, out = run("ingest", "--strict", str(bad / "h_backwards.srt"))
    assert code == 1 and "line 2: has a cue that ends before it starts" in out
    assert len(run_json("lectures", "--json")["lectures"]) == 2  # type: ignore[arg-type]


def test_missing_path(home: Path, tmp_path: Path) -> None:
    code, out = run("ingest", str(tmp_path / "nao-existe.vtt"))
    assert code == 1 and "does not exist" in out


def test_bad_segment_settings(home: Path, fixtures: Path) -> None:
    code, out = run("ingest", str(fixtures / "lecture.vtt"), "--window", "30", "--overlap", "40")
    assert code == 2 and "overlap must be" in out


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["ingest", "--help"]])
def test_entry_points(args: list[str]) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "lecturetui", *args], capture_output=True, text=True, check=True
    )
    assert "lecturetui" in out.stdout or "Usage" in out.stdout


def test_home_option_wins_over_environment(tmp_path: Path, fixtures: Path) -> None:
    other = tmp_path / "other-home"
    code, _ = run("--home", str(other), "ingest", str(fixtures / "whisper.json"))
    assert code == 0
    assert (other / "index" / "library.sqlite3").exists()


@pytest.mark.slow
def test_search_with_the_real_model(home: Path) -> None:
    """Seed question 43 over the seed corpus, offline, with the converted multilingual-e5-small."""
    code, out = run("ingest", str(SEED_CORPUS))
    assert code == 0, out
    question = "O TensorFlow prioriza a execução de operações em qual dispositivo?"
    hits = run_json("search", question, "--json", "--mode", "dense")["hits"]
    assert isinstance(hits, list)
    assert len(hits) == 10
    assert set(hits[0]) >= HIT_FIELDS
    assert all(set(h["retrievers"]) == {"dense"} for h in hits)
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert 0.8 < min(scores) <= max(scores) < 0.95  # E5's cosine range, like the seeds' 0.86-0.89
    for h in hits:  # the unit that matched, by its offsets in the segment's text
        match = h["match"]
        assert h["text"][match["start"] : match["end"]] == match["text"] != ""
        assert match["score"] > 0.7
    assert any("priorizar GPU" in h["text"] for h in hits[:3])
    code, out = run("search", question, "-k", "3")
    assert code == 0 and "Aula" in out and "–" in out
    code, out = run("reindex")
    assert code == 0 and "Indexed 26 segments" in out
    again = run_json("search", question, "--json", "--mode", "dense")["hits"]
    assert [h["corpus_id"] for h in again] == [h["corpus_id"] for h in hits]  # type: ignore[attr-defined]


def test_search_json_scores_never_rise_with_rank_in_any_mode(home: Path) -> None:
    run("ingest", str(SEED_CORPUS))
    for mode in ("hybrid", "dense", "lexical"):
        hits = run_json("search", "GPU tensor cores", "--json", "--mode", mode)["hits"]
        scores = [h["score"] for h in hits]
        assert scores and scores == sorted(scores, reverse=True), (mode, scores)


@pytest.mark.slow
def test_search_reranked_by_embeddinggemma(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real EmbeddingGemma, offline: vectors written after ingest, then every mode but
    lexical re-ranked by it, its cosine the score shown."""
    monkeypatch.setenv("LECTURETUI_RERANK", "on")
    code, out = run("ingest", str(SEED_CORPUS))
    assert code == 0 and "Re-ranking vectors of 26 segments" in out, out
    question = "O TensorFlow prioriza a execução de operações em qual dispositivo?"
    for mode in ("hybrid", "dense", "lexical"):
        hits = run_json("search", question, "--json", "--mode", mode)["hits"]
        scores = [h["score"] for h in hits]
        assert scores and scores == sorted(scores, reverse=True), (mode, scores)
        if mode != "lexical":
            assert all(h["score"] == pytest.approx(h["retrievers"]["rerank"]) for h in hits)
            assert any("priorizar GPU" in h["text"] for h in hits[:2]), mode
    code, out = run("doctor", "--no-load")
    assert "EmbeddingGemma-300M" in out and "Gemma Terms of Use" in out


def test_search_on_an_empty_library(home: Path) -> None:
    code, out = run("search", "gpu")
    assert code == 1 and "library is empty" in out and "lecturetui ingest" in out


def test_models_pull_offline_is_one_sentence(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    code, out = run("models", "pull", "intfloat/multilingual-e5-base")
    assert code == 1
    assert "Cannot reach the Hugging Face hub to download 'intfloat/multilingual-e5-base'" in out
    assert "Traceback" not in out


def test_unknown_embed_model(home: Path) -> None:
    run("ingest", str(SEED_CORPUS))
    code, out = run("--embed-model", "someone/unknown", "search", "gpu")
    assert code == 1 and "is not in" in out and "models pull someone/unknown" in out


DEV_QUESTIONS = Path(__file__).parents[2] / "bench" / "data" / "retrieval_dev.jsonl"


@pytest.mark.slow
def test_eval_retrieval_only_compares_the_modes(home: Path, tmp_path: Path) -> None:
    assert run("ingest", str(SEED_CORPUS))[0] == 0
    questions = tmp_path / "dev.jsonl"
    questions.write_text(
        "".join(DEV_QUESTIONS.read_text(encoding="utf-8").splitlines(keepends=True)[:6]),
        encoding="utf-8",
    )
    report, js = tmp_path / "r.md", tmp_path / "r.json"
    code, out = run(
        "eval", str(questions), "--retrieval-only", "--report", str(report), "--json-out", str(js)
    )
    assert code == 0, out
    assert "old spelling" not in out
    data = json.loads(js.read_text(encoding="utf-8"))
    assert set(data["means"]) == {"hybrid", "dense", "lexical"}
    for mode, means in data["means"].items():
        rows = data["rows"][mode]
        assert len(rows) == 6
        assert means["mrr"] == pytest.approx(sum(r["metrics"]["mrr"] for r in rows) / 6)
        assert 0 <= means["recall@1"] <= means["recall@5"] <= means["recall@10"] <= 1
        line = f"| {mode} | {means['recall@1']:.3f} | {means['recall@5']:.3f}"
        assert line in out and line in report.read_text(encoding="utf-8")


def test_eval_errors_are_one_sentence(home: Path, tmp_path: Path) -> None:
    assert run("ingest", str(SEED_CORPUS))[0] == 0
    code, out = run("eval", str(tmp_path / "missing.jsonl"), "--retrieval-only")
    assert code == 1 and "cannot be read" in out and "Traceback" not in out
    nogold = tmp_path / "nogold.jsonl"
    nogold.write_text('{"question": "o que é um tensor?"}\n', encoding="utf-8")
    code, out = run("eval", str(nogold), "--retrieval-only")
    assert code == 1 and "no question" in out.lower() and "gold evidence or a reference" in out


@pytest.mark.slow
def test_eval_writes_the_report_then_rewrites_it_with_labels_without_loading_a_model(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lecturetui.core.evaluation.saved_runs import Runs
    from lecturetui.core.llm import process
    from lecturetui.core.paths import DataHome
    from lecturetui.core.storage.store import Store
    from tests.fakes import FakeGenerator, FakeJudgeModel

    class FakeModel(FakeGenerator, FakeJudgeModel):  # answers and judges, as one GGUF does
        def __init__(
            self,
            path: Path,
            n_ctx: int = 4096,
            seed: int | None = None,
            placement: object = None,
            temperature: float = 0.0,
            **_: object,  # where its process writes (log), a process started for it
        ) -> None:
            assert temperature == 0.0  # eval answers greedy unless asked otherwise
            FakeJudgeModel.__init__(self)
            FakeGenerator.__init__(self, "Ele prioriza a placa [1].", n_ctx)
            self.notice = None
            loaded.append(seed)

        def close(self) -> None:
            pass

    loaded: list[int | None] = []
    monkeypatch.setattr(process, "open_model", FakeModel)
    assert run("ingest", str(SEED_CORPUS))[0] == 0
    gguf = tmp_path / "answers.gguf"
    gguf.write_bytes(b"GGUF" + bytes(28))
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        '{"number": 43, "question": "O TensorFlow prioriza a execução em qual dispositivo?",'
        ' "corpus_ids": [6844, 6845]}\n',
        encoding="utf-8",
    )
    report = tmp_path / "r.md"
    args = ("eval", str(questions), "--llm", str(gguf), "--report", str(report), "--seed", "3")
    code, out = run(*args)
    assert code == 0 and "Evaluated 1 question" in out, out
    assert loaded == [3]  # the answers' seed reaches the model
    text = report.read_text(encoding="utf-8")
    assert "**Pergunta 43**" in text and "**Anotação manual**: pendente" in text
    with Store(DataHome.resolve().db_path) as store:
        runs = Runs(store)
        [info] = runs.list()
        runs.annotate(info.id, 43, "C")
    code, out = run(*args)
    assert code == 0 and "1 question already evaluated" in out, out
    assert loaded == [3]  # nothing left to evaluate: no model is loaded
    text = report.read_text(encoding="utf-8")
    assert "**Anotação manual**: C" in text and "(1/1 anotadas)" in text


def test_h_is_help_and_errors_go_to_stderr_with_exit_codes(home: Path) -> None:
    from click.testing import CliRunner

    from lecturetui.cli import cli

    assert run("-h")[0] == 0 and "Usage:" in run("-h")[1]
    assert run("search", "-h")[0] == 0
    result = CliRunner().invoke(cli, ["show", "nope"])
    assert result.exit_code == 1  # a runtime error
    assert "No lecture matches 'nope'" in result.stderr and not result.stdout
    usage = CliRunner().invoke(cli, ["export", "--md", "x.md"])
    assert usage.exit_code == 2 and "Say what to export" in usage.stderr  # a usage error


def test_edit_and_remove_a_lecture_without_embedding_again(home: Path) -> None:
    assert run("ingest", str(SEED_CORPUS), "--course", "Sistemas")[0] == 0
    index = home / "index"
    vectors = sorted(index.glob("vectors-*.hnsw"))
    before = [p.stat().st_mtime_ns for p in vectors]
    code, out = run("edit", "aula-f", "--title", "Aula F: GPUs", "--url", "https://v.example/f")
    assert code == 0 and "Aula F: GPUs" in out, out
    shown = run_json("show", "aula-f", "--json")
    assert shown["title"] == "Aula F: GPUs" and shown["course"] == "Sistemas"  # kept
    assert shown["source_url"] == "https://v.example/f"
    assert run("edit", "aula-f", "--course", "")[0] == 0
    assert run_json("show", "aula-f", "--json")["course"] is None
    assert [p.stat().st_mtime_ns for p in sorted(index.glob("vectors-*.hnsw"))] == before
    assert run("edit", "aula-f")[0] == 2  # nothing to change: a usage error
    asked = CliRunner().invoke(cli, ["remove", "aula-f"], input="n\n")  # it asks first
    assert asked.exit_code == 0 and "Remove 1 lecture?" in asked.output
    assert "Nothing removed." in asked.output
    code, out = run("remove", "aula-f", "aula-g", "--yes")
    assert code == 0 and "Removed 2 lectures" in out, out
    lectures = run_json("lectures", "--json")["lectures"]
    assert len(lectures) == 6 and not {"aula-f", "aula-g"} & {x["id"] for x in lectures}
    hits = run_json("search", "CUDA_VISIBLE_DEVICES", "--json", "-k", "26")["hits"]
    assert all(h["lecture"] not in ("aula-f", "aula-g") for h in hits)
    code, out = run("remove", "nope", "--yes")
    assert code == 1 and "No lecture matches 'nope'" in out


def test_renamed_options_keep_their_old_spelling_for_a_release(home: Path, fixtures: Path) -> None:
    code, out = run("ingest", str(fixtures / "lecture.vtt"), "--max-tokens", "300")
    assert code == 0 and "`--max-tokens` is now `--segment-tokens`" in out, out
    assert run("ingest", "--help")[1].count("--segment-tokens") == 1
    assert "--max-tokens" not in run("ingest", "--help")[1]
    help_text = run("eval", "--help")[1]
    assert "--json-out" in help_text and "--report-lang" in help_text
    assert "--json " not in help_text and "--lang " not in help_text


def test_a_settings_file_gives_defaults_and_the_command_line_wins(home: Path) -> None:
    assert run("ingest", str(SEED_CORPUS))[0] == 0
    (home / "settings.toml").write_text(
        '[search]\nk = 3\nmode = "lexical"\ncolour = "blue"\n[serach]\nk = 1\n', encoding="utf-8"
    )
    code, out = run("search", "CUDA_VISIBLE_DEVICES", "--json")
    assert code == 0, out
    assert "`search` has no option `colour`" in out and "no command `serach`" in out
    data = json.loads(CliRunner().invoke(cli, ["search", "GPU", "--json"]).stdout)
    assert data["mode"] == "lexical" and len(data["hits"]) == 3
    data = json.loads(CliRunner().invoke(cli, ["search", "GPU", "--json", "-k", "5"]).stdout)
    assert len(data["hits"]) == 5  # the command line wins
    (home / "settings.toml").write_text("[search\nk = 3\n", encoding="utf-8")
    code, out = run("search", "GPU")
    assert code == 1 and "is not valid TOML" in out and "Traceback" not in out


def test_config_sets_checks_and_unsets_keeping_the_students_comments(home: Path) -> None:
    code, out = run("config")
    assert code == 0 and "No settings yet" in out
    (home / "settings.toml").parent.mkdir(parents=True, exist_ok=True)
    (home / "settings.toml").write_text("# my laptop\n[search]\nk = 3  # short lists\n")
    assert run("config", "set", "ask.mode", "dense")[0] == 0
    assert run("config", "set", "ask.llm-url", "http://127.0.0.1:8080/v1")[0] == 0
    assert run("config", "set", "search.k", "7")[0] == 0
    text = (home / "settings.toml").read_text()
    assert "# my laptop" in text and "# short lists" in text
    assert 'mode = "dense"' in text and 'llm_url = "http://127.0.0.1:8080/v1"' in text
    assert "k = 7" in text
    code, out = run("config")
    assert code == 0 and "[ask]" in out and "k = 7" in out
    for bad, said in (
        (("ask.mode", "fast"), "is not a value of --mode"),
        (("ask.colour", "blue"), "`ask` has no option --colour"),
        (("nothing", "1"), "is not COMMAND.OPTION"),
        (("search.k", "many"), "is not a value of --k"),
        (("ask.course", "x"), "cannot be a setting"),
    ):
        code, out = run("config", "set", *bad)
        assert code == 2 and said in out, out
    assert run("config", "set", "device", "cpu")[0] == 0  # the program's own option
    text = (home / "settings.toml").read_text()
    assert text.index('device = "cpu"') < text.index("[")  # above the tables
    assert run("config", "set", "device", "gpu")[0] == 2
    assert run("config", "unset", "ask.mode")[0] == 0
    assert "mode" not in (home / "settings.toml").read_text()
    assert "[ask]" in (home / "settings.toml").read_text()  # llm_url is still there


@pytest.mark.parametrize(("quick", "code"), [(True, 0), (False, 0), (True, 3)])
def test_a_command_that_asks_ends_at_once_on_success_only(
    monkeypatch: pytest.MonkeyPatch, quick: bool, code: int
) -> None:
    """`main` skips the interpreter's teardown for a command that asked for it (`search`, `ask`)
    once it succeeded; a failure, or any other command, leaves the usual way."""
    import lecturetui.cli as entry
    from lecturetui.cli import output

    ended: list[int] = []
    monkeypatch.setattr(output, "_QUICK", [])

    def command(**_kwargs: object) -> None:
        if quick:
            output.end_quickly()
        raise SystemExit(code)

    monkeypatch.setattr(entry.cli, "main", command)
    monkeypatch.setattr(entry.os, "_exit", ended.append)
    with pytest.raises(SystemExit) as left:  # (the real os._exit would not return)
        entry.main()
    assert left.value.code == code
    assert ended == ([0] if quick and code == 0 else [])


def test_search_and_ask_ask_to_end_at_once() -> None:
    """The two commands a student waits on from process start ask for the quick end."""
    import ast

    src = Path(__file__).parents[2] / "src" / "lecturetui" / "cli"
    asking = {
        node.name
        for path in src.glob("*.py")
        for node in ast.walk(ast.parse(path.read_text("utf-8")))
        if isinstance(node, ast.FunctionDef)
        and any(
            isinstance(call, ast.Call) and getattr(call.func, "id", "") == "end_quickly"
            for call in ast.walk(node)
        )
    }
    assert asking == {"search_cmd", "ask_cmd"}
