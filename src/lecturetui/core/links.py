"""Deep links into a lecture's video at a given second."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_YOUTUBE = ("youtube.com", "www.youtube.com", "m.youtube.com", "youtu.be", "www.youtu.be")


def deep_link(url: str | None, seconds: float) -> str | None:
    """The URL opened at `seconds`: YouTube `t=`, else a media fragment `#t=` (browsers and
    players such as mpv and VLC understand it); a local path becomes a file:// URL."""
    if not url:
        return None
    t = max(0, int(seconds))
    parts = urlsplit(url)
    if not parts.scheme or len(parts.scheme) == 1:  # a local path (or a Windows drive letter)
        return f"{Path(url).expanduser().resolve().as_uri()}#t={t}"
    host = parts.netloc.lower()
    if host in _YOUTUBE:
        query = [
            (k, v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if k not in ("t", "start")
        ]
        query.append(("t", f"{t}s" if host.endswith("youtube.com") else str(t)))
        return urlunsplit(
            (parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment)
        )
    return urlunsplit((parts.scheme, parts.netloc, parts.path, parts.query, f"t={t}"))
