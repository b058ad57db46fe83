"""Every message of the app: what its workers post (a worker never touches a widget) and what a
screen tells the app. Handled by the screen that posted it, or by the app as it bubbles up."""

from __future__ import annotations

import traceback
from typing import TYPE_CHECKING

from textual.message import Message

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.records import (
    FoundRecord,
    HitRecord,
    Kept,
    PassageRecord,
    SummaryRecord,
)

if TYPE_CHECKING:
    from lecturetui.core.conversation import Turn
    from lecturetui.core.study.topics import Topic


class QuestionMessage(Message):
    """An event of the question numbered `serial` (AskingScreen.serial), from its worker."""

    def __init__(self, serial: int) -> None:
        super().__init__()
        self.serial = serial


class QuestionStarted(QuestionMessage):
    pass


class EvidenceShown(QuestionMessage):
    """What the question found, before the model writes (core/records.py's FoundRecord)."""

    def __init__(self, serial: int, found: FoundRecord) -> None:
        super().__init__(serial)
        self.found = found


class PromptShown(QuestionMessage):
    def __init__(self, serial: int, hits: list[HitRecord], passages: list[PassageRecord]) -> None:
        super().__init__(serial)
        self.hits = hits
        self.passages = passages


class SummaryShown(QuestionMessage):
    """A lecture's summary so far: its parts, then each part's label, then the gist."""

    def __init__(self, serial: int, summary: SummaryRecord, done: int) -> None:
        super().__init__(serial)
        self.summary = summary
        self.done = done  # parts labelled so far

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SummaryShown) and message.serial == self.serial


class AnswerGrew(QuestionMessage):
    """The answer so far; a burst of them is coalesced into the newest (`can_replace`)."""

    def __init__(self, serial: int, text: str) -> None:
        super().__init__(serial)
        self.text = text

    def can_replace(self, message: Message) -> bool:
        # Textual drops this one when the next waiting message is a newer AnswerGrew
        return isinstance(message, AnswerGrew) and message.serial == self.serial


class AnswerDone(QuestionMessage):
    """A request answered: a question's answer, a lecture's summary or a course's overview."""

    def __init__(self, serial: int, record: Kept, entry_id: int | None, turn: Turn) -> None:
        super().__init__(serial)
        self.record = record
        self.entry_id = entry_id
        self.turn = turn


class RerankProgress(Message):
    """The re-ranking vectors being written: how many segments still wait for theirs, of how
    many this run writes."""

    def __init__(self, pending: int, total: int = 0) -> None:
        super().__init__()
        self.pending = pending
        self.total = max(total, pending)


class ChaptersProgress(Message):
    """The chapters of lectures stored before chapters were kept, being looked for: how many
    lectures were looked at, of how many, and how many gained chapters so far."""

    def __init__(self, done: int, total: int, gained: int = 0) -> None:
        super().__init__()
        self.done = done
        self.total = total
        self.gained = gained


class SummariesProgress(Message):
    """What the summaries written in the background are at, for the status line ("" when none
    is being written); `written`: the lectures whose summary this run made whole."""

    def __init__(self, label: str, written: int = 0, done: bool = False) -> None:
        super().__init__()
        self.label, self.written, self.done = label, written, done

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SummariesProgress) and not self.done


class ModelsChanged(Message):
    """The loading worker got further (E5 ready, or the answer model too: `loaded`)."""

    def __init__(self, loaded: bool = False) -> None:
        super().__init__()
        self.loaded = loaded


class WorkFailed(Message):
    """A worker failed: the app shows `message` (and `hint`) and logs the traceback; a screen
    may show it in place too (the message bubbles up to the app)."""

    def __init__(self, task: str, error: BaseException) -> None:
        super().__init__()
        self.task = task
        self.error = error
        if isinstance(error, LectureTuiError):
            self.message, self.hint = error.message, error.hint
        else:
            self.message, self.hint = f"{type(error).__name__}: {error}", None
        self.trace = "".join(traceback.format_exception(error))

    @property
    def text(self) -> str:
        return self.message + (f"\n{self.hint}" if self.hint else "")


class Diagnosed(Message):
    """What `lecturetui doctor` says, for the library screen."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class LibraryChanged(Message):
    """Lectures were removed (or added): the table is drawn again, `note` said."""

    def __init__(self, note: str = "") -> None:
        super().__init__()
        self.note = note


class IngestProgress(Message):
    """Files done of the ingest in progress; a burst is coalesced into the newest."""

    def __init__(self, done: int, total: int, name: str = "") -> None:
        super().__init__()
        self.done, self.total, self.name = done, total, name

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IngestProgress)


class IngestLog(Message):
    """The ingest's log line (a transcription's progress), or its report when `done`."""

    def __init__(self, text: str, done: bool = False) -> None:
        super().__init__()
        self.text, self.done = text, done

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IngestLog) and not self.done


class TopicsFound(Message):
    """Terms the library's lectures dwell on (core/study/topics.py), for example questions."""

    def __init__(self, topics: list[Topic]) -> None:
        super().__init__()
        self.topics = topics
