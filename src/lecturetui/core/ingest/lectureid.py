"""What names a lecture: its id (a slug of its key), a title made from its key, its language
when no --lang is given, and the hash of what was said (how a duplicate is recognised)."""

from __future__ import annotations

import hashlib
import json
import re

from lecturetui.core.language import language_code
from lecturetui.core.lectures import ParsedLecture


def content_hash_of(lecture: ParsedLecture) -> str:
    """Hash of what was said and when, independent of file name, encoding and segmenting."""
    items = lecture.cues or lecture.segments
    payload = json.dumps(
        [[round(x.start, 3), round(x.end, 3), x.text] for x in items], ensure_ascii=False
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def slug(key: str) -> str:
    slug = re.sub(r"[^\w.-]+", "-", key.strip(), flags=re.UNICODE).strip("-.").lower()
    return re.sub(r"-{2,}", "-", slug) or "lecture"


def humanize(key: str) -> str:
    words = re.sub(r"[_-]+", " ", key).strip()
    return words[:1].upper() + words[1:] if words else key


def detect_language(lecture: ParsedLecture) -> str | None:
    text = lecture.all_text()[:20000]
    if len(text.split()) < 20:
        return None
    return language_code(text)
