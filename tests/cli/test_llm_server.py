"""Answers from a local OpenAI-compatible server: llama-cpp-python's own server (a real HTTP
server, started here on the 0.5B model), driven through `ask --llm-url`."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from lecturetui.cli import cli
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.llm.server import ServerGenerator, check_local
from lecturetui.core.models.gguf import BUNDLED, FAST_LLM, assemble
from tests.conftest import MODELS_DIR, SEED_CORPUS


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    pytest.importorskip(
        "llama_cpp.server", reason="the dev set-up installs llama-cpp-python[server]"
    )
    model = assemble(BUNDLED[FAST_LLM], MODELS_DIR)
    port = _free_port()
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias",
           "qwen-small", "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096",
           "--n_threads", "2"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(url + "/models", timeout=2) as resp:
                    json.load(resp)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("llama_cpp.server did not start")
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.slow
def test_ask_answers_through_the_server_with_citations(
    server: str, models_env: Path, home: Path
) -> None:
    runner = CliRunner()
    done = runner.invoke(cli, ["ingest", str(SEED_CORPUS)], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    question = "O TensorFlow prioriza a execução de operações em qual dispositivo?"
    result = runner.invoke(
        cli,
        ["ask", question, "--llm-url", server, "--max-tokens", "40", "--json", "--guess", "off"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["answer"].strip()
    assert record["citations"], record  # cited, by the model or by similarity
    assert record["timings"]["time_to_first_token_ms"] > 0
    # the prompt speed was measured against the server's first (only) model, and kept
    speeds = json.loads((home / "llm_speed.json").read_text())
    assert [k for k in speeds if k.startswith("server ")] == [f"server {server} qwen-small"]
    assert "qwen-small reads" in result.stderr and "prompt tokens/s here" in result.stderr
    assert "no token probabilities" in result.stderr  # what is done without them is said


@pytest.mark.slow
def test_the_stream_stops_when_asked_and_counts_follow_the_server(server: str) -> None:
    gen = ServerGenerator(server, n_ctx=4096)
    n, seconds = gen.prefill([{"role": "system", "content": "You answer briefly."},
                              {"role": "user", "content": "Name three colours."}])  # fmt: skip
    assert n > 10 and seconds > 0
    assert 1.0 <= gen.chars_per_token < 6  # learnt from the server's own count
    stop = threading.Event()
    pieces = []
    for piece in gen.stream([{"role": "user", "content": "Count from 1 to 200."}], 300, stop):
        pieces.append(piece)
        if len(pieces) == 5:
            stop.set()
    assert 5 <= len(pieces) <= 6


def test_a_server_on_another_machine_is_refused_unless_allowed() -> None:
    with pytest.raises(LectureTuiError, match="is not this machine"):
        check_local("http://10.20.30.40:8080/v1")
    assert (
        check_local("http://10.20.30.40:8080/v1/", allow_remote=True)
        == "http://10.20.30.40:8080/v1"
    )
    assert check_local("http://localhost:8080/v1") == "http://localhost:8080/v1"
    assert check_local("http://[::1]:8080/v1") == "http://[::1]:8080/v1"
    with pytest.raises(LectureTuiError, match="not an http"):
        check_local("127.0.0.1:8080")


def test_cli_says_in_one_sentence_when_the_server_is_not_there(home: Path) -> None:
    runner = CliRunner()
    url = f"http://127.0.0.1:{_free_port()}/v1"  # nothing listens there
    result = runner.invoke(cli, ["ask", "anything", "--llm-url", url], catch_exceptions=False)
    assert result.exit_code == 1
    assert f"The answer server at {url} is not reachable" in result.stderr
    assert "Traceback" not in result.output
    result = runner.invoke(cli, ["ask", "x", "--llm-url", "http://10.20.30.40/v1"])
    assert result.exit_code == 1 and "is not this machine" in result.stderr
    result = runner.invoke(cli, ["ask", "x", "--llm-model", "m"])
    assert result.exit_code == 2 and "give its --llm-url too" in result.stderr
