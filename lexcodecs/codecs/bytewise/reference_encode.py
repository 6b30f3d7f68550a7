"""The reference encoder of ``bytewise``: readable Python, the executable spec of writing.

Theory of operation: ``bytewise.encode`` of one JS value, value type by value type, chosen from
:data:`WRITERS` by ``type(value)`` (``bool`` is not an ``int`` here). Arrays are walked with an
explicit stack (no recursion), at most :data:`~.format.MAX_DEPTH` deep.

Python value -> JS value: ``None`` null, ``bool`` boolean, ``float`` number (NaN refused, as
bytewise refuses it), ``int`` the number it equals (an int no double equals is refused:
bytewise has no integer type and refuses BigInt), an aware ``datetime`` in whole milliseconds
a Date (naive or sub-millisecond ones refused), ``str`` string (its UTF-16 units as Node
writes them: a surrogate pair is one character, a lone surrogate U+FFFD), ``bytes``,
``bytearray``, ``memoryview`` a Buffer, :data:`~lexcodecs.types.UNDEFINED` undefined,
``tuple``/``list`` an array. Subclasses of these are written as their base type's value, read
by :func:`~lexcodecs.codec.plain_value`.

A key is one value. The codec's schemaless ``encode(values)`` writes ``values[0]`` bare when
there is one value (and the option ``array`` is off), else the array of the values.

This is the only module that words an encoding refusal.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
import struct
from collections.abc import Callable, Sequence
from typing import Any, Final

from ...codec import buffer_value
from ...errors import EncodeError, UnsupportedTypeError, with_article
from ...types import UndefinedSentinel
from .._js import FIELD_PY_TYPES as JS_FIELD_PY_TYPES
from .._js import field_value as js_field_value
from .._js import plain_js_value
from .format import (
    ARRAY,
    BUFFER,
    BUFFER_ESCAPES,
    DATE_NEG,
    DATE_POS,
    END,
    FALSE,
    MAX_DEPTH,
    NAME,
    NEG_INF,
    NULL,
    NUMBER_NEG,
    NUMBER_POS,
    POS_INF,
    STRING,
    STRING_ESCAPES,
    TRUE,
)
from .format import UNDEFINED as UNDEFINED_TAG

__all__ = ["EPOCH", "FIELD_PY_TYPES", "WRITERS", "date_ms", "encode_value", "encode_values",
           "field_value", "number_body", "string_utf8"]

_D: Final = struct.Struct(">d")
_Q: Final = struct.Struct(">Q")
_MASK: Final = 0xFFFF_FFFF_FFFF_FFFF
_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")
EPOCH: Final = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_MS: Final = _dt.timedelta(milliseconds=1)

#: writer(value, out, in_array): appends the value's bytes
Writer = Callable[[Any, bytearray, bool], None]


def _refuse(reason: str, value: Any, expected: str | None = None) -> EncodeError:
    return EncodeError(reason, codec=NAME, value=value, expected=expected)


# -- numbers and dates ----------------------------------------------------------------------


def number_body(negative_tag: int, positive_tag: int, x: float) -> bytes:
    """The tag and 8 bytes of the finite double *x*: ``positive_tag ‖ B(x)`` when ``x >= 0``
    (-0 as +0), ``negative_tag ‖ NOT B(-x)`` when ``x < 0``."""
    if x < 0:
        return bytes((negative_tag,)) + (int(_Q.unpack(_D.pack(-x))[0]) ^ _MASK).to_bytes(8, "big")
    return bytes((positive_tag,)) + _D.pack(x + 0.0)  # -0.0 + 0.0 is +0.0


def _write_float(value: float, out: bytearray, in_array: bool) -> None:
    if math.isnan(value):
        raise _refuse("NaN is not a value bytewise writes (TypeError: Invalid value)", value,
                      "a number that is not NaN")
    if value == math.inf:
        out.append(POS_INF)
    elif value == -math.inf:
        out.append(NEG_INF)
    else:
        out += number_body(NUMBER_NEG, NUMBER_POS, value)


def _write_int(value: int, out: bytearray, in_array: bool) -> None:
    try:
        x = float(value)
    except OverflowError:
        x = math.inf
    if math.isinf(x) or int(x) != value:
        raise _refuse("the int is not a JS number: no double equals it, and bytewise has no "
                      "integer type (it refuses BigInt)", value,
                      "an int a double equals (every int of magnitude up to 2**53)")
    out += number_body(NUMBER_NEG, NUMBER_POS, x)


def date_ms(value: _dt.datetime) -> int:
    """The JS Date of the aware datetime *value*: its whole milliseconds since the epoch."""
    try:
        offset = value.utcoffset()
        delta = None if offset is None else value - EPOCH
    except Exception:  # a tzinfo that raises or lies
        raise _refuse("the datetime's UTC offset cannot be read", value,
                      "an aware datetime with a working tzinfo") from None
    if delta is None:
        raise _refuse("a naive datetime is no instant: bytewise writes a JS Date, which is",
                      value, "an aware datetime (tzinfo set)")
    ms, rest = divmod(delta, _MS)
    if rest:
        raise _refuse("a JS Date holds whole milliseconds", value,
                      "a datetime whose microseconds are a multiple of 1000")
    return int(ms)


def _write_datetime(value: _dt.datetime, out: bytearray, in_array: bool) -> None:
    out += number_body(DATE_NEG, DATE_POS, float(date_ms(value)))


# -- strings and buffers --------------------------------------------------------------------


def string_utf8(text: str) -> bytes:
    """The UTF-8 Node writes for the JS string of *text*'s code points taken as UTF-16 units:
    surrogate pairs joined, a lone surrogate as U+FFFD (``ef bf bd``)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        paired = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        return _LONE_SURROGATE.sub("\ufffd", paired).encode("utf-8")


def _escaped(body: bytes, escapes: tuple[tuple[bytes, bytes], ...]) -> bytes:
    for byte, escape in escapes:
        if byte in body:
            body = body.replace(byte, escape)
    return body


def _write_body(tag: int, body: bytes, out: bytearray, in_array: bool,
                escapes: tuple[tuple[bytes, bytes], ...]) -> None:
    out.append(tag)
    if in_array:
        out += _escaped(body, escapes)
        out.append(END)
    else:
        out += body


def _write_str(value: str, out: bytearray, in_array: bool) -> None:
    _write_body(STRING, string_utf8(value), out, in_array, STRING_ESCAPES)


def _write_bytes(value: bytes, out: bytearray, in_array: bool) -> None:
    _write_body(BUFFER, value, out, in_array, BUFFER_ESCAPES)


def _write_buffer_like(value: Any, out: bytearray, in_array: bool) -> None:
    _write_bytes(buffer_value(value), out, in_array)


def _write_none(value: None, out: bytearray, in_array: bool) -> None:
    out.append(NULL)


def _write_bool(value: bool, out: bytearray, in_array: bool) -> None:
    out.append(TRUE if value else FALSE)


def _write_undefined(value: UndefinedSentinel, out: bytearray, in_array: bool) -> None:
    out.append(UNDEFINED_TAG)


#: exact Python type -> writer (tuples and lists are arrays, walked by :func:`encode_value`)
WRITERS: Final[dict[type, Writer]] = {
    type(None): _write_none,
    bool: _write_bool,
    float: _write_float,
    int: _write_int,
    _dt.datetime: _write_datetime,
    str: _write_str,
    bytes: _write_bytes,
    bytearray: _write_buffer_like,
    memoryview: _write_buffer_like,
    UndefinedSentinel: _write_undefined,
}

_EXPECTED: Final = ("None, bool, float, int, an aware datetime, str, bytes, UNDEFINED or a "
                    "tuple/list of these")


def _as_plain(value: Any) -> Any:
    """A value of a subclass (or a typed int, a Float32) as the plain value this format writes,
    or ``None`` when it is none of them."""
    return plain_js_value(value, WRITERS)


def _plain(value: Any) -> Any:
    plain = _as_plain(value)
    if plain is None:
        raise UnsupportedTypeError(
            f"{with_article(type(value).__name__)} is not a value bytewise writes",
            codec=NAME, value=value, expected=_EXPECTED)
    return plain


def _write_scalar(value: Any, out: bytearray, in_array: bool) -> Any:
    """Write *value* if it is no array; return it (as a plain tuple/list) if it is one."""
    writer = WRITERS.get(type(value))
    if writer is None:
        kind = type(value)
        if kind is not tuple and kind is not list:
            value = _plain(value)
            kind = type(value)
        if kind is tuple or kind is list:
            return value
        writer = WRITERS[kind]
    writer(value, out, in_array)
    return None


def encode_value(value: Any, out: bytearray, in_array: bool = False) -> None:
    """Append the bytes of the one JS value *value* (arrays walked with a stack)."""
    array = _write_scalar(value, out, in_array)
    if array is None:
        return
    out.append(ARRAY)
    stack = [iter(array)]
    while stack:
        if len(stack) > MAX_DEPTH:
            raise _refuse("arrays nest too deep", value,
                          f"at most {MAX_DEPTH} levels of nesting")
        item = next(stack[-1], _DONE)
        if item is _DONE:
            stack.pop()
            out.append(END)
            continue
        inner = _write_scalar(item, out, True)
        if inner is not None:
            out.append(ARRAY)
            stack.append(iter(inner))


_DONE: Final = object()


def encode_values(values: Sequence[Any], array: bool) -> bytes:
    """The key of *values*: ``values[0]`` bare when there is one value and *array* is off,
    else the JS array of the values."""
    out = bytearray()
    try:
        if len(values) == 1 and not array:
            encode_value(values[0], out)
        else:
            encode_value(tuple(values), out)
    except EncodeError as exc:
        raise exc.add_context(codec=NAME) from None
    return bytes(out)


# -- schema fields --------------------------------------------------------------------------

#: schema field type -> the exact Python types its values have (None is NULL in every field)
FIELD_PY_TYPES: Final = JS_FIELD_PY_TYPES


def field_value(field_type: str, value: Any) -> Any:
    """*value* as a field of *field_type* takes it, else an UnsupportedTypeError."""
    return js_field_value(NAME, FIELD_PY_TYPES, WRITERS, field_type, value)

