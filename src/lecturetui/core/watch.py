"""A watched lectures folder: kept indexed as files arrive, change and go.

`watchfiles` (maintained, Rust `notify` underneath: inotify, FSEvents, ReadDirectoryChangesW)
reports changes; a batch is handed over once the folder has been quiet for `settle_ms`, and a
file is read only when its size and modification time stayed the same across a short wait, so
a file still being copied is never read half-way. Every file goes through the normal ingest
(one transaction a file; the index catches up from the store), so a kill at any moment leaves
a consistent library, and the next start first catches up with the folder as it is.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.ingest.pipeline import FileResult, IngestOptions
from lecturetui.core.ingest.pipeline import wanted as ingestible

if TYPE_CHECKING:
    from lecturetui.core.library import Library


@dataclass(frozen=True, slots=True)
class WatchEvent:
    kind: str  # "ingested" (a FileResult), "missing", "removed", "error"
    path: Path
    result: FileResult | None = None
    message: str = ""


@dataclass(slots=True)
class FolderState:
    """Lectures of the library that came from files under the folder."""

    by_path: dict[Path, list[str]] = field(default_factory=dict)

    @classmethod
    def read(cls, library: Library, folder: Path) -> FolderState:
        state = cls()
        root = folder.resolve()
        for lec in library.lectures():
            if lec.source_path and Path(lec.source_path).is_relative_to(root):
                state.by_path.setdefault(Path(lec.source_path), []).append(lec.id)
        return state


def wanted(path: Path) -> bool:
    """A transcript, audio or video file (transcribed as it arrives), not a hidden one."""
    return ingestible(path) and not path.name.startswith(".")


def settled(path: Path, wait_s: float = 0.2, tries: int = 50) -> bool:
    """True once the file's size and mtime stay the same across `wait_s` (False if it vanished).
    A file last changed `wait_s` or more ago has already been still that long: no wait."""
    for _try in range(tries):
        try:
            before = path.stat()
            if time.time() - before.st_mtime >= wait_s:
                return True
            time.sleep(wait_s)
            after = path.stat()
        except OSError:
            return False
        if (before.st_size, before.st_mtime_ns) == (after.st_size, after.st_mtime_ns):
            return True
    return True  # still growing after ~10 s: read it now, a later change re-ingests it


def _modified_since(path: Path, since: float) -> bool:
    try:
        return path.stat().st_mtime >= since
    except OSError:  # gone meanwhile: the deletion is handled as one
        return False


class FolderWatcher:
    """Keeps `folder` indexed in `library`; `run()` blocks until `stop` is set."""

    def __init__(
        self,
        library: Library,
        folder: Path,
        options: IngestOptions | None = None,
        prune: bool = False,
        on_event: Callable[[WatchEvent], None] | None = None,
        settle_ms: int = 300,
    ) -> None:
        if not folder.is_dir():
            raise LectureTuiError(
                _("{folder} is not a folder.").format(folder=folder),
                hint=_("--watch takes a folder"),
            )
        self.library = library
        self.folder = folder.resolve()
        self.options = options or IngestOptions()
        self.prune = prune
        self.on_event = on_event or (lambda _: None)
        self.settle_ms = settle_ms

    def _ingest(self, paths: Iterable[Path]) -> None:
        for path in sorted(set(paths)):
            if not path.is_file() or not settled(path):
                continue
            try:
                report = self.library.ingest([path], self.options)
            except LectureTuiError as exc:
                self.on_event(WatchEvent("error", path, message=exc.message))
                continue
            except Exception as exc:  # one bad file never ends the watch
                self.on_event(WatchEvent("error", path, message=f"{type(exc).__name__}: {exc}"))
                continue
            for result in report.results:
                self.on_event(WatchEvent("ingested", result.path, result))

    def _gone(self, paths: Iterable[Path], state: FolderState | None = None) -> None:
        state = state or FolderState.read(self.library, self.folder)
        for path in sorted(set(paths)):
            ids = state.by_path.get(path.resolve(), [])
            if not ids or path.exists():
                continue
            if self.prune:
                for lecture_id in ids:
                    self.library.remove_lecture(lecture_id)
                self.on_event(WatchEvent("removed", path, message=", ".join(ids)))
            else:
                self.on_event(WatchEvent("missing", path, message=", ".join(ids)))

    def catch_up(self, since: float | None = None) -> None:
        """Bring the library in line with the folder as it is now (also after a kill); with
        `since` (a time), only files changed from then on are read again."""
        self._ingest(
            p
            for p in self.folder.rglob("*")
            if p.is_file() and wanted(p) and (since is None or _modified_since(p, since))
        )
        state = FolderState.read(self.library, self.folder)
        self._gone(state.by_path, state)

    def run(self, stop: threading.Event | None = None) -> None:
        from watchfiles import Change, watch  # lazy: 30-40 ms on every ingest; --watch needs it

        started = time.time() - 1.0  # (a second of slack for coarse file times)
        self.catch_up()
        armed = False
        for changes in watch(
            self.folder,
            step=50,
            debounce=max(self.settle_ms, 100),
            stop_event=stop,
            rust_timeout=500,
            yield_on_timeout=True,
            raise_interrupt=True,
        ):
            if not armed:
                # the watch is set up now: catch what arrived between the first catch-up and it
                armed = True
                self.catch_up(since=started)
            changed = [Path(p) for kind, p in changes if kind != Change.deleted]
            deleted = [Path(p) for kind, p in changes if kind == Change.deleted]
            self._ingest(p for p in changed if wanted(p))
            self._gone(p for p in deleted if wanted(p))
