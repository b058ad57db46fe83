"""A pack merged into a library: searchable at once, ranked as in the library it came from.

The order makes a kill at any moment harmless. The pack is read and checked whole (reader.py)
and each lecture's fate decided (plan.py) before anything is written; vectors that must be
made again (the student's embedder is not the pack's) are made then too. Segment ids are then
reserved (ids no segment will ever get), the vectors added under them to the indexes and saved
(each index file replaced whole); then one transaction stores every lecture, its segments,
chapters, key phrases and summaries; then the vectors of the segments it replaced go. Killed
before the transaction, the library is as it was but for vectors no segment has, which the next
import (or search) drops; after it, the pack is whole. Running the import again finishes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

import numpy as np

from lecturetui.core.i18n import _
from lecturetui.core.lectures import Chapter
from lecturetui.core.pack.format import (
    FIRST_STAGE_ROLE,
    RERANK_ROLE,
    EmbedderInfo,
    PackManifest,
)
from lecturetui.core.pack.plan import ADDED, UPDATED, Decision, ImportPlan, plan_import, record_for
from lecturetui.core.pack.reader import PackContents, read_pack
from lecturetui.core.pack.saved import saved_rerank
from lecturetui.core.pack.vectors import Matrix
from lecturetui.core.progress import CountProgress, StepProgress
from lecturetui.core.retrieval import small_unit_index
from lecturetui.core.retrieval.small_units import split_units
from lecturetui.core.retrieval.vector_index import Manifest, VectorIndex
from lecturetui.core.sentences import kept_ends
from lecturetui.core.storage import packed

if TYPE_CHECKING:
    from lecturetui.core.library import Library


class _OfLecture(Protocol):
    @property
    def lecture(self) -> int: ...


T = TypeVar("T", bound=_OfLecture)

#: the stages an import reports progress in: (stage, done, total)
READING, EMBEDDING, STORING = "reading", "embedding", "storing"


@dataclass(frozen=True, slots=True)
class ImportedLecture:
    id: str
    title: str
    status: str  # added, updated, unchanged, skipped
    segments: int
    note: str = ""


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What `pack import` did."""

    path: str
    lectures: tuple[ImportedLecture, ...]
    segments: int  # segments written
    summaries: int  # summary parts written, with the model that wrote each
    models: tuple[str, ...]  # the answer models that wrote them
    vectors: (
        str  # the first stage's: "pack" (used as they are), "embedded" (made again here) or "none"
    )
    rerank: str  # the re-ranking model's: "pack", "pending" (made by the next sync) or "none"
    notes: tuple[str, ...]

    def count(self, status: str) -> int:
        return sum(1 for lec in self.lectures if lec.status == status)


@dataclass(slots=True)
class _Vectors:
    """The vectors to add: the pack's are added bit for bit (the scores they give are the ones
    they gave where the pack was made), those made here as any new vector is."""

    windows: Matrix
    units: Matrix
    rerank: Matrix | None
    windows_made_here: bool = False
    units_made_here: bool = False
    rerank_index: VectorIndex | None = None  # where `rerank` goes


def import_pack(library: Library, path: Path, progress: StepProgress | None = None) -> ImportResult:
    """Merge the pack at `path` into `library` (PackError, library unchanged, when refused)."""
    report = progress or (lambda _stage, _done, _total: None)
    report(READING, 0, 1)
    contents = read_pack(path)
    plan = plan_import(library.store, contents)
    report(READING, 1, 1)
    drop_leftovers(library)
    notes: list[str] = [d.note for d in plan.decisions if d.note]
    writes = plan.writes
    if not writes:
        return _result(path, plan, contents, [], tuple(notes), ("none", "none"))
    rows = [i for d in writes for i in range(*contents.span(d.index))]
    first_note = _embedder_note(library.index(), contents.manifest.embedder(FIRST_STAGE_ROLE))
    vectors = _Vectors(contents.windows[rows], _pack_units(contents, rows), None)
    if first_note or contents.manifest.unit_settings != small_unit_index.SETTINGS:
        notes.append(
            first_note or _("the pack's small units are cut otherwise; they are embedded again")
        )
        vectors = _embed(library, contents, rows, bool(first_note), vectors, report)
    rerank_state, rerank_note = _rerank(library, contents, rows, vectors)
    notes += [rerank_note] if rerank_note else []
    _write(library, contents, plan, rows, vectors, report)
    sources = ("embedded" if first_note else "pack", rerank_state)
    return _result(path, plan, contents, rows, tuple(notes), sources)


def _result(
    path: Path,
    plan: ImportPlan,
    contents: PackContents,
    rows: Sequence[int],
    notes: tuple[str, ...],
    sources: tuple[str, str],
) -> ImportResult:
    written = {d.index for d in plan.writes}
    summaries = [s for s in contents.summaries if s.lecture in written]
    return ImportResult(
        str(path),
        tuple(
            ImportedLecture(d.lecture_id, d.title, d.status, d.segments, d.note)
            for d in plan.decisions
        ),
        len(rows),
        len(summaries),
        tuple(sorted({s.model for s in summaries})),
        sources[0],
        sources[1],
        notes,
    )


def drop_leftovers(library: Library) -> None:
    """Drop the vectors no stored segment has (an import or ingest killed before its
    transaction leaves some); nothing is embedded."""
    stored = set(library.store.all_segment_ids())
    windows, units = library.index(create=False), library.unit_index(create=False)
    if windows is not None and (extra := sorted(windows.labels() - stored)):
        windows.remove(extra)
        windows.save()
    if units is not None and (gone := small_unit_index.indexed_segments(units) - stored):
        small_unit_index.remove_segments(units, sorted(gone))
        units.save()
    rerank = saved_rerank(library)
    if rerank is not None and (extra := sorted(rerank.labels() - stored)):
        rerank.remove(extra)
        rerank.save()


def _embedder_note(index: VectorIndex | None, info: EmbedderInfo | None) -> str:
    """ "" when the pack's vectors were made by the model that made `index`'s, else why not."""
    assert index is not None and info is not None
    mine: Manifest = index.manifest
    if info.name != mine.model_id or info.dimensions != mine.dim:
        # TRANSLATORS: e.g. "the pack's vectors were made by intfloat/multilingual-e5-base
        # (768 dimensions), yours by intfloat/multilingual-e5-small (384)..."
        return _(
            "the pack's vectors were made by {theirs} ({dim} dimensions), your library's by"
            " {mine} ({my_dim}): its segments are embedded again"
        ).format(theirs=info.name, dim=info.dimensions, mine=mine.model_id, my_dim=mine.dim)
    if info.revision != mine.model_hash or info.passage_prefix != mine.passage_prefix:
        return _(
            "the pack's vectors were made by other weights of {model}: its segments are"
            " embedded again"
        ).format(model=info.name)
    return ""


def _unit_counts(contents: PackContents, rows: Sequence[int]) -> list[int]:
    return [len(split_units(contents.segments[i].text)) for i in rows]


def _pack_units(contents: PackContents, rows: Sequence[int]) -> Matrix:
    """The pack's unit vectors of these segments (its count checked against their texts)."""
    if contents.manifest.unit_settings != small_unit_index.SETTINGS:
        return np.zeros((0, contents.units.shape[1]), np.float32)
    counts = _unit_counts(contents, range(len(contents.segments)))  # reader.py checked them
    starts = np.concatenate([[0], np.cumsum(counts)])
    picked = [r for i in rows for r in range(starts[i], starts[i + 1])]
    return contents.units[picked]


def _embed(
    library: Library,
    contents: PackContents,
    rows: Sequence[int],
    windows_too: bool,
    vectors: _Vectors,
    report: StepProgress,
) -> _Vectors:
    """The vectors made again with the student's first-stage model (nothing is written yet)."""
    texts = [contents.segments[i].text for i in rows]
    unit_texts = [u.text for t in texts for u in split_units(t)]
    total = len(unit_texts) + (len(texts) if windows_too else 0)

    def step(offset: int) -> CountProgress:
        return lambda done, _total: report(EMBEDDING, offset + done, total)

    embedder = library.embedder
    windows = embedder.embed_passages(texts, step(0)) if windows_too else vectors.windows
    units = embedder.embed_passages(unit_texts, step(len(texts) if windows_too else 0))
    return _Vectors(
        np.asarray(windows, np.float32), np.asarray(units, np.float32), None, windows_too, True
    )


def _rerank(
    library: Library, contents: PackContents, rows: Sequence[int], vectors: _Vectors
) -> tuple[str, str]:
    """Whether the re-ranking model's vectors come from the pack ("pack"), are made by the next sync
    ("pending") or not at all ("none"), and why, in a sentence ("" when from the pack)."""
    stage = library.rerank_stage()
    info = contents.manifest.embedder(RERANK_ROLE)
    if stage is None:
        return "none", (
            _(
                "re-ranking is off or not installed here: the pack's EmbeddingGemma"
                " vectors are not used"
            )
            if info
            else ""
        )
    if info is None or contents.rerank is None:
        return "pending", _("the pack has no EmbeddingGemma vectors: they are made here")
    index = saved_rerank(library) or stage.index()  # a new one: its model says what it is
    note = _embedder_note(index, info)
    if note:
        return "pending", note
    vectors.rerank, vectors.rerank_index = contents.rerank[list(rows)], index
    return "pack", ""


def _write(
    library: Library,
    contents: PackContents,
    plan: ImportPlan,
    rows: Sequence[int],
    vectors: _Vectors,
    report: StepProgress,
) -> None:
    """Reserve ids, save the vectors under them, store the lectures, drop what they replaced."""
    store = library.store
    report(STORING, 0, 3)
    first = packed.reserve_segment_ids(store, len(rows))
    ids = list(range(first, first + len(rows)))
    windows, units = library.index(), library.unit_index()
    assert windows is not None and units is not None
    _add(windows, ids, vectors.windows, vectors.windows_made_here)
    counts = _unit_counts(contents, rows)
    _add(
        units,
        [
            label
            for sid, n in zip(ids, counts, strict=True)
            for label in small_unit_index.unit_labels(sid, n)
        ],
        vectors.units,
        vectors.units_made_here,
    )
    windows.save()
    units.save()
    rerank = vectors.rerank_index
    if rerank is not None and vectors.rerank is not None:
        _add(rerank, ids, vectors.rerank, False)
        rerank.save()
    report(STORING, 1, 3)
    replaced = _store(library, contents, plan.writes, ids)
    report(STORING, 2, 3)
    if replaced:
        windows.remove(replaced)
        small_unit_index.remove_segments(units, replaced)
        windows.save()
        units.save()
        rerank = rerank or saved_rerank(library)
        if rerank is not None:
            rerank.remove(replaced)
            rerank.save()
    report(STORING, 3, 3)


def _add(index: VectorIndex, labels: list[int], vectors: Matrix, made_here: bool) -> None:
    index.folder.mkdir(parents=True, exist_ok=True)
    if made_here:
        index.add(labels, vectors)
    elif labels:
        index.add_stored(labels, vectors)


def _store(
    library: Library, contents: PackContents, writes: Sequence[Decision], ids: Sequence[int]
) -> list[int]:
    """Every written lecture in one transaction; returns the ids of the segments replaced."""
    store = library.store
    replaced: list[int] = []
    position = 0
    phrases = _by_lecture(contents.phrases)
    summaries = _by_lecture(contents.summaries)
    with store.transaction():
        for decision in writes:
            n = decision.index
            lecture = contents.lectures[n]
            existing = (
                packed.lecture_record(store, decision.lecture_id)
                if decision.status == UPDATED
                else None
            )
            assert decision.status in (ADDED, UPDATED)
            first, last = contents.span(n)
            segments = [
                packed.StoredSegmentRow(
                    ids[position + k],
                    s.start,
                    s.end,
                    s.text,
                    s.corpus_id,
                    s.n_tokens,
                    kept_ends(s.ends, len(s.text.split())),
                )
                for k, s in enumerate(contents.segments[first:last])
            ]
            position += len(segments)
            replaced += packed.put_lecture(
                store,
                record_for(lecture, decision.lecture_id, existing),
                segments,
                [Chapter(c.start, c.title, c.source) for c in lecture.chapters],
                [packed.PhraseRow(p.ordinal, p.start, p.phrases) for p in phrases.get(n, [])],
                [
                    packed.SummaryRow(
                        s.model, s.language, s.ordinal, s.start, s.summary, s.struck, s.made_at
                    )
                    for s in summaries.get(n, [])
                ],
            )
    return replaced


def _by_lecture(items: Sequence[T]) -> dict[int, list[T]]:
    out: dict[int, list[T]] = {}
    for item in items:
        out.setdefault(item.lecture, []).append(item)
    return out


def manifest_of(path: Path) -> PackManifest:
    """A pack's manifest, the pack checked whole (what `pack import --dry-run` would say)."""
    return read_pack(path).manifest
