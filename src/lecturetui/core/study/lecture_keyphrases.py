"""A library lecture's parts and key phrases: the key phrases are found once, when the lecture is
ingested (E5 is loaded then), for the lecture and for each part lecturetui cuts or the author
named, and kept (core/storage/phrases.py); a part lecturetui cut is titled by its first key
phrase. A lecture stored before key phrases were kept gets them when the app is idle
(tui/background.py), and keeps the word-run title of core/study/parts.py until then."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from lecturetui.core.lectures import Lecture
from lecturetui.core.lexical import index_terms
from lecturetui.core.models.embedding import Embedder
from lecturetui.core.retrieval.small_units import MAX_UNITS
from lecturetui.core.retrieval.vector_index import VectorIndex
from lecturetui.core.storage.phrases import KeyPhrases, PhraseTable
from lecturetui.core.storage.store import Store
from lecturetui.core.study.keyphrases import common_words, gathered, keyphrases, remembered
from lecturetui.core.study.outline import chapters
from lecturetui.core.study.parts import Part, lecture_parts, span_vectors

#: a common word of the language (keyphrases.COMMON_WORDS) that at least this share of the
#: library's segments say is a filler no key phrase begins or ends with ("né", "assim", "you
#: know"): said everywhere, it names nothing, unlike "regular" in "regular expression" ...
FILLER_SHARE = 0.3
#: ... once the library holds this many segments (fewer tell no filler from a subject)
FILLER_SEGMENTS = 20
#: a lecture's phrase whose every word this share of the library's segments say names what the
#: library is about, not the lecture: it goes after the lecture's own (with at least
#: WIDESPREAD_LECTURES lectures in the library)
WIDESPREAD_SHARE = 0.25
WIDESPREAD_LECTURES = 3


@dataclass(frozen=True, slots=True)
class Sources:
    """What a lecture's parts and key phrases are read from: the store, the unit index (None:
    not made yet) and E5 (loaded when first called)."""

    store: Store
    units: VectorIndex | None
    embedder: Callable[[], Embedder]

    def vectors(self, labels: list[int]) -> npt.NDArray[np.float32]:
        """The units' E5 vectors (zeros of width 1 where the index lacks one: one part)."""
        if self.units is None or not labels or any(label not in self.units for label in labels):
            return np.zeros((len(labels), 1), dtype=np.float32)
        return self.units.vectors(labels)

    def parts(
        self, lecture: Lecture, titled_elsewhere: Callable[[float], bool] | None = None
    ) -> list[Part]:
        """The parts as cut, before their key phrases (core/study/parts.py); those
        `titled_elsewhere` says a key phrase titles are left untitled."""
        return lecture_parts(
            self.store.segments(lecture.id),
            chapters(self.store, lecture),
            self.vectors,
            MAX_UNITS,
            titled_elsewhere,
            lecture.language or "",
        )


def parts_of(sources: Sources, lecture: Lecture) -> list[Part]:
    """The lecture's parts (core/study/parts.py): its author's chapters, else cut where the
    subject changes, from the E5 vectors the unit index holds (no model runs); each with its
    key phrases where they were found, a part cut here titled by its first."""
    kept = PhraseTable(sources.store).read(lecture)
    if kept is None:
        return sources.parts(lecture)
    return titled(sources.parts(lecture, lambda start: bool(kept.of_part(start))), kept)


def part_vectors(
    sources: Sources, lecture: Lecture, parts: Sequence[Part]
) -> npt.NDArray[np.float32]:
    """Each part's E5 vector, unit-length: the mean of its units' vectors in the unit index
    (a column of zeros where the index lacks them)."""
    spans = [(p.start, p.end) for p in parts]
    found = span_vectors(sources.store.segments(lecture.id), spans, sources.vectors, MAX_UNITS)
    norms = np.linalg.norm(found, axis=1, keepdims=True)
    return (found / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def titled(parts: Sequence[Part], kept: KeyPhrases | None) -> list[Part]:
    """The parts with their key phrases, each one lecturetui cut titled by its first."""
    if kept is None:
        return list(parts)
    out = []
    for p in parts:
        found = kept.of_part(p.start)
        name = found[0] if p.made and found else p.title
        out.append(dataclasses.replace(p, title=name, phrases=found))
    return out


def find_keyphrases(sources: Sources, lecture: Lecture) -> KeyPhrases | None:
    """Find the lecture's key phrases and its parts' with E5 and keep them; None when its units
    are not in the unit index (nothing is kept then)."""
    parts = sources.parts(lecture, lambda _start: True)  # their titles are not needed here
    if not parts:
        return None
    spans = [(p.start, p.end) for p in parts] + [(parts[0].start, parts[-1].end + 1.0)]
    segments = sources.store.segments(lecture.id)
    vectors = span_vectors(segments, spans, sources.vectors, MAX_UNITS)
    embedder = sources.embedder()
    if vectors.shape[1] != embedder.dim:
        return None
    texts = [p.text for p in parts]
    # the lecture's language as ingest told it (none: no stop words)
    language = lecture.language or ""
    embed = remembered(embedder.embed_queries)
    said = fillers(sources.store, language)
    by_part = keyphrases(texts, vectors[:-1], embed, language, fillers=said)
    own = gathered(
        by_part, vectors[-1], embed, language, elsewhere=_widespread(sources.store, language)
    )
    table = PhraseTable(sources.store)
    table.keep(lecture, own, [(p.start, found) for p, found in zip(parts, by_part, strict=True)])
    return table.read(lecture)


def fillers(store: Store, language: str) -> frozenset[str]:
    """The common words of the language that FILLER_SHARE of the library's segments say."""
    n_docs, shares = word_shares(store, common_words(language), language)
    if n_docs < FILLER_SEGMENTS:
        return frozenset()
    return frozenset(w for w, share in shares.items() if share >= FILLER_SHARE)


def word_shares(store: Store, words: Iterable[str], language: str) -> tuple[int, dict[str, float]]:
    """How many segments the library holds, and the share of them that say each word (under
    any of the stems the lexical index keeps for it)."""
    stems = {w: index_terms(w, language).split() for w in words}
    n_docs, shares = store.term_shares([t for terms in stems.values() for t in terms])
    return n_docs, {
        w: max((shares.get(t, 0.0) for t in terms), default=0.0) for w, terms in stems.items()
    }


def _widespread(store: Store, language: str) -> Callable[[list[str]], set[str]] | None:
    """Of the phrases given, those whose every word WIDESPREAD_SHARE of the library's segments
    say (None: too few lectures to tell)."""
    if store.counts()[0] < WIDESPREAD_LECTURES:
        return None

    def widespread(keys: list[str]) -> set[str]:
        words = {w for k in keys for w in k.split() if index_terms(w, language)}
        _n_docs, shares = word_shares(store, words, language)
        return {
            k for k in keys if all(shares[w] >= WIDESPREAD_SHARE for w in k.split() if w in shares)
        }

    return widespread


def find_missing(
    sources: Sources, lectures: Iterable[Lecture], stop: threading.Event | None = None
) -> int:
    """Find the key phrases of the lectures that have none for their content, one lecture
    after another until `stop` is set; how many were found."""
    found = 0
    for lecture in PhraseTable(sources.store).missing(list(lectures)):
        if stop is not None and stop.is_set():
            break
        found += find_keyphrases(sources, lecture) is not None
    return found
