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
from lecturetui.core.i18n import _

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
        parts = [_("course {name}").format(name=c) for c in self.courses] + [
            _("lecture {name}").format(name=x) for x in self.lectures
        ]
        return " · ".join(parts) if parts else _("whole library")


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
        listed = "; ".join(courses) or _("none yet (ingest with --course NAME)")
        raise LectureTuiError(
            (
                _("No course matches {name!r}.")
                if not found
                else _("More than one course matches {name!r}.")
            ).format(name=name),
            hint=_("courses: {courses}").format(courses=listed),
        )
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
                _("No lecture matches {name!r}.").format(name=name),
                hint=_("`lecturetui lectures` lists ids and titles"),
            )
        if len(found) > 1:
            names = ", ".join(x.id for x in found[:6])
            raise LectureTuiError(
                _("{count} lectures match {name!r}.").format(count=len(found), name=name),
                hint=_("give one of: {choices}").format(choices=names),
            )
        chosen[found[0].id] = found[0]
    ids = frozenset(chosen)
    return ResolvedScope(ids, frozenset(store.segment_ids_of(sorted(ids))))
