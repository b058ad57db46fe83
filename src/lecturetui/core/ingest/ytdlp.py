"""What yt-dlp knows about a downloaded lecture: the `NAME.info.json` it writes beside the video
and its captions (`NAME.pt-BR.vtt`, `NAME.mp4`).

`yt-dlp --write-info-json --write-subs ...` saves the video's metadata next to its files. Ingest
reads it so that a downloaded lecture needs no `--title` or `--url` by hand: the title, the page
URL (so every timestamp opens the video at that moment) and, as the default course, the playlist
or else the channel. What the student gives on the command line always wins.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from lecturetui.core.lectures import Chapter

#: a caption file's language tag before its extension: `.pt`, `.pt-BR`, `.en-US`, `.en-orig`
_LANG_TAG = re.compile(r"^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")
#: an info file larger than this is not yt-dlp's (they hold a few hundred KB at most)
MAX_INFO_BYTES = 20_000_000


@dataclass(frozen=True, slots=True)
class VideoInfo:
    title: str | None
    url: str | None  # the video's page (webpage_url)
    course: str | None  # the playlist's title, else the channel's
    upload_date: str | None  # YYYY-MM-DD
    path: Path  # the info file
    language: str | None = None  # the video's own language, as yt-dlp gives it
    #: the video's chapters as its author typed them (yt-dlp's `chapters`), in order
    chapters: tuple[Chapter, ...] = ()


def _tagged(path: Path) -> tuple[str, str] | None:
    """(the name before the language tag, the tag) of a tagged file name (`NAME.pt-BR.vtt`)."""
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    base, dot, tag = stem.rpartition(".")
    if dot and base and _LANG_TAG.match(tag):
        return base, tag
    return None


def plain_name(key: str) -> str:
    """A downloaded file's name without what yt-dlp adds to the title: the caption language
    (`.pt-BR`) and the video id (` [Xk3v9qLm2Ts]`); for a lecture id a student can type."""
    tagged = _tagged(Path(key + ".x"))
    base = tagged[0] if tagged else key
    return re.sub(r"\s*\[[\w-]{6,}\]$", "", base) or key


def info_path(path: Path) -> Path | None:
    """The `NAME.info.json` beside a caption or media file, if there is one."""
    candidates = [path.name[: -len(path.suffix)] if path.suffix else path.name]
    tagged = _tagged(path)
    if tagged is not None:
        candidates.append(tagged[0])
    for name in candidates:
        info = path.with_name(name + ".info.json")
        if info.is_file():
            return info
    return None


def read_info(path: Path) -> VideoInfo | None:
    """yt-dlp's metadata of the lecture in `path` (a caption or media file), or None when there
    is no info file or it cannot be read (an unreadable one is skipped, never fatal)."""
    info = info_path(path)
    if info is None:
        return None
    try:
        if info.stat().st_size > MAX_INFO_BYTES:
            return None
        data = json.loads(info.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None

    def text(*keys: str) -> str | None:
        for key in keys:
            value = data.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
        return None

    raw = text("upload_date") or ""
    date = f"{raw[:4]}-{raw[4:6]}-{raw[6:]}" if re.fullmatch(r"\d{8}", raw) else None
    return VideoInfo(
        title=text("title", "fulltitle"),
        url=text("webpage_url", "original_url"),
        course=text("playlist_title", "playlist", "channel", "uploader"),
        upload_date=date,
        path=info,
        language=text("language"),
        chapters=chapters_of(data.get("chapters")),
    )


def chapters_of(raw: object) -> tuple[Chapter, ...]:
    """yt-dlp's `chapters` list ([{"start_time": 0.0, "title": "..."}, ...]) as chapters, in
    order; an entry without a usable time or title is skipped, a repeated start kept once."""
    if not isinstance(raw, list):
        return ()
    found: dict[float, str] = {}
    for item in raw:
        if not isinstance(item, dict):
            continue
        start, title = item.get("start_time"), item.get("title")
        if not isinstance(start, int | float) or isinstance(start, bool) or start < 0:
            continue
        if isinstance(title, str) and title.strip():
            found.setdefault(round(float(start), 3), " ".join(title.split()))
    return tuple(Chapter(start, title) for start, title in sorted(found.items()))


def one_language(files: list[Path], language: str | None) -> list[Path]:
    """`files` with one caption file kept per video that has several languages of them, when
    yt-dlp's info file is beside them (see `discover` in core/ingest/pipeline.py for which one)."""
    groups: dict[Path, list[tuple[str, Path]]] = {}
    for f in files:
        tagged = _tagged(f)
        if tagged is not None and info_path(f) is not None:
            groups.setdefault(f.with_name(tagged[0]), []).append((_norm(tagged[1]), f))
    dropped: set[Path] = set()
    for choices in groups.values():
        if len(choices) < 2:
            continue
        info = None if language else read_info(choices[0][1])
        wanted = _norm(language or (info.language if info else None) or "")
        same = [f for tag, f in choices if wanted and tag == wanted]
        near = [f for tag, f in choices if wanted and tag.split("-")[0] == wanted.split("-")[0]]
        keep = (same[:1] or near[-1:] or [choices[0][1]])[0]
        dropped.update(f for _, f in choices if f != keep)
    return [f for f in files if f not in dropped]


def _norm(tag: str) -> str:
    """A language tag compared case- and separator-blind: `pt_BR` -> `pt-br`."""
    return tag.casefold().replace("_", "-")
