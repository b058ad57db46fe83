"""Study notes in the app: b bookmarks a segment with a note, B lists the bookmarks and opens
them again, x exports the bookmarks or the answer on screen."""

from __future__ import annotations

import sqlite3
import zipfile
from pathlib import Path

from textual.widgets import Input, OptionList, Static

from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from lecturetui.tui.app import AppServices, LectureApp
from lecturetui.tui.bookmarkscreen import BookmarksScreen
from lecturetui.tui.notes import NoteScreen
from lecturetui.tui.segmentscreen import SegmentScreen
from tests.conftest import SEED_CORPUS
from tests.fakes import FakeEmbedder, FakeGenerator
from tests.tui.test_tui import ask

NOTE = 'GPU primeiro: "*rápida*" #prova'


def make_app(out: Path) -> LectureApp:
    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    library.ingest([SEED_CORPUS])
    gen = FakeGenerator("Ele prioriza a placa [1].")
    return LectureApp(AppServices(library, lambda: gen, llm_label="fake", export_dir=out))


async def test_bookmark_with_a_note_reopen_and_export(home: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    app = make_app(out)
    async with app.run_test(size=(140, 36)) as pilot:
        await ask(pilot, app)
        await pilot.press("j")  # the second segment
        hit = app.main.hits[1]
        await pilot.press("b")
        assert isinstance(app.screen, NoteScreen)
        app.screen.query_one(Input).value = NOTE
        await pilot.press("enter")
        await pilot.pause()
        (mark,) = app.services.library.bookmarks().all()
        assert mark.note == NOTE and mark.moment.lecture_id == hit.lecture
        assert (mark.moment.start, mark.moment.end) == (hit.start_s, hit.end_s)
        assert mark.history_id == app.main.entry_id is not None  # the answer it came from

        await pilot.press("B")
        screen = app.screen
        assert isinstance(screen, BookmarksScreen)
        rows = screen.query_one(OptionList)
        shown = [str(rows.get_option_at_index(i).prompt) for i in range(rows.option_count)]
        assert any(hit.lecture_title in row for row in shown)  # its lecture's heading
        assert any(hit.span in row and NOTE in row for row in shown)
        assert NOTE in str(screen.query_one("#bookmark", Static).render())
        await pilot.press("enter")  # opens the segment again
        await pilot.pause()
        assert isinstance(app.screen, SegmentScreen) and app.screen.segment.id == hit.segment_id
        await pilot.press("escape")
        assert app.screen is screen

        await pilot.press("x")
        await pilot.pause()
        markdown = (out / "bookmarks.md").read_text(encoding="utf-8")
        assert hit.lecture_title in markdown and hit.start in markdown
        assert "\\*rápida\\*" in markdown  # the note's Markdown characters escaped
        with zipfile.ZipFile(out / "bookmarks.apkg") as package:
            package.extract("collection.anki2", tmp_path)
        db = sqlite3.connect(tmp_path / "collection.anki2")
        (fields,) = [row[0] for row in db.execute("SELECT flds FROM notes")]
        db.close()
        assert "GPU primeiro" in fields
        assert (out / "bookmarks.csv").read_text(encoding="utf-8-sig").count("\n") >= 2

        await pilot.press("e")  # a new note
        app.screen.query_one(Input).value = "outra nota"
        await pilot.press("enter")
        await pilot.pause()
        assert app.services.library.bookmarks().get(mark.id).note == "outra nota"
        await pilot.press("d")
        await pilot.pause()
        assert app.services.library.bookmarks().all() == []


async def test_x_exports_the_answer_on_screen(home: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    app = make_app(out)
    async with app.run_test(size=(140, 36)) as pilot:
        await app.workers.wait_for_complete()
        app.main.query_one("#hits", OptionList).focus()
        await pilot.press("x")  # nothing to export yet: a message, no file
        assert not out.exists()
        await ask(pilot, app)
        entry = app.main.entry_id
        await pilot.press("x")
        await pilot.pause()
        text = (out / f"answer-{entry}.md").read_text(encoding="utf-8")
        assert "prioriza a placa" in text and app.main.passages[0].lecture_title in text
        assert {p.name for p in out.iterdir()} == {
            f"answer-{entry}.{x}" for x in ("md", "apkg", "csv")
        }
