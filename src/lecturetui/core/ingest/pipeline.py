"""Files -> parsed lectures -> segments -> the store, one file per transaction.

A bad file gets one clear message and leaves nothing behind; the batch goes on with the others.
Which files (discover.py), the file's bytes and reader (source.py), what its lectures become
(plan.py); here the order of the steps: read, plan, embed, then store all of the file or none.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from lecturetui.core.errors import LectureTuiError, TranscriptError
from lecturetui.core.i18n import _
from lecturetui.core.ingest.batch import DEFAULT_MAX_BYTES, FileResult, IngestOptions, IngestReport
from lecturetui.core.ingest.discover import discover, wanted
from lecturetui.core.ingest.plan import (
    IngestPlan,
    Stamp,
    apply_options,
    apply_video_info,
    content_options_change,
    options_change,
    plan_lectures,
    say_twins,
    update_metadata,
)
from lecturetui.core.ingest.recordings import MediaContext
from lecturetui.core.ingest.source import SourceFile, open_source, transcript_writer
from lecturetui.core.models.tokens import TokenCounter
from lecturetui.core.progress import NotedProgress
from lecturetui.core.sentences import Window, punctuated, stitch
from lecturetui.core.storage.store import LectureRow, SaveResult, Store

__all__ = [
    "DEFAULT_MAX_BYTES",
    "EmbedFn",
    "EndsFn",
    "FileResult",
    "IngestOptions",
    "IngestReport",
    "discover",
    "ingest_file",
    "ingest_paths",
    "wanted",
]

EmbedFn = Callable[[list[str]], "npt.NDArray[np.float32]"]
#: a lecture's words -> the positions of the words its sentences end with (None: no model)
EndsFn = Callable[[Sequence[str]], "list[int] | None"]
Vectors = list["npt.NDArray[np.float32] | None"]


def ingest_paths(
    store: Store,
    paths: Iterable[Path],
    options: IngestOptions | None = None,
    counter: TokenCounter | None = None,
    progress: NotedProgress | None = None,
    on_saved: Callable[[FileResult], None] | None = None,
    embed: EmbedFn | None = None,
    media: MediaContext | None = None,
    ends: EndsFn | None = None,
) -> IngestReport:
    """Ingest every file (folders are expanded). `on_saved` runs after each file that changed.

    With `embed`, each file's new segments are embedded before anything of it is stored (the slow
    step, so an interruption there leaves the store untouched); their vectors come back in the
    file's result, aligned with `changes`. Audio and video files are transcribed with `media`'s
    transcriber (a media file without it fails); `media.cancel` returning True raises
    `media.Cancelled` out of here, the file in progress not stored. With `ends` (the sentence
    model's, core/models/sentence_ends.py), a lecture whose captions do not mark their sentences gets
    its sentence ends found before it is stored (kept with each window: `Segment.ends`).
    """
    options = options or IngestOptions()
    files, report_missing = discover(paths, options.language)
    report = IngestReport(results=list(report_missing))
    for n, path in enumerate(files):
        if progress:
            progress(n, len(files), path.name)
        result = ingest_file(store, path, options, counter, embed, media, ends)
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
    ends: EndsFn | None = None,
) -> FileResult:
    counter = counter or TokenCounter()
    try:
        return _ingest_file(store, path, options, counter, embed, media, ends)
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
    ends: EndsFn | None = None,
) -> FileResult:
    source = open_source(store, path, options, media)
    config_json = json.dumps(
        {**options.segment_config.as_dict(), "counter": counter.name}, sort_keys=True
    )
    existing = store.records_for_source(source.path)
    vtt = transcript_writer(store, path, source, options, media, existing)
    kept = _kept(store, path, source, config_json, existing, options, vtt)
    if kept is not None:
        return kept

    transcript = source.read()
    parsed = transcript.lectures
    # the result's notes also say where the metadata came from; the lecture keeps its repairs only
    result = FileResult(
        path,
        "unchanged",
        warnings=transcript.warnings,
        notes=list(transcript.notes),
        transcript_file=vtt() if vtt else None,
    )
    apply_video_info(parsed, path, result)
    apply_options(parsed, options, result)
    stamp = Stamp(source.path, source.hash, config_json, tuple(transcript.notes))
    plan = plan_lectures(store, parsed, existing, stamp, options.segment_config, counter, result)
    if ends is not None:
        find_sentence_ends(plan, ends)
    vectors = _embed(plan, embed)
    with store.transaction():  # every lecture of the file, or none
        _store(store, plan, vectors, existing, result)
        _drop_gone(store, existing, {p.key for p in parsed}, result)
        if not plan.planned and existing:
            for rec in existing:
                store.touch_source_hash(rec.id, source.hash)
    say_twins(plan, result)
    return result


def _kept(
    store: Store,
    path: Path,
    source: SourceFile,
    config_json: str,
    existing: list[LectureRow],
    options: IngestOptions,
    vtt: Callable[[], Path | None] | None,
) -> FileResult | None:
    """The result when the file is not read again (the same bytes, segmenting and format as
    stored): unchanged, or only its title, course or link updated; None when it is read."""
    unchanged = existing and all(
        r.source_hash == source.hash
        and r.segment_config == config_json
        and source.format in (None, r.source_format)
        for r in existing
    )
    if unchanged and not options_change(existing, options):
        lectures = [r.id for r in existing]
        return FileResult(
            path,
            "unchanged",
            lectures=lectures,
            message=_("unchanged"),
            transcript_file=vtt() if vtt else None,
        )
    if unchanged and not content_options_change(existing, options):
        update_metadata(store, existing, options)  # a new title, course or link: no re-embedding
        return FileResult(
            path,
            "updated",
            lectures=[r.id for r in existing],
            message=_("title, course or link updated"),
            transcript_file=vtt() if vtt else None,
        )
    return None


def find_sentence_ends(plan: IngestPlan, ends: EndsFn) -> None:
    """Each planned lecture whose captions do not mark their sentences (core/sentences.py) with
    the sentence ends `ends` finds in its words, read once (the windows stitched: each word
    once), kept with each window as positions of its own words."""
    for n, (record, segments) in enumerate(plan.planned):
        line = stitch([Window(k, s.start, s.end, s.text) for k, s in enumerate(segments)])
        if not line.words or punctuated(line.words):
            continue
        got = ends(line.words)
        if got is None:
            return
        found = set(got)
        plan.planned[n] = (
            record,
            [
                replace(
                    seg,
                    ends=tuple(
                        j for j in range(len(seg.text.split())) if line.offsets[k] + j in found
                    ),
                )
                for k, seg in enumerate(segments)
            ],
        )


def _embed(plan: IngestPlan, embed: EmbedFn | None) -> Vectors:
    """The planned segments' vectors, per lecture, before anything is stored (None each without
    `embed`)."""
    if embed is None or not plan.planned:
        return [None] * len(plan.planned)
    texts = [s.text for _record, segments in plan.planned for s in segments]
    all_vectors = embed(texts)
    bounds = np.cumsum([0] + [len(segments) for _record, segments in plan.planned])
    return [all_vectors[a:b] for a, b in itertools.pairwise(bounds)]


def _store(
    store: Store, plan: IngestPlan, vectors: Vectors, existing: list[LectureRow], result: FileResult
) -> None:
    """The planned lectures saved (inside the file's transaction), each change in `result`."""
    stored_keys = {r.source_key for r in existing}
    for (record, segments), vecs in zip(plan.planned, vectors, strict=True):
        was_there = record.source_key in stored_keys
        result.changes.append(store.save_lecture(record, segments))
        store.save_chapters(record.id, plan.chapters.get(record.id, []))
        result.vectors.append(vecs)
        result.lectures.append(record.id)
        result.segments += len(segments)
        if result.status != "added":
            result.status = "updated" if was_there else "added"


def _drop_gone(
    store: Store, existing: list[LectureRow], kept_keys: set[str], result: FileResult
) -> None:
    """The lectures the file no longer holds, removed (inside the file's transaction)."""
    for rec in existing:
        if rec.source_key not in kept_keys:
            removed = store.delete_lecture(rec.id)
            result.changes.append(SaveResult(rec.id, removed, []))
            result.vectors.append(None)
            result.status = "updated"
