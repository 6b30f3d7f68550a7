"""The readable ``sqlite4`` encoder: the executable spec of writing, and its only error shaper.

Theory of operation: every value is written ascending by a writer chosen from a table --
:data:`NUMBER_WRITERS` and :data:`SCHEMALESS_WRITERS` keyed by the value's exact type,
:data:`KIND_WRITERS` keyed by the field kind of ``format.py`` -- and a descending field is the
ones' complement of that (:func:`field_writer`, the one descending strategy; NULL is the fixed
``05``, so ``fa`` descending). Anything else -- a subclass, a bool, another type -- goes
through the ``*_for`` functions, which convert it to the plain type (from the base type's
own data, never through a method the subclass overrides) or refuse it.

Numbers are written from decimal digit strings (:func:`write_digits`): an int's ``str()``, a
float's shortest ``repr()``, a Decimal's digit tuple. No value passes through a binary float
and no ``Decimal`` arithmetic is used, so nothing is rounded. The compiled module writes the
same bytes, and hands any value it does not take as its own to these functions.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable
from typing import Any, Final

from ..._bytes import invert
from ...codec import buffer_value, float_holds, plain_value
from ...errors import EncodeError, LexCodecError, UnsupportedTypeError, with_article
from .format import (
    FINAL_BINARY,
    HIGH_BITS,
    INT_VIA_DECIMAL_BITS,
    INT_VIA_STR_BITS,
    KIND_BYTES,
    KIND_DECIMAL,
    KIND_FINAL,
    KIND_FLOAT64,
    KIND_INT,
    KIND_STRING,
    LAST,
    MAX_INT_DIGITS,
    MEDIUM_MAX_E,
    MEDIUM_NEG,
    MEDIUM_POS,
    NAME,
    NEG_LAST,
    NEG_ODD,
    NULL,
    ODD,
    SPREAD_7,
    SPREAD_14,
    SPREAD_28,
    VARINT_1,
    VARINT_2,
    VARINT_2_FIRST,
    VARINT_3,
    VARINT_3_FIRST,
    VARINT_LONG,
)

__all__ = [
    "KIND_WRITERS",
    "NUMBER_WRITERS",
    "SCHEMALESS_WRITERS",
    "encode_binary_body",
    "encode_number",
    "encode_varint",
    "field_writer",
    "schemaless_writer_for",
    "write_digits",
]

Writer = Callable[[Any], bytes]
_fromhex = bytes.fromhex

# -- varint (spec §3) -----------------------------------------------------------------------


def encode_varint(value: int) -> bytes:
    """The SQLite4 varint of 0 <= *value* < 2**64: byte order is numeric order.

    >>> encode_varint(240).hex(), encode_varint(241).hex(), encode_varint(2288).hex()
    ('f0', 'f101', 'f90000')
    """
    if value <= VARINT_1:
        return bytes((value,))
    if value <= VARINT_2:
        value -= VARINT_1
        return bytes((value // 256 + VARINT_2_FIRST, value % 256))
    if value <= VARINT_3:
        value -= VARINT_2 + 1
        return bytes((VARINT_3_FIRST, value // 256, value % 256))
    size = max(3, (value.bit_length() + 7) // 8)
    return bytes((VARINT_LONG + size,)) + value.to_bytes(size, "big")


# -- numbers (spec §5.4, §11) ---------------------------------------------------------------


def write_digits(negative: bool, digits: str, point: int) -> bytes:
    """The key of +-0.<digits> x 10**point (*digits*: no leading or trailing zeros)."""
    if point & 1:  # align the point to a centimal digit
        digits = "0" + digits
        point += 1
    if len(digits) & 1:
        digits += "0"
    e = point >> 1
    pairs = _fromhex(digits)
    if negative:
        body = pairs[:-1].translate(NEG_ODD) + NEG_LAST[pairs[-1]]
        if 0 <= e <= MEDIUM_MAX_E:
            return MEDIUM_NEG[e] + body
        if e > MEDIUM_MAX_E:
            return b"\x08" + invert(encode_varint(e)) + body
        return b"\x14" + encode_varint(-e) + body
    body = pairs[:-1].translate(ODD) + LAST[pairs[-1]]
    if 0 <= e <= MEDIUM_MAX_E:
        return MEDIUM_POS[e] + body
    if e > MEDIUM_MAX_E:
        return b"\x22" + encode_varint(e) + body
    return b"\x16" + invert(encode_varint(-e)) + body


def int_digits(n: int) -> str:
    """The decimal digits of ``n > 0``, refused beyond :data:`MAX_INT_DIGITS`."""
    if n.bit_length() <= INT_VIA_STR_BITS:  # under Python's 4300-digit str() guard
        return str(n)
    text = str(decimal.Decimal(n)) if n.bit_length() <= INT_VIA_DECIMAL_BITS else ""
    if not text or len(text) > MAX_INT_DIGITS:
        raise EncodeError(f"int has more than {MAX_INT_DIGITS} decimal digits",
                          value=n, expected=f"at most {MAX_INT_DIGITS} digits "
                          "(a Decimal holds larger magnitudes compactly)")
    return text


def write_int(n: int) -> bytes:
    """An exact int: its decimal digits, the point after the last."""
    if n > 0:
        s = int_digits(n)
        return write_digits(False, s.rstrip("0"), len(s))
    if n < 0:
        try:
            s = int_digits(-n)
        except EncodeError as exc:
            exc.value = n  # the int as given, sign included
            raise
        return write_digits(True, s.rstrip("0"), len(s))
    return b"\x15"


def write_float(x: float) -> bytes:
    """A float as the decimal of its shortest repr (spec §11): strictly monotonic."""
    if x != x:
        return b"\x06"
    if x == 0.0:
        return b"\x15"
    if x == math.inf:
        return b"\x23"
    if x == -math.inf:
        return b"\x07"
    text = repr(float(x))
    negative = text[0] == "-"
    if negative:
        text = text[1:]
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exponent) if exponent else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    return write_digits(negative, stripped.rstrip("0"), point)


def write_decimal(d: decimal.Decimal) -> bytes:
    """A Decimal from its digit tuple: NaN ``06``, infinities ``07``/``23``, exact otherwise."""
    if not d.is_finite():
        if d.is_snan():
            raise EncodeError("signalling NaN is refused", value=d,
                              expected="a number, Decimal('NaN') or an infinity")
        if d.is_nan():
            if d.as_tuple().digits:
                raise EncodeError("NaN payload cannot be stored (every NaN is 06)", value=d,
                                  expected="Decimal('NaN') without a payload")
            return b"\x06"
        return b"\x07" if d.is_signed() else b"\x23"
    sign, digit_tuple, exponent = d.as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple)).lstrip("0")
    if not digits:
        return b"\x15"
    return write_digits(bool(sign), digits.rstrip("0"), len(digits) + exponent)


#: exact number type -> its writer
NUMBER_WRITERS: Final[dict[type, Writer]] = {
    int: write_int, float: write_float, decimal.Decimal: write_decimal,
}

#: base type -> how the plain value of a subclass (a typed int, a Float32, an IntEnum ...) is
#: read: from the base type's own data, never through a method the subclass overrides
_PLAIN: Final[dict[type, Callable[[Any], Any]]] = {
    int: int.__index__, float: float.__float__, decimal.Decimal: plain_value,
    str: str.__str__, bytes: plain_value, bytearray: plain_value,
}


def number_writer_for(value: Any) -> Writer:
    """The writer of an int, float or Decimal subclass (Int32, Float32, ...); bool refused."""
    if issubclass(type(value), bool):
        raise UnsupportedTypeError("bool is not a number (SQLite4 has no boolean type)",
                                   value=value, expected="int, float or Decimal")
    for kind in (int, float, decimal.Decimal):
        if issubclass(type(value), kind):
            writer, read = NUMBER_WRITERS[kind], _PLAIN[kind]
            return lambda v: writer(read(v))
    raise UnsupportedTypeError(f"{type(value).__name__} is not a number", value=value,
                               expected="int, float or Decimal")


def write_number(v: Any) -> bytes:
    """Any number, in the one numeric order (a ``decimal`` field, an index ``int`` column)."""
    writer = NUMBER_WRITERS.get(type(v))
    if writer is None:
        writer = number_writer_for(v)
    return writer(v)


def encode_number(value: Any) -> bytes:
    """The ascending key bytes of one number: ``int``, ``float`` or ``Decimal``.

    >>> encode_number(decimal.Decimal("12.345")).hex(" ")
    '18 19 45 64'
    >>> encode_number(-1).hex(" "), encode_number(0.1).hex(" ")
    ('12 fd', '17 14')
    """
    try:
        return write_number(value)
    except LexCodecError as exc:
        raise exc.add_context(codec=NAME) from None


# -- text and binary (spec §6, §7, §8) ------------------------------------------------------


def write_text(v: Any) -> bytes:
    if type(v) is not str:
        if not isinstance(v, str):
            raise UnsupportedTypeError(f"{type(v).__name__} value in a string field", value=v,
                                       expected="str (use a bytes field for bytes)")
        v = str.__str__(v)  # a subclass's own __str__ may say anything
    try:
        data: bytes = v.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EncodeError("lone surrogate is not encodable as UTF-8",
                          value=v[exc.start:exc.end],
                          expected="a str without lone surrogates") from None
    if b"\x00" in data:
        raise EncodeError("U+0000 in text is refused (SQLite4 ends text at the first 00; "
                          "the trunk silently truncates)", value=v,
                          expected="a str without U+0000 (use a bytes field)")
    return b"\x24" + data + b"\x00"


def encode_binary_body(data: bytes) -> bytes:
    """The 7-bit groups of *data* (high bit set) and the ``00`` terminator, without the
    ``25`` type byte: the secondary-index ``bin`` column.

    >>> encode_binary_body(b"foo").hex(" ")
    'b3 9b ed f0 00'
    """
    n = len(data)
    groups = (8 * n + 6) // 7
    padded = bytes(data) + b"\x00" * (-n % 7)
    out = []
    for i in range(0, len(padded), 7):
        x = int.from_bytes(padded[i:i + 7], "big")
        x = ((x & SPREAD_28[0]) << 4) | (x & SPREAD_28[1])
        x = ((x & SPREAD_14[0]) << 2) | (x & SPREAD_14[1])
        x = ((x & SPREAD_7[0]) << 1) | (x & SPREAD_7[1])
        out.append((x | HIGH_BITS).to_bytes(8, "big"))
    return b"".join(out)[:groups] + b"\x00"


def bytes_value(v: Any) -> bytes:
    if type(v) is bytes:
        return v
    if issubclass(type(v), (bytes, bytearray, memoryview)):
        return buffer_value(v)  # a subclass's own bytes; a released memoryview refused
    raise UnsupportedTypeError(f"{type(v).__name__} value in a bytes field", value=v,
                               expected="bytes (use a string field for str)")


def write_binary(v: Any) -> bytes:
    return b"\x25" + encode_binary_body(bytes_value(v))


def write_final(v: Any) -> bytes:
    return bytes((FINAL_BINARY,)) + bytes_value(v)


# -- per field kind -------------------------------------------------------------------------


def _int_field_writer(field_type: str, lo: int | None, hi: int | None) -> Writer:
    """An int field: exact ints and int subclasses (not bool), within [lo, hi] if bounded."""
    def write(v: Any) -> bytes:
        if type(v) is not int:
            # type(), not isinstance(): an object may lie about its __class__
            if issubclass(type(v), bool) or not issubclass(type(v), int):
                extra = " (bool is refused in integer fields)" if isinstance(v, bool) else \
                    " (use a decimal field for non-integers)"
                raise UnsupportedTypeError(
                    f"{type(v).__name__} value in {with_article(field_type)} field{extra}",
                    value=v, expected="int")
            v = int.__index__(v)  # the real value, not what an override says
        if lo is not None and hi is not None and not lo <= v <= hi:
            raise EncodeError(f"out of range for {field_type}", value=v, expected=f"{lo}..{hi}")
        return write_int(v)
    return write


def _write_float64_field(v: Any) -> bytes:
    if type(v) is float:
        return write_float(v)
    if issubclass(type(v), float):
        return write_float(float.__float__(v))
    if issubclass(type(v), int) and not issubclass(type(v), bool):
        v = int.__index__(v)
        # an exact int is written as the float it equals: one key per float64 value
        if not float_holds(v):
            raise EncodeError("integer does not convert to float64 exactly", value=v,
                              expected="an int a float64 holds exactly (or a decimal field)")
        return write_float(float(v))
    raise UnsupportedTypeError(f"{type(v).__name__} value in a float64 field", value=v,
                               expected="float or an exact int (use a decimal field for "
                               "Decimal)")


#: field kind -> a factory of its ascending writer, given the field type (for messages) and
#: the int range (None: unbounded)
KIND_WRITERS: Final[dict[int, Callable[[str, int | None, int | None], Writer]]] = {
    KIND_INT: _int_field_writer,
    KIND_FLOAT64: lambda t, lo, hi: _write_float64_field,
    KIND_DECIMAL: lambda t, lo, hi: write_number,
    KIND_STRING: lambda t, lo, hi: write_text,
    KIND_BYTES: lambda t, lo, hi: write_binary,
    KIND_FINAL: lambda t, lo, hi: write_final,
}
_NULL_ASC, _NULL_DESC = bytes((NULL,)), bytes((0xFF ^ NULL,))


def field_writer(kind: int, descending: bool, field_type: str, lo: int | None = None,
                 hi: int | None = None) -> Writer:
    """The writer of one schema field: NULL fixed (``05``, ``fa`` descending), the value from
    :data:`KIND_WRITERS`, a descending value complemented."""
    write = KIND_WRITERS[kind](field_type, lo, hi)
    if descending:
        def encode(v: Any) -> bytes:
            return _NULL_DESC if v is None else invert(write(v))
    else:
        def encode(v: Any) -> bytes:
            return _NULL_ASC if v is None else write(v)
    return encode


# -- schemaless -----------------------------------------------------------------------------

#: exact value type -> its writer, without a schema (bytes never take the final form)
SCHEMALESS_WRITERS: Final[dict[type, Writer]] = {
    type(None): lambda v: _NULL_ASC,
    int: write_int,
    float: write_float,
    decimal.Decimal: write_decimal,
    str: write_text,
    bytes: write_binary,
    bytearray: write_binary,
    memoryview: write_binary,
}


def schemaless_writer_for(value: Any) -> Writer:
    """The writer of a value whose exact type is not in :data:`SCHEMALESS_WRITERS`."""
    if issubclass(type(value), bool):
        raise UnsupportedTypeError("bool is not an SQLite4 type", value=value,
                                   expected="None, int, float, Decimal, str or bytes")
    for kind in (int, float, decimal.Decimal, str, bytes, bytearray):
        if issubclass(type(value), kind):
            # through the plain type: a subclass's __repr__/__str__/__int__ must not leak
            # into a key, nor its exception out of the codec
            writer, read = SCHEMALESS_WRITERS[kind], _PLAIN[kind]
            return lambda v: writer(read(v))
    raise UnsupportedTypeError(f"{type(value).__name__} is not an SQLite4 type", value=value,
                               expected="None, int, float, Decimal, str or bytes")
