"""What lenient reading repairs or skips in a transcript, and the limits every file is held to.

Parsers report each repair or skipped piece to a `Repairs`; its notes say, one line per kind, what
was done, how often and where: "3 backwards cue times repaired (lines 412, 416, 980)", in the
language the program speaks (core/i18n.py). With `strict`, the first one refuses the file
instead, naming the problem and its line.

The time repairs run on the cues of one lecture, in this order:
- cues out of order are put back in time order;
- a cue that ends before it starts, or where it starts, ends at the next cue's start, or after
  the time its words take to say (2.5 words a second, 1 to 10 s) when that comes first;
- a cue that runs past the end of the next one is cut at the next one's start. A cue that only
  overlaps the start of the next is kept: captions often show two lines at once.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from lecturetui.core.errors import TranscriptError
from lecturetui.core.i18n import _, decimal, ngettext

MAX_LINE_BYTES = 1_000_000  # a caption line, a text line or a JSONL segment
MAX_CUES = 200_000  # per file: one every 0.43 s for 24 h
MAX_LECTURES = 10_000  # per file (a segment corpus)
MAX_JSON_DEPTH = 32  # a Whisper transcript nests 4 deep
MAX_HOURS = 24  # a lecture's length, unless allow_long
LONG_MAX_HOURS = 1_000

#: kind -> its note for a count; the order is the order notes are shown in. Each note is a
#: function of the count (gettext's plural forms), called when the notes are made.
NOTES: dict[str, Callable[[int], str]] = {
    "bad_time": lambda n: ngettext(
        "{n} cue with an unreadable time skipped",
        "{n} cues with unreadable times skipped",
        n,
    ),
    "bad_segment": lambda n: ngettext(
        "{n} segment without usable text or times skipped",
        "{n} segments without usable text or times skipped",
        n,
    ),
    "not_json": lambda n: ngettext(
        "{n} line that is not JSON skipped", "{n} lines that are not JSON skipped", n
    ),
    "dup_id": lambda n: ngettext(
        "{n} segment with a corpus_id used before skipped",
        "{n} segments with a corpus_id used before skipped",
        n,
    ),
    "garbage": lambda n: ngettext(
        "{n} line outside any cue skipped", "{n} lines outside any cue skipped", n
    ),
    "json_break": lambda n: _(
        "the JSON breaks off: the segments before the break kept, the rest skipped"
    ),
    "backwards": lambda n: ngettext(
        "{n} backwards cue time repaired", "{n} backwards cue times repaired", n
    ),
    "zero_length": lambda n: ngettext(
        "{n} zero-length cue given a length", "{n} zero-length cues given a length", n
    ),
    "overlap": lambda n: ngettext(
        "{n} cue running past the next one cut at its start",
        "{n} cues running past the next one cut at their start",
        n,
    ),
    "unsorted": lambda n: ngettext(
        "{n} cue out of order put back in time order",
        "{n} cues out of order put back in time order",
        n,
    ),
    "numbering": lambda n: ngettext(
        "{n} missing or repeated cue number ignored",
        "{n} missing or repeated cue numbers ignored",
        n,
    ),
    "srt_dot": lambda n: ngettext(
        "{n} SRT time with '.' instead of ',' read",
        "{n} SRT times with '.' instead of ',' read",
        n,
    ),
    "vtt_comma": lambda n: ngettext(
        "{n} WebVTT time with ',' instead of '.' read",
        "{n} WebVTT times with ',' instead of '.' read",
        n,
    ),
    "no_hours": lambda n: ngettext(
        "{n} SRT time without hours read", "{n} SRT times without hours read", n
    ),
    "blank_lines": lambda n: ngettext(
        "{n} cue with blank lines in its text kept whole",
        "{n} cues with blank lines in their text kept whole",
        n,
    ),
    "controls": lambda n: ngettext(
        "{n} stray control character removed", "{n} stray control characters removed", n
    ),
    "bom": lambda n: ngettext(
        "{n} stray byte-order mark removed", "{n} stray byte-order marks removed", n
    ),
}
_SHOWN_PLACES = 3
#: the kinds that leave something out (the others change how something is read)
DROPS = ("bad_time", "bad_segment", "not_json", "dup_id", "garbage", "json_break")


@dataclass(frozen=True, slots=True)
class ParsePolicy:
    """How a file is read: `strict` refuses any file that needs a repair; `allow_long` lifts the
    lecture length limit from MAX_HOURS to LONG_MAX_HOURS."""

    strict: bool = False
    allow_long: bool = False

    @property
    def max_hours(self) -> int:
        return LONG_MAX_HOURS if self.allow_long else MAX_HOURS


@dataclass(slots=True)
class _Kind:
    count: int = 0
    unit: str = "line"
    places: list[int] = field(default_factory=list)
    more: bool = False


class Repairs:
    """Collects a file's repairs and skipped pieces (or refuses the file at the first, if strict)."""

    def __init__(self, strict: bool = False) -> None:
        self.strict = strict
        self._kinds: dict[str, _Kind] = {}
        self.first_drop: tuple[str, int | None] | None = None  # the first that left out a piece

    def add(
        self, kind: str, detail: str, at: int | None = None, unit: str = "line", n: int = 1
    ) -> None:
        """Record `n` repairs of `kind` at line (or `unit`) `at`; `detail` is the sentence that
        refuses the file under strict (`has a cue that ends before it starts (...)`)."""
        line = at if unit == "line" else None
        if self.strict:
            raise TranscriptError(detail, line=line)
        if self.first_drop is None and kind in DROPS:
            self.first_drop = (detail, line)
        entry = self._kinds.setdefault(kind, _Kind(unit=unit))
        entry.count += n
        if at is not None and at not in entry.places:
            if len(entry.places) < _SHOWN_PLACES:
                entry.places.append(at)
            else:
                entry.more = True

    def notes(self) -> list[str]:
        """One line per kind: what was done, how often, and the first places it was done."""
        out = []
        for kind, note_for in NOTES.items():
            entry = self._kinds.get(kind)
            if entry is None:
                continue
            note = note_for(entry.count).format(n=decimal(entry.count, 0))
            if entry.places:
                shown = ", ".join(str(p) for p in sorted(entry.places))
                shown += ", …" if entry.more else ""
                note += f" ({places(entry.unit, len(entry.places), shown)})"
            out.append(note)
        return out

    def nothing_usable(self, fallback: str, hint: str | None = None) -> TranscriptError:
        """The refusal of a file of which nothing could be used: the first piece it had to leave
        out, if any, else `fallback`."""
        if self.first_drop is None:
            return TranscriptError(fallback, hint=hint)
        detail, line = self.first_drop
        return TranscriptError(
            # TRANSLATORS: {problem} is what the file "has", e.g. "has a line that is not JSON"
            _("{problem}, and nothing else in it is usable").format(problem=detail),
            line=line,
        )


def place_template(unit: str, count: int) -> str:
    """ "line {places}" or "segments {places}" (`unit` "line" or "segment", for `count` places),
    in the current language, to be formatted."""
    if unit == "segment":
        return ngettext("segment {places}", "segments {places}", count)
    return ngettext("line {places}", "lines {places}", count)


def places(unit: str, count: int, shown: str) -> str:
    """ "line 12", "lines 12, 40, 77, …", "segment 3": where in a file something was done."""
    return place_template(unit, count).format(places=shown)


@dataclass(slots=True)
class RawCue:
    """A cue as read, before repairs; `at` is its line (or segment number), `stamp` its timing
    as written, for messages."""

    start: float
    end: float
    text: str
    at: int | None = None
    stamp: str = ""
    corpus_id: int | None = None  # a corpus segment's id


def reading_time(text: str) -> float:
    """Seconds the words of a cue take to say: 2.5 words a second, at least 1 s, at most 10 s."""
    return min(10.0, max(1.0, len(text.split()) / 2.5))


def put_in_order(cues: list[RawCue], fixes: Repairs, unit: str = "line") -> list[RawCue]:
    """The cues sorted by start (then end); each cue starting before one above it is noted."""
    latest = float("-inf")
    for cue in cues:
        if cue.start < latest:
            fixes.add(
                "unsorted",
                _("has a cue that goes back in time ({stamp})").format(stamp=cue.stamp),
                cue.at,
                unit,
            )
        latest = max(latest, cue.start)
    return sorted(cues, key=lambda c: (c.start, c.end))


def repair_ends(cues: list[RawCue], fixes: Repairs, unit: str = "line") -> None:
    """Give each time-ordered cue that ends before (or where) it starts a plausible end."""
    starts = [c.start for c in cues]
    for cue in cues:
        if cue.end > cue.start:
            continue
        if cue.end < cue.start:
            fixes.add(
                "backwards",
                _("has a cue that ends before it starts ({stamp})").format(stamp=cue.stamp),
                cue.at,
                unit,
            )
        else:
            fixes.add(
                "zero_length",
                _("has a cue that lasts no time ({stamp})").format(stamp=cue.stamp),
                cue.at,
                unit,
            )
        fill = cue.start + reading_time(cue.text)
        j = bisect.bisect_right(starts, cue.start)
        cue.end = min(starts[j], fill) if j < len(starts) else fill


def cut_overruns(cues: list[RawCue], fixes: Repairs, unit: str = "line") -> None:
    """Cut a time-ordered cue that runs past the end of the next one at the next one's start."""
    for a, b in itertools.pairwise(cues):
        if a.end > b.end and b.start > a.start:
            fixes.add(
                "overlap",
                _("has a cue that runs past the end of the next one ({stamp})").format(
                    stamp=a.stamp
                ),
                a.at,
                unit,
            )
            a.end = b.start


def repair_cues(cues: list[RawCue], fixes: Repairs, unit: str = "line") -> list[RawCue]:
    """All time repairs (module docstring), in order; returns the cues in time order."""
    ordered = put_in_order(cues, fixes, unit)
    repair_ends(ordered, fixes, unit)
    cut_overruns(ordered, fixes, unit)
    return ordered


def check_length(cues: list[RawCue], policy: ParsePolicy, unit: str = "line") -> None:
    """Refuse a lecture that would be longer than the policy allows (a typo'd hour, mostly)."""
    if not cues:
        return
    last = max(cues, key=lambda c: c.end)
    if last.end <= policy.max_hours * 3600:
        return
    hint = (
        _("no recording is that long")
        if policy.allow_long
        else _("--allow-long accepts up to {hours} h").format(hours=decimal(LONG_MAX_HOURS, 0))
    )
    if last.at is not None and unit != "line":
        message = _(
            "has a cue ending at {time} ({place}); a lecture is at most {hours} h long"
        ).format(
            time=_hours(last.end),
            place=places(unit, 1, str(last.at)),
            hours=decimal(policy.max_hours, 0),
        )
    else:
        message = _("has a cue ending at {time}; a lecture is at most {hours} h long").format(
            time=_hours(last.end), hours=decimal(policy.max_hours, 0)
        )
    raise TranscriptError(message, hint=hint, line=last.at if unit == "line" else None)


def _hours(seconds: float) -> str:
    if seconds >= 1e12:
        return f"{seconds:.3g} s"
    whole = int(seconds)
    return f"{decimal(whole // 3600, 0)} h {whole % 3600 // 60:02d} min"


def check_line_lengths(data: bytes) -> None:
    """Refuse a file with a line over MAX_LINE_BYTES before it is decoded, unless it is one JSON
    document (Whisper writes its JSON on one line). Jumps a window at a time, so it is fast."""
    head = data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"[") and head[1:].lstrip()[:1] in (b"[", b"{"):
        return
    if head.startswith(b"{"):
        first_end = data.find(b"\n")
        if data.find(b'"segments"', 0, len(data) if first_end < 0 else first_end) >= 0:
            return
    pos = 0
    while len(data) - pos > MAX_LINE_BYTES:
        cut = data.rfind(b"\n", pos, pos + MAX_LINE_BYTES + 1)
        if cut < 0:
            raise TranscriptError(
                _("has a line longer than {limit} bytes; no transcript line is that long").format(
                    limit=decimal(MAX_LINE_BYTES, 0)
                ),
                line=data.count(b"\n", 0, pos) + 1,
            )
        pos = cut + 1
