"""The readable ``hbase-orderedbytes`` decoder: the executable spec of reading, and its only
error shaper.

Theory of operation: a reader takes ``(key, pos, parts)`` and returns ``(value, next
offset)``; *parts*, when not ``None``, collects :class:`~lexcodecs.inspection.Part` s for
``inspect``. :func:`field_reader` builds one schema field's reader from :data:`KIND_READERS`
(the value's reader, keyed by field kind) and a table of the ascending headers the kind
admits; a descending field is read by the same ascending reader over the complemented rest
of the key (:func:`read_descending`, offsets unchanged).

Decoding is strict and linear in the key: only the canonical form HBase's encoder writes is
accepted (shortest varints, the medium classes for 1 <= E <= 10, M without a leading or
trailing zero centimal digit and with at most 31 significant digits, canonical BlobVar
padding, valid UTF-8), and a number is built from its digit string in one step: never the
digit-by-digit ``BigDecimal`` sum HBase's decoder runs, which is quadratic in E.

Where HBase's decoder is lossy this one is exact: an ``int64``/``int`` field gives the
integer (``decodeNumericAsLong`` truncates and wraps; a non-integer or out-of-range number is
refused here), and a descending NULL BlobCopy ``fa ff`` is read whole (HBase stops after
``fa``). A float field with ``encoding=numeric`` reads any number, rounded to the nearest
double (``decodeNumericAsDouble``), and gives a float under ``api="struct"`` too, where
HBase's ``Struct.decode`` gives the BigDecimal of the same digits. A descending BlobCopy is
refused unless it ends the key, as HBase's decoder fails on it.
"""

from __future__ import annotations

import decimal
import functools
import math
import struct
from collections.abc import Callable
from functools import partial
from typing import Any, Final

from ..._bytes import invert, unorder_bits
from ...errors import DecodeError, with_article
from ...inspection import Part
from ...types import Float32
from ..sqlite4.reference_decode import read_varint
from .format import (
    BITS7,
    BLOB_COPY,
    BLOB_VAR,
    DIGIT_PAIR,
    EVEN_MARK,
    FIXED_FLOATS,
    FIXED_INTS,
    GROUP_MARK,
    HEADER_NAMES,
    KIND_BIGINT,
    KIND_BLOB_COPY,
    KIND_BLOB_VAR,
    KIND_DECIMAL,
    KIND_FIXED_FLOAT,
    KIND_FIXED_INT,
    KIND_NAMES,
    KIND_NUM_FLOAT32,
    KIND_NUM_FLOAT64,
    KIND_NUM_INT64,
    KIND_STRING,
    MAX_DIGITS,
    MAX_E,
    MAX_INT_DIGITS,
    MEDIUM_MAX_E,
    MIN_EXP,
    NAN,
    NEG_INF,
    NEG_LARGE,
    NEG_MEDIUM,
    NULL,
    NUMBER_HEADERS,
    ONE_FROM_BELOW_M,
    POS_INF,
    POS_LARGE,
    POS_MEDIUM,
    POS_SMALL,
    TEXT,
    U64_MASK,
    ZERO,
)

__all__ = ["KIND_READERS", "Parsed", "field_reader", "read_number"]

Parts = list[Part] | None
Reader = Callable[[bytes, int, Parts], tuple[Any, int]]
#: a number as read: (special, negative, digits, exponent); *special* names NaN, the
#: infinities and zero, else the value is -+ int(digits) * 10**exponent
Parsed = tuple[str | None, bool, str, int]
_F32, _U32 = struct.Struct(">f"), struct.Struct(">I")
_F64, _U64 = struct.Struct(">d"), struct.Struct(">Q")


def truncated(key: bytes, what: str) -> DecodeError:
    return DecodeError(f"truncated: {what}", offset=len(key), found=b"", expected="more bytes")


def _note(parts: Parts, start: int, end: int, role: str, text: str) -> None:
    if parts is not None:
        parts.append(Part(start, end, role, text))


# -- varint: the exponent's is SQLite4's (sqlite4.reference_decode.read_varint) ---------------


# -- numbers ----------------------------------------------------------------------------------

_SPECIAL: Final[dict[int, Parsed]] = {
    NAN: ("nan", False, "", 0), NEG_INF: ("-inf", True, "", 0),
    POS_INF: ("inf", False, "", 0), ZERO: ("zero", False, "", 0)}


def read_mantissa(key: bytes, start: int, negative: bool, parts: Parts) -> tuple[str, int]:
    """(the decimal digits of M, two per byte; offset after M) of the M at *start*."""
    rest = invert(key[start:start + MAX_DIGITS + 2]) if negative else \
        key[start:start + MAX_DIGITS + 2]
    end = rest.translate(EVEN_MARK).find(0)
    if end < 0:
        if len(rest) >= (MAX_DIGITS + 1) // 2 + 1:
            raise DecodeError("mantissa longer than HBase's 31 digits", offset=start,
                              found=key[start:start + len(rest)], expected="at most 16 bytes")
        raise truncated(key, "mantissa continues (odd byte) but the key ends")
    m = rest[:end + 1]
    if max(m) > 0xC7:
        at = next(i for i, b in enumerate(m) if b > 0xC7)
        raise DecodeError(f"mantissa byte {m[at]:02x}: centimal digit {m[at] >> 1} > 99",
                          offset=start + at, found=key[start + at:start + at + 1],
                          expected="a mantissa byte <= c7" + (" (inverted)" if negative else ""))
    if m[0] < 2:
        raise DecodeError("non-canonical: first centimal digit is 0", offset=start,
                          found=key[start:start + 1], expected="a non-zero leading digit")
    if m[end] == 0:
        raise DecodeError("non-canonical: last centimal digit is 0", offset=start + end,
                          found=key[start + end:start + end + 1],
                          expected="a non-zero last digit")
    digits = m.translate(DIGIT_PAIR).hex()
    if len(digits.lstrip("0").rstrip("0")) > MAX_DIGITS:
        raise DecodeError("mantissa of more than 31 significant digits (HBase rounds to 31)",
                          offset=start, found=key[start:start + end + 1],
                          expected="at most 31 digits")
    _note(parts, start, start + end + 1, "mantissa",
          f"centimal digits {' '.join(str(b >> 1) for b in m)} (2d+1 each, 2d the last)"
          + (", inverted (negative)" if negative else ""))
    return digits, start + end + 1


def _one_from_below(key: bytes, pos: int, start: int, negative: bool, parts: Parts
                    ) -> tuple[Parsed, int]:
    """The small class with the exponent varint 2**64 - 1 (E = -1), read up to *start*:
    HBase's key of a value in [1 - 5E-32, 1) rounded up to 1 (format.ONE_FROM_BELOW_E). It
    reads as +-1, as HBase's decoder reads it, with exactly the M HBase writes after it (01);
    any other is refused."""
    m = ONE_FROM_BELOW_M ^ (0xFF if negative else 0)
    if start >= len(key):
        raise truncated(key, "mantissa missing")
    if key[start] != m:
        raise DecodeError("after the exponent 2**64 - 1 (E = -1) HBase writes only the "
                          "mantissa 01 (a value below 1 rounded up to 1)", offset=start,
                          found=key[start:start + 1], expected=f"{m:02x}")
    _note(parts, pos + 1, start, "exponent",
          "E=-1 (2**64 - 1: HBase's putVaruint64 of a negative long; a value below 1 "
          "rounded up to 1)" + (", complemented" if not negative else ""))
    _note(parts, start, start + 1, "mantissa", "centimal digits 1 (2d the last)"
          + (", inverted (negative)" if negative else ""))
    return (None, negative, "1", 0), start + 1


def read_number(key: bytes, pos: int, parts: Parts) -> tuple[Parsed, int]:
    """The number whose (ascending) header is at *pos*, and the offset after it."""
    h = key[pos]
    _note(parts, pos, pos + 1, "header", HEADER_NAMES[h])
    special = _SPECIAL.get(h)
    if special is not None:
        return special, pos + 1
    negative = h < ZERO
    start = pos + 1
    if POS_MEDIUM < h <= POS_MEDIUM + MEDIUM_MAX_E:
        e, large = h - POS_MEDIUM, True
    elif NEG_MEDIUM - MEDIUM_MAX_E <= h < NEG_MEDIUM:
        e, large = NEG_MEDIUM - h, True
    else:  # the exponent is a varint, complemented where a larger E sorts lower
        large = h in (POS_LARGE, NEG_LARGE)
        complemented = h in (NEG_LARGE, POS_SMALL)
        e, start = read_varint(key, start, complemented, "exponent")
        if not large and e == U64_MASK:
            return _one_from_below(key, pos, start, negative, parts)
        if large and e <= MEDIUM_MAX_E:
            raise DecodeError(f"non-canonical: large form with E={e} (HBase writes the "
                              "medium form)", offset=pos + 1, found=key[pos + 1:start],
                              expected="E >= 11 in the large form")
        if e > MAX_E:
            raise DecodeError(f"exponent {e} beyond HBase's range", offset=pos + 1,
                              found=key[pos + 1:start], expected=f"E <= {MAX_E}")
        _note(parts, pos + 1, start, "exponent",
              f"E={e}" + (", complemented" if complemented else ""))
    digits, end = read_mantissa(key, start, negative, parts)
    stripped = digits.rstrip("0")
    # large/medium: 0.<digits> x 100**E; small: 0.<digits> / 100**E
    exponent = (2 * e if large else -2 * e) - len(stripped)
    if exponent < MIN_EXP:
        raise DecodeError("number beyond HBase's range: its last digit is below 1E"
                          f"{MIN_EXP} (Java BigDecimal scale overflow)", offset=pos,
                          found=key[pos:end], expected=f"a last digit of at least 1E{MIN_EXP}")
    return (None, negative, stripped.lstrip("0"), exponent), end


_DECIMAL_SPECIAL: Final[dict[str, Any]] = {
    "nan": math.nan, "-inf": -math.inf, "inf": math.inf, "zero": decimal.Decimal(0)}
_FLOAT_SPECIAL: Final = {"nan": math.nan, "-inf": -math.inf, "inf": math.inf, "zero": 0.0}


def decimal_of(parsed: Parsed) -> Any:
    """The normalized BigDecimal (trailing zeros stripped: ``10`` is ``1E+1``); NaN and the
    infinities as float, as ``OrderedNumeric.decode`` gives a Double for them."""
    special, negative, digits, exponent = parsed
    if special is not None:
        return _DECIMAL_SPECIAL[special]
    return decimal.Decimal(f"{'-' if negative else ''}{digits}E{exponent}")


def int_of(parsed: Parsed, key: bytes, pos: int, end: int, field_type: str) -> int:
    """The integer value; a non-integer, NaN, infinity or huge number is refused."""
    special, negative, digits, exponent = parsed
    if special == "zero":
        return 0
    if special is not None or exponent < 0:
        what = special or "a non-integer"
        raise DecodeError(f"{what} in {with_article(field_type)} field", offset=pos,
                          found=key[pos:end], expected="an integer")
    if len(digits) + exponent > MAX_INT_DIGITS:
        raise DecodeError(f"integer of more than {MAX_INT_DIGITS} digits ({field_type} "
                          "field)", offset=pos, found=key[pos:end],
                          expected="a smaller integer (a decimal field reads any)")
    n: int = int(digits) * 10**exponent
    return -n if negative else n


def float_of(parsed: Parsed) -> float:
    """``BigDecimal.doubleValue()``: correctly rounded, overflow to +-inf."""
    special, negative, digits, exponent = parsed
    if special is not None:
        return _FLOAT_SPECIAL[special]
    if exponent + len(digits) > 400:
        return -math.inf if negative else math.inf
    if exponent + len(digits) < -400:
        return -0.0 if negative else 0.0
    return float(f"{'-' if negative else ''}{digits}e{exponent}")


def _numeric_reader(kind: int, field_type: str) -> Reader:
    def read(key: bytes, pos: int, parts: Parts) -> tuple[Any, int]:
        parsed, end = read_number(key, pos, parts)
        if kind == KIND_DECIMAL:
            return decimal_of(parsed), end
        if kind == KIND_NUM_FLOAT64:
            return float_of(parsed), end
        if kind == KIND_NUM_FLOAT32:
            return Float32(float_of(parsed)), end
        n = int_of(parsed, key, pos, end, field_type)
        if kind == KIND_NUM_INT64:
            lo, hi = FIXED_INTS["int64"][2:]
            if not lo <= n <= hi:
                # the number in the message only while it is short (str() of a huge int fails)
                what = str(n) if n.bit_length() <= 256 else "the number"
                raise DecodeError(f"{what} is out of range for int64", offset=pos,
                                  found=key[pos:end], expected=f"{lo}..{hi}")
        return n, end
    return read


# -- fixed-width types ------------------------------------------------------------------------


def _fixed_int_reader(field_type: str) -> Reader:
    _, width, lo, _ = FIXED_INTS[field_type]

    def read(key: bytes, pos: int, parts: Parts) -> tuple[Any, int]:
        end = pos + 1 + width
        if end > len(key):
            raise truncated(key, f"{field_type} of {width} bytes")
        _note(parts, pos, pos + 1, "header", field_type)
        _note(parts, pos + 1, end, "payload", "big-endian, sign bit flipped")
        return int.from_bytes(key[pos + 1:end], "big") + lo, end
    return read


def _fixed_float_reader(field_type: str) -> Reader:
    _, width, nan_bits = FIXED_FLOATS[field_type]

    def read(key: bytes, pos: int, parts: Parts) -> tuple[Any, int]:
        end = pos + 1 + width
        if end > len(key):
            raise truncated(key, f"{field_type} of {width} bytes")
        bits = unorder_bits(int.from_bytes(key[pos + 1:end], "big"), width)
        exp_mask = 0x7F800000 if width == 4 else 0x7FF0000000000000
        mant_mask = 0x007FFFFF if width == 4 else 0x000FFFFFFFFFFFFF
        if bits & exp_mask == exp_mask and bits & mant_mask and bits != nan_bits:
            raise DecodeError(f"non-canonical NaN (HBase writes every NaN as {nan_bits:x})",
                              offset=pos + 1, found=key[pos + 1:end], expected="a canonical NaN")
        _note(parts, pos, pos + 1, "header", field_type)
        _note(parts, pos + 1, end, "payload", "IEEE bits, order transform")
        if width == 4:
            return Float32.from_bits(bits), end
        return float(_F64.unpack(_U64.pack(bits))[0]), end
    return read


# -- text and blobs -------------------------------------------------------------------------


def read_text(key: bytes, pos: int, parts: Parts) -> tuple[Any, int]:
    end = key.find(b"\x00", pos + 1)
    if end < 0:
        raise truncated(key, "unterminated text")
    try:
        text = key[pos + 1:end].decode("utf-8")
    except UnicodeDecodeError as exc:
        at = pos + 1 + exc.start
        raise DecodeError(f"invalid UTF-8 in text ({exc.reason})", offset=at,
                          found=key[at:at + 1], expected="UTF-8") from None
    _note(parts, pos, pos + 1, "header", "text")
    if end > pos + 1:
        _note(parts, pos + 1, end, "payload", "UTF-8")
    _note(parts, end, end + 1, "terminator", "end of text")
    return text, end + 1


def read_blob_var(key: bytes, pos: int, parts: Parts) -> tuple[Any, int]:
    start = pos + 1
    k = key[start:].translate(GROUP_MARK).find(0)
    if k < 0:
        raise truncated(key, "BlobVar without its last group (bit 7 clear)")
    stop = start + k + 1  # after the last group
    groups = k + 1
    n = 7 * groups // 8
    if n == 0:
        if key[start] != 0:
            raise DecodeError("non-canonical BlobVar: a lone group must be 00 (empty)",
                              offset=start, found=key[start:start + 1], expected="00")
    elif (8 * n + 6) // 7 != groups:
        raise DecodeError("non-canonical BlobVar: a 7-bit group holds no whole byte",
                          offset=stop - 1, found=key[stop - 1:stop], expected="fewer groups")
    bits = "".join(map(BITS7.__getitem__, key[start:stop]))  # linear, unlike big-int shifts
    pad = 7 * groups - 8 * n
    if n and "1" in bits[8 * n:]:
        raise DecodeError("non-canonical BlobVar: padding bits are not zero", offset=stop - 1,
                          found=key[stop - 1:stop], expected=f"the low {pad} bit(s) zero")
    data = int(bits[:8 * n], 2).to_bytes(n, "big") if n else b""
    _note(parts, pos, pos + 1, "header", "BlobVar")
    _note(parts, start, stop, "payload", f"{groups} 7-bit group(s) holding {n} byte(s)")
    return data, stop


def read_blob_copy(key: bytes, pos: int, parts: Parts) -> tuple[Any, int]:
    _note(parts, pos, pos + 1, "header", "BlobCopy")
    if len(key) > pos + 1:
        _note(parts, pos + 1, len(key), "payload", "raw bytes to the end of the key")
    return key[pos + 1:], len(key)


def read_blob_copy_desc(key: bytes, pos: int, parts: Parts) -> tuple[Any, int]:
    """A descending BlobCopy, as read over the inverted key: ``38 raw 00`` where the 00 is
    the key's last byte, as HBase reads it (every remaining byte but one)."""
    end = key.find(b"\x00", pos + 1)
    if end < 0:
        raise truncated(key, "descending BlobCopy without its terminator")
    if end != len(key) - 1:
        raise DecodeError("bytes after a descending BlobCopy: HBase's decoder takes every "
                          "remaining byte but one, so no field can follow it",
                          offset=end + 1, found=key[end + 1:end + 2], expected="end of key")
    _note(parts, pos, pos + 1, "header", "BlobCopy")
    if end > pos + 1:
        _note(parts, pos + 1, end, "payload", "raw bytes (no 00)")
    _note(parts, end, end + 1, "terminator", "end of the BlobCopy")
    return key[pos + 1:end], end + 1


def _numeric_factory(kind: int, field_type: str, descending: bool) -> Reader:
    return _numeric_reader(kind, field_type)


# -- per field kind ---------------------------------------------------------------------------

#: kind -> (the ascending headers it admits, a factory of its reader given the field type and
#: the direction)
KIND_READERS: Final[dict[int, tuple[frozenset[int], Callable[[str, bool], Reader]]]] = {
    **{k: (NUMBER_HEADERS, partial(_numeric_factory, k))
       for k in (KIND_DECIMAL, KIND_BIGINT, KIND_NUM_INT64, KIND_NUM_FLOAT64,
                 KIND_NUM_FLOAT32)},
    KIND_FIXED_INT: (frozenset(h for h, *_ in FIXED_INTS.values()),
                     lambda t, desc: _fixed_int_reader(t)),
    KIND_FIXED_FLOAT: (frozenset(h for h, *_ in FIXED_FLOATS.values()),
                       lambda t, desc: _fixed_float_reader(t)),
    KIND_STRING: (frozenset({TEXT}), lambda t, desc: read_text),
    KIND_BLOB_VAR: (frozenset({BLOB_VAR}), lambda t, desc: read_blob_var),
    KIND_BLOB_COPY: (frozenset({BLOB_COPY}),
                     lambda t, desc: read_blob_copy_desc if desc else read_blob_copy),
}


def read_descending(read: Reader, key: bytes, pos: int, parts: Parts) -> tuple[Any, int]:
    """Read a descending value with the ascending reader *read*: complement the rest of the
    key (offsets kept); an error shows the bytes as they are in the key."""
    plain = b"\x00" * pos + invert(key[pos:])
    try:
        return read(plain, pos, parts)
    except DecodeError as exc:
        if exc.found and exc.offset is not None:
            exc.found = key[exc.offset:exc.offset + len(exc.found)]
        raise


@functools.cache  # a few hundred at most; binding a schema made them anew
def field_reader(kind: int, descending: bool, field_type: str, nullable: bool) -> Reader:
    """The strict reader of one schema field: direction, header and NULL checked (made once
    for each: readers hold no state)."""
    headers, factory = KIND_READERS[kind]
    read_value = factory(field_type, descending)
    if kind == KIND_FIXED_INT:  # exactly its own width: an int32 field never reads an int64
        headers = frozenset({FIXED_INTS[field_type][0]})
    elif kind == KIND_FIXED_FLOAT:
        headers = frozenset({FIXED_FLOATS[field_type][0]})
    table: list[Reader | None] = [None] * 256
    for h in headers:
        table[h] = read_value

    def read_null(key: bytes, pos: int, parts: Parts) -> tuple[Any, int]:
        if kind == KIND_BLOB_COPY and descending:  # fa ff, read here over inverted bytes
            if key[pos + 1:pos + 2] != b"\x00":
                raise DecodeError("a descending NULL BlobCopy is fa ff", offset=pos + 1,
                                  found=key[pos + 1:pos + 2], expected="ff")
            _note(parts, pos, pos + 2, "null", "NULL (fa ff: NULL and the terminator, "
                  "inverted)")
            return None, pos + 2
        _note(parts, pos, pos + 1, "null", "NULL, sorting " + ("last" if descending
                                                               else "first"))
        return None, pos + 1

    if nullable:
        table[NULL] = read_null

    def read_ascending(key: bytes, pos: int, parts: Parts) -> tuple[Any, int]:
        if pos >= len(key):
            raise truncated(key, "the key ends before the field")
        reader = table[key[pos]]
        if reader is None:
            raise _mismatch(key, pos, kind, field_type, descending)
        return reader(key, pos, parts)

    if descending:
        def read(key: bytes, pos: int, parts: Parts = None) -> tuple[Any, int]:
            if pos >= len(key):
                raise truncated(key, "the key ends before the field")
            return read_descending(read_ascending, key, pos, parts)
        return read

    def read_asc(key: bytes, pos: int, parts: Parts = None) -> tuple[Any, int]:
        return read_ascending(key, pos, parts)
    return read_asc


def _mismatch(key: bytes, pos: int, kind: int, field_type: str, descending: bool
              ) -> DecodeError:
    """*key* holds the value in ascending form (a descending one already complemented)."""
    h = key[pos]
    name = HEADER_NAMES.get(h)
    direction = "descending" if descending else "ascending"
    if name is None:
        reason = f"{h:02x} is not a header byte ({direction} field)"
    elif h == NULL:
        reason = f"NULL in a field that has none ({KIND_NAMES[kind]})"
    else:
        reason = f"{name} where the schema declares {field_type} ({direction})"
    found = key[pos:pos + 1]
    return DecodeError(reason, offset=pos, found=found,
                       expected=f"a {direction} {field_type} ({KIND_NAMES[kind]})")
