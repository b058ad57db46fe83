"""What an ingest is asked (IngestOptions) and what it reports, per file and for the batch."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from lecturetui.core.ingest.repairs import ParsePolicy
from lecturetui.core.ingest.segmenting import SegmentConfig
from lecturetui.core.storage.store import SaveResult

DEFAULT_MAX_BYTES = 50 * 1024 * 1024


@dataclass(slots=True)
class IngestOptions:
    course: str | None = None
    title: str | None = None
    url: str | None = None
    language: str | None = None
    segment_config: SegmentConfig = field(default_factory=SegmentConfig)
    max_bytes: int = DEFAULT_MAX_BYTES
    strict: bool = False  # refuse a file that needs any repair (see repairs.py)
    allow_long: bool = False  # accept lectures over 24 h
    asr_model: str | None = None  # the speech model for audio and video (None: the default)
    save_transcript: str | None = None  # write a media file's transcript as .vtt: '' beside it

    @property
    def policy(self) -> ParsePolicy:
        return ParsePolicy(strict=self.strict, allow_long=self.allow_long)


@dataclass(slots=True)
class FileResult:
    path: Path
    status: str  # added | updated | unchanged | duplicate | failed
    lectures: list[str] = field(default_factory=list)
    segments: int = 0
    message: str = ""
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was repaired or skipped, one per kind
    changes: list[SaveResult] = field(default_factory=list)
    vectors: list[npt.NDArray[np.float32] | None] = field(default_factory=list)
    transcript_file: Path | None = None  # the .vtt written for a media file (--save-transcript)

    @property
    def failed(self) -> bool:
        return self.status == "failed"


@dataclass(slots=True)
class IngestReport:
    results: list[FileResult] = field(default_factory=list)

    @property
    def failed(self) -> list[FileResult]:
        return [r for r in self.results if r.failed]

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status)
