"""``sqlite4``: the SQLite4 key encoding, byte-identical with the 2019 trunk ``vdbecodec.c``.

Theory of operation: a key is an optional table-number varint, then one or more values laid
end to end with no separators. The first byte of a value says its type and direction
(:data:`HEADER_NAMES`): ``05`` NULL, ``06``..``23`` numbers, ``24`` text, ``25`` binary,
``26`` final binary; a descending value is the ones' complement of its whole ascending
encoding, so its first byte is in ``d9``..``fa``.

* A number is a sign/exponent class byte and a base-100 mantissa M (spec §5). Its absolute
  value is 0.d1 d2 .. dn (centimal digits, d1 and dn non-zero) x 100**E; each digit is written
  as ``2d+1`` except the last, written ``2d``, so M ends at its first even byte and needs no
  terminator. The header splits the number line into classes that sort in order: NaN ``06``,
  -inf ``07``, negative large/medium/small ``08``/``13-E``/``14``, zero ``15``, positive
  small/medium/large ``16``/``17+E``/``22``, +inf ``23``; large and small classes carry E as a
  varint, complemented where a bigger magnitude of E must sort lower; negatives complement M.
* Text is ``24`` UTF-8 ``00``; binary is ``25``, the bits in 7-bit groups with the high bit
  set, ``00``; a final binary (``26``, last ascending field only, on request) is the raw bytes
  to the end of the key.

Every value except a final binary is prefix-free, so byte order of keys is value-by-value order
and the prefix range of P is ``[P, strinc(P))``.

All number arithmetic is on decimal digit strings and Python ints: a value never passes through
a binary float, and no context-rounded ``Decimal`` operation is used. The digit strings turn
into mantissa bytes with two C-level steps: ``bytes.fromhex`` reads each pair of decimal digits
"ab" as the byte ``16a+b``, and ``translate`` maps that byte to ``2(10a+b)+1``; decoding runs
the same tables backwards and reads the digits with ``bytes.hex``.

Decoding (spec §5.7, §12) is lexcodecs's own (the trunk decoder has sign bugs) and strict: only
the canonical form the encoder writes decodes, and every malformed key is a
:class:`~lexcodecs.errors.DecodeError` with the offset the spec gives.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, ClassVar, Final

from ..._bytes import invert, strinc
from ..._compile import compile_encode
from ..._native import speedups
from ...codec import (
    Anomaly,
    BaseCodec,
    BoundKey,
    Capabilities,
    FieldPlan,
    FloatPolicy,
    Option,
    SchemaLike,
    as_key_bytes,
)
from ...errors import DecodeError, EncodeError, LexCodecError, UnsupportedTypeError
from ...inspection import FieldView, Inspection, Part
from ...schema import Field, KeySchema
from ...types import INT_TYPES

__all__ = [
    "EMPTY_PREFIX_STOP",
    "HEADER_NAMES",
    "MAX_INT_DIGITS",
    "Sqlite4Codec",
    "decode_number",
    "decode_varint",
    "encode_binary_body",
    "encode_number",
    "encode_varint",
    "read_binary_body",
    "read_descending",
]

NAME: Final = "sqlite4"

# -- tables (spec §2, §5) -------------------------------------------------------------------

NULL, NAN, NEG_INF, NEG_LARGE, NEG_SMALL, ZERO = 0x05, 0x06, 0x07, 0x08, 0x14, 0x15
POS_SMALL, POS_MEDIUM, POS_LARGE, POS_INF = 0x16, 0x17, 0x22, 0x23
NEG_MEDIUM = 0x13  # 0x13 - E for 0 <= E <= 10
TEXT, BINARY, FINAL_BINARY = 0x24, 0x25, 0x26
#: the largest E of the medium classes
MEDIUM_MAX_E: Final = 10

#: ascending header byte -> what it is, for messages and ``inspect``
HEADER_NAMES: Final[dict[int, str]] = {
    NULL: "NULL", NAN: "NaN", NEG_INF: "-inf", NEG_LARGE: "negative large number",
    **{NEG_MEDIUM - e: f"negative medium number (E={e})" for e in range(MEDIUM_MAX_E + 1)},
    NEG_SMALL: "negative small number", ZERO: "zero", POS_SMALL: "positive small number",
    **{POS_MEDIUM + e: f"positive medium number (E={e})" for e in range(MEDIUM_MAX_E + 1)},
    POS_LARGE: "positive large number", POS_INF: "+inf", TEXT: "text", BINARY: "binary",
    FINAL_BINARY: "final binary",
}
_FIRST_ASC, _LAST_ASC = NULL, FINAL_BINARY
#: stop of the empty prefix's range without a table: every value starts at most at fa
EMPTY_PREFIX_STOP: Final = b"\xfb"

#: the decimal digits of an int this codec writes or reads back as ``int``; Python itself
#: guards int <-> str at 4300 digits, because the conversion is quadratic
MAX_INT_DIGITS: Final = 10_000

# bytes.fromhex reads decimal digit pairs "ab" as 16a+b; these map that byte to M bytes
_PAIR_BYTES = [16 * (d // 10) + d % 10 for d in range(100)]
_ODD_TABLE = bytearray(256)
_NEG_ODD_TABLE = bytearray(256)
_LAST: list[bytes] = [b""] * 256
_NEG_LAST: list[bytes] = [b""] * 256
for _d, _h in enumerate(_PAIR_BYTES):
    _ODD_TABLE[_h] = 2 * _d + 1
    _NEG_ODD_TABLE[_h] = 0xFF ^ (2 * _d + 1)
    _LAST[_h] = bytes((2 * _d,))
    _NEG_LAST[_h] = bytes((0xFF ^ (2 * _d),))
_ODD: Final = bytes(_ODD_TABLE)
_NEG_ODD: Final = bytes(_NEG_ODD_TABLE)
#: M byte (ascending, <= c7) -> its digit written as the byte 16a+b, for bytes.hex()
_DIGIT_PAIR: Final = bytes(_PAIR_BYTES[b >> 1] if b <= 0xC7 else 0 for b in range(256))
#: even bytes -> 00, odd -> 01: ``find(0)`` on the translation is the end of an ascending M
_EVEN_MARK: Final = bytes(b & 1 for b in range(256))
#: bytes below 80 -> 00, the others -> 01: ``find(0)`` is the end of a binary's groups
_GROUP_MARK: Final = bytes(b >> 7 for b in range(256))
_LOW7: Final = bytes(b & 0x7F for b in range(256))
_MEDIUM_POS: Final = [bytes((POS_MEDIUM + e,)) for e in range(MEDIUM_MAX_E + 1)]
_MEDIUM_NEG: Final = [bytes((NEG_MEDIUM - e,)) for e in range(MEDIUM_MAX_E + 1)]
_fromhex = bytes.fromhex

# -- varint (spec §3) -----------------------------------------------------------------------

_VARINT_MAX: Final = 2**64 - 1


def encode_varint(value: int) -> bytes:
    """The SQLite4 varint of 0 <= *value* < 2**64: byte order is numeric order.

    >>> encode_varint(240).hex(), encode_varint(241).hex(), encode_varint(2288).hex()
    ('f0', 'f101', 'f90000')
    """
    if value <= 240:
        return bytes((value,))
    if value <= 2287:
        value -= 240
        return bytes((value // 256 + 241, value % 256))
    if value <= 67823:
        value -= 2288
        return bytes((249, value // 256, value % 256))
    size = max(3, (value.bit_length() + 7) // 8)
    return bytes((247 + size,)) + value.to_bytes(size, "big")


def _varint_length(first: int) -> int:
    if first <= 240:
        return 1
    if first <= 248:
        return 2
    if first == 249:
        return 3
    return first - 246


def _read_varint(key: bytes, pos: int, inverted: bool, what: str) -> tuple[int, int]:
    """The varint at *pos* (each byte complemented first when *inverted*), canonical only."""
    if pos >= len(key):
        raise DecodeError(f"truncated: {what} missing", offset=len(key), found=b"",
                          expected="a varint")
    first = key[pos] ^ 0xFF if inverted else key[pos]
    end = pos + _varint_length(first)
    if end > len(key):
        raise DecodeError(f"truncated varint ({what})", offset=len(key), found=b"",
                          expected=f"{end - pos} varint bytes")
    raw = key[pos:end]
    if inverted:
        raw = invert(raw)
    if first <= 240:
        value = first
    elif first <= 248:
        value = 240 + 256 * (first - 241) + raw[1]
    elif first == 249:
        value = 2288 + 256 * raw[1] + raw[2]
    else:
        value = int.from_bytes(raw[1:], "big")
    if encode_varint(value) != raw:
        raise DecodeError(f"non-canonical varint ({what}): {raw.hex(' ')} ({value}) has a "
                          "shorter form", offset=pos, found=key[pos:end],
                          expected=encode_varint(value).hex(" "))
    return value, end


def decode_varint(data: bytes, pos: int = 0) -> tuple[int, int]:
    """``(value, next offset)`` of the varint at *pos*; a non-shortest form is refused.

    >>> decode_varint(bytes.fromhex("f101"))
    (241, 2)
    """
    try:
        return _read_varint(as_key_bytes(NAME, data), pos, False, "varint")
    except LexCodecError as exc:
        raise exc.add_context(codec=NAME) from None


# -- numbers: encoding (spec §5.4, §11) -----------------------------------------------------


def _number(negative: bool, digits: str, point: int) -> bytes:
    """The key of +-0.<digits> x 10**point (*digits*: no leading or trailing zeros)."""
    if point & 1:  # align the point to a centimal digit
        digits = "0" + digits
        point += 1
    if len(digits) & 1:
        digits += "0"
    e = point >> 1
    pairs = _fromhex(digits)
    if negative:
        body = pairs[:-1].translate(_NEG_ODD) + _NEG_LAST[pairs[-1]]
        if 0 <= e <= MEDIUM_MAX_E:
            return _MEDIUM_NEG[e] + body
        if e > MEDIUM_MAX_E:
            return b"\x08" + invert(encode_varint(e)) + body
        return b"\x14" + encode_varint(-e) + body
    body = pairs[:-1].translate(_ODD) + _LAST[pairs[-1]]
    if 0 <= e <= MEDIUM_MAX_E:
        return _MEDIUM_POS[e] + body
    if e > MEDIUM_MAX_E:
        return b"\x22" + encode_varint(e) + body
    return b"\x16" + invert(encode_varint(-e)) + body


def _int_digits(n: int) -> str:
    """The decimal digits of ``n > 0``, refused beyond :data:`MAX_INT_DIGITS`."""
    if n.bit_length() <= 14_000:  # under Python's 4300-digit str() guard
        return str(n)
    text = str(decimal.Decimal(n)) if n.bit_length() <= 34_000 else ""
    if not text or len(text) > MAX_INT_DIGITS:
        raise EncodeError(f"int has more than {MAX_INT_DIGITS} decimal digits",
                          value=n, expected=f"at most {MAX_INT_DIGITS} digits "
                          "(a Decimal holds larger magnitudes compactly)")
    return text


def _write_int(n: int) -> bytes:
    # the int64 range inline (the medium classes, E <= 10): a call costs as much as a step
    if 0 < n < 10**20:
        s = str(n)
        size = len(s)
        t = s.rstrip("0")
        if size & 1:
            t = "0" + t
            size += 1
        if len(t) & 1:
            t += "0"
        pairs = _fromhex(t)
        return _MEDIUM_POS[size >> 1] + pairs[:-1].translate(_ODD) + _LAST[pairs[-1]]
    if 0 > n > -(10**20):
        s = str(-n)
        size = len(s)
        t = s.rstrip("0")
        if size & 1:
            t = "0" + t
            size += 1
        if len(t) & 1:
            t += "0"
        pairs = _fromhex(t)
        return _MEDIUM_NEG[size >> 1] + pairs[:-1].translate(_NEG_ODD) + _NEG_LAST[pairs[-1]]
    if n > 0:
        s = _int_digits(n)
        return _number(False, s.rstrip("0"), len(s))
    if n < 0:
        try:
            s = _int_digits(-n)
        except EncodeError as exc:
            exc.value = n  # the int as given, sign included
            raise
        return _number(True, s.rstrip("0"), len(s))
    return b"\x15"


def _write_float(x: float) -> bytes:
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
    return _number(negative, stripped.rstrip("0"), point)


def _write_decimal(d: decimal.Decimal) -> bytes:
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
    return _number(bool(sign), digits.rstrip("0"), len(digits) + exponent)


def encode_number(value: Any) -> bytes:
    """The ascending key bytes of one number: ``int``, ``float`` or ``Decimal``.

    >>> encode_number(decimal.Decimal("12.345")).hex(" ")
    '18 19 45 64'
    >>> encode_number(-1).hex(" "), encode_number(0.1).hex(" ")
    ('12 fd', '17 14')
    """
    writer = _NUMBER_WRITERS.get(type(value))
    try:
        if writer is None:
            writer = _number_writer_for(value)
        return writer(value)
    except LexCodecError as exc:
        raise exc.add_context(codec=NAME) from None


_NUMBER_WRITERS: Final[dict[type, Callable[[Any], bytes]]] = {
    int: _write_int, float: _write_float, decimal.Decimal: _write_decimal,
}


def _number_writer_for(value: Any) -> Callable[[Any], bytes]:
    """The writer of an int, float or Decimal subclass (Int32, Float32, ...); bool refused."""
    if isinstance(value, bool):
        raise UnsupportedTypeError("bool is not a number (SQLite4 has no boolean type)",
                                   value=value, expected="int, float or Decimal")
    for kind in (int, float, decimal.Decimal):
        if isinstance(value, kind):
            writer = _NUMBER_WRITERS[kind]
            return lambda v: writer(kind(v))
    raise UnsupportedTypeError(f"{type(value).__name__} is not a number", value=value,
                               expected="int, float or Decimal")


# -- numbers: decoding (spec §5.7) ----------------------------------------------------------
#
# A number is read into (special, negative, digits, exponent): special is one of the strings
# below for NaN, the infinities and zero (digits empty), else the value is
# -+ int(digits) * 10**exponent with *digits* free of trailing zeros.

Parsed = tuple[str | None, bool, str, int]
_SPECIAL: Final[dict[int, Parsed]] = {
    NAN: ("nan", False, "", 0), NEG_INF: ("-inf", True, "", 0),
    ZERO: ("zero", False, "", 0), POS_INF: ("inf", False, "", 0),
}


def _truncated(key: bytes, what: str) -> DecodeError:
    return DecodeError(f"truncated: {what}", offset=len(key), found=b"", expected="more bytes")


def _read_mantissa(key: bytes, start: int, negative: bool) -> tuple[str, int]:
    """(decimal digits, each pair one centimal digit; offset after M) of the M at *start*."""
    rest = key[start:]
    if negative:
        rest = invert(rest)
    if not rest:
        raise _truncated(key, "mantissa missing")
    end = rest.translate(_EVEN_MARK).find(0)
    if end < 0:
        raise DecodeError(f"truncated: mantissa byte {key[len(key) - 1]:02x} "
                          f"{'is even' if negative else 'is odd'} (continues) but the key ends",
                          offset=len(key), found=b"", expected="the rest of the mantissa")
    m = rest[:end + 1]
    if max(m) > 0xC7:
        at = next(i for i, b in enumerate(m) if b > 0xC7)
        raise DecodeError(f"mantissa byte {m[at]:02x}: digit {m[at] >> 1} > 99",
                          offset=start + at, found=key[start + at:start + at + 1],
                          expected="a mantissa byte <= c7" + (" (complemented)" if negative
                                                              else ""))
    if m[0] < 2:
        raise DecodeError("non-canonical: first centimal digit is 0", offset=start,
                          found=key[start:start + 1], expected="a non-zero leading digit")
    if m[end] == 0:
        raise DecodeError("non-canonical: last mantissa byte 00 (digit 0)", offset=start + end,
                          found=key[start + end:start + end + 1],
                          expected="a non-zero last digit")
    return m.translate(_DIGIT_PAIR).hex(), start + end + 1


def _read_number(key: bytes, pos: int) -> tuple[Parsed, int]:
    """The number whose (ascending) header is at *pos*, and the offset after it."""
    h = key[pos]
    special = _SPECIAL.get(h)
    if special is not None:
        return special, pos + 1
    negative = h < ZERO
    start = pos + 1
    if POS_MEDIUM <= h <= POS_MEDIUM + MEDIUM_MAX_E:
        e = h - POS_MEDIUM
    elif NEG_MEDIUM - MEDIUM_MAX_E <= h <= NEG_MEDIUM:
        e = NEG_MEDIUM - h
    else:  # large or small: the exponent is a varint, complemented where bigger sorts lower
        large = h in (POS_LARGE, NEG_LARGE)
        magnitude, start = _read_varint(key, start, h in (NEG_LARGE, POS_SMALL), "exponent")
        if large and magnitude <= MEDIUM_MAX_E:
            raise DecodeError(f"non-canonical: large form with E={magnitude} (SQLite4 writes "
                              "the medium form)", offset=pos + 1, found=key[pos + 1:start],
                              expected="E >= 11 in the large form")
        if not large and magnitude < 1:
            raise DecodeError("non-canonical: small form with exponent 0 (the 2013/HBase form; "
                              "SQLite4 writes the medium form)", offset=pos + 1,
                              found=key[pos + 1:start], expected="-E >= 1 in the small form")
        e = magnitude if large else -magnitude
    digits, end = _read_mantissa(key, start, negative)
    stripped = digits.rstrip("0")
    return (None, negative, stripped, 2 * e - len(stripped)), end


_POW100: Final = [100**k for k in range(MEDIUM_MAX_E + 1)]


def _medium_int(key: bytes, pos: int) -> tuple[int, int] | None:
    """The common case, read directly: a canonical integral number of the medium classes
    (|n| < 10**20) at *pos*, and the offset after it; ``None`` for anything else (the
    general reading then decides, with its errors)."""
    h = key[pos]
    if POS_MEDIUM <= h <= POS_MEDIUM + MEDIUM_MAX_E:
        e = h - POS_MEDIUM
        m = key[pos + 1:pos + 1 + e]  # an integer has at most E centimal digits
    elif NEG_MEDIUM - MEDIUM_MAX_E <= h <= NEG_MEDIUM:
        e = NEG_MEDIUM - h
        m = invert(key[pos + 1:pos + 1 + e])
    else:
        return None
    j = m.translate(_EVEN_MARK).find(0)
    if j < 0 or m[0] < 2 or not m[j] or max(m[:j + 1]) > 0xC7:
        return None
    n = int(m[:j + 1].translate(_DIGIT_PAIR).hex()) * _POW100[e - j - 1]
    return (n if h > ZERO else -n), pos + j + 2


def _decimal_of(parsed: Parsed, key: bytes, pos: int) -> decimal.Decimal:
    special, negative, digits, exponent = parsed
    if special is not None:
        return _DECIMAL_SPECIAL[special]
    # the limits of the Decimal constructor (no context): the last digit's exponent down to
    # MIN_ETINY, the leading digit's up to MAX_EMAX
    if exponent < decimal.MIN_ETINY or exponent + len(digits) - 1 > decimal.MAX_EMAX:
        raise DecodeError("number beyond the exponent range of Python's Decimal", offset=pos,
                          found=key[pos:pos + 1],
                          expected=f"exponents within {decimal.MIN_ETINY}..{decimal.MAX_EMAX}")
    return decimal.Decimal(f"{'-' if negative else ''}{digits}E{exponent}")


_DECIMAL_SPECIAL: Final = {
    "nan": decimal.Decimal("NaN"), "-inf": decimal.Decimal("-Infinity"),
    "inf": decimal.Decimal("Infinity"), "zero": decimal.Decimal(0),
}
_FLOAT_SPECIAL: Final = {"nan": math.nan, "-inf": -math.inf, "inf": math.inf, "zero": 0.0}


def _int_of(parsed: Parsed, key: bytes, pos: int) -> int | None:
    """The int value, or None when the number is not an integer."""
    special, negative, digits, exponent = parsed
    if special is not None:
        return 0 if special == "zero" else None
    if exponent < 0 or len(digits) + exponent > MAX_INT_DIGITS:
        return None
    # int(str) is quadratic and guarded by Python at 4300 digits; Decimal converts fast
    n: int = (int(digits) if len(digits) <= 4000 else int(decimal.Decimal(digits))) * 10**exponent
    return -n if negative else n


def _schemaless_number(parsed: Parsed, key: bytes, pos: int) -> Any:
    """Integral -> int, other finite -> Decimal, NaN and infinities -> float (spec §11)."""
    special = parsed[0]
    if special is not None:
        return 0 if special == "zero" else _FLOAT_SPECIAL[special]
    n = _int_of(parsed, key, pos)
    return _decimal_of(parsed, key, pos) if n is None else n


def decode_number(data: bytes, pos: int = 0) -> tuple[Any, int]:
    """``(value, next offset)`` of the ascending number at *pos*, as a schemaless decode
    gives it: integral -> ``int``, other finite -> ``Decimal``, NaN/infinities -> ``float``.

    >>> decode_number(bytes.fromhex("18194564"))
    (Decimal('12.345'), 4)
    """
    data = as_key_bytes(NAME, data)
    try:
        if pos >= len(data):
            raise _truncated(data, "number missing")
        if not NAN <= data[pos] <= POS_INF:
            raise DecodeError(f"{data[pos]:02x} is not a number header", offset=pos,
                              found=data[pos:pos + 1], expected="06..23")
        parsed, end = _read_number(data, pos)
        return _schemaless_number(parsed, data, pos), end
    except LexCodecError as exc:
        raise exc.add_context(codec=NAME) from None


# -- text and binary (spec §6, §7, §8) ------------------------------------------------------


def _write_text(v: Any) -> bytes:
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


# three masks per 7-byte chunk spread 56 bits into 8 bytes of 7 bits (and back)
_SPREAD_28: Final = (0xFFFFFFF << 28, 0xFFFFFFF)
_SPREAD_14: Final = (0x0FFFC0000FFFC000, 0x00003FFF00003FFF)
_SPREAD_7: Final = (0x3F803F803F803F80, 0x007F007F007F007F)
_HIGH_BITS: Final = 0x8080808080808080


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
        x = ((x & _SPREAD_28[0]) << 4) | (x & _SPREAD_28[1])
        x = ((x & _SPREAD_14[0]) << 2) | (x & _SPREAD_14[1])
        x = ((x & _SPREAD_7[0]) << 1) | (x & _SPREAD_7[1])
        out.append((x | _HIGH_BITS).to_bytes(8, "big"))
    return b"".join(out)[:groups] + b"\x00"


def _unpack_groups(groups: bytes, n: int) -> bytes:
    """The *n* bytes held by 7-bit *groups* (high bits already checked)."""
    low = groups.translate(_LOW7) + b"\x00" * (-len(groups) % 8)
    out = []
    for i in range(0, len(low), 8):
        x = int.from_bytes(low[i:i + 8], "big")
        x = (x & _SPREAD_7[1]) | ((x >> 1) & _SPREAD_7[0])
        x = (x & _SPREAD_14[1]) | ((x >> 2) & _SPREAD_14[0])
        x = (x & _SPREAD_28[1]) | ((x >> 4) & _SPREAD_28[0])
        out.append(x.to_bytes(7, "big"))
    return b"".join(out)[:n]


def _bytes_value(v: Any) -> bytes:
    if type(v) is bytes:
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    raise UnsupportedTypeError(f"{type(v).__name__} value in a bytes field", value=v,
                               expected="bytes (use a string field for str)")


def _write_binary(v: Any) -> bytes:
    return b"\x25" + encode_binary_body(_bytes_value(v))


def _write_final(v: Any) -> bytes:
    return b"\x26" + _bytes_value(v)


def _read_text(key: bytes, pos: int) -> tuple[str, int]:
    end = key.find(b"\x00", pos + 1)
    if end < 0:
        raise _truncated(key, "unterminated text")
    try:
        return key[pos + 1:end].decode("utf-8"), end + 1
    except UnicodeDecodeError as exc:
        at = pos + 1 + exc.start
        raise DecodeError(f"invalid UTF-8 in text ({exc.reason})", offset=at,
                          found=key[at:at + 1], expected="UTF-8") from None


def _read_binary(key: bytes, pos: int) -> tuple[bytes, int]:
    return read_binary_body(key, pos + 1)


def read_binary_body(key: bytes, start: int) -> tuple[bytes, int]:
    """``(value, next offset)`` of the 7-bit groups and ``00`` at *start* (no type byte);
    only the canonical form is accepted."""
    k = key[start:].translate(_GROUP_MARK).find(0)
    if k < 0:
        raise _truncated(key, "unterminated binary")
    stop = start + k
    if key[stop] != 0:
        raise DecodeError("binary group byte without the high bit", offset=stop,
                          found=key[stop:stop + 1], expected="80..ff (a group) or 00 (the end)")
    n = 7 * k // 8
    if (8 * n + 6) // 7 != k:
        at = start + (8 * n + 6) // 7
        raise DecodeError("non-canonical binary: one 7-bit group holds no whole byte",
                          offset=at, found=key[at:at + 1], expected="00 (the end)")
    pad = 7 * k - 8 * n
    if pad and key[stop - 1] & ((1 << pad) - 1):
        raise DecodeError("non-canonical binary: padding bits are not zero", offset=stop - 1,
                          found=key[stop - 1:stop],
                          expected=f"the low {pad} bit(s) of the last group zero")
    return _unpack_groups(key[start:stop], n), stop + 1


# -- one value without a schema (spec §12) --------------------------------------------------


def _read_ascending(key: bytes, pos: int) -> tuple[Any, int]:
    """One ascending value at *pos*, typed as a schemaless decode types it."""
    reader = _ASCENDING_READERS[key[pos]]
    if reader is None:
        raise _not_a_type(key, pos)
    value, end = reader(key, pos)
    return value, end


def _read_null(key: bytes, pos: int) -> tuple[None, int]:
    return None, pos + 1


def _read_final(key: bytes, pos: int) -> tuple[bytes, int]:
    return key[pos + 1:], len(key)


def _read_schemaless_number(key: bytes, pos: int) -> tuple[Any, int]:
    fast = _medium_int(key, pos)
    if fast is not None:
        return fast
    parsed, end = _read_number(key, pos)
    return _schemaless_number(parsed, key, pos), end


def _reader_table() -> list[Any]:
    table: list[Any] = [None] * 256
    for h in range(NAN, POS_INF + 1):
        table[h] = _read_schemaless_number
    table[NULL], table[TEXT], table[BINARY] = _read_null, _read_text, _read_binary
    table[FINAL_BINARY] = _read_final
    return table


#: ascending header -> its schemaless reader (None: not an ascending header)
_ASCENDING_READERS: Final = _reader_table()


def _not_a_type(key: bytes, pos: int) -> DecodeError:
    b = key[pos]
    if b == 0xFF ^ FINAL_BINARY:
        return DecodeError("descending final binary (d9) is not supported: inverted raw bytes "
                           "have no terminator, so they cannot sort in descending order",
                           offset=pos, found=key[pos:pos + 1], expected="05..26 or da..fa")
    return DecodeError(f"{b:02x} is not a type byte", offset=pos, found=key[pos:pos + 1],
                       expected="05..26 (ascending) or da..fa (descending)")


def read_descending(read: Callable[[bytes, int], tuple[Any, int]], key: bytes, pos: int
                ) -> tuple[Any, int]:
    """Read a descending value with the ascending reader *read*: complement the rest of the
    key (offsets kept) and read it; an error shows the bytes as they are in the key."""
    try:
        value, end = read(b"\x00" * pos + invert(key[pos:]), pos)
    except DecodeError as exc:
        if exc.found and exc.offset is not None:  # show the bytes as they are in the key
            exc.found = key[exc.offset:exc.offset + len(exc.found)]
        raise
    return value, end


def _read_any(key: bytes, pos: int) -> tuple[Any, int]:
    b = key[pos]
    if _FIRST_ASC <= b <= _LAST_ASC:
        return _read_ascending(key, pos)
    if 0xFF ^ BINARY <= b <= 0xFF ^ NULL:
        return read_descending(_read_ascending, key, pos)
    raise _not_a_type(key, pos)


def _value_parts(key: bytes, pos: int, end: int) -> list[Part]:
    """The parts of the value ``key[pos:end]`` (already read, so well formed)."""
    desc = 0xFF ^ BINARY <= key[pos] <= 0xFF ^ NULL
    # the ascending bytes, at the same offsets: plain[j] is the ascending form of key[pos + j]
    plain = invert(key[pos:end]) if desc else key[pos:end]
    h = plain[0]
    how = ", descending (every byte inverted)" if desc else ""
    inv = ", inverted (descending)" if desc else ""
    if h == NULL:
        return [Part(pos, pos + 1, "null", "NULL, sorting last (descending, fa)" if desc
                     else "NULL, sorting first")]
    parts = [Part(pos, pos + 1, "header", HEADER_NAMES[h] + how)]
    if h in (TEXT, BINARY):
        closing = "ff (00 inverted)" if desc else "00"
        if end - 1 > pos + 1:
            groups = end - pos - 2
            parts.append(Part(pos + 1, end - 1, "payload", ("UTF-8" if h == TEXT else
                              f"{groups} 7-bit group(s), high bit set, holding "
                              f"{7 * groups // 8} byte(s)") + inv))
        parts.append(Part(end - 1, end, "terminator",
                          f"{closing}: end of {'text' if h == TEXT else 'binary'}"))
    elif h == FINAL_BINARY:
        if end > pos + 1:
            parts.append(Part(pos + 1, end, "payload", "raw bytes to the end of the key"))
    elif h not in _SPECIAL:  # a number: [exponent varint] mantissa
        negative = h < ZERO
        at = 1
        if h in (POS_LARGE, NEG_LARGE, POS_SMALL, NEG_SMALL):
            complemented = h in (NEG_LARGE, POS_SMALL)
            magnitude, at = _read_varint(plain, 1, complemented, "exponent")
            e = magnitude if h in (POS_LARGE, NEG_LARGE) else -magnitude
            parts.append(Part(pos + 1, pos + at, "exponent", f"E={e}: varint of {magnitude}"
                              + (", complemented (a larger magnitude sorts lower)"
                                 if complemented else "") + inv))
        m = invert(plain[at:]) if negative else plain[at:]
        digits = " ".join(str(b >> 1) for b in m)
        parts.append(Part(pos + at, end, "mantissa",
                          f"centimal digits {digits} (2d+1 each, 2d the last)"
                          + (", complemented (negative)" if negative else "") + inv))
    return parts


# -- per-field reading (spec §12 "with a schema") -------------------------------------------

_NUMBER_TYPES: Final = frozenset({*INT_TYPES, "int", "decimal", "float64"})


def _kind_of(h: int) -> str:
    if NAN <= h <= POS_INF:
        return "number"
    return {NULL: "NULL", TEXT: "text", BINARY: "binary", FINAL_BINARY: "final binary"}.get(
        h, "?")


def _value_reader(field: Field) -> Callable[[bytes, int], tuple[Any, int]]:
    """Reads a non-NULL ascending value of *field* at *pos* (the header already checked)."""
    t = field.type
    if t == "string":
        return _read_text
    if t == "bytes":
        if field.options.get("final", False):
            return lambda key, pos: (key[pos + 1:], len(key))
        return _read_binary
    if t == "decimal":
        def read_decimal(key: bytes, pos: int) -> tuple[Any, int]:
            # no int shortcut: Decimal(10) would keep the zero that Decimal("1E+1") strips
            parsed, end = _read_number(key, pos)
            return _decimal_of(parsed, key, pos), end
        return read_decimal
    if t == "float64":
        def read_float(key: bytes, pos: int) -> tuple[Any, int]:
            fast = _medium_int(key, pos)
            if fast is not None:  # int -> float rounds correctly
                return float(fast[0]), fast[1]
            parsed, end = _read_number(key, pos)
            if parsed[0] is not None:
                return _FLOAT_SPECIAL[parsed[0]], end
            _, negative, digits, exponent = parsed
            # correctly rounded (float(str) is); overflow goes to +-inf like IEEE rounding
            return float(f"{'-' if negative else ''}{digits}e{exponent}"), end
        return read_float
    lo, hi = (INT_TYPES[t].min, INT_TYPES[t].max) if t in INT_TYPES else (None, None)

    def read_int(key: bytes, pos: int) -> tuple[Any, int]:
        fast = _medium_int(key, pos)
        if fast is not None and (lo is None or lo <= fast[0] <= hi):  # type: ignore[operator]
            return fast
        parsed, end = _read_number(key, pos)
        n = _int_of(parsed, key, pos)
        if n is None:
            what = (parsed[0] if parsed[0] is not None else
                    str(_decimal_of(parsed, key, pos)) if parsed[2] else "?")
            too_big = parsed[0] is None and parsed[3] >= 0
            raise DecodeError(
                f"{what} is not an integer ({t} field)" if not too_big else
                f"integer of more than {MAX_INT_DIGITS} digits ({t} field)",
                offset=pos, found=key[pos:end], expected="an integer")
        if lo is not None and hi is not None and not lo <= n <= hi:
            shown = str(n) if n.bit_length() <= 256 else \
                f"an integer of {len(_int_digits(abs(n)))} digits"
            raise DecodeError(f"{shown} is out of range for {t}", offset=pos,
                              found=key[pos:end], expected=f"{lo}..{hi}")
        return n, end
    return read_int


def _allowed_headers(field: Field) -> frozenset[int]:
    t = field.type
    if t in _NUMBER_TYPES:
        return frozenset(range(NAN, POS_INF + 1))
    if t == "string":
        return frozenset({TEXT})
    return frozenset({FINAL_BINARY if field.options.get("final", False) else BINARY})


def _field_reader(field: Field) -> Callable[[bytes, int], tuple[Any, int]]:
    """The strict reader of one schema field: direction, type and NULL checked.

    An ascending field reads through a table of the headers it admits; anything else is
    explained by :func:`_refuse_header`.
    """
    read_value = _value_reader(field)
    table: list[Any] = [None] * 256
    for h in _allowed_headers(field):
        table[h] = read_value
    table[NULL] = _read_null

    def read_ascending(key: bytes, pos: int) -> tuple[Any, int]:
        reader = table[key[pos]]
        if reader is None:
            raise _mismatch(key, pos, field)
        value, end = reader(key, pos)
        return value, end

    if field.descending:
        def read(key: bytes, pos: int) -> tuple[Any, int]:
            if pos < len(key) and 0xFF ^ BINARY <= key[pos] <= 0xFF ^ NULL:
                return read_descending(read_ascending, key, pos)
            raise _refuse_header(key, pos, field)
        return read

    def read_asc(key: bytes, pos: int) -> tuple[Any, int]:
        reader = table[key[pos]] if pos < len(key) else None
        if reader is None:
            raise _refuse_header(key, pos, field)
        value, end = reader(key, pos)
        return value, end
    return read_asc


def _refuse_header(key: bytes, pos: int, field: Field) -> DecodeError:
    """Why the byte at *pos* cannot start a value of *field*."""
    if pos >= len(key):
        return _truncated(key, "key ends before the field")
    b = key[pos]
    found_desc = 0xFF ^ BINARY <= b <= 0xFF ^ NULL
    if not (_FIRST_ASC <= b <= _LAST_ASC or found_desc):
        return _not_a_type(key, pos)
    if found_desc != field.descending:
        found, direction = (("descending", "ascending") if found_desc
                            else ("ascending", "descending"))
        return DecodeError(f"{found} header in a field declared {direction}", offset=pos,
                           found=key[pos:pos + 1],
                           expected=f"a {direction} {field.type} or NULL")
    return _mismatch(key, pos, field)


def _mismatch(key: bytes, pos: int, field: Field) -> DecodeError:
    """*key* holds the value in ascending form (a descending one already complemented)."""
    h = key[pos]
    if h == FINAL_BINARY and field.type == "bytes":
        reason = "final binary in a field not declared final"
    elif h == BINARY and field.type == "bytes":
        reason = "binary (25) in a field declared final (26 expected)"
    else:
        reason = f"{_kind_of(h)} where the schema declares {field.type}"
    return DecodeError(reason, offset=pos, found=key[pos:pos + 1],
                       expected=f"{field.type} or NULL")


# -- per-field writing ----------------------------------------------------------------------


def _int_writer(field_type: str) -> Callable[[Any], bytes]:
    lo, hi = (INT_TYPES[field_type].min, INT_TYPES[field_type].max) \
        if field_type in INT_TYPES else (None, None)

    def write(v: Any) -> bytes:
        if type(v) is not int:
            if isinstance(v, bool) or not isinstance(v, int):
                extra = " (bool is refused in integer fields)" if isinstance(v, bool) else \
                    " (use a decimal field for non-integers)"
                raise UnsupportedTypeError(f"{type(v).__name__} value in an {field_type} field"
                                           + extra, value=v, expected="int")
            v = int(v)
        if lo is not None and hi is not None and not lo <= v <= hi:
            raise EncodeError(f"out of range for {field_type}", value=v,
                              expected=f"{lo}..{hi}")
        return _write_int(v)
    return write


def _write_decimal_field(v: Any) -> bytes:
    """A ``decimal`` field: int, float and Decimal in one numeric order (spec §11)."""
    writer = _NUMBER_WRITERS.get(type(v))
    if writer is None:
        writer = _number_writer_for(v)
    return writer(v)


def _write_float64_field(v: Any) -> bytes:
    if type(v) is float:
        return _write_float(v)
    if isinstance(v, float):
        return _write_float(float(v))
    if isinstance(v, int) and not isinstance(v, bool):
        # an exact int is written as the float it equals: one key per float64 value
        if v.bit_length() > 1024 or int(float(v)) != v:
            raise EncodeError("integer does not convert to float64 exactly", value=v,
                              expected="an int a float64 holds exactly (or a decimal field)")
        return _write_float(float(v))
    raise UnsupportedTypeError(f"{type(v).__name__} value in a float64 field", value=v,
                               expected="float or an exact int (use a decimal field for "
                               "Decimal)")


def _value_writer(field: Field) -> Callable[[Any], bytes]:
    t = field.type
    if t == "string":
        return _write_text
    if t == "bytes":
        return _write_final if field.options.get("final", False) else _write_binary
    if t == "decimal":
        return _write_decimal_field
    if t == "float64":
        return _write_float64_field
    return _int_writer(t)


# -- schemaless writing ---------------------------------------------------------------------

_SCHEMALESS_WRITERS: Final[dict[type, Callable[[Any], bytes]]] = {
    type(None): lambda v: b"\x05",
    int: _write_int,
    float: _write_float,
    decimal.Decimal: _write_decimal,
    str: _write_text,
    bytes: _write_binary,
    bytearray: _write_binary,
    memoryview: _write_binary,
}


def _schemaless_writer(value: Any) -> Callable[[Any], bytes]:
    if isinstance(value, bool):
        raise UnsupportedTypeError("bool is not an SQLite4 type", value=value,
                                   expected="None, int, float, Decimal, str or bytes")
    for kind in (int, float, decimal.Decimal, str, bytes):
        if isinstance(value, kind):
            writer = _SCHEMALESS_WRITERS[kind]
            # through the plain type: a subclass's __repr__/__str__ must not leak into a key
            plain: Callable[[Any], Any] = str.__str__ if kind is str else kind
            return lambda v: writer(plain(v))
    raise UnsupportedTypeError(f"{type(value).__name__} is not an SQLite4 type", value=value,
                               expected="None, int, float, Decimal, str or bytes")


# -- the codec ------------------------------------------------------------------------------


def _check_table(value: Any) -> str | None:
    if value is None or (type(value) is int and 0 <= value <= _VARINT_MAX):
        return None
    return "None or a table number 0..2^64-1 (an int)"


class Sqlite4Codec(BaseCodec):
    """SQLite4 keys (registry name ``sqlite4``); see the module docstring and
    ``specs/sqlite4.md``.

    >>> codec = Sqlite4Codec()
    >>> codec.encode((42, "abc", b"\\x01\\x02", decimal.Decimal("1.5"))).hex(" ")
    '18 54 24 61 62 63 00 25 80 c0 c0 00 18 03 64'
    >>> codec.decode(bytes.fromhex("18 54 db 9e 9d 9c ff"), "n:int, s:string desc")
    (42, 'abc')
    """

    name: ClassVar[str] = NAME
    OPTIONS: ClassVar = {
        "table": Option(None, "the table number written as a varint before the values "
                        "(None: no table number)", check=_check_table),
    }
    FIELD_OPTIONS: ClassVar = {
        "final": Option(False, "write a bytes field as SQLite4's final binary (26, raw bytes "
                        "to the end of the key); only the last field, only ascending",
                        choices=(True, False)),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        table = self.options["table"]
        self.table_prefix: bytes = b"" if table is None else encode_varint(table)
        # per-instance plain functions: the common case inline, the rest to the methods
        self.encode, self.decode = _fast_paths(self)  # type: ignore[method-assign]

    @property
    def capabilities(self) -> Capabilities:
        return CAPABILITIES

    def check_field(self, index: int, field: Field, schema: KeySchema) -> None:
        super().check_field(index, field, schema)
        if field.options.get("final", False):
            if field.type != "bytes":
                raise self.refuse(index, field, "final binary is a bytes form", "type bytes")
            if index != len(schema) - 1:
                raise self.refuse(index, field, "final binary is allowed only on the last "
                                  "field (it runs to the end of the key)", "the last field")
            if field.descending:
                raise self.refuse(index, field, "final binary cannot be descending: the "
                                  "inverted raw bytes have no terminator, so DESC 'a' (d9 9e) "
                                  "would sort before DESC 'ab' (d9 9e 9d)",
                                  "an ascending final field, or final=false")

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        write = _value_writer(field)
        if field.descending:
            def encode(v: Any) -> bytes:
                return b"\xfa" if v is None else invert(write(v))
        else:
            def encode(v: Any) -> bytes:
                return b"\x05" if v is None else write(v)
        return FieldPlan(index, field, encode, _field_reader(field))

    def make_bound(self, schema: KeySchema, plans: Sequence[FieldPlan]) -> BoundKey:
        return BoundSqlite4(self, schema, plans)

    # -- schemaless -----------------------------------------------------------------------

    def encode_schemaless(self, values: Sequence[Any]) -> bytes:
        """Types chosen from the values (spec §11); bytes never take the final form."""
        if not values:
            raise EncodeError("a key holds one or more values", codec=NAME, value=values,
                              expected="at least one value")
        parts = [self.table_prefix]
        for i, v in enumerate(values):
            writer = _SCHEMALESS_WRITERS.get(type(v))
            try:
                if writer is None:
                    writer = _schemaless_writer(v)
                parts.append(writer(v))
            except LexCodecError as exc:
                raise exc.add_context(codec=NAME, field=i) from None
        return b"".join(parts)

    def decode_schemaless(self, key: bytes) -> tuple[Any, ...]:
        """Decode from the header bytes alone: integral numbers as int, other finite numbers
        as Decimal, NaN/infinities as float, text as str, binary as bytes."""
        try:
            pos = self._skip_table(key)
            if pos >= len(key):
                raise DecodeError("empty key: at least one value is required", offset=pos,
                                  found=b"", expected="a value")
            out: list[Any] = []
            while pos < len(key):
                value, pos = _read_any(key, pos)
                out.append(value)
        except LexCodecError as exc:
            raise exc.add_context(codec=NAME) from None
        return tuple(out)

    # -- inspect --------------------------------------------------------------------------

    def inspect(self, key: bytes, schema: SchemaLike | None = None) -> Inspection:
        """Each value's header and class, exponent, mantissa digits, payload and terminator.

        A table-number prefix is a view of its own with ``index == -1`` (not a value), so
        the views still tile the key; the values are the views with ``index >= 0``.
        """
        data = as_key_bytes(NAME, key)
        parsed = None if schema is None else KeySchema.coerce(schema)
        self.decode(data, parsed)  # bytes that are not a key are refused, with the offset
        readers = ([p.decode for p in self.bind(parsed).plans] if parsed is not None
                   else None)
        start = self._skip_table(data)
        fields = []
        notes = []
        if start:
            table, _ = _read_varint(data, 0, False, "table number")
            fields.append(FieldView(-1, None, 0, start, table, (Part(
                0, start, "table", f"table number {table} (varint, always ascending)"),),
                "table number"))
            notes.append("the view with index -1 is the table-number prefix, not a value")
        pos = start
        i = 0
        while pos < len(data):
            reader = readers[i] if readers is not None else _read_any
            assert reader is not None
            value, end = reader(data, pos)
            f = parsed.fields[i] if parsed is not None else None
            fields.append(FieldView(i, f.name if f else None, pos, end, value,
                                    tuple(_value_parts(data, pos, end)), f.type if f else ""))
            if data[pos] == FINAL_BINARY:
                notes.append(f"value {i} is a final binary: it runs to the end of the key, "
                             "so this key is a prefix of longer ones")
            pos, i = end, i + 1
        return Inspection(NAME, data, tuple(fields), tuple(notes),
                          None if parsed is None else str(parsed))

    def _skip_table(self, key: bytes) -> int:
        """Check the table-number prefix; the offset of the first value."""
        prefix = self.table_prefix
        if not prefix:
            return 0
        if key.startswith(prefix):
            return len(prefix)
        table, _ = _read_varint(key, 0, False, "table number")
        raise DecodeError(f"table number {table}, expected {self.options['table']}",
                          offset=0, found=key[:len(prefix)], expected=prefix.hex(" "))

    def prefix_range(self, values: Sequence[Any], schema: SchemaLike | None = None
                     ) -> tuple[bytes, bytes | None]:
        if schema is None:
            if not values:
                return self._empty_range()
            start = self.encode_schemaless(values)
            return start, strinc(start)
        return self.bind(schema).prefix_range(values)

    def _empty_range(self) -> tuple[bytes, bytes | None]:
        if not self.table_prefix:
            return b"", EMPTY_PREFIX_STOP
        return self.table_prefix, strinc(self.table_prefix)

    def bind(self, schema: SchemaLike) -> BoundSqlite4:
        bound = super().bind(schema)
        assert isinstance(bound, BoundSqlite4)
        return bound


def _fast_paths(codec: Sqlite4Codec, speedups: Any = "default"
                ) -> tuple[Callable[..., bytes], Callable[..., tuple[Any, ...]]]:
    """The instance's ``encode`` and ``decode`` without a schema: exact types through the
    writer table, headers through the reader table, and anything else -- a schema, a
    subclass, a descending value, any error -- to the class's methods, which accept exactly
    the same and explain every refusal."""
    writers = _SCHEMALESS_WRITERS
    readers = _ASCENDING_READERS
    prefix = codec.table_prefix
    careful_encode = partial(Sqlite4Codec.encode, codec)
    careful_decode = partial(Sqlite4Codec.decode, codec)

    def encode_values(values: Sequence[Any]) -> bytes:
        if type(values) is tuple:
            try:
                if len(values) == 1:
                    v = values[0]
                    return prefix + writers[type(v)](v)
                if values:
                    return prefix + b"".join([writers[type(v)](v) for v in values])
            except Exception:
                pass
        return careful_encode(values)

    def decode_key(key: bytes) -> tuple[Any, ...]:
        if type(key) is bytes and not prefix:
            try:
                value, pos = readers[key[0]](key, 0)
                if pos == len(key):
                    return (value,)
                out = [value]
                while pos < len(key):
                    value, pos = readers[key[pos]](key, pos)
                    out.append(value)
                return tuple(out)
            except Exception:
                pass
        return careful_decode(key)

    if speedups == "default":
        speedups = _speedups()
    if speedups is not None:  # C first; it hands anything unusual to the Python above
        encode_values = partial(speedups.sqlite4_encode, None, encode_values, prefix)
        decode_key = partial(speedups.sqlite4_decode, None, decode_key, prefix)

    def encode(values: Sequence[Any], schema: SchemaLike | None = None) -> bytes:
        if schema is None:
            return encode_values(values)
        return careful_encode(values, schema)

    def decode(key: bytes, schema: SchemaLike | None = None) -> tuple[Any, ...]:
        if schema is None:
            return decode_key(key)
        return careful_decode(key, schema)

    return encode, decode


def _speedups() -> Any:
    """The optional C extension, when it has this codec's functions."""
    return speedups("sqlite4_decode")


#: field type -> the kind letter of lexcodecs/_speedups.c
_C_KINDS: Final = {
    "int": "n", "int8": "a", "int16": "b", "int32": "c", "int64": "d",
    "uint8": "A", "uint16": "B", "uint32": "C", "uint64": "D",
    "float64": "f", "decimal": "m", "string": "s", "bytes": "y",
}


def _c_spec(schema: KeySchema) -> bytes:
    """Two bytes per field for the C code: the kind letter and 1 when descending."""
    out = bytearray()
    for f in schema.fields:
        kind = "Y" if f.options.get("final", False) else _C_KINDS[f.type]
        out += bytes((ord(kind), f.descending))
    return bytes(out)


class BoundSqlite4(BoundKey):
    """A bound ``sqlite4`` schema: the table prefix, then the fields' encodings."""

    __slots__ = ("decode", "encode", "final", "table_prefix")

    def __init__(self, codec: Sqlite4Codec, schema: KeySchema, plans: Sequence[FieldPlan]
                 ) -> None:
        super().__init__(codec, schema, plans)
        self.table_prefix = codec.table_prefix
        self.final = bool(schema.fields[-1].options.get("final", False))
        # a slot shadowing the method: calls reach the compiled code with no frame between
        self.encode = _compile_encode(schema, self.table_prefix, self.careful_encode)  # type: ignore[method-assign,assignment]
        readers = [p.decode for p in self.plans]
        decode = (self.careful_decode if self.table_prefix
                  else _fast_decode(readers, self.careful_decode))  # type: ignore[arg-type]
        speedups = _speedups()
        if speedups is not None:  # C first, for the whole key; the unusual goes to Python
            spec = _c_spec(schema)
            self.encode = partial(speedups.sqlite4_encode, spec, self.encode, self.table_prefix)  # type: ignore[method-assign]
            decode = partial(speedups.sqlite4_decode, spec, decode, self.table_prefix)
        self.decode = decode  # type: ignore[method-assign,assignment]

    @property
    def prefix_free(self) -> bool:
        """False when the last field is a final binary: ``26 01`` is a prefix of ``26 01 02``."""
        return not self.final

    def careful_encode(self, values: Sequence[Any]) -> bytes:
        """The reference writing, field by field, with every refusal explained."""
        return self.table_prefix + BoundKey.encode(self, values)

    def careful_decode(self, key: bytes) -> tuple[Any, ...]:
        """The reference reading, with the field and offset of every error."""
        codec = self.codec
        assert isinstance(codec, Sqlite4Codec)
        data = as_key_bytes(NAME, key)
        try:
            start = codec._skip_table(data)
        except LexCodecError as exc:
            raise exc.add_context(codec=NAME) from None
        if not start:
            return BoundKey.decode(self, data)
        # offsets stay those of the whole key: the fields are read in place after the table
        out = []
        pos = start
        for i, plan in enumerate(self.plans):
            assert plan.decode is not None
            try:
                value, pos = plan.decode(data, pos)
            except LexCodecError as exc:
                raise self._context(exc, i) from None
            out.append(value)
        if pos != len(data):
            raise DecodeError("trailing bytes after the last field", codec=NAME, offset=pos,
                              found=data[pos:], expected="end of key")
        return tuple(out)

    def prefix_range(self, values: Sequence[Any]) -> tuple[bytes, bytes | None]:
        """``[P, strinc(P))`` (spec §13); a prefix holding a final binary is a whole key."""
        values = self._check_arity(values, prefix=True)
        if not values:
            codec = self.codec
            assert isinstance(codec, Sqlite4Codec)
            return codec._empty_range()
        start = self.table_prefix + self._encode_prefix(values)
        if self.final and len(values) == len(self.plans):
            return start, start + b"\x00"
        return start, strinc(start)


def _fast_decode(readers: Sequence[Callable[[bytes, int], tuple[Any, int]]],
                 careful: Callable[[bytes], tuple[Any, ...]]) -> Callable[[bytes], tuple[Any, ...]]:
    """The field readers in a tight loop; any error goes to *careful*, which adds context."""
    if len(readers) == 1:
        (read,) = readers

        def decode_one(key: bytes) -> tuple[Any, ...]:
            if type(key) is bytes:
                try:
                    value, pos = read(key, 0)
                    if pos == len(key):
                        return (value,)
                except Exception:
                    pass
            return careful(key)
        return decode_one

    def decode(key: bytes) -> tuple[Any, ...]:
        if type(key) is bytes:
            try:
                out = []
                pos = 0
                for read in readers:
                    value, pos = read(key, pos)
                    out.append(value)
                if pos == len(key):
                    return tuple(out)
            except Exception:
                pass
        return careful(key)
    return decode


def _compile_encode(schema: KeySchema, table: bytes, careful: Callable[[Sequence[Any]], bytes]
                    ) -> Callable[[Sequence[Any]], bytes]:
    """One function per schema writing the usual cases inline, else the careful path."""
    from ..._compile import value_names

    names, _ = value_names(len(schema))
    guards, exprs = [], []
    if table:
        exprs.append(repr(table))
    for name, f in zip(names, schema.fields):
        null = b"\xfa" if f.descending else b"\x05"
        t = f.type
        if t in ("int", "int64") or t in INT_TYPES:
            lo, hi = (INT_TYPES[t].min, INT_TYPES[t].max) if t in INT_TYPES else (None, None)
            rng = "" if lo is None else f" and {lo} <= {name} <= {hi}"
            guard, expr = f"type({name}) is int{rng}", f"write_int({name})"
        elif t == "float64":
            guard, expr = f"type({name}) is float", f"write_float({name})"
        elif t == "decimal":
            guard, expr = f"type({name}) in NUMBER_WRITERS", f"NUMBER_WRITERS[type({name})]({name})"
        elif t == "string":
            guard = f'type({name}) is str and "\\x00" not in {name}'
            expr = f'b"\\x24" + {name}.encode("utf-8") + b"\\x00"'
        elif f.options.get("final", False):
            guard, expr = f"type({name}) is bytes", f'b"\\x26" + {name}'
        else:
            guard, expr = f"type({name}) is bytes", f'b"\\x25" + binary_body({name})'
        if f.descending:
            expr = f"invert({expr})"
        guards.append(f"({name} is None or {guard})")
        exprs.append(f"({null!r} if {name} is None else {expr})")
    namespace = {"invert": invert, "write_int": _write_int, "write_float": _write_float,
                 "binary_body": encode_binary_body, "NUMBER_WRITERS": _NUMBER_WRITERS}
    return compile_encode(f"sqlite4 bound to {schema}", guards, exprs, b"", careful,
                          namespace)


# -- capabilities and anomalies -------------------------------------------------------------


def _exact_vs_repr_differ(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """At the first position where a and b differ exactly, one is a float and the other an
    int or Decimal, and comparing the float as its repr decimal gives another answer."""
    for x, y in zip(a, b):
        if x is None or y is None or type(x) is bool or type(y) is bool:
            if x is y:
                continue
            return False
        try:
            if x == y and type(x) is type(y):
                continue
        except TypeError:
            return False
        floats = [isinstance(v, float) for v in (x, y)]
        if floats[0] == floats[1]:
            return False
        if not all(isinstance(v, (int, float, decimal.Decimal)) for v in (x, y)):
            return False
        if any(isinstance(v, float) and not math.isfinite(v) for v in (x, y)):
            return False
        rx, ry = (decimal.Decimal(repr(v)) if isinstance(v, float) else decimal.Decimal(v)
                  for v in (x, y))
        exact = (x > y) - (x < y)
        by_repr = (rx > ry) - (rx < ry)
        return bool(exact != by_repr)
    return False


def _explain_repr(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return _exact_vs_repr_differ(a, b)


ANOMALIES: Final = (
    Anomaly("float-orders-as-repr", "order",
            "a float counts as the decimal of its shortest repr, not its exact binary value: "
            "1e23 is exactly 99999999999999991611392, yet it sorts as 1E+23, after "
            "Decimal('99999999999999991611392.5')",
            witness=((1e23,), (decimal.Decimal("99999999999999991611392.5"),)),
            explains=_explain_repr),
    Anomaly("float-shares-its-repr-decimal-key", "collision",
            "the float 0.1 (exactly 0.1000000000000000055511151231257827...) and "
            "Decimal('0.1') have the same key 17 14",
            witness=((0.1,), (decimal.Decimal("0.1"),)), explains=_explain_repr),
)

CAPABILITIES: Final = Capabilities(
    field_types={*INT_TYPES, "int", "decimal", "float64", "string", "bytes"},
    decoding="self-describing",
    descending=True,
    nulls="fixed",
    injective=True,
    prefix_free=True,
    schemaless=True,
    float_policy=FloatPolicy(nan="lowest", negative_zero="equal", compare="repr"),
    anomalies=ANOMALIES,
    int_range=None,
    text_nul=False,
    notes="byte-identical with the SQLite4 trunk key encoding (key_encoding.wiki); floats are "
          "written as the decimal of their shortest repr; keys ending in a final binary "
          "(bytes field with final=true) are not prefix-free",
)
