"""The reference ``memcomparable`` decoder: readable Python, the executable spec of reading.

Theory of operation: one reader per field kind (:data:`READERS`, keyed by ``format.K_*``)
reads a present value, seeing a descending field's bytes through ``mask`` (``0xff``);
:func:`field_decoder` reads the field's Option tags first. It follows the crate's Deserializer
(spec §7): it accepts what the crate accepts (the vectors' ``decode_only``: non-zero padding,
NaN payloads, non-minimal decimal digits, read with the crate's own wrapping ``i8``/``i128``
arithmetic) and refuses what the crate refuses, with the crate's words; where the crate panics
(a truncated key, a decimal beyond rust_decimal) it raises a :class:`DecodeError` too. Every
reader looks at each byte once: linear time.

This is the only code that words a decoding error: the compiled module hands every key it does
not take as its own to these functions. Every reader takes an optional *parts* list, to which
it appends a :class:`~lexcodecs.inspection.Part` for each span it reads (``explain.py``).
"""

from __future__ import annotations

import decimal
import struct
from collections.abc import Callable
from typing import Any, Final, Protocol

from ..._bytes import invert, unorder_bits
from ...errors import DecodeError
from ...inspection import Part
from ...types import Float32
from .._serde import option_value
from .format import (
    BYTES_EMPTY,
    BYTES_NONEMPTY,
    CHAR_MAX,
    DEC_MANTISSA_MAX,
    DEC_NAN,
    DEC_SCALE_MAX,
    DECIMAL_NAMES,
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
    SEQ_ELEMENT,
    SEQ_END,
    SURROGATE_FIRST,
    SURROGATE_LAST,
    TAG_NONE,
    TAG_SOME,
    ZERO,
    FieldLayout,
    TypeFormat,
)

__all__ = ["READERS", "Reader", "field_decoder", "read_decimal"]

Parts = list[Part] | None
KindReader = Callable[[bytes, int, TypeFormat, int, Parts], tuple[Any, int]]


class Reader(Protocol):
    """A schema field's decoder: (value, offset after the field); *parts* collects spans."""

    def __call__(self, key: bytes, pos: int, parts: Parts = None) -> tuple[Any, int]: ...


_D = struct.Struct(">d")
_Q = struct.Struct(">Q")
_DIRECTION: Final = {0: "", 0xFF: ", inverted (descending)"}

# -- bytes -----------------------------------------------------------------------------------


def _truncated(key: bytes, what: str) -> DecodeError:
    # the crate panics here (bytes::Buf asserts what remains); a typed error instead
    return DecodeError(f"truncated: {what}", offset=len(key), found=b"",
                       expected="more bytes")


def _take(key: bytes, pos: int, n: int, mask: int, what: str) -> bytes:
    """*n* bytes at *pos*, un-inverted through *mask*."""
    end = pos + n
    if end > len(key):
        raise _truncated(key, what)
    raw = key[pos:end]
    return invert(raw) if mask else raw


def _byte(key: bytes, pos: int, mask: int, what: str) -> int:
    if pos >= len(key):
        raise _truncated(key, what)
    return key[pos] ^ mask


def _invalid(what: str, key: bytes, pos: int, value: int, expected: str) -> DecodeError:
    """The crate's ``invalid <what> encoding: N`` (N as read, after the inversion)."""
    return DecodeError(f"invalid {what} encoding: {value}", offset=pos,
                       found=key[pos:pos + 1], expected=expected)


# -- readers: one present value --------------------------------------------------------------


def _read_bool(key: bytes, pos: int, fmt: TypeFormat, mask: int, parts: Parts
               ) -> tuple[bool, int]:
    b = _byte(key, pos, mask, "bool")
    if b > 1:
        raise _invalid("bool", key, pos, b, "00 or 01")
    if parts is not None:
        parts.append(Part(pos, pos + 1, "payload", f"{bool(b)}{_DIRECTION[mask]}"))
    return b == 1, pos + 1


def _read_int(key: bytes, pos: int, fmt: TypeFormat, mask: int, parts: Parts
              ) -> tuple[int, int]:
    raw = _take(key, pos, fmt.width, mask, f"{fmt.width}-byte {fmt.field_type}")
    if parts is not None:
        how = "sign bit flipped" if fmt.lo < 0 else "big-endian"
        parts.append(Part(pos, pos + fmt.width, "payload", how + _DIRECTION[mask]))
    return int.from_bytes(raw, "big") + fmt.lo, pos + fmt.width


def _read_float(key: bytes, pos: int, fmt: TypeFormat, mask: int, parts: Parts
                ) -> tuple[float, int]:
    width = fmt.width
    raw = _take(key, pos, width, mask, f"{width}-byte {fmt.field_type}")
    bits = unorder_bits(int.from_bytes(raw, "big"), width)  # NaN payloads kept, as the crate
    if parts is not None:
        parts.append(Part(pos, pos + width, "payload", "IEEE order transform"
                          + _DIRECTION[mask]))
    if width == 4:
        return Float32.from_bits(bits), pos + 4
    return float(_D.unpack(_Q.pack(bits))[0]), pos + 8


def read_bytes(key: bytes, pos: int, mask: int, parts: Parts) -> tuple[bytes, int]:
    """A chunked byte string (spec §3) at *pos*: the flag, then 9-byte groups until the
    marker of the last; the padding of the last group is not looked at (the crate does not)."""
    flag = _byte(key, pos, mask, "byte string flag")
    if flag == BYTES_EMPTY:
        if parts is not None:
            parts.append(Part(pos, pos + 1, "flag", "empty" + _DIRECTION[mask]))
        return b"", pos + 1
    if flag != BYTES_NONEMPTY:
        raise _invalid("bytes", key, pos, flag, "00 (empty) or 01")
    if parts is not None:
        parts.append(Part(pos, pos + 1, "flag", "non-empty" + _DIRECTION[mask]))
    chunks = []
    at = pos + 1
    n = len(key)
    while True:
        if at + GROUP + 1 > n:
            raise _truncated(key, "8-byte group and its marker")
        marker = key[at + GROUP] ^ mask
        if marker == MORE:
            chunks.append(key[at:at + GROUP])
        elif 1 <= marker <= GROUP:
            chunks.append(key[at:at + marker])
        else:
            raise _invalid("bytes", key, at + GROUP, marker, "01..08 (the last group's "
                           "count) or 09 (more follows)")
        if parts is not None:
            real = GROUP if marker == MORE else marker
            parts += [Part(at, at + GROUP, "group", f"{real} byte(s)"
                           + (f", {GROUP - real} padding" if real < GROUP else "")),
                      Part(at + GROUP, at + GROUP + 1, "marker",
                           "more follows" if marker == MORE else f"last group: {marker}")]
        at += GROUP + 1
        if marker != MORE:
            data = b"".join(chunks)
            return (invert(data) if mask else data), at


def _read_bytes(key: bytes, pos: int, fmt: TypeFormat, mask: int, parts: Parts
                ) -> tuple[bytes, int]:
    return read_bytes(key, pos, mask, parts)


def _read_string(key: bytes, pos: int, fmt: TypeFormat, mask: int, parts: Parts
                 ) -> tuple[str, int]:
    data, end = read_bytes(key, pos, mask, parts)
    try:
        return data.decode("utf-8"), end
    except UnicodeDecodeError as exc:
        raise DecodeError(f"invalid UTF8: {exc.reason} (use a bytes field)", offset=pos,
                          found=key[pos:end]) from None


def _read_seq(key: bytes, pos: int, fmt: TypeFormat, mask: int, parts: Parts
              ) -> tuple[bytes, int]:
    """A Vec<u8> as a serde sequence: (``01`` element)* ``00``."""
    out = bytearray()
    at = pos
    while True:
        tag = _byte(key, at, mask, "sequence tag")
        if tag == SEQ_END:
            break
        if tag != SEQ_ELEMENT:
            raise _invalid("sequence", key, at, tag, "00 (end) or 01 (an element)")
        out.append(_byte(key, at + 1, mask, "sequence element"))
        at += 2
    if parts is not None:
        parts += [Part(pos, at, "elements", f"{len(out)} x (01, u8)" + _DIRECTION[mask]),
                  Part(at, at + 1, "end", "end of sequence")]
    return bytes(out), at + 1


def _read_char(key: bytes, pos: int, fmt: TypeFormat, mask: int, parts: Parts
               ) -> tuple[str, int]:
    u = int.from_bytes(_take(key, pos, 4, mask, "4-byte char"), "big")
    if u > CHAR_MAX or SURROGATE_FIRST <= u <= SURROGATE_LAST:
        raise DecodeError(f"invalid char encoding: {u}", offset=pos, found=key[pos:pos + 4],
                          expected="a Unicode scalar value")
    if parts is not None:
        parts.append(Part(pos, pos + 4, "payload", f"U+{u:04X}" + _DIRECTION[mask]))
    return chr(u), pos + 4


def _read_variant(key: bytes, pos: int, fmt: TypeFormat, mask: int, parts: Parts
                  ) -> tuple[int, int]:
    index = _byte(key, pos, mask, "variant index")
    if parts is not None:
        parts.append(Part(pos, pos + 1, "variant", f"index {index}" + _DIRECTION[mask]))
    return index, pos + 1


# -- decimals: the crate's deserialize_decimal, wrapping arithmetic and all ------------------


def _i8(x: int) -> int:
    """*x* as Rust's ``i8`` after wrapping arithmetic (the release build has no checks)."""
    return ((x + 0x80) & 0xFF) - 0x80


def _i128(x: int) -> int:
    return ((x + (1 << 127)) & ((1 << 128) - 1)) - (1 << 127)


#: class byte -> the exponent from the byte after it (None: no byte; the class's own E);
#: the crate's casts: ``!b as i8``, ``-(b as i8)``, ``-!(b as i8)``, ``b as i8``
_EXPONENT_BYTE: Final[dict[int, Callable[[int], int]]] = {
    NEG_LARGE: lambda b: _i8(0xFF ^ b), NEG_SMALL: lambda b: _i8(-_i8(b)),
    POS_SMALL: lambda b: _i8(-_i8(~_i8(b))), POS_LARGE: _i8,
}
_SPECIAL: Final = {NEG_INF: decimal.Decimal("-Infinity"), ZERO: decimal.Decimal(0),
                   POS_INF: decimal.Decimal("Infinity"), DEC_NAN: decimal.Decimal("NaN")}


def read_decimal(key: bytes, pos: int, mask: int, parts: Parts = None
                 ) -> tuple[decimal.Decimal, int]:
    """A decimal at *pos*: its class byte, the exponent byte of the large and small classes,
    then base-100 digits until the first even byte (spec §5), as the crate reads them."""
    flag = _byte(key, pos, mask, "decimal class byte")
    if not NEG_INF <= flag <= DEC_NAN:
        raise _invalid("decimal", key, pos, flag, "07..24")
    if parts is not None:
        parts.append(Part(pos, pos + 1, "class", DECIMAL_NAMES[flag] + _DIRECTION[mask]))
    if flag in _SPECIAL:
        return _SPECIAL[flag], pos + 1
    at = pos + 1
    if flag in _EXPONENT_BYTE:
        exponent = _EXPONENT_BYTE[flag](_byte(key, at, mask, "decimal exponent"))
        if parts is not None:
            parts.append(Part(at, at + 1, "exponent", f"E={exponent}"))
        at += 1
    else:
        exponent = NEG_MEDIUM - flag if flag < ZERO else flag - POS_MEDIUM
    negative = flag < ZERO
    flip = mask ^ (0xFF if negative else 0)
    mantissa, length, start = 0, 0, at
    while True:
        b = _byte(key, at, flip, "decimal digits")
        mantissa = _i128(mantissa * 100 + (b >> 1))  # a "digit" up to 127, as the crate
        length = _i8(length + 1)
        at += 1
        if not b & 1:
            break
    if parts is not None:
        parts.append(Part(start, at, "digits", "base 100, 2d+1 each, 2d the last"
                          + (", inverted (negative)" if negative else "")))
    scale = _i8(_i8(length - exponent) * 2)
    if scale <= 0:
        mantissa = _i128(mantissa * 10 ** max(0, _i8(-scale)))
        scale = 0
    elif mantissa % 10 == 0:  # one trailing zero of the last digit dropped
        mantissa, scale = mantissa // 10, scale - 1  # exact: divisible by 10
    if negative:
        mantissa = _i128(-mantissa)
    if scale > DEC_SCALE_MAX or abs(mantissa) > DEC_MANTISSA_MAX:
        # rust_decimal's from_i128_with_scale panics here
        raise DecodeError("decimal beyond rust_decimal (a 96-bit mantissa at a scale of at "
                          "most 28)", offset=pos, found=key[pos:at],
                          expected="a decimal's encoding")
    digits = tuple(int(c) for c in str(abs(mantissa)))
    return decimal.Decimal((int(mantissa < 0), digits, -scale)), at


def _read_decimal(key: bytes, pos: int, fmt: TypeFormat, mask: int, parts: Parts
                  ) -> tuple[decimal.Decimal, int]:
    return read_decimal(key, pos, mask, parts)


#: field kind -> the reader of a present value
READERS: Final[dict[int, KindReader]] = {
    K_BOOL: _read_bool, K_INT: _read_int, K_UINT: _read_int, K_INT128: _read_int,
    K_UINT128: _read_int, K_FLOAT32: _read_float, K_FLOAT64: _read_float,
    K_STRING: _read_string, K_BYTES: _read_bytes, K_SEQ: _read_seq, K_CHAR: _read_char,
    K_VARIANT: _read_variant, K_DECIMAL: _read_decimal,
}


def field_decoder(layout: FieldLayout) -> Reader:
    """The decoder of one schema field: its Option tags, then its value."""
    fmt, layers, mask = layout.fmt, layout.layers, layout.mask
    read = READERS[fmt.kind]

    def decode(key: bytes, pos: int, parts: Parts = None) -> tuple[Any, int]:
        for ones in range(layers):
            tag = _byte(key, pos, mask, "Option tag")
            if tag == TAG_NONE:
                if parts is not None:
                    parts.append(Part(pos, pos + 1, "null", "None" if ones == 0
                                      else f"{'Some(' * ones}None{')' * ones}"))
                return option_value(ones), pos + 1
            if tag != TAG_SOME:
                raise DecodeError(f"invalid tag encoding: {tag}", offset=pos,
                                  found=key[pos:pos + 1], expected="00 (None) or 01 (Some)")
            if parts is not None:
                parts.append(Part(pos, pos + 1, "tag", "Some"))
            pos += 1
        return read(key, pos, fmt, mask, parts)
    return decode
