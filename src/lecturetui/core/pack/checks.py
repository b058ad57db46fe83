"""What a pack's values must be before any is used: counts within the limits, times inside
their lecture, text within its limits and without control characters, links to the web only,
segments in time order lecture by lecture."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

from lecturetui.core.i18n import _
from lecturetui.core.pack.format import (
    FIRST_STAGE_ROLE,
    MAX_DIM,
    MAX_HOURS,
    MAX_LECTURES,
    MAX_LIST,
    MAX_NAME,
    MAX_SEGMENTS,
    MAX_TEXT,
    MAX_URL,
    MEMBERS,
    PACK_ROLES,
    PackError,
    PackLecture,
    PackManifest,
    PackPhrases,
    PackSegment,
    PackSummary,
)

_SHA256 = re.compile(r"[0-9a-f]{64}")
_ORIGIN = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: control characters a text may not hold (tab and newline may)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_LIMIT_INT = 1 << 62


def refuse(why: str) -> PackError:
    return PackError(why, hint=_("ask for the pack again; nothing was imported"))


def check_manifest(manifest: PackManifest) -> None:
    """Counts, members and embedders: within the limits, each named once."""
    if not 0 < manifest.lectures <= MAX_LECTURES or not 0 < manifest.segments <= MAX_SEGMENTS:
        raise refuse(_("The pack's manifest gives counts no pack has."))
    if not 0 <= manifest.units <= 64 * manifest.segments:
        raise refuse(_("The pack's manifest gives counts no pack has."))
    names = [m.name for m in manifest.members]
    if len(set(names)) != len(names) or not set(names) <= set(MEMBERS):
        raise refuse(_("The pack's manifest lists members no pack holds."))
    for member in manifest.members:
        if member.size < 0 or not _SHA256.fullmatch(member.sha256):
            raise refuse(
                _("The pack's manifest gives {name} a size or checksum that cannot be.").format(
                    name=member.name
                )
            )
    _embedders(manifest)
    for key, value in manifest.unit_settings.items():
        _text(key, MAX_NAME, _("the unit settings"))
        if not 0 <= value < _LIMIT_INT:
            raise refuse(_("The pack's manifest gives counts no pack has."))


def _embedders(manifest: PackManifest) -> None:
    """The first stage's embedder named once, the others (core/models/embedders.py) at most once,
    each with dimensions and names that can be."""
    roles = [e.role for e in manifest.embedders]
    if (
        FIRST_STAGE_ROLE not in roles
        or len(set(roles)) != len(roles)
        or not set(roles) <= PACK_ROLES
    ):
        raise refuse(_("The pack's manifest does not name its embedders."))
    for emb in manifest.embedders:
        if not 0 < emb.dimensions <= MAX_DIM:
            raise refuse(
                _("The pack's manifest gives {model} {dim} dimensions.").format(
                    model=emb.name[:100], dim=emb.dimensions
                )
            )
        _text(emb.name, MAX_NAME, _("an embedder's name"))
        _text(emb.revision, MAX_NAME, _("an embedder's name"))
        _text(emb.passage_prefix + emb.query_prefix, MAX_NAME, _("an embedder's name"))


def check_lectures(
    lectures: Sequence[PackLecture],
    segments: Sequence[PackSegment],
    phrases: Sequence[PackPhrases],
    summaries: Sequence[PackSummary],
) -> None:
    """Every lecture and what belongs to it."""
    seen: set[tuple[str, str]] = set()
    for lecture in lectures:
        _lecture(lecture)
        if (lecture.origin, lecture.key) in seen:
            raise refuse(_("The pack holds the lecture {key} twice.").format(key=lecture.key))
        seen.add((lecture.origin, lecture.key))
    if sum(lec.segments for lec in lectures) != len(segments):
        raise refuse(_("The pack's lectures and segments do not agree."))
    _segments(lectures, segments)
    if len(phrases) > MAX_LIST * len(lectures) or len(summaries) > MAX_LIST * len(lectures):
        raise refuse(_("The pack holds more key phrases or summaries than its lectures have."))
    for item in phrases:
        lecture = _owner(lectures, item.lecture)
        _time(item.start, lecture)
        _count(item.ordinal, MAX_LIST)
        _texts(item.phrases, MAX_NAME, _("a key phrase"))
    for summary in summaries:
        lecture = _owner(lectures, summary.lecture)
        _time(summary.start, lecture)
        _count(summary.ordinal, MAX_LIST)
        _texts((summary.model, summary.language, summary.made_at), MAX_NAME, _("a summary"))
        _text(summary.summary, MAX_TEXT, _("a summary"))
        _texts(summary.struck, MAX_TEXT, _("a summary"))


def _lecture(lecture: PackLecture) -> None:
    if not _ORIGIN.fullmatch(lecture.origin):
        raise refuse(_("The pack names a lecture's origin in a way no pack does."))
    what = _("a lecture's title or id")
    _text(lecture.key, MAX_NAME, what, empty=False)
    _text(lecture.id, MAX_NAME, what, empty=False)
    _text(lecture.title, MAX_NAME, what, empty=False)
    _texts(
        (
            lecture.course or "",
            lecture.language or "",
            lecture.date or "",
            lecture.source_format,
            lecture.content_hash,
        ),
        MAX_NAME,
        what,
    )
    _text(lecture.segment_config, MAX_TEXT, what)
    _texts(lecture.notes, MAX_TEXT, what)
    if len(lecture.notes) > MAX_LIST or len(lecture.chapters) > MAX_LIST:
        raise refuse(
            _("The pack's lecture {title} has too many notes or chapters.").format(
                title=lecture.title
            )
        )
    if not (math.isfinite(lecture.duration) and 0 <= lecture.duration <= MAX_HOURS * 3600):
        raise refuse(
            _("The pack's lecture {title} has a length no lecture has.").format(title=lecture.title)
        )
    if not 0 < lecture.segments <= MAX_SEGMENTS:
        raise refuse(_("The pack's lecture {title} has no segments.").format(title=lecture.title))
    for chapter in lecture.chapters:
        _time(chapter.start, lecture)
        _texts((chapter.title, chapter.source), MAX_NAME, _("a chapter's title"))
    if lecture.url is not None:
        check_link(lecture.url)


def check_link(url: str) -> None:
    """A link from a pack opens a web page, never a file or a program on this machine."""
    parts = urlsplit(url) if len(url) <= MAX_URL and not _CONTROL.search(url) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        raise refuse(
            _("The pack links a lecture to {url}, which is not a web address.").format(
                url=repr(url[:100])
            )
        )


def _segments(lectures: Sequence[PackLecture], segments: Sequence[PackSegment]) -> None:
    """Lecture by lecture in the lectures' order, each inside its lecture, in time order."""
    index = 0
    for n, lecture in enumerate(lectures):
        previous = -1.0
        for seg in segments[index : index + lecture.segments]:
            if seg.lecture != n:
                raise refuse(_("The pack's segments are not in their lectures' order."))
            if not (math.isfinite(seg.start) and math.isfinite(seg.end)):
                raise refuse(
                    _("A segment of {title} has a time that is not a number.").format(
                        title=lecture.title
                    )
                )
            if not 0 <= seg.start <= seg.end <= lecture.duration + 1e-6 or seg.start < previous:
                raise refuse(
                    _("A segment of {title} lies outside the lecture or out of order.").format(
                        title=lecture.title
                    )
                )
            previous = seg.start
            _text(seg.text, MAX_TEXT, _("a segment's text"), empty=False)
            for value in (seg.corpus_id, seg.n_tokens):
                if value is not None:
                    _count(value, _LIMIT_INT)
        index += lecture.segments


def _owner(lectures: Sequence[PackLecture], n: int) -> PackLecture:
    if not 0 <= n < len(lectures):
        raise refuse(_("The pack names a lecture it does not hold."))
    return lectures[n]


def _time(t: float, lecture: PackLecture) -> None:
    if not (math.isfinite(t) and 0 <= t <= lecture.duration + 1e-6):
        raise refuse(_("A time in {title} lies outside the lecture.").format(title=lecture.title))


def _count(value: int, limit: int) -> None:
    if not 0 <= value < limit:
        raise refuse(_("The pack holds a number no pack holds."))


def _texts(values: Iterable[str], limit: int, what: str) -> None:
    for value in values:
        _text(value, limit, what)


def _text(value: str, limit: int, what: str, empty: bool = True) -> None:
    if len(value) > limit:
        # TRANSLATORS: {what} is "a segment's text", "a lecture's title or id", "a summary"...
        raise refuse(
            _("The pack holds {what} longer than {limit} characters.").format(
                what=what, limit=limit
            )
        )
    if not empty and not value.strip():
        raise refuse(_("The pack holds {what} that is empty.").format(what=what))
    if _CONTROL.search(value):
        raise refuse(_("The pack holds {what} with control characters.").format(what=what))
