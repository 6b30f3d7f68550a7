"""The reference ``orderedcode`` encoder and decoder: readable Python, the executable spec.

Theory of operation: one writer per field kind (:data:`WRITERS`) turns a value into its
ascending item; :func:`field_writer` inverts it for a descending field (Go's ``Decr``). One
reader per kind (:data:`READERS`) reads an item back as Go's ``Parse`` does, seeing a
descending item through ``mask`` (``0xff``): every byte is XORed with it as it is read.

This is the only code that words an error. Values are read for what they are, never through
user code: a subclass of ``int``/``str``/``float``/``bytes`` is read through the base type's
own method. Exact types are chosen through dicts keyed by ``type(value)`` (``bool`` is an
``int`` and is refused in integer fields).

Every reader takes an optional *parts* list: when given, it appends a
:class:`~lexcodecs.inspection.Part` for each span it reads, so ``inspect`` is a decode that
annotates as it goes (``explain.py``), not a parser of its own.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from typing import Any, Final, Protocol

from ..._bytes import invert
from ...codec import buffer_value, utf8_value
from ...errors import DecodeError, EncodeError, UnsupportedTypeError
from ...inspection import Part
from ...types import INFINITY, Float32, InfinitySentinel
from .format import (
    ESCAPE_BYTES,
    ESCAPED_00,
    ESCAPED_FF,
    INFINITY_BYTES,
    INT64_FF_NEXT_MAX,
    INT64_MAX,
    INT64_MIN,
    INT64_SIZES,
    KIND_BYTES,
    KIND_FLOAT64,
    KIND_INT64,
    KIND_NAMES,
    KIND_STRING,
    KIND_TRAILING_BYTES,
    KIND_TRAILING_STRING,
    KIND_UINT64,
    TERMINATOR,
    TEXT_KINDS,
    UINT64_MAX,
    UINT64_MAX_LEN,
    FieldCode,
)

Writer = Callable[[Any], bytes]
Parts = list[Part] | None


class Reader(Protocol):
    """A field's decoder: (value, offset after the item); *parts* collects spans."""

    def __call__(self, key: bytes, pos: int, parts: Parts = None) -> tuple[Any, int]: ...


_D: Final = struct.Struct(">d")
_Q: Final = struct.Struct(">Q")
_MASK64: Final = (1 << 64) - 1
#: the bytes a string reader stops at (in both directions: the set inverts to itself)
_ESCAPE_RE: Final = re.compile(b"[" + re.escape(bytes(sorted(ESCAPE_BYTES))) + b"]")


# -- values: what a Python value means in a field -------------------------------------------


def _is(v: Any, cls: type | tuple[type, ...]) -> bool:
    """Whether *v* really is a *cls* (``isinstance`` would believe a ``__class__`` property)."""
    return issubclass(type(v), cls)


def _int_value(v: Any, field_type: str, lo: int, hi: int) -> int:
    """The exact int an integer field holds for *v*; bool and non-ints refused."""
    if type(v) is int:
        n: int = v
    elif type(v) is bool or not _is(v, int):
        raise UnsupportedTypeError(
            f"{type(v).__name__} is not an {field_type} value"
            + (" (bool is refused in integer fields)" if type(v) is bool else ""),
            value=v, expected="int")
    else:
        n = int.__int__(v)  # a subclass (IntEnum, Int64...): its int value, no user code
    if not lo <= n <= hi:
        raise EncodeError(f"out of range for {field_type}", value=n, expected=f"{lo}..{hi}")
    return n


def _int_is_exact_float(n: int) -> bool:
    """Whether *n* is exactly a float64 (its odd part fits 53 bits, below 2**1024), checked
    on the int without ``float(n)``, in time linear in its size."""
    m = abs(n)
    if m.bit_length() > 1024:
        return False
    return m == 0 or (m >> ((m & -m).bit_length() - 1)).bit_length() <= 53


def _float_of_int(v: Any) -> float:
    n = int.__int__(v)
    if not _int_is_exact_float(n):
        raise EncodeError("integer does not convert to float64 exactly", value=v,
                          expected="an int a float64 holds exactly")
    return float(n)


#: exact Python type -> the float a float64 field holds for it (NaN kept, with its payload)
FLOAT64_VALUES: Final[dict[type, Callable[[Any], float]]] = {
    float: float.__float__, Float32: float.__float__, int: _float_of_int}


def _float_value(v: Any) -> float:
    convert = FLOAT64_VALUES.get(type(v))
    if convert is None:
        if _is(v, float):  # a subclass: read as the float it is
            convert = float.__float__
        elif _is(v, int) and type(v) is not bool:
            convert = _float_of_int
        else:
            raise UnsupportedTypeError(f"{type(v).__name__} is not a float64 value", value=v,
                                       expected="float, or an int a float64 holds exactly")
    return convert(v)


def _text_value(v: Any) -> bytes:
    if not _is(v, str):
        raise UnsupportedTypeError(f"{type(v).__name__} value in a string field", value=v,
                                   expected="str or INFINITY (use a bytes field for bytes)")
    return utf8_value(v)


def _bytes_value(v: Any) -> bytes:
    if type(v) is bytes:
        return v
    if not _is(v, (bytes, bytearray, memoryview)):
        raise UnsupportedTypeError(f"{type(v).__name__} value in a bytes field", value=v,
                                   expected="bytes or INFINITY (use a string field for str)")
    return buffer_value(v)


# -- writers: one ascending item (spec §2-§4) ----------------------------------------------


def escape(data: bytes) -> bytes:
    """A string item: ``00`` -> ``00 ff``, ``ff`` -> ``ff 00``, then ``00 01``."""
    parts = data.split(b"\x00")
    return ESCAPED_00.join([p.replace(b"\xff", ESCAPED_FF) for p in parts]) + TERMINATOR


def int64_bytes(x: int) -> bytes:
    """The int64 item of *x* (in range): the shortest k-byte form of x, or of ~x inverted."""
    n = ~x if x < 0 else x
    for size in INT64_SIZES:
        if n < size.limit:
            data = (size.head | n).to_bytes(size.length, "big")
            return invert(data) if x < 0 else data
    raise AssertionError("int64 out of range")  # the callers check the range


def uint64_bytes(x: int) -> bytes:
    """The uint64 item of *x*: its length byte, then its big-endian bytes."""
    n = (x.bit_length() + 7) // 8
    return bytes((n,)) + x.to_bytes(n, "big")


def float64_int(x: float) -> int:
    """The int64 a float64 is written as: its bits, negatives as ``MinInt64 - bits``."""
    i = int(_Q.unpack(_D.pack(x))[0])
    if i > INT64_MAX:
        i -= 1 << 64
    return INT64_MIN - i if i < 0 else i


def _string_writer(v: Any) -> bytes:
    if type(v) is InfinitySentinel:
        return INFINITY_BYTES
    return escape(_text_value(v))


def _bytes_writer(v: Any) -> bytes:
    if type(v) is InfinitySentinel:
        return INFINITY_BYTES
    return escape(_bytes_value(v))


def _not_infinity(v: Any) -> None:
    if type(v) is InfinitySentinel:
        raise EncodeError("INFINITY cannot be a trailing string (Go's TrailingString has no "
                          "infinity)", value=v,
                          expected="a value of the field's type, or a field without "
                          "trailing=true")


def _trailing_string_writer(v: Any) -> bytes:
    _not_infinity(v)
    return _text_value(v)


def _trailing_bytes_writer(v: Any) -> bytes:
    _not_infinity(v)
    return _bytes_value(v)


def _int64_writer(v: Any) -> bytes:
    return int64_bytes(_int_value(v, "int64", INT64_MIN, INT64_MAX))


def _uint64_writer(v: Any) -> bytes:
    return uint64_bytes(_int_value(v, "uint64", 0, UINT64_MAX))


def _float64_writer(v: Any) -> bytes:
    return int64_bytes(float64_int(_float_value(v)))


#: field kind -> its ascending writer
WRITERS: Final[dict[int, Writer]] = {
    KIND_STRING: _string_writer, KIND_BYTES: _bytes_writer,
    KIND_INT64: _int64_writer, KIND_UINT64: _uint64_writer, KIND_FLOAT64: _float64_writer,
    KIND_TRAILING_STRING: _trailing_string_writer,
    KIND_TRAILING_BYTES: _trailing_bytes_writer,
}


def _refuse_null(v: Any) -> bytes:
    raise UnsupportedTypeError("orderedcode has no NULL", value=v,
                               expected="a value of the field's type")


def field_writer(code: FieldCode) -> Writer:
    """The encoder of one field: its item, inverted if descending (Go's ``Decr``)."""
    write = WRITERS[code.kind]
    if code.descending:
        return lambda v: _refuse_null(v) if v is None else invert(write(v))
    return lambda v: _refuse_null(v) if v is None else write(v)


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

