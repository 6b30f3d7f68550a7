"""The readable ``tidb`` encoder: the executable spec of writing, and its only error shaper.

Theory of operation: a field kind (``format.py``) picks a table of writers keyed by the
value's exact type (:data:`KIND_WRITERS`); a value whose exact type is not there (a subclass,
a bool, another type) goes to :func:`_fallback`, which reads a subclass as its plain type
(:func:`lexcodecs.codec.plain_value`, never through a method the subclass overrides) or
refuses it. Each writer returns the whole datum: flag and payload. NULL is ``00`` in every
field. The compiled module writes the same bytes and hands every value it does not take as
its own to these functions.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import struct
from collections.abc import Callable
from typing import Any, Final

from ...codec import buffer_value, plain_value
from ...errors import EncodeError, UnsupportedTypeError, with_article
from ...types import Float32
from .format import (
    BYTES_FLAG,
    DECIMAL_FLAG,
    DECIMAL_SIGN,
    DIG2BYTES,
    DIGITS_PER_WORD,
    DURATION_FLAG,
    FLOAT_FLAG,
    GROUP_SIZE,
    HMS_BITS,
    HOUR_SHIFT,
    INT64_MAX,
    INT64_MIN,
    INT_FLAG,
    KIND_BYTES,
    KIND_DECIMAL,
    KIND_DURATION,
    KIND_FLOAT32,
    KIND_FLOAT64,
    KIND_INT64,
    KIND_STRING,
    KIND_TIMESTAMP,
    KIND_UINT64,
    MARKER,
    MAX_FRAC,
    MAX_PRECISION,
    MICRO_BITS,
    MINUTE_SHIFT,
    MONTHS_PER_YEAR_SLOT,
    NIL_FLAG,
    NS_PER_US,
    SIGN_BIT,
    UINT64_MAX,
    UINT_FLAG,
    WORD_SIZE,
)

__all__ = ["KIND_WRITERS", "decimal_body", "decimal_shape", "encode_groups", "field_writer",
           "int_part", "pack_time", "write_int64"]

Writer = Callable[[Any], bytes]

_Q: Final = struct.Struct(">Q")
_D: Final = struct.Struct(">d")
_NULL: Final = bytes((NIL_FLAG,))
_INT: Final = bytes((INT_FLAG,))
_UINT: Final = bytes((UINT_FLAG,))
_FLOAT: Final = bytes((FLOAT_FLAG,))
_DURATION: Final = bytes((DURATION_FLAG,))
_BYTES: Final = bytes((BYTES_FLAG,))
_US: Final = _dt.timedelta(microseconds=1)
_UTC: Final = _dt.UTC
#: the last group's marker, by how many data bytes it holds (0..7)
_LAST_MARKER: Final = tuple(bytes((MARKER - (GROUP_SIZE - n),)) for n in range(GROUP_SIZE))
_FULL_MARKER: Final = bytes((MARKER,))


def int_part(v: int) -> bytes:
    """``int(x)`` of the spec: the int64 with its sign bit flipped, 8 bytes, no flag."""
    return _Q.pack(v ^ SIGN_BIT if v >= 0 else (v + SIGN_BIT))


# -- numbers (spec §4, §5) ------------------------------------------------------------------


def write_int64(v: int) -> bytes:
    if not INT64_MIN <= v <= INT64_MAX:
        raise EncodeError("out of range for int64", value=v,
                          expected=f"{INT64_MIN}..{INT64_MAX} (TiDB's BIGINT)")
    return _INT + int_part(v)


def write_uint64(v: int) -> bytes:
    if not 0 <= v <= UINT64_MAX:
        raise EncodeError("out of range for uint64", value=v,
                          expected=f"0..{UINT64_MAX} (TiDB's BIGINT UNSIGNED)")
    return _UINT + _Q.pack(v)


def float_bits(x: float) -> int:
    """TiDB's ``EncodeFloat``: the sign bit set when ``x >= 0`` (so -0.0 too), every bit
    inverted otherwise: false for every NaN, so a positive-sign NaN lands among the
    subnormals (a declared anomaly)."""
    u: int = _Q.unpack(_D.pack(x))[0]
    return u | SIGN_BIT if x >= 0 else u ^ 0xFFFFFFFFFFFFFFFF


def write_float(x: float) -> bytes:
    return _FLOAT + _Q.pack(float_bits(x))


def write_float32(x: float) -> bytes:
    """A FLOAT is widened to float64 (Go's ``float64(float32)``): the double it equals."""
    if not Float32.is_exact(x):
        raise EncodeError("not a float32 value", value=x,
                          expected="a Float32, or a float a binary32 holds exactly")
    return write_float(x)


# -- bytes (spec §3) ------------------------------------------------------------------------


def encode_groups(data: bytes) -> bytes:
    """The 8-byte groups of *data*, each followed by its marker (no flag).

    >>> encode_groups(b"abc").hex(" ")
    '61 62 63 00 00 00 00 00 fa'
    """
    out = []
    n = len(data)
    full = n - n % GROUP_SIZE
    for i in range(0, full, GROUP_SIZE):
        out.append(data[i:i + GROUP_SIZE])
        out.append(_FULL_MARKER)
    rest = n - full
    out.append(data[full:] + bytes(GROUP_SIZE - rest))
    out.append(_LAST_MARKER[rest])
    return b"".join(out)


def write_bytes(v: bytes) -> bytes:
    return _BYTES + encode_groups(v)


def write_text(v: str) -> bytes:
    try:
        data = v.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EncodeError("lone surrogate is not encodable as UTF-8",
                          value=v[exc.start:exc.end],
                          expected="a str without lone surrogates") from None
    return _BYTES + encode_groups(data)


# -- decimal (spec §6) ----------------------------------------------------------------------


def decimal_shape(d: decimal.Decimal) -> tuple[bool, str, str]:
    """(negative, integer digits without leading zeros, fraction digits as written) of a
    finite Decimal; refuses NaN and the infinities (MySQL has none)."""
    if not d.is_finite():
        raise EncodeError("not a finite decimal (MySQL's DECIMAL has no NaN or infinity)",
                          value=d, expected="a finite Decimal")
    sign, digit_tuple, exponent = d.as_tuple()
    assert isinstance(exponent, int)
    # bounded before the digits are spread: a huge exponent would make a huge string
    if exponent > MAX_PRECISION or len(digit_tuple) + max(0, -exponent) > 10 * MAX_PRECISION:
        raise EncodeError("more digits than a DECIMAL holds ([types:1]Bad Number)", value=d,
                          expected=f"at most {MAX_PRECISION} digits")
    digits = "".join(map(str, digit_tuple))
    if exponent >= 0:
        whole, frac = digits + "0" * exponent, ""
    else:
        cut = len(digits) + exponent
        whole, frac = (digits[:cut], digits[cut:]) if cut > 0 else ("", "0" * -cut + digits)
    whole = whole.lstrip("0")
    negative = bool(sign) and bool((whole + frac).strip("0"))  # -0 is written as 0
    return negative, whole, frac


def decimal_body(negative: bool, whole: str, frac: str, precision: int, scale: int) -> bytes:
    """MySQL's binary decimal of ±whole.frac in (precision, scale), *whole* and *frac*
    already fitted (at most precision - scale and scale digits)."""
    int_digits = precision - scale
    lead = int_digits % DIGITS_PER_WORD
    trail = scale % DIGITS_PER_WORD
    whole = whole.rjust(int_digits, "0")
    frac = frac.ljust(scale, "0")
    out = bytearray()
    if lead:
        out += int(whole[:lead]).to_bytes(DIG2BYTES[lead], "big")
    for i in range(lead, int_digits, DIGITS_PER_WORD):
        out += int(whole[i:i + DIGITS_PER_WORD]).to_bytes(WORD_SIZE, "big")
    full = scale - trail
    for i in range(0, full, DIGITS_PER_WORD):
        out += int(frac[i:i + DIGITS_PER_WORD]).to_bytes(WORD_SIZE, "big")
    if trail:
        out += int(frac[full:]).to_bytes(DIG2BYTES[trail], "big")
    if negative:
        out = bytearray(b ^ 0xFF for b in out)
    out[0] ^= DECIMAL_SIGN
    return bytes(out)


def decimal_writer(precision: int | None, scale: int | None) -> Writer:
    """The writer of a decimal field: in (precision, scale) when the field fixes them, else
    in the value's own shape (spec §6)."""
    def write(d: decimal.Decimal) -> bytes:
        negative, whole, frac = decimal_shape(d)
        if precision is None or scale is None:
            p, f = max(1, len(whole) + len(frac)), len(frac)
            if p > MAX_PRECISION:
                raise EncodeError("more digits than a DECIMAL holds ([types:1]Bad Number)",
                                  value=d, expected=f"at most {MAX_PRECISION} digits")
            if f > MAX_FRAC:
                raise EncodeError(f"more than {MAX_FRAC} fraction digits (TiDB caps a "
                                  "decimal's frac at 30)", value=d,
                                  expected=f"at most {MAX_FRAC} digits after the point")
        else:
            p, f = precision, scale
            if len(whole) > p - f:
                raise EncodeError(f"out of range for DECIMAL({p},{f}): {len(whole)} integer "
                                  "digits ([types:1690] value is out of range)", value=d,
                                  expected=f"at most {p - f} integer digits")
            if frac[f:].strip("0"):
                raise EncodeError(f"more fraction digits than DECIMAL({p},{f}) keeps "
                                  "([types:1265] Data Truncated)", value=d,
                                  expected=f"a value rounded to {f} fraction digits")
            frac = frac[:f]
        return bytes((DECIMAL_FLAG, p, f)) + decimal_body(negative, whole, frac, p, f)
    return write


# -- time (spec §4, §7) ---------------------------------------------------------------------


def write_duration(v: _dt.timedelta) -> bytes:
    ns = (v // _US) * NS_PER_US  # exact integers, never a float
    if not INT64_MIN <= ns <= INT64_MAX:
        raise EncodeError("duration outside the int64 nanosecond range", value=v,
                          expected="a duration within ±2**63 ns (about ±106751 days)")
    return _DURATION + int_part(ns)


def pack_time(t: _dt.datetime) -> int:
    """The packed uint64 of a wall clock (``types.Time.ToPackedUint``)."""
    ymd = ((t.year * MONTHS_PER_YEAR_SLOT + t.month) << 5) | t.day
    hms = (t.hour << HOUR_SHIFT) | (t.minute << MINUTE_SHIFT) | t.second
    return (((ymd << HMS_BITS) | hms) << MICRO_BITS) | t.microsecond


def write_timestamp(v: _dt.datetime) -> bytes:
    try:
        # utcoffset() runs the tzinfo's code, which may fail in any way: say so, typed
        offset = v.utcoffset()
    except Exception as exc:
        raise EncodeError(f"the datetime's utcoffset() failed ({type(exc).__name__})",
                          value=v, expected="a timezone-aware datetime") from None
    if offset is None:
        raise EncodeError("naive datetime refused: a TIMESTAMP is an instant, stored as its "
                          "UTC wall clock", value=v, expected="a timezone-aware datetime")
    try:
        utc = v.replace(tzinfo=None) - offset
    except OverflowError:
        raise EncodeError("the instant is outside years 1..9999 in UTC", value=v,
                          expected="a datetime whose UTC time is in years 1..9999") from None
    return _UINT + _Q.pack(pack_time(utc))


# -- per field kind -------------------------------------------------------------------------

_TYPE_NAMES: Final[dict[int, str]] = {
    KIND_INT64: "int", KIND_UINT64: "int", KIND_FLOAT64: "float", KIND_FLOAT32: "Float32",
    KIND_STRING: "str (use a bytes field for bytes)",
    KIND_BYTES: "bytes (use a string field for str)", KIND_DECIMAL: "decimal.Decimal",
    KIND_DURATION: "datetime.timedelta", KIND_TIMESTAMP: "an aware datetime.datetime",
}
#: kind -> the plain types a subclass of which is read as that type
_BASES: Final[dict[int, tuple[type, ...]]] = {
    KIND_INT64: (int,), KIND_UINT64: (int,), KIND_FLOAT64: (float,), KIND_FLOAT32: (float,),
    KIND_STRING: (str,), KIND_BYTES: (bytes, bytearray, memoryview),
    KIND_DECIMAL: (decimal.Decimal,), KIND_DURATION: (_dt.timedelta,),
    KIND_TIMESTAMP: (_dt.datetime,),
}


def _table(kind: int, precision: int | None, scale: int | None) -> dict[type, Writer]:
    """The writers of a kind, keyed by exact value type."""
    if kind == KIND_INT64:
        return {int: write_int64}
    if kind == KIND_UINT64:
        return {int: write_uint64}
    if kind == KIND_FLOAT64:
        return {float: write_float, Float32: write_float}
    if kind == KIND_FLOAT32:
        # a Float32 by its value, which must be a binary32 (one built around its checks may
        # hold any double)
        return {Float32: lambda v: write_float32(float.__float__(v)), float: write_float32}
    if kind == KIND_STRING:
        return {str: write_text}
    if kind == KIND_BYTES:
        return {bytes: write_bytes, bytearray: lambda v: write_bytes(bytes(v)),
                memoryview: lambda v: write_bytes(buffer_value(v))}
    if kind == KIND_DECIMAL:
        return {decimal.Decimal: decimal_writer(precision, scale)}
    if kind == KIND_DURATION:
        return {_dt.timedelta: write_duration}
    return {_dt.datetime: write_timestamp}


def _fallback(kind: int, field_type: str, table: dict[type, Writer], v: Any) -> bytes:
    """A value whose exact type has no writer: a subclass read as its plain type, or refused."""
    cls = type(v)
    if not issubclass(cls, bool) and issubclass(cls, _BASES[kind]):
        plain = plain_value(v)
        if type(plain) is Float32 and kind == KIND_FLOAT64:
            return write_float(float.__float__(plain))
        writer = table.get(type(plain))
        if writer is not None:
            return writer(plain)
    extra = " (bool is not a number here)" if issubclass(cls, bool) else ""
    raise UnsupportedTypeError(f"{cls.__name__} value in {with_article(field_type)} field{extra}",
                               value=v, expected=_TYPE_NAMES[kind])


#: every kind, for tests and the docs: kind -> the exact types it writes
KIND_WRITERS: Final[dict[int, frozenset[type]]] = {
    kind: frozenset(_table(kind, None, None)) for kind in _BASES}


def field_writer(kind: int, field_type: str, precision: int | None = None,
                 scale: int | None = None) -> Writer:
    """The writer of one schema field: NULL is ``00``, a value is written by the writer of its
    exact type (:func:`_table`), anything else through :func:`_fallback`."""
    table = _table(kind, precision, scale)

    def encode(v: Any) -> bytes:
        if v is None:
            return _NULL
        writer = table.get(type(v))
        if writer is None:
            return _fallback(kind, field_type, table, v)
        return writer(v)
    return encode
