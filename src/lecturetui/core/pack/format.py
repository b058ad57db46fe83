"""What a course pack holds: a zip file of plain members a student can look inside.

    manifest.json          the format's version, the embedders, the counts, each member's size
                           and sha256 (PackManifest)
    lectures.jsonl         one lecture a line: title, course, language, link, chapters (PackLecture)
    segments.jsonl         one segment a line, lecture by lecture, in time order (PackSegment)
    phrases.jsonl          the key phrases of each lecture and its parts (PackPhrases)
    summaries.jsonl        the summaries, part by part, with the model that wrote them
    vectors/windows.npy    E5's vector of every segment, in segments.jsonl's order (float32)
    vectors/units.npy      E5's vectors of every segment's small units, in the same order
    vectors/rerank.npy     EmbeddingGemma's vector of every segment (when the library had them)

No media, no database, no code: text as JSON lines and vectors as .npy (read without pickle).
The embedders' roles and members are those core/models/embedders.py gives them: the first
stage's vectors of the windows and of their units, the re-ranking model's of the windows.
"""

from __future__ import annotations

from dataclasses import dataclass

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.models.embedders import EMBEDDERS, first_stage, reranker

#: what `format` says in every pack's manifest, and the version this lecturetui reads and writes
FORMAT = "lecturetui-pack"
FORMAT_VERSION = 1

MANIFEST = "manifest.json"
LECTURES = "lectures.jsonl"
SEGMENTS = "segments.jsonl"
PHRASES = "phrases.jsonl"
SUMMARIES = "summaries.jsonl"
WINDOWS, UNITS = first_stage().pack_vectors
(RERANK,) = reranker().pack_vectors
#: every member a pack may hold; any other name is refused
MEMBERS = (LECTURES, SEGMENTS, PHRASES, SUMMARIES, *(m for e in EMBEDDERS for m in e.pack_vectors))
#: the roles of the embedders a manifest names: the first stage's ("e5"), the re-ranking
#: model's ("rerank"), and every one a manifest may name
FIRST_STAGE_ROLE, RERANK_ROLE = str(first_stage().pack_role), str(reranker().pack_role)
PACK_ROLES = frozenset(e.pack_role for e in EMBEDDERS if e.pack_role)

# -- limits, checked before anything is read ------------------------------------------------------
MAX_PACK_BYTES = 4 << 30  # the file
MAX_MEMBER_BYTES = 2 << 30  # one member, uncompressed
MAX_TOTAL_BYTES = 3 << 30  # every member, uncompressed
MAX_MANIFEST_BYTES = 1 << 20
MAX_RATIO = 200  # uncompressed / compressed: text compresses ~4x, vectors barely
MAX_ENTRIES = 32  # entries in the zip's directory
MAX_LECTURES = 10_000
MAX_SEGMENTS = 2_000_000
MAX_DIM = 8_192
MAX_TEXT = 100_000  # characters in a segment's text, a summary
MAX_NAME = 1_000  # a title, a course, a chapter's title, a key phrase
MAX_URL = 4_000
MAX_LIST = 1_000  # chapters of a lecture, notes, phrases of a part, refused labels
MAX_HOURS = 1_000  # a lecture's length (ingest's --allow-long limit)


class PackError(LectureTuiError):
    """A pack that cannot be made or imported: one sentence, the library unchanged."""


@dataclass(frozen=True, slots=True)
class Member:
    name: str
    size: int
    sha256: str


@dataclass(frozen=True, slots=True)
class EmbedderInfo:
    """An embedder whose vectors a pack holds: what must match for them to be used as they are."""

    role: str  # FIRST_STAGE_ROLE or RERANK_ROLE
    name: str  # the model's id
    revision: str  # sha256 of its weights
    dimensions: int
    passage_prefix: str
    query_prefix: str


@dataclass(frozen=True, slots=True)
class PackManifest:
    format: str
    version: int
    created_at: str
    made_by: str  # lecturetui's version
    lectures: int
    segments: int
    units: int  # rows of vectors/units.npy
    unit_settings: dict[str, int]  # how units are cut (core/retrieval/small_unit_index.py)
    embedders: tuple[EmbedderInfo, ...]
    members: tuple[Member, ...]

    def embedder(self, role: str) -> EmbedderInfo | None:
        return next((e for e in self.embedders if e.role == role), None)


@dataclass(frozen=True, slots=True)
class PackChapter:
    start: float
    title: str
    source: str


@dataclass(frozen=True, slots=True)
class PackLecture:
    """One lecture. `origin` and `key` say which lecture it is wherever it travels: the library
    it was first made in (a random id) and its id there."""

    origin: str
    key: str
    id: str  # the id it had in the library it was exported from
    title: str
    course: str | None
    language: str | None
    url: str | None
    source_format: str
    duration: float
    date: str | None
    content_hash: str
    segment_config: str
    notes: tuple[str, ...]
    chapters: tuple[PackChapter, ...]
    segments: int


@dataclass(frozen=True, slots=True)
class PackSegment:
    lecture: int  # the lecture's line in lectures.jsonl, from 0
    start: float
    end: float
    text: str
    corpus_id: int | None = None
    n_tokens: int | None = None
    ends: tuple[int, ...] | None = None  # where the sentence model found sentence ends


@dataclass(frozen=True, slots=True)
class PackPhrases:
    lecture: int
    ordinal: int  # 0: the lecture's own; 1, 2...: its parts
    start: float
    phrases: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PackSummary:
    lecture: int
    model: str  # the answer model that wrote it
    language: str
    ordinal: int  # 0: the gist; 1, 2...: the parts
    start: float
    summary: str  # the part's label (the library's summary_parts.label; the pack's key kept)
    struck: tuple[str, ...]  # the model's refused label (summary_parts.refused)
    made_at: str
