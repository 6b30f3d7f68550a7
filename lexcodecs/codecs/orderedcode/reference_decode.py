"""The reference ``orderedcode`` decoder: readable Python, the executable spec of reading.

Theory of operation: one reader per kind (:data:`READERS`) reads an item back as Go's ``Parse``
does, seeing a descending item through ``mask`` (``0xff``): every byte is XORed with it as it
is read. Writing is :mod:`.reference_encode`.

This is the only code that words a decoding error. Every reader takes an optional *parts* list:
when given, it appends a :class:`~lexcodecs.inspection.Part` for each span it reads, so
``inspect`` is a decode that annotates as it goes (``explain.py``), not a parser of its own.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from typing import Any, Final, Protocol

from ..._bytes import invert
from ...errors import DecodeError
from ...inspection import Part
from ...types import INFINITY
from .format import (
    ESCAPE_BYTES,
    INFINITY_BYTES,
    INT64_FF_NEXT_MAX,
    INT64_MAX,
    INT64_MIN,
    KIND_BYTES,
    KIND_FLOAT64,
    KIND_INT64,
    KIND_NAMES,
    KIND_STRING,
    KIND_TRAILING_BYTES,
    KIND_TRAILING_STRING,
    KIND_UINT64,
    TEXT_KINDS,
    UINT64_MAX_LEN,
    FieldCode,
)

Parts = list[Part] | None


class Reader(Protocol):
    """A field's decoder: (value, offset after the item); *parts* collects spans."""

    def __call__(self, key: bytes, pos: int, parts: Parts = None) -> tuple[Any, int]: ...


_D: Final = struct.Struct(">d")
_Q: Final = struct.Struct(">Q")
_MASK64: Final = (1 << 64) - 1
#: the bytes a string reader stops at (in both directions: the set inverts to itself)
_ESCAPE_RE: Final = re.compile(b"[" + re.escape(bytes(sorted(ESCAPE_BYTES))) + b"]")


# -- readers: Go's Parse (spec §6) ----------------------------------------------------------


def _corrupt(reason: str, offset: int, found: bytes, expected: str) -> DecodeError:
    return DecodeError(f"corrupt input: {reason}", offset=offset, found=found,
                       expected=expected)


def _truncated(key: bytes, what: str, expected: str = "more bytes") -> DecodeError:
    return _corrupt(f"truncated {what}", len(key), b"", expected)


def _read_string_item(key: bytes, pos: int, mask: int, parts: Parts) -> tuple[bytes, int]:
    """An escaped string at *pos*: its bytes and the offset after ``00 01`` (inverted when
    *mask* is ``ff``), read as Go's loop reads it. Linear: one search per escape."""
    end_byte, lit_after_00, lit_after_ff = 0x01 ^ mask, 0xFF ^ mask, 0x00 ^ mask
    chunks: list[bytes] = []
    i = pos
    n = len(key)
    while True:
        m = _ESCAPE_RE.search(key, i)
        if m is None:
            raise _truncated(key, "string: no terminator",
                             f"{0x00 ^ mask:02x} {end_byte:02x} (end of string)")
        j = m.start()
        chunks.append(key[i:j])
        if parts is not None and j > i:
            parts.append(Part(i, j, "payload", "bytes"))
        if j + 1 >= n:
            raise _truncated(key, "string: escape byte at the end")
        b, follow = key[j] ^ mask, key[j + 1]
        if b == 0x00 and follow == end_byte:
            raw = b"".join(chunks)
            if parts is not None:
                parts.append(Part(j, j + 2, "terminator", "end of string"))
            return (invert(raw) if mask else raw), j + 2
        literal = lit_after_00 if b == 0x00 else lit_after_ff
        if follow != literal:
            if b == 0x00:
                expected = f"{key[j]:02x} {end_byte:02x} (end) or {key[j]:02x} {literal:02x}"
            else:
                expected = f"{key[j]:02x} {literal:02x} (an escaped {0xFF ^ mask:02x} byte)"
            raise _corrupt(f"bad escape {key[j]:02x} {follow:02x}", j, key[j:j + 2],
                           expected)
        chunks.append(bytes((key[j],)))
        if parts is not None:
            parts.append(Part(j, j + 2, "escape", f"a {b:02x} byte"))
        i = j + 2


def _is_infinity(key: bytes, pos: int, mask: int) -> bool:
    return key[pos:pos + 2] == (b"\x00\x00" if mask else INFINITY_BYTES)


def _read_text(key: bytes, start: int, end: int, raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(f"invalid UTF-8 in a string field ({exc.reason}; use a bytes "
                          "field)", offset=start, found=key[start:end],
                          expected="UTF-8 text") from None


def _string_reader(code: FieldCode) -> Reader:
    """Go's ``*StringOrInfinity``: INFINITY, else a string (``str`` in a string field)."""
    mask = code.mask
    text = code.kind in TEXT_KINDS

    def read(key: bytes, pos: int, parts: Parts = None) -> tuple[Any, int]:
        if _is_infinity(key, pos, mask):
            if parts is not None:
                parts.append(Part(pos, pos + 2, "infinity", "INFINITY, above every string"))
            return INFINITY, pos + 2
        raw, end = _read_string_item(key, pos, mask, parts)
        return (_read_text(key, pos, end, raw) if text else raw), end
    return read


def _trailing_reader(code: FieldCode) -> Reader:
    """Go's ``*TrailingString``: the rest of the key, raw (inverted when descending)."""
    mask = code.mask
    text = code.kind in TEXT_KINDS

    def read(key: bytes, pos: int, parts: Parts = None) -> tuple[Any, int]:
        raw = key[pos:]
        if mask:
            raw = invert(raw)
        if parts is not None:
            parts.append(Part(pos, len(key), "payload", "the rest of the key, unescaped"))
        return (_read_text(key, pos, len(key), raw) if text else raw), len(key)
    return read


def read_int64(key: bytes, pos: int, mask: int, parts: Parts = None) -> tuple[int, int]:
    """Go's ``parseInt64``: the int64 at *pos* and the offset after it. Non-minimal forms are
    read; a 10-byte form wraps modulo 2**64, as Go's int64 arithmetic does."""
    if pos >= len(key):
        raise _truncated(key, "int64: key ends before it", "an int64")
    c = key[pos] ^ mask
    if 0x40 <= c < 0xC0:  # one byte
        if parts is not None:
            parts.append(Part(pos, pos + 1, "int64", "one byte: value ^ 80"))
        return (c ^ 0x80) - (0x100 if c < 0x80 else 0), pos + 1
    negative = c & 0x80 == 0
    d = mask ^ 0xFF if negative else mask  # read through this: a negative is inverted
    c ^= 0xFF if negative else 0x00
    start = pos
    n = 0
    if c == 0xFF:  # a whole byte of one-bits: 8 bytes or more
        if pos + 1 >= len(key):
            raise _truncated(key, "int64: only its ff head", "a byte after the ff head")
        pos += 1
        c = key[pos] ^ d
        if c > INT64_FF_NEXT_MAX:
            raise _corrupt("int64 longer than 10 bytes (the byte after its ff head is over "
                           "c0, as read)", pos, key[pos:pos + 1],
                           f"{INT64_FF_NEXT_MAX ^ d:02x} or {'more' if d else 'less'}")
        n = 7
    bit = 0x80
    while c & bit:
        c &= ~bit
        n += 1
        bit >>= 1
    if len(key) - pos < n:
        raise _truncated(key, f"int64: {n + pos - start} bytes announced",
                         f"{n + pos - start} bytes from offset {start}")
    x = c
    if n > 1:
        tail = key[pos + 1:pos + n]
        x = (x << (8 * (n - 1))) | int.from_bytes(invert(tail) if d else tail, "big")
    x &= _MASK64
    if x > INT64_MAX:
        x -= 1 << 64
    if negative:
        x = ~x
    if parts is not None:
        how = "~value, inverted" if negative else "value"
        parts.append(Part(start, pos + n, "int64",
                          f"{pos + n - start} bytes: length bits, then {how}"))
    return x, pos + n


def _int64_reader(code: FieldCode) -> Reader:
    mask = code.mask

    def read(key: bytes, pos: int, parts: Parts = None) -> tuple[int, int]:
        return read_int64(key, pos, mask, parts)
    return read


def _uint64_reader(code: FieldCode) -> Reader:
    mask = code.mask

    def read(key: bytes, pos: int, parts: Parts = None) -> tuple[int, int]:
        if pos >= len(key):
            raise _truncated(key, "uint64: key ends before it", "a uint64")
        n = key[pos] ^ mask
        if n > UINT64_MAX_LEN:
            raise _corrupt(f"uint64 length {n} is over {UINT64_MAX_LEN}", pos,
                           key[pos:pos + 1], f"a length 0..{UINT64_MAX_LEN}")
        if pos + 1 + n > len(key):
            raise _truncated(key, f"uint64: {n} bytes announced", f"{n} bytes after the "
                             "length byte")
        payload = key[pos + 1:pos + 1 + n]
        if parts is not None:
            parts += [Part(pos, pos + 1, "length", f"{n} byte(s)"),
                      Part(pos + 1, pos + 1 + n, "payload", "big-endian value")]
        return int.from_bytes(invert(payload) if mask else payload, "big"), pos + 1 + n
    return read


def _float64_reader(code: FieldCode) -> Reader:
    mask = code.mask

    def read(key: bytes, pos: int, parts: Parts = None) -> tuple[float, int]:
        sink: Parts = [] if parts is not None else None
        i, end = read_int64(key, pos, mask, sink)
        if i < 0:
            i = INT64_MIN - i
        if parts is not None:
            parts.append(Part(pos, end, "float64",
                              "IEEE bits as an int64 (negatives: MinInt64 - bits)"))
        return float(_D.unpack(_Q.pack(i & _MASK64))[0]), end
    return read


#: field kind -> builder of its reader
READERS: Final[dict[int, Callable[[FieldCode], Reader]]] = {
    KIND_STRING: _string_reader, KIND_BYTES: _string_reader,
    KIND_INT64: _int64_reader, KIND_UINT64: _uint64_reader, KIND_FLOAT64: _float64_reader,
    KIND_TRAILING_STRING: _trailing_reader, KIND_TRAILING_BYTES: _trailing_reader,
}


def field_reader(code: FieldCode) -> Reader:
    """The decoder of one field (Go's ``Parse`` of that item; ``Decr`` when descending)."""
    return READERS[code.kind](code)


def kind_name(code: FieldCode) -> str:
    """What Go calls the field's item, with its direction: ``Decr(int64)``."""
    name = KIND_NAMES[code.kind]
    return f"Decr({name})" if code.descending else name

