"""The sentence-end model (core/models/sentence_ends.py) built once from E5's own weights.

The package ships only the model's LoRA deltas and head; `models setup` merges the deltas into
the first LAYERS layers of the multilingual-e5-small folder in `models/` and exports that
encoder to ONNX (token states from the words' input embeddings, so the export does not copy
E5's 250,000-piece vocabulary: the pieces' embeddings are read from E5's own weights file), in
`models/onnx/multilingual-e5-small/sentence-ends/`, made whole or not at all (written beside it,
checked against PyTorch, then renamed), with a record naming the weights it was built from.

torch and transformers are imported at the top of this module, and this module only where a
build runs (core/models/setup.py).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from transformers import BertModel

from lecturetui.core.hashing import file_sha256
from lecturetui.core.models import sentence_ends as sm
from lecturetui.core.models.onnx_export import swap_in, work_folder
from lecturetui.core.models.torch_embedder import quiet_hf
from lecturetui.core.models.torch_export import to_onnx

#: the export's states may differ this much from PyTorch's
TOLERANCE = 1e-3


def _merged(e5: Path) -> Any:
    """E5's first LAYERS layers with the shipped deltas merged in, as a module from input
    embeddings (and their mask) to the token states."""
    quiet_hf()
    deltas, _head = sm.read_weights(sm.shipped())
    model = BertModel.from_pretrained(str(e5), add_pooling_layer=False, local_files_only=True)
    model.encoder.layer = model.encoder.layer[: sm.LAYERS]
    model.config.num_hidden_layers = sm.LAYERS
    model.eval()
    with torch.no_grad():
        for k, layer in enumerate(model.encoder.layer):
            for path in sm.ADAPTED:
                linear = layer.get_submodule(path)
                delta = deltas[f"{k}.{path}.b"] @ deltas[f"{k}.{path}.a"]
                linear.weight += torch.from_numpy(delta * (2.0 / sm.RANK))

    class Encoder(torch.nn.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, inputs_embeds: Any, attention_mask: Any) -> Any:
            out = self.model(inputs_embeds=inputs_embeds, attention_mask=attention_mask)
            return out.last_hidden_state

    return Encoder().eval()


def build(e5: Path, e5_export: Path) -> Path:
    """Export the model beside E5's export; returns its folder. Raises RuntimeError when the
    export or its check fails (nothing is left behind)."""
    folder = sm.export_dir(e5_export)
    t0 = time.perf_counter()
    module = _merged(e5)
    table = sm.Embeddings(e5)
    ids = [[sm.BOS, 1000, 2000, 3000, sm.EOS], [sm.BOS, 4000, 5000, 6000, 7000, 8000, sm.EOS]]
    embeds, mask = table.batch(ids)
    work = work_folder(folder)
    try:
        tokens = {0: "batch", 1: "tokens"}
        inputs = (torch.from_numpy(embeds), torch.from_numpy(mask))
        to_onnx(
            module,
            inputs,
            work / sm.MODEL_FILE,
            {"inputs_embeds": tokens, "attention_mask": tokens},
            {"states": tokens},
        )
        with torch.no_grad():
            expected = module(*inputs).numpy()
        got = sm.onnxruntime_run(work / sm.MODEL_FILE)(embeds, mask)
        gap = float(np.max(np.abs((got - expected) * mask[..., None])))
        if not gap <= TOLERANCE:
            raise RuntimeError(f"its states differ from PyTorch's by {gap:.2g}")
        record = {
            "weights": sm.WEIGHTS_SHA256,
            "sha256": file_sha256(work / sm.MODEL_FILE),
            "layers": sm.LAYERS,
            "seconds": round(time.perf_counter() - t0, 1),
            "gap": gap,
        }
        (work / sm.RECORD).write_text(json.dumps(record, indent=1), "utf-8")
        swap_in(work, folder)
        return folder
    finally:
        shutil.rmtree(work, ignore_errors=True)
