"""What the core hands its faces: the CLI's `--json`, the app, the history and the report.

The core works on live objects (`search.Hit` holds its `StoredSegment` and `Lecture`,
`answering.Answer` its `Passage`s). A record is their flat, frozen, JSON-ready picture: the same
fields whether it was just made or read back from the history or an evaluation run. `to_json`
is the one place records become JSON and `from_json` the one place JSON becomes records again,
checked against the types (msgspec) so a damaged history entry is refused, not half-shown.
Field names are the JSON keys; every field past the first has a default, so entries written by
older versions, which lack the newer fields, still read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, TypeVar

from lecturetui.core.conversation import Exchange
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import N_, _
from lecturetui.core.timefmt import format_span

#: the version of the `--json` output (a key of its top level) and of what the history keeps
#: (2: a lecture's summary and a course's overview are records of their own, `kind` says which;
#: a part's `label` and `refused` were its `summary` and `struck`)
SCHEMA = 2

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """The unit of a hit's text that best matched the question: offsets into the hit's text."""

    start: int
    end: int
    text: str = ""
    score: float = 0.0


@dataclass(frozen=True, slots=True)
class HitRecord:
    """A retrieved segment with its lecture, times, score (the one that ranked it) and link."""

    rank: int
    segment_id: int = 0
    lecture: str = ""
    lecture_title: str = ""
    course: str | None = None
    corpus_id: int | None = None
    start_s: float = 0.0
    end_s: float = 0.0
    start: str = ""
    end: str = ""
    score: float = 0.0
    text: str = ""
    url: str | None = None
    #: each retriever's own score ("dense", "lexical", "rerank"); a list of names in records
    #: saved by earlier versions
    retrievers: dict[str, float] | tuple[str, ...] = ()
    match: MatchRecord | None = None

    @property
    def span(self) -> str:
        return format_span(self.start_s, self.end_s)


@dataclass(frozen=True, slots=True)
class PassageRecord:
    """What the answer's prompt numbered [n]: overlapping windows of one lecture, merged."""

    number: int
    lecture: str = ""
    lecture_title: str = ""
    course: str | None = None
    start_s: float = 0.0
    end_s: float = 0.0
    start: str = ""
    end: str = ""
    score: float = 0.0
    text: str = ""
    url: str | None = None
    segment_ids: tuple[int, ...] = ()
    corpus_ids: tuple[int, ...] = ()

    @property
    def span(self) -> str:
        return format_span(self.start_s, self.end_s)


@dataclass(frozen=True, slots=True)
class EvidenceRecord:
    """A sentence that answers the question, shown before the answer."""

    text: str
    lecture: str = ""
    lecture_title: str = ""
    start_s: float = 0.0
    start: str = ""
    before: str = ""
    after: str = ""
    score: float = 0.0
    segment_id: int | None = None
    url: str | None = None


@dataclass(frozen=True, slots=True)
class QuoteRecord:
    """The lecturer's own sentences the answer opens with (core/answer/quote.py)."""

    text: str
    lecture: str = ""
    lecture_title: str = ""
    start_s: float = 0.0
    end_s: float = 0.0
    start: str = ""
    score: float = 0.0  # the relevance model's cosine of its best sentence to the question
    segment_id: int | None = None
    url: str | None = None


@dataclass(frozen=True, slots=True)
class ChapterRecord:
    """A chapter of a lecture's outline (core/study/outline.py)."""

    start_s: float
    end_s: float
    start: str  # hh:mm:ss
    title: str
    source: str = "author"  # the video's own chapters
    url: str | None = None  # the video opened at the chapter


@dataclass(frozen=True, slots=True)
class MapWindowRecord:
    """A window of a lecture on the course map, and how close it is to the question."""

    start_s: float
    end_s: float
    score: float


@dataclass(frozen=True, slots=True)
class MapHitRecord:
    rank: int
    start_s: float


@dataclass(frozen=True, slots=True)
class MapRowRecord:
    """A lecture's row on the course map (core/study/course_map.py)."""

    lecture: str
    lecture_title: str
    duration_s: float
    windows: tuple[MapWindowRecord, ...]
    hits: tuple[MapHitRecord, ...]


@dataclass(frozen=True, slots=True)
class FoundRecord:
    """What a question found before the model writes (the pipeline's EvidenceReady, typed for
    the faces): the hits, the evidence sentences, and the quote the answer opens with."""

    hits: tuple[HitRecord, ...]
    evidence: tuple[EvidenceRecord, ...]
    quote: QuoteRecord | None
    opening: str  # the quote as the answer opens with it (lecture, time, [1]); "" without one
    search_s: float  # retrieval and the evidence sentences
    follows: str | None = None  # the previous question, when this one follows it up
    translation: str | None = None  # the question as searched, in the lectures' language
    guess: str | None = None  # the lecturer's likely words, searched with it
    covered: bool = True
    #: the quoted moment is in doubt: `opening` says so and quotes both `moments`
    unsure: bool = False
    moments: tuple[QuoteRecord, ...] = ()
    #: the answer model is about to check whether the quoted moment is in doubt (a CPU)
    checking: bool = False


@dataclass(frozen=True, slots=True)
class UnsupportedRecord:
    """A sentence of the model's explanation that its cited excerpts do not bear out."""

    sentence: str
    missing: tuple[str, ...] = ()  # the numbers, names or terms no cited excerpt contains


@dataclass(frozen=True, slots=True)
class AnswerRecord:
    """A question's answer with everything shown beside it: what `ask --json` prints, what the
    history keeps and the app reopens."""

    question: str
    answer: str = ""
    kind: str = "answer"  # what the record is: "answer", "summary" or "overview"
    stopped: bool = False
    citation_source: str = "none"  # model | similarity | none (core/answer/found.py)
    citations: tuple[PassageRecord, ...] = ()
    evidence: tuple[EvidenceRecord, ...] = ()
    passages: tuple[PassageRecord, ...] = ()
    trimmed: bool = False
    hits: tuple[HitRecord, ...] = ()
    timings: dict[str, float] = field(default_factory=dict)
    # a follow-up: the thread it joins and the entry it continues (core/conversation.py)
    thread: int | None = None
    follow_up: bool = False
    previous_entry: int | None = None
    search_text: str | None = None
    translation: str | None = None  # the question in the library's language, as searched
    guess: str | None = None  # the lecturer's likely words, searched with it (core/answer/guess.py)
    #: the lecturer's sentences the answer opens with; `answer` holds them and the explanation
    quote: QuoteRecord | None = None
    explanation: str = ""  # the model's part of `answer`
    #: the lectures do not cover the question: no model ran, `answer` says so in one sentence
    abstained: bool = False
    unsupported: tuple[UnsupportedRecord, ...] = ()
    #: the quoted moment is in doubt: `answer` says so and quotes both `moments` ([1], [2]),
    #: with no explanation
    unsure: bool = False
    moments: tuple[QuoteRecord, ...] = ()

    @property
    def cited(self) -> tuple[PassageRecord, ...]:
        """The passages it cites."""
        return self.citations

    def exchange(self, entry_id: int, text: str) -> Exchange:
        """As history entry `entry_id`, an exchange a follow-up continues, in its thread."""
        thread = self.thread if self.thread is not None else entry_id
        return Exchange(entry_id, thread, self.question, text, self.search_text or self.question)


@dataclass(frozen=True, slots=True)
class PartRecord:
    """A part of a lecture's summary (core/summary/writing.py)."""

    number: int
    start_s: float = 0.0
    end_s: float = 0.0
    start: str = ""  # hh:mm:ss
    title: str = ""
    made: bool = False  # cut by lecturetui where the subject changes, not the author's chapter
    said: tuple[str, ...] = ()  # the lecturer's most representative whole sentences
    #: what it is about: the model's label where it names the part, else the author's chapter
    #: title, else "" (core/summary/writing.py)
    label: str = ""
    refused: tuple[str, ...] = ()  # the model's label where it was not kept
    url: str | None = None  # the video opened at the part
    phrases: tuple[str, ...] = ()  # what the part is about, in key phrases


@dataclass(frozen=True, slots=True)
class SummaryRecord:
    """A lecture's summary, part by part, then its gist citing the parts as [n]: what `summary
    --json` prints, and `ask --json` and the history for a question that asked for it."""

    lecture: str
    kind: str = "summary"
    title: str = ""
    language: str = ""
    model: str | None = None  # the answer model that wrote it (None: the parts alone)
    parts: tuple[PartRecord, ...] = ()
    gist: str = ""  # the lecture's subjects in order, citing their parts as [n]
    phrases: tuple[str, ...] = ()  # what the lecture is about, in key phrases
    question: str = ""  # how it was asked (the lecture's title when asked by name)
    stopped: bool = False  # stopped before every part was named
    timings: dict[str, float] = field(default_factory=dict)  # parts_ms, total_ms

    @property
    def cited(self) -> tuple[PassageRecord, ...]:
        """The passages it cites: none (its parts or lectures are cited in its text)."""
        return ()

    def exchange(self, entry_id: int, text: str) -> Exchange:
        """As history entry `entry_id`, the start of a thread a follow-up continues."""
        return Exchange(entry_id, entry_id, self.question, text, self.question)


@dataclass(frozen=True, slots=True)
class OverviewRecord:
    """What a course covers, a line per lecture (core/summary/course.py): `ask --json` and the
    history for a question that asked for it."""

    question: str
    kind: str = "overview"
    text: str = ""
    course: str | None = None  # None: the lectures of the scope, or every one
    language: str = ""
    lectures: tuple[str, ...] = ()  # in course order

    @property
    def stopped(self) -> bool:
        """An overview is written whole or not at all."""
        return False

    @property
    def timings(self) -> dict[str, float]:
        return {}

    @property
    def cited(self) -> tuple[PassageRecord, ...]:
        """The passages it cites: none (its parts or lectures are cited in its text)."""
        return ()

    def exchange(self, entry_id: int, text: str) -> Exchange:
        """As history entry `entry_id`, the start of a thread a follow-up continues."""
        return Exchange(entry_id, entry_id, self.question, text, self.question)


#: what the history keeps and `ask --json` prints: a question's answer, a lecture's summary or a
#: course's overview (`kind` says which; core/requests/kinds.py lists the kinds)
Kept = AnswerRecord | SummaryRecord | OverviewRecord
#: the record each `kind` is read back as (kinds.py checks each kind has its own)
KEPT: dict[str, type[Kept]] = {
    "answer": AnswerRecord,
    "summary": SummaryRecord,
    "overview": OverviewRecord,
}


def _msgspec() -> ModuleType:
    """msgspec, loaded when a record is first written as JSON or read back."""
    import msgspec  # lazy: 20 ms; the library and the front door load records without it

    return msgspec


def to_json(record: object) -> Any:
    """A record (or a list of them) as JSON-ready builtins."""
    return _msgspec().to_builtins(record)


#: what `from_json` calls a record when its caller does not say (translated where shown)
_A_RECORD = N_("a saved record")


def from_json(data: object, kind: type[T], what: str | None = None) -> T:
    """JSON builtins as a `kind` record, checked field by field; `what` names it in the error
    (already translated: "history entry 3")."""
    msgspec = _msgspec()
    try:
        record: T = msgspec.convert(data, kind)
    except msgspec.ValidationError as exc:
        what = what or _(_A_RECORD)
        raise LectureTuiError(
            # TRANSLATORS: {what} is "history entry 3", "evaluation record 5" or "a saved record",
            # its first letter made a capital; {kind} is a name from the code
            _("{what} does not read as {kind}: {exc}.").format(
                what=what[0].upper() + what[1:], kind=kind.__name__, exc=exc
            ),
            hint=_("it was written by another version, or damaged"),
        ) from exc
    return record


def envelope(payload: object) -> dict[str, object]:
    """The top level of every `--json` output: the schema version, then the payload's keys."""
    data = to_json(payload)
    assert isinstance(data, dict), "a --json payload is an object (a record or a dict)"
    return {"schema": SCHEMA, **data}
