"""Hostile course packs, made from a valid one: each kind damages it one way a stranger's file
can be damaged (by accident or on purpose); `draw` picks the details (Hypothesis)."""

from __future__ import annotations

import io
import struct
import warnings
import zipfile
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from hypothesis import reject
from hypothesis import strategies as st

from tests.core.pack.packs import MANIFEST, jsonl, manifest_of, members_of, rebuild, to_jsonl

Draw = Callable[[st.SearchStrategy[Any]], Any]
Members = dict[str, bytes]


def _zip(entries: Sequence[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    out = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Duplicate name": that is the point
        with zipfile.ZipFile(out, "w") as zf:
            for info, data in entries:
                zf.writestr(info, data, zipfile.ZIP_DEFLATED)
    return out.getvalue()


def _data_spans(pack: bytes) -> list[tuple[int, int]]:
    """Where each member's compressed bytes lie in the zip."""
    spans = []
    with zipfile.ZipFile(io.BytesIO(pack)) as zf:
        for info in zf.infolist():
            name_len, extra_len = struct.unpack("<HH", pack[info.header_offset + 26 :][:4])
            start = info.header_offset + 30 + name_len + extra_len
            if info.compress_size:
                spans.append((start, start + info.compress_size))
    return spans


def truncated(m: Members, draw: Draw) -> bytes:
    pack = rebuild(m)
    return pack[: draw(st.integers(0, len(pack) - 1))]


def bit_flipped(m: Members, draw: Draw) -> bytes:
    pack = bytearray(rebuild(m))
    start, end = draw(st.sampled_from(_data_spans(bytes(pack))))
    for pos in draw(st.lists(st.integers(start, end - 1), min_size=1, max_size=8)):
        pack[pos] ^= 1 << draw(st.integers(0, 7))
    try:  # a flip deflate ignores (a block's last bit) is no damage: not a case
        harmless = members_of(bytes(pack)) == members_of(rebuild(m))
    except Exception:
        harmless = False
    if harmless:
        reject()
    return bytes(pack)


def path_outside(m: Members, draw: Draw) -> bytes:
    name = draw(st.sampled_from(["../evil.txt", "../../../tmp/lt-pack-evil", "/tmp/lt-pack-evil",
                                 "vectors/../../evil.npy", "..\\evil.txt", "C:/evil.txt",
                                 "index/library.sqlite3", "lectures.jsonl/../../x"]))  # fmt: skip
    first = draw(st.booleans())  # before the manifest, or after every member
    entries = [(n, d) for n, d in m.items()]
    return _zip([(name, b"evil"), *entries] if first else [*entries, (name, b"evil")])


def link_member(m: Members, draw: Draw) -> bytes:
    victim = draw(st.sampled_from([n for n in m if n != MANIFEST]))
    info = zipfile.ZipInfo(victim)
    info.external_attr = 0o120777 << 16  # a symbolic link
    target = draw(st.sampled_from([b"/etc/passwd", b"../../outside", b"/tmp/lt-pack-evil"]))
    return _zip([(MANIFEST, m[MANIFEST]), *[(n, target if n == victim else d) for n, d in m.items()
                                            if n != MANIFEST and n != victim], (info, target)])  # fmt: skip


def duplicate(m: Members, draw: Draw) -> bytes:
    twice = draw(st.sampled_from(list(m)))
    copies = draw(st.integers(1, 3))
    return _zip([(n, d) for n, d in m.items()] + [(twice, m[twice])] * copies)


def wrong_hash(m: Members, draw: Draw) -> bytes:
    manifest = manifest_of(m)
    member = draw(st.integers(0, len(manifest["members"]) - 1))
    pack_members = dict(m)
    name = manifest["members"][member]["name"]
    data = bytearray(pack_members[name] or b"\n")
    data[draw(st.integers(0, len(data) - 1))] ^= 0x20
    pack_members[name] = bytes(data)
    return rebuild(pack_members, manifest, fix=False)


def size_lie(m: Members, draw: Draw) -> bytes:
    manifest = manifest_of(m)
    entry = draw(st.sampled_from(manifest["members"]))
    entry["size"] = draw(st.sampled_from([entry["size"] + 1, max(entry["size"] - 1, 0) or 7,
                                          10_000_000_000, -1, 0]))  # fmt: skip
    if entry["size"] == len(m[entry["name"]]):
        entry["size"] += 3
    return rebuild(m, manifest, fix=False)


def unknown_version(m: Members, draw: Draw) -> bytes:
    manifest = manifest_of(m)
    manifest["version"] = draw(
        st.one_of(
            st.sampled_from([0, 2, "1", None, 1.5, [1]]),
            st.integers(2, 10**20),
            st.integers(max_value=0),
        )
    )
    return rebuild(m, manifest)


def bomb(m: Members, draw: Draw) -> bytes:
    victim = draw(st.sampled_from([n for n in m if n != MANIFEST]))
    return rebuild({**m, victim: b" " * draw(st.sampled_from([4_000_000, 9_000_000]))})


def huge_member(m: Members, draw: Draw) -> bytes:
    """A member whose directory entry says it is ~4 GB (the data is small: a lie to check)."""
    pack = bytearray(rebuild(m))
    victim = draw(st.sampled_from([n for n in m if n != MANIFEST])).encode()
    with zipfile.ZipFile(io.BytesIO(bytes(pack))) as zf:
        at: int = zf.start_dir  # the central directory's first entry
    while True:
        name_len = struct.unpack("<H", pack[at + 28 : at + 30])[0]
        if bytes(pack[at + 46 : at + 46 + name_len]) == victim:
            break
        extra, comment = struct.unpack("<HH", pack[at + 30 : at + 34])
        at += 46 + name_len + extra + comment
    size = draw(st.sampled_from([0xFFFFFFF0, 0x90000000, 0xC0000000]))
    pack[at + 24 : at + 28] = struct.pack("<I", size)
    return bytes(pack)


def billion(m: Members, draw: Draw) -> bytes:
    manifest = manifest_of(m)
    key = draw(st.sampled_from(["segments", "lectures", "units"]))
    manifest[key] = draw(st.sampled_from([10**9, 2**62, -5, 0]))
    return rebuild(m, manifest)


def _npy(matrix: Any) -> bytes:
    out = io.BytesIO()
    np.save(out, matrix, allow_pickle=True)
    return out.getvalue()


def _matrix(m: Members, name: str) -> Any:
    return np.load(io.BytesIO(m[name]), allow_pickle=False)


def wrong_dimension(m: Members, draw: Draw) -> bytes:
    name = draw(st.sampled_from([n for n in m if n.endswith(".npy")]))
    matrix = _matrix(m, name)
    change = draw(st.sampled_from(["wider", "narrower", "transposed", "fewer rows", "3-d"]))
    if change == "wider":
        matrix = np.hstack([matrix, np.zeros((len(matrix), 1), np.float32)])
    elif change == "narrower":
        matrix = matrix[:, :-1]
    elif change == "transposed":
        matrix = np.asfortranarray(matrix) if draw(st.booleans()) else matrix.T.copy()
    elif change == "fewer rows":
        matrix = matrix[:-1]
    else:
        matrix = matrix[None]
    return rebuild({**m, name: _npy(matrix)})


def not_finite(m: Members, draw: Draw) -> bytes:
    name = draw(st.sampled_from([n for n in m if n.endswith(".npy")]))
    matrix = _matrix(m, name).copy()
    row, col = draw(st.integers(0, len(matrix) - 1)), draw(st.integers(0, matrix.shape[1] - 1))
    matrix[row, col] = draw(st.sampled_from([np.nan, np.inf, -np.inf, 1e30]))
    return rebuild({**m, name: _npy(matrix)})


def other_dtype(m: Members, draw: Draw) -> bytes:
    name = draw(st.sampled_from([n for n in m if n.endswith(".npy")]))
    matrix = _matrix(m, name)
    kind = draw(st.sampled_from(["object", "float64", ">f4", "int32"]))
    if kind == "object":  # a pickle: never loaded
        other = np.empty(matrix.shape[0], dtype=object)
        other[:] = [{"__reduce__": "os.system"}] * matrix.shape[0]
        return rebuild({**m, name: _npy(other)})
    return rebuild({**m, name: _npy(matrix.astype(kind))})


def _segments(m: Members, change: Callable[[list[dict[str, Any]]], None]) -> bytes:
    rows = jsonl(m["segments.jsonl"])
    change(rows)
    return rebuild({**m, "segments.jsonl": to_jsonl(rows)})


def bad_times(m: Members, draw: Draw) -> bytes:
    lectures = jsonl(m["lectures.jsonl"])
    n = draw(st.integers(0, len(jsonl(m["segments.jsonl"])) - 1))
    how = draw(st.sampled_from(["negative", "past the end", "backwards", "huge", "text"]))

    def change(rows: list[dict[str, Any]]) -> None:
        row = rows[n]
        duration = lectures[row["lecture"]]["duration"]
        if how == "negative":
            row["start"] = -draw(st.floats(0.001, 1e6))
        elif how == "past the end":
            row["end"] = duration + draw(st.floats(1.0, 1e6))
        elif how == "backwards":
            row["start"], row["end"] = row["end"] + 5, row["start"]
        elif how == "huge":
            row["end"] = 1e308
        else:
            row["start"] = "00:01:00"

    return _segments(m, change)


def long_text(m: Members, draw: Draw) -> bytes:
    where = draw(st.sampled_from(["segment", "title", "course", "phrase", "control", "empty"]))
    if where in ("segment", "control", "empty"):
        n = draw(st.integers(0, len(jsonl(m["segments.jsonl"])) - 1))
        text = {"segment": "palavra " * 12_501, "control": "fim\x1b]52;c;ZXZpbA==\x07",
                "empty": "   "}[where]  # fmt: skip

        def change(rows: list[dict[str, Any]]) -> None:
            rows[n]["text"] = text

        return _segments(m, change)
    if where == "phrase":
        rows = jsonl(m["phrases.jsonl"])
        rows[0]["phrases"] = ["x" * 1001]
        return rebuild({**m, "phrases.jsonl": to_jsonl(rows)})
    lectures = jsonl(m["lectures.jsonl"])
    lectures[0][where] = "T" * draw(st.integers(1001, 50_000))
    return rebuild({**m, "lectures.jsonl": to_jsonl(lectures)})


def local_link(m: Members, draw: Draw) -> bytes:
    lectures = jsonl(m["lectures.jsonl"])
    lectures[draw(st.integers(0, len(lectures) - 1))]["url"] = draw(st.sampled_from([
        "file:///etc/passwd", "/home/ta/aula.mp4", "../../aula.mp4", "javascript:alert(1)",
        "http:///x", "C:\\aulas\\aula.mp4", "ftp://example.org/a.mp4", "https://x.org/\x1b[2J",
    ]))  # fmt: skip
    return rebuild({**m, "lectures.jsonl": to_jsonl(lectures)})


def unknown_member(m: Members, draw: Draw) -> bytes:
    name = draw(st.sampled_from(["evil.py", "library.sqlite3", "vectors/extra.npy", "__init__.py",
                                 "vectors/", "lectures.JSONL"]))  # fmt: skip
    data = b"SQLite format 3\x00" if name.endswith("sqlite3") else b"import os\n"
    manifest = manifest_of(m)
    members = {**m, name: data}
    if draw(st.booleans()):  # listed in the manifest too
        manifest["members"] = manifest["members"] + [{"name": name, "size": len(data),
                                                      "sha256": "0" * 64}]  # fmt: skip
        return rebuild(members, manifest, fix=False)
    return rebuild(members, manifest, fix=True)


def wrong_count(m: Members, draw: Draw) -> bytes:
    which = draw(st.sampled_from(["lectures.jsonl", "segments.jsonl", "lecture's segments"]))
    if which == "lecture's segments":
        lectures = jsonl(m["lectures.jsonl"])
        lectures[draw(st.integers(0, len(lectures) - 1))]["segments"] += draw(
            st.sampled_from([1, -1, 10**9])
        )
        return rebuild({**m, "lectures.jsonl": to_jsonl(lectures)})
    rows = jsonl(m[which])
    return rebuild({**m, which: to_jsonl(rows[:-1] if draw(st.booleans()) else rows + rows[:1])})


def wrong_types(m: Members, draw: Draw) -> bytes:
    which = draw(st.sampled_from(["lectures.jsonl", "segments.jsonl", "phrases.jsonl"]))
    rows = jsonl(m[which])
    field = draw(st.sampled_from(sorted(rows[0])))
    was = rows[0][field]
    wrong: list[Any] = [{"a": [1, {"b": 2}]}, [[[[]]]], True]
    wrong += [5, 2.5] if isinstance(was, str) or was is None else ["x"]
    rows[0][field] = draw(st.sampled_from(wrong))
    return rebuild({**m, which: to_jsonl(rows)})


def bad_manifest(m: Members, draw: Draw) -> bytes:
    data = draw(st.one_of(st.sampled_from([b"", b"{", b"[]", b"null", b'{"format": "zip"}',
                                 b'{"format": "lecturetui-pack", "version": 1}',
                                 b"\xff\xfe{}", b'{"format": "lecturetui-pack", "version": 1,'
                                 b' "lectures": "8"}']), st.binary(max_size=80)))  # fmt: skip
    members = dict(m)
    members[MANIFEST] = data
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, member in members.items():
            zf.writestr(name, member)
    return out.getvalue()


def encrypted(m: Members, draw: Draw) -> bytes:
    """A member whose header says it is encrypted (in the directory, and in its local header)."""
    pack = bytearray(rebuild(m))
    victims = draw(st.lists(st.sampled_from(list(m)), min_size=1, max_size=3, unique=True))
    with zipfile.ZipFile(io.BytesIO(bytes(pack))) as zf:
        at = zf.start_dir
        for info in zf.infolist():
            name_len, extra, comment = struct.unpack("<HHH", pack[at + 28 : at + 34])
            if info.filename in victims:
                pack[at + 8] |= 0x1
                pack[info.header_offset + 6] |= 0x1
            at += 46 + name_len + extra + comment
    return bytes(pack)


def not_a_zip(m: Members, draw: Draw) -> bytes:
    kind = draw(st.sampled_from(["empty", "random", "tar", "json"]))
    if kind == "tar":
        import tarfile

        out = io.BytesIO()
        with tarfile.open(fileobj=out, mode="w") as tar:
            info = tarfile.TarInfo("manifest.json")
            info.size = len(m[MANIFEST])
            tar.addfile(info, io.BytesIO(m[MANIFEST]))
        return out.getvalue()
    return {"empty": b"", "json": m[MANIFEST]}.get(kind) or draw(
        st.binary(min_size=1, max_size=300)
    )


def out_of_order(m: Members, draw: Draw) -> bytes:
    rows = jsonl(m["segments.jsonl"])
    order = draw(st.permutations(range(len(rows))))
    if list(order) == sorted(order):
        order = list(reversed(order))
    return rebuild({**m, "segments.jsonl": to_jsonl([rows[i] for i in order])})


def unit_mismatch(m: Members, draw: Draw) -> bytes:
    units = _matrix(m, "vectors/units.npy")
    change = draw(st.integers(-5, 5).filter(bool))
    manifest = manifest_of(m)
    manifest["units"] = len(units) + change
    rows = units[:change] if change < 0 else np.vstack([units, units[:change]])
    return rebuild({**m, "vectors/units.npy": _npy(rows)}, manifest)


def lying_embedder(m: Members, draw: Draw) -> bytes:
    manifest = manifest_of(m)
    emb = manifest["embedders"][draw(st.integers(0, len(manifest["embedders"]) - 1))]
    emb["dimensions"] = draw(st.one_of(st.sampled_from([0, -3, 1]), st.integers(10**5, 10**9)))
    return rebuild(m, manifest)


KINDS: dict[str, Callable[[Members, Draw], bytes]] = {
    f.__name__: f
    for f in (truncated, bit_flipped, path_outside, link_member, duplicate, wrong_hash, size_lie,
              unknown_version, bomb, huge_member, billion, wrong_dimension, not_finite, other_dtype,
              bad_times, long_text, local_link, unknown_member, wrong_count, wrong_types,
              bad_manifest, encrypted, not_a_zip, out_of_order, unit_mismatch, lying_embedder)
}  # fmt: skip
