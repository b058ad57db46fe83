"""Reading a pack, a file from someone else: nothing in it is trusted.

Nothing is extracted: members are read into memory by their exact names (a name the format does
not know, a link, a folder, a duplicate, an encrypted or oddly compressed member is refused), and
only after the directory's sizes, counts and compression ratios are checked; the manifest's
sizes must be the directory's, and each member's sha256 the manifest's. JSON is decoded into
the format's types (msgspec), the vectors by vectors.py; checks.py then checks the values.
"""

from __future__ import annotations

import hashlib
import itertools
import stat
import struct
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from lecturetui.core.i18n import _
from lecturetui.core.pack import checks
from lecturetui.core.pack.format import (
    FIRST_STAGE_ROLE,
    FORMAT,
    FORMAT_VERSION,
    LECTURES,
    MANIFEST,
    MAX_ENTRIES,
    MAX_MANIFEST_BYTES,
    MAX_MEMBER_BYTES,
    MAX_PACK_BYTES,
    MAX_RATIO,
    MAX_TOTAL_BYTES,
    MEMBERS,
    PHRASES,
    RERANK,
    RERANK_ROLE,
    SEGMENTS,
    SUMMARIES,
    UNITS,
    WINDOWS,
    PackError,
    PackLecture,
    PackManifest,
    PackPhrases,
    PackSegment,
    PackSummary,
)
from lecturetui.core.pack.vectors import Matrix, from_npy
from lecturetui.core.retrieval import small_unit_index
from lecturetui.core.retrieval.small_units import split_units

T = TypeVar("T")
#: what reading a damaged zip or JSON raises, turned into one sentence
_UNREADABLE = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    OSError,
    EOFError,
    ValueError,
    NotImplementedError,
    RuntimeError,
    struct.error,
    KeyError,
    IndexError,
    OverflowError,
    MemoryError,
)


@dataclass(frozen=True, slots=True)
class PackContents:
    """A pack read and checked: every value within the format's limits."""

    manifest: PackManifest
    lectures: tuple[PackLecture, ...]
    segments: tuple[PackSegment, ...]
    phrases: tuple[PackPhrases, ...]
    summaries: tuple[PackSummary, ...]
    windows: Matrix
    units: Matrix
    rerank: Matrix | None
    starts: tuple[int, ...]  # where each lecture's segments begin

    def span(self, n: int) -> tuple[int, int]:
        """Where lecture `n`'s segments (and their vectors' rows) begin and end."""
        return self.starts[n], self.starts[n] + self.lectures[n].segments


def refuse(why: str) -> PackError:
    return PackError(why, hint=_("ask for the pack again; nothing was imported"))


def read_pack(path: Path) -> PackContents:
    """The pack at `path`, checked whole, or PackError (one sentence)."""
    try:
        if not path.is_file():
            raise refuse(_("{path} is not a file.").format(path=path))
        if path.stat().st_size > MAX_PACK_BYTES:
            raise refuse(_("{path} is larger than a pack may be.").format(path=path))
        with zipfile.ZipFile(path) as zf:
            manifest, members = _members(zf)
        return _contents(manifest, members)
    except PackError:
        raise
    except _UNREADABLE as exc:
        reason = str(exc) or type(exc).__name__
        raise refuse(
            _("{path} is not a readable pack ({reason}).").format(path=path, reason=reason[:200])
        ) from None


def _members(zf: zipfile.ZipFile) -> tuple[PackManifest, dict[str, bytes]]:
    infos = zf.infolist()
    if len(infos) > MAX_ENTRIES:
        raise refuse(_("The pack holds {n} entries, more than a pack has.").format(n=len(infos)))
    by_name: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        _check_entry(info)
        if info.filename in by_name:
            raise refuse(_("The pack holds {name} twice.").format(name=info.filename))
        by_name[info.filename] = info
    if sum(i.file_size for i in infos) > MAX_TOTAL_BYTES:
        raise refuse(_("The pack's members are larger than a pack may hold."))
    if MANIFEST not in by_name:
        raise refuse(_("The pack has no {name}.").format(name=MANIFEST))
    manifest = _manifest(_read(zf, by_name[MANIFEST], MAX_MANIFEST_BYTES))
    listed = {m.name: m for m in manifest.members}
    if set(listed) != set(by_name) - {MANIFEST}:
        raise refuse(_("The pack's members are not the ones its manifest lists."))
    members: dict[str, bytes] = {}
    for name, member in listed.items():
        if by_name[name].file_size != member.size:
            raise refuse(_("The manifest gives {name} another size than it has.").format(name=name))
        data = _read(zf, by_name[name], member.size)
        if hashlib.sha256(data).hexdigest() != member.sha256:
            raise refuse(_("{name} in the pack does not match its checksum.").format(name=name))
        members[name] = data
    return manifest, members


def _check_entry(info: zipfile.ZipInfo) -> None:
    """An entry is one of the format's members, a plain file, readable and not a bomb."""
    name = info.filename
    if name != MANIFEST and name not in MEMBERS:
        raise refuse(_("The pack holds {name}, which no pack holds.").format(name=repr(name[:200])))
    kind = stat.S_IFMT(info.external_attr >> 16)  # 0: no type recorded (Python's zipfile)
    if kind not in (0, stat.S_IFREG) or info.is_dir():
        raise refuse(_("The pack's {name} is not a plain file (a link?).").format(name=name))
    if info.flag_bits & 0x1:
        raise refuse(_("The pack's {name} is encrypted.").format(name=name))
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise refuse(_("The pack's {name} is compressed in an unknown way.").format(name=name))
    if info.file_size > MAX_MEMBER_BYTES:
        raise refuse(_("The pack's {name} is larger than a member may be.").format(name=name))
    if info.file_size > MAX_RATIO * max(info.compress_size, 1) + 4096:
        raise refuse(_("The pack's {name} unpacks to far more than it holds.").format(name=name))


def _read(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    """A member's bytes, never more than `limit` and exactly its recorded size."""
    if info.file_size > limit:
        raise refuse(_("The pack's {name} is too large.").format(name=info.filename))
    with zf.open(info) as member:
        data = member.read(info.file_size + 1)
    if len(data) != info.file_size:
        raise refuse(_("The pack's {name} is cut short.").format(name=info.filename))
    return data


def _manifest(data: bytes) -> PackManifest:
    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise refuse(_("The pack's manifest is not JSON ({exc}).").format(exc=exc)) from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise refuse(_("This file is not a lecturetui course pack."))
    version = raw.get("version")
    if version != FORMAT_VERSION:
        raise PackError(
            _(
                "The pack is in format version {version}; this lecturetui reads version {ours}."
            ).format(version=repr(version)[:20], ours=FORMAT_VERSION),
            hint=_("upgrade lecturetui, or ask for a pack made by this version"),
        )
    manifest = _convert(raw, PackManifest, MANIFEST)
    checks.check_manifest(manifest)
    return manifest


def _convert(raw: Any, kind: type[T], where: str) -> T:
    try:
        return msgspec.convert(raw, kind)
    except msgspec.ValidationError as exc:
        raise refuse(
            _("The pack's {member} does not read as the format says: {exc}.").format(
                member=where, exc=str(exc)[:200]
            )
        ) from None


def _lines(data: bytes, kind: type[T], count: int, where: str) -> tuple[T, ...]:
    """The `count` JSON lines of a member as `kind` (checked before any is decoded)."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if len(lines) != count:
        raise refuse(
            _("The pack's {member} holds {n} lines, not the {count} its manifest says.").format(
                member=where, n=len(lines), count=count
            )
        )
    decoder = msgspec.json.Decoder(kind)
    try:
        return tuple(decoder.decode(line) for line in lines)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise refuse(
            _("The pack's {member} does not read as the format says: {exc}.").format(
                member=where, exc=str(exc)[:200]
            )
        ) from None


def _contents(manifest: PackManifest, members: dict[str, bytes]) -> PackContents:
    for name in (LECTURES, SEGMENTS, WINDOWS, UNITS):
        if name not in members:
            raise refuse(_("The pack has no {name}.").format(name=name))
    lectures = _lines(members[LECTURES], PackLecture, manifest.lectures, LECTURES)
    segments = _lines(members[SEGMENTS], PackSegment, manifest.segments, SEGMENTS)
    count = _counter(members)
    phrases = _lines(members.get(PHRASES, b""), PackPhrases, count(PHRASES), PHRASES)
    summaries = _lines(members.get(SUMMARIES, b""), PackSummary, count(SUMMARIES), SUMMARIES)
    checks.check_lectures(lectures, segments, phrases, summaries)
    first = manifest.embedder(FIRST_STAGE_ROLE)
    assert first is not None  # check_manifest requires it
    windows = from_npy(members[WINDOWS], manifest.segments, first.dimensions, WINDOWS)
    units = from_npy(members[UNITS], manifest.units, first.dimensions, UNITS)
    if manifest.unit_settings == small_unit_index.SETTINGS and manifest.units != sum(
        len(split_units(s.text)) for s in segments
    ):
        raise refuse(_("The pack's unit vectors do not match its segments."))
    second = manifest.embedder(RERANK_ROLE)
    if (second is None) != (RERANK not in members):
        raise refuse(_("The pack's manifest and its re-ranking vectors do not agree."))
    rerank = (
        from_npy(members[RERANK], manifest.segments, second.dimensions, RERANK) if second else None
    )
    starts = tuple(itertools.accumulate((lec.segments for lec in lectures[:-1]), initial=0))
    return PackContents(
        manifest, lectures, segments, phrases, summaries, windows, units, rerank, starts
    )


def _counter(members: dict[str, bytes]) -> Callable[[str], int]:
    """Lines of an optional member (its count is its own: the manifest's checksum vouches)."""

    def count(name: str) -> int:
        data = members.get(name, b"")
        return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)

    return count
