"""Snapshots of the main screens (pinned Textual, no cursor blink, timings blanked)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Static

from .test_tui import QUESTION, make_app

SIZE = (120, 32)


async def _asked(pilot) -> None:  # type: ignore[no-untyped-def]
    app = pilot.app
    app.query_one("#question", Input).cursor_blink = False
    await app.workers.wait_for_complete()
    await pilot.press("slash")
    app.query_one("#question", Input).value = QUESTION
    await pilot.press("enter")
    await app.workers.wait_for_complete()
    await pilot.pause()
    app.query_one("#answer-status", Static).update("")  # timings differ run to run


def test_main_screen_with_an_answer(home: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(make_app(home), terminal_size=SIZE, run_before=_asked)


def test_segment_screen(home: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def open_first(pilot) -> None:  # type: ignore[no-untyped-def]
        await _asked(pilot)
        await pilot.press("enter")
        await pilot.pause()

    assert snap_compare(make_app(home), terminal_size=SIZE, run_before=open_first)


def test_small_terminal_80x24(home: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(make_app(home), terminal_size=(80, 24), run_before=_asked)


def test_bookmarks_screen(home: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    from lecturetui.tui.bookmarkscreen import BookmarksScreen

    async def bookmark_two(pilot) -> None:  # type: ignore[no-untyped-def]
        app = pilot.app
        await app.workers.wait_for_complete()
        marks = app.services.library.bookmarks()
        first, second = (h.segment.id for h in app.services.library.search("GPU", 2).hits)
        marks.add(first, 'GPU primeiro: "*rápida*"')
        marks.add(second)
        await pilot.press("tab", "B")
        await pilot.pause()
        assert isinstance(app.screen, BookmarksScreen)

    assert snap_compare(make_app(home), terminal_size=SIZE, run_before=bookmark_two)
