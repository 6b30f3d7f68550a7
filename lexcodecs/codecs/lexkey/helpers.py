"""The Go library's helpers on encoded keys (spec §4): primary keys, range keys, hex, JSON.

Theory of operation: these work on bytes that are already keys, so they do not depend on the
width mode; both codecs expose them as static methods and the package as functions. A
primary key is ``partition 00 row``; a range key is the ``[lower, upper)`` of rows
``start..end`` (it leaks, as the Go library's does: a row that merely starts with ``end`` is
inside). Hex is strict (no ``0x``, no spaces, even length); JSON is a string of hex or ``null``.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from ...codec import as_key_bytes, buffer_value, plain_value
from ...errors import DecodeError, LexCodecError, UnsupportedTypeError

__all__ = [
    "decode_primary_key",
    "from_hex",
    "from_json",
    "primary_key",
    "range_key",
    "to_hex",
    "to_json",
]

_HEX: Final = re.compile(r"(?:[0-9a-fA-F]{2})*\Z")


def _key(v: Any, what: str) -> bytes:
    """*v* as bytes (a subclass by its own bytes): a key read (a released memoryview is a
    DecodeError), or a part of one being built (an EncodeError)."""
    if issubclass(type(v), (bytes, bytearray, memoryview)):
        if what == "key":
            return as_key_bytes("lexkey", v)
        try:
            return buffer_value(v)
        except LexCodecError as exc:
            raise exc.add_context(codec="lexkey") from None
    raise UnsupportedTypeError(f"{what} must be bytes", codec="lexkey", value=v,
                               expected="bytes")


def primary_key(partition: bytes, row: bytes) -> bytes:
    """``partition + 00 + row``."""
    return _key(partition, "partition") + b"\x00" + _key(row, "row")


def decode_primary_key(key: bytes) -> tuple[bytes, bytes]:
    """Split at the first ``00``: ``(partition, row)``; either may be empty."""
    data = _key(key, "key")
    at = data.find(b"\x00")
    if at < 0:
        raise DecodeError("missing separator", codec="lexkey", offset=len(data),
                          found=b"", expected="a 00 between partition and row")
    return data[:at], data[at + 1:]


def range_key(partition: bytes, start: bytes, end: bytes, with_partition: bool = True
              ) -> tuple[bytes, bytes]:
    """``[lower, upper)`` of rows ``start``..``end`` (spec §4); it leaks, as the seed's does."""
    p = _key(partition, "partition") if with_partition else b""
    start, end = _key(start, "start"), _key(end, "end")
    lower = p + b"\x00" + start
    upper = p + b"\x00" + end + b"\xff" if end else p + b"\xff"
    return lower, upper


def to_hex(key: bytes) -> str:
    """Lowercase hex, no ``0x``; ``""`` for the empty key."""
    return _key(key, "key").hex()


def from_hex(text: str) -> bytes:
    """Strict hex (either case): odd length, spaces or ``0x`` are DecodeErrors."""
    if not issubclass(type(text), str):
        raise DecodeError("hex text must be a str", codec="lexkey", offset=0,
                          expected="a str of hex digits")
    text = str.__str__(text)  # a subclass by its own characters, never its methods
    if not _HEX.match(text):
        bad = next((i for i, c in enumerate(text) if c not in "0123456789abcdefABCDEF"),
                   len(text))
        raise DecodeError("not hex" if bad < len(text) else "odd number of hex digits",
                          codec="lexkey", offset=bad,
                          found=text[bad:bad + 1].encode(), expected="pairs of hex digits")
    return bytes.fromhex(text)


def to_json(key: bytes) -> str:
    """The key as a JSON string of hex: ``'"68656c6c6f"'``."""
    return '"' + to_hex(key) + '"'


def from_json(text: str) -> bytes:
    """JSON ``null`` is the empty key; a JSON string is hex; anything else is refused."""
    try:
        value = json.loads(plain_value(text))  # a str or bytes subclass by its own data
    except (TypeError, ValueError, RecursionError) as exc:  # deep nesting: RecursionError
        raise DecodeError(f"not JSON ({exc})", codec="lexkey", offset=0,
                          expected="a JSON string of hex, or null") from None
    if value is None:
        return b""
    if not isinstance(value, str):
        raise DecodeError(f"JSON {type(value).__name__} is not a key", codec="lexkey",
                          offset=0, expected="a JSON string of hex, or null")
    return from_hex(value)
