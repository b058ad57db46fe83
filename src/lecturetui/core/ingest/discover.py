"""Which files an ingest reads: folders expanded, a video's captions read in its place."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from lecturetui.core.i18n import _
from lecturetui.core.ingest.batch import FileResult
from lecturetui.core.ingest.formats import EXTENSIONS
from lecturetui.core.ingest.media import MEDIA_EXTENSIONS, caption_for, is_media
from lecturetui.core.ingest.ytdlp import one_language


def discover(
    paths: Iterable[Path], language: str | None = None
) -> tuple[list[Path], list[FileResult]]:
    """Expand folders into the transcript and media files below them (by extension, sorted).

    An audio or video file with a caption file of the same name beside it (`aula.vtt` for
    `aula.mp4`) stands for that caption file: the captions are read, nothing is transcribed.
    In a folder, yt-dlp's metadata (`NAME.info.json`) is not a transcript, and of the captions
    of one video in several languages (`NAME.en.vtt`, `NAME.pt-BR.vtt`) one is read: the one in
    `language` when there is one (`pt` picks `pt-BR`), else the video's own language as its info
    file gives it, else the first by name.
    """
    files: list[Path] = []
    missing: list[FileResult] = []
    for path in paths:
        if path.is_dir():
            found = one_language(
                sorted(
                    _instead(p)
                    for p in path.rglob("*")
                    if p.is_file()
                    and wanted(p)
                    and not p.name.startswith(".")
                    and not p.name.endswith(".info.json")
                ),
                language,
            )
            if not found:
                missing.append(
                    FileResult(
                        path,
                        "failed",
                        message=_(
                            "has no transcript, audio or video files in it"
                            " (.vtt, .srt, .json, .jsonl, .txt, .mp4, .mp3...)"
                        ),
                    )
                )
            files.extend(found)
        elif path.is_file():
            files.append(_instead(path))
        else:
            missing.append(FileResult(path, "failed", message=_("does not exist")))
    seen: set[Path] = set()
    unique = []
    for f in files:
        r = f.resolve()
        if r not in seen:
            seen.add(r)
            unique.append(f)
    return unique, missing


def wanted(path: Path) -> bool:
    """A transcript or a media file, by extension."""
    suffix = path.suffix.lower()
    return suffix in EXTENSIONS or suffix in MEDIA_EXTENSIONS


def _instead(path: Path) -> Path:
    """The file to read for `path`: its caption file when it is a media file that has one."""
    return (caption_for(path) or path) if is_media(path) else path
