"""pack export and pack import from the command line, with the real E5: the imported library
answers searches with the same hits and scores; a second import changes nothing; a bad pack is
one sentence on stderr, exit 1, in English or Portuguese."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from lecturetui.cli import cli
from tests.conftest import SEED_CORPUS


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def search(home: Path, question: str) -> list[tuple[str, float, float]]:
    code, out, err = run("--home", str(home), "search", question, "--json", "-k", "6")
    assert code == 0, err
    return [(h["lecture"], h["start_s"], h["score"]) for h in json.loads(out)["hits"]]


def test_a_pack_made_by_one_is_searched_the_same_by_another(home: Path, tmp_path: Path) -> None:
    assert run("ingest", str(SEED_CORPUS), "--course", "Sistemas")[0] == 0
    pack = tmp_path / "sistemas.ltpack"
    code, out, err = run("pack", "export", str(pack), "--course", "Sistemas")
    assert code == 0, err
    assert "8 lectures, 26 segments" in out
    student = tmp_path / "student"
    code, out, err = run("--home", str(student), "pack", "import", str(pack))
    assert code == 0, err
    assert "8 added" in out and "library: 8 lectures, 26 segments" in out
    for question in ("O TensorFlow prioriza a execução em qual dispositivo?", "memória da GPU"):
        assert search(student, question) == search(home, question)
    code, out, _err = run("--home", str(student), "pack", "import", str(pack), "--json")
    data = json.loads(out)
    assert code == 0 and data["schema"] == 2 and data["segments"] == 0
    assert {lec["status"] for lec in data["lectures"]} == {"unchanged"}


def test_a_bad_pack_is_one_sentence_and_exit_1(home: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.ltpack"
    bad.write_bytes(b"PK\x03\x04 not really")
    code, out, err = run("pack", "import", str(bad))
    assert code == 1 and out == ""
    err = err.strip()  # the progress bar's line, empty off a terminal
    assert err.startswith("error: ") and "Traceback" not in err
    assert len(err.strip().splitlines()) == 2  # the sentence and its hint
    code, _out, err = run("--language", "pt", "pack", "import", str(bad))
    assert code == 1 and "não é um pacote legível" in err
    code, _out, err = run("pack", "import", str(tmp_path / "missing.ltpack"))
    assert code == 1 and "does not exist" in err
    assert not (home / "index").exists() or not list((home / "index").glob("*.hnsw"))
