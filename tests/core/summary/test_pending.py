"""The summaries still to write (core/summary/pending.py): which lectures, in course order, and
writing them one after another, a stop keeping what was written; with fakes."""

from __future__ import annotations

import threading
from pathlib import Path

from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from lecturetui.core.requests.door import write_summaries
from lecturetui.core.summary.named import course_order
from lecturetui.core.summary.pending import pending_summaries
from tests.conftest import SEED_CORPUS
from tests.core.summary.test_writing import PartsThenGist
from tests.fakes import FakeEmbedder, FakeGenerator


def _library() -> Library:
    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    library.ingest([SEED_CORPUS])
    return library


def _model() -> PartsThenGist:
    return PartsThenGist("Esta parte explica o que o professor diz.", "A aula explica tudo.")


def test_every_lecture_is_pending_in_course_order_until_its_summary_is_whole(home: Path) -> None:
    library = _library()
    lectures = library.lectures()
    pending = pending_summaries(library, "fake.gguf", "Portuguese")
    assert pending == sorted(lectures, key=course_order) and len(pending) > 1
    gen = _model()
    done = [p for p in write_summaries(library, pending[:1], lambda: gen, "Portuguese")
            if p.whole]  # fmt: skip
    assert [p.lecture for p in done] == pending[:1] and done[0].gist is not None
    assert pending_summaries(library, "fake.gguf", "Portuguese") == pending[1:]
    # by another model, or in another language, it is still to write
    assert pending_summaries(library, "other.gguf", "Portuguese") == pending
    assert pending_summaries(library, "fake.gguf", "English") == pending
    # among some lectures only (those an ingest added)
    assert pending_summaries(library, "fake.gguf", "Portuguese", pending[:2]) == pending[1:2]
    library.close()


def test_progress_says_which_lecture_and_which_part(home: Path) -> None:
    library = _library()
    pending = pending_summaries(library, "fake.gguf", "Portuguese")[:2]
    seen = list(write_summaries(library, pending, _model, "Portuguese"))
    first = [p for p in seen if p.lecture == pending[0]]
    assert first[0].number == 1 and first[0].lectures == 2 and first[0].written == 0
    parts = first[0].parts
    assert parts > 0 and first[0].part == 1
    assert [p.written for p in first] == [0, *range(1, parts + 1), parts]
    assert first[-1].whole and first[-1].part == parts + 1  # the gist came last
    assert seen[-1].lecture == pending[1] and seen[-1].number == 2 and seen[-1].whole
    assert pending_summaries(library, "fake.gguf", "Portuguese", pending) == []
    library.close()


def test_a_stop_ends_it_keeping_the_parts_written(home: Path) -> None:
    library = _library()
    pending = sorted(pending_summaries(library, "fake.gguf", "Portuguese"),
                     key=lambda x: -x.segment_count)  # fmt: skip
    stop = threading.Event()
    gen = _model()
    seen = []
    for progress in write_summaries(library, pending, lambda: gen, "Portuguese", stop):
        seen.append(progress)
        if progress.written == 1:
            stop.set()  # the student asks a question while the second part is being written
    assert seen[-1].written == 1 and not seen[-1].whole
    assert {p.lecture.id for p in seen} == {pending[0].id}  # the next lectures not started
    assert pending_summaries(library, "fake.gguf", "Portuguese") == sorted(
        pending, key=course_order
    )
    # resumed: the part written before the stop is read back, not written again
    again = _model()
    list(write_summaries(library, pending[:1], lambda: again, "Portuguese"))
    parts = seen[0].parts
    assert len([m for m in again.prompts if "These parts:" not in m[-1]["content"]]) == parts - 1
    assert pending[0] not in pending_summaries(library, "fake.gguf", "Portuguese")
    library.close()


def test_without_a_model_it_ends_at_the_first_lecture(home: Path) -> None:
    library = _library()
    pending = pending_summaries(library, "fake.gguf", "Portuguese")
    seen = list(write_summaries(library, pending, lambda: None, "Portuguese"))
    assert {p.lecture.id for p in seen} == {pending[0].id} and not any(p.whole for p in seen)
    library.close()


def test_each_lecture_in_its_own_language_when_none_is_given(home: Path) -> None:
    library = _library()
    pending = pending_summaries(library, "fake.gguf")[:1]
    gen = FakeGenerator("Uma parte.")
    list(write_summaries(library, pending, lambda: gen))
    assert gen.prompts and "in Portuguese" in gen.prompts[0][0]["content"]
    library.close()
