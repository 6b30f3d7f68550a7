"""The reference ``storekey`` encoder: readable Python, the executable spec of writing.

Theory of operation: one writer per field kind (:data:`WRITERS`) turns a present value into
its bytes; :func:`field_writer` puts the field's Option tags in front
(:func:`~lexcodecs.codecs._serde.option_tags`: ``01`` per layer, or ``00`` for a NULL or
``Some(None)``). Reading is :mod:`.reference_decode`.

This is the only code that words an encoding error. Values are read for what they are, never
through user code: a subclass of ``int``/``str``/``float``/``bytes`` is read through the base
type's own method. Exact types are chosen through dicts keyed by ``type(value)`` (``bool`` is
an ``int`` and is refused in integer fields).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, Final

from ..._bytes import order_bits
from ...codec import bytes_value, float_holds, text_value
from ...errors import EncodeError, UnsupportedTypeError, with_article
from ...types import Float32, Some
from .._serde import char_problem, option_tags
from .format import (
    BOOL_FALSE,
    BOOL_TRUE,
    KIND_BOOL,
    KIND_BYTES,
    KIND_CHAR,
    KIND_FLOAT32,
    KIND_FLOAT64,
    KIND_INT,
    KIND_SEQ,
    KIND_STRING,
    KIND_UINT,
    LENGTH_WIDTH,
    OPTION_NONE,
    OPTION_SOME,
    SEQ_END,
    STRING_END,
    FieldCode,
)

Writer = Callable[[Any], bytes]

_D: Final = struct.Struct(">d")
_Q: Final = struct.Struct(">Q")
_F: Final = struct.Struct(">f")
_I: Final = struct.Struct(">I")
_END: Final = bytes((STRING_END,))
_SEQ_END: Final = bytes((SEQ_END,))
_BOOLS: Final = (bytes((BOOL_FALSE,)), bytes((BOOL_TRUE,)))
#: a double's low mantissa bits a binary32 value leaves zero (a NaN too, to keep its payload)
_F32_LOW: Final = (1 << 29) - 1


# -- values: what a Python value means in a field -------------------------------------------


def _is(v: Any, cls: type | tuple[type, ...]) -> bool:
    """Whether *v* really is a *cls* (``isinstance`` would believe a ``__class__`` property)."""
    return issubclass(type(v), cls)


def _int_value(v: Any, code: FieldCode, field_type: str) -> int:
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
    if not code.lo <= n <= code.hi:
        raise EncodeError(f"out of range for {field_type}", value=n,
                          expected=f"{code.lo}..{code.hi}")
    return n


def _float_of_int(v: Any, mantissa: int, max_bits: int, field_type: str) -> float:
    n = int.__int__(v)
    if not float_holds(n, mantissa, max_bits):
        raise EncodeError(f"integer does not convert to {field_type} exactly", value=v,
                          expected=f"an int a {field_type} holds exactly")
    return float(n)


def _float_of_float(v: Any, mantissa: int, max_bits: int, field_type: str) -> float:
    return float.__float__(v)  # its own value (a Float32's bits slot is never read)


#: exact Python type -> the float a float field holds for it
FLOAT_VALUES: Final[dict[type, Callable[[Any, int, int, str], float]]] = {
    float: _float_of_float, Float32: _float_of_float, int: _float_of_int}


def _exact_float(v: Any, mantissa: int, max_bits: int, field_type: str) -> float:
    """The float a float field holds for *v*: a float (or subclass: its own value), or an
    int the field's width holds exactly; anything else refused."""
    convert = FLOAT_VALUES.get(type(v))
    if convert is None:
        if _is(v, float):  # a subclass: read as the float it is
            convert = _float_of_float
        elif _is(v, int) and type(v) is not bool:
            convert = _float_of_int
        else:
            raise UnsupportedTypeError(f"{type(v).__name__} is not a {field_type} value",
                                       value=v, expected="float (Float32), or an int it "
                                       "holds exactly")
    return convert(v, mantissa, max_bits, field_type)


def float64_bits(v: Any) -> int:
    """The IEEE bits of a float64 field's value (NaN payloads kept)."""
    return int(_Q.unpack(_D.pack(_exact_float(v, 53, 1024, "float64")))[0])


def float32_bits(v: Any) -> int:
    """The binary32 bits of a float32 field's value, read from its float value (a Float32's
    ``bits`` slot is never trusted): it must be a binary32 value exactly, a NaN one whose
    payload survives the narrowing (as ``Float32.from_bits`` widens it)."""
    x = _exact_float(v, 24, 128, "float32")
    d = int(_Q.unpack(_D.pack(x))[0])
    if x != x:
        if d & _F32_LOW:
            raise EncodeError("NaN payload does not fit binary32", value=v,
                              expected="a binary32 NaN (Float32.from_bits)")
        return ((d >> 32) & 0x80000000) | 0x7F800000 | ((d >> 29) & 0x007FFFFF)
    try:
        bits = int(_I.unpack(_F.pack(x))[0])
    except OverflowError:  # beyond binary32's range
        bits = -1
    if bits < 0 or _F.unpack(_I.pack(bits))[0] != x:
        raise EncodeError("not exactly representable in binary32 (round explicitly with "
                          "Float32)", value=v, expected="a binary32 value")
    return bits


# -- writers: one present value (spec §2, §3) ------------------------------------------------


def _bool_writer(code: FieldCode, field_type: str) -> Writer:
    def write(v: Any) -> bytes:
        if type(v) is not bool:
            raise UnsupportedTypeError(f"{type(v).__name__} is not a bool value", value=v,
                                       expected="bool")
        return _BOOLS[v]
    return write


def _uint_writer(code: FieldCode, field_type: str) -> Writer:
    width = code.width
    return lambda v: _int_value(v, code, field_type).to_bytes(width, "big")


def _int_writer(code: FieldCode, field_type: str) -> Writer:
    """Big-endian with the sign bit flipped: the two's complement plus 2**(bits-1)."""
    width, bias = code.width, 1 << (8 * code.width - 1)
    return lambda v: (_int_value(v, code, field_type) + bias).to_bytes(width, "big")


def _float32_writer(code: FieldCode, field_type: str) -> Writer:
    return lambda v: order_bits(float32_bits(v), 4).to_bytes(4, "big")


def _float64_writer(code: FieldCode, field_type: str) -> Writer:
    return lambda v: _Q.pack(order_bits(float64_bits(v), 8))


def _string_writer(code: FieldCode, field_type: str) -> Writer:
    # no escaping: a U+0000 is written raw (the declared string-nul anomalies)
    return lambda v: text_value(v) + _END


def char_value(v: Any) -> bytes:
    """A char field's UTF-8: one Unicode scalar value, U+0000 refused as the crate does."""
    if not _is(v, str):
        raise UnsupportedTypeError(f"{type(v).__name__} is not a char value", value=v,
                                   expected="a str of one character")
    text = str.__str__(v)
    problem = char_problem(text)
    if problem is not None:
        raise EncodeError(f"a char is {problem}", value=v, expected="one Unicode scalar value")
    if text == "\x00":
        raise EncodeError("cannot serialize NUL char", value=v,
                          expected="a character other than U+0000")
    return text.encode("utf-8")


def _char_writer(code: FieldCode, field_type: str) -> Writer:
    return lambda v: char_value(v) + _END


def _bytes_writer(code: FieldCode, field_type: str) -> Writer:
    def write(v: Any) -> bytes:
        data = bytes_value(v)
        return len(data).to_bytes(LENGTH_WIDTH, "big") + data
    return write


def _seq_writer(code: FieldCode, field_type: str) -> Writer:
    # each u8 element is its byte; a 01 element is written raw (the declared seq anomalies)
    return lambda v: bytes_value(v) + _SEQ_END


#: field kind -> builder of its writer of a present value
WRITERS: Final[dict[int, Callable[[FieldCode, str], Writer]]] = {
    KIND_BOOL: _bool_writer, KIND_UINT: _uint_writer, KIND_INT: _int_writer,
    KIND_FLOAT32: _float32_writer, KIND_FLOAT64: _float64_writer,
    KIND_STRING: _string_writer, KIND_CHAR: _char_writer, KIND_BYTES: _bytes_writer,
    KIND_SEQ: _seq_writer,
}

#: Option tags: (01 tags, whether the value follows) -> the bytes before the value
_SOME: Final = bytes((OPTION_SOME,))
_NONE: Final = bytes((OPTION_NONE,))


def field_writer(code: FieldCode, field_type: str) -> Writer:
    """The encoder of one field: its Option tags, then its value (spec §3 ``Option``)."""
    write = WRITERS[code.kind](code, field_type)
    layers = code.layers
    if not layers:
        def plain(v: Any) -> bytes:
            if v is None or type(v) is Some:
                option_tags(v, 0)  # the refusal, worded once in _serde
            return write(v)
        return plain

    def optional(v: Any) -> bytes:
        ones, present = option_tags(v, layers)
        return _SOME * ones + (write(v) if present else _NONE)
    return optional
