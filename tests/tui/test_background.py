"""The summaries written while the app is idle (tui/background.py), driven through Textual's
Pilot with a fake embedder and generator; the idle time is made short, and every wait is a
bounded look at the app's state, never a time."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from lecturetui.core.storage.phrases import PhraseTable
from lecturetui.core.summary.pending import pending_summaries
from lecturetui.tui import background
from lecturetui.tui.app import AppServices, LectureApp
from tests.conftest import SEED_CORPUS
from tests.fakes import FakeEmbedder, FakeGenerator

ANSWER = "Ele prioriza a placa [1]."


class Summariser(FakeGenerator):
    """Answers questions at once; a part's label, one word every 10 ms until stopped when
    `slow` (else at once: two words the part says). Counts the replies being written at once."""

    def __init__(self, slow: bool = False, fails: bool = False) -> None:
        super().__init__(ANSWER)
        self.slow, self.fails = slow, fails
        self.parts = 0  # part summaries asked for
        self.active = self.most = 0
        self.lock = threading.Lock()

    def stream(self, messages, max_tokens, stop=None, temperature=None):  # type: ignore[no-untyped-def]
        with self.lock:
            self.active += 1
            self.most = max(self.most, self.active)
        try:
            yield from self._reply(messages, max_tokens, stop, temperature)
        finally:
            with self.lock:
                self.active -= 1

    def _reply(self, messages, max_tokens, stop, temperature):  # type: ignore[no-untyped-def]
        if "table of contents" in messages[0]["content"]:  # a part's label
            self.parts += 1
            if self.fails:
                raise RuntimeError("the model broke")
            while self.slow and not (stop is not None and stop.is_set()):
                time.sleep(0.01)
                yield " palavra"
            quoted = messages[-1]["content"].split("“", 1)[1]
            yield " ".join(re.findall(r"[^\W\d_]{7,}", quoted)[:2]) + "\n"
        else:
            yield from super().stream(messages, max_tokens, stop, temperature)


@pytest.fixture
def idle_soon(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app looks often; it is never idle until a test says so (`_idle`)."""
    monkeypatch.setattr(background, "CHECK_S", 0.02)
    monkeypatch.setattr(background, "IDLE_S", 10_000.0)


def _idle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(background, "IDLE_S", 0.05)


def _app(gen: FakeGenerator, summaries: bool = True) -> LectureApp:
    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    library.ingest([SEED_CORPUS])
    return LectureApp(AppServices(library, lambda: gen, llm_label="fake", language="pt",
                                  summaries=summaries))  # fmt: skip


def _status(app: LectureApp) -> str:
    return str(app.query_one("#status", Static).render())


async def _until(pilot, done, tries: int = 6000) -> None:  # type: ignore[no-untyped-def]
    """Wait until `done()` (it returns at once when it is; up to two minutes on a slow machine,
    after which the test's own assertion says what did not happen)."""
    for _ in range(tries):
        if done():
            return
        await pilot.pause(0.02)


async def test_idle_the_app_writes_every_summary_in_its_language(
    home: Path, idle_soon: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    gen = Summariser()
    app = _app(gen)
    library = app.services.library
    async with app.run_test(size=(160, 32)) as pilot:
        await app.workers.wait_for_complete()
        assert pending_summaries(library, gen.name, "Portuguese") and gen.parts == 0
        with library.store.transaction():  # lectures kept before key phrases were found
            library.store.connection.execute("DELETE FROM key_phrases")
        phrases = PhraseTable(library.store)
        assert phrases.missing(library.lectures())
        _idle(monkeypatch)
        await _until(pilot, lambda: not pending_summaries(library, gen.name, "Portuguese"))
        assert not pending_summaries(library, gen.name, "Portuguese")  # in the app's language
        assert not phrases.missing(library.lectures())  # found first
        assert pending_summaries(library, gen.name, "English")
        await _until(pilot, lambda: app.idle_summaries.quiet.is_set() and not app.models.summaries)
        assert "summaries" not in _status(app)  # the status line is clear again
        asked = gen.parts
        # idle on: nothing left to write, nothing written again (the library is unchanged)
        assert not app.idle_summaries.due(False, app.services.library.counts())
        for _ in range(20):
            await pilot.pause(0.02)
        assert gen.parts == asked


async def test_a_question_stops_it_at_once_and_it_goes_on_when_idle_again(
    home: Path, idle_soon: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    gen = Summariser(slow=True)
    app = _app(gen)
    async with app.run_test(size=(200, 32)) as pilot:
        await app.workers.wait_for_complete()
        _idle(monkeypatch)
        await _until(pilot, lambda: "part 1 of" in _status(app) or "parte 1 de" in _status(app))
        status = _status(app)
        assert "resumos 1/" in status and "parte 1 de" in status  # where it is, in Portuguese
        monkeypatch.setattr(background, "IDLE_S", 10_000.0)  # the student is back
        await pilot.press("slash")
        app.query_one("#question", Input).value = "tensor Flow prioriza GPU"
        await pilot.press("enter")
        await _until(pilot, lambda: "prioriza a placa" in str(app.main.query_one("#answer",
                                                                                   Static).render()))  # fmt: skip
        assert "prioriza a placa" in str(app.main.query_one("#answer", Static).render())
        assert app.idle_summaries.quiet.is_set() and gen.most == 1  # never two replies at once
        library = app.services.library
        first = pending_summaries(library, gen.name, "Portuguese")[0]
        assert library.summaries.written(_key(first, gen)) == {}  # the part cut short: dropped
        parts = gen.parts
        _idle(monkeypatch)  # idle again: the same part is written from its start
        await _until(pilot, lambda: gen.parts > parts)
        assert gen.parts == parts + 1 and gen.most == 1


def _key(lecture, gen):  # type: ignore[no-untyped-def]
    from lecturetui.core.summary.writing import summary_key

    return summary_key(lecture, gen.name, "Portuguese")


async def test_the_setting_turns_it_off(
    home: Path, idle_soon: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    gen = Summariser()
    app = _app(gen, summaries=False)
    async with app.run_test(size=(160, 32)) as pilot:
        await app.workers.wait_for_complete()
        _idle(monkeypatch)
        assert not app.idle_summaries.due(False, app.services.library.counts())  # never due
        for _ in range(30):
            await pilot.pause(0.02)
        assert gen.parts == 0 and app.idle_summaries.quiet.is_set()


async def test_a_failure_is_a_message_in_the_status_line_said_once(
    home: Path, idle_soon: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    gen = Summariser(fails=True)
    app = _app(gen)
    async with app.run_test(size=(160, 32)) as pilot:
        await app.workers.wait_for_complete()
        _idle(monkeypatch)
        await _until(pilot, lambda: "the model broke" in _status(app))
        assert "the model broke" in _status(app) and "⚠" in _status(app)
        for _ in range(20):
            await pilot.pause(0.02)
        assert gen.parts == 1  # not tried again until the library changes


async def test_the_course_map_says_what_a_lecture_covers_where_its_summary_is_written(
    home: Path, idle_soon: None
) -> None:
    from lecturetui.core.requests.door import write_summaries
    from lecturetui.tui.mapscreen import MapScreen

    gen = Summariser()
    app = _app(gen)  # never idle here: the summaries are those written below
    library = app.services.library
    written = {x.id for x in library.lectures()[::2]}  # every other lecture
    list(write_summaries(library, [x for x in library.lectures() if x.id in written],
                         lambda: gen, "Portuguese"))  # fmt: skip
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("slash")
        app.query_one("#question", Input).value = "tensor Flow prioriza GPU"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MapScreen)
        shown = set()
        for _ in screen.hits:
            lecture = screen.hits[screen.current].lecture
            gist = screen.query_one("#map-gist", Static)
            said = str(gist.render())
            assert gist.display == (lecture in written), lecture
            assert ("Em resumo: " in said) == (lecture in written)  # its first subject
            shown.add(lecture)
            await pilot.press("right")
        assert shown & written and shown - written  # both kinds seen
