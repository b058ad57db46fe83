"""What a file's lectures become in the store: each one's row and segments, planned before
anything is written (a twin of a stored lecture skipped, one unchanged kept as it is)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lecturetui.core.i18n import _, ngettext
from lecturetui.core.ingest.batch import FileResult, IngestOptions
from lecturetui.core.ingest.lectureid import content_hash_of, detect_language, humanize, slug
from lecturetui.core.ingest.segmenting import SegmentConfig, segment_cues
from lecturetui.core.ingest.ytdlp import plain_name, read_info
from lecturetui.core.language import preload as preload_language
from lecturetui.core.lectures import Chapter, ParsedLecture, Segment
from lecturetui.core.models.tokens import TokenCounter
from lecturetui.core.storage.store import LectureRow, Store


@dataclass(frozen=True, slots=True)
class Stamp:
    """What every lecture row of one file shares: where it comes from, the file's hash, the
    segmenting that made its segments, and what reading the file repaired."""

    source_path: str
    source_hash: str
    segment_config: str  # JSON
    notes: tuple[str, ...]


@dataclass(slots=True)
class IngestPlan:
    """The lectures to store (row and segments), their chapters by id, and the lectures skipped
    because the library already holds their content (their id and file, to say so)."""

    planned: list[tuple[LectureRow, list[Segment]]] = field(default_factory=list)
    chapters: dict[str, list[Chapter]] = field(default_factory=dict)
    twins: list[str] = field(default_factory=list)


def plan_lectures(
    store: Store,
    parsed: list[ParsedLecture],
    existing: list[LectureRow],
    stamp: Stamp,
    config: SegmentConfig,
    counter: TokenCounter,
    result: FileResult,
) -> IngestPlan:
    """Each lecture of the file planned; one the store holds just so is only listed in `result`
    (its chapters saved when it had none)."""
    plan = IngestPlan()
    by_key = {r.source_key: r for r in existing}
    taken: set[str] = set()  # ids given to this file's new lectures, not yet stored
    for lecture in parsed:
        content_hash = content_hash_of(lecture)
        previous = by_key.get(lecture.key)
        if previous is None:
            twin = store.find_by_content(content_hash)
            if twin is not None:
                plan.twins.append(f"{twin.id} ({Path(twin.source_path or '?').name})")
                continue
        if not lecture.language:
            preload_language()  # the identifier loads while the tokenizer's model does
        segments = _segments_for(lecture, config, counter, result)
        record = _record(store, lecture, previous, taken, stamp, content_hash)
        taken.add(record.id)
        plan.chapters[record.id] = lecture.chapters
        if previous is not None and _same(previous, record):
            if lecture.chapters and not store.chapters(previous.id):
                store.save_chapters(previous.id, lecture.chapters)  # read before there were any
            result.lectures.append(previous.id)
            continue
        plan.planned.append((record, segments))
    return plan


def _record(
    store: Store,
    lecture: ParsedLecture,
    previous: LectureRow | None,
    taken: set[str],
    stamp: Stamp,
    content_hash: str,
) -> LectureRow:
    """The lecture's row: what the file says, else what the stored lecture had."""
    return LectureRow(
        id=previous.id
        if previous
        else store.unique_lecture_id(slug(plain_name(lecture.key)), taken),
        title=lecture.title or (previous.title if previous else humanize(lecture.key)),
        course=lecture.course
        if lecture.course is not None
        else (previous.course if previous else None),
        language=lecture.language or detect_language(lecture),
        source_path=stamp.source_path,
        source_key=lecture.key,
        source_url=lecture.url or (previous.source_url if previous else None),
        source_format=lecture.source_format,
        duration=lecture.duration,
        content_hash=content_hash,
        source_hash=stamp.source_hash,
        segment_config=stamp.segment_config,
        notes=stamp.notes,
        date=lecture.date or (previous.date if previous else None),
    )


def say_twins(plan: IngestPlan, result: FileResult) -> None:
    """The lectures skipped as twins of stored ones: the file is a duplicate when nothing else
    of it was stored or kept, else a warning."""
    if not plan.twins:
        return
    shown = ", ".join(plan.twins[:4])
    if len(plan.twins) > 4:
        # TRANSLATORS: {lectures} lists four lectures ("aula-1 (aula-1.vtt), ...")
        shown = _("{lectures} and {count} more").format(lectures=shown, count=len(plan.twins) - 4)
    if not plan.planned and result.status == "unchanged" and not result.lectures:
        result.status = "duplicate"
        result.message = _(
            "same content as {lectures}, already in the library; nothing stored"
        ).format(lectures=shown)
    else:
        result.warnings.append(
            _(
                "same content as {lectures}, already in the library; those lectures were skipped"
            ).format(lectures=shown)
        )


def options_change(existing: list[LectureRow], options: IngestOptions) -> bool:
    return any(
        (options.course is not None and r.course != options.course)
        or (options.title is not None and r.title != options.title)
        or (options.url is not None and r.source_url != options.url)
        or (options.language is not None and r.language != options.language)
        for r in existing
    )


def content_options_change(existing: list[LectureRow], options: IngestOptions) -> bool:
    """Whether the options change what is indexed (the language's stemming), not only what is
    shown (title, course, link)."""
    return any(options.language is not None and r.language != options.language for r in existing)


def update_metadata(store: Store, existing: list[LectureRow], options: IngestOptions) -> None:
    single = len(existing) == 1
    for r in existing:
        store.update_lecture(
            r.id,
            title=options.title if single else None,
            course=options.course,
            source_url=options.url if single else None,
        )


def apply_video_info(parsed: list[ParsedLecture], path: Path, result: FileResult) -> None:
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
            ngettext(
                "{n} chapter read from {file}", "{n} chapters read from {file}", len(info.chapters)
            ).format(n=len(info.chapters), file=info.path.name)
        )


def apply_options(parsed: list[ParsedLecture], options: IngestOptions, result: FileResult) -> None:
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


def _same(a: LectureRow, b: LectureRow) -> bool:
    """The same lecture as stored. Its notes are not compared: they are written in the language
    the program spoke when the file was read, and the same file read in another language is the
    same lecture (its repairs follow from its content, which the hash compares)."""
    keys = (
        "title",
        "course",
        "language",
        "source_url",
        "source_format",
        "content_hash",
        "segment_config",
        "date",
    )
    return all(getattr(a, k) == getattr(b, k) for k in keys)


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
