"""The frames between lecturetui and its answer model's process: a 4-byte length, then a
pickled tuple. Both ends are this program, started by it over a pipe only it holds, so pickle
carries the typed values (messages, ModelInfo, errors) as they are."""

from __future__ import annotations

import os
import pickle
import struct
from typing import Any

_HEADER = struct.Struct(">I")
#: a frame longer than this is a broken stream, not a message
MAX_FRAME = 256 * 1024 * 1024


class Closed(Exception):
    """The other end has gone (its process ended, or the pipe was closed)."""


def send(fd: int, *frame: Any) -> None:
    """Write one frame (a tuple) to file descriptor `fd`, whole."""
    data = pickle.dumps(frame, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(_HEADER.pack(len(data)) + data)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except (BrokenPipeError, OSError) as exc:
        raise Closed(str(exc)) from None


def _read_exactly(fd: int, n: int) -> bytes:
    chunks = []
    while n:
        try:
            chunk = os.read(fd, n)
        except OSError as exc:
            raise Closed(str(exc)) from None
        if not chunk:
            raise Closed("end of stream")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def receive(fd: int) -> tuple[Any, ...]:
    """Read one frame from `fd` (blocks until it is whole); Closed at the end of the stream."""
    (size,) = _HEADER.unpack(_read_exactly(fd, _HEADER.size))
    if size > MAX_FRAME:
        raise Closed(f"a frame of {size} bytes")
    frame = pickle.loads(_read_exactly(fd, size))
    if not isinstance(frame, tuple) or not frame:
        raise Closed("not a frame")
    return frame
