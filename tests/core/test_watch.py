"""A watched folder: files that arrive are ingested, deleted ones pruned, bad ones reported,
and a watcher killed mid-ingest leaves a library that the next start completes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from lecturetui.core.watch import FolderWatcher, WatchEvent
from tests.fakes import FakeEmbedder

ROOT = Path(__file__).resolve().parents[2]


def vtt(words: str, cues: int = 3) -> str:
    body = "".join(
        f"00:00:{10 * i:02d}.000 --> 00:00:{10 * i + 8:02d}.000\n{words} parte {i}\n\n"
        for i in range(cues)
    )
    return "WEBVTT\n\n" + body


def wait_for(check: Callable[[], bool], timeout: float = 15.0) -> float:
    """Seconds until `check()` held (fails after `timeout`: generous, for a loaded machine)."""
    t0 = time.perf_counter()
    while not check():
        if time.perf_counter() - t0 > timeout:
            pytest.fail("the watched folder did not catch up in time")
        time.sleep(0.05)
    return time.perf_counter() - t0


@pytest.fixture
def watched(home: Path, tmp_path: Path) -> Iterator[tuple[Library, Path, list[WatchEvent]]]:
    folder = tmp_path / "aulas"
    folder.mkdir()
    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    events: list[WatchEvent] = []
    stop = threading.Event()
    watcher = FolderWatcher(library, folder, prune=True, on_event=events.append)
    thread = threading.Thread(target=watcher.run, args=(stop,), daemon=True)
    thread.start()
    time.sleep(0.5)  # the watch is set up
    yield library, folder, events
    stop.set()
    thread.join(timeout=5)
    assert not thread.is_alive()


def titles(library: Library) -> set[str]:
    """The lectures' ids (made from the file names)."""
    return {x.id for x in library.lectures()}


def test_a_dropped_file_is_ingested_and_a_deleted_one_pruned(
    watched: tuple[Library, Path, list[WatchEvent]],
) -> None:
    library, folder, events = watched
    (folder / "aula-nova.vtt").write_text(vtt("gradiente descendente estocástico"))
    wait_for(lambda: "aula-nova" in titles(library))
    hits = library.search("gradiente descendente", 3).hits
    assert hits and hits[0].lecture.id == "aula-nova"
    (folder / "aula-nova.vtt").unlink()
    wait_for(lambda: any(e.kind == "removed" for e in events))  # said once the index is done
    assert "aula-nova" not in titles(library)
    assert library.store.counts() == (0, 0)


def test_a_bad_file_is_reported_and_the_watch_goes_on(
    watched: tuple[Library, Path, list[WatchEvent]],
) -> None:
    library, folder, events = watched
    (folder / "quebrada.srt").write_bytes(b"\x00\xff garbage \x00" * 100)
    wait_for(lambda: any(e.path.name == "quebrada.srt" for e in events))
    bad = next(e for e in events if e.path.name == "quebrada.srt")
    assert bad.result is not None and bad.result.failed
    (folder / "boa.vtt").write_text(vtt("redes neurais convolucionais"))
    wait_for(lambda: "boa" in titles(library))


def test_a_file_written_slowly_is_read_once_whole(
    watched: tuple[Library, Path, list[WatchEvent]],
) -> None:
    library, folder, _ = watched
    text = vtt("transformadores e atenção", cues=6)
    path = folder / "lenta.vtt"
    with path.open("w", encoding="utf-8") as f:
        for i in range(0, len(text), 40):
            f.write(text[i : i + 40])
            f.flush()
            time.sleep(0.02)
    wait_for(lambda: "lenta" in titles(library))
    time.sleep(1.0)  # any later event would re-read it; the stored lecture must be whole
    lecture = next(x for x in library.lectures() if x.id == "lenta")
    stored = " ".join(s.text for s in library.store.segments(lecture.id))
    assert "parte 5" in stored and "parte 0" in stored


KILLED_CHILD = r"""
import sys, time
sys.path.insert(0, {tests!r}); sys.path.insert(0, {root!r})
from pathlib import Path
from tests.fakes import FakeEmbedder
from lecturetui.core.paths import DataHome
from lecturetui.core.library import Library
from lecturetui.core.watch import FolderWatcher

class Slow(FakeEmbedder):
    def embed_passages(self, texts, progress=None):
        if any("lentíssima" in t for t in texts):
            Path({marker!r}).write_text("embedding")
            time.sleep(60)  # killed here, mid-ingest
        return super().embed_passages(texts, progress)

library = Library(DataHome.resolve(Path({home!r})), embedder=Slow())
FolderWatcher(library, Path({folder!r})).run()
"""


def test_a_watcher_killed_mid_ingest_leaves_a_library_the_next_start_completes(
    home: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "aulas"
    folder.mkdir()
    (folder / "primeira.vtt").write_text(vtt("álgebra linear"))
    marker = tmp_path / "marker"
    code = KILLED_CHILD.format(tests=str(ROOT / "tests"), root=str(ROOT), marker=str(marker),
                               home=str(home), folder=str(folder))  # fmt: skip
    child = subprocess.Popen([sys.executable, "-c", code], env={**os.environ})
    try:
        wait_for(
            lambda: Library(DataHome.resolve(home), embedder=FakeEmbedder()).counts()[0] == 1, 60
        )
        (folder / "segunda.vtt").write_text(vtt("uma aula lentíssima sobre cálculo"))
        wait_for(marker.exists, 60)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    library = Library(DataHome.resolve(home), embedder=FakeEmbedder())
    assert titles(library) == {"primeira"}  # the file being embedded was not half-stored
    assert library.search("álgebra linear", 1).hits  # store and index agree
    FolderWatcher(library, folder).catch_up()  # the next start
    assert titles(library) == {"primeira", "segunda"}
    assert library.search("cálculo lentíssima", 1).hits[0].lecture.id == "segunda"
