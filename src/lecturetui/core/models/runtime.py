"""An embedder loaded on the runtime its placement chose (core/models/placement.py): OpenVINO (or
ONNX Runtime) on a CPU, PyTorch on CUDA and MPS.

On a machine with no accelerator torch can use, the embedders (core/models/embedders.py) run
through their ONNX export (core/models/onnx_export.py, made once at `models setup` or on first
use) on OpenVINO, else ONNX Runtime: the same ranking, several times faster (bench/RESULTS.md,
"Embeddings on a CPU without PyTorch"). PyTorch runs them where there is a GPU (CUDA, MPS: `auto` moves the work
there), and wherever the export cannot be made or loaded, with one line saying why.
`$LECTURETUI_RUNTIME` chooses: `auto` (the default), `torch` (PyTorch always), `openvino` or
`onnxruntime` (that one, even beside a GPU).
"""

from __future__ import annotations

import json
from pathlib import Path

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.models import onnx_embedder, ov_tokenizer
from lecturetui.core.models.embedding import Embedder, quiet_env, weights_hash
from lecturetui.core.models.onnx_export import EXPORT_VERSION, export_dir, usable, verify
from lecturetui.core.models.ov_cache import pass_turn
from lecturetui.core.models.placement import Placement, graph_runtime
from lecturetui.core.progress import Notify

#: beside an export that failed, so that it is not tried again for the same weights
FAILED = "failed.json"


def _marker(folder: Path) -> Path:
    return folder.parent / f"{folder.name}.{FAILED}"


def _failed(folder: Path, source: str) -> str:
    try:
        data = json.loads(_marker(folder).read_text("utf-8"))
    except (OSError, ValueError):
        return ""
    ok = data.get("source") == source and data.get("version") == EXPORT_VERSION
    return str(data.get("reason", "")) if ok else ""


def ensure_export(path: Path, models_dir: Path, notify: Notify | None = None) -> Path:
    """The model's checked export, made now when there is none for its weights. Raises
    RuntimeError (with the reason) when it cannot be made; a failure is remembered for the
    same weights, so it is tried once."""
    folder = export_dir(models_dir, path)
    source = weights_hash(path)
    if usable(folder, source):
        return folder
    reason = _failed(folder, source)
    if reason:
        raise RuntimeError(reason)
    if notify:
        notify(_("Exporting {model} to ONNX, once (about a minute)…").format(model=path.name))
    try:
        from lecturetui.core.models.torch_export import export  # lazy: torch takes seconds to load

        export(path, folder, source, notify)
    except Exception as exc:  # any failure leaves PyTorch in charge
        reason = str(exc) or type(exc).__name__
        marker = _marker(folder)
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text(
                json.dumps({"source": source, "version": EXPORT_VERSION, "reason": reason[:300]}),
                "utf-8",
            )
        except OSError:
            pass
        raise RuntimeError(reason) from None
    return folder


def prepare_export(path: Path, models_dir: Path, notify: Notify | None = None) -> Path:
    """`models setup`: the model's export made (or found) and its file checked against its
    sha256; an export that fails is said in one sentence (the model then runs on PyTorch)."""
    try:
        made = ensure_export(path, models_dir, notify)
    except RuntimeError as exc:
        raise LectureTuiError(
            _("{model} could not be exported to ONNX ({exc}).").format(model=path.name, exc=exc),
            hint=_("it runs on PyTorch instead: slower on a CPU, the same results"),
        ) from None
    if not verify(made):
        raise LectureTuiError(
            _("The ONNX export of {model} is damaged (its checksum differs).").format(
                model=path.name
            ),
            hint=_("delete {folder} and run `lecturetui models setup` again").format(folder=made),
        )
    return made


def compile_ahead(path: Path, export_folder: Path, notify: Notify | None = None) -> None:
    """`models setup`: the export compiled for OpenVINO now and kept (core/models/ov_cache.py),
    so that the first command that embeds imports it instead of compiling it, and its tokenizer
    converted for OpenVINO (core/models/ov_tokenizer.py), so that no command parses it."""
    if graph_runtime() != "openvino":
        return
    embedder = onnx_embedder.OnnxEmbedder(path, export_folder, runtime="openvino", notify=notify)
    if ov_tokenizer.convert(path, export_folder, embedder.max_tokens):
        return
    if notify:
        notify(_("{model}'s tokenizer stays as it is (read in seconds)").format(model=path.name))


def load_embedder(
    path: Path,
    models_dir: Path,
    *,
    model_id: str | None = None,
    placement: Placement | None = None,
    batch_size: int = 32,
    accelerator_dtype: str = "float16",
    notify: Notify | None = None,
) -> Embedder:
    """The embedder for a model folder where `placement` (by default: as `auto` places it) puts
    it: from its ONNX export, else on PyTorch."""
    where = placement or Placement()
    if where.embedders.onnx:
        try:
            folder = ensure_export(path, models_dir, notify)
            graph = graph_runtime(where.embedders.runtime)
            return onnx_embedder.OnnxEmbedder(path, folder, model_id, graph, notify)
        except ImportError as exc:
            reason = (
                _("{package} is not installed").format(package=exc.name)
                if exc.name
                else _("its runtime is not installed")
            )
        except (RuntimeError, LectureTuiError) as exc:
            reason = str(exc)
        if notify:
            notify(
                _("{model} runs on PyTorch: its ONNX export is unavailable ({reason}).").format(
                    model=path.name, reason=reason
                )
            )
    pass_turn()  # nothing compiled here: another thread's compilation need not wait for it
    quiet_env()  # before huggingface_hub is imported (by torch_embedder)
    from lecturetui.core.models.torch_embedder import TorchEmbedder  # lazy: torch: seconds to load

    return TorchEmbedder(
        path,
        model_id=model_id,
        device=where.torch_device,
        batch_size=batch_size,
        accelerator_dtype=accelerator_dtype,
    )
