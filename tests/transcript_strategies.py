"""Hypothesis strategies: valid transcripts of every format, then damaged as real files are.

`repairable()` damages a valid file only in ways lenient reading repairs (and knows what each cue's
times must be afterwards and which notes must say so); `hostile()` damages files of every format
every way it can (broken cue syntax, bytes, JSON types, nesting, sizes), for the fuzz suite.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from hypothesis import strategies as st

from lecturetui.core.ingest.repairs import reading_time

WORDS = ("aula", "gradiente", "tensor", "modelo", "dados", "rede", "camada", "função", "erro",
         "lote", "peso", "taxa", "memória", "núcleo", "GPU", "paralelo")  # fmt: skip
SUFFIX = {"srt": ".srt", "vtt": ".vtt", "whisper": ".json", "jsonl": ".jsonl", "text": ".txt"}
# what a note of each kind says (repairs.NOTES)
NOTE_WORDS = {
    "backwards": "backwards cue",
    "zero_length": "zero-length",
    "overlap": "running past",
    "unsorted": "out of order",
    "numbering": "cue number",
    "srt_dot": "'.' instead of ','",
    "vtt_comma": "',' instead of '.'",
    "no_hours": "without hours",
    "blank_lines": "blank lines",
    "controls": "control character",
    "bom": "byte-order mark",
}
# the repairs each format's damage can call for
REPAIRS = {
    "srt": ("backwards", "zero_length", "overlap", "unsorted", "numbering", "srt_dot",
            "no_hours", "blank_lines", "controls", "bom", "final_newline"),
    "vtt": ("backwards", "zero_length", "overlap", "unsorted", "vtt_comma", "blank_lines",
            "controls", "bom", "final_newline"),
    "whisper": ("backwards", "zero_length", "overlap", "unsorted"),
    "jsonl": ("backwards", "zero_length", "unsorted", "final_newline"),
    "text": ("unsorted", "controls", "bom", "final_newline"),
}  # fmt: skip
TIME_DAMAGE = ("backwards", "zero_length", "overlap")


@dataclass(slots=True)
class Block:
    """One cue as it will be written: times in ms, text lines, SRT number, time style."""

    index: int  # the cue's place in time order
    start: int
    end: int
    lines: list[str]
    number: str | None = None
    mark: str | None = None  # the decimal mark, when not the format's own
    hours: bool = True


@dataclass(slots=True)
class Case:
    """A transcript file and what reading it leniently must give."""

    data: bytes
    suffix: str
    fmt: str
    words: list[tuple[str, ...]]  # each cue's words, in time order
    expected: list[tuple[float, float]]  # each cue's (start, end) in seconds after repairs
    kinds: set[str] = field(default_factory=set)  # the notes reading must write
    damage: list[str] = field(default_factory=list)


def ts(ms: int, mark: str = ",", hours: bool = True) -> str:
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, milli = divmod(rest, 1000)
    return (
        f"{h:02d}:{m:02d}:{s:02d}{mark}{milli:03d}"
        if hours
        else f"{m:02d}:{s:02d}{mark}{milli:03d}"
    )


@st.composite
def lectures(draw: st.DrawFn, whole_seconds: bool = False) -> list[Block]:
    """A valid lecture: 3-30 cues in time order, no overlaps, each with words of its own."""
    n = draw(st.integers(3, 30))
    t = draw(st.sampled_from([0, 0, 5_000, 3_600_000 - 40_000]))  # some cross the hour
    unit = 1000 if whole_seconds else 1
    blocks = []
    for i in range(n):
        gap = draw(st.integers(0, 3000 // unit)) * unit
        length = draw(st.integers(1500 // unit if unit == 1 else 2, 6000 // unit)) * unit
        k = draw(st.integers(1, 6))
        words = [f"{draw(st.sampled_from(WORDS))}{i}x{j}" for j in range(k)]
        blocks.append(Block(i, t + gap, t + gap + length, [" ".join(words)], str(i + 1)))
        t += gap + length
    return blocks


def render(fmt: str, blocks: list[Block]) -> str:
    if fmt == "srt":
        return "".join(
            (f"{b.number}\n" if b.number is not None else "")
            + f"{ts(b.start, b.mark or ',', b.hours)} --> {ts(b.end, b.mark or ',', b.hours)}\n"
            + "\n".join(b.lines)
            + "\n\n"
            for b in blocks
        )
    if fmt == "vtt":
        return "WEBVTT\n\n" + "".join(
            f"{ts(b.start, b.mark or '.', b.hours)} --> {ts(b.end, b.mark or '.', b.hours)}\n"
            + "\n".join(b.lines)
            + "\n\n"
            for b in blocks
        )
    if fmt == "whisper":
        segments = [
            {"id": k, "start": b.start / 1000, "end": b.end / 1000, "text": " " + " ".join(b.lines)}
            for k, b in enumerate(blocks)
        ]
        return json.dumps({"text": "", "language": "pt", "segments": segments}, ensure_ascii=False)
    if fmt == "jsonl":
        return "".join(
            json.dumps(
                {"corpus_id": 1000 + b.index, "lecture": "aula", "start": b.start / 1000,
                 "end": b.end / 1000, "text": " ".join(b.lines)},
                ensure_ascii=False,
            ) + "\n"
            for b in blocks
        )  # fmt: skip
    assert fmt == "text"
    return "".join(f"[{ts(b.start)[:8]}] {' '.join(b.lines)}\n" for b in blocks)


def _spaced_targets(draw: st.DrawFn, n: int, k: int) -> list[int]:
    """k cue indices below n - 1 (each has a next cue), two apart at least."""
    pool = list(range(0, n - 1, 2))
    k = min(k, len(pool))
    return draw(st.lists(st.sampled_from(pool), min_size=k, max_size=k, unique=True))


@st.composite
def repairable(draw: st.DrawFn, fmt: str | None = None) -> Case:
    """A valid file of `fmt` (any, if None) with repairable damage, and what reading must give."""
    fmt = fmt or draw(st.sampled_from(list(REPAIRS)))
    blocks = draw(lectures(whole_seconds=fmt == "text"))
    n = len(blocks)
    damage = draw(st.lists(st.sampled_from(REPAIRS[fmt]), max_size=4, unique=True))
    kinds = {d for d in damage if d not in (*TIME_DAMAGE, "final_newline")}
    expected = [(b.start / 1000, b.end / 1000) for b in blocks]
    words = [tuple(b.lines[0].split()) for b in blocks]
    timed = [d for d in damage if d in TIME_DAMAGE]
    for kind, i in zip(timed, _spaced_targets(draw, n, len(timed)), strict=False):
        b, nxt = blocks[i], blocks[i + 1]
        if kind == "overlap":
            b.end = nxt.end + draw(st.integers(1, 5000))
            expected[i] = (b.start / 1000, nxt.start / 1000)
            kinds.add(kind)
            continue
        if kind == "backwards" and b.start >= 1000:
            b.end = b.start - draw(st.integers(100, 900))
        else:
            kind = "zero_length"
            b.end = b.start
        fill = b.start / 1000 + reading_time(" ".join(words[i]))
        expected[i] = (b.start / 1000, min(nxt.start / 1000, fill))
        kinds.add(kind)
    if "numbering" in damage:
        i = draw(st.integers(0, n - 1))
        blocks[i].number = None if i == 0 or draw(st.booleans()) else blocks[i - 1].number
    if "srt_dot" in damage or "vtt_comma" in damage:
        blocks[draw(st.integers(0, n - 1))].mark = "." if fmt == "srt" else ","
    if fmt == "vtt" and draw(st.booleans()):  # WebVTT may leave hours out: not a repair
        for b in blocks:
            b.hours = b.end >= 3_600_000
    if "no_hours" in damage:
        short = [b for b in blocks if b.end < 3_600_000]
        if short:
            draw(st.sampled_from(short)).hours = False
        else:
            kinds.discard("no_hours")
    if "blank_lines" in damage:
        multi = [b for b in blocks if len(b.lines[0].split()) >= 2]
        if multi:
            b = draw(st.sampled_from(multi))
            first = b.lines[0].split()
            cut = draw(st.integers(1, len(first) - 1))
            b.lines = [" ".join(first[:cut]), "", " ".join(first[cut:])]
        else:
            kinds.discard("blank_lines")
    if "controls" in damage or "bom" in damage:
        for kind, char in (("controls", draw(st.sampled_from("\x00\x01\x07\x08\x0b\x1b\x7f"))),
                           ("bom", "\ufeff")):  # fmt: skip
            if kind in damage:
                b = blocks[draw(st.integers(1, n - 1))]
                b.lines[-1] = char + b.lines[-1]
    if "unsorted" in damage:
        p = draw(st.integers(0, n - 2))
        blocks[p], blocks[p + 1] = blocks[p + 1], blocks[p]
    text = render(fmt, blocks)
    if "final_newline" in damage:
        text = text.rstrip("\n")
    if fmt == "text":  # a cue ends where the next starts; the last after its words are said
        starts = [s for s, _e in expected]
        expected = [
            (s, starts[k + 1] if k + 1 < n else s + max(2.0, len(words[k]) / 2.5))
            for k, s in enumerate(starts)
        ]
    return Case(text.encode("utf-8"), SUFFIX[fmt], fmt, words, expected, kinds, damage)


# -- hostile files --------------------------------------------------------------------------------
_GARBAGE_LINES = st.sampled_from([
    "-->", "00:00:0", "00:00:01,000 -- 00:00:02,000", "99999999:00:01.000 --> 99999999:00:02.000",
    "00:61:00,000 --> 00:62:00,000", "-00:00:01,000 --> 00:00:02,000", "1e309 --> 1e310",
    "NOTE --> x", "WEBVTT", "<c>", "{\\an8}", "[Música]", "\x00\x00\x00", "}{][", "9" * 400,
    "a --> b", "00:00:01.000 --> ", " --> 00:00:02.000", "STYLE", "\ufeff", "0", "",
    "00:00:05,000 --> 00:00:01,000", "00:00:01.000 --> 00:00:01.000",
])  # fmt: skip
_JSON_JUNK = st.sampled_from([
    None, True, [], {}, [[[]]], "", "x", -1, 1e308, 10**30, "nan", "inf", "-00:00:01",
    "99999999:00:00", {"start": 1}, [1, 2], "00:00:01", 3.5, 0,
])  # fmt: skip


def _deep(n: int, opener: str = "[", closer: str = "]") -> str:
    return opener * n + closer * n


@st.composite
def hostile(draw: st.DrawFn) -> tuple[bytes, str, str]:
    """A damaged or hostile file: (bytes, suffix, what was done to it)."""
    how = draw(st.sampled_from([
        "structure", "structure", "structure", "structure", "truncate", "bytes", "nul",
        "garbage_lines", "delete_lines", "duplicate_lines", "json_types", "nesting", "random",
        "empty", "encoding", "long_line", "mixed", "repairable",
    ]))  # fmt: skip
    fmt = draw(st.sampled_from(list(SUFFIX)))
    suffix = draw(st.sampled_from([SUFFIX[fmt], SUFFIX[fmt], ".txt", ".json", ".srt"]))
    if how == "repairable":
        case = draw(repairable(fmt))
        return case.data, case.suffix, f"{fmt} repairable {case.damage}"
    if how == "random":
        return draw(st.binary(max_size=2000)), suffix, "random bytes"
    if how == "empty":
        return draw(st.sampled_from([b"", b"\n\n", b"   ", b"WEBVTT\n", b"\xef\xbb\xbf", b"{}", b"[]",
                                     b"1\n", b'{"segments": []}'])), suffix, "empty"  # fmt: skip
    if how == "nesting":
        depth = draw(st.sampled_from([33, 100, 5000, 100_000]))
        body = draw(st.sampled_from([
            _deep(depth), _deep(depth, "{\"a\":", "}").replace("}", "", 1) + "1}",
            '{"segments": ' + _deep(depth) + "}", "[" * depth,
            '{"text": "a", "start": 0, "end": 1, "x": ' + _deep(depth) + "}",
        ]))  # fmt: skip
        return body.encode(), suffix, f"nesting {depth}"
    blocks = draw(lectures(whole_seconds=fmt == "text"))
    text = render(fmt, blocks)
    lines = text.split("\n")
    if how == "structure":  # real cue syntax with broken parts
        for _ in range(draw(st.integers(1, 4))):
            i = draw(st.integers(0, len(lines) - 1))
            lines[i] = draw(st.sampled_from([
                lines[i].replace("-->", "->"), lines[i].replace(":", ";", 1), lines[i][: len(lines[i]) // 2],
                lines[i].replace("0", "9"), lines[i] + " --> 00:00:01,000", lines[i].replace(",", "."),
                "99999999:00:01.000 --> 99999999:00:02.000", lines[i].replace('"start"', '"begin"'),
                lines[i].replace('"text"', '"txt"'), lines[i].replace("}", ""), lines[i].upper(),
            ]))  # fmt: skip
        return "\n".join(lines).encode(), suffix, f"{fmt} structure"
    if how == "garbage_lines":
        for _ in range(draw(st.integers(1, 6))):
            lines.insert(draw(st.integers(0, len(lines))), draw(_GARBAGE_LINES))
        return "\n".join(lines).encode(), suffix, f"{fmt} garbage lines"
    if how == "delete_lines":
        for _ in range(draw(st.integers(1, min(6, len(lines))))):
            del lines[draw(st.integers(0, len(lines) - 1))]
        return "\n".join(lines).encode(), suffix, f"{fmt} deleted lines"
    if how == "duplicate_lines":
        for _ in range(draw(st.integers(1, 6))):
            i = draw(st.integers(0, len(lines) - 1))
            lines.insert(draw(st.integers(0, len(lines))), lines[i])
        return "\n".join(lines).encode(), suffix, f"{fmt} duplicated lines"
    data = text.encode("utf-8")
    if how == "truncate":
        return data[: draw(st.integers(0, len(data)))], suffix, f"{fmt} truncated"
    if how == "bytes":
        for _ in range(draw(st.integers(1, 5))):
            at = draw(st.integers(0, len(data)))
            data = data[:at] + draw(st.binary(min_size=1, max_size=40)) + data[at:]
        return data, suffix, f"{fmt} random bytes inside"
    if how == "nul":
        for _ in range(draw(st.integers(1, 30))):
            at = draw(st.integers(0, len(data)))
            data = data[:at] + b"\x00" + data[at:]
        return data, suffix, f"{fmt} NUL bytes"
    if how == "json_types":
        items = [json.loads(line) for line in text.split("\n") if line.startswith("{")]
        if not items:
            return data, suffix, f"{fmt} as is"
        target = items[draw(st.integers(0, len(items) - 1))]
        segs = target.get("segments") if isinstance(target.get("segments"), list) else [target]
        item = segs[draw(st.integers(0, len(segs) - 1))] if segs else target
        item[draw(st.sampled_from(["start", "end", "text", "corpus_id", "lecture"]))] = draw(
            _JSON_JUNK
        )
        if draw(st.booleans()) and "segments" in target:
            target["segments"] = draw(_JSON_JUNK)
        body = "\n".join(json.dumps(x, ensure_ascii=False) for x in items)
        return body.encode(), suffix, f"{fmt} wrong JSON types"
    if how == "encoding":
        codec = draw(st.sampled_from(["utf-16", "utf-16-le", "latin-1", "cp1252", "utf-32"]))
        return text.encode(codec, errors="replace"), suffix, f"{fmt} as {codec}"
    if how == "long_line":
        i = draw(st.integers(0, len(lines) - 1))
        lines[i] += draw(st.sampled_from(["x", "é ", "-->", "0:"])) * draw(st.integers(1000, 20000))
        return "\n".join(lines).encode(), suffix, f"{fmt} long line"
    assert how == "mixed"  # two formats in one file
    other = draw(st.sampled_from(list(SUFFIX)))
    return (text + "\n" + render(other, draw(lectures()))).encode(), suffix, f"{fmt}+{other}"


# -- questions for lexical search ------------------------------------------------------------------
_FTS_SYNTAX = st.sampled_from(['"', "*", "NEAR(", "NEAR(a b, 3)", "AND", "OR", "NOT", "(", ")", "^",
                               ":", "-", "+", "{a b}", "col:", "'", "\\", "%", "_", "\"a\"*"])  # fmt: skip
_SCRIPTS = st.sampled_from(["GPU", "tensores", "paralelização", "Überlegung", "数据并行", "شبكة",
                            "нейронная", "ニューラル", "🙂", "\u200b", "e\u0301", "ﬁ", "ß"])  # fmt: skip

questions = st.one_of(
    st.text(max_size=200),
    st.lists(st.one_of(_FTS_SYNTAX, _SCRIPTS, st.text(max_size=10)), max_size=30).map(" ".join),
    st.text(
        alphabet=st.characters(codec="utf-8", categories=["Cc", "Cf", "Zs", "Zl", "Zp"]),
        max_size=50,
    ),
    st.builds(lambda s, k: s * k, st.text(min_size=1, max_size=20), st.integers(100, 5000)),
    st.just(""),
)
