"""``orderly``: Orderly's HBase row keys, byte-identical with the Java library (quirks included).

Theory of operation: a key is an Orderly *struct*: the fields' encodings laid end to end, no
separators, no lengths. Each field type is one Java ``RowKey`` class (spec §14.2); its bytes
depend on the value, the field's *effective order* (declared, flipped by ``struct_order=desc``)
and one bit, ``t``: whether the field must write the bytes needed only when something follows
it (a NULL byte, a string terminator, ...). ``t`` comes from the field's *termination*:
``MUST`` -> true, ``SHOULD_NOT`` -> false, ``AUTO`` -> true exactly when descending (in
ascending order the end of the key is a fine terminator; in descending order it sorts at the
wrong end). The struct assigns terminations back to front (spec §11.3): the last non-empty
field gets the struct's termination, every field before it ``MUST``, and a trailing run of
empty fields disappears.

Descending is the ascending bytes XOR ``ff``, except the *reserved bits* at the top of a
var-int header (never inverted) and ``decimal``, whose digits and exponent are also inverted
for negative numbers. The types (spec §5-§10):

* var-ints (int32/int64/uint32/uint64, the default encoding): a header byte holding the sign,
  the length and the top data bits, then big-endian data bytes; 1..9 bytes, NULL ``00``;
* fixed ints: big-endian, sign bit flipped; no NULL;
* float32/float64: the IEEE order transform plus one, so NULL can be all zeros;
* decimal: an int32-layout var-int exponent whose two reserved bits hold the type
  (NULL/NEG/ZERO/POS), then BCD digits ``c+1`` with a zero-nibble terminator;
* string: each UTF-8 byte plus 2, terminator ``01``, NULL ``00``;
* bytes: fixed length raw, or variable-length "reversed packed BCD" (3 decimal digits per byte,
  digit nibbles 3..f, terminator nibble 1) after an optional raw prefix.

Decoding needs the schema (the format is not self-describing) and is strict: a field decodes
only when its bytes are what the encoder writes for the decoded value, terminated, or
unterminated at the end of the key. The checks are done by re-encoding: whatever the reading
of a field gives back must write exactly the bytes it came from. ``skip`` and
``serialized_length`` are Orderly's own ``RowKey`` operations, as public API.
"""

from __future__ import annotations

import decimal
import math
import struct
from collections.abc import Sequence
from functools import partial
from typing import Any, ClassVar, Final

import attrs

from ..._bytes import invert, strinc
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
from ...types import Float32

__all__ = [
    "TERMINATIONS",
    "VARINTS",
    "BoundOrderly",
    "OrderlyCodec",
    "VarIntLayout",
]

NAME: Final = "orderly"

AUTO, MUST, SHOULD_NOT = "AUTO", "MUST", "SHOULD_NOT"
TERMINATIONS: Final = (AUTO, MUST, SHOULD_NOT)

# -- var-int layouts (spec §5.1) ------------------------------------------------------------


@attrs.frozen
class VarIntLayout:
    """One var-int class: header data bits in the single (``s``), double (``d``) and
    extended (``e``) forms, the extended length-field width ``lb``, the longest form."""

    type: str
    signed: bool
    s: int
    d: int
    lb: int
    e: int
    max_length: int
    lo: int
    hi: int


VARINTS: Final[dict[str, VarIntLayout]] = {
    "int64": VarIntLayout("int64", True, 6, 5, 3, 2, 9, -(2**63), 2**63 - 1),
    "int32": VarIntLayout("int32", True, 6, 5, 2, 3, 5, -(2**31), 2**31 - 1),
    "uint64": VarIntLayout("uint64", False, 7, 6, 3, 3, 9, 0, 2**64 - 1),
    "uint32": VarIntLayout("uint32", False, 7, 6, 2, 4, 5, 0, 2**32 - 1),
}
#: the decimal exponent: the int32 layout, in a 64-bit variable (spec §8.1)
_EXPONENT: Final = attrs.evolve(VARINTS["int32"], type="decimal exponent",
                                lo=-(2**63), hi=2**63 - 1)
#: fixed ints: width in bytes and range
FIXED_INTS: Final[dict[str, tuple[int, int, int]]] = {
    "int32": (4, -(2**31), 2**31 - 1), "int64": (8, -(2**63), 2**63 - 1),
    "uint32": (4, 0, 2**32 - 1), "uint64": (8, 0, 2**64 - 1),
}
#: decimal types in the two reserved bits of the exponent (spec §8.1)
DEC_NULL, DEC_NEG, DEC_ZERO, DEC_POS = 0, 1, 2, 3
#: var-bytes: decimal digit -> nibble (spec §10.2); nibble 1 is the terminator
_DIGIT_NIBBLE: Final = (3, 4, 5, 6, 7, 9, 0xA, 0xC, 0xE, 0xF)
#: a byte -> its three decimal digits as nibble hex characters ("ff" -> 255 -> "591")
_BYTE_NIBBLES: Final = ["".join(f"{_DIGIT_NIBBLE[int(c)]:x}" for c in f"{b:03d}")
                        for b in range(256)]
#: nibble hex characters back to decimal digits; the nibbles that are not digits -> "x"
_NIBBLE_TO_DIGIT: Final = str.maketrans(
    {**{c: "x" for c in "0123456789abcdef"},
     **{f"{n:x}": str(d) for d, n in enumerate(_DIGIT_NIBBLE)}})
#: string bytes are UTF-8 + 2, leaving 00 (NULL) and 01 (terminator)
_PLUS2: Final = bytes((b + 2) & 0xFF for b in range(256))
_MINUS2: Final = bytes((b - 2) & 0xFF for b in range(256))
_F32 = struct.Struct(">f")
_F64 = struct.Struct(">d")
_U32 = struct.Struct(">I")
_U64 = struct.Struct(">Q")


def _mask_bytes(data: bytes, mask: int) -> bytes:
    return invert(data) if mask else data


def _truncated(key: bytes, what: str) -> DecodeError:
    return DecodeError(f"truncated: {what}", offset=len(key), found=b"",
                       expected="more bytes")


# -- var-ints (spec §5) ---------------------------------------------------------------------


def _varint_length(x: int, lay: VarIntLayout, r: int) -> tuple[int, int]:
    """(L, H): the length of *x* and how many data bits its header holds."""
    bits = (~x if x < 0 else x).bit_length()
    if bits <= lay.s - r:
        return 1, lay.s - r
    if bits <= lay.d - r + 8:
        return 2, lay.d - r
    return 1 + ((bits - (lay.e - r) + 7) >> 3), lay.e - r


def _varint_bytes(x: int, lay: VarIntLayout, mask: int, r: int = 0, v: int = 0) -> bytes:
    """The var-int of *x* (in range), with *r* reserved bits holding *v* (spec §5.4)."""
    length, h_bits = _varint_length(x, lay, r)
    negative = x < 0
    if lay.signed:
        if length == 1:
            template = 0x40 if negative else 0x80
        elif length == 2:
            template = 0x20 if negative else 0xC0
        elif negative:
            template = ((length - 3) ^ ((1 << lay.lb) - 1)) << lay.e
        else:
            template = 0xE0 + ((length - 3) << lay.e)
    else:
        template = 0x00 if length == 1 else 0x80 if length == 2 else \
            0xC0 + ((length - 3) << lay.e)
    if length > lay.max_length:
        raise EncodeError(f"needs {length} bytes, more than the {lay.max_length} of the "
                          f"{lay.type} layout", value=x,
                          expected=f"at most {lay.max_length} bytes")
    # the Java code extracts the header bits of a 9-byte long with a shift that loses them
    hdata = 0 if length == 9 else (x >> (8 * (length - 1))) & ((1 << h_bits) - 1)
    h = (template >> r) | hdata
    if not lay.signed:
        h += 1
    header = ((h ^ mask) & (0xFF >> r)) | (v << (8 - r) if r else 0)
    data = (x & ((1 << (8 * (length - 1))) - 1)).to_bytes(length - 1, "big")
    return bytes((header,)) + _mask_bytes(data, mask)


def _varint_null(mask: int, r: int = 0, v: int = 0) -> bytes:
    return bytes(((mask & (0xFF >> r)) | (v << (8 - r) if r else 0),))


def _varint_span(key: bytes, pos: int, lay: VarIntLayout, mask: int, r: int
                 ) -> tuple[int, int]:
    """(L, u) of the var-int header at *pos*: L = 0 for the NULL header (spec §5.8)."""
    u = (key[pos] ^ mask) & (0xFF >> r)
    if u == 0:
        return 0, 0
    if not lay.signed:
        u -= 1
    g = (u << r) & 0xFF
    ones = (1 << lay.lb) - 1
    if lay.signed and not g & 0x80:  # negative: flags and length field inverted
        length = 1 if g & 0x40 else 2 if g & 0x20 else (((~g) >> lay.e) & ones) + 3
    elif lay.signed:
        length = 1 if not g & 0x40 else 2 if not g & 0x20 else ((g >> lay.e) & ones) + 3
    else:
        length = 1 if not g & 0x80 else 2 if not g & 0x40 else ((g >> lay.e) & ones) + 3
    if length > lay.max_length:
        raise DecodeError(f"header {key[pos]:02x} gives a length of {length}, more than the "
                          f"{lay.max_length} of {lay.type}", offset=pos,
                          found=key[pos:pos + 1], expected=f"a {lay.type} header")
    if pos + length > len(key):
        raise _truncated(key, f"{lay.type} of {length} bytes")
    return length, u


def _read_varint(key: bytes, pos: int, lay: VarIntLayout, mask: int, r: int = 0, v: int = 0
                 ) -> tuple[int | None, int]:
    """(value or None for the NULL header, offset after); checked by re-encoding."""
    if r and key[pos] >> (8 - r) != v:
        raise DecodeError(f"reserved bits {key[pos] >> (8 - r):0{r}b}, the field reserves "
                          f"{v:0{r}b}", offset=pos, found=key[pos:pos + 1],
                          expected=f"reserved value {v}")
    length, u = _varint_span(key, pos, lay, mask, r)
    if length == 0:
        return None, pos + 1
    data = int.from_bytes(_mask_bytes(key[pos + 1:pos + length], mask), "big")
    if length == 9:
        c, width = data, 64
    else:
        h_bits = lay.s - r if length == 1 else lay.d - r if length == 2 else lay.e - r
        c = ((u & ((1 << h_bits) - 1)) << (8 * (length - 1))) | data
        width = h_bits + 8 * (length - 1)
    negative = lay.signed and not (u << r) & 0x80
    x = c - (1 << width) if negative else c
    if not lay.lo <= x <= lay.hi:
        raise DecodeError(f"{x} is out of range for {lay.type}", offset=pos,
                          found=key[pos:pos + length], expected=f"{lay.lo}..{lay.hi}")
    if _varint_bytes(x, lay, mask, r, v) != key[pos:pos + length]:
        raise DecodeError(f"non-canonical {lay.type}: {x} is written "
                          f"{_varint_bytes(x, lay, mask, r, v).hex(' ')}", offset=pos,
                          found=key[pos:pos + length], expected="the shortest form")
    return x, pos + length


# -- field codecs ---------------------------------------------------------------------------
#
# Each field type is a small object with write(value, t) -> bytes, length(value, t) -> int,
# read(key, pos) -> (value, next offset) and skip(key, pos) -> next offset. Values are
# checked by check(value) -> the value to write, once, before anything is written.


def _int_value(v: Any, field_type: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise UnsupportedTypeError(f"{type(v).__name__} value in an {field_type} field"
                                   + (" (bool is refused)" if isinstance(v, bool) else ""),
                                   value=v, expected="int")
    n = int(v)
    if not lo <= n <= hi:
        raise EncodeError(f"{n} is out of range {lo}..{hi}", value=n,
                          expected=f"{lo}..{hi} ({field_type})")
    return n


class _FieldCodec:
    """Base: a nullable field whose NULL is one masked ``00`` byte when terminated."""

    nullable: ClassVar[bool] = True

    def __init__(self, field: Field, desc: bool) -> None:
        self.field = field
        self.desc = desc
        self.mask = 0xFF if desc else 0

    def check(self, v: Any) -> Any:
        return v

    def write_null(self, t: bool) -> bytes:
        return bytes((self.mask,)) if t else b""

    def null_length(self, t: bool) -> int:
        return 1 if t else 0

    def write(self, v: Any, t: bool) -> bytes:
        raise NotImplementedError

    def length(self, v: Any, t: bool) -> int:
        return len(self.write(v, t))

    def read(self, key: bytes, pos: int) -> tuple[Any, int]:
        raise NotImplementedError

    def skip(self, key: bytes, pos: int) -> int:
        return self.read(key, pos)[1]


class _VarInt(_FieldCodec):
    def __init__(self, field: Field, desc: bool) -> None:
        super().__init__(field, desc)
        self.lay = VARINTS[field.type]
        self.r = int(field.options.get("reserved_bits", 0))
        self.v = int(field.options.get("reserved_value", 0))

    def check(self, v: Any) -> int:
        return _int_value(v, self.field.type, self.lay.lo, self.lay.hi)

    def write_null(self, t: bool) -> bytes:
        return _varint_null(self.mask, self.r, self.v) if t else b""

    def write(self, v: Any, t: bool) -> bytes:
        return _varint_bytes(v, self.lay, self.mask, self.r, self.v)

    def length(self, v: Any, t: bool) -> int:
        return _varint_length(v, self.lay, self.r)[0]

    def read(self, key: bytes, pos: int) -> tuple[Any, int]:
        if pos >= len(key):
            return None, pos
        return _read_varint(key, pos, self.lay, self.mask, self.r, self.v)

    def skip(self, key: bytes, pos: int) -> int:
        if pos >= len(key):
            return pos
        length, _ = _varint_span(key, pos, self.lay, self.mask, self.r)
        return pos + max(length, 1)


class _FixedInt(_FieldCodec):
    nullable = False

    def __init__(self, field: Field, desc: bool) -> None:
        super().__init__(field, desc)
        self.width, self.lo, self.hi = FIXED_INTS[field.type]
        self.bias = -self.lo  # the sign flip of the signed types: x + 2**(n-1)

    def check(self, v: Any) -> int:
        if v is None:
            raise EncodeError("fixed-width ints have no NULL (Java: NullPointerException)",
                              value=v, expected=f"an {self.field.type} value")
        return _int_value(v, self.field.type, self.lo, self.hi)

    def write(self, v: Any, t: bool) -> bytes:
        return _mask_bytes((v + self.bias).to_bytes(self.width, "big"), self.mask)

    def length(self, v: Any, t: bool) -> int:
        return self.width

    def read(self, key: bytes, pos: int) -> tuple[Any, int]:
        end = pos + self.width
        if end > len(key):
            raise _truncated(key, f"fixed {self.field.type} of {self.width} bytes")
        return int.from_bytes(_mask_bytes(key[pos:end], self.mask), "big") - self.bias, end

    def skip(self, key: bytes, pos: int) -> int:
        if pos + self.width > len(key):
            raise _truncated(key, f"fixed {self.field.type} of {self.width} bytes")
        return pos + self.width


class _Float(_FieldCodec):
    def __init__(self, field: Field, desc: bool) -> None:
        super().__init__(field, desc)
        self.width = 4 if field.type == "float32" else 8
        self.bits = 8 * self.width
        self.canonical_nan = 0x7FC00000 if self.width == 4 else 0x7FF8000000000000

    def check(self, v: Any) -> Any:
        if self.width == 8:
            if isinstance(v, float):
                return float(v)
            raise UnsupportedTypeError(f"{type(v).__name__} value in a float64 field",
                                       value=v, expected="float")
        if isinstance(v, Float32):
            return v
        if isinstance(v, float):
            if not Float32.is_exact(v):
                raise EncodeError("not exactly representable in binary32 (round it with "
                                  "Float32 first)", value=v, expected="a binary32 value")
            return Float32(v)
        raise UnsupportedTypeError(f"{type(v).__name__} value in a float32 field", value=v,
                                   expected="Float32 or a binary32-exact float")

    def _raw_bits(self, v: Any) -> int:
        if v != v:
            return self.canonical_nan
        if self.width == 4:
            return int(v.bits)
        return int(_U64.unpack(_F64.pack(v))[0])

    def write_null(self, t: bool) -> bytes:
        return bytes((self.mask,)) * self.width if t else b""

    def null_length(self, t: bool) -> int:
        return self.width if t else 0

    def write(self, v: Any, t: bool) -> bytes:
        b = self._raw_bits(v)
        top = 1 << (self.bits - 1)
        b = b ^ ((top << 1) - 1) if b & top else b | top
        b = (b + 1) & ((1 << self.bits) - 1)
        return _mask_bytes(b.to_bytes(self.width, "big"), self.mask)

    def length(self, v: Any, t: bool) -> int:
        return self.width

    def read(self, key: bytes, pos: int) -> tuple[Any, int]:
        if pos >= len(key):
            return None, pos
        end = pos + self.width
        if end > len(key):
            raise _truncated(key, f"{self.field.type} of {self.width} bytes")
        b = int.from_bytes(_mask_bytes(key[pos:end], self.mask), "big")
        if b == 0:
            return None, end
        b -= 1
        top = 1 << (self.bits - 1)
        b = b ^ top if b & top else b ^ ((top << 1) - 1)
        if self.width == 4:
            value: Any = Float32.from_bits(b)
        else:
            value = float(_F64.unpack(_U64.pack(b))[0])
        if value != value and b != self.canonical_nan:
            raise DecodeError("non-canonical NaN (the encoder writes every NaN as "
                              f"{self.canonical_nan:x})", offset=pos, found=key[pos:end],
                              expected="a canonical NaN")
        return value, end

    def skip(self, key: bytes, pos: int) -> int:
        if pos >= len(key):
            return pos
        if pos + self.width > len(key):
            raise _truncated(key, f"{self.field.type} of {self.width} bytes")
        return pos + self.width


#: Python's Decimal exponent range a Java int scale can hold (2**31 with the overflow quirk)
_DEC_EXP_MIN, _DEC_EXP_MAX = -(2**31 - 1), 2**31


class _Decimal(_FieldCodec):
    def check(self, v: Any) -> Any:
        if isinstance(v, bool) or not isinstance(v, (int, decimal.Decimal)):
            raise UnsupportedTypeError(f"{type(v).__name__} value in a decimal field", value=v,
                                       expected="Decimal or int")
        if isinstance(v, int):
            return decimal.Decimal(int(v))
        if not v.is_finite():
            raise EncodeError("NaN and infinite decimals are not encodable (Java BigDecimal "
                              "has none)", value=v, expected="a finite Decimal")
        parts = self._parts(v)
        if parts is not None:
            exponent = parts[2]
            if not _DEC_EXP_MIN <= exponent <= _DEC_EXP_MAX:
                raise EncodeError("exponent outside what a Java BigDecimal scale holds",
                                  value=v, expected=f"an exponent (after removing trailing "
                                  f"zeros) within {_DEC_EXP_MIN}..{_DEC_EXP_MAX}")
            exp = self._adjusted(parts)
            if _varint_length(exp, _EXPONENT, 2)[0] > 5:
                raise EncodeError("adjusted exponent needs more than 5 bytes", value=v,
                                  expected="a smaller exponent")
        return v

    @staticmethod
    def _parts(v: decimal.Decimal) -> tuple[bool, str, int] | None:
        """(negative, digits without leading/trailing zeros, Python exponent); None for 0."""
        sign, digit_tuple, exponent = v.as_tuple()
        assert isinstance(exponent, int)
        digits = "".join(map(str, digit_tuple)).lstrip("0")
        if not digits:
            return None
        stripped = digits.rstrip("0")
        return bool(sign), stripped, exponent + len(digits) - len(stripped)

    @staticmethod
    def _adjusted(parts: tuple[bool, str, int]) -> int:
        _, digits, exponent = parts
        if exponent == _DEC_EXP_MAX:  # Java: -scale overflows to -2**31
            exponent = -(2**31)
        return len(digits) + exponent - 1

    def _type_bits(self, kind: int) -> int:
        return kind ^ (3 if self.desc else 0)

    def write_null(self, t: bool) -> bytes:
        return _varint_null(self.mask, 2, self._type_bits(DEC_NULL)) if t else b""

    def write(self, v: Any, t: bool) -> bytes:
        parts = self._parts(v)
        if parts is None:
            return _varint_null(self.mask, 2, self._type_bits(DEC_ZERO))
        negative, digits, _ = parts
        kind = DEC_NEG if negative else DEC_POS
        m = self.mask ^ (0xFF if negative else 0)
        head = _varint_bytes(self._adjusted(parts), _EXPONENT, m, 2, self._type_bits(kind))
        nibbles = [int(c) + 1 for c in digits] + [0] * (2 if t else 1)
        if len(nibbles) & 1:
            nibbles.pop()
        body = bytes((nibbles[i] << 4) | nibbles[i + 1] for i in range(0, len(nibbles), 2))
        return head + _mask_bytes(body, m)

    def length(self, v: Any, t: bool) -> int:
        parts = self._parts(v)
        if parts is None:
            return 1
        exp_length = _varint_length(self._adjusted(parts), _EXPONENT, 2)[0]
        return exp_length + ((len(parts[1]) + (2 if t else 1)) >> 1)

    def read(self, key: bytes, pos: int) -> tuple[Any, int]:
        if pos >= len(key):
            return None, pos
        stored = key[pos] >> 6
        kind = stored ^ (3 if self.desc else 0)
        m = self.mask ^ (0xFF if kind == DEC_NEG else 0)
        exp, at = _read_varint(key, pos, _EXPONENT, m, 2, stored)
        if exp is None:
            if kind == DEC_NULL:
                return None, at
            if kind == DEC_ZERO:
                return decimal.Decimal(0), at
            raise DecodeError("a signed decimal with the NULL exponent header", offset=pos,
                              found=key[pos:pos + 1], expected="an exponent")
        if kind in (DEC_NULL, DEC_ZERO):
            raise DecodeError("a NULL or zero decimal with an exponent", offset=pos,
                              found=key[pos:at], expected="the one-byte NULL/zero header")
        digits, end = self._read_digits(key, at, m, pos)
        exponent = exp - len(digits) + 1
        if not -(2**31) <= exponent <= 2**31 - 1:
            raise DecodeError("exponent outside a Java BigDecimal scale", offset=pos,
                              found=key[pos:end], expected=f"{-(2**31)}..{2**31 - 1}")
        if exponent == -(2**31):
            exponent = _DEC_EXP_MAX  # the inverse of the Java scale overflow
        value = decimal.Decimal(f"{'-' if kind == DEC_NEG else ''}{digits}E{exponent}")
        # the acceptance rule: exactly what the encoder writes, terminated or at the end not
        raw = key[pos:end]
        if raw != self.write(value, True) and (end != len(key) or raw != self.write(value,
                                                                                      False)):
            raise DecodeError("non-canonical decimal", offset=pos, found=raw,
                              expected=self.write(value, True).hex(" "))
        return value, end

    @staticmethod
    def _read_digits(key: bytes, at: int, m: int, start: int) -> tuple[str, int]:
        """The BCD digits from *at*; value-level errors point at the field's *start*."""
        digits: list[str] = []
        i = at
        while True:
            if i >= len(key):  # unterminated at the end of the key: an even count
                break
            b = key[i] ^ m
            hi, lo = b >> 4, b & 0xF
            if hi == 0:
                if lo:
                    raise DecodeError("digit nibble after the terminator", offset=i,
                                      found=key[i:i + 1], expected="00 after a terminator")
                i += 1
                break
            if hi > 10 or lo > 10:
                raise DecodeError(f"BCD byte {b:02x} holds a nibble above 10", offset=i,
                                  found=key[i:i + 1], expected="nibbles 1..10, 0 to end")
            digits.append(str(hi - 1))
            i += 1
            if lo == 0:
                break
            digits.append(str(lo - 1))
        text = "".join(digits)
        if not text:
            raise DecodeError("a signed decimal without digits", offset=at,
                              found=key[at:at + 1], expected="BCD digits")
        if text[0] == "0" or text[-1] == "0":
            raise DecodeError("non-canonical decimal: a leading or trailing zero digit",
                              offset=start, found=key[start:i], expected="digits without them")
        return text, i

    def skip(self, key: bytes, pos: int) -> int:
        if pos >= len(key):
            return pos
        stored = key[pos] >> 6
        kind = stored ^ (3 if self.desc else 0)
        m = self.mask ^ (0xFF if kind == DEC_NEG else 0)
        length, _ = _varint_span(key, pos, _EXPONENT, m, 2)
        if length == 0:
            return pos + 1
        i = pos + length
        while i < len(key):
            b = key[i] ^ m
            i += 1
            if not b >> 4 or not b & 0xF:
                break
        return i


class _String(_FieldCodec):
    def check(self, v: Any) -> Any:
        if not isinstance(v, str):
            raise UnsupportedTypeError(f"{type(v).__name__} value in a string field", value=v,
                                       expected="str (use a bytes field for bytes)")
        try:
            v.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise EncodeError("lone surrogate is not encodable as UTF-8",
                              value=v[exc.start:exc.end],
                              expected="a str without lone surrogates") from None
        return v

    def write(self, v: Any, t: bool) -> bytes:
        data = v.encode("utf-8").translate(_PLUS2)
        if t or not data:
            data += b"\x01"
        return _mask_bytes(data, self.mask)

    def length(self, v: Any, t: bool) -> int:
        return max(len(v.encode("utf-8")) + (1 if t else 0), 1)

    def _end(self, key: bytes, pos: int) -> tuple[int, int]:
        """(end of the content, end of the field)."""
        term = key.find(bytes((1 ^ self.mask,)), pos)
        return (len(key), len(key)) if term < 0 else (term, term + 1)

    def read(self, key: bytes, pos: int) -> tuple[Any, int]:
        if pos >= len(key):
            return None, pos
        first = key[pos] ^ self.mask
        if first == 0:
            return None, pos + 1
        content_end, end = self._end(key, pos)
        raw = _mask_bytes(key[pos:content_end], self.mask).translate(_MINUS2)
        try:
            return raw.decode("utf-8"), end
        except UnicodeDecodeError as exc:
            raise DecodeError(f"invalid UTF-8 in a string ({exc.reason}, content byte "
                              f"{exc.start})", offset=pos, found=key[pos:end],
                              expected="UTF-8 bytes + 2") from None

    def skip(self, key: bytes, pos: int) -> int:
        if pos >= len(key):
            return pos
        if key[pos] ^ self.mask == 0:
            return pos + 1
        return self._end(key, pos)[1]


class _FixedBytes(_FieldCodec):
    nullable = False

    def __init__(self, field: Field, desc: bool) -> None:
        super().__init__(field, desc)
        self.n = int(field.options["length"])

    def check(self, v: Any) -> Any:
        if v is None:
            raise EncodeError("fixed byte arrays have no NULL (Java: NullPointerException)",
                              value=v, expected=f"{self.n} bytes")
        data = _bytes_value(v)
        if len(data) != self.n:
            raise EncodeError(f"fixed byte array of length {self.n} given {len(data)} bytes",
                              value=v, expected=f"exactly {self.n} bytes")
        return data

    def write(self, v: Any, t: bool) -> bytes:
        return _mask_bytes(v, self.mask)

    def length(self, v: Any, t: bool) -> int:
        return self.n

    def read(self, key: bytes, pos: int) -> tuple[Any, int]:
        end = self.skip(key, pos)
        return _mask_bytes(key[pos:end], self.mask), end

    def skip(self, key: bytes, pos: int) -> int:
        if pos + self.n > len(key):
            raise _truncated(key, f"fixed byte array of {self.n} bytes")
        return pos + self.n


def _bytes_value(v: Any) -> bytes:
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    raise UnsupportedTypeError(f"{type(v).__name__} value in a bytes field", value=v,
                               expected="bytes (use a string field for str)")


class _VarBytes(_FieldCodec):
    def __init__(self, field: Field, desc: bool) -> None:
        super().__init__(field, desc)
        self.p = int(field.options.get("prefix_length", 0))
        self.nullable = self.p == 0  # type: ignore[misc]  # Java cannot write NULL after a prefix

    def check(self, v: Any) -> Any:
        if v is None:
            if self.p:
                raise EncodeError("NULL is not encodable with a raw prefix (Java: "
                                  "IllegalStateException)", value=v,
                                  expected=f"at least {self.p} bytes")
            return v
        data = _bytes_value(v)
        if len(data) < self.p:
            raise EncodeError(f"value shorter than the raw prefix of {self.p} bytes",
                              value=v, expected=f"at least {self.p} bytes")
        return data

    def write(self, v: Any, t: bool) -> bytes:
        rest = v[self.p:]
        d = 3 * len(rest)
        size = (d + 2) // 2 if t else (1 if d == 0 else (d + 1) // 2)
        # each byte's three digit nibbles as hex characters, terminator nibbles "1" to fill
        # the last byte, and bytes.fromhex packs them: no per-nibble Python step
        nibbles = "".join(map(_BYTE_NIBBLES.__getitem__, rest)) + "1" * (2 * size - d)
        return _mask_bytes(v[:self.p] + bytes.fromhex(nibbles), self.mask)

    def length(self, v: Any, t: bool) -> int:
        d = 3 * (len(v) - self.p)
        return self.p + ((d + 2) // 2 if t else (1 if d == 0 else (d + 1) // 2))

    def _end(self, key: bytes, pos: int) -> int:
        i = pos
        while i < len(key):
            b = key[i] ^ self.mask
            i += 1
            if b & 0xF == 1 or b >> 4 == 1:
                break
        return i

    def read(self, key: bytes, pos: int) -> tuple[Any, int]:
        if self.p == 0:
            if pos >= len(key):
                return None, pos
            if key[pos] ^ self.mask == 0:  # Java writes it but cannot read it; we can
                return None, pos + 1
        if pos + self.p > len(key):
            raise _truncated(key, f"raw prefix of {self.p} bytes")
        start = pos + self.p
        if start >= len(key):
            raise _truncated(key, "variable-length bytes (at least the 11 byte)")
        end = self._end(key, start)
        nibbles = _mask_bytes(key[start:end], self.mask).hex()
        term = nibbles.find("1")
        if term >= 0 and nibbles[term:] != "1" * (len(nibbles) - term):
            raise DecodeError("digit after the terminator nibble", offset=start + term // 2,
                              found=key[start + term // 2:][:1],
                              expected="terminator nibbles to the end of the byte")
        digits = (nibbles if term < 0 else nibbles[:term]).translate(_NIBBLE_TO_DIGIT)
        bad = digits.find("x")
        if bad >= 0:
            raise DecodeError(f"nibble {nibbles[bad]} is not a digit", offset=start + bad // 2,
                              found=key[start + bad // 2:][:1],
                              expected="digit nibbles 3 4 5 6 7 9 a c e f, or 1")
        if len(digits) % 3:
            raise DecodeError(f"{len(digits)} digits, not a multiple of 3", offset=start,
                              found=key[start:end], expected="3 digits per byte")
        values = [int(digits[k:k + 3]) for k in range(0, len(digits), 3)]
        if any(x > 255 for x in values):
            raise DecodeError("a 3-digit group above 255", offset=start, found=key[start:end],
                              expected="groups 000..255")
        value = _mask_bytes(key[pos:start], self.mask) + bytes(values)
        # terminated or (at the end of the key) unterminated, exactly as written
        raw, terminated = key[pos:end], self.write(value, True)
        if raw != terminated and (end != len(key) or raw != self.write(value, False)):
            raise DecodeError("non-canonical variable-length bytes", offset=pos,
                              found=raw, expected=terminated.hex(" "))
        return value, end

    def skip(self, key: bytes, pos: int) -> int:
        if self.p == 0:
            if pos >= len(key):
                return pos
            if key[pos] ^ self.mask == 0:
                return pos + 1
        if pos + self.p >= len(key):
            raise _truncated(key, "variable-length bytes")
        return self._end(key, pos + self.p)


def _field_codec(field: Field, desc: bool) -> _FieldCodec:
    t = field.type
    encoding = field.options.get("encoding", "var")
    if t in VARINTS:
        return (_VarInt if encoding == "var" else _FixedInt)(field, desc)
    if t in ("float32", "float64"):
        return _Float(field, desc)
    if t == "decimal":
        return _Decimal(field, desc)
    if t == "string":
        return _String(field, desc)
    return (_VarBytes if encoding == "var" else _FixedBytes)(field, desc)


# -- inspect --------------------------------------------------------------------------------
#
# The parts of one field already read (so well formed), from its codec object, its span and
# its value. Texts give the ascending meaning; a descending field says "inverted".

_DEC_TYPE_NAMES: Final = {DEC_NULL: "NULL", DEC_NEG: "NEG", DEC_ZERO: "ZERO", DEC_POS: "POS"}


def _inverted(mask: int) -> str:
    return ", inverted (descending)" if mask else ""


def _varint_parts(fc: _VarInt, key: bytes, pos: int, end: int, value: int | None
                  ) -> list[Part]:
    lay, r, mask = fc.lay, fc.r, fc.mask
    reserved = f", reserved bits {fc.v:0{r}b} (never inverted)" if r else ""
    if value is None:
        return [Part(pos, pos + 1, "null", f"NULL header{reserved}{_inverted(mask)}")]
    length = end - pos
    u = (key[pos] ^ mask) & (0xFF >> r)
    if not lay.signed:
        u -= 1
    h_bits = lay.s - r if length == 1 else lay.d - r if length == 2 else lay.e - r
    text = f"{lay.type} header: " + ("negative, " if value < 0 else "non-negative, "
                                     if lay.signed else "")
    text += f"length {length}"
    if length == 9:
        text += ", header data bits 00 (ignored in the 9-byte form)" + (
            ", quirk long-9-byte-negative-header" if value < 0 else "")
    elif h_bits:
        text += f", {h_bits} data bit(s) {u & ((1 << h_bits) - 1):0{h_bits}b}"
    else:
        text += ", no header data bits"
    if not lay.signed:
        text += ", stored + 1 (00 is NULL)"
    parts = [Part(pos, pos + 1, "header", text + reserved + _inverted(mask))]
    if length > 1:
        parts.append(Part(pos + 1, end, "data", f"{length - 1} data byte(s), big-endian "
                          f"after the header data bits: {value}{_inverted(mask)}"))
    return parts


def _decimal_parts(fc: _Decimal, key: bytes, pos: int, end: int, value: Any) -> list[Part]:
    stored = key[pos] >> 6
    kind = stored ^ (3 if fc.desc else 0)
    type_text = f"type {_DEC_TYPE_NAMES[kind]} (top bits {stored:02b}" + (
        f", {kind:02b} inverted (descending))" if fc.desc else ")")
    if value is None:
        return [Part(pos, pos + 1, "null", f"NULL: {type_text}, NULL exponent header")]
    parts_of = _Decimal._parts(value)
    if parts_of is None:
        return [Part(pos, pos + 1, "type", f"zero: {type_text}, no exponent, no digits")]
    m = fc.mask ^ (0xFF if kind == DEC_NEG else 0)
    exp, at = _read_varint(key, pos, _EXPONENT, m, 2, stored)
    how = (", complemented (negative)" if kind == DEC_NEG else "") + _inverted(fc.mask)
    if kind == DEC_NEG and fc.desc:
        how = ", complemented (negative) and inverted (descending), which cancel"
    parts = [Part(pos, at, "exponent", f"{type_text}, adjusted exponent {exp} "
                  f"({at - pos}-byte int32-layout var-int{how})")]
    digits = parts_of[1]
    n = len(digits)
    digit_bytes = (n + 1) // 2
    text = f"BCD digits {digits} (nibble = digit + 1{how})"
    if end - at == digit_bytes + 1:
        parts.append(Part(at, at + digit_bytes, "digits", text))
        parts.append(Part(at + digit_bytes, end, "terminator",
                          f"terminator nibbles 0 (even digit count){how}"))
    elif n % 2:
        parts.append(Part(at, end, "digits", text + "; the last low nibble 0 is the "
                          "terminator"))
    else:
        quirk = " (quirk decimal-negative-prefix)" if kind == DEC_NEG and not fc.desc else ""
        parts.append(Part(at, end, "digits", text + "; unterminated: ends at the end of the "
                          f"key{quirk}"))
    return parts


def _string_parts(fc: _String, key: bytes, pos: int, end: int, value: Any) -> list[Part]:
    inv = _inverted(fc.mask)
    if value is None:
        return [Part(pos, pos + 1, "null", f"NULL (00){inv}")]
    if value == "":
        return [Part(pos, end, "terminator", f"the empty string: the terminator 01 alone{inv}")]
    if key[end - 1] ^ fc.mask == 1:
        return [Part(pos, end - 1, "payload", f"UTF-8 bytes + 2{inv}"),
                Part(end - 1, end, "terminator", f"01: end of string{inv}")]
    return [Part(pos, end, "payload", f"UTF-8 bytes + 2{inv}; unterminated: ends at the end "
                 "of the key")]


def _var_bytes_parts(fc: _VarBytes, key: bytes, pos: int, end: int, value: Any
                     ) -> list[Part]:
    inv = _inverted(fc.mask)
    if value is None:
        return [Part(pos, pos + 1, "null", f"NULL (00){inv}; Java writes it but cannot read "
                     "it back")]
    parts = []
    start = pos + fc.p
    if fc.p:
        parts.append(Part(pos, start, "prefix", f"{fc.p} raw byte(s){inv}"))
    digits = "".join(f"{b:03d}" for b in value[fc.p:])
    d = len(digits)
    if not d:
        return [*parts, Part(start, end, "terminator", f"no digits: the terminator byte 11{inv}")]
    digit_bytes = (d + 1) // 2
    text = f"reversed packed BCD, 3 digits per byte: {digits}{inv}"
    if end - start == digit_bytes + 1:
        parts += [Part(start, start + digit_bytes, "digits", text),
                  Part(start + digit_bytes, end, "terminator",
                       f"terminator nibbles 1 (even digit count){inv}")]
    elif d % 2:
        parts.append(Part(start, end, "digits", text + "; the last low nibble 1 is the "
                          "terminator"))
    else:
        parts.append(Part(start, end, "digits", text + "; unterminated: ends at the end of "
                          "the key"))
    return parts


def _inspect_parts(fc: _FieldCodec, key: bytes, pos: int, end: int, value: Any
                   ) -> list[Part]:
    """The parts of the field ``key[pos:end]`` read by *fc* as *value*."""
    if end == pos:
        return []
    inv = _inverted(fc.mask)
    if isinstance(fc, _VarInt):
        return _varint_parts(fc, key, pos, end, value)
    if isinstance(fc, _Decimal):
        return _decimal_parts(fc, key, pos, end, value)
    if isinstance(fc, _String):
        return _string_parts(fc, key, pos, end, value)
    if isinstance(fc, _VarBytes):
        return _var_bytes_parts(fc, key, pos, end, value)
    if isinstance(fc, _FixedInt):
        how = ", sign bit flipped" if fc.lo < 0 else ""
        return [Part(pos, end, "data", f"fixed {fc.field.type}: {fc.width} bytes big-endian"
                     f"{how}{inv}")]
    if isinstance(fc, _Float):
        if value is None:
            return [Part(pos, end, "null", f"NULL: all {fc.width} bytes 00 (the transformed "
                         f"value 0){inv}")]
        nan = "; NaN, written as the canonical NaN" if value != value else ""
        return [Part(pos, end, "data", f"IEEE {fc.field.type} bits, order transform (sign "
                     f"bit flipped, or every bit for negatives) plus one{nan}{inv}")]
    assert isinstance(fc, _FixedBytes)
    return [Part(pos, end, "payload", f"{fc.n} raw byte(s), fixed length{inv}")]


def _termination_notes(bound: BoundOrderly, key: bytes, spans: Sequence[tuple[int, int]],
                       values: Sequence[Any]) -> list[str]:
    """Per field: the effective order, and the termination the back-to-front rule assigns
    (spec §11.3), with what it means for these bytes."""
    codec = bound.codec
    assert isinstance(codec, OrderlyCodec)
    struct_term = str(codec.options["struct_termination"])
    notes = [""] * len(spans)
    later = False  # a later field is non-empty
    for i in range(len(spans) - 1, -1, -1):
        fc = bound.codecs[i]
        f = fc.field
        start, end = spans[i]
        if bound.declared[i] == SHOULD_NOT:
            term, why = SHOULD_NOT, "declared on the field, where it always wins"
        elif later:
            term, why = MUST, "a later field is non-empty"
        else:
            term, why = struct_term, "the struct's, as no non-empty field follows"
        t = term == MUST or (term == AUTO and fc.desc)
        order = "descending, every byte inverted" + (
            " but the reserved bits" if isinstance(fc, _VarInt) and fc.r else "") \
            if fc.desc else "ascending"
        if codec.struct_desc:
            order += (f" (declared {'descending' if f.descending else 'ascending'}; "
                      "struct_order=desc flips every field)")
        label = f"field {i}" + (f" {f.name!r}" if f.name else "")
        text = f"{label}: {order}; termination {term} ({why}), so t = {str(t).lower()}"
        v = values[i]
        if start == end:
            text += ("; empty: NULL written as zero bytes" if v is None else
                     "; empty: a fixed byte array of length 0")
        else:
            expected = fc.write_null(t) if v is None else fc.write(v, t)
            if key[start:end] != expected:
                text += (f"; these bytes are the t = {str(not t).lower()} form (written under "
                         "another termination), which decoders read too")
        notes[i] = text
        later = later or end > start
    return notes


# -- the codec ------------------------------------------------------------------------------

_RESERVED_MAX: Final = {"int64": 2, "int32": 3, "uint64": 3, "uint32": 4}


def _nonnegative_int(value: Any) -> str | None:
    return None if type(value) is int and value >= 0 else "an int >= 0"


class OrderlyCodec(BaseCodec):
    """Orderly row keys (registry name ``orderly``); see the module docstring and
    ``specs/orderly.md``.

    >>> codec = OrderlyCodec()
    >>> schema = "id:int64, name:string, score:float32"
    >>> codec.encode((1, "ab", 1.0), schema).hex(" ")
    '81 63 64 01 bf 80 00 01'
    >>> codec.decode(bytes.fromhex("81636401bf800001"), schema)
    (1, 'ab', Float32(1.0))
    >>> codec.skip(bytes.fromhex("81636401bf800001"), schema, 1, 1)
    4
    """

    name: ClassVar[str] = NAME
    OPTIONS: ClassVar = {
        "struct_order": Option("asc", "'desc' flips every field's order (Java "
                               "StructRowKey.setOrder)", choices=("asc", "desc")),
        "struct_termination": Option(AUTO, "the struct's termination: AUTO, MUST or "
                                     "SHOULD_NOT (spec §11.3)", choices=TERMINATIONS),
    }
    FIELD_OPTIONS: ClassVar = {
        "termination": Option(AUTO, "AUTO, MUST or SHOULD_NOT (SHOULD_NOT on the last field "
                              "only)", choices=TERMINATIONS),
        "encoding": Option("var", "var or fixed: int32/int64/uint32/uint64 and bytes",
                           choices=("var", "fixed")),
        "length": Option(None, "the length of a fixed byte array", check=_nonnegative_int),
        "prefix_length": Option(0, "raw bytes before the BCD of a variable byte array",
                                check=_nonnegative_int),
        "reserved_bits": Option(0, "var-int header bits kept for reserved_value",
                                check=_nonnegative_int),
        "reserved_value": Option(0, "the value of the reserved bits", check=_nonnegative_int),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.struct_desc = self.options["struct_order"] == "desc"
        self._capabilities = _capabilities(self)

    @property
    def capabilities(self) -> Capabilities:
        return self._capabilities

    def check_field(self, index: int, field: Field, schema: KeySchema) -> None:
        if self.struct_desc and field.nulls is not None:
            # nulls names the place in the final order, which struct_order=desc flips too
            natural = "first" if field.descending else "last"
            if field.nulls != natural:
                raise self.refuse(index, field, f"NULL cannot sort {field.nulls} here: it is "
                                  "the lowest value, and struct_order=desc makes this field "
                                  f"{'ascending' if field.descending else 'descending'}",
                                  f"nulls left out (or nulls {natural})")
            field = attrs.evolve(field, nulls=None)
        super().check_field(index, field, schema)
        opts = field.options
        t = field.type
        enc = opts.get("encoding", "var")
        if "encoding" in opts and t not in VARINTS and t != "bytes":
            raise self.refuse(index, field, "encoding is an option of int32/int64/uint32/"
                              "uint64 and bytes fields only", "no encoding option")
        if t == "bytes" and enc == "fixed" and "length" not in opts:
            raise self.refuse(index, field, "a fixed byte array needs length=N", "length=N")
        if ("length" in opts or "prefix_length" in opts) and t != "bytes":
            raise self.refuse(index, field, "length and prefix_length are bytes options",
                              "a bytes field")
        if "length" in opts and enc != "fixed":
            raise self.refuse(index, field, "length is for encoding=fixed byte arrays",
                              "encoding=fixed, or prefix_length for variable ones")
        if "prefix_length" in opts and enc != "var":
            raise self.refuse(index, field, "prefix_length is for variable byte arrays",
                              "encoding=var")
        if "reserved_bits" in opts or "reserved_value" in opts:
            if t not in VARINTS or enc != "var":
                raise self.refuse(index, field, "reserved bits belong to var-int fields",
                                  "an int32/int64/uint32/uint64 var field")
            r = opts.get("reserved_bits", 0)
            v = opts.get("reserved_value", 0)
            assert isinstance(r, int)
            assert isinstance(v, int)
            if r > _RESERVED_MAX[t]:
                raise self.refuse(index, field, f"reserved_bits={r} is more than {t} has",
                                  f"0..{_RESERVED_MAX[t]}")
            if v >= 1 << r:
                raise self.refuse(index, field, f"reserved_value={v} does not fit in "
                                  f"{r} bit(s)", f"0..{(1 << r) - 1}")
        if opts.get("termination", AUTO) == SHOULD_NOT and index != len(schema) - 1:
            raise self.refuse(index, field, "SHOULD_NOT only on the last field (anywhere "
                              "else the key would not decode)", "AUTO or MUST")

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        fc = _field_codec(field, field.descending != self.struct_desc)

        def encode(v: Any) -> bytes:  # as the last field of a one-field prefix (AUTO rules)
            return fc.write_null(fc.desc) if v is None else fc.write(fc.check(v), fc.desc)
        return FieldPlan(index, field, encode, fc.read)

    def make_bound(self, schema: KeySchema, plans: Sequence[FieldPlan]) -> BoundKey:
        return BoundOrderly(self, schema, plans)

    def bind(self, schema: SchemaLike) -> BoundOrderly:
        bound = super().bind(schema)
        assert isinstance(bound, BoundOrderly)
        return bound

    # -- Orderly's RowKey operations --------------------------------------------------------

    def serialized_length(self, values: Sequence[Any], schema: SchemaLike) -> int:
        """``len(encode(values, schema))``, computed without encoding."""
        return self.bind(schema).serialized_length(values)

    def field_lengths(self, values: Sequence[Any], schema: SchemaLike) -> tuple[int, ...]:
        """Each field's length in the key (the terminations assigned back to front)."""
        return self.bind(schema).field_lengths(values)

    def skip(self, key: bytes, schema: SchemaLike, field: int, offset: int) -> int:
        """The offset where field ``field + 1`` starts, given that ``field`` starts at
        *offset*; structural checks only, no value is built."""
        return self.bind(schema).skip(key, field, offset)

    def field_offsets(self, key: bytes, schema: SchemaLike) -> tuple[int, ...]:
        """Where each field starts, and the end of the last (``n + 1`` offsets)."""
        return self.bind(schema).field_offsets(key)


    # -- inspect --------------------------------------------------------------------------

    def inspect(self, key: bytes, schema: SchemaLike | None = None) -> Inspection:
        """Each field's header, data, digits, terminators and NULLs, with its effective order
        and termination; empty fields (NULL written as zero bytes) have ``start == end``.

        Keys decode only with a schema: without one this raises ``NotDecodableError``.
        """
        data = as_key_bytes(NAME, key)
        parsed = None if schema is None else KeySchema.coerce(schema)
        self.decode(data, parsed)  # refuses non-keys (and a missing schema) as decode does
        assert parsed is not None
        bound = self.bind(parsed)
        spans: list[tuple[int, int]] = []
        values: list[Any] = []
        pos = 0
        for fc in bound.codecs:
            value, end = fc.read(data, pos)
            spans.append((pos, end))
            values.append(value)
            pos = end
        fields = tuple(
            FieldView(i, f.name, start, end, v, tuple(_inspect_parts(fc, data, start, end, v)),
                      f.type)
            for i, (f, fc, (start, end), v) in enumerate(
                zip(parsed.fields, bound.codecs, spans, values)))
        notes = _termination_notes(bound, data, spans, values)
        notes.append("t: whether a field writes the bytes needed only when something may "
                     "follow it (NULL bytes, terminators)")
        return Inspection(NAME, data, fields, tuple(notes), str(parsed))


class BoundOrderly(BoundKey):
    """A bound ``orderly`` schema: the struct of its fields (spec §11)."""

    __slots__ = ("codecs", "declared", "decode", "encode", "nullable", "order_schema")

    def __init__(self, codec: OrderlyCodec, schema: KeySchema, plans: Sequence[FieldPlan]
                 ) -> None:
        super().__init__(codec, schema, plans)
        desc = codec.struct_desc
        self.codecs = tuple(_field_codec(f, f.descending != desc) for f in schema.fields)
        self.declared = tuple(str(f.options.get("termination", AUTO)) for f in schema.fields)
        #: per field: whether it takes None (read by the conformance harness)
        self.nullable = tuple(fc.nullable for fc in self.codecs)
        #: the schema whose natural order the keys follow: struct_order=desc flips every
        #: field, NULL staying the lowest value (read by the conformance harness)
        self.order_schema = schema if not desc else KeySchema(tuple(
            Field(f.name, f.type, not f.descending, None, f.options) for f in schema.fields))
        # slots shadowing the methods: C first when it knows every field, else Python
        self.encode = self.careful_encode  # type: ignore[method-assign]
        self.decode = self.careful_decode  # type: ignore[method-assign]
        speedups = _speedups()
        spec = _c_spec(schema, self.codecs, codec.options["struct_termination"])
        if speedups is not None and spec is not None:
            self.encode = partial(speedups.orderly_encode, spec, self.careful_encode)  # type: ignore[method-assign]
            self.decode = partial(speedups.orderly_decode, spec, self.careful_decode)  # type: ignore[method-assign]

    @property
    def prefix_free(self) -> bool:
        return False

    def _struct_termination(self) -> str:
        codec = self.codec
        assert isinstance(codec, OrderlyCodec)
        return str(codec.options["struct_termination"])

    def _checked(self, values: Sequence[Any], *, prefix: bool = False) -> list[Any]:
        values = self._check_arity(values, prefix=prefix)
        out = []
        for i, (fc, v) in enumerate(zip(self.codecs, values)):
            try:
                out.append(None if v is None and fc.nullable else fc.check(v))
            except LexCodecError as exc:
                raise self._context(exc, i) from None
        return out

    def _parts(self, values: list[Any], struct_term: str) -> list[bytes]:
        """Each field's bytes, terminations assigned back to front (spec §11.3)."""
        parts: list[bytes] = [b""] * len(values)
        ft = struct_term
        for i in range(len(values) - 1, -1, -1):
            fc = self.codecs[i]
            term = SHOULD_NOT if self.declared[i] == SHOULD_NOT else ft
            t = term == MUST or (term == AUTO and fc.desc)
            v = values[i]
            try:
                data = fc.write_null(t) if v is None else fc.write(v, t)
            except LexCodecError as exc:
                raise self._context(exc, i) from None
            parts[i] = data
            if data:
                ft = MUST
        return parts

    def careful_encode(self, values: Sequence[Any]) -> bytes:
        """The reference writing, with every refusal explained."""
        return b"".join(self._parts(self._checked(values), self._struct_termination()))

    def field_lengths(self, values: Sequence[Any]) -> tuple[int, ...]:
        checked = self._checked(values)
        lengths = [0] * len(checked)
        ft = self._struct_termination()
        for i in range(len(checked) - 1, -1, -1):
            fc = self.codecs[i]
            term = SHOULD_NOT if self.declared[i] == SHOULD_NOT else ft
            t = term == MUST or (term == AUTO and fc.desc)
            v = checked[i]
            lengths[i] = fc.null_length(t) if v is None else fc.length(v, t)
            if lengths[i]:
                ft = MUST
        return tuple(lengths)

    def serialized_length(self, values: Sequence[Any]) -> int:
        return sum(self.field_lengths(values))

    def careful_decode(self, key: bytes) -> tuple[Any, ...]:
        """The reference reading, with the field and offset of every error."""
        data = as_key_bytes(NAME, key)
        out = []
        pos = 0
        for i, fc in enumerate(self.codecs):
            try:
                value, pos = fc.read(data, pos)
            except LexCodecError as exc:
                raise self._context(exc, i) from None
            out.append(value)
        if pos != len(data):
            raise DecodeError("bytes left after the last field", codec=NAME, offset=pos,
                              found=data[pos:], expected="end of key")
        return tuple(out)

    def skip(self, key: bytes, field: int, offset: int) -> int:
        data = as_key_bytes(NAME, key)
        if not 0 <= field < len(self.codecs):
            raise IndexError(f"field {field} of a schema of {len(self.codecs)} fields")
        fc = self.codecs[field]
        try:
            return fc.skip(data, offset)
        except LexCodecError as exc:
            raise self._context(exc, field) from None

    def field_offsets(self, key: bytes) -> tuple[int, ...]:
        offsets = [0]
        for i in range(len(self.codecs)):
            offsets.append(self.skip(key, i, offsets[-1]))
        return tuple(offsets)

    def prefix_range(self, values: Sequence[Any]) -> tuple[bytes, bytes | None]:
        """[the prefix as a k-field struct, strinc(the prefix with every field MUST)) (§14.9)."""
        checked = self._checked(values, prefix=True)
        if not checked:
            return b"", None
        start = b"".join(self._parts(checked, self._struct_termination()))
        return start, strinc(b"".join(self._parts(checked, MUST)))


def _speedups() -> Any:
    """The optional C extension, when it has this codec's functions."""
    return speedups("orderly_decode")


#: (field type, encoding) -> the kind letter of lexcodecs/_speedups.c
_C_KINDS: Final = {
    ("int64", "var"): "q", ("int32", "var"): "i", ("uint64", "var"): "Q",
    ("uint32", "var"): "I", ("int64", "fixed"): "l", ("int32", "fixed"): "j",
    ("uint64", "fixed"): "L", ("uint32", "fixed"): "J", ("float64", "var"): "d",
    ("float32", "var"): "f", ("string", "var"): "s", ("bytes", "fixed"): "y",
}
_C_TERMINATION: Final = {AUTO: 0, MUST: 1, SHOULD_NOT: 2}


def _c_spec(schema: KeySchema, codecs: Sequence[_FieldCodec], struct_term: str
            ) -> bytes | None:
    """The C code's description of the struct, or None when a field is Python's alone
    (decimal, variable-length bytes, reserved bits, a fixed array above 65535 bytes)."""
    out = bytearray((_C_TERMINATION[struct_term],))
    for f, fc in zip(schema.fields, codecs):
        kind = _C_KINDS.get((f.type, str(f.options.get("encoding", "var"))))
        length = int(f.options.get("length", 0) or 0)
        if kind is None or f.options.get("reserved_bits", 0) or length > 0xFFFF:
            return None
        flags = (1 if fc.desc else 0) | (2 if f.options.get("termination") == SHOULD_NOT else 0)
        out += bytes((ord(kind), flags, length >> 8, length & 0xFF))
    return bytes(out)


# -- capabilities and anomalies (spec §13, §14.8) -------------------------------------------


def _capabilities(codec: OrderlyCodec) -> Capabilities:
    return Capabilities(
        field_types={"int32", "int64", "uint32", "uint64", "float32", "float64", "decimal",
                     "string", "bytes"},
        decoding="schema",
        descending=True,
        nulls="fixed",
        injective=True,
        prefix_free=False,
        schemaless=False,
        float_policy=FloatPolicy(nan="highest", negative_zero="distinct"),
        anomalies=_anomalies(codec),
        text_nul=True,
        notes="byte-identical with the Orderly Java library (ndimiduk/orderly d26d690, NGDATA "
              "fork byte arrays), quirks included; decodes with a schema only",
    )


# Each explainer is as narrow as its quirk: it looks at the first field where the two keys'
# values differ and says yes only when that field is written the quirky way in this codec's
# configuration (its effective order and termination in that very key).


def _same_value(x: Any, y: Any) -> bool:
    """One point of the natural order (NaNs are one value, -0.0 is not +0.0)."""
    if isinstance(x, float) and isinstance(y, float):
        if x != x and y != y:
            return True
        return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)
    if (x is None) != (y is None):
        return False
    try:
        return bool(x == y)
    except Exception:
        return False


def _first_difference(a: Sequence[Any], b: Sequence[Any]) -> int | None:
    for i, (x, y) in enumerate(zip(a, b)):
        if not _same_value(x, y):
            return i
    return None


def _unterminated(codec: OrderlyCodec, schema: KeySchema, values: Sequence[Any], i: int
                  ) -> bool:
    """Field *i* of the key of *values* is written without its terminator (t false)."""
    bound = codec.bind(schema)
    term = bound.declared[i]
    if term != SHOULD_NOT:
        padded = list(values) + [None] * (len(schema) - len(values))
        try:
            later = bound.field_lengths(padded)[i + 1:]
        except LexCodecError:
            return False
        term = MUST if any(later) else str(codec.options["struct_termination"])
    return term == SHOULD_NOT or (term == AUTO and not bound.codecs[i].desc)


def _negative_even(v: Any) -> tuple[str, int] | None:
    """(digits, adjusted exponent) of a negative Decimal with an even digit count."""
    if not isinstance(v, decimal.Decimal) or not v.is_finite():
        return None
    parts = _Decimal._parts(v)
    if parts is None or not parts[0]:
        return None
    return parts[1], _Decimal._adjusted(parts)


def _decimal_prefix_pair(x: Any, y: Any) -> bool:
    """x is negative with an even digit count, y negative with the same adjusted exponent
    and digits that strictly extend x's: x's unterminated digits are a prefix of y's."""
    px = _negative_even(x)
    if px is None or len(px[0]) % 2 or not isinstance(y, decimal.Decimal) or \
            not y.is_finite():
        return False
    py = _Decimal._parts(y)
    return (py is not None and py[0] and _Decimal._adjusted(py) == px[1]
            and len(py[1]) > len(px[0]) and py[1].startswith(px[0]))


def _anomalies(codec: OrderlyCodec) -> tuple[Anomaly, ...]:
    struct_desc = codec.struct_desc

    def ascending_decimal(schema: KeySchema, i: int) -> bool:
        f = schema.fields[i]
        return f.type == "decimal" and f.descending == struct_desc

    def negative_prefix(schema: KeySchema | None, a: tuple[Any, ...],
                        b: tuple[Any, ...]) -> bool:
        if schema is None:
            return False
        i = _first_difference(a, b)
        if i is None or not ascending_decimal(schema, i):
            return False
        # b < a as keys: b's value is the short, unterminated one
        return _decimal_prefix_pair(b[i], a[i]) and _unterminated(codec, schema, b, i)

    def prefix_parts(schema: KeySchema, prefix: tuple[Any, ...]) -> list[bytes] | None:
        """Each prefix field's bytes in the range's start (a k-field struct)."""
        bound = codec.bind(schema)
        try:
            checked = bound._checked(prefix, prefix=True)
        except LexCodecError:
            return None
        return bound._parts(checked, str(codec.options["struct_termination"]))

    def negative_prefix_range(schema: KeySchema | None, prefix: tuple[Any, ...],
                              values: tuple[Any, ...]) -> bool:
        if schema is None or not prefix:
            return False
        parts = prefix_parts(schema, prefix)
        written = [j for j, p in enumerate(parts or ()) if p]
        if not written:
            return False
        i = written[-1]  # the last prefix field with bytes in the start
        return (ascending_decimal(schema, i) and _first_difference(values, prefix) == i
                and _decimal_prefix_pair(prefix[i], values[i]))

    def scale_overflow(schema: KeySchema | None, a: tuple[Any, ...],
                       b: tuple[Any, ...]) -> bool:
        i = _first_difference(a, b)
        if i is None or (schema is not None and schema.fields[i].type != "decimal"):
            return False
        for v in (a[i], b[i]):
            if isinstance(v, decimal.Decimal) and v.is_finite():
                parts = _Decimal._parts(v)
                if parts is not None and parts[2] == _DEC_EXP_MAX:
                    return True
        return False

    def variable_length(schema: KeySchema, i: int) -> bool:
        f = schema.fields[i]
        return f.type in ("string", "decimal") or (
            f.type == "bytes" and f.options.get("encoding", "var") == "var")

    def should_not_desc(schema: KeySchema | None, a: tuple[Any, ...],
                        b: tuple[Any, ...]) -> bool:
        if schema is None:
            return False
        i = _first_difference(a, b)
        if i is None or schema.fields[i].descending == struct_desc:
            return False  # not effectively descending
        if not (variable_length(schema, i) or a[i] is None or b[i] is None):
            return False
        bound = codec.bind(schema)
        return any(bound.declared[i] == SHOULD_NOT or (
            codec.options["struct_termination"] == SHOULD_NOT
            and _unterminated(codec, schema, v, i)) for v in (a, b))

    def should_not_desc_range(schema: KeySchema | None, prefix: tuple[Any, ...],
                              values: tuple[Any, ...]) -> bool:
        if schema is None or not prefix or codec.options["struct_termination"] != SHOULD_NOT:
            return False
        d = _first_difference(values, prefix)
        parts = prefix_parts(schema, prefix)
        if d is None or parts is None or any(parts[d + 1:]):
            return False  # the leak comes from the last prefix bytes written, or none
        # field d, effectively descending, is written unterminated (a variable-length value)
        # or not at all (NULL) in the start of the range
        return schema.fields[d].descending != struct_desc and (
            not parts[d] or variable_length(schema, d))

    overflow = decimal.Decimal("1E+2147483648")
    # witness schemas name the direction that is *effective* in this configuration
    asc, desc = (" desc", "") if struct_desc else ("", " desc")
    term = codec.options["struct_termination"]
    found: list[Anomaly] = [
        Anomaly("decimal-negative-prefix", "order",
                "an ascending decimal written without a terminator (the last non-empty "
                "field, not MUST) whose value is negative with an even digit count is a "
                "byte prefix of longer negatives with the same exponent, so it sorts first "
                "although it is larger: -1.2 -> 5f dc < -1.23 -> 5f dc bf",
                witness=((decimal.Decimal("-1.23"),), (decimal.Decimal("-1.2"),)),
                schema=f"d:decimal{asc} termination=SHOULD_NOT", explains=negative_prefix),
    ]
    if term != MUST:  # under MUST the start of a range is terminated too
        found.append(Anomaly(
            "decimal-negative-prefix-range", "prefix-leak",
            "the same quirk seen by prefix ranges: the range of a negative decimal with an "
            "even digit count holds the longer negatives it is a byte prefix of: prefix "
            "(-1.2,) holds (-1.23, None)",
            witness=((decimal.Decimal("-1.2"),), (decimal.Decimal("-1.23"), None)),
            schema=f"d:decimal{asc}, x:int64{asc}", explains=negative_prefix_range))
    found += [
        Anomaly("decimal-scale-overflow", "order",
                "a decimal whose exponent is +2**31 (Java scale -2**31) is written with an "
                "overflowed adjusted exponent and sorts among tiny numbers: 1E+2147483648 "
                "-> c3 80 00 00 00 20 < 1 -> e0 20",
                witness=((decimal.Decimal(1),), (overflow,)), schema=f"d:decimal{asc}",
                explains=scale_overflow),
        Anomaly("should-not-descending", "order",
                "with SHOULD_NOT on a descending field, variable-length values lose their "
                "terminator and NULL becomes empty, so a value sorts before its extensions "
                "and NULL first: 'a' -> 9c < 'ab' -> 9c 9b, though descending wants 'ab' "
                "first",
                witness=(("ab",), ("a",)), schema=f"s:string{desc} termination=SHOULD_NOT",
                explains=should_not_desc),
    ]
    if term == SHOULD_NOT:
        found.append(Anomaly(
            "should-not-descending-range", "prefix-leak",
            "the same quirk seen by prefix ranges under struct_termination=SHOULD_NOT: the "
            "range of an unterminated descending prefix value holds its extensions",
            witness=(("a",), ("ab", None)), schema=f"s:string{desc}, t:string{asc}",
            explains=should_not_desc_range))
    return (
        *found,
        Anomaly("long-9-byte-negative-header", "interop",
                "int64 values below -2**58 have header data bits 00 instead of the sign "
                "extension 11 (header 04 ascending, fb descending); order is unaffected, "
                "and a byte-compatible writer must copy it (see the vectors)"),
        Anomaly("varbytes-null-java-undecodable", "interop",
                "Java writes an explicit NULL for variable-length bytes (00 ascending when "
                "terminated, ff descending) that its own decoder and skip cannot read; "
                "lexcodecs decodes it as None"),
    )
