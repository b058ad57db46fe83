"""Files -> parsed lectures -> segments -> the store, one file per transaction.

A bad file gets one clear message and leaves nothing behind; the batch goes on with the others.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
import numpy.typing as npt

from lecturetui.core.errors import LectureTuiError, TranscriptError
from lecturetui.core.i18n import _, ngettext
from lecturetui.core.ingest.formats import EXTENSIONS, Transcript, read_transcript
from lecturetui.core.ingest.lectureid import content_hash_of, detect_language, humanize, slug
from lecturetui.core.ingest.media import MEDIA_EXTENSIONS, caption_for, is_media, media_sha256
from lecturetui.core.ingest.recordings import MediaContext, read_media, write_transcript
from lecturetui.core.ingest.repairs import ParsePolicy
from lecturetui.core.ingest.segmenting import SegmentConfig, segment_cues
from lecturetui.core.ingest.ytdlp import one_language, plain_name, read_info
from lecturetui.core.lectures import Chapter, ParsedLecture, Segment
from lecturetui.core.models.tokens import TokenCounter
from lecturetui.core.storage.store import LectureRow, SaveResult, Store

DEFAULT_MAX_BYTES = 50 * 1024 * 1024

ProgressCallback = Callable[[int, int, str], None]
EmbedFn = Callable[[list[str]], "npt.NDArray[np.float32]"]


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


def ingest_paths(
    store: Store,
    paths: Iterable[Path],
    options: IngestOptions | None = None,
    counter: TokenCounter | None = None,
    progress: ProgressCallback | None = None,
    on_saved: Callable[[FileResult], None] | None = None,
    embed: EmbedFn | None = None,
    media: MediaContext | None = None,
) -> IngestReport:
    """Ingest every file (folders are expanded). `on_saved` runs after each file that changed.

    With `embed`, each file's new segments are embedded before anything of it is stored (the slow
    step, so an interruption there leaves the store untouched); their vectors come back in the
    file's result, aligned with `changes`. Audio and video files are transcribed with `media`'s
    transcriber (a media file without it fails); `media.cancel` returning True raises
    `media.Cancelled` out of here, the file in progress not stored.
    """
    options = options or IngestOptions()
    files, report_missing = discover(paths, options.language)
    report = IngestReport(results=list(report_missing))
    for n, path in enumerate(files):
        if progress:
            progress(n, len(files), path.name)
        result = ingest_file(store, path, options, counter, embed, media)
        report.results.append(result)
        if on_saved and result.status in ("added", "updated"):
            on_saved(result)
    if progress:
        progress(len(files), len(files), "")
    return report


def ingest_file(
    store: Store,
    path: Path,
    options: IngestOptions,
    counter: TokenCounter | None = None,
    embed: EmbedFn | None = None,
    media: MediaContext | None = None,
) -> FileResult:
    counter = counter or TokenCounter()
    try:
        return _ingest_file(store, path, options, counter, embed, media)
    except TranscriptError as exc:
        msg = (
            exc.message
            if exc.line is None
            # TRANSLATORS: where in a file, then what it has: "line 12: has a cue that ..."
            else _("line {line}: {message}").format(line=exc.line, message=exc.message)
        )
        return FileResult(path, "failed", message=msg + (f" ({exc.hint})" if exc.hint else ""))
    except LectureTuiError as exc:
        return FileResult(path, "failed", message=str(exc))
    except OSError as exc:
        return FileResult(
            path,
            "failed",
            message=_("cannot be read ({reason})").format(reason=exc.strerror or exc),
        )


def _ingest_file(
    store: Store,
    path: Path,
    options: IngestOptions,
    counter: TokenCounter,
    embed: EmbedFn | None,
    media: MediaContext | None,
) -> FileResult:
    source_path = str(path.resolve())
    read: Callable[[], Transcript]
    if is_media(path):
        if media is None:
            raise LectureTuiError(
                _("is audio or video, and no speech model was given to transcribe it"),
                hint=_("ingest it through the library (lecturetui ingest)"),
            )
        source_hash, fmt = media_sha256(path), f"whisper:{media.transcriber.name}"
        read = partial(read_media, store, path, source_hash, options.language, media)
    else:
        data = _read_source(path, options.max_bytes)
        source_hash, fmt = hashlib.sha256(data).hexdigest(), None
        read = partial(read_transcript, data, path.suffix, path.stem, options.policy)
    config_json = json.dumps(
        {**options.segment_config.as_dict(), "counter": counter.name}, sort_keys=True
    )
    existing = store.records_for_source(source_path)
    unchanged = existing and all(
        r.source_hash == source_hash
        and r.segment_config == config_json
        and fmt in (None, r.source_format)
        for r in existing
    )
    vtt = None  # --save-transcript: the media file's stored transcription as WebVTT
    if media is not None and options.save_transcript is not None and fmt is not None:
        languages = [options.language, *(r.language for r in existing)]
        vtt = partial(write_transcript, store, path, source_hash, media.transcriber.name,
                      languages, options.save_transcript)  # fmt: skip
    if unchanged and not _options_change(existing, options):
        lectures = [r.id for r in existing]
        return FileResult(path, "unchanged", lectures=lectures, message=_("unchanged"),
                          transcript_file=vtt() if vtt else None)  # fmt: skip

    if unchanged and not _content_options_change(existing, options):
        _update_metadata(store, existing, options)  # a new title, course or link: no re-embedding
        return FileResult(path, "updated", lectures=[r.id for r in existing],
                          message=_("title, course or link updated"),
                          transcript_file=vtt() if vtt else None)  # fmt: skip

    transcript = read()
    parsed = transcript.lectures
    # the result's notes also say where the metadata came from; the lecture keeps its repairs only
    result = FileResult(path, "unchanged", warnings=transcript.warnings,
                        notes=list(transcript.notes),
                        transcript_file=vtt() if vtt else None)  # fmt: skip
    _apply_video_info(parsed, path, result)
    _apply_options(parsed, options, result)

    planned: list[tuple[LectureRow, list[Segment]]] = []
    chapters: dict[str, list[Chapter]] = {}  # the author's, by lecture id
    twins: list[str] = []
    by_key = {r.source_key: r for r in existing}
    taken: set[str] = set()  # ids given to this file's new lectures, not yet stored
    for lecture in parsed:
        content_hash = content_hash_of(lecture)
        previous = by_key.get(lecture.key)
        if previous is None:
            twin = store.find_by_content(content_hash)
            if twin is not None:
                twins.append(f"{twin.id} ({Path(twin.source_path or '?').name})")
                continue
        segments = _segments_for(lecture, options.segment_config, counter, result)
        record = LectureRow(
            id=previous.id
            if previous
            else store.unique_lecture_id(slug(plain_name(lecture.key)), taken),
            title=lecture.title or (previous.title if previous else humanize(lecture.key)),
            course=lecture.course
            if lecture.course is not None
            else (previous.course if previous else None),
            language=lecture.language or detect_language(lecture),
            source_path=source_path,
            source_key=lecture.key,
            source_url=lecture.url or (previous.source_url if previous else None),
            source_format=lecture.source_format,
            duration=lecture.duration,
            content_hash=content_hash,
            source_hash=source_hash,
            segment_config=config_json,
            notes=tuple(transcript.notes),
            date=lecture.date or (previous.date if previous else None),
        )
        taken.add(record.id)
        chapters[record.id] = lecture.chapters
        if previous is not None and _same(previous, record):
            if lecture.chapters and not store.chapters(previous.id):
                store.save_chapters(previous.id, lecture.chapters)  # read before there were any
            result.lectures.append(previous.id)
            continue
        planned.append((record, segments))

    vectors: list[npt.NDArray[np.float32] | None] = [None] * len(planned)
    if embed is not None and planned:
        texts = [s.text for _record, segments in planned for s in segments]
        all_vectors = embed(texts)
        bounds = np.cumsum([0] + [len(segments) for _record, segments in planned])
        vectors = [all_vectors[a:b] for a, b in itertools.pairwise(bounds)]

    with store.transaction():  # every lecture of the file, or none
        for (record, segments), vecs in zip(planned, vectors, strict=True):
            was_there = record.source_key in by_key
            result.changes.append(store.save_lecture(record, segments))
            store.save_chapters(record.id, chapters.get(record.id, []))
            result.vectors.append(vecs)
            result.lectures.append(record.id)
            result.segments += len(segments)
            if result.status != "added":
                result.status = "updated" if was_there else "added"
        kept_keys = {p.key for p in parsed}
        for rec in existing:  # the file no longer holds these lectures
            if rec.source_key not in kept_keys:
                removed = store.delete_lecture(rec.id)
                result.changes.append(SaveResult(rec.id, removed, []))
                result.vectors.append(None)
                result.status = "updated"
        if not planned and existing:
            for rec in existing:
                store.touch_source_hash(rec.id, source_hash)
    if twins:
        shown = ", ".join(twins[:4])
        if len(twins) > 4:
            # TRANSLATORS: {lectures} lists four lectures ("aula-1 (aula-1.vtt), ...")
            shown = _("{lectures} and {count} more").format(lectures=shown, count=len(twins) - 4)
        if not planned and result.status == "unchanged" and not result.lectures:
            result.status = "duplicate"
            result.message = _(
                "same content as {lectures}, already in the library; nothing stored"
            ).format(lectures=shown)
        else:
            result.warnings.append(
                _(
                    "same content as {lectures}, already in the library;"
                    " those lectures were skipped"
                ).format(lectures=shown)
            )
    return result


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


def _options_change(existing: list[LectureRow], options: IngestOptions) -> bool:
    return any(
        (options.course is not None and r.course != options.course)
        or (options.title is not None and r.title != options.title)
        or (options.url is not None and r.source_url != options.url)
        or (options.language is not None and r.language != options.language)
        for r in existing
    )


def _content_options_change(existing: list[LectureRow], options: IngestOptions) -> bool:
    """Whether the options change what is indexed (the language's stemming), not only what is
    shown (title, course, link)."""
    return any(options.language is not None and r.language != options.language for r in existing)


def _update_metadata(store: Store, existing: list[LectureRow], options: IngestOptions) -> None:
    single = len(existing) == 1
    for r in existing:
        store.update_lecture(
            r.id,
            title=options.title if single else None,
            course=options.course,
            source_url=options.url if single else None,
        )


def _apply_video_info(parsed: list[ParsedLecture], path: Path, result: FileResult) -> None:
    """Title, link and course from yt-dlp's `NAME.info.json` beside the file (core/ingest/ytdlp.py),
    where the file itself has none; the command line's options are applied after, and win."""
    if len(parsed) != 1:
        return
    info = read_info(path)
    if info is None:
        return
    lecture = parsed[0]
    lecture.title = lecture.title or info.title
    lecture.url = lecture.url or info.url
    lecture.course = lecture.course or info.course
    lecture.date = lecture.date or info.upload_date
    result.notes.append(
        _("title, link, course and date read from {file}").format(file=info.path.name)
    )
    if info.chapters:
        lecture.chapters = list(info.chapters)
        result.notes.append(
            ngettext("{n} chapter read from {file}", "{n} chapters read from {file}",
                     len(info.chapters)).format(n=len(info.chapters), file=info.path.name)
        )  # fmt: skip


def _same(a: LectureRow, b: LectureRow) -> bool:
    """The same lecture as stored. Its notes are not compared: they are written in the language
    the program spoke when the file was read, and the same file read in another language is the
    same lecture (its repairs follow from its content, which the hash compares)."""
    keys = ("title", "course", "language", "source_url", "source_format", "content_hash",
            "segment_config", "date")  # fmt: skip
    return all(getattr(a, k) == getattr(b, k) for k in keys)


def _apply_options(parsed: list[ParsedLecture], options: IngestOptions, result: FileResult) -> None:
    single = len(parsed) == 1
    for lecture in parsed:
        if options.course is not None:
            lecture.course = options.course
        if options.language is not None:
            lecture.language = options.language
        if single:
            if options.title is not None:
                lecture.title = options.title
            if options.url is not None:
                lecture.url = options.url
    if not single and (options.title or options.url):
        result.warnings.append(
            _(
                "--title/--url ignored: the file holds {count} lectures"
                " (set them per line in the JSONL)"
            ).format(count=len(parsed))
        )


def _segments_for(
    lecture: ParsedLecture, config: SegmentConfig, counter: TokenCounter, result: FileResult
) -> list[Segment]:
    if lecture.cues:
        return segment_cues(lecture.cues, config, counter)
    out = []
    over = 0
    for seg in lecture.segments:
        n = counter.total(seg.text)
        over += n > config.max_tokens
        out.append(Segment(seg.start, seg.end, seg.text, corpus_id=seg.corpus_id, n_tokens=n))
    if over:
        result.warnings.append(
            ngettext(
                "{lecture}: {count} pre-made segment(s) exceed the {max_tokens}-token budget;"
                " the encoder will not see their end",
                "{lecture}: {count} pre-made segment(s) exceed the {max_tokens}-token budget;"
                " the encoder will not see their end",
                over,
            ).format(lecture=lecture.key, count=over, max_tokens=config.max_tokens)
        )
    return out
