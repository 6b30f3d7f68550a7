"""The reference ``memcomparable`` encoder: readable Python, the executable spec of writing.

Theory of operation: one writer per field kind (:data:`WRITERS`, keyed by ``format.K_*``)
turns a present value into its ascending bytes; :func:`field_encoder` wraps it in the field's
Option tags (``_serde.option_tags``) and, for a descending field, inverts the whole (spec §6).
Reading is :mod:`.reference_decode`.

This is the only code that words an encoding error: the compiled module hands every value it
does not take as its own to these functions, so both implementations refuse alike. Values are
read for what they are, never through user code: a subclass of ``int``/``str``/``float``/
``bytes``/``Decimal`` through the base type's own data (``plain_value``).
"""

from __future__ import annotations

import decimal
import math
import struct
from collections.abc import Callable
from typing import Any, Final

from ..._bytes import invert, order_bits
from ...centimal import LAST, ODD
from ...codec import bytes_value, plain_value, text_value
from ...errors import EncodeError, UnsupportedTypeError, with_article
from .._serde import char_problem, option_tags
from .format import (
    BYTES_EMPTY,
    BYTES_NONEMPTY,
    DEC_MANTISSA_MAX,
    DEC_MEDIUM_MAX_E,
    DEC_NAN,
    DEC_SCALE_MAX,
    F32_NAN,
    F64_NAN,
    GROUP,
    K_BOOL,
    K_BYTES,
    K_CHAR,
    K_DECIMAL,
    K_FLOAT32,
    K_FLOAT64,
    K_INT,
    K_INT128,
    K_SEQ,
    K_STRING,
    K_UINT,
    K_UINT128,
    K_VARIANT,
    MORE,
    NEG_INF,
    NEG_LARGE,
    NEG_MEDIUM,
    NEG_SMALL,
    POS_INF,
    POS_LARGE,
    POS_MEDIUM,
    POS_SMALL,
    SEQ_END,
    TAG_NONE,
    TAG_SOME,
    VARIANT_MAX,
    ZERO,
    FieldLayout,
    TypeFormat,
)

__all__ = ["WRITERS", "encode_bytes", "encode_decimal", "field_encoder"]

Writer = Callable[[Any], bytes]

_D = struct.Struct(">d")
_Q = struct.Struct(">Q")
_F = struct.Struct(">f")
_I = struct.Struct(">I")
_fromhex = bytes.fromhex
#: the bytes after the last group, by its count of real bytes (01..08)
_PAD: Final = [bytes(GROUP - n) + bytes((n,)) for n in range(GROUP + 1)]

# -- values: what a Python value means in a field --------------------------------------------


def _int_value(v: Any, fmt: TypeFormat) -> int:
    """The exact int an integer field holds for *v*; bool and non-ints refused."""
    if type(v) is not int:
        if type(v) is bool or not issubclass(type(v), int):
            raise UnsupportedTypeError(
                f"{type(v).__name__} is not {with_article(fmt.field_type)} value"
                + (" (bool is refused in integer fields)" if type(v) is bool else ""),
                value=v, expected="int")
        v = int.__index__(v)  # a subclass (Int128, IntEnum): its int value, no user code
    if not fmt.lo <= v <= fmt.hi:
        raise EncodeError(f"out of range for {fmt.field_type}", value=v,
                          expected=f"{fmt.lo}..{fmt.hi}")
    return int(v)


def _float_value(v: Any, field_type: str) -> float:
    """The float a float field holds for *v*: a float or a subclass (Float32), by its float
    value (never a Float32's ``bits`` slot); anything else refused."""
    if type(v) is float:
        return float(v)
    if not issubclass(type(v), float):
        raise UnsupportedTypeError(f"{type(v).__name__} is not a {field_type} value",
                                   value=v, expected="float" if field_type == "float64"
                                   else "Float32 or a binary32-exact float")
    return float.__float__(v)


def _f32_bits(x: float) -> int | None:
    """The binary32 bits of the non-NaN *x*, or ``None`` when *x* is not a binary32 value."""
    if math.isinf(x):
        return 0x7F800000 if x > 0 else 0xFF800000
    try:
        packed = _F.pack(x)
    except OverflowError:  # beyond binary32's range
        return None
    return int(_I.unpack(packed)[0]) if _F.unpack(packed)[0] == x else None


# -- writers: one present value, ascending ---------------------------------------------------


def _write_bool(fmt: TypeFormat) -> Writer:
    def write(v: Any) -> bytes:
        if type(v) is not bool:
            raise UnsupportedTypeError(f"{type(v).__name__} is not a bool value", value=v,
                                       expected="bool")
        return b"\x01" if v else b"\x00"
    return write


def _write_int(fmt: TypeFormat) -> Writer:
    # two's complement with the sign bit flipped is the value plus 2**(N-1)
    bias = -fmt.lo
    return lambda v: (_int_value(v, fmt) + bias).to_bytes(fmt.width, "big")


def _write_float64(fmt: TypeFormat) -> Writer:
    def write(v: Any) -> bytes:
        x = _float_value(v, "float64")
        # NaN -> the canonical NaN and -0.0 -> +0.0 first, as the serializer does
        bits = F64_NAN if x != x else int(_Q.unpack(_D.pack(x + 0.0))[0])
        return _Q.pack(order_bits(bits, 8))
    return write


def _write_float32(fmt: TypeFormat) -> Writer:
    def write(v: Any) -> bytes:
        x = _float_value(v, "float32")
        if x != x:
            return _I.pack(order_bits(F32_NAN, 4))
        bits = _f32_bits(x + 0.0)
        if bits is None:
            raise EncodeError("not exactly representable in binary32 (round explicitly "
                              "with Float32)", value=v, expected="a binary32 value")
        return _I.pack(order_bits(bits, 4))
    return write


def encode_bytes(data: bytes) -> bytes:
    """The chunked byte string (spec §3): ``00``, or ``01`` and 8-byte groups, each padded
    and followed by ``09`` (more follows) or its count of real bytes."""
    if not data:
        return bytes((BYTES_EMPTY,))
    n = len(data)
    full = (n - 1) // GROUP  # the groups before the last, each followed by 09
    more = bytes((MORE,))
    parts = [bytes((BYTES_NONEMPTY,))]
    parts += [data[i:i + GROUP] + more for i in range(0, full * GROUP, GROUP)]
    tail = data[full * GROUP:]
    parts += [tail, _PAD[len(tail)]]
    return b"".join(parts)


def _write_string(fmt: TypeFormat) -> Writer:
    return lambda v: encode_bytes(text_value(v))


def _write_bytes(fmt: TypeFormat) -> Writer:
    return lambda v: encode_bytes(bytes_value(v))


def _write_seq(fmt: TypeFormat) -> Writer:
    def write(v: Any) -> bytes:
        data = bytes_value(v)
        out = bytearray(2 * len(data) + 1)
        out[0:2 * len(data):2] = b"\x01" * len(data)  # each element: 01 then the u8
        out[1:2 * len(data):2] = data
        out[-1] = SEQ_END
        return bytes(out)
    return write


def _write_char(fmt: TypeFormat) -> Writer:
    def write(v: Any) -> bytes:
        if not issubclass(type(v), str):
            raise UnsupportedTypeError(f"{type(v).__name__} is not a char value", value=v,
                                       expected="a str of one character")
        text = str(plain_value(v))
        problem = char_problem(text)
        if problem is not None:
            raise EncodeError("not a Rust char", value=v, expected=problem)
        return ord(text).to_bytes(4, "big")
    return write


def _write_variant(fmt: TypeFormat) -> Writer:
    def write(v: Any) -> bytes:
        if type(v) is bool or not issubclass(type(v), int):
            raise UnsupportedTypeError(f"{type(v).__name__} is not a variant index",
                                       value=v, expected="an int 0..255")
        n = int.__index__(v)
        if n > VARIANT_MAX:
            raise EncodeError("too many variants: the index is one byte (the crate "
                              "panics)", value=n, expected="0..255")
        if n < 0:
            raise EncodeError("a variant index is not negative", value=n,
                              expected="0..255")
        return bytes((n,))
    return write


# -- decimals (spec §5): SQLite4's base-100 number, in rust_decimal's range ------------------


def _decimal_parts(v: Any) -> tuple[bool, str, int] | bytes:
    """A Decimal as ``(negative, digits, point)`` with ``|v| = 0.<digits> x 10**point``
    (digits without leading or trailing zeros), or the one-byte encoding of zero, NaN and the
    infinities; what rust_decimal cannot hold refused."""
    if type(v) is not decimal.Decimal:
        if not issubclass(type(v), decimal.Decimal):
            raise UnsupportedTypeError(f"{type(v).__name__} is not a decimal value", value=v,
                                       expected="decimal.Decimal")
        v = plain_value(v)
    if not v.is_finite():
        if v.is_snan() or (v.is_nan() and v.as_tuple().digits):
            raise EncodeError("a signalling NaN or a NaN payload has no memcomparable "
                              "form", value=v, expected="Decimal('NaN') or an infinity")
        if v.is_nan():
            return bytes((DEC_NAN,))
        return bytes((NEG_INF if v.is_signed() else POS_INF,))
    sign, digit_tuple, exponent = v.as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple)).lstrip("0")
    if not digits:
        return bytes((ZERO,))
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)  # the value is stripped x 10**exponent
    scale = max(0, -exponent)
    # rust_decimal: a mantissa below 2**96 (29 digits at most) at a scale of at most 28;
    # the digit count is checked first, so a huge exponent never becomes a huge int
    if len(stripped) + max(0, exponent) > 29 or scale > DEC_SCALE_MAX or \
            int(stripped) * 10**max(0, exponent) > DEC_MANTISSA_MAX:
        raise EncodeError("not a rust_decimal::Decimal (a 96-bit mantissa at a scale of at "
                          "most 28)", value=v,
                          expected=f"|mantissa| <= {DEC_MANTISSA_MAX}, scale <= 28")
    return bool(sign), stripped, len(stripped) + exponent


def encode_decimal(v: Any) -> bytes:
    """The ascending bytes of a Decimal field's value (the crate's ``serialize_decimal``)."""
    parts = _decimal_parts(v)
    if type(parts) is bytes:
        return parts
    assert isinstance(parts, tuple)
    negative, digits, point = parts
    if point & 1:  # align the point to a centimal digit
        digits = "0" + digits
        point += 1
    if len(digits) & 1:
        digits += "0"
    e = point >> 1
    pairs = _fromhex(digits)  # "ab" -> the byte 0xab, for the centimal tables
    body = pairs[:-1].translate(ODD) + bytes((LAST[pairs[-1]],))
    # the exponent in one byte: rust_decimal keeps -13 <= E <= 15
    if negative:
        body = invert(body)
        if 0 <= e <= DEC_MEDIUM_MAX_E:
            return bytes((NEG_MEDIUM - e,)) + body
        return (bytes((NEG_LARGE, 0xFF ^ e)) if e > 0 else bytes((NEG_SMALL, -e))) + body
    if 0 <= e <= DEC_MEDIUM_MAX_E:
        return bytes((POS_MEDIUM + e,)) + body
    return (bytes((POS_LARGE, e)) if e > 0 else bytes((POS_SMALL, 0xFF ^ -e))) + body



def _write_decimal(fmt: TypeFormat) -> Writer:
    return encode_decimal


#: field kind -> builder of its ascending writer
WRITERS: Final[dict[int, Callable[[TypeFormat], Writer]]] = {
    K_BOOL: _write_bool, K_INT: _write_int, K_UINT: _write_int, K_INT128: _write_int,
    K_UINT128: _write_int, K_FLOAT32: _write_float32, K_FLOAT64: _write_float64,
    K_STRING: _write_string, K_BYTES: _write_bytes, K_SEQ: _write_seq, K_CHAR: _write_char,
    K_VARIANT: _write_variant, K_DECIMAL: _write_decimal,
}

_TAGS: Final = [bytes((TAG_SOME,)) * k for k in range(3)]
_NONE: Final = bytes((TAG_NONE,))


def field_encoder(layout: FieldLayout) -> Writer:
    """The encoder of one schema field: its Option tags and value, inverted if descending."""
    write = WRITERS[layout.fmt.kind](layout.fmt)
    layers, desc = layout.layers, layout.descending

    def encode(v: Any) -> bytes:
        ones, present = option_tags(v, layers)
        data = _TAGS[ones] + (write(v) if present else _NONE)
        return invert(data) if desc else data
    return encode
