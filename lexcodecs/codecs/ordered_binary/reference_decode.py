"""The reference decoder of ``ordered-binary``: ``fromBufferKey`` step by step, in Python.

Theory of operation: ordered-binary's reader (``readKey``) checks nothing and is lossy; this
module reproduces it exactly, quirks included, so that a key read here gives what lmdb-js
gives (the vectors' ``decoded``):

* the first byte picks the reader (:data:`~.format.CONTROL_KINDS`); ``01``, ``03``..``05``
  return *the rest of the key* as raw bytes, and the reading goes on one byte after that byte;
* a number reads 9 bytes whatever is there; bytes past the end of the key read as zero, but a
  4-byte read starting past the key's DataView (the key's length rounded up to 4 bytes, or its
  exact length for keys of :data:`~.format.OWN_BUFFER_SIZE` bytes and more, see
  ``format``) fails in lmdb-js, and is refused here with a :class:`DecodeError`;
* after a number, a byte above ``00`` starts a BigInt tail: the number must then be an
  integer (else ordered-binary throws ``RangeError``: a ``DecodeError`` here) and every
  following byte above ``00`` adds 7 bits;
* a string runs to the first byte ``00``..``03`` or the end (``04`` takes the next byte as a
  UTF-16 unit; bytes ``80`` and up start a UTF-8 sequence taken without any check, reading
  zeros past the end); its UTF-16 units become a Python ``str`` (a valid surrogate pair one
  character, a lone surrogate a lone one);
* after a value one ``00`` is skipped; any further value makes the result an array.

The result is always a tuple: the array's elements, or the one value. Decoding is linear in
the key: one pass, and a BigInt tail adds no more than the 2**1024 range of a double can hold.

``inspect`` is this same reading with an annotation sink (a list that receives one
:class:`Element` per value read), so no second parser has to agree with this one.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from typing import Any, Final

import attrs

from ...errors import DecodeError, with_article
from .format import (
    BIGINT_SHIFT,
    CONTROL_KINDS,
    ESCAPE,
    FIELD_STARTS,
    NAME,
    NULL,
    OWN_BUFFER_SIZE,
    RAW_TOTAL_LIMIT,
    SEPARATOR,
    STRING_PREFIX,
    TRUE,
    JsSymbol,
)

__all__ = ["FIELD_READERS", "Element", "decode_fields", "decode_key", "units_to_str"]

_D: Final = struct.Struct(">d")
_Q: Final = struct.Struct(">Q")


@attrs.define
class Element:
    """One value as ``readKey`` read it: its kind, first byte, end (past the bytes it read,
    clamped to the key) and value; for ``inspect``."""

    kind: str
    start: int
    end: int
    value: Any


def units_to_str(units: list[int]) -> str:
    """UTF-16 code units as a Python str: valid surrogate pairs joined, lone ones kept."""
    raw = b"".join(u.to_bytes(2, "little") for u in units)
    return raw.decode("utf-16-le", "surrogatepass")


class _Reader:
    """``readKey``'s state: the key, its end, the DataView bound, and ``position``."""

    __slots__ = ("bound", "data", "end", "pos", "raw_total")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.end = len(data)
        self.bound = self.end if self.end >= OWN_BUFFER_SIZE else (self.end + 3) & ~3
        self.pos = 0
        self.raw_total = 0

    def byte(self, at: int) -> int | None:
        """``buffer[at]``: ``undefined`` (None) past the end."""
        return self.data[at] if 0 <= at < self.end else None

    def be32(self, at: int) -> int:
        """Four bytes big-endian, zeros past the end of the key."""
        chunk = self.data[at:at + 4]
        return int.from_bytes(chunk + bytes(4 - len(chunk)), "big")

    # -- strings ----------------------------------------------------------------------------

    def string(self) -> str:
        """``readString``: UTF-16 units up to a byte 00..03 (consumed) or the end."""
        units: list[int] = []
        pending: int | None = None
        while True:
            b = self.byte(self.pos)
            self.pos += 1
            if b is None or b < ESCAPE:
                return units_to_str(units)
            if b == ESCAPE:
                escaped = self.byte(self.pos)
                self.pos += 1
                units.append(0 if escaped is None else escaped)  # fromCharCode(undefined)
            elif b < 0x80:
                units.append(b)
            else:
                unit, pending = self.utf8(b, pending)
                units.append(unit)

    def _cont(self) -> int:
        b = self.byte(self.pos)
        self.pos += 1
        return 0 if b is None else b & 0x3F

    def utf8(self, b1: int, pending: int | None) -> tuple[int, int | None]:
        """``finishUtf8``: one UTF-16 unit from a lead byte, no check of what follows."""
        if b1 & 0xE0 == 0xC0:
            return ((b1 & 0x1F) << 6) | self._cont(), pending
        if b1 & 0xF0 == 0xE0:
            b2 = self._cont()
            return ((b1 & 0x1F) << 12) | (b2 << 6) | self._cont(), pending
        if b1 & 0xF8 == 0xF0:
            if pending is not None:  # the second half of the pair read last time
                self.pos += 3
                return pending, None
            b2 = self._cont()
            b3 = self._cont()
            unit = ((b1 & 0x07) << 18) | (b2 << 12) | (b3 << 6) | self._cont()
            if unit > 0xFFFF:
                pending = 0xDC00 | (unit & 0x3FF)
                unit = (((unit - 0x10000) >> 10) & 0x3FF) | 0xD800
                self.pos -= 4  # read the lead byte again for the low surrogate
            return unit, pending
        return b1, pending

    # -- numbers ----------------------------------------------------------------------------

    def number(self, start: int, control: int) -> float | int:
        """Nine bytes as a double (a negative one if *control* < 10), then a BigInt tail."""
        if start + 4 > self.bound:
            raise DecodeError("a number starts too near the end: lmdb-js's 4-byte read "
                              "fails (RangeError: Offset is outside the bounds of the DataView)",
                              codec=NAME, offset=start, found=self.data[start:],
                              expected="4 bytes from here within the key's length "
                              "rounded up to 4")
        high = (self.be32(start) << 4) & 0xFFFF_FFFF
        size = self.end - start
        low = 0
        if size > 4:
            low = self.be32(start + 4)
            high |= low >> 28
            if size <= 6:
                low &= 0xFFFF_0000
            low = (low << 4) & 0xFFFF_FFFF
            if size > 8:
                low |= self.data[start + 8] >> 4
        if control < 0x10:
            high ^= 0x7FFF_FFFF
            low ^= 0xFFFF_FFFF
        value: float | int = float(_D.unpack(_Q.pack((high << 32) | low))[0])
        self.pos = start + 9
        tail = self.byte(self.pos)
        if size > 9 and tail is not None and tail > 0:
            value = self.bigint(start, value, high)
        return value

    def bigint(self, start: int, value: float | int, high: int) -> int:
        assert isinstance(value, float)
        if not math.isfinite(value) or not value.is_integer():
            raise DecodeError(f"a BigInt tail follows {value!r}, which is not an integer "
                              "(ordered-binary throws RangeError: The number cannot be "
                              "converted to a BigInt)", codec=NAME, offset=start + 9,
                              found=self.data[start:start + 10],
                              expected="00 or the end of the key after a fractional number")
        exponent = (high >> 20) & 0x7FF
        total = int(value) + _shift(self.data[self.pos - 1] & 0xF, exponent - BIGINT_SHIFT)
        while True:
            b = self.byte(self.pos)
            if b is None or b == 0:
                return total
            self.pos += 1
            by = (start - self.pos) * 7 + exponent - 1016
            if by > -7:  # a 7-bit group shifted further right is zero
                total += _shift(b & 0x7F, by)


def _shift(n: int, by: int) -> int:
    """JS BigInt ``n << by`` (a negative *by* shifts right, rounding down)."""
    return n << by if by >= 0 else n >> -by


def _read(r: _Reader, start: int, sink: list[Element] | None) -> tuple[Any, bool]:
    """``readKey``'s value part at *start*: (value, True when it returned the raw rest)."""
    r.pos = start
    control = r.byte(start)
    kind = "string" if control is None else CONTROL_KINDS[control]
    value: Any
    if kind == "raw":
        r.pos = start + 1
        r.raw_total += r.end - start
        if r.raw_total > RAW_TOTAL_LIMIT:
            raise DecodeError("raw values repeat the rest of the key: the result would pass "
                              f"{RAW_TOTAL_LIMIT} bytes (it grows with the square of the key)",
                              codec=NAME, offset=start, found=r.data[start:start + 16],
                              expected="a key whose raw values do not repeat it this often")
        value = r.data[start:]
        if sink is not None:
            sink.append(Element(kind, start, r.end, value))
        return value, True
    if kind in ("null", "false", "true", "symbol"):
        r.pos = start + 1
        value = {"null": None, "false": False, "true": True}.get(kind)
        if kind == "symbol":
            value = JsSymbol(r.string())
    elif kind in ("number", "negative"):
        assert control is not None
        value = r.number(start, control)
    else:
        if control == STRING_PREFIX:
            r.pos += 1
        value = r.string()
        if r.pos < r.end:
            r.pos -= 1  # the byte that ended the string counts as the separator
    if sink is not None:
        sink.append(Element(kind, start, min(r.pos, r.end), value))
    return value, False


def decode_key(data: bytes, sink: list[Element] | None = None) -> tuple[Any, ...]:
    """The values of the key *data*, as ``fromBufferKey`` returns them (always a tuple)."""
    r = _Reader(data)
    first, raw = _read(r, 0, sink)
    if raw:
        return (first,)
    values = [first]
    while r.pos < r.end:
        if r.data[r.pos] == 0:
            r.pos += 1
        value, raw = _read(r, r.pos, sink)
        if not raw and r.pos < r.end and r.data[r.pos] == 0:
            r.pos += 1  # the nested readKey skips one separator before it returns
        values.append(value)
    return tuple(values)



# -- with a schema: a strict reader ---------------------------------------------------------
#
# A schema says how many values a key holds and of which types, so a key can be read without
# the guesses of readKey: each field's value is read by its type, a 00 must separate two
# values, and nothing may be left. The caller (``codec.BoundOrderedBinary``) then encodes
# the values again and refuses a key that does not come back byte for byte, so a bound decode
# gives the one value tuple a key was written from, or a DecodeError: more exact than
# lmdb-js's reader (-0.0, late nulls and ints that are doubles come back as written).

FieldReader = Callable[[_Reader, int, bool, bool], tuple[Any, int]]


def _missing(r: _Reader, at: int, what: str) -> DecodeError:
    return DecodeError(f"the key ends where {what} should start", codec=NAME, offset=at,
                       found=b"", expected=what)


def _bad_start(r: _Reader, at: int, field_type: str) -> DecodeError:
    return DecodeError(f"byte {r.data[at]:02x} does not start {with_article(field_type)} value",
                       codec=NAME, offset=at, found=r.data[at:at + 1],
                       expected=f"{with_article(field_type)} value or 00 (null)")


def _number_span(r: _Reader, at: int, bare: bool) -> int:
    """Where the 9-byte body of a number at *at* ends: 9 bytes, fewer only for a bare
    number at the end of the key."""
    if at + 9 <= r.end:
        return at + 9
    if bare:
        return r.end
    raise DecodeError("truncated number", codec=NAME, offset=at, found=r.data[at:],
                      expected="9 bytes in an array")


def _number_bits(r: _Reader, at: int, stop: int) -> int:
    body = int.from_bytes(r.data[at:stop] + bytes(9 - (stop - at)), "big")
    bits = (body >> 4) & 0xFFFF_FFFF_FFFF_FFFF
    return bits ^ 0x7FFF_FFFF_FFFF_FFFF if body >> 68 == 0 else bits


def _read_float(r: _Reader, at: int, last: bool, bare: bool) -> tuple[Any, int]:
    stop = _number_span(r, at, bare)
    return float(_D.unpack(_Q.pack(_number_bits(r, at, stop)))[0]), stop


def _read_int(r: _Reader, at: int, last: bool, bare: bool) -> tuple[Any, int]:
    stop = _number_span(r, at, bare)
    bits = _number_bits(r, at, stop)
    base = float(_D.unpack(_Q.pack(bits))[0])
    if not math.isfinite(base) or not base.is_integer():
        raise DecodeError(f"{base!r} is not an integer", codec=NAME, offset=at,
                          found=r.data[at:stop], expected="an int")
    value = int(base)
    tail = stop
    while tail < r.end and r.data[tail] >= 0x80:
        tail += 1
    if tail > stop:  # a BigInt: the remainder's top bits in byte 9, then 7-bit groups
        exponent = ((bits >> 52) & 0x7FF) - BIGINT_SHIFT
        value += _shift(r.data[stop - 1] & 0xF, exponent)
        for k in range(stop, tail):
            by = exponent - 7 * (k - stop + 1)
            if by > -7:
                value += _shift(r.data[k] & 0x7F, by)
    return value, tail


def _read_bool(r: _Reader, at: int, last: bool, bare: bool) -> tuple[Any, int]:
    return r.data[at] == TRUE, at + 1


def _read_string(r: _Reader, at: int, last: bool, bare: bool) -> tuple[Any, int]:
    r.pos = at + 1 if r.data[at] == STRING_PREFIX else at
    value = r.string()
    # the byte that ended the string is the next separator (or the end of the key)
    return value, r.pos - 1 if r.pos <= r.end else r.end


def _read_bytes(r: _Reader, at: int, last: bool, bare: bool) -> tuple[Any, int]:
    if last:
        return r.data[at:], r.end
    stop = r.data.find(SEPARATOR, at)
    stop = r.end if stop < 0 else stop
    return r.data[at:stop], stop


#: field type -> its reader: ``read(reader, offset, last_field, bare) -> (value, end)``
FIELD_READERS: Final[dict[str, FieldReader]] = {
    "string": _read_string,
    "bytes": _read_bytes,
    "bool": _read_bool,
    "float64": _read_float,
    "int": _read_int,
}


def _is_null(r: _Reader, at: int, field_type: str, last: bool) -> bool:
    """00 is NULL; in a bytes field only when it cannot be the start of raw bytes (the last
    field is exactly ``00``; another is ``00`` followed by the separator)."""
    if r.data[at] != NULL:
        return False
    if field_type != "bytes":
        return True
    if last:
        return at + 1 == r.end
    return at + 1 < r.end and r.data[at + 1] == SEPARATOR


def decode_fields(data: bytes, field_types: Sequence[str], bare: bool) -> tuple[Any, ...]:
    """The values of *data* read field by field (*bare*: the one field is not in an array).
    Strict: wrong type bytes, a missing separator or bytes left over are DecodeErrors."""
    r = _Reader(data)
    values: list[Any] = []
    at = 0
    count = len(field_types)
    for i, field_type in enumerate(field_types):
        if i:
            if at >= r.end or data[at] != SEPARATOR:
                raise DecodeError("no 00 between two values", codec=NAME, offset=at,
                                  found=data[at:at + 1], expected=f"00, then value {i}")
            at += 1
        last = i == count - 1
        if at >= r.end:
            if field_type != "bytes":
                raise _missing(r, at, f"value {i} ({field_type})")
            values.append(b"")
            continue
        if _is_null(r, at, field_type, last):
            values.append(None)
            at += 1
            continue
        if data[at] not in FIELD_STARTS[field_type]:
            raise _bad_start(r, at, field_type)
        value, at = FIELD_READERS[field_type](r, at, last, bare)
        values.append(value)
    if at != r.end:
        raise DecodeError("bytes left after the last field", codec=NAME, offset=at,
                          found=data[at:], expected="the end of the key")
    return tuple(values)
