"""The reference ``orderly`` numbers: var-ints (spec §5), fixed-width ints and floats.

Theory of operation: a var-int is a header byte holding the sign, the length and the top data
bits, then big-endian data bytes (:func:`varint_bytes`; read back by :func:`read_varint`,
which checks it by writing the value again); its functions serve :class:`VarInt` and the
exponent of ``reference_decimal.py``'s decimal. A fixed int is big-endian with the sign bit
flipped; a float is the IEEE order transform plus one, so NULL can be all zeros. Each field
codec here (see ``reference_field.py`` for what a field codec does) writes and reads its type.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, ClassVar

from ...errors import DecodeError, EncodeError, UnsupportedTypeError, with_article
from ...schema import Field
from ...types import Float32
from .format import FIXED_INTS, FLOATS, VARINTS, VarIntLayout
from .reference_field import FieldCodec, Sink, by_type, mask_bytes, truncated

_F32 = struct.Struct(">f")
_F64 = struct.Struct(">d")
_U32 = struct.Struct(">I")
_U64 = struct.Struct(">Q")


def int_text(n: int) -> str:
    """*n* for a message, in time linear in its size (no 4,300-digit conversion limit)."""
    return str(n) if n.bit_length() <= 256 else f"an int of {n.bit_length()} bits"


# -- var-ints (spec §5) ---------------------------------------------------------------------


def varint_length(x: int, lay: VarIntLayout, r: int) -> tuple[int, int]:
    """(L, H): the length of *x* and how many data bits its header holds."""
    bits = (~x if x < 0 else x).bit_length()
    if bits <= lay.s - r:
        return 1, lay.s - r
    if bits <= lay.d - r + 8:
        return 2, lay.d - r
    return 1 + ((bits - (lay.e - r) + 7) >> 3), lay.e - r


def varint_bytes(x: int, lay: VarIntLayout, mask: int, r: int = 0, v: int = 0) -> bytes:
    """The var-int of *x* (in range), with *r* reserved bits holding *v* (spec §5.4)."""
    length, h_bits = varint_length(x, lay, r)
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
    return bytes((header,)) + mask_bytes(data, mask)


def varint_null(mask: int, r: int = 0, v: int = 0) -> bytes:
    return bytes(((mask & (0xFF >> r)) | (v << (8 - r) if r else 0),))


def varint_span(key: bytes, pos: int, lay: VarIntLayout, mask: int, r: int) -> tuple[int, int]:
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
                          found=key[pos:pos + 1], expected=f"{with_article(lay.type)} header")
    if pos + length > len(key):
        raise truncated(key, f"{lay.type} of {length} bytes")
    return length, u


def read_varint(key: bytes, pos: int, lay: VarIntLayout, mask: int, r: int = 0, v: int = 0
                ) -> tuple[int | None, int]:
    """(value or None for the NULL header, offset after); checked by re-encoding."""
    if r and key[pos] >> (8 - r) != v:
        raise DecodeError(f"reserved bits {key[pos] >> (8 - r):0{r}b}, the field reserves "
                          f"{v:0{r}b}", offset=pos, found=key[pos:pos + 1],
                          expected=f"reserved value {v}")
    length, u = varint_span(key, pos, lay, mask, r)
    if length == 0:
        return None, pos + 1
    data = int.from_bytes(mask_bytes(key[pos + 1:pos + length], mask), "big")
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
    written = varint_bytes(x, lay, mask, r, v)
    if written != key[pos:pos + length]:
        raise DecodeError(f"non-canonical {lay.type}: {x} is written {written.hex(' ')}",
                          offset=pos, found=key[pos:pos + length],
                          expected="the shortest form")
    return x, pos + length


def _refuse_bool(field_type: str) -> Callable[[Any], Any]:
    def refuse(v: Any) -> Any:
        raise UnsupportedTypeError(
            f"bool value in {with_article(field_type)} field (bool is refused)", value=v,
            expected="int")
    return refuse


def int_value(v: Any, field_type: str, lo: int, hi: int) -> int:
    """*v* as an int of *field_type* (an int or a subclass of int, never a bool)."""
    accept = by_type({bool: _refuse_bool(field_type), int: int.__int__}, v)
    if accept is None:
        raise UnsupportedTypeError(f"{type(v).__name__} value in {with_article(field_type)} field",
                                   value=v, expected="int")
    n: int = accept(v)
    if not lo <= n <= hi:
        raise EncodeError(f"{int_text(n)} is out of range {lo}..{hi}", value=n,
                          expected=f"{lo}..{hi} ({field_type})")
    return n


class VarInt(FieldCodec):
    def __init__(self, field: Field, desc: bool) -> None:
        super().__init__(field, desc)
        self.lay = VARINTS[field.type]
        self.r = int(field.options.get("reserved_bits", 0))
        self.v = int(field.options.get("reserved_value", 0))

    def check(self, v: Any) -> int:
        return int_value(v, self.field.type, self.lay.lo, self.lay.hi)

    def write_null(self, t: bool) -> bytes:
        return varint_null(self.mask, self.r, self.v) if t else b""

    def write(self, v: Any, t: bool) -> bytes:
        return varint_bytes(v, self.lay, self.mask, self.r, self.v)

    def length(self, v: Any, t: bool) -> int:
        return varint_length(v, self.lay, self.r)[0]

    def read(self, key: bytes, pos: int, sink: Sink | None = None) -> tuple[Any, int]:
        if pos >= len(key):
            return None, pos
        if sink is None:
            return read_varint(key, pos, self.lay, self.mask, self.r, self.v)
        x, end = read_varint(key, pos, self.lay, self.mask, self.r, self.v)
        self.annotate(sink, pos, end, x)
        return x, end

    def annotate(self, sink: Sink, pos: int, end: int, x: int | None) -> None:
        """Report the var-int *x* read at ``key[pos:end]``: the NULL header, or the header
        (length, header data bits: those of *x* above its data bytes, as ``varint_bytes``
        writes them, and *x*) and the data bytes."""
        if x is None:
            sink.part(self, pos, end, "null")
            return
        length = end - pos
        h_bits = varint_length(x, self.lay, self.r)[1]
        sink.part(self, pos, pos + 1, "header",
                  (length, h_bits, (x >> (8 * (length - 1))) & ((1 << h_bits) - 1), x))
        if length > 1:
            sink.part(self, pos + 1, end, "data", (length - 1, x))

    def skip(self, key: bytes, pos: int) -> int:
        if pos >= len(key):
            return pos
        length, _ = varint_span(key, pos, self.lay, self.mask, self.r)
        return pos + max(length, 1)


class FixedInt(FieldCodec):
    nullable = False

    def __init__(self, field: Field, desc: bool) -> None:
        super().__init__(field, desc)
        self.width, self.lo, self.hi = FIXED_INTS[field.type]
        self.bias = -self.lo  # the sign flip of the signed types: x + 2**(n-1)

    def check(self, v: Any) -> int:
        if v is None:
            raise EncodeError("fixed-width ints have no NULL (Java: NullPointerException)",
                              value=v, expected=f"{with_article(self.field.type)} value")
        return int_value(v, self.field.type, self.lo, self.hi)

    def write(self, v: Any, t: bool) -> bytes:
        return mask_bytes((v + self.bias).to_bytes(self.width, "big"), self.mask)

    def length(self, v: Any, t: bool) -> int:
        return self.width

    def read(self, key: bytes, pos: int, sink: Sink | None = None) -> tuple[Any, int]:
        end = self.skip(key, pos)
        if sink is not None:
            sink.part(self, pos, end, "data")
        return int.from_bytes(mask_bytes(key[pos:end], self.mask), "big") - self.bias, end

    def skip(self, key: bytes, pos: int) -> int:
        if pos + self.width > len(key):
            raise truncated(key, f"fixed {self.field.type} of {self.width} bytes")
        return pos + self.width


def _f32_exact(x: float) -> float:
    """*x* when it is a binary32 value (NaN and the infinities are), else refused."""
    if not Float32.is_exact(x):
        raise EncodeError("not exactly representable in binary32 (round it with Float32 "
                          "first)", value=x, expected="a binary32 value")
    return x


class Float(FieldCodec):
    """float64 takes a float; float32 a Float32 or a binary32-exact float, read through its
    float value (never its ``bits``, which a caller could have changed)."""

    ACCEPT: ClassVar[dict[str, dict[type, Callable[[Any], float]]]] = {
        "float64": {float: float.__float__},
        "float32": {float: lambda v: _f32_exact(float.__float__(v))},
    }
    EXPECTED: ClassVar = {"float64": "float", "float32": "Float32 or a binary32-exact float"}

    def __init__(self, field: Field, desc: bool) -> None:
        super().__init__(field, desc)
        self.width, self.canonical_nan = FLOATS[field.type]
        self.bits = 8 * self.width

    def check(self, v: Any) -> float:
        accept = by_type(self.ACCEPT[self.field.type], v)
        if accept is None:
            raise UnsupportedTypeError(f"{type(v).__name__} value in a {self.field.type} "
                                       "field", value=v, expected=self.EXPECTED[self.field.type])
        x: float = accept(v)
        return x

    def _raw_bits(self, x: float) -> int:
        if x != x:
            return self.canonical_nan
        if self.width == 4:
            return int(_U32.unpack(_F32.pack(x))[0])
        return int(_U64.unpack(_F64.pack(x))[0])

    def write_null(self, t: bool) -> bytes:
        return bytes((self.mask,)) * self.width if t else b""

    def null_length(self, t: bool) -> int:
        return self.width if t else 0

    def write(self, v: Any, t: bool) -> bytes:
        b = self._raw_bits(v)
        top = 1 << (self.bits - 1)
        b = b ^ ((top << 1) - 1) if b & top else b | top
        b = (b + 1) & ((1 << self.bits) - 1)
        return mask_bytes(b.to_bytes(self.width, "big"), self.mask)

    def length(self, v: Any, t: bool) -> int:
        return self.width

    def read(self, key: bytes, pos: int, sink: Sink | None = None) -> tuple[Any, int]:
        if pos >= len(key):
            return None, pos
        end = self.skip(key, pos)
        b = int.from_bytes(mask_bytes(key[pos:end], self.mask), "big")
        if b == 0:
            if sink is not None:
                sink.part(self, pos, end, "null")
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
        if sink is not None:
            sink.part(self, pos, end, "data", value != value)  # facts: a NaN
        return value, end

    def skip(self, key: bytes, pos: int) -> int:
        if pos >= len(key):
            return pos
        if pos + self.width > len(key):
            raise truncated(key, f"{self.field.type} of {self.width} bytes")
        return pos + self.width
