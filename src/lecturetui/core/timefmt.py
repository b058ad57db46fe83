"""Timestamps: parse `hh:mm:ss(.mmm)` / `mm:ss` / seconds, and format as `hh:mm:ss`."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime

_TS = re.compile(r"^(?:(\d{1,9}):)?([0-5]?\d):([0-5]\d)(?:[.,](\d{1,3}))?$")


def parse_timestamp(value: str | float | int) -> float:
    """Seconds from `01:02:03.500`, `01:02:03,5`, `02:03`, or a number. Raises ValueError."""
    if isinstance(value, bool):
        raise ValueError(f"not a timestamp: {value!r}")
    if isinstance(value, int | float):
        try:
            seconds = float(value)
        except OverflowError:  # an int too large for a float
            raise ValueError(f"not a valid time: {value!r}") from None
        if seconds < 0 or not math.isfinite(seconds):  # negative, NaN or infinite
            raise ValueError(f"not a valid time: {value!r}")
        return seconds
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        if seconds < 0 or not math.isfinite(seconds):
            raise ValueError(f"not a valid time: {value!r}")
        return seconds
    m = _TS.match(text)
    if not m:
        raise ValueError(f"not a timestamp: {value!r}")
    hours, minutes, secs, frac = m.groups()
    total: float = int(hours or 0) * 3600 + int(minutes) * 60 + int(secs)
    if frac:
        total += int(frac.ljust(3, "0")) / 1000
    return float(total)


def format_timestamp(seconds: float) -> str:
    """`hh:mm:ss`, rounding down, as the seeds show times."""
    whole = max(0, int(seconds))
    return f"{whole // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def format_duration(seconds: float) -> str:
    """Short human duration: `1h02m`, `12m30s`, `45s`."""
    whole = max(0, round(seconds))
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    if h:
        return f"{h}h{m:02d}m"
    if m:
        return f"{m}m{s:02d}s"
    return f"{s}s"


def utc_now() -> str:
    """Now, in UTC, as the library stores times: ISO 8601 to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def format_span(start: float, end: float) -> str:
    """`00:01:05–00:03:00`: a moment of a lecture as every face shows it."""
    return f"{format_timestamp(start)}–{format_timestamp(end)}"
