"""Plain dataclasses passed between the pipeline's stages."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from lecturetui.core.timefmt import format_duration


@dataclass(frozen=True, slots=True)
class Cue:
    """One timed piece of transcript text, as a subtitle or Whisper segment gives it."""

    start: float
    end: float
    text: str


@dataclass(frozen=True, slots=True)
class Segment:
    """A timed window of transcript text: the unit that is embedded, searched and cited."""

    start: float
    end: float
    text: str
    corpus_id: int | None = None
    n_tokens: int | None = None
    #: the words of `text` (by position) after which a sentence ends, where the sentence model
    #: found them (captions without punctuation, core/sentences.py); None where not looked for
    ends: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class Chapter:
    """Where a part of a lecture begins, and its title: the video's own chapters (yt-dlp's
    `.info.json`), as its author wrote them."""

    start: float
    title: str
    source: str = "author"


def chapter_at(chapters: Sequence[Chapter], seconds: float) -> Chapter | None:
    """The chapter a moment falls in (the last one that begins at or before it)."""
    current = None
    for chapter in chapters:
        if chapter.start <= seconds + 0.5:
            current = chapter
    return current


@dataclass(slots=True)
class ParsedLecture:
    """One lecture read from a file, before it is stored.

    `cues` is filled for ordinary transcripts (they are segmented later); `segments` is filled
    for an already-segmented corpus, whose windows and ids are kept as they are.
    """

    key: str
    source_format: str
    cues: list[Cue] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    title: str | None = None
    course: str | None = None
    language: str | None = None
    url: str | None = None
    date: str | None = None  # YYYY-MM-DD: when it was given or published
    chapters: list[Chapter] = field(default_factory=list)  # the author's, when known

    @property
    def duration(self) -> float:
        ends = [c.end for c in self.cues] + [s.end for s in self.segments]
        return max(ends, default=0.0)

    def all_text(self) -> str:
        return "\n".join([c.text for c in self.cues] + [s.text for s in self.segments])


@dataclass(frozen=True, slots=True)
class Lecture:
    """A lecture as stored in the library."""

    id: str
    title: str
    course: str | None
    language: str | None
    source_path: str | None
    source_url: str | None
    source_format: str
    duration: float
    content_hash: str
    segment_count: int = 0
    notes: tuple[str, ...] = ()  # what reading its file repaired or skipped
    date: str | None = None  # YYYY-MM-DD: when it was given or published (yt-dlp's upload date)

    TABLE_COLUMNS = ("id", "title", "course", "lang", "duration", "segments")

    def table_row(self) -> tuple[str, ...]:
        """The row both faces show in their lecture tables (TABLE_COLUMNS)."""
        return (
            self.id,
            self.title,
            self.course or "",
            self.language or "",
            format_duration(self.duration),
            str(self.segment_count),
        )


@dataclass(frozen=True, slots=True)
class StoredSegment:
    """A segment as stored: `id` is the database id (also the vector index label)."""

    id: int
    lecture_id: str
    ordinal: int
    start: float
    end: float
    text: str
    corpus_id: int | None = None
    ends: tuple[int, ...] | None = None  # as Segment.ends


@dataclass(frozen=True, slots=True)
class Transcription:
    """What speech recognition made of a media file: timed cues, kept in the library so the
    file is never transcribed twice."""

    cues: tuple[Cue, ...]
    language: str  # detected, or the one asked for
    language_probability: float
    duration: float  # seconds of audio
    model: str  # the speech model's name (--asr-model)

    @property
    def source_format(self) -> str:
        return f"whisper:{self.model}"
