"""The summaries not written yet, written while the app is idle (core/summary/pending.py, each
through the front door: core/requests/door.py's write_summaries): no question running and no key
typed for IDLE_S seconds (first, the key phrases of lectures kept before they were found at
ingest: core/study/lecture_keyphrases.py). A question (a summary asked for too) stops it at
once, between two tokens: the part being written is dropped, those written are kept, and it
goes on when the app is idle again. The answer model is the questions' own, so the two never
write at once: a question waits for the writer to stop (`hush`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from lecturetui.core.i18n import _, language
from lecturetui.core.language import language_name
from lecturetui.core.library import Library
from lecturetui.core.llm.model import Generator
from lecturetui.core.requests.door import write_summaries
from lecturetui.core.summary.pending import SummaryProgress, part_label, pending_summaries
from lecturetui.tui.messages import SummariesProgress

#: seconds without a question running or a key typed before the summaries are written
IDLE_S = 30.0
#: how often the app looks whether it is idle, in seconds
CHECK_S = 1.0
#: how long a question waits at most for the writer to stop (it stops between two tokens)
HUSH_S = 30.0
#: a lecture's title in the status line, at most
TITLE_CHARS = 28


def app_language() -> str:
    """The language the app's summaries are written and read in: the one it speaks, by name."""
    return language_name(language())


class IdleSummaries:
    """When the summaries are written in the background, and how they are stopped: the app
    holds one, its timer asks `due`, a key `touched`, a question `hush`."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.last_activity = time.monotonic()
        self.stop = threading.Event()
        self.quiet = threading.Event()  # set while nothing is being written
        self.quiet.set()
        #: the library (its counts) when nothing was left to write, or writing failed: not
        #: looked at again until it changes
        self.settled: tuple[int, int] | None = None

    def touched(self) -> None:
        """A key was typed (or a question asked): the app is not idle."""
        self.last_activity = time.monotonic()

    def due(self, busy: bool, library: tuple[int, int]) -> bool:
        """Whether to start writing now: on, not `busy` (a question running, no answer model),
        not writing already, something may be left to write, and idle for IDLE_S seconds (since
        the last key, or since it was last seen busy: the end of the last question)."""
        if busy:
            self.touched()
        return (
            self.enabled
            and not busy
            and self.quiet.is_set()
            and library != self.settled
            and time.monotonic() - self.last_activity >= IDLE_S
        )

    def start(self) -> threading.Event:
        """The stop event of a run about to start (the app's thread clears `quiet` first, so a
        question asked meanwhile waits for it)."""
        self.stop = threading.Event()
        self.quiet.clear()
        return self.stop

    def hush(self) -> None:
        """Stop writing now and wait until the answer model is free (a question's thread)."""
        self.touched()
        self.stop.set()
        self.quiet.wait(HUSH_S)

    def run(
        self,
        library: Library,
        generator: Generator,
        language: str,
        stop: threading.Event,
        post: Callable[[SummariesProgress], object],
    ) -> None:
        """Write the pending summaries (a worker's thread, after `start`), each step posted for
        the status line. Once nothing is left to write, or writing failed (the worker's failure
        is said once), the library as it is now is not looked at again."""
        counts = library.counts()
        written = 0
        try:
            library.find_keyphrases(stop)  # of lectures kept before they were found at ingest
            pending = pending_summaries(library, generator.name, language, stop=stop)
            for progress in write_summaries(
                library, pending, lambda: generator, language, stop, generator.name
            ):
                written += progress.whole
                post(SummariesProgress(progress_label(progress), written))
            if not stop.is_set():
                self.settled = counts
        except BaseException:
            self.settled = counts
            raise
        finally:
            self.quiet.set()
            post(SummariesProgress("", written, done=True))


def progress_label(progress: SummaryProgress) -> str:
    """ "summaries 2/5: Aula 3, part 3 of 9", for the status line."""
    title = progress.lecture.title
    if len(title) > TITLE_CHARS:
        title = title[: TITLE_CHARS - 1] + "…"
    label = _("summaries {n}/{total}: {title}").format(
        n=progress.number, total=progress.lectures, title=title
    )
    part = part_label(progress)
    return f"{label}, {part}" if part else label
