"""A lecture without captions ingested from the app's library screen (a stand-in transcriber:
the real one is tested in tests/core/ingest/test_speech_real.py)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input, Static

from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from lecturetui.tui.app import AppServices, LectureApp
from lecturetui.tui.screens import LibraryScreen
from tests.core.ingest.test_media import SPEECH, ScriptedTranscriber
from tests.fakes import FakeEmbedder, FakeGenerator


async def test_audio_is_transcribed_from_the_library_screen(home: Path) -> None:
    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    transcriber = ScriptedTranscriber()
    library.set_transcriber(transcriber)
    app = LectureApp(AppServices(library, lambda: FakeGenerator("Resposta [1].")))
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("tab", "l")
        assert isinstance(app.screen, LibraryScreen)
        await pilot.press("i")
        app.screen.query_one("#ingest-path", Input).value = str(SPEECH / "pt_gpu.ogg")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        log = str(app.screen.query_one("#ingest-log", Static).render())
        assert "added" in log and "pt_gpu.ogg" in log, log
        assert app.screen.query_one(DataTable).row_count == 1
        assert transcriber.calls == [SPEECH / "pt_gpu.ogg"]
    (lecture,) = library.lectures()
    assert lecture.source_format.startswith("whisper:")
