"""The file an ingest reads: its bytes read once (or its audio's hash), and how to read it."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from lecturetui.core.errors import LectureTuiError, TranscriptError
from lecturetui.core.i18n import _
from lecturetui.core.ingest.batch import IngestOptions
from lecturetui.core.ingest.formats import ParsedFile, read_transcript
from lecturetui.core.ingest.media import is_media, media_sha256
from lecturetui.core.ingest.recordings import MediaContext, read_media, write_transcript
from lecturetui.core.storage.store import LectureRow, Store


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file to ingest: where its lectures say they come from, its hash, the format it is
    transcribed in (None for a transcript) and how to read it (transcribing a media file)."""

    path: str  # the file's absolute path, as the lectures keep it
    hash: str
    format: str | None
    read: Callable[[], ParsedFile]


def open_source(
    store: Store, path: Path, options: IngestOptions, media: MediaContext | None
) -> SourceFile:
    """The file's hash and reader; a transcript's bytes are read here, once."""
    source_path = str(path.resolve())
    if is_media(path):
        if media is None:
            raise LectureTuiError(
                _("is audio or video, and no speech model was given to transcribe it"),
                hint=_("ingest it through the library (lecturetui ingest)"),
            )
        source_hash = media_sha256(path)
        read = partial(read_media, store, path, source_hash, options.language, media)
        return SourceFile(source_path, source_hash, f"whisper:{media.transcriber.name}", read)
    data = _read_source(path, options.max_bytes)
    read = partial(read_transcript, data, path.suffix, path.stem, options.policy)
    return SourceFile(source_path, hashlib.sha256(data).hexdigest(), None, read)


def transcript_writer(
    store: Store,
    path: Path,
    source: SourceFile,
    options: IngestOptions,
    media: MediaContext | None,
    existing: list[LectureRow],
) -> Callable[[], Path | None] | None:
    """--save-transcript: what writes the media file's stored transcription as WebVTT."""
    if media is None or options.save_transcript is None or source.format is None:
        return None
    languages = [options.language, *(r.language for r in existing)]
    return partial(
        write_transcript,
        store,
        path,
        source.hash,
        media.transcriber.name,
        languages,
        options.save_transcript,
    )


def _read_source(path: Path, max_bytes: int) -> bytes:
    """The file's bytes, read once; refused when over `max_bytes` or changed while being read."""
    before = path.stat()
    if before.st_size > max_bytes:
        raise _too_large(before.st_size, max_bytes)
    with path.open("rb") as f:
        data = f.read(max_bytes + 1)
        after = os.fstat(f.fileno())
    if len(data) > max_bytes:
        raise _too_large(len(data), max_bytes)
    if (len(data), after.st_size, after.st_mtime_ns) != (
        before.st_size,
        before.st_size,
        before.st_mtime_ns,
    ):
        raise TranscriptError(
            _("changed while it was being read"), hint=_("ingest it again once it is complete")
        )
    return data


def _too_large(size: int, max_bytes: int) -> TranscriptError:
    return TranscriptError(
        _("is too large ({size} MB; the limit is {limit} MB)").format(
            size=f"{size / 1e6:.0f}", limit=f"{max_bytes / 1e6:.0f}"
        ),
        hint=_("a transcript is rarely over a few MB; split it, or raise --max-size"),
    )
