"""The app, driven by keys through Textual's Pilot, with a fake embedder and generator."""

from __future__ import annotations

import itertools
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Input, OptionList, Static

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.lectures import StoredSegment
from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from lecturetui.tui import mainscreen
from lecturetui.tui.app import AppServices, LectureApp
from lecturetui.tui.screens import HelpScreen, HistoryScreen, LibraryScreen
from lecturetui.tui.segmentscreen import SegmentScreen
from tests.conftest import SEED_CORPUS
from tests.fakes import FakeEmbedder, FakeGenerator

QUESTION = "tensor Flow prioriza GPU"


class SlowGenerator(FakeGenerator):
    """Streams forever (until stopped), one word every 20 ms."""

    def stream(self, messages, max_tokens, stop=None, temperature=None):  # type: ignore[no-untyped-def]
        self.prompts.append(messages)
        for i in range(10_000):
            if stop is not None and stop.is_set():
                return
            time.sleep(0.02)
            yield f" palavra{i}"


def make_app(
    home: Path,
    generator: FakeGenerator | None = None,
    ingest: bool = True,
    llm_label: str = "fake",
    language: str = "",
) -> LectureApp:
    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    if ingest:
        library.ingest([SEED_CORPUS])
    gen = generator or FakeGenerator("Ele prioriza a placa [1]. Veja também [2].")
    return LectureApp(AppServices(library, lambda: gen, llm_label=llm_label, language=language))


def answer_text(app: LectureApp) -> str:
    return str(app.query_one("#answer", Static).render())


async def ask(pilot, app: LectureApp, question: str = QUESTION) -> None:  # type: ignore[no-untyped-def]
    await pilot.press("slash")
    app.query_one("#question", Input).value = question
    await pilot.press("enter")
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_ask_shows_hits_and_a_cited_answer(home: Path) -> None:
    app = make_app(home, language="pt")
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        await ask(pilot, app)
        hits = app.query_one("#hits", OptionList)
        assert hits.option_count == 10
        first = str(hits.get_option_at_index(0).prompt)
        assert "Aula" in first and "–" in first and "0," in first  # a decimal comma in Portuguese
        assert "[1]" in first  # the cited row is marked
        text = answer_text(app)
        assert "prioriza a placa [1]" in text and "Referências" in text
        assert app.focused is hits
        assert app.services.library.history.rows()[0][2] == QUESTION


async def test_move_and_open_a_segment_with_neighbours(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=(120, 32)) as pilot:
        await ask(pilot, app)
        await pilot.press("j", "j", "k")
        hits = app.query_one("#hits", OptionList)
        assert hits.highlighted == 1
        expected = app.main.hits[1].segment_id
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SegmentScreen) and screen.segment.id == expected
        title = str(screen.query_one("#segment-title", Static).render())
        assert app.main.hits[1].lecture_title in title
        library = app.services.library
        before = screen.segment
        around = library.neighbours(before)
        following = [s for s in around if s.ordinal == before.ordinal + 1]
        await pilot.press("right_square_bracket")  # the next segment of the same lecture
        if following:
            assert screen.segment.id == following[0].id
            assert screen.segment.start > before.start
            assert following[0].text[:20] in str(screen.query_one("#segment-text", Static).render())
        else:  # the last segment: ] stays
            assert screen.segment.id == before.id
        await pilot.press("left_square_bracket")
        assert screen.segment.id == before.id
        await pilot.press("escape")
        assert not isinstance(app.screen, SegmentScreen)


async def test_the_course_map_moves_from_hit_to_hit_and_opens_one(home: Path) -> None:
    from lecturetui.tui.mapscreen import MapScreen

    app = make_app(home)
    async with app.run_test(size=(120, 32)) as pilot:
        await pilot.press("c")  # no question yet: said, nothing opens
        await pilot.pause()
        assert not isinstance(app.screen, MapScreen)
        await ask(pilot, app)
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MapScreen)
        lectures = list(dict.fromkeys(h.lecture for h in app.main.hits))
        assert [row.lecture.id for row in screen.rows] == lectures
        drawn = str(screen.query_one("#map-grid", Static).render())
        assert all(title in drawn for title in (row.lecture.title for row in screen.rows))
        await pilot.press("right", "right", "left")
        second = app.main.hits[1]
        assert screen.hits[screen.current].segment_id == second.segment_id
        assert second.lecture_title in str(screen.query_one("#map-hit", Static).render())
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SegmentScreen)
        assert app.screen.segment.id == second.segment_id
        await pilot.press("escape", "escape")
        assert not isinstance(app.screen, MapScreen | SegmentScreen)


async def test_citation_key_selects_its_segment(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=(120, 32)) as pilot:
        await ask(pilot, app)
        second = next(p for p in app.main.passages if p.number == 2)
        await pilot.press("2")
        index = app.query_one("#hits", OptionList).highlighted
        assert index is not None and app.main.hits[index].segment_id in second.segment_ids


async def test_escape_stops_the_answer_and_a_new_question_replaces_it(home: Path) -> None:
    app = make_app(home, SlowGenerator())
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("slash")
        app.query_one("#question", Input).value = QUESTION
        await pilot.press("enter")
        for _ in range(100):
            await pilot.pause(0.05)
            if "palavra" in answer_text(app):
                break
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "palavra" in answer_text(app)
        status = str(app.query_one("#answer-status", Static).render())
        assert "stopped" in status
        # a new question cancels whatever is in flight, and its answer is the one shown
        app.services.load_generator = lambda: FakeGenerator("Resposta nova [1].")  # type: ignore[method-assign]
        app.models.generator = FakeGenerator("Resposta nova [1].")
        await ask(pilot, app, "GPU")
        assert "Resposta nova" in answer_text(app)


async def test_ingest_from_the_library_screen(home: Path, fixtures: Path, tmp_path: Path) -> None:
    # a cue of the fixture ends before it starts: ingested, repaired, and the log says so
    vtt = (fixtures / "lecture.vtt").read_text(encoding="utf-8")
    repaired = tmp_path / "lecture.vtt"
    repaired.write_text(
        vtt.replace("00:00:04.000 --> 00:00:09.250", "00:00:04.000 --> 00:00:03.250")
    )
    app = make_app(home)
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("tab")  # leave the question box
        await pilot.press("l")
        assert isinstance(app.screen, LibraryScreen)
        table = app.screen.query_one(DataTable)
        assert table.row_count == 8
        await pilot.press("i")
        field = app.screen.query_one("#ingest-path", Input)
        field.value = str(repaired)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert table.row_count == 9
        log = str(app.screen.query_one("#ingest-log", Static).render())
        assert "added" in log and "lecture.vtt" in log
        assert "note: 1 backwards cue time repaired (line 19)" in log


async def test_delete_and_edit_a_lecture_from_the_library_screen(home: Path) -> None:
    from lecturetui.tui.lecturedialogs import ConfirmScreen, EditLectureScreen

    app = make_app(home)
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("tab")
        await pilot.press("l")
        screen = app.screen
        assert isinstance(screen, LibraryScreen)
        table = screen.query_one(DataTable)
        first = screen.selected()
        assert first is not None and table.row_count == 8
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")  # declined: nothing happens
        assert app.screen is screen and table.row_count == 8
        await pilot.press("d")
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert table.row_count == 7
        library = app.services.library
        assert library.store.lecture(first.id) is None
        second = screen.selected()
        assert second is not None and second.id != first.id
        await pilot.press("e")
        dialog = app.screen
        assert isinstance(dialog, EditLectureScreen)
        dialog.query_one("#edit-title", Input).value = "Aula nova"
        dialog.query_one("#edit-course", Input).value = "Redes"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen
        edited = library.store.lecture(second.id)
        assert edited is not None and (edited.title, edited.course) == ("Aula nova", "Redes")
        assert "Aula nova" in [str(c) for c in table.get_row(second.id)]
        await pilot.press("e")
        app.screen.query_one("#edit-title", Input).value = "  "
        await pilot.press("enter")  # no title: refused, the dialog stays
        assert isinstance(app.screen, EditLectureScreen)
        await pilot.press("escape")
        assert app.screen is screen


async def test_hostile_files_from_the_ingest_screen_leave_the_app_running(
    home: Path, tmp_path: Path
) -> None:
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 1_000_000 + "]" * 1_000_000)
    garbage = tmp_path / "aula.vtt"
    garbage.write_bytes(bytes(range(256)) * 50)
    far = tmp_path / "far.vtt"
    far.write_text("WEBVTT\n\n99999999:00:01.000 --> 99999999:00:05.000\nolá\n")
    app = make_app(home)
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("tab")
        await pilot.press("l")
        table = app.screen.query_one(DataTable)
        before = table.row_count
        for bad in (nested, garbage, far):
            await pilot.press("i")
            app.screen.query_one("#ingest-path", Input).value = str(bad)
            await pilot.press("enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
            log = str(app.screen.query_one("#ingest-log", Static).render())
            assert bad.name in log and ("refused" in log or "failed" in log), log
            assert "Traceback" not in log
        assert app.is_running and isinstance(app.screen, LibraryScreen)
        assert table.row_count == before


@pytest.mark.parametrize(
    "question",
    [
        '"AND OR NEAR( * ^ col:',
        "\x00\x1b[2J\x07 bell",
        "ж" * 3000 + " 数据 🎓",
        "   \t  ",
        "?" * 10,
    ],
)
async def test_a_hostile_question_leaves_the_app_running(home: Path, question: str) -> None:
    app = make_app(home)
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("slash")
        app.query_one("#question", Input).value = question
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.is_running
        app.query_one("#question", Input).value = QUESTION  # and it still answers afterwards
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "prioriza a placa" in answer_text(app)


async def test_the_scope_picker_limits_the_hits_and_shows_in_the_status_line(home: Path) -> None:
    from lecturetui.tui.scopescreen import ScopeScreen

    app = make_app(home)
    async with app.run_test(size=(160, 32)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("tab")  # leave the question box
        await pilot.press("s")
        assert isinstance(app.screen, ScopeScreen)
        first = app.screen.choices[1]  # the first lecture, after "whole library"
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.main.scope == first and first.lectures
        status = str(app.query_one("#status", Static).render())
        assert f"lecture {first.lectures[0]}" in status
        await ask(pilot, app, "GPU servidor placa")
        hits = app.main.hits
        assert hits and {h.lecture for h in hits} == {first.lectures[0]}


async def test_lectures_ingested_elsewhere_show_up_while_the_app_is_open(
    home: Path, fixtures: Path
) -> None:
    app = make_app(home)
    async with app.run_test(size=(160, 32)) as pilot:
        await app.workers.wait_for_complete()
        assert "8 lectures" in str(app.query_one("#status", Static).render())
        other = Library(DataHome.resolve(), embedder=FakeEmbedder())  # e.g. `ingest --watch`
        other.ingest([fixtures / "lecture.vtt"])
        other.close()
        for _ in range(50):
            await pilot.pause(0.1)
            if "9 lectures" in str(app.query_one("#status", Static).render()):
                break
        assert "9 lectures" in str(app.query_one("#status", Static).render())


async def test_the_library_screen_says_where_the_models_run(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=(160, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("tab")
        await pilot.press("l")
        await app.workers.wait_for_complete()
        await pilot.pause()
        doctor = str(app.screen.query_one("#doctor", Static).render())
        assert "GPU:" in doctor and "E5: cpu" in doctor
        assert "llama.cpp CPU" in doctor or "llama.cpp CUDA" in doctor


async def test_empty_library_says_what_to_do(home: Path) -> None:
    app = make_app(home, ingest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "empty" in answer_text(app).lower() or "vazia" in answer_text(app).lower()
        await ask(pilot, app, "gpu")
        assert "empty" in answer_text(app).lower()


async def test_missing_model_is_a_message_not_a_crash(home: Path) -> None:
    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    library.ingest([SEED_CORPUS])

    def missing() -> FakeGenerator:
        raise LectureTuiError("No answer model 'x.gguf'.", hint="give a .gguf path")

    app = LectureApp(AppServices(library, missing))
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "No answer model" in str(app.query_one("#status", Static).render())
        await ask(pilot, app)
        assert app.query_one("#hits", OptionList).option_count == 10  # search still works
        assert "No answer model" in answer_text(app)


async def test_history_reopens_an_old_answer_and_help_lists_keys(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=(120, 32)) as pilot:
        await ask(pilot, app)
        app.query_one("#answer", Static).update("")
        await pilot.press("h")
        assert isinstance(app.screen, HistoryScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert "prioriza a placa [1]" in answer_text(app)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")


async def test_the_keys_the_first_screen_names_work_from_the_question_box(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        box = app.query_one("#question", Input)
        assert app.focused is box  # where the student starts
        guide = answer_text(app)
        assert "? or F1" in guide and "Ctrl+L" in guide
        await pilot.press("question_mark")  # on the empty box: the help, nothing typed
        assert isinstance(app.screen, HelpScreen) and box.value == ""
        await pilot.press("escape")
        assert app.focused is box
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        assert app.focused is box
        await pilot.press("ctrl+l")
        assert isinstance(app.screen, LibraryScreen)
        await pilot.press("ctrl+l")  # already there: not a second one
        assert sum(isinstance(s, LibraryScreen) for s in app.screen_stack) == 1
        await pilot.press("escape")
        assert app.focused is box
        await pilot.press("w", "h", "y", "question_mark", "l")  # after text, ? and l are typed
        assert box.value == "why?l" and app.screen is app.main


async def test_an_empty_library_names_the_key_that_opens_it_from_the_question_box(
    home: Path,
) -> None:
    app = make_app(home, ingest=False)
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Ctrl+L" in answer_text(app)
        await pilot.press("l")  # the list of lectures has the focus: l opens the library too
        assert isinstance(app.screen, LibraryScreen)
        await pilot.press("escape", "slash")
        box = app.query_one("#question", Input)
        assert app.focused is box
        await pilot.press("ctrl+l")
        assert isinstance(app.screen, LibraryScreen) and box.value == ""


@pytest.mark.slow
async def test_end_to_end_with_the_real_small_models(home: Path, e5) -> None:  # type: ignore[no-untyped-def]
    """The app over the seed corpus with the real E5 and the real 0.5B answer model in its own
    process, as the product runs it: Esc while the model reads the prompt ends the answer before
    its first word, and the next question is answered."""

    from lecturetui.core.llm.process import open_model
    from lecturetui.core.models.gguf import BUNDLED, FAST_LLM, assemble
    from tests.conftest import MODELS_DIR

    reading = threading.Event()
    pieces: list[int] = []

    class Watched:
        """The product's model, telling the test when a reply is asked for and what came."""

        def __init__(self, model: Any) -> None:
            self.model = model

        def __getattr__(self, name: str) -> Any:
            return getattr(self.model, name)

        def stream(self, messages, max_tokens, stop=None, temperature=None):  # type: ignore[no-untyped-def]
            pieces.append(0)
            reading.set()
            for piece in self.model.stream(messages, max_tokens, stop, temperature):
                pieces[-1] += 1
                yield piece

    library = Library(DataHome.resolve(), embedder=e5)
    library.ingest([SEED_CORPUS])
    path = assemble(BUNDLED[FAST_LLM], MODELS_DIR)

    def load() -> Any:
        return Watched(open_model(path, n_ctx=4096, log=library.home.log_file))

    app = LectureApp(AppServices(library, load, FAST_LLM))
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        assert app.models.generator is not None
        await pilot.press("slash")
        app.query_one("#question", Input).value = "Como funciona a multiplicação de matrizes?"
        await pilot.press("enter")
        while not reading.is_set():
            await pilot.pause(0.01)
        await pilot.press("escape")  # the model is reading the prompt: it stops there
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert pieces == [0]
        assert "stopped" in str(app.query_one("#answer-status", Static).render())
        await ask(pilot, app, "O TensorFlow prioriza a execução de operações em qual dispositivo?")
        assert app.query_one("#hits", OptionList).option_count == 10
        assert "GPU" in answer_text(app).upper()
        app.models.generator.close()  # type: ignore[attr-defined]


async def test_mode_key_cycles_the_search_mode_used_by_the_next_question(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        assert app.main.mode == "hybrid"
        await pilot.press("escape")  # leave the question box so keys are commands
        app.query_one("#hits", OptionList).focus()
        await pilot.press("m")
        assert app.main.mode == "dense"
        assert "search: meaning" in str(app.query_one("#status", Static).render())
        await ask(pilot, app)
        assert all(set(h.retrievers) == {"dense"} for h in app.main.hits)
        app.query_one("#hits", OptionList).focus()
        await pilot.press("m")
        await ask(pilot, app)
        assert app.main.mode == "lexical" and all(
            set(h.retrievers) == {"lexical"} for h in app.main.hits
        )
        assert " ·=· " in str(app.query_one("#hits", OptionList).get_option_at_index(0).prompt)


async def test_evaluation_records_are_labelled_with_single_keys(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lecturetui.core.evaluation.judge import Relevance
    from lecturetui.core.evaluation.saved_runs import EvalPayload, JudgeRecord, Runs
    from lecturetui.tui.evalscreens import EvalRecordsScreen, EvalRunsScreen

    app = make_app(home)
    runs = Runs(app.services.library.store)
    run_id = runs.open("k1", "perguntas.jsonl", {"mode": "hybrid", "llm": "fake"})
    for n in (1, 2, 3):
        judge = JudgeRecord(Relevance(3, "on topic", "all of it"), auto_label="C")
        runs.save(run_id, n, f"pergunta {n}?",
                  EvalPayload(f"pergunta {n}?", f"resposta {n}", number=n, judge=judge))  # fmt: skip
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        app.query_one("#hits", OptionList).focus()
        await pilot.press("e")
        assert isinstance(app.screen, EvalRunsScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, EvalRecordsScreen)
        assert "resposta 1" in str(app.screen.query_one("#record", Static).render())
        title = str(app.screen.query_one("#records-title", Static).render())
        assert "0/3 annotated" in title
        await pilot.press("c")  # labels Q1, moves to Q2
        await pilot.press("i")  # labels Q2, moves to Q3
        await pilot.press("k", "x")  # back to Q2, clears it
        await pilot.pause()
        assert "resposta 2" in str(app.screen.query_one("#record", Static).render())
        opened: list[str | None] = []
        monkeypatch.setattr(mainscreen, "open_link", lambda app, url: opened.append(url))
        await pilot.press("o", "m")  # the main screen's keys do nothing here
        assert opened == [] and app.main.mode == "hybrid"
        await pilot.press("slash")  # back to the main screen, ready for a question
        await pilot.pause()
        assert len(app.screen_stack) == 1 and app.focused is app.query_one("#question", Input)
        await pilot.press("escape")
        app.query_one("#hits", OptionList).focus()
        await pilot.press("o")
        assert opened == [app.main.hits[0].url if app.main.hits else None]
    labels = {r.number: r.manual_label for r in runs.records(run_id)}
    assert labels == {1: "C", 2: None, 3: None}


class GatedGenerator(FakeGenerator):
    """Writes nothing until `gate` is set: what the screen shows before the first token."""

    def __init__(self, answer: str) -> None:
        super().__init__(answer)
        self.gate = threading.Event()

    def stream(self, messages, max_tokens, stop=None, temperature=None):  # type: ignore[no-untyped-def]
        self.prompts.append(messages)
        while not self.gate.wait(0.02):
            if stop is not None and stop.is_set():
                return
        for i, word in enumerate(self.answer.split(" ")):
            yield word if i == 0 else " " + word


def evidence_text(app: LectureApp) -> str:
    return str(app.query_one("#evidence", Static).render())


async def test_evidence_is_shown_before_the_first_answer_token(home: Path) -> None:
    gen = GatedGenerator("Ele prioriza a placa [1].")
    app = make_app(home, gen)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()  # models loaded, sentences embedded
        await pilot.press("slash")
        app.query_one("#question", Input).value = QUESTION
        await pilot.press("enter")
        for _ in range(200):
            await pilot.pause(0.05)
            if gen.prompts and evidence_text(app):
                break
        shown = evidence_text(app)
        assert shown.startswith("Evidence") and "Aula" in shown
        # the model has its prompt and wrote nothing: the answer shows the lecturer's words alone
        assert gen.prompts and answer_text(app).startswith("“")
        assert answer_text(app).rstrip().endswith("[1]")
        assert app.query_one("#hits", OptionList).option_count == 10
        gen.gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "prioriza a placa [1]" in answer_text(app)
        history = app.services.library.history
        entry = history.exchange()
        assert entry is not None
        record = history.entry(entry.entry_id)
        assert record is not None
        best = record.evidence[0]
        assert best.text in evidence_text(app)  # still above the answer
        # Enter on its segment: the sentence is highlighted in the segment's text
        row = next(i for i, h in enumerate(app.main.hits) if h.segment_id == best.segment_id)
        app.query_one("#hits", OptionList).highlighted = row
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SegmentScreen) and best.text in screen.evidence
        body = screen.query_one("#segment-text", Static).render()
        assert best.text in str(body)


def test_highlighted_marks_the_sentences_a_segment_holds() -> None:
    from lecturetui.tui.render import highlighted

    raw = "a  GPU é\nrápida né e a CPU não"
    text = highlighted(raw, None, ["GPU é rápida", "ausente"])
    assert text.plain == raw  # offsets stay those of the stored text
    assert [(s.start, s.end, str(s.style)) for s in text.spans] == [(3, 15, "bold yellow")]
    both = highlighted(raw, (16, 25), ["GPU é rápida"])
    assert [(s.start, s.end, str(s.style)) for s in both.spans] == [
        (16, 25, "bold reverse"),
        (3, 15, "bold yellow"),
    ]


async def test_a_follow_up_is_searched_with_the_previous_question(home: Path) -> None:
    gen = FakeGenerator("Ele prioriza a placa [1]. Isso acelera as operações [2].")
    app = make_app(home, gen)
    library = app.services.library
    searched: list[str] = []
    search = library.search

    def spy(query, *args, **kwargs):  # type: ignore[no-untyped-def]
        searched.append(getattr(query, "text", query))  # a question's facts carry its text
        return search(query, *args, **kwargs)

    library.search = spy  # type: ignore[method-assign]
    async with app.run_test(size=(120, 32)) as pilot:
        await ask(pilot, app)
        await ask(pilot, app, "e por quê?")
        assert searched[-1] == f"{QUESTION} e por quê?"
        prompt = gen.prompts[-1]
        assert {"role": "user", "content": QUESTION} in prompt[:-1]  # the last exchange
        assert "a follow-up" in str(app.query_one("#answer-status", Static).render())
        await pilot.press("n")  # a new thread: the next short question stands alone
        await ask(pilot, app, "e por quê?")
        assert searched[-1] == "e por quê?"
        assert {"role": "user", "content": QUESTION} not in gen.prompts[-1]
        await pilot.press("h")
        assert isinstance(app.screen, HistoryScreen)
        rows = [str(app.screen.query_one(OptionList).get_option_at_index(i).prompt)
                for i in range(3)]  # fmt: skip
        assert rows[0].endswith("e por quê?") and "↳" not in rows[0]  # the newest thread
        assert rows[1].endswith(QUESTION) and "↳ e por quê?" in rows[2]


async def test_both_models_devices_survive_a_100_column_status_line(home: Path) -> None:
    app = make_app(home, llm_label="qwen2.5-coder-1.5b")
    async with app.run_test(size=(100, 32)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        line = str(app.query_one("#status", Static).render())
        end = line.index("qwen2.5-coder-1.5b") + len("qwen2.5-coder-1.5b")
        assert line.index("E5 CPU") < end <= 100  # not cut off: the settings come after
        assert line.index("≤ 8 s") > end


async def test_t_cycles_the_time_budget_shown_in_the_status_line(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=(160, 32)) as pilot:
        await app.workers.wait_for_complete()
        assert "first words ≤ 8 s" in str(app.query_one("#status", Static).render())
        app.query_one("#hits", OptionList).focus()
        await pilot.press("t")
        assert app.main.ttft == 15.0 and "≤ 15 s" in str(app.query_one("#status", Static).render())


async def test_the_settings_changed_in_the_app_are_kept_for_the_next_start(home: Path) -> None:
    from lecturetui.cli.app_cmd import remembering
    from lecturetui.core.settings import load_settings

    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    library.ingest([SEED_CORPUS])
    gen = FakeGenerator("Ele prioriza a placa [1].")
    services = AppServices(
        library, lambda: gen, mode="lexical", remember=remembering(home / "settings.toml")
    )
    app = LectureApp(services)
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        assert app.main.mode == "lexical"  # from the settings (the command's default_map)
        await pilot.press("escape")
        app.query_one("#hits", OptionList).focus()
        await pilot.press("m", "t", "g")
    saved = load_settings(home / "settings.toml")["app"]
    assert saved["mode"] == "hybrid" and saved["ttft"] == app.main.ttft
    assert saved["guess"] == app.main.guess


async def test_a_burst_of_tokens_is_coalesced_into_few_repaints_without_call_from_thread(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lecturetui.tui.asking import AskingScreen

    words = " ".join(f"palavra{i}" for i in range(400))
    app = make_app(home, FakeGenerator(f"{words} [1]."))

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("a worker touched the app through call_from_thread")

    monkeypatch.setattr(type(app), "call_from_thread", forbidden)
    repaints: list[str] = []
    original = AskingScreen.stream_update

    def counting(self: AskingScreen, text: str) -> None:
        repaints.append(text)
        original(self, text)

    monkeypatch.setattr(AskingScreen, "stream_update", counting)
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        await ask(pilot, app)
        assert "palavra399" in answer_text(app)  # the whole answer arrived
    # never more than one repaint a token (how many fewer depends on the machine's speed)
    assert repaints and len(repaints) <= 402
    assert all(a in b for a, b in itertools.pairwise(repaints))  # each repaint the newest text
    # what makes a burst few repaints: a waiting update is replaced by a newer one of its question
    from lecturetui.tui.messages import AnswerGrew

    assert AnswerGrew(3, "a").can_replace(AnswerGrew(3, "ab"))
    assert not AnswerGrew(3, "a").can_replace(AnswerGrew(4, "ab"))


async def test_the_first_screen_asks_an_example_and_reopens_the_last_question(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        options = app.query_one("#hits", OptionList)
        ids = [options.get_option_at_index(i).id or "" for i in range(options.option_count)]
        assert not any(i.startswith("recent:") for i in ids)  # nothing asked yet
        examples = [i for i in ids if i.startswith("example:")]
        assert examples, "questions drawn from the lectures"
        terms = {t.term for t in app.services.library.topics(3)}
        question = app.main.examples[0]
        assert any(term in question for term in terms)
        options.focus()
        options.highlighted = ids.index(examples[0])
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.query_one("#question", Input).value == question
        assert app.main.hits and "placa [1]" in answer_text(app)
    again = LectureApp(AppServices(app.services.library, lambda: FakeGenerator("outra [1].")))
    async with again.run_test(size=(120, 32)) as pilot:
        await again.workers.wait_for_complete()
        await pilot.pause()
        options = again.query_one("#hits", OptionList)
        ids = [options.get_option_at_index(i).id or "" for i in range(options.option_count)]
        recent = [i for i in ids if i.startswith("recent:")]
        assert len(recent) == 1
        options.focus()
        options.highlighted = ids.index(recent[0])
        await pilot.press("enter")
        await pilot.pause()
        assert again.query_one("#question", Input).value == question
        assert "placa [1]" in answer_text(again)  # the answer as it was given, not asked again


def _app_with_chapters(
    home: Path, titles: dict[str, int]
) -> tuple[LectureApp, str, list[StoredSegment]]:
    """The demo app with chapters on a lecture of three segments or more: each title begins
    a second into the segment of that index (the first at 0)."""
    from lecturetui.core.lectures import Chapter

    app = make_app(home)
    library = app.services.library
    lecture = next(lec for lec in library.lectures() if len(library.store.segments(lec.id)) >= 3)
    segments = library.store.segments(lecture.id)
    chapters = [Chapter(segments[i].start + 1 if i else 0.0, title) for title, i in titles.items()]
    library.store.save_chapters(lecture.id, chapters)
    return app, lecture.id, segments


async def test_the_segment_screen_names_its_chapter_and_moves_between_chapters(
    home: Path,
) -> None:
    app, _, segments = _app_with_chapters(home, {"Abertura": 0, "GPUs": 1, "Fim": -1})
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        app.push_screen(SegmentScreen(segments[0]))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SegmentScreen)

        def line() -> str:
            return str(screen.query_one("#timeline", Static).render())

        assert "1/3 00:00:00 Abertura" in line()
        await pilot.press("right_curly_bracket")
        assert screen.segment.id == segments[1].id and "2/3" in line() and "GPUs" in line()
        await pilot.press("right_curly_bracket")
        assert screen.segment.id == segments[-1].id and "3/3" in line() and "Fim" in line()
        await pilot.press("right_curly_bracket")  # the last chapter: } stays
        assert screen.segment.id == segments[-1].id
        await pilot.press("left_curly_bracket", "left_curly_bracket")
        assert screen.segment.id == segments[0].id and "Abertura" in line()


async def test_an_older_lecture_gets_its_chapters_when_the_app_opens(
    home: Path, fixtures: Path, tmp_path: Path
) -> None:
    import json
    import shutil
    import sqlite3

    src = tmp_path / "downloads"
    src.mkdir()
    shutil.copy(fixtures / "lecture.vtt", src / "aula.vtt")
    app = make_app(home, ingest=False)
    library = app.services.library
    library.ingest([src / "aula.vtt"])
    [lecture] = library.lectures()
    # as a library stored before chapters were kept left it, with the info file there
    db = sqlite3.connect(library.store.path)
    db.execute("UPDATE lectures SET chapters_read = 0")
    db.commit()
    db.close()
    chapters = [{"start_time": 0, "title": "Abertura"}, {"start_time": 30, "title": "GPUs"}]
    (src / "aula.info.json").write_text(json.dumps({"chapters": chapters}), "utf-8")
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert [c.title for c in library.store.chapters(lecture.id)] == ["Abertura", "GPUs"]
        assert library.store.chapters_unread() == []
        assert any("Chapters read for 1 older lecture" in str(n.message)
                   for n in app._notifications)  # fmt: skip
        assert "chapters:" not in str(app.query_one("#status", Static).render())


class Reading(FakeGenerator):
    """A model on the CPU that reads moments: how likely each answers, in turn."""

    def __init__(self, likely: list[float]) -> None:
        super().__init__("Ele prioriza a placa [1].")
        self.likely = likely
        self.checked = 0

    def yes_probability(self, messages: list[dict[str, str]]) -> float:
        self.checked += 1
        return self.likely[(self.checked - 1) % len(self.likely)]


@pytest.mark.parametrize("case", ["close moments", "just under the threshold"])
async def test_two_moments_in_doubt_are_both_shown_and_nothing_explained(
    home: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    from lecturetui.core.answer import verdict

    if case == "close moments":  # every first two moments count as close ...
        monkeypatch.setattr(verdict, "DOUBT_MARGIN", 1.0)
        monkeypatch.setattr(verdict, "CHECK_MARGIN", 1.0)
        gen = Reading([0.3, 0.6])  # ... and the model finds the second likelier
    else:  # every question scores just under the threshold ...
        monkeypatch.setattr(verdict, "COVERAGE_THRESHOLD", 2.0)
        monkeypatch.setattr(verdict, "OTHER_LANGUAGE_THRESHOLD", 2.0)
        monkeypatch.setattr(verdict, "NEAR_BAND", 3.0)
        gen = Reading([0.9])  # ... and the model finds its moments likely to answer
    library = Library(DataHome.resolve(), embedder=FakeEmbedder(),
                      reranker=FakeEmbedder(dim=48, model_id="fake-gemma"))  # fmt: skip
    library.ingest([SEED_CORPUS])
    library.sync_rerank()
    app = LectureApp(AppServices(library, lambda: gen, llm_label="fake", language="pt"))
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        question = "O TensorFlow prioriza a execução de operações em qual dispositivo?"
        await ask(pilot, app, question)
        text = answer_text(app)
        assert "Não tenho certeza de qual destes dois momentos" in text  # the question's language
        assert "[1]" in text and "[2]" in text and "prioriza a placa" not in text
        assert "não parecem" not in text  # not refused
        assert gen.checked == 2 and not gen.prompts  # read, and no explanation written
        assert app.services.library.history.rows()[0][2] == question


async def test_a_lecture_s_outline_opens_from_the_library_and_the_segment_screen(
    home: Path,
) -> None:
    from lecturetui.tui.outlinescreen import OutlineScreen

    app, lecture_id, segments = _app_with_chapters(home, {"Abertura": 0, "Fim": -1})
    library = app.services.library
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("tab")
        await pilot.press("l")
        table = app.screen.query_one(DataTable)
        table.focus()
        table.move_cursor(row=[x.id for x in library.lectures()].index(lecture_id))
        await pilot.press("enter")
        await pilot.pause()
        outline = app.screen
        assert isinstance(outline, OutlineScreen)
        options = outline.query_one("#outline", OptionList)
        lines = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert lines[0].startswith("00:00:00  Abertura") and "Fim" in lines[1]
        assert "2 chapters" in str(outline.query_one("#outline-title", Static).render())
        await pilot.press("down", "enter")  # the last chapter's segment
        await pilot.pause()
        shown = app.screen
        assert isinstance(shown, SegmentScreen) and shown.segment.id == segments[-1].id
        await pilot.press("O")  # the outline again, at that chapter
        await pilot.pause()
        assert isinstance(app.screen, OutlineScreen)
        assert app.screen.query_one("#outline", OptionList).highlighted == 1
        await pilot.press("up", "enter")  # the first chapter, in the same segment screen
        await pilot.pause()
        assert app.screen is shown and shown.segment.id == segments[0].id
        # a lecture without chapters: its segments by time
        other = next(lec for lec in library.lectures() if lec.id != lecture_id)
        app.push_screen(OutlineScreen(other.id))
        await pilot.pause()
        listed = app.screen.query_one("#outline", OptionList)
        assert listed.option_count == len(library.store.segments(other.id))
        assert "no chapters" in str(app.screen.query_one("#outline-title", Static).render())


async def test_s_asks_for_the_lecture_s_summary_from_its_screens(home: Path) -> None:
    from lecturetui.tui.outlinescreen import OutlineScreen
    from tests.core.summary.test_writing import PartsThenGist

    gen = PartsThenGist("Esta parte apresenta o assunto.", "A aula trata do assunto [1].")
    app = make_app(home, generator=gen, language="en")
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        lecture = app.services.library.lectures()[0]
        app.push_screen(OutlineScreen(lecture.id))
        await pilot.pause()
        await pilot.press("S")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is app.main  # back on the main screen
        assert app.query_one("#question", Input).value.startswith("Summarise this lecture")
        text = answer_text(app)
        assert lecture.title in text and "In short" in text and "Subjects: " in text
        assert gen.asked  # each part named by the model (its labels are the subjects)
        record = app.services.library.history.rows()[0]
        assert record[2].startswith("Summarise this lecture")
        # the part summaries were asked in the question's language
        assert gen.prompts and "in English" in gen.prompts[0][0]["content"]


async def test_a_summary_s_parts_are_rows_to_move_through(home: Path) -> None:
    """A summary's parts fill the left pane (time, label) in place of hits: j/k and 1-9 move
    through them, Enter opens the part's segment with its neighbours, x writes the notes; a
    course overview's lectures likewise, Enter asking for that lecture's summary."""
    from lecturetui.tui.segmentscreen import SegmentScreen
    from tests.core.summary.test_writing import PartsThenGist

    gen = PartsThenGist("Esta parte apresenta o assunto.", "A aula trata do assunto [1].")
    app = make_app(home, generator=gen, language="en")
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        library = app.services.library
        lecture = max(library.lectures(), key=lambda x: len(library.parts(x)))
        app.main.ask_summary(lecture.id)
        await app.workers.wait_for_complete()
        await pilot.pause()
        rows = app.query_one("#hits", OptionList)
        summary = app.main.shown
        assert summary is not None and summary.kind == "summary" and len(summary.parts) >= 2
        ids = [rows.get_option_at_index(i).id for i in range(rows.option_count)]
        assert ids == [f"part:{p.number}" for p in summary.parts]
        assert "No segment found" not in str(rows.get_option_at_index(0).prompt)
        rows.focus()
        await pilot.press("j")
        assert rows.highlighted == 1 and app.main.current_part() == summary.parts[1]
        await pilot.press("k", "2")
        assert rows.highlighted == 1
        await pilot.press("enter")
        await pilot.pause()
        shown = app.screen
        assert isinstance(shown, SegmentScreen) and shown.segment.lecture_id == lecture.id
        assert shown.segment.start <= summary.parts[1].start_s + 0.5 < shown.segment.end + 0.5
        await pilot.press("escape")
        await pilot.pause()
        assert app.main.current_url() == summary.parts[1].url
        await pilot.press("x")  # the summary as study notes
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert list(app.services.export_dir.glob(f"summary-{lecture.id}.md"))
        # a course overview: a row per lecture, Enter asks for that lecture's summary
        app.main.ask("O que este curso cobre?")
        await app.workers.wait_for_complete()
        await pilot.pause()
        overview = app.main.shown
        assert overview is not None and overview.kind == "overview"
        assert rows.option_count == len(overview.lectures) == len(library.lectures())
        rows.focus()
        await pilot.press("j", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        again = app.main.shown
        assert again is not None and again.kind == "summary"
        assert again.lecture == overview.lectures[1]
