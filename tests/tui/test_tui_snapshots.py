"""Snapshots of the main screens (pinned Textual, no cursor blink, timings blanked); the first
screen, the main screen after an answer, help and the library in both languages."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Static

from tests.tui.test_tui import QUESTION, make_app

SIZE = (120, 32)
LANGUAGES = pytest.mark.parametrize("language", ["en", "pt"])


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


async def _settled(pilot) -> None:  # type: ignore[no-untyped-def]
    app = pilot.app
    app.query_one("#question", Input).cursor_blink = False
    await app.workers.wait_for_complete()
    await pilot.pause()
    await app.workers.wait_for_complete()  # the example questions come from a worker
    await pilot.pause()


@LANGUAGES
def test_first_screen_of_an_empty_library(home: Path, snap_compare, language: str) -> None:  # type: ignore[no-untyped-def]
    app = make_app(home, ingest=False, language=language)
    assert snap_compare(app, terminal_size=SIZE, run_before=_settled)


@LANGUAGES
def test_first_screen_of_the_demo_library(home: Path, snap_compare, language: str) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(make_app(home, language=language), terminal_size=SIZE, run_before=_settled)


@LANGUAGES
def test_main_screen_after_an_answer(home: Path, snap_compare, language: str) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(make_app(home, language=language), terminal_size=SIZE, run_before=_asked)


@LANGUAGES
def test_help_screen(home: Path, snap_compare, language: str) -> None:  # type: ignore[no-untyped-def]
    async def help_open(pilot) -> None:  # type: ignore[no-untyped-def]
        await _settled(pilot)
        await pilot.press("tab", "question_mark")  # out of the question box, then ?
        await pilot.pause()

    assert snap_compare(make_app(home, language=language), terminal_size=(120, 48),
                        run_before=help_open)  # fmt: skip


@LANGUAGES
def test_library_screen(home: Path, snap_compare, language: str) -> None:  # type: ignore[no-untyped-def]
    async def library_open(pilot) -> None:  # type: ignore[no-untyped-def]
        await _settled(pilot)
        await pilot.press("tab", "l")
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        pilot.app.screen.query_one("#doctor", Static).update("")  # the machine's devices
        pilot.app.screen.query_one("#ingest-path", Input).cursor_blink = False

    assert snap_compare(make_app(home, language=language), terminal_size=SIZE,
                        run_before=library_open)  # fmt: skip


@LANGUAGES
def test_course_map(home: Path, snap_compare, language: str) -> None:  # type: ignore[no-untyped-def]
    async def open_map(pilot) -> None:  # type: ignore[no-untyped-def]
        await _asked(pilot)
        await pilot.press("c")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("right")  # the second hit highlighted
        await pilot.pause()

    app = make_app(home, language=language)
    assert snap_compare(app, terminal_size=SIZE, run_before=open_map)


@LANGUAGES
def test_outline_screen(home: Path, snap_compare, language: str) -> None:  # type: ignore[no-untyped-def]
    from lecturetui.core.lectures import Chapter
    from lecturetui.tui.outlinescreen import OutlineScreen

    app = make_app(home, language=language)
    library = app.services.library
    lecture = library.lectures()[0]
    library.store.save_chapters(lecture.id, [Chapter(0.0, "Abertura"),
                                             Chapter(65.0, "Por que GPUs?"),
                                             Chapter(600.0, "Convolução")])  # fmt: skip

    async def open_outline(pilot) -> None:  # type: ignore[no-untyped-def]
        await _settled(pilot)
        pilot.app.push_screen(OutlineScreen(lecture.id, 70.0))  # the second chapter highlighted
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=open_outline)


@LANGUAGES
def test_a_lecture_s_summary(home: Path, snap_compare, language: str) -> None:  # type: ignore[no-untyped-def]
    """S in a lecture's outline: back on the main screen, the lecture's parts (its chapters),
    each part's summary and the lecturer's words, then the gist."""
    from lecturetui.core.lectures import Chapter
    from lecturetui.tui.outlinescreen import OutlineScreen
    from tests.core.summary.test_writing import PartsThenGist

    gen = PartsThenGist(
        "A parte mostra os dispositivos.",
        "A aula abre com os dispositivos.",
        "Depois vêm os núcleos.",
    )
    app = make_app(home, generator=gen, language=language)
    library = app.services.library
    lecture = max(library.lectures(), key=lambda x: x.segment_count)
    library.store.save_chapters(lecture.id, [Chapter(0.0, "Abertura"), Chapter(130.0, "Núcleos")])

    async def summarise(pilot) -> None:  # type: ignore[no-untyped-def]
        await _settled(pilot)
        pilot.app.push_screen(OutlineScreen(lecture.id))
        await pilot.pause()
        await pilot.press("S")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        pilot.app.query_one("#answer-status", Static).update("")  # timings differ run to run

    assert snap_compare(app, terminal_size=SIZE, run_before=summarise)
