"""OpenVINO's compiled embedders, kept beside their ONNX export: no process compiles twice.

Reading the ONNX graph and compiling it for this CPU takes seconds (about 9-14 s for
EmbeddingGemma on 2 cores) in every process that embeds. OpenVINO's own model cache
(`CACHE_DIR`) keeps the compiled model in `<export folder>/openvino/` and maps it back in a
fraction of a second (bench/RESULTS.md, "Cold start"); `models setup` fills it, else the first
command that embeds does.

OpenVINO itself recompiles a blob written by another OpenVINO version or for another file (its
header names the file's path, size and time). Around it, this module keeps what OpenVINO does not:
a record (`cache.json`) of the blobs a whole compilation wrote, with their sizes, the export's
sha256 and OpenVINO's version, written only once the blobs are complete. A blob without a
record (an interrupted write), of another size (truncated), of another export or OpenVINO, or
one OpenVINO cannot import, is removed and compiled again with one line saying so. One process
compiles at a time (a lock file); another that starts meanwhile waits, then imports.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lecturetui.core.atomic import write_atomic
from lecturetui.core.i18n import _
from lecturetui.core.models.locate import Notify
from lecturetui.core.models.openvino_import import openvino
from lecturetui.core.models.precision import Precision, current

FOLDER = "openvino"
RECORD = "cache.json"
LOCK = ".compile.lock"
DEVICE = "CPU"
#: how long a process waits for another one compiling the same model before compiling itself
LOCK_WAIT_S = 600.0
#: one OpenVINO compilation at a time in a process: OpenVINO sets the C locale while it reads a
#: model and puts the previous one back after, so two at once in two threads (the re-ranking
#: model loading beside the first stage's: core/models/embedders.py) can leave the whole
#: process in the "C" locale, where Python's default text encoding is ASCII
_COMPILING = threading.Lock()
#: a thread loading the model a search waits for longest (the re-ranking model: its compilation,
#: then its first run) compiles it first (`going_first`): another thread's model compilation
#: (the first stage's) waits for it, at most this long, and runs beside that first run instead
#: of before it all
FIRST_WAIT_S = 2.0
_turns = threading.Condition()
_first: set[int] = set()


@dataclass(frozen=True, slots=True)
class CacheRecord:
    """What a whole compilation left in the cache folder."""

    export_sha256: str
    openvino: str
    config: dict[str, str]
    blobs: dict[str, int]  # file name -> size in bytes


def cache_dir(model_file: Path, tag: str = "") -> Path:
    """Where the model's compilations are kept: one folder for each precision and instruction-set
    cap (core/models/precision.py: "bf16", "f32-avx2")."""
    base = model_file.parent / FOLDER
    return base / tag if tag else base


def _clear_flat(model_file: Path) -> None:
    """A compilation kept before each precision had its folder (blobs straight in `openvino/`):
    removed when the model is first compiled into its precision's folder, so that no stale copy
    stays on the disk (a model mapped from its folder looks no further)."""
    flat = cache_dir(model_file)
    if (flat / RECORD).exists() or any(flat.glob("*.blob")):
        _clear(flat)


def _blobs(folder: Path) -> dict[str, int]:
    found: dict[str, int] = {}
    for blob in folder.glob("*.blob"):
        with contextlib.suppress(OSError):
            found[blob.name] = blob.stat().st_size
    return found


def read_record(folder: Path) -> CacheRecord | None:
    try:
        data = json.loads((folder / RECORD).read_text("utf-8"))
        return CacheRecord(
            str(data["export_sha256"]),
            str(data["openvino"]),
            dict(data["config"]),
            {str(k): int(v) for k, v in data["blobs"].items()},
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _write_record(folder: Path, record: CacheRecord) -> None:
    write_atomic(folder / RECORD, json.dumps(asdict(record), indent=1).encode("utf-8"))


def check(folder: Path, export_sha256: str, openvino: str, config: dict[str, str]) -> str:
    """ "" when the folder holds a whole compilation of this export by this OpenVINO with these
    settings; else why not: "missing", "stale" (another export, OpenVINO or settings) or
    "damaged" (a blob missing, truncated, or left without a record by an interrupted write)."""
    record = read_record(folder)
    blobs = _blobs(folder)
    if record is None:
        return "damaged" if blobs else "missing"
    if (record.export_sha256, record.openvino, record.config) != (export_sha256, openvino, config):
        return "stale"
    if not record.blobs or blobs != record.blobs:
        return "damaged"
    return ""


def _clear(folder: Path) -> None:
    for path in [*folder.glob("*.blob"), folder / RECORD]:
        with contextlib.suppress(OSError):
            path.unlink()


def _say(notify: Notify | None, why: str, name: str) -> None:
    if notify is None:
        return
    if why == "stale":
        notify(
            _(
                "The compiled copy of {model} is from another export or OpenVINO version:"
                " compiling it again, once…"
            ).format(model=name)
        )
    elif why == "damaged":
        notify(
            _("The compiled copy of {model} is damaged: compiling it again, once…").format(
                model=name
            )
        )
    else:
        notify(_("Compiling {model} for this CPU, once…").format(model=name))


@contextlib.contextmanager
def going_first() -> Iterator[None]:
    """Within the block, this thread's next model compilation (`compile_cached`) goes before
    any other thread's, which waits for it (FIRST_WAIT_S at most): from a search's start to
    its hits, 1.8 s where E5 compiled first took 2.0-2.2 s (bench/RESULTS.md, "Cold start,
    where it stands")."""
    me = threading.get_ident()
    with _turns:
        _first.add(me)
    try:
        yield
    finally:
        _done_first(me)


def pass_turn() -> None:
    """This thread will compile nothing with OpenVINO after all (its model runs elsewhere):
    a thread waiting for it goes on."""
    _done_first(threading.get_ident())


def _done_first(me: int) -> None:
    with _turns:
        if me in _first:
            _first.discard(me)
            _turns.notify_all()


@contextlib.contextmanager
def _turn() -> Iterator[None]:
    """This thread's turn to compile a model: after any other thread going first (FIRST_WAIT_S
    at most); its own going first, if it was, ends with it."""
    me = threading.get_ident()
    with _turns:
        _turns.wait_for(lambda: not (_first - {me}), timeout=FIRST_WAIT_S)
    try:
        yield
    finally:
        _done_first(me)


def compile_locked(core: Any, model_file: str, device: str, config: dict[str, str]) -> Any:
    """The model compiled, one compilation at a time in this process (see _COMPILING)."""
    with _COMPILING:
        return core.compile_model(model_file, device, config)


def compile_cached(
    model_file: Path,
    export_sha256: str,
    config: dict[str, str],
    name: str,
    notify: Notify | None = None,
    folder: Path | None = None,
    precision: Precision | None = None,
) -> Any:
    """The model compiled for this CPU at `precision` (by default this CPU's: core/models/
    precision.py): mapped from OpenVINO's cache when a whole, current compilation is there, else
    compiled (saying why when a cache was there) and cached; in this thread's turn
    (`going_first`)."""
    from filelock import FileLock, Timeout  # lazy: 30 ms; only an OpenVINO compilation locks

    chosen = precision or current()
    config = {**config, "INFERENCE_PRECISION_HINT": chosen.hint}
    ov = openvino()
    with _turn():
        tagged = folder is None  # the folder of its precision, beside the export
        folder = folder or cache_dir(model_file, chosen.tag)
        version = str(ov.get_version())
        core = ov.Core()
        cached = {**config, "CACHE_DIR": str(folder)}
        why = check(folder, export_sha256, version, config)
        unreadable = False
        if not why:
            try:
                return compile_locked(core, str(model_file), DEVICE, cached)
            except Exception:  # a blob OpenVINO cannot read: compiled again below
                why, unreadable = "damaged", True
        lock = FileLock(folder / LOCK, timeout=LOCK_WAIT_S)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            lock.acquire()
        except (OSError, Timeout):  # a read-only models folder: compiled in memory, every time
            _say(notify, why, name)
            return compile_locked(core, str(model_file), DEVICE, config)
        try:
            if not unreadable and not check(folder, export_sha256, version, config):
                return compile_locked(core, str(model_file), DEVICE, cached)  # compiled meanwhile
            _say(notify, why, name)
            _clear(folder)
            if tagged:
                with contextlib.suppress(OSError):
                    _clear_flat(model_file)
            compiled = compile_locked(core, str(model_file), DEVICE, cached)
            blobs = _blobs(folder)
            if blobs:
                with contextlib.suppress(OSError):
                    _write_record(folder, CacheRecord(export_sha256, version, config, blobs))
            return compiled
        finally:
            lock.release()
