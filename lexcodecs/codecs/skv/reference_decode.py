"""The reference ``skv`` decoder: readable Python, the executable spec of reading (spec §9).

Theory of operation: one reader per type byte (:data:`READERS`) reads a field back, seeing a
descending field through its inverted bytes; :func:`field_decoder` (with a schema) and
:func:`read_any` (without) choose the reader from the field's first byte. Writing is
:mod:`.reference_encode`.

This is the only code that words a decoding error: the compiled module hands every key it does
not take as its own to these functions, so both implementations refuse alike.

Every reader takes an optional *parts* list: when given, it appends a
:class:`~lexcodecs.inspection.Part` for each span it reads, so ``inspect`` is a decode that
annotates as it goes (``explain.py``), not a parser of its own.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, Final, Protocol

from ..._bytes import invert, unorder_bits
from ...errors import DecodeError
from ...inspection import Part
from ...types import Float32
from .format import (
    BOOL,
    DOUBLE,
    FLOAT,
    FORMAT_OF_BYTE,
    INT16,
    INT32,
    INT64,
    NULL_FIRST_BYTE,
    NULL_LAST_BYTE,
    SIGN_NEGATIVE,
    SIGN_NONNEGATIVE,
    STRING,
    TYPE_NAMES,
    UINT16,
    UINT32,
    UINT64,
    FieldLayout,
    SignedRule,
    TypeFormat,
)

Parts = list[Part] | None


class Reader(Protocol):
    """A schema field's decoder: (value, offset after the field); *parts* collects spans."""

    def __call__(self, key: bytes, pos: int, parts: Parts = None) -> tuple[Any, int]: ...


_D = struct.Struct(">d")
_Q = struct.Struct(">Q")

# -- reading (spec §9) ----------------------------------------------------------------------


def _truncated(key: bytes, what: str) -> DecodeError:
    return DecodeError(f"truncated: {what}", offset=len(key), found=b"",
                       expected="more bytes")


def _terminator(key: bytes, at: int, desc: bool, parts: Parts) -> int:
    """Check the terminator at *at* (``00 01``, ``ff fe`` descending); the offset after it."""
    first, second = (0xFF, 0xFE) if desc else (0x00, 0x01)
    shown = "ff fe" if desc else "00 01"
    for i, want in ((at, first), (at + 1, second)):
        if i >= len(key):
            raise _truncated(key, f"terminator {shown} incomplete")
        if key[i] != want:
            raise DecodeError("terminator expected (wrong fixed width or corrupt field)",
                              offset=i, found=key[i:i + 1], expected=shown)
    if parts is not None:
        parts.append(Part(at, at + 2, "terminator", "end of field"))
    return at + 2


def _null_marker(key: bytes, pos: int, parts: Parts) -> int:
    """*pos* holds ``00`` or ``ff``: check the ``00 01`` after it; the offset after it."""
    for i, want in ((pos + 1, 0x00), (pos + 2, 0x01)):
        if i >= len(key):
            raise _truncated(key, "NULL marker incomplete")
        if key[i] != want:
            raise DecodeError("NULL marker must be followed by 00 01", offset=i,
                              found=key[i:i + 1], expected=f"{want:02x}")
    if parts is not None:
        placed = "first" if key[pos] == NULL_FIRST_BYTE else "last"
        parts += [Part(pos, pos + 1, "null", f"NULL, sorting {placed}"),
                  Part(pos + 1, pos + 3, "terminator", "end of field")]
    return pos + 3


def _fixed(key: bytes, start: int, width: int, desc: bool) -> bytes:
    """*width* payload bytes at *start*, un-inverted when descending."""
    end = start + width
    if end > len(key):
        raise _truncated(key, f"{width}-byte payload incomplete")
    raw = key[start:end]
    return invert(raw) if desc else raw


def _read_string(key: bytes, pos: int, desc: bool, parts: Parts) -> tuple[bytes, int]:
    """The unescaped STRING payload of the field at *pos* and the offset after the field."""
    esc, end_byte, literal = (0xFF, 0xFE, 0x00) if desc else (0x00, 0x01, 0xFF)
    esc_b = bytes((esc,))
    chunks: list[bytes] = []
    i = pos + 1
    n = len(key)
    while True:
        j = key.find(esc_b, i)
        if j < 0:
            raise _truncated(key, "unterminated STRING")
        if j + 1 >= n:
            raise _truncated(key, "unterminated STRING (escape byte at the end)")
        chunks.append(key[i:j])
        if parts is not None and j > i:
            parts.append(Part(i, j, "payload", "bytes"))
        follow = key[j + 1]
        if follow == end_byte:
            raw = esc_b.join(chunks)
            if parts is not None:
                parts.append(Part(j, j + 2, "terminator", "end of field"))
            return (invert(raw) if desc else raw), j + 2
        if follow != literal:
            raise DecodeError(f"bad escape: {esc:02x} followed by {follow:02x}", offset=j,
                              found=key[j:j + 2],
                              expected=f"{esc:02x} {end_byte:02x} (end) or "
                              f"{esc:02x} {literal:02x} (a 00 byte)")
        if parts is not None:
            parts.append(Part(j, j + 2, "escape", "a 00 byte"))
        i = j + 2


def _read_signed(key: bytes, pos: int, fmt: TypeFormat, desc: bool, parts: Parts
                 ) -> tuple[int, int]:
    rule: SignedRule | None = fmt.signed
    assert rule is not None
    width = rule.width
    if pos + 1 >= len(key):
        raise _truncated(key, "sign byte missing")
    sign = key[pos + 1] ^ 0xFF if desc else key[pos + 1]
    if sign not in (SIGN_NEGATIVE, SIGN_NONNEGATIVE):
        raise DecodeError("sign byte must be 02 or 03", offset=pos + 1,
                          found=key[pos + 1:pos + 2],
                          expected="fd or fc (descending)" if desc else "02 or 03")
    payload = int.from_bytes(_fixed(key, pos + 2, width, desc), "big")
    value = rule.value(sign, payload)
    if value is None:
        found = key[pos + 2:pos + 2 + width]
        if sign == SIGN_NONNEGATIVE:
            raise DecodeError("non-canonical: non-negative sign with a payload above the "
                              "maximum", offset=pos + 2, found=found,
                              expected=f"at most {rule.nonneg_max:#x}")
        raise DecodeError("non-canonical: negative sign with a payload outside the negative "
                          "range" + (" (would be -0)" if payload == rule.bias else ""),
                          offset=pos + 2, found=found,
                          expected=f"{rule.neg_min:#x}..{rule.neg_max:#x}")
    if parts is not None:
        negative = sign == SIGN_NEGATIVE
        parts += [Part(pos + 1, pos + 2, "sign", "negative" if negative
                       else "zero or positive"),
                  Part(pos + 2, pos + 2 + width, "payload", "two's complement + 2**N - 1"
                       if negative else "big-endian value")]
    return value, _terminator(key, pos + 2 + width, desc, parts)


def _read_unsigned(key: bytes, pos: int, fmt: TypeFormat, desc: bool, parts: Parts
                   ) -> tuple[int, int]:
    value = int.from_bytes(_fixed(key, pos + 1, fmt.width, desc), "big")
    if parts is not None:
        parts.append(Part(pos + 1, pos + 1 + fmt.width, "payload", "big-endian value"))
    return value, _terminator(key, pos + 1 + fmt.width, desc, parts)


def _is_nan(bits: int, width: int) -> bool:
    if width == 4:
        return (bits & 0x7F800000) == 0x7F800000 and bool(bits & 0x007FFFFF)
    return (bits & 0x7FF0000000000000) == 0x7FF0000000000000 and \
        bool(bits & 0x000FFFFFFFFFFFFF)


def _read_float(key: bytes, pos: int, fmt: TypeFormat, desc: bool, parts: Parts
                ) -> tuple[float, int]:
    width = fmt.width
    bits = unorder_bits(int.from_bytes(_fixed(key, pos + 1, width, desc), "big"), width)
    if _is_nan(bits, width):
        raise DecodeError("payload decodes to NaN, which the encoder never writes",
                          offset=pos + 1, found=key[pos + 1:pos + 1 + width],
                          expected="a non-NaN float")
    value: float = Float32.from_bits(bits) if width == 4 else float(
        _D.unpack(_Q.pack(bits))[0])
    if parts is not None:
        parts.append(Part(pos + 1, pos + 1 + width, "payload", "IEEE order transform"))
    return value, _terminator(key, pos + 1 + width, desc, parts)


def _read_bool(key: bytes, pos: int, fmt: TypeFormat, desc: bool, parts: Parts
               ) -> tuple[bool, int]:
    payload = _fixed(key, pos + 1, 1, desc)
    if payload not in (b"\x00", b"\x01"):
        raise DecodeError("bool payload must be 00 or 01", offset=pos + 1,
                          found=key[pos + 1:pos + 2],
                          expected="ff or fe (descending)" if desc else "00 or 01")
    if parts is not None:
        parts.append(Part(pos + 1, pos + 2, "payload", "true" if payload[0] else "false"))
    return payload == b"\x01", _terminator(key, pos + 2, desc, parts)


def _read_string_field(key: bytes, pos: int, fmt: TypeFormat, desc: bool, parts: Parts
                       ) -> tuple[bytes, int]:
    return _read_string(key, pos, desc, parts)


#: ascending type byte -> the reader of a field of that type (STRING gives bytes)
READERS: Final[dict[int, Callable[[bytes, int, TypeFormat, bool, Parts], tuple[Any, int]]]] = {
    STRING: _read_string_field, BOOL: _read_bool, FLOAT: _read_float, DOUBLE: _read_float,
    INT16: _read_signed, INT32: _read_signed, INT64: _read_signed,
    UINT16: _read_unsigned, UINT32: _read_unsigned, UINT64: _read_unsigned,
}


def _read_value(key: bytes, pos: int, t: int, desc: bool, parts: Parts) -> tuple[Any, int]:
    """The value of a non-NULL field whose (ascending) type byte *t* is at *pos*."""
    if parts is not None:
        how = ", descending (every byte inverted)" if desc else ""
        parts.append(Part(pos, pos + 1, "type", TYPE_NAMES[t] + how))
    return READERS[t](key, pos, FORMAT_OF_BYTE[t], desc, parts)


def _classify(key: bytes, pos: int) -> tuple[int, bool]:
    """The first byte of the field at *pos*: (ascending type byte or NULL marker, desc)."""
    if pos >= len(key):
        raise _truncated(key, "key ends before the field")
    first = key[pos]
    if first in (NULL_FIRST_BYTE, NULL_LAST_BYTE):
        return first, False
    if STRING <= first <= BOOL:
        return first, False
    if 0xFF ^ BOOL <= first <= 0xFF ^ STRING:
        return first ^ 0xFF, True
    raise DecodeError(f"type byte {first:02x} is not a key type", offset=pos,
                      found=key[pos:pos + 1],
                      expected="00/ff (NULL), 01..0a (ascending) or f5..fe (descending)")


def read_any(key: bytes, pos: int, parts: Parts = None) -> tuple[Any, int]:
    """One field without a schema: (value, next offset); NULL is None, STRING bytes."""
    t, desc = _classify(key, pos)
    if t in (NULL_FIRST_BYTE, NULL_LAST_BYTE):
        return None, _null_marker(key, pos, parts)
    return _read_value(key, pos, t, desc, parts)


def decode_schemaless(key: bytes, annotate: list[list[Part]] | None = None
                      ) -> tuple[Any, ...]:
    """Every field of *key* from the type bytes alone (spec §9); *annotate* collects each
    field's parts. Errors carry no codec yet."""
    if not key:
        raise DecodeError("empty key (a key holds at least one field)", offset=0, found=b"",
                          expected="a field")
    out: list[Any] = []
    pos = 0
    while pos < len(key):
        parts: Parts = None
        if annotate is not None:
            parts = []
            annotate.append(parts)
        value, pos = read_any(key, pos, parts)
        out.append(value)
    return tuple(out)


def field_decoder(layout: FieldLayout, field_type: str) -> Reader:
    """The strict decoder of one schema field (spec §9 "with a schema")."""
    t = layout.fmt.type_byte
    desc = layout.descending
    first_byte = layout.first_byte
    marker = layout.null_byte
    nulls = "last" if marker == NULL_LAST_BYTE else "first"
    direction = "descending" if desc else "ascending"

    def read(key: bytes, pos: int, parts: Parts = None) -> tuple[Any, int]:
        if pos >= len(key):
            raise _truncated(key, "key ends before the field")
        b = key[pos]
        if b == marker:
            return None, _null_marker(key, pos, parts)
        if b != first_byte:
            raise DecodeError(_mismatch(b, marker, first_byte, direction, field_type),
                              offset=pos, found=key[pos:pos + 1],
                              expected=f"{first_byte:02x} ({direction} {field_type}) or "
                              f"{marker:02x} (NULL {nulls})")
        value, end = _read_value(key, pos, t, desc, parts)
        if layout.text:
            try:
                value = value.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DecodeError(f"invalid UTF-8 in a string field ({exc.reason}; use a "
                                  "bytes field)", offset=pos + 1,
                                  found=key[pos + 1:end - 2]) from None
        return value, end
    return read


def _mismatch(b: int, marker: int, first_byte: int, direction: str, field_type: str) -> str:
    if b in (NULL_FIRST_BYTE, NULL_LAST_BYTE):
        placed, want = ("first", "last") if b == NULL_FIRST_BYTE else ("last", "first")
        return f"NULL-{placed} marker in a field whose NULLs sort {want}"
    if STRING <= b <= BOOL or 0xFF ^ BOOL <= b <= 0xFF ^ STRING:
        found_desc = b > BOOL
        asc = b ^ 0xFF if found_desc else b
        found_dir = "descending" if found_desc else "ascending"
        if found_dir != direction:
            return f"{found_dir} field where the schema declares a {direction} {field_type}"
        return (f"type byte {b:02x} ({TYPE_NAMES[asc]}) where the schema declares "
                f"{field_type}")
    return f"type byte {b:02x} is not a key type"
