"""The readable ``hbase-orderedbytes`` encoder: the executable spec of writing, and its only
error shaper.

Theory of operation: every value is written ascending by a writer chosen from
:data:`KIND_WRITERS` (keyed by the field kind of ``format.py``); the writer takes the value
through a dict keyed by its exact type (:data:`NUMERIC_INPUTS` ...), so ``bool`` is never
taken for an ``int`` and a subclass is read through its plain type. A descending field is
the ones' complement of the ascending bytes (:func:`field_writer`, the one descending
strategy); NULL is ``05`` (``fa`` descending; ``fa ff`` for a descending BlobCopy) in the
nullable kinds and refused in the fixed-width ones, as HBase's types API refuses it.

Numbers (spec §4) are written from decimal digit strings, as the SQLite4 codec does: an
int's ``str()``, a float's shortest ``repr()`` (the digits of JDK 19+ ``Double.toString``), a
Decimal's digit tuple. The digits are rounded half-up to 31 significant digits and stripped
of trailing zeros (:func:`round_digits`), then cut into centimal digits.
"""

from __future__ import annotations

import decimal
import math
import struct
from collections.abc import Callable
from functools import partial
from typing import Any, Final

from ..._bytes import invert, order_bits
from ...codec import buffer_value, utf8_value
from ...errors import EncodeError, UnsupportedTypeError, with_article
from ...types import Float32
from ..sqlite4.reference_encode import encode_varint
from .format import (
    BITS8,
    BLOB_COPY,
    BLOB_VAR,
    FIXED_FLOATS,
    FIXED_INTS,
    INT_VIA_DECIMAL_BITS,
    INT_VIA_STR_BITS,
    KIND_BIGINT,
    KIND_BLOB_COPY,
    KIND_BLOB_VAR,
    KIND_DECIMAL,
    KIND_FIXED_FLOAT,
    KIND_FIXED_INT,
    KIND_NUM_FLOAT32,
    KIND_NUM_FLOAT64,
    KIND_NUM_INT64,
    KIND_STRING,
    LAST,
    MAX_DIGITS,
    MAX_E,
    MAX_INT_DIGITS,
    MEDIUM_MAX_E,
    MIN_EXP,
    NAN,
    NEG_INF,
    NEG_LARGE,
    NEG_MEDIUM,
    NEG_SMALL,
    NULL,
    ODD,
    POS_INF,
    POS_LARGE,
    POS_MEDIUM,
    POS_SMALL,
    TEXT,
    U64_MASK,
    ZERO,
)

__all__ = [
    "KIND_WRITERS",
    "encode_varint",
    "field_writer",
    "round_digits",
    "write_digits",
]

Writer = Callable[[Any], bytes]
_F32, _U32 = struct.Struct(">f"), struct.Struct(">I")
_F64, _U64 = struct.Struct(">d"), struct.Struct(">Q")

# the exponent's varint (spec §4.7) is SQLite4's putVaruint64: ``encode_varint``, imported
# from the sqlite4 codec, whose format HBase's Numeric encoding took over


# -- numbers (spec §4) --------------------------------------------------------------------------


def round_digits(digits: str, point: int) -> tuple[str, int]:
    """``0.<digits> x 10**point`` (*digits* without leading zeros) rounded half-up to
    :data:`MAX_DIGITS` significant digits, trailing zeros stripped.

    >>> round_digits("1" + "0" * 30 + "1", 32), round_digits("9" * 32, 32)
    (('1', 32), ('1', 33))
    """
    if len(digits) > MAX_DIGITS:
        up = digits[MAX_DIGITS] >= "5"
        digits = digits[:MAX_DIGITS]
        if up:
            bumped = str(int(digits) + 1)
            if len(bumped) > MAX_DIGITS:  # 99..9 + 1: one more digit before the point
                point += 1
            digits = bumped
    return digits.rstrip("0"), point


def write_digits(negative: bool, digits: str, point: int, value: Any) -> bytes:
    """The key of +-0.<digits> x 10**point (*digits*: no leading zeros, any length):
    rounded to 31 digits, then the class header, exponent and M (spec §4.3-§4.7).

    As HBase's ``encodeNumeric``, the class (small: |v| < 1) is the value's before rounding
    and E is the rounded value's: a value in [1 - 5E-32, 1) rounds to 1 in the small class,
    z = -1 and E = floor(-1 / 2) = -1, written as the varint of the unsigned 2**64 - 1
    (``putVaruint64`` of a negative long), then M = 01: ``16 00x9 02`` (negative
    ``14 ffx9 fd``), where 1 itself is ``18 02`` (format.ONE_FROM_BELOW_E).

    >>> write_digits(False, "9" * 32, 0, None).hex()
    '1600000000000000000002'
    """
    small = point <= 0  # |v| < 1 before rounding (digits has no leading zero)
    digits, point = round_digits(digits, point)
    # |v| >= 1: E = ceil(d / 2), d = point digits before the point;
    # |v| < 1: E = floor(z / 2), z = -point zeros between the point and the first digit
    # (z = -1, E = -1 where the value rounded up to 1)
    e = (-point) >> 1 if small else (point + 1) >> 1
    if e > MAX_E or point - len(digits) < MIN_EXP:
        raise EncodeError("exponent beyond HBase's range (Java BigDecimal: "
                          "ArithmeticException Overflow/Underflow)", value=value,
                          expected=f"|value| at least 1E{MIN_EXP} and below 1E+{2 * MAX_E}")
    if point & 1:  # align the point to a centimal digit
        digits = "0" + digits
    if len(digits) & 1:
        digits += "0"
    pairs = bytes.fromhex(digits)
    body = pairs[:-1].translate(ODD) + pairs[-1:].translate(LAST)
    if not small:
        if e <= MEDIUM_MAX_E:
            head = bytes((NEG_MEDIUM - e,)) if negative else bytes((POS_MEDIUM + e,))
        elif negative:
            head = bytes((NEG_LARGE,)) + invert(encode_varint(e))
        else:
            head = bytes((POS_LARGE,)) + encode_varint(e)
    elif negative:  # E & U64_MASK: HBase's long E taken as unsigned (only -1 is negative)
        head = bytes((NEG_SMALL,)) + encode_varint(e & U64_MASK)
    else:
        head = bytes((POS_SMALL,)) + invert(encode_varint(e & U64_MASK))
    return head + (invert(body) if negative else body)


def int_digits(n: int, value: Any) -> str:
    """The decimal digits of ``n > 0``, refused beyond :data:`MAX_INT_DIGITS` (linear)."""
    if n.bit_length() <= INT_VIA_STR_BITS:  # under Python's 4300-digit str() guard
        return str(n)
    text = str(decimal.Decimal(n)) if n.bit_length() <= INT_VIA_DECIMAL_BITS else ""
    if not text or len(text) > MAX_INT_DIGITS:
        raise EncodeError(f"int of more than {MAX_INT_DIGITS} decimal digits",
                          value=value,
                          expected=f"at most {MAX_INT_DIGITS} digits (a Decimal holds larger "
                          "magnitudes compactly)")
    return text


def write_int(n: int) -> bytes:
    """An int: its digits, the point after the last (``new BigDecimal(BigInteger)``)."""
    if n == 0:
        return bytes((ZERO,))
    s = int_digits(abs(n), n)
    return write_digits(n < 0, s, len(s), n)


def write_float(x: float) -> bytes:
    """A double: 0 and -0 are ``15``, NaN ``26``, +-inf ``23``/``07``; otherwise the digits of
    its shortest repr (``BigDecimal.valueOf(d)``, JDK 19+)."""
    if x != x:
        return bytes((NAN,))
    if x == 0.0:
        return bytes((ZERO,))
    if x == math.inf:
        return bytes((POS_INF,))
    if x == -math.inf:
        return bytes((NEG_INF,))
    text = float.__repr__(x)
    negative = text[0] == "-"
    mantissa, _, exponent = text.lstrip("-").partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    point = len(whole) + (int(exponent) if exponent else 0) - \
        (len(whole + fraction) - len(digits))
    digits = digits.rstrip("0")
    if len(digits) == 1:
        digits, point = _two_digits(x, digits, point)
    return write_digits(negative, digits, point, x)


_TWO_DIGITS: Final = decimal.Context(prec=2, rounding=decimal.ROUND_HALF_EVEN)


def _two_digits(x: float, digits: str, point: int) -> tuple[str, int]:
    """Java's ``Double.toString`` writes at least two digits: where the shortest repr has
    one, it takes the two-digit decimal closest to the double (ties to even) if it still
    reads back as the double. That differs from ``repr`` only for a few subnormals:
    ``5e-324`` is ``4.9E-324``."""
    near = _TWO_DIGITS.plus(decimal.Decimal(x))
    if float(near) != x:
        return digits, point
    _, tup, exp = near.as_tuple()
    assert isinstance(exp, int)
    two = "".join(map(str, tup)).rstrip("0")
    return two, len(tup) + exp


def write_decimal(d: decimal.Decimal) -> bytes:
    """A finite Decimal from its digit tuple; NaN and infinities are refused (a BigDecimal
    has none: write a float NaN/inf for HBase's ``26``/``23``/``07``)."""
    if not d.is_finite():
        raise EncodeError("a BigDecimal has no NaN or infinity", value=d,
                          expected="a finite Decimal (float('nan') / float('inf') write "
                          "HBase's NaN and infinities)")
    sign, digit_tuple, exponent = d.as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple)).lstrip("0")
    if not digits:
        return bytes((ZERO,))
    return write_digits(bool(sign), digits, len(digits) + exponent, d)


# -- what each numeric kind takes ---------------------------------------------------------------


def _refuse(kind: str, expected: str) -> Callable[[Any], bytes]:
    def refuse(v: Any) -> bytes:
        extra = " (bool is refused in number fields)" if type(v) is bool else ""
        raise UnsupportedTypeError(f"{type(v).__name__} value in {with_article(kind)} field{extra}",
                                   value=v, expected=expected)
    return refuse


def _plain(v: Any, table: dict[type, Writer]) -> Writer | None:
    """The writer of a subclass of one of the table's types (read through the plain type);
    ``bool`` never counts as an int."""
    t = type(v)
    if issubclass(t, bool):
        return None
    for base, writer in table.items():
        if issubclass(t, base):
            if base is int:
                return lambda x: writer(int.__index__(x))
            if issubclass(base, float):  # float, Float32: the value, never a bits slot
                return lambda x: writer(float.__float__(x))
            return lambda x: writer(decimal.Decimal(x))
    return None


def _by_type(table: dict[type, Writer], kind: str, expected: str) -> Writer:
    refuse = _refuse(kind, expected)

    def write(v: Any) -> bytes:
        writer = table.get(type(v)) or _plain(v, table) or refuse
        return writer(v)
    return write


def _int64(n: int) -> bytes:
    lo, hi = FIXED_INTS["int64"][2:]
    if not lo <= n <= hi:
        raise EncodeError("out of range for int64 (java.lang.Long)", value=n,
                          expected=f"{lo}..{hi}")
    return write_int(n)


def _f32_exact(x: float) -> float:
    if not Float32.is_exact(x):
        raise EncodeError("not exactly representable in binary32 (round it with Float32 "
                          "first)", value=x, expected="a binary32 value")
    return x


#: kind -> its ascending writer of a non-NULL value
NUMBER_WRITERS: Final[dict[int, Writer]] = {
    KIND_DECIMAL: _by_type({decimal.Decimal: write_decimal, int: write_int,
                            float: write_float, Float32: write_float},
                           "decimal", "Decimal, int or float"),
    KIND_BIGINT: _by_type({int: write_int}, "int", "int (a decimal field takes Decimal)"),
    KIND_NUM_INT64: _by_type({int: _int64}, "int64", "int"),
    KIND_NUM_FLOAT64: _by_type({float: write_float}, "float64", "float"),
    KIND_NUM_FLOAT32: _by_type({Float32: write_float,
                                float: lambda x: write_float(_f32_exact(x))},
                               "float32", "Float32 or a binary32-exact float"),
}

# -- fixed-width ints and floats (spec §5) -----------------------------------------------------


def _fixed_int_writer(field_type: str) -> Writer:
    header, width, lo, hi = FIXED_INTS[field_type]
    head = bytes((header,))

    def write(n: int) -> bytes:
        if not lo <= n <= hi:
            raise EncodeError(f"out of range for {field_type}", value=n,
                              expected=f"{lo}..{hi}")
        return head + (n - lo).to_bytes(width, "big")
    return _by_type({int: write}, field_type, "int")


def _fixed_float_writer(field_type: str) -> Writer:
    header, width, nan_bits = FIXED_FLOATS[field_type]
    head = bytes((header,))
    pack, unpack = (_F32, _U32) if width == 4 else (_F64, _U64)

    def write(x: float) -> bytes:
        bits = nan_bits if x != x else int(unpack.unpack(pack.pack(x))[0])
        return head + order_bits(bits, width).to_bytes(width, "big")
    if width == 4:
        # a Float32's value read as a float (never its bits slot): one that was never given
        # its bits may hold any float, refused like one
        return _by_type({Float32: lambda x: write(_f32_exact(float.__float__(x))),
                         float: lambda x: write(_f32_exact(x))}, field_type,
                        "Float32 or a binary32-exact float")
    return _by_type({float: write}, field_type, "float")


# -- text and blobs (spec §6) --------------------------------------------------------------------


def _text(v: str) -> bytes:
    data = utf8_value(v, " (Java would write '?')")
    if b"\x00" in data:
        raise EncodeError("Cannot encode String values containing '\\u0000' (HBase has no "
                          "escape)", value=v, expected="a str without U+0000")
    return bytes((TEXT,)) + data + b"\x00"


def encode_blob_var_body(data: bytes) -> bytes:
    """The 7-bit groups of *data*: ``80|g`` each, the last with bit 7 clear, the last group
    padded with zero bits; ``00`` for no data (spec §6).

    >>> encode_blob_var_body(bytes.fromhex("00")).hex(), encode_blob_var_body(b"").hex()
    ('8000', '00')
    """
    n = len(data)
    if n == 0:
        return b"\x00"
    groups = (8 * n + 6) // 7
    # through a bit string: linear in n (shifting one big int by 7 per group is quadratic)
    bits = "".join(map(BITS8.__getitem__, data)).ljust(7 * groups, "0")
    out = bytes(int(bits[i:i + 7], 2) | 0x80 for i in range(0, 7 * groups, 7))
    return out[:-1] + bytes((out[-1] & 0x7F,))


def _blob_var(v: bytes) -> bytes:
    return bytes((BLOB_VAR,)) + encode_blob_var_body(v)


def _blob_copy(v: bytes) -> bytes:
    return bytes((BLOB_COPY,)) + v


def _blob_copy_desc(v: bytes) -> bytes:
    """The ascending form a descending BlobCopy inverts: ``38 raw 00``, no ``00`` in raw."""
    if b"\x00" in v:
        raise EncodeError("0x00 bytes not permitted in value (a descending BlobCopy ends "
                          "at its 00 terminator)", value=v,
                          expected="bytes without 00, or encoding=blobvar")
    return bytes((BLOB_COPY,)) + v + b"\x00"


_BYTES_TYPES: Final = (bytes, bytearray, memoryview)


def _bytes_writer(write: Writer) -> Writer:
    def take(v: Any) -> bytes:
        if type(v) is bytes:
            return write(v)
        if issubclass(type(v), _BYTES_TYPES):
            return write(buffer_value(v))
        raise UnsupportedTypeError(f"{type(v).__name__} value in a bytes field", value=v,
                                   expected="bytes, bytearray or memoryview")
    return take


def _string_writer(v: Any) -> bytes:
    if type(v) is str:
        return _text(v)
    if issubclass(type(v), str):
        return _text(str.__str__(v))  # a subclass's own __str__ may say anything
    raise UnsupportedTypeError(f"{type(v).__name__} value in a string field", value=v,
                               expected="str (use a bytes field for bytes)")


def _numeric_factory(write: Writer, field_type: str, descending: bool) -> Writer:
    return write


# -- per field kind ------------------------------------------------------------------------------

#: kind -> a factory of its ascending writer of a non-NULL value, given the field type and the
#: direction (only a BlobCopy is written differently when descending)
KIND_WRITERS: Final[dict[int, Callable[[str, bool], Writer]]] = {
    **{k: partial(_numeric_factory, w) for k, w in NUMBER_WRITERS.items()},
    KIND_FIXED_INT: lambda t, desc: _fixed_int_writer(t),
    KIND_FIXED_FLOAT: lambda t, desc: _fixed_float_writer(t),
    KIND_STRING: lambda t, desc: _string_writer,
    KIND_BLOB_VAR: lambda t, desc: _bytes_writer(_blob_var),
    KIND_BLOB_COPY: lambda t, desc: _bytes_writer(_blob_copy_desc if desc else _blob_copy),
}
_NULL_ASC, _NULL_DESC = bytes((NULL,)), bytes((0xFF ^ NULL,))
#: a descending NULL BlobCopy: NULL and the terminator, inverted (spec §6)
NULL_BLOB_COPY_DESC: Final = bytes((0xFF ^ NULL, 0xFF))


def _refuse_null(field_type: str) -> Writer:
    def refuse(v: Any) -> bytes:
        raise EncodeError("Null values not supported (HBase's fixed-width types have no "
                          "NULL)", value=v, expected=f"{with_article(field_type)} value")
    return refuse


def field_writer(kind: int, descending: bool, field_type: str, nullable: bool) -> Writer:
    """The writer of one schema field: NULL ``05`` (``fa``, ``fa ff`` for a descending
    BlobCopy) or refused, the value from :data:`KIND_WRITERS`, a descending one inverted."""
    write = KIND_WRITERS[kind](field_type, descending)
    null = _refuse_null(field_type) if not nullable else None
    if descending:
        null_key = NULL_BLOB_COPY_DESC if kind == KIND_BLOB_COPY else _NULL_DESC

        def encode(v: Any) -> bytes:
            if v is None:
                return null(v) if null is not None else null_key
            return invert(write(v))
    else:
        def encode(v: Any) -> bytes:
            if v is None:
                return null(v) if null is not None else _NULL_ASC
            return write(v)
    return encode
