"""Audio and video in the ingest: a media file read as a transcript, transcribed at most once.

A media file is known by the sha256 of its bytes. Its transcription is kept in the library
(`transcriptions`, by file hash, speech model and --lang), stored as soon as it is complete and
before its segments are embedded, so neither a re-ingest (another --window, say), nor a file
moved or renamed, nor an ingest interrupted while embedding, transcribes it again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from lecturetui.core.i18n import _
from lecturetui.core.ingest.formats import ParsedFile
from lecturetui.core.ingest.media import MediaError
from lecturetui.core.ingest.speech import CancelCheck, Transcriber, save_vtt
from lecturetui.core.lectures import ParsedLecture, Transcription
from lecturetui.core.progress import SecondsProgress
from lecturetui.core.storage.store import Store
from lecturetui.core.storage.transcriptions import Transcriptions


@dataclass(slots=True)
class MediaContext:
    """What transcribing needs beyond the options: the model, and the caller's callbacks."""

    transcriber: Transcriber
    progress: SecondsProgress | None = None  # (seconds of audio done, seconds in all)
    cancel: CancelCheck | None = None  # checked between Whisper's segments


def read_media(
    store: Store, path: Path, source_hash: str, language: str | None, media: MediaContext
) -> ParsedFile:
    """The media file as a one-lecture transcript, from the library's copy of its transcription
    when there is one."""
    transcription = Transcriptions(store).get(source_hash, media.transcriber.name, language)
    if transcription is None:
        transcription = media.transcriber.transcribe(path, language, media.progress, media.cancel)
        Transcriptions(store).save(source_hash, language, transcription)
    elif media.progress:
        media.progress(transcription.duration, transcription.duration)
    if not transcription.cues:
        raise MediaError(_("has no speech that could be transcribed (silence or music only?)"))
    return ParsedFile([lecture_of(path, transcription)])


def write_transcript(
    store: Store,
    path: Path,
    source_hash: str,
    model: str,
    languages: Iterable[str | None],
    save_to: str,
) -> Path | None:
    """Write the stored transcription of a media file as WebVTT, beside it (`save_to` '') or in
    the folder `save_to`; the first of `languages` (as asked with --lang) found is written."""
    for language in languages:
        transcription = Transcriptions(store).get(source_hash, model, language)
        if transcription is not None:
            folder = Path(save_to).expanduser() if save_to else None
            return save_vtt(transcription, path, folder)
    return None


def lecture_of(path: Path, transcription: Transcription) -> ParsedLecture:
    return ParsedLecture(
        key=path.stem,
        source_format=transcription.source_format,
        cues=list(transcription.cues),
        language=transcription.language,
        url=str(path.resolve()),  # the lecture's video: links open it at the cited second
    )
