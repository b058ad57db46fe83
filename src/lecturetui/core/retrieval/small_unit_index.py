"""The unit index: E5 vectors of each segment's small units (core/retrieval/small_units.py), beside the windows'.

It lives in `index/units/` with its own manifest (same model and weights as the window index,
plus the unit settings) and the same atomic saves. A unit's label is `segment id * MAX_UNITS +
its number`, so the segment of any unit is known without a table, and a segment's units can be
removed with it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import numpy as np
import numpy.typing as npt

from lecturetui.core.lectures import StoredSegment
from lecturetui.core.retrieval.small_units import MAX_UNITS, STRIDE, WIDTH, Unit, split_units
from lecturetui.core.retrieval.vector_index import VectorIndex, unit_vector

SETTINGS = {"unit_width": WIDTH, "unit_stride": STRIDE, "unit_version": 2}

Embed = Callable[[list[str]], npt.NDArray[np.float32]]


def segment_of(label: int) -> int:
    return label // MAX_UNITS


def unit_labels(segment_id: int, n: int) -> list[int]:
    return [segment_id * MAX_UNITS + i for i in range(n)]


def units_of(segment: StoredSegment) -> list[Unit]:
    return split_units(segment.text)


def add_segments(index: VectorIndex, segments: Mapping[int, StoredSegment], embed: Embed) -> int:
    """Embed and add the units of these segments; returns how many units were added."""
    labels: list[int] = []
    texts: list[str] = []
    for sid, seg in segments.items():
        units = units_of(seg)
        labels.extend(unit_labels(sid, len(units)))
        texts.extend(u.text for u in units)
    if texts:
        index.add(labels, embed(texts))
    return len(labels)


def remove_segments(index: VectorIndex, segment_ids: Iterable[int]) -> None:
    index.remove(
        [lab for sid in segment_ids for lab in unit_labels(sid, MAX_UNITS) if lab in index]
    )


def indexed_segments(index: VectorIndex) -> set[int]:
    return {segment_of(lab) for lab in index.labels()}


def best_units(
    index: VectorIndex, segments: Mapping[int, StoredSegment], query: npt.NDArray[np.float32]
) -> dict[int, tuple[float, Unit]]:
    """For each segment, its unit most similar to the question (cosine) and that unit."""
    wanted: list[tuple[int, int, Unit]] = []
    for sid, seg in segments.items():
        for lab, unit in zip(unit_labels(sid, MAX_UNITS), units_of(seg), strict=False):
            if lab in index:
                wanted.append((sid, lab, unit))
    if not wanted:
        return {}
    vecs = index.vectors([lab for _, lab, _ in wanted])
    sims = vecs @ unit_vector(query)
    out: dict[int, tuple[float, Unit]] = {}
    for (sid, _, unit), sim in zip(wanted, sims.tolist(), strict=True):
        if sid not in out or sim > out[sid][0]:
            out[sid] = (float(sim), unit)
    return out
