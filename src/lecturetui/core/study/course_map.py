"""Where a topic lives across the course: for a question, one row per lecture that has a hit,
time across, each window shaded by how close it is to the question, the hits numbered where
they sit.

Every window of those lectures is scored against the question with the vectors the library
already holds (EmbeddingGemma's when it re-ranks, else E5's), so the map shows where the topic
comes back, not only the ten hits. Shades are relative to the map's own best window: the
strongest fifth of the range is the darkest. The grid is text, readable without colour
(`lecturetui search --map`); the app draws the same rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lecturetui.core.i18n import _, ngettext
from lecturetui.core.lectures import Lecture
from lecturetui.core.records import HitRecord, MapHitRecord, MapRowRecord, MapWindowRecord
from lecturetui.core.storage.store import Store

#: from no match to the strongest: a window's shade by its score in the map's range
SHADES = " ·░▒▓█"
#: the hits' marks, in rank order
MARKS = "123456789abcdefghijklmnopqrstuvwxyz"
#: columns of the time axis
WIDTH = 60


@dataclass(frozen=True, slots=True)
class MapRow:
    lecture: Lecture
    #: (start, end, score) of every window of the lecture, in time order
    windows: tuple[tuple[float, float, float], ...]
    #: (rank, start) of the hits in this lecture
    hits: tuple[tuple[int, float], ...]

    def record(self) -> MapRowRecord:
        return MapRowRecord(
            lecture=self.lecture.id,
            lecture_title=self.lecture.title,
            duration_s=self.lecture.duration,
            windows=tuple(MapWindowRecord(s, e, round(x, 4)) for s, e, x in self.windows),
            hits=tuple(MapHitRecord(rank, start) for rank, start in self.hits),
        )


def course_map(
    store: Store, hits: Sequence[HitRecord], score: Callable[[list[int]], dict[int, float]]
) -> list[MapRow]:
    """The rows of the map for a question's hits: the hits' lectures, in the order of their
    best hit, every window scored by `score` (segment ids -> closeness to the question:
    Library.window_scores)."""
    lectures: list[Lecture] = []
    for lecture_id in dict.fromkeys(h.lecture for h in hits):
        lecture = store.lecture(lecture_id)
        if lecture is not None:
            lectures.append(lecture)
    segments = {lec.id: store.segments(lec.id) for lec in lectures}
    scores = score([s.id for segs in segments.values() for s in segs])
    rows = []
    for lec in lectures:
        windows = tuple((s.start, s.end, scores.get(s.id, 0.0)) for s in segments[lec.id])
        marks = tuple((h.rank, h.start_s) for h in hits if h.lecture == lec.id)
        rows.append(MapRow(lec, windows, marks))
    return rows


def grid(rows: Sequence[MapRow], width: int = WIDTH) -> list[str]:
    """Each row's cells, one character a column: the window's shade, or the mark of a hit."""
    if not rows:
        return []
    longest = _longest(rows) or 1.0
    scores = [x for r in rows for _s, _e, x in r.windows]
    low, high = min(scores, default=0.0), max(scores, default=1.0)
    span = (high - low) or 1.0
    out = []
    for row in rows:
        cells = [0.0] * width
        covered = [False] * width
        for start, end, score in row.windows:
            first, last = _column(start, longest, width), _column(end, longest, width, True)
            for c in range(first, last + 1):
                cells[c] = max(cells[c], (score - low) / span)
                covered[c] = True
        line = [_shade(v) if covered[c] else " " for c, v in enumerate(cells)]
        for rank, start in sorted(row.hits, reverse=True):  # the best rank is drawn last
            if rank <= len(MARKS):
                line[_column(start, longest, width)] = MARKS[rank - 1]
        out.append("".join(line))
    return out


def _column(seconds: float, longest: float, width: int, end: bool = False) -> int:
    c = int(seconds / longest * width - (1e-9 if end else 0.0))
    return min(max(c, 0), width - 1)


def _shade(value: float) -> str:
    """0..1 to a shade: the weakest fifth "·" ... the strongest "█"."""
    return SHADES[1 + min(int(value * 5), 4)]


def _longest(rows: Sequence[MapRow]) -> float:
    """Where the last window of the longest row ends: the time axis's length."""
    return max((e for r in rows for _s, e, _x in r.windows), default=0.0)


def column_seconds(rows: Sequence[MapRow], width: int = WIDTH) -> float:
    """How many seconds one column of the grid stands for."""
    return _longest(rows) / width


def labels(rows: Sequence[MapRow], most: int = 24) -> list[str]:
    """The rows' lecture titles padded to one width (at most `most`, a longer one cut with …)."""
    names = [row.lecture.title for row in rows]
    width = min(most, max((len(name) for name in names), default=0))
    return [(n if len(n) <= width else n[: width - 1] + "…").ljust(width) for n in names]


def heading(rows: int, hits: int) -> str:
    """ "Where it comes up: 5 lectures, 10 hits", in the current language."""
    return _("Where it comes up: {lectures}, {hits}").format(
        lectures=ngettext("{n} lecture", "{n} lectures", rows).format(n=rows),
        hits=ngettext("{n} hit", "{n} hits", hits).format(n=hits),
    )


def legend(rows: Sequence[MapRow], width: int = WIDTH) -> str:
    """What a column, a shade and a mark stand for, in the current language."""
    minutes = max(1, round(column_seconds(rows, width) / 60))
    return _(
        "one column ≈ {minutes} min; █▓▒░ closer to the question, · farther;"
        " 1, 2, 3… (then a, b…) the hits by rank"
    ).format(minutes=minutes)
