"""Asking within a course or some lectures: the scope a question is searched in.

A scope names courses and lectures (ids, titles or unique prefixes); it covers their union.
Both retrievers apply it before ranking (the dense side through hnswlib's filter, BM25 in SQL),
so a scoped question gets a full top-k from inside the scope, never what is left of the global
top-k once the rest is thrown away.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lecturetui.core.errors import LectureTuiError

if TYPE_CHECKING:
    from lecturetui.core.lectures import Lecture
    from lecturetui.core.storage.store import Store


@dataclass(frozen=True, slots=True)
class Scope:
    courses: tuple[str, ...] = ()
    lectures: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.courses or self.lectures)

    def label(self) -> str:
        """How the status line and the CLI name it: "course X · lecture Y"."""
        parts = [f"course {c}" for c in self.courses] + [f"lecture {x}" for x in self.lectures]
        return " · ".join(parts) if parts else "whole library"


@dataclass(frozen=True, slots=True)
class ResolvedScope:
    lecture_ids: frozenset[str]
    segment_ids: frozenset[int]

    def __contains__(self, segment_id: object) -> bool:
        return segment_id in self.segment_ids


def _course(lectures: list[Lecture], name: str) -> list[Lecture]:
    courses = sorted({x.course for x in lectures if x.course})
    needle = name.casefold().strip()
    exact = [c for c in courses if c.casefold() == needle]
    found = exact or [c for c in courses if c.casefold().startswith(needle)]
    if len(found) != 1:
        listed = "; ".join(courses) or "none yet (ingest with --course NAME)"
        what = "No course" if not found else "More than one course"
        raise LectureTuiError(f"{what} matches {name!r}.", hint=f"courses: {listed}")
    return [x for x in lectures if x.course == found[0]]


def resolve(store: Store, scope: Scope) -> ResolvedScope | None:
    """The lectures and segments a scope covers; None for no scope (the whole library)."""
    if not scope:
        return None
    everything = store.lectures()
    chosen: dict[str, Lecture] = {}
    for course in scope.courses:
        chosen.update((x.id, x) for x in _course(everything, course))
    for name in scope.lectures:
        found = store.resolve_lecture(name)
        if not found:
            raise LectureTuiError(
                f"No lecture matches {name!r}.", hint="`lecturetui lectures` lists ids and titles"
            )
        if len(found) > 1:
            names = ", ".join(x.id for x in found[:6])
            raise LectureTuiError(
                f"{len(found)} lectures match {name!r}.", hint=f"give one of: {names}"
            )
        chosen[found[0].id] = found[0]
    ids = frozenset(chosen)
    return ResolvedScope(ids, frozenset(store.segment_ids_of(sorted(ids))))
