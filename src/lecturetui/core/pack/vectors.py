"""A pack's vectors as .npy members: written by numpy, read back without numpy's loader.

The header is parsed first and must say little-endian float32, C order and exactly the shape
the manifest promises; the data must be exactly that many bytes. Only then is it viewed as an
array (no pickle, no allocation the header asks for), and every value must be finite with rows
no longer than 1 (the library keeps unit vectors; a zero vector stays zero).
"""

from __future__ import annotations

import io

import numpy as np
import numpy.typing as npt

from lecturetui.core.i18n import _
from lecturetui.core.pack.format import PackError

FLOAT32 = np.dtype("<f4")
#: how far a stored vector's length may be from 1 (float32 rounding)
NORM_SLACK = 1e-3

Matrix = npt.NDArray[np.float32]


def to_npy(matrix: Matrix) -> bytes:
    out = io.BytesIO()
    np.save(out, np.ascontiguousarray(matrix, dtype=FLOAT32), allow_pickle=False)
    return out.getvalue()


def from_npy(data: bytes, rows: int, dim: int, member: str) -> Matrix:
    """The (rows, dim) float32 matrix in `data`, or PackError naming `member`."""
    stream = io.BytesIO(data)
    try:
        major, _minor = np.lib.format.read_magic(stream)
        if major == 1:
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        elif major == 2:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(major)
    except (ValueError, TypeError, SyntaxError, OverflowError, KeyError) as exc:
        raise _bad(member, _("its header cannot be read ({exc})").format(exc=exc)) from None
    if dtype != FLOAT32 or fortran:
        raise _bad(member, _("it holds {dtype}, not float32 vectors").format(dtype=dtype))
    if tuple(shape) != (rows, dim):
        raise _bad(
            member,
            _("its shape is {shape}, not the {rows} x {dim} the manifest says").format(
                shape="x".join(str(n) for n in shape), rows=rows, dim=dim
            ),
        )
    offset = stream.seek(0, io.SEEK_CUR)  # where the data begins
    if len(data) - offset != rows * dim * FLOAT32.itemsize:
        raise _bad(member, _("its size does not match its shape"))
    matrix = np.frombuffer(data, dtype=FLOAT32, offset=offset).reshape(rows, dim)
    if not np.isfinite(matrix).all():
        raise _bad(member, _("it holds values that are not finite numbers"))
    if rows and float(np.linalg.norm(matrix.astype(np.float64), axis=1).max()) > 1 + NORM_SLACK:
        raise _bad(member, _("it holds vectors longer than 1"))
    return matrix.astype(np.float32)


def _bad(member: str, why: str) -> PackError:
    # TRANSLATORS: {member} is a file inside the pack ("vectors/windows.npy"); {why} says what
    # is wrong with it ("it holds values that are not finite numbers")
    return PackError(
        _("The pack's {member} is refused: {why}.").format(member=member, why=why),
        hint=_("ask for the pack again; nothing was imported"),
    )
