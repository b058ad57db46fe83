"""The answer model in a process of its own (core/llm/process.py), with the real 0.5B model:
the same greedy reply as in process, a stop while the prompt is read, a process killed mid-reply,
and which libraries each process imports."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.llm.process import ProcessGenerator
from lecturetui.core.llm.worker import WorkerConfig
from lecturetui.core.models.gguf import BUNDLED, FAST_LLM, assemble
from tests.conftest import MODELS_DIR, ROOT

pytestmark = pytest.mark.slow
ASK = [{"role": "system", "content": "You answer in one short sentence."},
       {"role": "user", "content": "What is a GPU used for in deep learning?"}]  # fmt: skip


@pytest.fixture(scope="module")
def model_path() -> Path:
    return assemble(BUNDLED[FAST_LLM], MODELS_DIR)


@pytest.fixture(scope="module")
def remote(
    model_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProcessGenerator]:
    log = tmp_path_factory.mktemp("log") / "lecturetui.log"
    gen = ProcessGenerator(WorkerConfig(str(model_path), n_ctx=2048), log)
    yield gen
    gen.close()


def test_the_reply_and_counts_are_those_of_the_model_in_process(
    remote: ProcessGenerator, model_path: Path
) -> None:
    from lecturetui.core.llm.generation import LlamaGenerator

    local = LlamaGenerator(model_path, n_ctx=2048)
    try:
        want = "".join(local.stream(ASK, 40))
        assert remote.count_prompt_tokens(ASK) == local.count_prompt_tokens(ASK)
        assert remote.count_tokens("multiplicação de matrizes") == local.count_tokens(
            "multiplicação de matrizes"
        )
        yes = [{"role": "user", "content": "Is Paris in France? Reply yes or no."}]
        assert remote.yes_probability(yes) == pytest.approx(local.yes_probability(yes), abs=1e-4)
    finally:
        local.close()
    assert want and "".join(remote.stream(ASK, 40)) == want  # greedy: the same reply


def test_the_model_process_imports_no_embedder_runtime(remote: ProcessGenerator) -> None:
    info = remote.report()
    assert info.pid != os.getpid()
    assert "llama_cpp" in info.imported
    assert not {"torch", "sentence_transformers", "transformers"} & set(info.imported)
    assert info.loaded_twice == ()


def test_a_stop_while_the_prompt_is_read_ends_the_reply_before_any_token(
    remote: ProcessGenerator, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lecturetui.core.llm import wire

    long = [{"role": "user", "content": "Resuma: " + "a rede neural aprende pesos. " * 250}]
    stop = threading.Event()
    send = wire.send

    def sent(fd: int, *frame: object) -> None:
        send(fd, *frame)
        if frame[0] == "stream":  # Esc as soon as the model has the prompt: it reads 1,500 tokens
            stop.set()

    monkeypatch.setattr(wire, "send", sent)
    pieces = list(remote.stream(long, 64, stop))
    assert pieces == []
    assert "".join(remote.stream(ASK, 40))  # the next reply is written (a new process if need be)


def test_a_killed_process_is_one_sentence_and_the_next_reply_starts_another(
    remote: ProcessGenerator,
) -> None:
    pid = remote.report().pid
    stream = remote.stream(ASK, 200)
    next(stream)
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(LectureTuiError) as caught:
        for _ in stream:
            pass
    assert "ended unexpectedly" in caught.value.message
    assert "".join(remote.stream(ASK, 40))
    assert remote.report().pid != pid


def test_the_process_that_embeds_never_imports_llama_cpp(model_path: Path, e5_dir: Path) -> None:
    """E5 embeds on torch in this process while the model answers from its own."""
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from lecturetui.core.models.torch_embedder import TorchEmbedder\n"
        "from lecturetui.core.llm.process import ProcessGenerator\n"
        "from lecturetui.core.llm.worker import WorkerConfig\n"
        "from lecturetui.core.models.hardware import llama_report\n"
        f"g = ProcessGenerator(WorkerConfig({str(model_path)!r}, n_ctx=512))\n"
        f"e5 = TorchEmbedder(Path({str(e5_dir)!r}), device='cpu')\n"
        "assert e5.embed_queries(['o que é uma GPU?']).shape[0] == 1\n"
        "assert ''.join(g.stream([{'role': 'user', 'content': 'Olá'}], 4))\n"
        "assert llama_report() is not None\n"
        "g.close()\n"
        "print(sorted(m for m in ('torch', 'llama_cpp') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=300, check=True)  # fmt: skip
    assert out.stdout.strip().splitlines()[-1] == "['torch']"


def test_a_model_that_cannot_load_is_one_sentence(tmp_path: Path) -> None:
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 64)
    with pytest.raises(LectureTuiError) as caught:
        ProcessGenerator(WorkerConfig(str(bad), n_ctx=512), tmp_path / "log")
    assert "broken.gguf" in caught.value.message
