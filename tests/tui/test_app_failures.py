"""The app keeps working when a model or the index fails: a message on screen, never a crash.

Each case is real: a damaged E5 folder, a GGUF file llama.cpp cannot load (and a loader that
raises what it was never meant to), an index damaged on disk before an in-app ingest. A
worker's failure is shown as a notification and in place, and the app goes on.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static
from textual.worker import WorkerFailed

from lecturetui.core.library import Library
from lecturetui.core.llm.model import Generator
from lecturetui.core.paths import DataHome
from lecturetui.tui.app import AppServices, LectureApp
from lecturetui.tui.screens import LibraryScreen
from tests.conftest import SEED_CORPUS
from tests.fakes import FakeEmbedder, FakeGenerator
from tests.tui.test_tui import QUESTION, answer_text


def rendered(app: LectureApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


def notifications(app: LectureApp) -> list[str]:
    return [n.message for n in app._notifications]


async def settle(app: LectureApp) -> None:
    """Wait for the workers, failed ones included (waiting re-raises a worker's error; the app
    has already shown it, which is what these tests look at)."""
    with contextlib.suppress(WorkerFailed):
        await app.workers.wait_for_complete()


async def ask(pilot: Pilot[None], app: LectureApp, question: str = QUESTION) -> None:
    await pilot.press("slash")
    app.screen.query_one("#question", Input).value = question
    await pilot.press("enter")
    await settle(app)
    await pilot.pause()


async def test_a_damaged_embedding_model_folder_is_a_message(home: Path, tmp_path: Path) -> None:
    broken = tmp_path / "e5"
    broken.mkdir()
    (broken / "config.json").write_text("{ not json", encoding="utf-8")
    library = Library(DataHome.resolve(), embed_model=str(broken))
    app = LectureApp(AppServices(library, lambda: FakeGenerator("Resposta [1].")))
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(app)
        await pilot.pause()
        assert app.is_running and app.models.error is not None
        assert "⚠" in rendered(app, "#status")
        assert any("cannot be loaded" in n for n in notifications(app)), notifications(app)
        await ask(pilot, app)  # a question says why it cannot be answered
        assert app.is_running and "cannot be loaded" in answer_text(app)
        await pilot.press("tab", "l")  # the other screens still open
        assert isinstance(app.screen, LibraryScreen)


def out_of_memory() -> Generator:
    raise RuntimeError("CUDA error: out of memory")  # what a GPU build may raise, unwrapped


@pytest.mark.parametrize("failure", ["damaged gguf", "unexpected error"])
async def test_an_answer_model_that_fails_to_load_leaves_search_working(
    home: Path, tmp_path: Path, failure: str
) -> None:
    from lecturetui.core.llm.generation import LlamaGenerator

    bad = tmp_path / "modelo.gguf"
    bad.write_bytes(b"GGUF" + b"\x00" * 4096)
    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    library.ingest([SEED_CORPUS])
    loader = (
        (lambda: LlamaGenerator(bad, n_ctx=512)) if failure == "damaged gguf" else out_of_memory
    )
    app = LectureApp(AppServices(library, loader))
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(app)
        await pilot.pause()
        assert app.is_running and app.models.error is not None and app.models.generator is None
        expected = "modelo.gguf cannot be loaded" if failure == "damaged gguf" else "out of memory"
        assert any(expected in n for n in notifications(app)), notifications(app)
        await ask(pilot, app)
        assert len(app.main.hits) == 10, "the segments are still found and shown"
        assert rendered(app, "#evidence").startswith("Evidence")
        assert expected in answer_text(app) and "Traceback" not in answer_text(app)
        await ask(pilot, app, "GPU")  # and again
        assert app.is_running and app.main.hits


async def test_a_damaged_index_during_an_in_app_ingest_is_a_message(
    home: Path, fixtures: Path
) -> None:
    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    library.ingest([SEED_CORPUS])
    library.close()
    (saved,) = DataHome.resolve().index_dir.glob("vectors-*.hnsw")
    saved.write_bytes(b"\x00" * 64)  # damaged on disk
    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    app = LectureApp(AppServices(library, lambda: FakeGenerator("Resposta [1].")))
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(app)
        await pilot.press("tab", "l")
        assert isinstance(app.screen, LibraryScreen)
        await pilot.press("i")
        app.screen.query_one("#ingest-path", Input).value = str(fixtures / "lecture.vtt")
        await pilot.press("enter")
        await settle(app)
        await pilot.pause()
        log = rendered(app, "#ingest-log")
        assert "failed" in log and "lecture.vtt" in log and "reindex" in log, log
        assert app.is_running and isinstance(app.screen, LibraryScreen)
        assert any("damaged" in n and "reindex" in n for n in notifications(app))
