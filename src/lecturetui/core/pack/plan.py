"""What each lecture of a pack becomes in a library, decided before anything is written.

A pack's lecture is known by its origin and key (format.PackLecture): the one imported before
is updated in place (or left as it is when nothing changed, so importing twice changes nothing);
a lecture of the student's own with the same content is kept and the pack's skipped; one with
the same title is kept too, the pack's added beside it under another id, and both are said.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lecturetui.core.i18n import _
from lecturetui.core.ingest.lectureid import slug
from lecturetui.core.lectures import Chapter
from lecturetui.core.pack.format import PackLecture
from lecturetui.core.pack.reader import PackContents
from lecturetui.core.storage import packed
from lecturetui.core.storage.rows import LectureRow
from lecturetui.core.storage.store import Store

ADDED, UPDATED, UNCHANGED, SKIPPED = "added", "updated", "unchanged", "skipped"


@dataclass(frozen=True, slots=True)
class Decision:
    """One pack lecture: what becomes of it, under which id, and why (a sentence, or "")."""

    index: int  # its line in the pack
    status: str  # ADDED, UPDATED, UNCHANGED, SKIPPED
    lecture_id: str
    title: str
    segments: int
    note: str = ""


@dataclass(slots=True)
class ImportPlan:
    """What importing a pack does: a decision for each of its lectures."""

    decisions: list[Decision] = field(default_factory=list)

    @property
    def writes(self) -> list[Decision]:
        return [d for d in self.decisions if d.status in (ADDED, UPDATED)]


def plan_import(store: Store, contents: PackContents) -> ImportPlan:
    plan = ImportPlan()
    own_origin = _own_origin(store)
    taken: set[str] = set()
    titles = {lec.title.casefold(): lec for lec in store.lectures()}
    for n, lecture in enumerate(contents.lectures):
        existing = _existing(store, lecture, own_origin)
        if existing is not None:
            same = _same(store, existing, contents, n)
            plan.decisions.append(
                Decision(
                    n, UNCHANGED if same else UPDATED, existing.id, lecture.title, lecture.segments
                )
            )
            continue
        twin = store.find_by_content(lecture.content_hash)
        if twin is not None:
            note = _(
                "same content as {id} ({title}), already in your library; not imported"
            ).format(id=twin.id, title=twin.title)
            plan.decisions.append(Decision(n, SKIPPED, twin.id, lecture.title, 0, note))
            continue
        new_id = store.unique_lecture_id(slug(lecture.id)[:80], taken)
        taken.add(new_id)
        note = ""
        clash = titles.get(lecture.title.casefold())
        if clash is not None:
            note = _(
                "your library already has a lecture titled {title} ({id}), kept as it is;"
                " the pack's is added beside it as {new}"
            ).format(title=clash.title, id=clash.id, new=new_id)
        plan.decisions.append(Decision(n, ADDED, new_id, lecture.title, lecture.segments, note))
    return plan


def _own_origin(store: Store) -> str | None:
    row = store.connection.execute(
        "SELECT value FROM meta WHERE key = ?", (packed.ORIGIN_KEY,)
    ).fetchone()
    return str(row[0]) if row else None


def _existing(store: Store, lecture: PackLecture, own_origin: str | None) -> LectureRow | None:
    """The library's copy of this lecture: imported before, or made here in the first place."""
    if lecture.origin == own_origin:
        return packed.lecture_record(store, lecture.key) if store.lecture(lecture.key) else None
    for row in store.records_for_source(packed.PACK_SOURCE + lecture.origin):
        if row.source_key == lecture.key:
            return row
    return None


def record_for(lecture: PackLecture, lecture_id: str, existing: LectureRow | None) -> LectureRow:
    """The row a pack's lecture is stored as (a lecture made here keeps its own source)."""
    source_path, source_key, source_hash = (
        (existing.source_path, existing.source_key, existing.source_hash)
        if existing is not None and not (existing.source_path or "").startswith(packed.PACK_SOURCE)
        else (packed.PACK_SOURCE + lecture.origin, lecture.key, None)
    )
    return LectureRow(
        id=lecture_id,
        title=lecture.title,
        course=lecture.course,
        language=lecture.language,
        source_path=source_path,
        source_key=source_key,
        source_url=lecture.url,
        source_format=lecture.source_format,
        duration=lecture.duration,
        content_hash=lecture.content_hash,
        source_hash=source_hash,
        segment_config=lecture.segment_config,
        notes=lecture.notes,
        date=lecture.date,
    )


def _same(store: Store, existing: LectureRow, contents: PackContents, n: int) -> bool:
    """Whether the library holds this lecture just as the pack does (nothing to write)."""
    lecture = contents.lectures[n]
    wanted = record_for(lecture, existing.id, existing)
    keys = (
        "title",
        "course",
        "language",
        "source_url",
        "source_format",
        "duration",
        "content_hash",
        "segment_config",
        "date",
    )
    if any(getattr(wanted, k) != getattr(existing, k) for k in keys):
        return False
    chapters = [Chapter(c.start, c.title, c.source) for c in lecture.chapters]
    if store.chapters(existing.id) != chapters:
        return False
    first, last = contents.span(n)
    segments = [(s.start, s.end, s.text) for s in contents.segments[first:last]]
    stored = packed.segment_rows(store, existing.id)
    if [(s.start, s.end, s.text) for s in stored] != segments:
        return False
    phrases = {(p.ordinal, p.start, p.phrases) for p in contents.phrases if p.lecture == n}
    have = {
        (p.ordinal, p.start, p.phrases)
        for p in packed.phrase_rows(store, existing.id, existing.content_hash)
    }
    summaries = {
        (s.model, s.language, s.ordinal, s.summary) for s in contents.summaries if s.lecture == n
    }
    kept = {
        (s.model, s.language, s.ordinal, s.label)
        for s in packed.summary_rows(store, existing.id, existing.content_hash)
    }
    return phrases <= have and summaries <= kept
