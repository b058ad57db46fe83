"""Audio and video files: which ones are media, their caption files, their hash, their sound.

Decoding is PyAV's (FFmpeg libraries bundled in its wheel; no system ffmpeg), imported only
when a media file is really read. A file PyAV cannot read, or one without an audio stream, is
refused with one sentence (`MediaError`).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, cast

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.hashing import feed
from lecturetui.core.i18n import _

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

#: what `ingest` transcribes (when no caption file of the same name lies beside it)
VIDEO_EXTENSIONS = (
    ".mp4",
    ".m4v",
    ".mkv",
    ".webm",
    ".mov",
    ".avi",
    ".wmv",
    ".flv",
    ".mpg",
    ".mpeg",
    ".3gp",
    ".ogv",
)
AUDIO_EXTENSIONS = (
    ".mp3",
    ".m4a",
    ".aac",
    ".wav",
    ".ogg",
    ".oga",
    ".opus",
    ".flac",
    ".wma",
    ".amr",
    ".aif",
    ".aiff",
)
MEDIA_EXTENSIONS = frozenset(VIDEO_EXTENSIONS + AUDIO_EXTENSIONS)
#: caption files that stand for a media file of the same name, the first found wins
CAPTION_EXTENSIONS = (".vtt", ".srt", ".json", ".webvtt")
SAMPLE_RATE = 16_000  # what Whisper listens at
_LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})?")  # pt, pt-BR, en_US, por


class MediaError(LectureTuiError):
    """A media file with nothing to transcribe: damaged, unreadable, or without sound."""


class Cancelled(Exception):
    """The caller's cancel check said stop: nothing of the file in progress was stored."""


def is_media(path: Path) -> bool:
    return path.suffix.lower() in MEDIA_EXTENSIONS


def caption_for(media: Path) -> Path | None:
    """A caption file beside `media` with the same name (`aula.vtt` for `aula.mp4`), if any;
    also `aula.pt.vtt`-style names, as subtitle downloaders write them (a language tag between
    the name and the extension: `aula.info.json` is no caption file)."""
    folder, stem = media.parent, media.stem
    for ext in CAPTION_EXTENSIONS:
        plain = folder / f"{stem}{ext}"
        if plain.is_file():
            return plain
    try:
        tagged = sorted(
            p
            for p in folder.glob(f"{_glob_escape(stem)}.*.*")
            if p.suffix.lower() in CAPTION_EXTENSIONS
            and _LANGUAGE_TAG.fullmatch(p.name[len(stem) + 1 : -len(p.suffix)])
        )
    except OSError:
        return None
    return tagged[0] if tagged else None


def _glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[]" else c for c in text)


def media_sha256(path: Path) -> str:
    """sha256 of a (possibly large) file, read in blocks; refused when it changes meanwhile."""
    digest = hashlib.sha256()
    before = path.stat()
    with path.open("rb") as f:
        feed(digest, f)
        after = os.fstat(f.fileno())
    if (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
        raise MediaError(
            _("changed while it was being read"), hint=_("ingest it again once it is complete")
        )
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class Probe:
    """What a media file holds, read from its header."""

    duration: float  # seconds; 0.0 when the container does not say
    audio_streams: int
    video_streams: int


def _av() -> ModuleType:
    """PyAV (FFmpeg's libraries)."""
    import av  # lazy: FFmpeg's libraries load in a tenth of a second; only a media file needs them

    return cast(ModuleType, av)


def probe(path: Path) -> Probe:
    av = _av()

    try:
        with av.open(str(path), mode="r", metadata_errors="ignore") as container:
            streams = container.streams
            n_audio, n_video = len(streams.audio), len(streams.video)
            duration = 0.0
            if n_audio and streams.audio[0].duration and streams.audio[0].time_base:
                duration = float(streams.audio[0].duration * streams.audio[0].time_base)
            elif container.duration:
                duration = container.duration / 1_000_000  # av.time_base
    except av.error.FFmpegError as exc:
        raise MediaError(
            _unreadable(exc), hint=_("is it a complete audio or video file?")
        ) from None
    if not n_audio:
        raise MediaError(
            _("has video but no audio stream: there is nothing to transcribe")
            if n_video
            else _("has no audio stream: there is nothing to transcribe")
        )
    return Probe(duration, n_audio, n_video)


def _unreadable(exc: Exception) -> str:
    reason = getattr(exc, "strerror", None) or type(exc).__name__
    return _("cannot be read as audio or video ({reason})").format(reason=reason)


def decode_audio(path: Path, cancel: Callable[[], bool] | None = None) -> npt.NDArray[np.float32]:
    """The first audio stream as 16 kHz mono float32 samples (faster-whisper's own decoder)."""
    av = _av()
    from faster_whisper.audio import decode_audio as fw_decode  # lazy: 1 s; only transcribing

    if cancel is not None and cancel():
        raise Cancelled()
    try:
        audio = fw_decode(str(path), sampling_rate=SAMPLE_RATE)
    except av.error.FFmpegError as exc:
        raise MediaError(
            _unreadable(exc), hint=_("is it a complete audio or video file?")
        ) from None
    except (IndexError, ValueError) as exc:  # no decodable audio frame at all
        raise MediaError(_("has no audio that can be decoded ({exc})").format(exc=exc)) from None
    if audio.size == 0:
        raise MediaError(_("has an audio stream with no sound in it"))
    return audio  # type: ignore[no-any-return]
