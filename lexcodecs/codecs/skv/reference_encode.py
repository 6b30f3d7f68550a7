"""The reference ``skv`` encoder: readable Python, the executable spec of writing.

Theory of operation: one writer per field type (:data:`WRITERS`, keyed by field type) turns a
value into its ascending field ``TYPE PAYLOAD 00 01``; :func:`field_encoder` adds the two
per-field strategies, NULL placement (a fixed marker) and descending order (invert the whole
ascending field). Reading is :mod:`.reference_decode`.

This is the only code that words an encoding error: the compiled module hands every value it
does not take as its own to these functions, so both implementations refuse alike. Values are
read for what they are, never through user code: a subclass of ``int``/``str``/``float``/
``bytes`` is read through the base type's own method, and a :class:`Float32` through its float
value, not its ``bits`` slot.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from typing import Any, Final

from ..._bytes import invert, order_bits
from ...codec import bytes_value, float_holds, text_value
from ...errors import EncodeError, UnsupportedTypeError, with_article
from ...types import Float32
from .format import TERMINATOR, FieldLayout, TypeFormat

Writer = Callable[[Any], bytes]

_D = struct.Struct(">d")
_Q = struct.Struct(">Q")
_F = struct.Struct(">f")
_I = struct.Struct(">I")

# -- values: what a Python value means in a field ------------------------------------------


def _is(v: Any, cls: type | tuple[type, ...]) -> bool:
    """Whether *v* really is a *cls* (``isinstance`` would believe a ``__class__`` property,
    and the base type's methods below would then raise a foreign ``TypeError``)."""
    return issubclass(type(v), cls)


def _int_value(v: Any, fmt: TypeFormat) -> int:
    """The exact int an integer field holds for *v*; bool and non-ints refused."""
    if type(v) is int:
        n: int = v
    elif type(v) is bool or not _is(v, int):
        raise UnsupportedTypeError(
            f"{type(v).__name__} is not {with_article(fmt.field_type)} value"
            + (" (bool is refused in integer fields)" if type(v) is bool else ""),
            value=v, expected="int")
    else:
        n = int.__int__(v)  # a subclass (IntEnum, Int16...): its int value, no user code
    if not fmt.lo <= n <= fmt.hi:
        raise EncodeError(f"out of range for {fmt.field_type}", value=n,
                          expected=f"{fmt.lo}..{fmt.hi}")
    return n


def _nan(v: float) -> EncodeError:
    return EncodeError("NaN is not encodable (any sign or payload)", value=v,
                       expected="a number; NaN has no place in the key order")


def _f32_bits(x: float) -> int | None:
    """The binary32 bits of *x*, or ``None`` when *x* is not a binary32 value."""
    if math.isinf(x):
        return 0x7F800000 if x > 0 else 0xFF800000
    try:
        bits: int = _I.unpack(_F.pack(x))[0]
    except OverflowError:  # beyond binary32's range
        return None
    return bits if _F.unpack(_F.pack(x))[0] == x else None


def _float64_of_int(v: Any) -> float:
    n = int.__int__(v)
    # exact ints only: a float64 field never rounds silently
    if not float_holds(n):
        raise EncodeError("integer does not convert to float64 exactly", value=v,
                          expected="an int a float64 holds exactly")
    return float(n)


def _float32_of_int(v: Any) -> float:
    n = int.__int__(v)
    if not float_holds(n, 24, 128):
        raise EncodeError("integer is not exactly representable in binary32", value=v,
                          expected="an int a float32 holds exactly")
    return float(n)


def _float32_of_float(v: Any) -> float:
    x = float.__float__(v)  # the value itself, also of a Float32 (never its bits slot)
    if x == x and _f32_bits(x) is None:
        raise EncodeError("not exactly representable in binary32 (round explicitly "
                          "with Float32)", value=v, expected="a binary32 value")
    return x


#: exact Python type -> the float a float64 field holds for it
FLOAT64_VALUES: Final[dict[type, Callable[[Any], float]]] = {
    float: float.__float__, Float32: float.__float__, int: _float64_of_int}
#: exact Python type -> the float a float32 field holds for it (binary32-exact)
FLOAT32_VALUES: Final[dict[type, Callable[[Any], float]]] = {
    float: _float32_of_float, Float32: _float32_of_float, int: _float32_of_int}


def _float_value(v: Any, table: dict[type, Callable[[Any], float]], field_type: str,
                 expected: str) -> float:
    convert = table.get(type(v))
    if convert is None:
        if _is(v, float):  # a subclass: read as the float it is
            convert = table[float]
        elif _is(v, int) and type(v) is not bool:
            convert = table[int]
        else:
            raise UnsupportedTypeError(f"{type(v).__name__} is not a {field_type} value",
                                       value=v, expected=expected)
    x = convert(v)
    if x != x:
        raise _nan(x)
    return x


# -- writers: one ascending field, TYPE PAYLOAD 00 01 ---------------------------------------


def _escaped(data: bytes) -> bytes:
    return b"\x01" + data.replace(b"\x00", b"\x00\xff") + TERMINATOR


def _string_writer(fmt: TypeFormat) -> Writer:
    return lambda v: _escaped(text_value(v))


def _bytes_writer(fmt: TypeFormat) -> Writer:
    return lambda v: _escaped(bytes_value(v))


def _signed_writer(fmt: TypeFormat) -> Writer:
    rule = fmt.signed
    assert rule is not None
    head = bytes((fmt.type_byte,))

    def write(v: Any) -> bytes:
        sign, payload = rule.sign_and_payload(_int_value(v, fmt))
        return head + bytes((sign,)) + payload.to_bytes(rule.width, "big") + TERMINATOR
    return write


def _unsigned_writer(fmt: TypeFormat) -> Writer:
    head = bytes((fmt.type_byte,))
    return lambda v: head + _int_value(v, fmt).to_bytes(fmt.width, "big") + TERMINATOR


def _bool_writer(fmt: TypeFormat) -> Writer:
    def write(v: Any) -> bytes:
        if type(v) is not bool:
            raise UnsupportedTypeError(f"{type(v).__name__} is not a bool value", value=v,
                                       expected="bool")
        return b"\x0a\x01\x00\x01" if v else b"\x0a\x00\x00\x01"
    return write


def _float64_writer(fmt: TypeFormat) -> Writer:
    def write(v: Any) -> bytes:
        x = _float_value(v, FLOAT64_VALUES, "float64", "float or an exact int")
        return b"\x09" + _Q.pack(order_bits(_Q.unpack(_D.pack(x))[0], 8)) + TERMINATOR
    return write


def _float32_writer(fmt: TypeFormat) -> Writer:
    def write(v: Any) -> bytes:
        x = _float_value(v, FLOAT32_VALUES, "float32",
                         "Float32, a binary32-exact float or int")
        bits = _f32_bits(x)
        assert bits is not None
        return b"\x08" + order_bits(bits, 4).to_bytes(4, "big") + TERMINATOR
    return write


#: field type -> builder of its ascending writer
WRITERS: Final[dict[str, Callable[[TypeFormat], Writer]]] = {
    "string": _string_writer, "bytes": _bytes_writer, "bool": _bool_writer,
    "int16": _signed_writer, "int32": _signed_writer, "int64": _signed_writer,
    "uint16": _unsigned_writer, "uint32": _unsigned_writer, "uint64": _unsigned_writer,
    "float32": _float32_writer, "float64": _float64_writer,
}


def field_encoder(layout: FieldLayout) -> Writer:
    """The encoder of one schema field: its NULL marker, or its value (inverted if desc)."""
    write = WRITERS[layout.fmt.field_type](layout.fmt)
    null = layout.null_marker
    if layout.descending:
        return lambda v: null if v is None else invert(write(v))
    return lambda v: null if v is None else write(v)
