"""Turning transcript bytes into clean text: decoding, mojibake repair, markup removal."""

from __future__ import annotations

import html
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from types import ModuleType

from lecturetui.core.errors import TranscriptError
from lecturetui.core.i18n import _
from lecturetui.core.lectures import Cue

# Encodings whose round trip (text -> bytes -> UTF-8) undoes the usual mojibake: UTF-8 bytes that
# were once decoded as Mac Roman (a notebook saved on a Mac) or Windows-1252 (most of the rest).
_MOJIBAKE_CODECS = ("macroman", "sloppy-windows-1252", "latin-1")

_TAG = re.compile(r"<[^<>\n]{0,200}>")  # <i>, <c.color>, <v Name>, <00:00:01.000>
_SSA = re.compile(r"\{\\[^{}\n]{0,100}\}")  # {\an8} and friends in SRT files
_SPACES = re.compile(r"[ \t\u00a0]+")
_SOUND_ONLY = re.compile(r"^\s*[\[(][^\[\]()]{1,40}[\])]\s*$")  # a line that is only "[Música]"


# stray characters ftfy removes (control characters but tab and line ends; a byte-order mark)
_STRAY_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_BOM = re.compile("\ufeff")
_BINARY_SHARE = 0.05


@dataclass(slots=True)
class Decoded:
    text: str
    warnings: list[str] = field(default_factory=list)
    #: stray characters removed: kind ("controls", "bom") -> (how many, line of the first)
    removed: dict[str, tuple[int, int]] = field(default_factory=dict)


def decode_transcript(data: bytes) -> Decoded:
    """Decode transcript bytes: UTF-8 (with or without BOM), UTF-16 or UTF-32 with BOM, else
    Windows-1252.

    Mojibake (UTF-8 text that was once decoded with the wrong code page) is repaired; stray control
    characters and byte-order marks inside the text are removed and counted in `removed`.
    Raises TranscriptError for binary data.
    """
    warnings: list[str] = []
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        try:
            text = data.decode("utf-32")
        except UnicodeDecodeError as exc:
            raise TranscriptError(_("is not a text transcript (broken UTF-32)")) from exc
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise TranscriptError(_("is not a text transcript (broken UTF-16)")) from exc
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("sloppy-windows-1252" if _ftfy_codecs() else "latin-1")
            warnings.append(_("not valid UTF-8; read as Windows-1252"))
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    removed = _stray(text)
    if _looks_binary(text) or removed.get("controls", (0, 0))[0] > _BINARY_SHARE * len(text):
        raise TranscriptError(
            _("is not a text transcript (binary data)"),
            hint=_("give a .vtt, .srt, Whisper .json, .jsonl or timestamped .txt file"),
        )
    fixed = repair_mojibake(text)  # also drops the stray characters
    if removed:
        fixed = _without_stray(fixed)
    if fixed != text and _without_stray(text) != fixed:
        warnings.append(_("repaired broken character encoding (mojibake)"))
    return Decoded(unicodedata.normalize("NFC", fixed), warnings, removed)


def _stray(text: str) -> dict[str, tuple[int, int]]:
    out = {}
    for kind, pattern in (("controls", _STRAY_CONTROL), ("bom", _BOM)):
        first = pattern.search(text)
        if first is not None:
            count = len(text) - len(pattern.sub("", text))
            out[kind] = (count, text.count("\n", 0, first.start()) + 1)
    return out


def _without_stray(text: str) -> str:
    return _STRAY_CONTROL.sub("", text).replace("\ufeff", "")


def _ftfy() -> ModuleType:
    """ftfy, its codecs registered ("sloppy-windows-1252")."""
    import ftfy.bad_codecs  # lazy: only a transcript that is not UTF-8 needs it

    return ftfy


def _ftfy_codecs() -> bool:
    _ftfy()
    return True


def _looks_binary(text: str) -> bool:
    sample = text[:4096]
    if not sample:
        return False
    controls = sum(1 for ch in sample if unicodedata.category(ch) == "Cc" and ch not in "\n\r\t\f")
    return controls / len(sample) > _BINARY_SHARE


def repair_mojibake(text: str) -> str:
    """Undo mojibake.

    ftfy decides line by line which legacy code page garbled the text, but is conservative on
    short lines and leaves words like `m√°ximo` behind. So the code page ftfy found most often is
    then tried on the whole document: when every character round-trips through it back to valid
    UTF-8, that reading is taken. What is left is fixed by ftfy line by line.
    """
    ftfy = _ftfy()
    votes: Counter[str] = Counter()
    for line in text.split("\n"):
        if line.isascii():
            continue
        _fixed, steps = ftfy.fix_and_explain(line)
        for op, arg in steps or []:
            if op == "encode" and arg in _MOJIBAKE_CODECS:
                votes[arg] += 1
    best = text
    if votes:
        codec = votes.most_common(1)[0][0]
        try:
            best = text.encode(codec).decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            best = text
    fixed: str = ftfy.fix_text(
        best,
        unescape_html=False,
        uncurl_quotes=False,
        fix_latin_ligatures=False,
        fix_character_width=False,
        fix_line_breaks=False,
        normalization="NFC",
    )
    return fixed


def clean_cue_text(text: str) -> str:
    """Strip subtitle markup and sound tags, unescape entities, collapse whitespace per line."""
    text = _SSA.sub("", _TAG.sub("", text))
    text = html.unescape(text)
    lines = []
    for raw in text.split("\n"):
        line = _SPACES.sub(" ", raw).strip()
        if line and not _SOUND_ONLY.match(line):
            lines.append(line)
    return "\n".join(lines)


def collapse_rolling(cues: Iterable[Cue]) -> list[Cue]:
    """Clean cues and collapse the repetition that rolling auto-captions produce.

    YouTube-style captions show each line twice: cue n ends with the lines cue n+1 starts with.
    Lines a cue repeats from the end of the previous one are dropped; a cue left with no new text
    extends the previous cue's end instead of being kept.
    """
    out: list[Cue] = []
    prev_lines: list[str] = []
    for cue in cues:
        lines = clean_cue_text(cue.text).split("\n") if cue.text else []
        lines = [ln for ln in lines if ln]
        k = _repeated_prefix(prev_lines, lines)
        new_lines = lines[k:]
        if not new_lines:
            if out and lines:
                last = out[-1]
                out[-1] = Cue(last.start, max(last.end, cue.end), last.text)
            continue
        out.append(Cue(cue.start, cue.end, " ".join(new_lines)))
        prev_lines = lines
    return out


def _repeated_prefix(prev: list[str], cur: list[str]) -> int:
    """Largest k such that the first k lines of `cur` are the last k lines of `prev`."""
    for k in range(min(len(prev), len(cur)), 0, -1):
        if prev[-k:] == cur[:k]:
            return k
    return 0
