"""The reference ``orderedcode`` encoder: readable Python, the executable spec of writing.

Theory of operation: one writer per field kind (:data:`WRITERS`) turns a value into its
ascending item; :func:`field_writer` inverts it for a descending field (Go's ``Decr``). Reading
is :mod:`.reference_decode`.

This is the only code that words an encoding error. Values are read for what they are, never
through user code: a subclass of ``int``/``str``/``float``/``bytes`` is read through the base
type's own method. Exact types are chosen through dicts keyed by ``type(value)`` (``bool`` is
an ``int`` and is refused in integer fields).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, Final

from ..._bytes import invert
from ...codec import bytes_value, float_holds, text_value
from ...errors import EncodeError, UnsupportedTypeError, with_article
from ...types import Float32, InfinitySentinel
from .format import (
    ESCAPED_00,
    ESCAPED_FF,
    INFINITY_BYTES,
    INT64_MAX,
    INT64_MIN,
    INT64_SIZES,
    KIND_BYTES,
    KIND_FLOAT64,
    KIND_INT64,
    KIND_STRING,
    KIND_TRAILING_BYTES,
    KIND_TRAILING_STRING,
    KIND_UINT64,
    TERMINATOR,
    UINT64_MAX,
    FieldCode,
)

Writer = Callable[[Any], bytes]

_D: Final = struct.Struct(">d")
_Q: Final = struct.Struct(">Q")


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
            f"{type(v).__name__} is not {with_article(field_type)} value"
            + (" (bool is refused in integer fields)" if type(v) is bool else ""),
            value=v, expected="int")
    else:
        n = int.__int__(v)  # a subclass (IntEnum, Int64...): its int value, no user code
    if not lo <= n <= hi:
        raise EncodeError(f"out of range for {field_type}", value=n, expected=f"{lo}..{hi}")
    return n


def _float_of_int(v: Any) -> float:
    n = int.__int__(v)
    if not float_holds(n):
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
    return text_value(v, "str or INFINITY (use a bytes field for bytes)")


def _bytes_value(v: Any) -> bytes:
    return bytes_value(v, "bytes or INFINITY (use a string field for str)")


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
