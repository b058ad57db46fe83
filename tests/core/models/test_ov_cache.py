"""OpenVINO's compiled embedders kept on disk: used when whole and current, else compiled again
with one line saying why."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest

from lecturetui.core.models import ov_cache
from lecturetui.core.models.ov_cache import RECORD, CacheRecord, check
from lecturetui.core.models.precision import BF16, F32, Precision, current
from lecturetui.core.models.runtime import ensure_export
from tests.conftest import MODELS_DIR

CONFIG = {"PERFORMANCE_HINT": "LATENCY"}


def _cache(folder: Path, blobs: dict[str, int], sha: str = "e1", version: str = "ov1") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, size in blobs.items():
        (folder / name).write_bytes(b"x" * size)
    record = CacheRecord(sha, version, CONFIG, blobs)
    (folder / RECORD).write_text(
        json.dumps({"export_sha256": sha, "openvino": version, "config": CONFIG,
                    "blobs": record.blobs}), "utf-8",
    )  # fmt: skip


def test_a_whole_current_cache_is_used_and_every_other_is_not(tmp_path: Path) -> None:
    folder = tmp_path / "openvino"
    assert check(folder, "e1", "ov1", CONFIG) == "missing"
    _cache(folder, {"1.blob": 10})
    assert check(folder, "e1", "ov1", CONFIG) == ""
    assert check(folder, "e2", "ov1", CONFIG) == "stale"  # another export of the model
    assert check(folder, "e1", "ov2", CONFIG) == "stale"  # another OpenVINO
    assert check(folder, "e1", "ov1", {"PERFORMANCE_HINT": "THROUGHPUT"}) == "stale"
    (folder / "1.blob").write_bytes(b"x" * 4)  # truncated
    assert check(folder, "e1", "ov1", CONFIG) == "damaged"
    (folder / "1.blob").unlink()
    assert check(folder, "e1", "ov1", CONFIG) == "damaged"  # the blob is gone
    (folder / RECORD).unlink()
    (folder / "2.blob").write_bytes(b"x")  # a write interrupted before its record
    assert check(folder, "e1", "ov1", CONFIG) == "damaged"
    (folder / RECORD).write_text("{not json", "utf-8")
    assert check(folder, "e1", "ov1", CONFIG) == "damaged"


def _vector(compiled: object) -> np.ndarray:
    ids = np.array([[0, 581, 6, 3293, 2]], dtype=np.int64)
    result = compiled.create_infer_request().infer(  # type: ignore[attr-defined]
        {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    )
    return np.asarray(next(iter(result.values())), dtype=np.float32)


@pytest.mark.slow
def test_a_damaged_or_stale_compiled_model_is_compiled_again_with_one_line(
    e5_dir: Path, tmp_path: Path
) -> None:
    pytest.importorskip("openvino")
    export = ensure_export(e5_dir, MODELS_DIR)
    model = export / "model.onnx"
    folder = tmp_path / "openvino"
    said: list[str] = []

    def compiled(sha: str = "export-1") -> object:
        return ov_cache.compile_cached(model, sha, CONFIG, "E5", said.append, folder)

    first = _vector(compiled())
    assert said == ["Compiling E5 for this CPU, once…"]
    version = ov_cache.read_record(folder)
    kept = {**CONFIG, "INFERENCE_PRECISION_HINT": current().hint}  # the precision is recorded
    assert version is not None and version.blobs and check(folder, "export-1", version.openvino,
                                                            kept) == ""  # fmt: skip
    said.clear()
    again = _vector(compiled())  # from the cache: nothing said, the same model
    assert said == [] and np.allclose(first, again)

    blob = folder / next(iter(version.blobs))
    blob.chmod(0o644)
    blob.write_bytes(blob.read_bytes()[: blob.stat().st_size // 2])  # an interrupted copy
    repaired = _vector(compiled())
    assert said == ["The compiled copy of E5 is damaged: compiling it again, once…"]
    assert np.allclose(first, repaired) and check(folder, "export-1", version.openvino, kept) == ""

    said.clear()
    _vector(compiled("export-2"))  # a new export of the model: the old blob is not reused
    assert said == [
        "The compiled copy of E5 is from another export or OpenVINO version: compiling it again,"
        " once…"
    ]
    record = ov_cache.read_record(folder)
    assert record is not None and record.export_sha256 == "export-2"
    assert len(list(folder.glob("*.blob"))) == len(record.blobs)  # the stale blob was removed


@pytest.mark.slow
def test_two_compilations_at_once_leave_the_text_encoding_alone(e5_dir: Path) -> None:
    # OpenVINO sets the C locale while it reads a model: two threads at once (EmbeddingGemma
    # loading beside E5) could leave the process there, with ASCII as its default encoding
    import locale

    from lecturetui.core.models.onnx_export import read_record as read_export

    pytest.importorskip("openvino")
    export = ensure_export(e5_dir, MODELS_DIR)
    record = read_export(export)
    assert record is not None
    before = locale.getpreferredencoding(False)
    threads = [
        threading.Thread(
            target=ov_cache.compile_cached,
            args=(export / "model.onnx", record.sha256, CONFIG, "E5"),
        )
        for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert locale.getpreferredencoding(False) == before


@pytest.fixture
def compiled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the models compiled, in order, by a stand-in for OpenVINO (each with a
    whole, current cache), a compilation waiting for its turn up to a minute."""
    import types

    names: list[str] = []

    class Core:
        def compile_model(self, model_file: str, device: str, config: dict[str, str]) -> str:
            names.append(Path(model_file).stem)
            return model_file

    fake = types.SimpleNamespace(Core=Core, get_version=lambda: "ov1")
    monkeypatch.setattr(ov_cache, "openvino", lambda: fake)
    monkeypatch.setattr(ov_cache, "check", lambda *args: "")
    monkeypatch.setattr(ov_cache, "FIRST_WAIT_S", 60.0)
    return names


def test_a_thread_going_first_compiles_before_another_that_asks_meanwhile(
    tmp_path: Path, compiled: list[str]
) -> None:
    # EmbeddingGemma's load goes first; E5's compilation, asked for meanwhile, waits for it
    first, go = threading.Event(), threading.Event()

    def gemma() -> None:
        with ov_cache.going_first():
            first.set()
            go.wait(60)
            ov_cache.compile_cached(tmp_path / "gemma.onnx", "sha", CONFIG, "EmbeddingGemma")

    def e5() -> None:
        first.wait(60)
        ov_cache.compile_cached(tmp_path / "e5.onnx", "sha", CONFIG, "E5")
        compiled.append("e5 returned")

    threads = [threading.Thread(target=gemma), threading.Thread(target=e5)]
    for thread in threads:
        thread.start()
    first.wait(60)
    assert compiled == []  # E5 waits while EmbeddingGemma has not compiled
    go.set()
    for thread in threads:
        thread.join(60)
    assert compiled == ["gemma", "e5", "e5 returned"]
    assert not ov_cache._first  # the turn is given back


def test_a_thread_that_compiles_nothing_after_all_passes_its_turn(
    tmp_path: Path, compiled: list[str]
) -> None:
    # EmbeddingGemma on PyTorch (no export): E5 does not wait for the end of its load
    first, passed, done = threading.Event(), threading.Event(), threading.Event()

    def gemma() -> None:
        with ov_cache.going_first():
            first.set()
            passed.wait(60)
            ov_cache.pass_turn()
            done.wait(60)  # still loading, elsewhere

    def e5() -> None:
        first.wait(60)
        ov_cache.compile_cached(tmp_path / "e5.onnx", "sha", CONFIG, "E5")
        done.set()

    threads = [threading.Thread(target=gemma), threading.Thread(target=e5)]
    for thread in threads:
        thread.start()
    first.wait(60)
    assert compiled == []
    passed.set()
    assert done.wait(60)  # E5 compiled while the other thread's block had not ended
    for thread in threads:
        thread.join(60)
    assert compiled == ["e5"]


def test_each_precision_and_cap_compiles_into_a_folder_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a laptop profile (f32 under an AVX2 cap) never recompiles the machine's own bf16 models,
    # and the precision it was compiled for is in what OpenVINO is given and what is recorded
    import types

    given: list[tuple[str, dict[str, str]]] = []

    class Core:
        def compile_model(self, model_file: str, device: str, config: dict[str, str]) -> str:
            given.append((config["CACHE_DIR"], config["INFERENCE_PRECISION_HINT"]))
            Path(config["CACHE_DIR"], "1.blob").write_bytes(b"x")
            return model_file

    monkeypatch.setattr(
        ov_cache, "openvino", lambda: types.SimpleNamespace(Core=Core, get_version=lambda: "ov1")
    )
    model = tmp_path / "onnx" / "e5" / "model.onnx"
    (model.parent / "openvino").mkdir(parents=True)
    (model.parent / "openvino" / "old.blob").write_bytes(b"x")  # kept before folders per precision
    native = Precision(BF16, "", "")
    laptop = Precision(F32, "", "AVX2")
    for precision in (native, laptop, native, laptop):
        ov_cache.compile_cached(model, "sha", CONFIG, "E5", precision=precision)
    base = model.parent / "openvino"
    assert [(Path(d).name, hint) for d, hint in given] == [
        ("bf16", "bf16"), ("f32-avx2", "f32"), ("bf16", "bf16"), ("f32-avx2", "f32")
    ]  # fmt: skip
    for tag, hint in (("bf16", "bf16"), ("f32-avx2", "f32")):
        record = ov_cache.read_record(base / tag)
        assert record is not None and record.config["INFERENCE_PRECISION_HINT"] == hint
        assert check(base / tag, "sha", "ov1", {**CONFIG, "INFERENCE_PRECISION_HINT": hint}) == ""
    assert not (base / "old.blob").exists()  # the flat copy from before is gone
