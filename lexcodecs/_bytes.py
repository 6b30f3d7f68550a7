"""Byte primitives shared by the codecs.

Theory of operation: every order-preserving format is built from the same few moves, and each
is written here once, on whole ``bytes`` objects (``translate``, ``replace``, ``int.from_bytes``)
so no codec needs a per-byte Python loop:

* ones' complement (``invert``): reverses byte order, for descending fields;
* ``00`` escaping (``escape_nul``/``unescape_nul``): lets a ``00`` terminator end a string that
  may itself hold ``00`` (FoundationDB, SKV);
* the IEEE order transform (``float_to_ordered``/``ordered_to_float``): makes unsigned byte order
  equal IEEE total order (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN);
* ``strinc``: the first byte string after every string that starts with a prefix, the stop of a
  prefix range.
"""

from __future__ import annotations

import struct
from typing import Final

__all__ = [
    "escape_nul",
    "float_to_ordered",
    "invert",
    "order_bits",
    "ordered_to_float",
    "strinc",
    "unescape_nul",
    "unorder_bits",
]

_INVERT: Final = bytes(255 - b for b in range(256))
_F64: Final = struct.Struct(">d")
_U64: Final = struct.Struct(">Q")


def invert(data: bytes) -> bytes:
    """Ones' complement of every byte: ``invert(b"\\x00\\x01") == b"\\xff\\xfe"``."""
    return data.translate(_INVERT)


def escape_nul(data: bytes) -> bytes:
    """``00`` -> ``00 ff``, so a lone ``00`` can terminate the value."""
    return data.replace(b"\x00", b"\x00\xff")


def unescape_nul(data: bytes) -> bytes:
    """Inverse of :func:`escape_nul` (the caller has checked the escapes are well formed)."""
    return data.replace(b"\x00\xff", b"\x00")


def strinc(prefix: bytes) -> bytes | None:
    """The smallest byte string greater than every string that starts with *prefix*.

    Trailing ``ff`` bytes are dropped and the last byte left is incremented; a prefix of only
    ``ff`` bytes (or empty) has no such string and gives ``None``.

    >>> strinc(b"ab\\xff")
    b'ac'
    >>> strinc(b"\\xff") is None
    True
    """
    stripped = prefix.rstrip(b"\xff")
    if not stripped:
        return None
    return stripped[:-1] + bytes((stripped[-1] + 1,))


def order_bits(bits: int, width: int) -> int:
    """IEEE bits (*width* bytes) in sortable form: negatives fully inverted, others sign-set.

    Unsigned order of the result is IEEE total order; NaN payloads pass through unchanged.
    Work on bits, not on ``float``: a binary32 NaN would lose its payload on the way.
    """
    sign = 1 << (8 * width - 1)
    return bits ^ ((sign << 1) - 1) if bits & sign else bits | sign


def unorder_bits(bits: int, width: int) -> int:
    """Inverse of :func:`order_bits`."""
    sign = 1 << (8 * width - 1)
    return bits ^ sign if bits & sign else bits ^ ((sign << 1) - 1)


def float_to_ordered(value: float) -> bytes:
    """The 8 sortable bytes of a binary64 value (see :func:`order_bits`)."""
    return _U64.pack(order_bits(_U64.unpack(_F64.pack(value))[0], 8))


def ordered_to_float(data: bytes) -> float:
    """Inverse of :func:`float_to_ordered`."""
    return float(_F64.unpack(_U64.pack(unorder_bits(_U64.unpack(data)[0], 8)))[0])
