"""A library's lectures written as a course pack (format.py): their rows, segments, vectors, key
phrases and summaries, read from the library as it is (nothing is embedded when its vectors are
all there), written to a temporary file beside the target, read back as an importer would read
it, then renamed over the target."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec
import numpy as np

from lecturetui import __version__
from lecturetui.core.i18n import _
from lecturetui.core.pack.format import (
    FIRST_STAGE_ROLE,
    FORMAT,
    FORMAT_VERSION,
    LECTURES,
    MANIFEST,
    PHRASES,
    RERANK,
    RERANK_ROLE,
    SEGMENTS,
    SUMMARIES,
    UNITS,
    WINDOWS,
    EmbedderInfo,
    Member,
    PackChapter,
    PackError,
    PackLecture,
    PackManifest,
    PackPhrases,
    PackSegment,
    PackSummary,
)
from lecturetui.core.pack.reader import read_pack
from lecturetui.core.pack.saved import saved_rerank
from lecturetui.core.pack.vectors import Matrix, to_npy
from lecturetui.core.progress import CountProgress
from lecturetui.core.retrieval import small_unit_index
from lecturetui.core.retrieval.small_units import split_units
from lecturetui.core.retrieval.vector_index import Manifest, VectorIndex
from lecturetui.core.storage import packed
from lecturetui.core.timefmt import utc_now

if TYPE_CHECKING:
    from lecturetui.core.lectures import Lecture
    from lecturetui.core.library import Library


@dataclass(frozen=True, slots=True)
class ExportResult:
    """What `pack export` wrote."""

    path: str
    lectures: int
    segments: int
    summaries: int  # parts and gists written by an answer model
    rerank: bool  # whether the re-ranking model's vectors are in it
    bytes: int


@dataclass(slots=True)
class _Gathered:
    lectures: list[PackLecture]
    segments: list[PackSegment]
    phrases: list[PackPhrases]
    summaries: list[PackSummary]
    ids: list[int]
    unit_labels: list[int]


def export_pack(
    library: Library,
    target: Path,
    lectures: Sequence[Lecture],
    progress: CountProgress | None = None,
) -> ExportResult:
    """Write `lectures` of `library` to `target` as a pack (PackError when it cannot be)."""
    if not lectures:
        raise PackError(
            _("There are no lectures to export."),
            hint=_("add lectures with `lecturetui ingest PATH...`"),
        )
    library.sync_index(progress, only_if_exists=True)  # vectors a killed ingest left out
    windows, units = library.index(create=False), library.unit_index(create=False)
    if windows is None or units is None:
        raise PackError(
            _("The library has no search index yet."), hint=_("run `lecturetui reindex`")
        )
    gathered = _gather(library, lectures)
    rerank = _rerank_index(library, gathered.ids, progress)
    members = {
        LECTURES: _jsonl(gathered.lectures),
        SEGMENTS: _jsonl(gathered.segments),
        PHRASES: _jsonl(gathered.phrases),
        SUMMARIES: _jsonl(gathered.summaries),
        WINDOWS: to_npy(windows.vectors(gathered.ids)),
        UNITS: to_npy(_vectors(units, gathered.unit_labels)),
    }
    embedders = [_info(FIRST_STAGE_ROLE, windows.manifest)]
    if rerank is not None:
        members[RERANK] = to_npy(rerank.vectors(gathered.ids))
        embedders.append(_info(RERANK_ROLE, rerank.manifest))
    manifest = PackManifest(
        format=FORMAT,
        version=FORMAT_VERSION,
        created_at=utc_now(),
        made_by=__version__,
        lectures=len(gathered.lectures),
        segments=len(gathered.segments),
        units=len(gathered.unit_labels),
        unit_settings=dict(small_unit_index.SETTINGS),
        embedders=tuple(embedders),
        members=tuple(
            Member(name, len(data), hashlib.sha256(data).hexdigest())
            for name, data in members.items()
        ),
    )
    size = _write(target, manifest, members)
    return ExportResult(
        str(target),
        len(gathered.lectures),
        len(gathered.segments),
        len(gathered.summaries),
        rerank is not None,
        size,
    )


def _rerank_index(
    library: Library, ids: Sequence[int], progress: CountProgress | None
) -> VectorIndex | None:
    """The re-ranking model's vectors, those missing written first (only then is the model loaded);
    None where re-ranking is off or not installed."""
    stage = library.rerank_stage()
    if stage is None:
        return None
    index = saved_rerank(library)
    if index is None or any(i not in index for i in ids):
        library.sync_rerank(progress)
        index = stage.index()
    return index


def _info(role: str, manifest: Manifest) -> EmbedderInfo:
    return EmbedderInfo(
        role,
        manifest.model_id,
        manifest.model_hash,
        manifest.dim,
        manifest.passage_prefix,
        manifest.query_prefix,
    )


def _vectors(index: VectorIndex, labels: list[int]) -> Matrix:
    missing = [label for label in labels if label not in index]
    if missing:
        raise PackError(
            _("Some segments have no vectors in the search index."),
            hint=_("run `lecturetui reindex`, then export again"),
        )
    return index.vectors(labels) if labels else np.zeros((0, index.manifest.dim), np.float32)


def _gather(library: Library, lectures: Sequence[Lecture]) -> _Gathered:
    """The lectures in the order their segments were stored (so a search's ties break the same
    way in the library a pack is imported into), with all that belongs to them."""
    store = library.store
    origin = packed.library_origin(store)
    rows = [(lec, packed.segment_rows(store, lec.id)) for lec in lectures]
    rows = [(lec, segs) for lec, segs in rows if segs]
    rows.sort(key=lambda pair: pair[1][0].id)
    out = _Gathered([], [], [], [], [], [])
    for n, (lec, segs) in enumerate(rows):
        out.lectures.append(_lecture(library, lec, origin, len(segs)))
        for seg in segs:
            out.segments.append(
                PackSegment(n, seg.start, seg.end, seg.text, seg.corpus_id, seg.n_tokens, seg.ends)
            )
            out.ids.append(seg.id)
            out.unit_labels += small_unit_index.unit_labels(seg.id, len(split_units(seg.text)))
        out.phrases += [
            PackPhrases(n, p.ordinal, p.start, p.phrases)
            for p in packed.phrase_rows(store, lec.id, lec.content_hash)
        ]
        out.summaries += [
            PackSummary(n, s.model, s.language, s.ordinal, s.start, s.label, s.refused, s.made_at)
            for s in packed.summary_rows(store, lec.id, lec.content_hash)
        ]
    return out


def _lecture(library: Library, lec: Lecture, origin: str, n_segments: int) -> PackLecture:
    record = packed.lecture_record(library.store, lec.id)
    source = record.source_path or ""
    own_origin, key = (
        (source.removeprefix(packed.PACK_SOURCE), record.source_key)
        if source.startswith(packed.PACK_SOURCE)
        else (origin, lec.id)
    )
    url = record.source_url if record.source_url and _web(record.source_url) else None
    return PackLecture(
        origin=own_origin,
        key=key,
        id=lec.id,
        title=lec.title,
        course=lec.course,
        language=lec.language,
        url=url,
        source_format=record.source_format,
        duration=record.duration,
        date=record.date,
        content_hash=record.content_hash,
        segment_config=record.segment_config,
        notes=record.notes,
        chapters=tuple(PackChapter(c.start, c.title, c.source) for c in library.chapters(lec.id)),
        segments=n_segments,
    )


def _web(url: str) -> bool:
    """A web link goes in a pack; a path to a video on the exporter's disk does not."""
    return url.startswith(("http://", "https://"))


def _jsonl(items: Sequence[object]) -> bytes:
    encoder = msgspec.json.Encoder()
    return b"".join(encoder.encode(item) + b"\n" for item in items)


def _write(target: Path, manifest: PackManifest, members: dict[str, bytes]) -> int:
    """The zip written beside `target`, read back as an importer reads it, then renamed."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}-", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        with zipfile.ZipFile(tmp, "w") as zf:
            zf.writestr(
                MANIFEST, msgspec.json.format(msgspec.json.encode(manifest)), zipfile.ZIP_DEFLATED
            )
            for member, data in members.items():
                method = zipfile.ZIP_STORED if member.endswith(".npy") else zipfile.ZIP_DEFLATED
                zf.writestr(member, data, method)
        read_pack(tmp)  # what an importer would refuse is said here, to its maker
        tmp.chmod(0o644)
        tmp.replace(target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return target.stat().st_size
