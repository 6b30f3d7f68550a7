"""The reference encoder of ``ordered-binary``: readable Python, the executable spec of writing.

Theory of operation: ``writeKey`` of ordered-binary 1.6.3, value type by value type, chosen
from :data:`WRITERS` by ``type(value)`` (``bool`` is not an ``int`` here: it is ``06``/``07``).
A key is one bare value (one value, and the codec option ``array`` off) or an array of values
(several values, none, or ``array=True``); nested tuples and lists are written flat, as
ordered-binary writes nested arrays. Every writer appends to one ``bytearray`` and checks the
8 KiB buffer of ``toBufferKey`` exactly where ordered-binary's own write would fail (a
DataView store past the end, ``Buffer.set`` past the end, a long string that does not fit);
the finished key is refused when it is longer than the buffer ("Key is too large").

Python value -> JS value: ``None`` null, ``bool`` boolean, ``float`` number, ``int`` BigInt
(written as the number when it is exactly a double), ``str`` string (UTF-16 units: a
character above U+FFFF is a surrogate pair; a lone surrogate is a lone unit), ``bytes``,
``bytearray``, ``memoryview`` a Buffer (raw), :class:`~.format.JsSymbol` a symbol,
``tuple``/``list`` an array. Subclasses of these are written as their base type's value, read
by :func:`~lexcodecs.codec.plain_value` (never through a method the subclass overrides).

This is the only module that words an encoding refusal.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable, Sequence
from typing import Any, Final

from ...codec import buffer_value
from ...errors import EncodeError, UnsupportedTypeError, with_article
from .._js import FIELD_PY_TYPES as JS_FIELD_PY_TYPES
from .._js import field_value as js_field_value
from .._js import plain_js_value
from .format import (
    BIGINT_SHIFT,
    BOOL_WRITE,
    BUFFER_SIZE,
    ESCAPE,
    FALSE,
    FIRST_PLAIN_UNIT,
    LONG_STRING_UNITS,
    NAME,
    NEGATIVE_MASK,
    NULL,
    NUMBER_LENGTHS,
    NUMBER_WRITE,
    SEPARATOR,
    STRING_MARGIN,
    STRING_PREFIX,
    SYMBOL,
    TRUE,
    JsSymbol,
)

__all__ = ["FIELD_PY_TYPES", "MAX_DEPTH", "WRITERS", "encode_values", "field_value", "number_bytes",
           "string_bytes"]

#: how deep arrays may nest on encode (nested arrays add no bytes; the limit stops a list
#: that contains itself)
MAX_DEPTH: Final = 64
#: the one NaN a JS number holds (``NaN`` as V8 writes it); every NaN is written so
CANONICAL_NAN: Final = 0x7FF8_0000_0000_0000

_D: Final = struct.Struct(">d")
_Q: Final = struct.Struct(">Q")
_NAN: Final = float(_D.unpack(_Q.pack(CANONICAL_NAN))[0])
_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_PREFIX: Final = bytes((STRING_PREFIX,))

Writer = Callable[[Any, bytearray, bool], None]


def _refuse(reason: str, value: Any, expected: str | None = None) -> EncodeError:
    return EncodeError(reason, codec=NAME, value=value, expected=expected)


def _too_large(value: Any, what: str) -> EncodeError:
    return _refuse(f"the key does not fit in ordered-binary's {BUFFER_SIZE}-byte buffer "
                   f"({what})", value, f"a key of at most {BUFFER_SIZE} bytes")


# -- numbers --------------------------------------------------------------------------------


def _bits(x: float) -> int:
    return int(_Q.unpack(_D.pack(x))[0])


def _float(bits: int) -> float:
    return float(_D.unpack(_Q.pack(bits))[0])


def _nine(bits: int) -> bytearray:
    """The 9-byte form of the number with IEEE bits *bits*: ``1‖u‖0`` or ``0‖u^mask‖0``."""
    negative = bits >> 63 and bits & 0x7FFF_FFFF_FFFF_FFFF and not _is_nan(bits)
    body = ((bits ^ NEGATIVE_MASK) << 4) if negative else ((1 << 68) | (bits << 4))
    return bytearray(body.to_bytes(9, "big"))


def _is_nan(bits: int) -> bool:
    return (bits >> 52) & 0x7FF == 0x7FF and bool(bits & 0xF_FFFF_FFFF_FFFF)


def _bare_length(bits: int) -> int:
    """How many of the 9 bytes a bare non-negative number keeps (:data:`NUMBER_LENGTHS`)."""
    low, high = bits & 0xFFFF_FFFF, bits >> 32
    for low_mask, high_mask, length in NUMBER_LENGTHS:
        if low & low_mask or high & high_mask:
            return length
    return 4


def number_bytes(x: float, in_array: bool) -> bytes:
    """The bytes of the JS number *x*: 9 in an array or when negative, else 4, 6, 8 or 9."""
    bits = _bits(x)
    nine = _nine(bits)
    if x < 0 or in_array:
        return bytes(nine)
    return bytes(nine[:_bare_length(bits)])


def _check_number_room(out: bytearray, value: Any) -> None:
    if len(out) + NUMBER_WRITE > BUFFER_SIZE:
        raise _too_large(value, "a number is written with a 12-byte DataView store")


def _write_float(value: float, out: bytearray, in_array: bool) -> None:
    # a JS number has one NaN: every Python NaN (any sign or payload) is written as it
    _check_number_room(out, value)
    out += number_bytes(_NAN if math.isnan(value) else value, in_array)


def _js_low_byte(n: int) -> int:
    """The low byte JS stores for ``Number(n)`` (a BigInt) in a Uint8Array: ToInt32 of the
    double nearest *n* (Infinity gives 0), modulo 256."""
    try:
        rounded = float(n)
    except OverflowError:
        return 0
    return int(rounded) & 0xFF


def _shift(n: int, by: int) -> int:
    """JS BigInt ``n << by`` (a negative *by* shifts right, rounding down)."""
    return n << by if by >= 0 else n >> -by


def _write_int(value: int, out: bytearray, in_array: bool) -> None:
    try:
        nearest = float(value)  # Number(n): round to nearest, ties to even
    except OverflowError:
        raise _refuse("the int rounds to Infinity as a JS number, and ordered-binary refuses it "
                      "(RangeError: The number Infinity cannot be converted to a BigInt)", value,
                      "an int of magnitude below 2**1024 - 2**970") from None
    bits = _bits(nearest)
    if int(nearest) > value:
        # step down to the largest double <= n, as ordered-binary does on the two 32-bit
        # halves; for a negative number it never carries from the low half into the high one
        low, high = bits & 0xFFFF_FFFF, bits >> 32
        if nearest > 0:
            low, high = (low - 1, high) if low else (0xFFFF_FFFF, high - 1)
        else:
            low = (low + 1) & 0xFFFF_FFFF
        bits = (high << 32) | low
    base = _float(bits)
    difference = value - int(base)
    _check_number_room(out, value)
    if difference == 0:
        out += number_bytes(base, in_array)
        return
    nine = _nine(bits)  # always the 9-byte form, even bare
    exponent = ((bits >> 52) & 0x7FF) - BIGINT_SHIFT
    top = _shift(difference, -exponent)
    nine[8] = (nine[8] | _js_low_byte(top)) & 0xFF
    difference -= _shift(top, exponent)
    out += nine
    first = True
    while difference or first:
        first = False
        exponent -= 7
        group = _shift(difference, -exponent)
        out.append((_js_low_byte(group) | 0x80) & 0xFF)
        difference -= _shift(group, exponent)


# -- strings, bytes, the rest ---------------------------------------------------------------


def _utf16_units(text: str) -> list[int]:
    raw = text.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(raw[i:i + 2], "big") for i in range(0, len(raw), 2)]


def _unit_count(text: str) -> int:
    """``text.length`` in JS: UTF-16 units (a character above U+FFFF counts two)."""
    return len(text) + sum(1 for c in text if c > "\uffff")


def _short_string(units: list[int]) -> bytearray:
    """The unit-by-unit writer of strings under 64 units (``04 c`` for c <= 4)."""
    out = bytearray()
    i, n = 0, len(units)
    while i < n:
        c = units[i]
        if c <= ESCAPE:
            out += bytes((ESCAPE, c))
        elif c < 0x80:
            out.append(c)
        elif c < 0x800:
            out += bytes((c >> 6 | 0xC0, c & 0x3F | 0x80))
        elif c & 0xFC00 == 0xD800 and i + 1 < n and units[i + 1] & 0xFC00 == 0xDC00:
            cp = 0x10000 + ((c & 0x3FF) << 10) + (units[i + 1] & 0x3FF)
            i += 1
            out += bytes((cp >> 18 | 0xF0, cp >> 12 & 0x3F | 0x80, cp >> 6 & 0x3F | 0x80,
                          cp & 0x3F | 0x80))
        else:  # the rest of the BMP, and a lone surrogate in its 3-byte form
            out += bytes((c >> 12 | 0xE0, c >> 6 & 0x3F | 0x80, c & 0x3F | 0x80))
        i += 1
    return out


def _long_string(text: str) -> bytes:
    """``Buffer.utf8Write``: plain UTF-8, a lone surrogate as U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        paired = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        return _LONE_SURROGATE.sub("\ufffd", paired).encode("utf-8")


def string_bytes(text: str) -> bytes:
    """The bytes of the JS string *text* (the same bare and in an array)."""
    prefix = _PREFIX if not text or ord(text[0]) < FIRST_PLAIN_UNIT else b""
    if _unit_count(text) < LONG_STRING_UNITS:
        return prefix + _short_string(_utf16_units(text))
    return prefix + _long_string(text)


def _write_str(value: str, out: bytearray, in_array: bool) -> None:
    long = _unit_count(value) >= LONG_STRING_UNITS
    out += string_bytes(value)
    if long and len(out) > BUFFER_SIZE - STRING_MARGIN:
        raise _too_large(value, "String does not fit in target buffer")


def _write_bytes(value: bytes, out: bytearray, in_array: bool) -> None:
    if len(out) + len(value) > BUFFER_SIZE:
        raise _too_large(value, "a Buffer is copied in with Uint8Array.set")
    out += value


def _write_buffer_like(value: Any, out: bytearray, in_array: bool) -> None:
    _write_bytes(buffer_value(value), out, in_array)


def _write_none(value: None, out: bytearray, in_array: bool) -> None:
    out.append(NULL)


def _write_bool(value: bool, out: bytearray, in_array: bool) -> None:
    if len(out) + BOOL_WRITE > BUFFER_SIZE:
        raise _too_large(value, "a boolean is written with a 4-byte DataView store")
    out.append(TRUE if value else FALSE)


def _write_symbol(value: JsSymbol, out: bytearray, in_array: bool) -> None:
    description = getattr(value, "description", None)
    if type(description) is not str:  # a symbol tampered with through object.__setattr__
        raise EncodeError("a symbol's description is not a str", value=value,
                          expected="JsSymbol(str)")
    out.append(SYMBOL)
    _write_str(description, out, in_array)


#: exact Python type -> writer (tuples and lists are arrays, handled by the element walk)
WRITERS: Final[dict[type, Writer]] = {
    type(None): _write_none,
    bool: _write_bool,
    float: _write_float,
    int: _write_int,
    str: _write_str,
    bytes: _write_bytes,
    bytearray: _write_buffer_like,
    memoryview: _write_buffer_like,
    JsSymbol: _write_symbol,
}

def _as_plain(value: Any) -> Any:
    """A value of a subclass (or a typed int, a Float32) as the plain value this format writes
    (read by :func:`~lexcodecs.codec.plain_value`), or ``None`` when it is none of them."""
    return plain_js_value(value, WRITERS)


def _plain(value: Any) -> Any:
    """A subclass of a supported type as its base type's value; anything else refused."""
    plain = _as_plain(value)
    if plain is None:
        raise UnsupportedTypeError(
            f"{with_article(type(value).__name__)} is not a value ordered-binary writes",
            codec=NAME, value=value,
            expected="None, bool, float, int, str, bytes, JsSymbol or a tuple")
    return plain


def _write_value(value: Any, out: bytearray, in_array: bool, depth: int) -> None:
    writer = WRITERS.get(type(value))
    if writer is None:
        kind = type(value)
        if kind is not tuple and kind is not list:
            value = _plain(value)
            kind = type(value)
        if kind is tuple or kind is list:
            _write_array(value, out, depth + 1)
            return
        writer = WRITERS[kind]
    writer(value, out, in_array)


def _write_array(items: Sequence[Any], out: bytearray, depth: int) -> None:
    """An array: its elements with a ``00`` between each two; a nested array is written in
    place (flat), an empty one as nothing (its separators stay)."""
    if depth > MAX_DEPTH:
        raise _refuse("arrays nest too deep", items, f"at most {MAX_DEPTH} levels of nesting")
    for i, item in enumerate(items):
        if i:
            out.append(SEPARATOR)
        _write_value(item, out, True, depth)


def encode_values(values: Sequence[Any], array: bool) -> bytes:
    """The key of *values*: the bare value when there is one and *array* is off, else the
    array of them (nested arrays flat), elements separated by ``00``."""
    out = bytearray()
    index = 0
    try:
        if len(values) == 1 and not array:
            _write_value(values[0], out, False, 0)
        else:
            for index, item in enumerate(values):
                if index:
                    out.append(SEPARATOR)
                _write_value(item, out, True, 0)
    except EncodeError as exc:
        raise exc.add_context(codec=NAME, field=index) from None
    if len(out) > BUFFER_SIZE:
        raise _too_large(values, "Key is too large")
    return bytes(out)


# -- schema fields --------------------------------------------------------------------------

#: schema field type -> the exact Python types its values have (None is NULL in every field)
FIELD_PY_TYPES: Final = JS_FIELD_PY_TYPES


def field_value(field_type: str, value: Any) -> Any:
    """*value* as a field of *field_type* takes it, else an UnsupportedTypeError."""
    return js_field_value(NAME, FIELD_PY_TYPES, WRITERS, field_type, value)
