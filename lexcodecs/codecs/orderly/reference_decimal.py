"""The reference ``orderly`` decimal field (spec §8): Java ``BigDecimal`` row keys.

Theory of operation: a decimal is written as its *adjusted exponent* (the exponent of its first
digit) in the int32 var-int layout, whose two reserved bits hold the decimal's type (NULL, NEG,
ZERO, POS: NULL and zero are that one byte), then its digits in BCD, a nibble ``digit + 1`` each,
ended by a zero nibble (a whole zero byte after an even count when terminated, nothing when
unterminated). A negative number complements its exponent and digits, so larger magnitudes sort
first. Digits never have leading or trailing zeros: a value has one form, and decoding gives the
normalized value (spec §14.3).
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Callable
from typing import Any, ClassVar, Final

from ...errors import DecodeError, EncodeError, UnsupportedTypeError
from .format import (
    DEC_EXP_MAX,
    DEC_EXP_MAX_LENGTH,
    DEC_EXP_MIN,
    DEC_NEG,
    DEC_NULL,
    DEC_POS,
    DEC_ZERO,
    EXPONENT,
)
from .reference_field import FieldCodec, Sink, by_type, mask_bytes, short_hex
from .reference_numbers import read_varint, varint_bytes, varint_length, varint_null, varint_span


def _refuse_decimal_type(v: Any) -> Any:
    raise UnsupportedTypeError(f"{type(v).__name__} value in a decimal field", value=v,
                               expected="Decimal or int")


#: digit values (as_tuple) -> digit characters; digit characters <-> BCD nibble characters
_DIGIT_CHARS: Final = bytes.maketrans(bytes(range(10)), b"0123456789")
_TO_NIBBLES: Final = str.maketrans("0123456789", "123456789a")
_FROM_NIBBLES: Final = str.maketrans("123456789a", "0123456789")
_NOT_A_DIGIT_NIBBLE: Final = re.compile("[b-f]")
#: int_to_decimal: ints up to this size convert directly; halves are split down to this size
_I2D_DIRECT_BITS, _I2D_SPLIT_BITS = 4096, 128


def int_to_decimal(n: int) -> decimal.Decimal:
    """``Decimal(n)`` exactly, in time well below quadratic: CPython 3.11 converts a huge int
    digit block by digit block (34 s for a million digits), so *n* is split into halves of
    ``2**w`` bits and joined with exact decimal arithmetic, as CPython 3.12's ``_pylong``
    does (0.3 s)."""
    if n.bit_length() <= _I2D_DIRECT_BITS:
        return decimal.Decimal(n)
    powers: dict[int, decimal.Decimal] = {}

    def pow2(w: int) -> decimal.Decimal:
        p = powers.get(w)
        if p is None:
            if w <= _I2D_SPLIT_BITS:
                p = decimal.Decimal(2) ** w
            elif w - 1 in powers:
                p = powers[w - 1] + powers[w - 1]
            else:
                p = pow2(w >> 1) * pow2(w - (w >> 1))
            powers[w] = p
        return p

    def join(m: int, w: int) -> decimal.Decimal:
        if w <= _I2D_SPLIT_BITS:
            return decimal.Decimal(m)
        half = w >> 1
        hi = m >> half
        return join(m - (hi << half), half) + join(hi, w - half) * pow2(half)

    with decimal.localcontext() as ctx:
        ctx.prec, ctx.Emax, ctx.Emin = decimal.MAX_PREC, decimal.MAX_EMAX, decimal.MIN_EMIN
        ctx.traps[decimal.Inexact] = True
        magnitude = join(abs(n), abs(n).bit_length())
        return -magnitude if n < 0 else magnitude


def decimal_parts(v: decimal.Decimal) -> tuple[bool, str, int] | None:
    """(negative, digits without leading/trailing zeros, Python exponent); None for 0."""
    sign, digit_tuple, exponent = v.as_tuple()
    assert isinstance(exponent, int)
    digits = bytes(digit_tuple).translate(_DIGIT_CHARS).decode("ascii").lstrip("0")
    if not digits:
        return None
    stripped = digits.rstrip("0")
    return bool(sign), stripped, exponent + len(digits) - len(stripped)


def adjusted_exponent(parts: tuple[bool, str, int]) -> int:
    _, digits, exponent = parts
    if exponent == DEC_EXP_MAX:  # Java: -scale overflows to -2**31
        exponent = -(2**31)
    return len(digits) + exponent - 1


class Decimal(FieldCodec):
    ACCEPT: ClassVar[dict[type, Callable[[Any], Any]]] = {
        bool: _refuse_decimal_type,
        int: lambda v: int_to_decimal(int.__int__(v)),
        decimal.Decimal: decimal.Decimal,  # a subclass: its value, as an exact Decimal
    }

    def check(self, v: Any) -> Any:
        v = (by_type(self.ACCEPT, v) or _refuse_decimal_type)(v)
        if not v.is_finite():
            raise EncodeError("NaN and infinite decimals are not encodable (Java BigDecimal "
                              "has none)", value=v, expected="a finite Decimal")
        parts = decimal_parts(v)
        if parts is not None:
            exponent = parts[2]
            if not DEC_EXP_MIN <= exponent <= DEC_EXP_MAX:
                raise EncodeError("exponent outside what a Java BigDecimal scale holds",
                                  value=v, expected=f"an exponent (after removing trailing "
                                  f"zeros) within {DEC_EXP_MIN}..{DEC_EXP_MAX}")
            exp = adjusted_exponent(parts)
            if varint_length(exp, EXPONENT, 2)[0] > DEC_EXP_MAX_LENGTH:
                raise EncodeError(f"adjusted exponent needs more than {DEC_EXP_MAX_LENGTH} "
                                  "bytes", value=v, expected="a smaller exponent")
        return v

    def type_bits(self, kind: int) -> int:
        return kind ^ (3 if self.desc else 0)

    def write_null(self, t: bool) -> bytes:
        return varint_null(self.mask, 2, self.type_bits(DEC_NULL)) if t else b""

    def write(self, v: Any, t: bool) -> bytes:
        parts = decimal_parts(v)
        if parts is None:
            return varint_null(self.mask, 2, self.type_bits(DEC_ZERO))
        negative, digits, _ = parts
        kind = DEC_NEG if negative else DEC_POS
        m = self.mask ^ (0xFF if negative else 0)
        head = varint_bytes(adjusted_exponent(parts), EXPONENT, m, 2, self.type_bits(kind))
        # nibble = digit + 1, then zero nibbles: two when terminated, one otherwise, and only
        # as many as fill whole bytes
        nibbles = digits.translate(_TO_NIBBLES) + "0" * (2 if t else 1)
        return head + mask_bytes(bytes.fromhex(nibbles[:len(nibbles) & ~1]), m)

    def length(self, v: Any, t: bool) -> int:
        parts = decimal_parts(v)
        if parts is None:
            return 1
        exp_length = varint_length(adjusted_exponent(parts), EXPONENT, 2)[0]
        return exp_length + ((len(parts[1]) + (2 if t else 1)) >> 1)

    def kind_at(self, key: bytes, pos: int) -> tuple[int, int, int]:
        """(stored top bits, decimal type, mask of the exponent and digits) at *pos*."""
        stored = key[pos] >> 6
        kind = self.type_bits(stored)
        return stored, kind, self.mask ^ (0xFF if kind == DEC_NEG else 0)

    def read(self, key: bytes, pos: int, sink: Sink | None = None) -> tuple[Any, int]:
        if pos >= len(key):
            return None, pos
        stored, kind, m = self.kind_at(key, pos)
        exp, at = read_varint(key, pos, EXPONENT, m, 2, stored)
        if exp is None:
            if kind == DEC_NULL:
                if sink is not None:
                    sink.part(self, pos, at, "null", stored)
                return None, at
            if kind == DEC_ZERO:
                if sink is not None:
                    sink.part(self, pos, at, "type", stored)
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
            exponent = DEC_EXP_MAX  # the inverse of the Java scale overflow
        value = decimal.Decimal(f"{'-' if kind == DEC_NEG else ''}{digits}E{exponent}")
        # the acceptance rule: exactly what the encoder writes, terminated or at the end not
        raw = key[pos:end]
        if raw != self.write(value, True) and (end != len(key) or raw != self.write(value,
                                                                                      False)):
            raise DecodeError("non-canonical decimal", offset=pos, found=raw,
                              expected=short_hex(self.write(value, True)))
        if sink is not None:
            self.annotate(sink, pos, at, end, stored, exp, digits)
        return value, end

    def annotate(self, sink: Sink, pos: int, at: int, end: int, stored: int, exp: int,
                 digits: str) -> None:
        """Report the signed decimal read at ``key[pos:end]``: its exponent (``key[pos:at]``,
        with the *stored* type bits), then its *digits* and how they end: a whole terminator
        byte after an even count, the low nibble of the last byte after an odd one, or the end
        of the key (unterminated)."""
        sink.part(self, pos, at, "exponent", (stored, exp, at - pos))
        digit_bytes = (len(digits) + 1) // 2
        if end - at == digit_bytes + 1:
            sink.part(self, at, at + digit_bytes, "digits", (stored, digits, "byte"))
            sink.part(self, at + digit_bytes, end, "terminator", stored)
        else:
            sink.part(self, at, end, "digits",
                      (stored, digits, "nibble" if len(digits) % 2 else "end"))

    @staticmethod
    def _read_digits(key: bytes, at: int, m: int, start: int) -> tuple[str, int]:
        """The BCD digits from *at*; value-level errors point at the field's *start*.

        The digits run to the first zero nibble (the terminator: a whole ``00`` byte after an
        even count, the low nibble of the last byte after an odd one), or to the end of the
        key (unterminated, an even count); the first byte at fault is reported."""
        nibbles = mask_bytes(key[at:], m).hex()
        z = nibbles.find("0")
        body = nibbles if z < 0 else nibbles[:z]
        bad = _NOT_A_DIGIT_NIBBLE.search(body)
        if bad is not None:
            i = at + bad.start() // 2
            raise DecodeError(f"BCD byte {key[i] ^ m:02x} holds a nibble above 10", offset=i,
                              found=key[i:i + 1], expected="nibbles 1..10, 0 to end")
        if z >= 0 and z % 2 == 0 and nibbles[z + 1] != "0":
            i = at + z // 2
            raise DecodeError("digit nibble after the terminator", offset=i,
                              found=key[i:i + 1], expected="00 after a terminator")
        i = len(key) if z < 0 else at + z // 2 + 1
        text = body.translate(_FROM_NIBBLES)
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
        _, _, m = self.kind_at(key, pos)
        length, _ = varint_span(key, pos, EXPONENT, m, 2)
        if length == 0:
            return pos + 1
        i = pos + length
        while i < len(key):
            b = key[i] ^ m
            i += 1
            if not b >> 4 or not b & 0xF:
                break
        return i
