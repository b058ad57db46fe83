"""A course pack imported from the app's library screen (`p`): its lectures appear with their
status, progress while it runs; a refused pack is one sentence in place, the app goes on."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input

from lecturetui.core.ingest.pipeline import IngestOptions
from lecturetui.core.library import Library
from lecturetui.core.pack.export import export_pack
from lecturetui.core.paths import DataHome
from lecturetui.tui.app import AppServices, LectureApp
from lecturetui.tui.lecturedialogs import PackPathScreen
from lecturetui.tui.screens import LibraryScreen
from tests.conftest import SEED_CORPUS
from tests.core.pack.packs import fake_library
from tests.fakes import FakeEmbedder, FakeGenerator
from tests.tui.test_app_failures import rendered, settle


async def test_a_pack_is_imported_from_the_library_screen(home: Path, tmp_path: Path) -> None:
    ta = fake_library(tmp_path / "ta", rerank=False)
    ta.ingest([SEED_CORPUS], IngestOptions(course="Sistemas"))
    pack = tmp_path / "sistemas.ltpack"
    export_pack(ta, pack, ta.lectures())
    ta.close()
    bad = tmp_path / "bad.ltpack"
    bad.write_bytes(b"not a zip")
    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    app = LectureApp(AppServices(library, lambda: FakeGenerator("Resposta [1].")))
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(app)
        await pilot.press("tab", "l")
        assert isinstance(app.screen, LibraryScreen)
        for path in (bad, pack):
            await pilot.press("p")
            assert isinstance(app.screen, PackPathScreen)
            app.screen.query_one("#pack-path", Input).value = str(path)
            await pilot.press("enter")
            await settle(app)
            await pilot.pause()
            assert app.is_running and isinstance(app.screen, LibraryScreen)
            log = rendered(app, "#ingest-log")
            if path == bad:
                assert "failed" in log and "not a readable pack" in log, log
                assert app.screen.query_one(DataTable).row_count == 0
        assert log.count("added") == 8, log
        assert app.screen.query_one(DataTable).row_count == 8
