"""The readable ``sqlite4`` decoder: the executable spec of reading, and its only error shaper.

Theory of operation: a reader takes ``(key, pos)`` and returns ``(value, next offset)``. The
header byte picks it from a table -- :data:`ASCENDING_READERS` (schemaless, keyed by header),
:data:`KIND_READERS` (a schema field, keyed by field kind) -- and :func:`field_reader` adds
what a schema fixes: the admitted headers, NULL, and the direction. A descending value is read
by the same ascending reader over the complemented bytes (:func:`read_descending`, the one
descending strategy), offsets unchanged.

Every reader also takes an optional annotation *sink* (see :class:`Sink`): it reports each
part it reads -- header, exponent, mantissa, payload, terminator -- with the facts it found,
and ``explain.py`` words them. So ``inspect`` is a decode with a sink, not a parser of its own.

Decoding is strict (spec §5.7, §12): only the canonical form the encoder writes decodes, and
every malformed key is a :class:`~lexcodecs.errors.DecodeError` with the offset the spec gives.
A number is read into ``(special, negative, digits, exponent)``: *special* names NaN, the
infinities and zero (digits empty), else the value is -+ int(digits) * 10**exponent with
*digits* free of trailing zeros.
"""

from __future__ import annotations

import decimal
import functools
import math
from collections.abc import Callable
from typing import Any, Final, Protocol

from ..._bytes import invert
from ...codec import as_key_bytes
from ...errors import MAX_VALUE_REPR, DecodeError, LexCodecError, describe_int
from .format import (
    BINARY,
    DIGIT_PAIR,
    EVEN_MARK,
    FINAL_BINARY,
    FIRST_ASC,
    FIRST_DESC,
    GROUP_MARK,
    INT_FROM_STR_DIGITS,
    KIND_BYTES,
    KIND_DECIMAL,
    KIND_FINAL,
    KIND_FLOAT64,
    KIND_HEADERS,
    KIND_INT,
    KIND_STRING,
    LAST_ASC,
    LAST_DESC,
    LOW7,
    MAX_INT_DIGITS,
    MEDIUM_MAX_E,
    NAME,
    NAN,
    NEG_LARGE,
    NEG_MEDIUM,
    NULL,
    POS_INF,
    POS_LARGE,
    POS_MEDIUM,
    POS_SMALL,
    POW100,
    SPECIAL_NUMBERS,
    SPREAD_7,
    SPREAD_14,
    SPREAD_28,
    TEXT,
    VARINT_1,
    VARINT_2,
    VARINT_2_FIRST,
    VARINT_3_FIRST,
    VARINT_LONG,
    ZERO,
)
from .reference_encode import encode_varint

__all__ = [
    "ASCENDING_READERS",
    "KIND_READERS",
    "Sink",
    "decode_number",
    "decode_varint",
    "field_reader",
    "read_any",
    "read_binary_body",
    "read_descending",
    "read_varint",
]


class Sink(Protocol):
    """Where readers report what they read (``explain.py`` has the one implementation)."""

    def part(self, start: int, end: int, role: str, facts: Any) -> None:
        """Bytes ``key[start:end]`` are a *role* (header, exponent, ...) holding *facts*."""

    def value(self, index: int, start: int, end: int, value: Any) -> None:
        """Bytes ``key[start:end]`` are value *index* (``-1``: the table number)."""

    def inverted(self) -> Sink:
        """The sink for a descending value: the same parts, over complemented bytes."""


Reader = Callable[..., tuple[Any, int]]  # (key, pos[, sink]) -> (value, next offset)
Parsed = tuple[str | None, bool, str, int]


def truncated(key: bytes, what: str) -> DecodeError:
    return DecodeError(f"truncated: {what}", offset=len(key), found=b"", expected="more bytes")


# -- varint (spec §3) -----------------------------------------------------------------------


def _varint_length(first: int) -> int:
    if first <= VARINT_1:
        return 1
    if first < VARINT_3_FIRST:
        return 2
    if first == VARINT_3_FIRST:
        return 3
    return first - VARINT_LONG + 1


def read_varint(key: bytes, pos: int, inverted: bool, what: str) -> tuple[int, int]:
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
    if first <= VARINT_1:
        value = first
    elif first < VARINT_3_FIRST:
        value = VARINT_1 + 256 * (first - VARINT_2_FIRST) + raw[1]
    elif first == VARINT_3_FIRST:
        value = VARINT_2 + 1 + 256 * raw[1] + raw[2]
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
        return read_varint(as_key_bytes(NAME, data), pos, False, "varint")
    except LexCodecError as exc:
        raise exc.add_context(codec=NAME) from None


# -- numbers (spec §5.7) --------------------------------------------------------------------

_SPECIAL: Final[dict[int, Parsed]] = {
    h: (name, h < ZERO, "", 0) for h, name in SPECIAL_NUMBERS.items()}


def read_mantissa(key: bytes, start: int, negative: bool, sink: Sink | None = None
                  ) -> tuple[str, int]:
    """(decimal digits, each pair one centimal digit; offset after M) of the M at *start*."""
    rest = key[start:]
    if negative:
        rest = invert(rest)
    if not rest:
        raise truncated(key, "mantissa missing")
    end = rest.translate(EVEN_MARK).find(0)
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
    if sink is not None:
        sink.part(start, start + end + 1, "mantissa", ([b >> 1 for b in m], negative))
    return m.translate(DIGIT_PAIR).hex(), start + end + 1


def read_number(key: bytes, pos: int, sink: Sink | None = None) -> tuple[Parsed, int]:
    """The number whose (ascending) header is at *pos*, and the offset after it."""
    h = key[pos]
    if sink is not None:
        sink.part(pos, pos + 1, "header", h)
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
        complemented = h in (NEG_LARGE, POS_SMALL)
        magnitude, start = read_varint(key, start, complemented, "exponent")
        if large and magnitude <= MEDIUM_MAX_E:
            raise DecodeError(f"non-canonical: large form with E={magnitude} (SQLite4 writes "
                              "the medium form)", offset=pos + 1, found=key[pos + 1:start],
                              expected="E >= 11 in the large form")
        if not large and magnitude < 1:
            raise DecodeError("non-canonical: small form with exponent 0 (the 2013/HBase form; "
                              "SQLite4 writes the medium form)", offset=pos + 1,
                              found=key[pos + 1:start], expected="-E >= 1 in the small form")
        e = magnitude if large else -magnitude
        if sink is not None:
            sink.part(pos + 1, start, "exponent", (e, magnitude, complemented))
    digits, end = read_mantissa(key, start, negative, sink)
    stripped = digits.rstrip("0")
    return (None, negative, stripped, 2 * e - len(stripped)), end


def medium_int(key: bytes, pos: int) -> tuple[int, int] | None:
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
    j = m.translate(EVEN_MARK).find(0)
    if j < 0 or m[0] < 2 or not m[j] or max(m[:j + 1]) > 0xC7:
        return None
    n = int(m[:j + 1].translate(DIGIT_PAIR).hex()) * POW100[e - j - 1]
    return (n if h > ZERO else -n), pos + j + 2


_DECIMAL_SPECIAL: Final = {
    "nan": decimal.Decimal("NaN"), "-inf": decimal.Decimal("-Infinity"),
    "inf": decimal.Decimal("Infinity"), "zero": decimal.Decimal(0),
}
_FLOAT_SPECIAL: Final = {"nan": math.nan, "-inf": -math.inf, "inf": math.inf, "zero": 0.0}


def decimal_of(parsed: Parsed, key: bytes, pos: int) -> decimal.Decimal:
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


def int_of(parsed: Parsed) -> int | None:
    """The int value, or None when the number is not an integer (or has too many digits)."""
    special, negative, digits, exponent = parsed
    if special is not None:
        return 0 if special == "zero" else None
    if exponent < 0 or len(digits) + exponent > MAX_INT_DIGITS:
        return None
    # int(str) is quadratic and guarded by Python at 4300 digits; Decimal converts fast
    n: int = (int(digits) if len(digits) <= INT_FROM_STR_DIGITS
              else int(decimal.Decimal(digits))) * 10**exponent
    return -n if negative else n


def float_of(parsed: Parsed) -> float:
    """Correctly rounded (float(str) is); overflow goes to +-inf like IEEE rounding."""
    special, negative, digits, exponent = parsed
    if special is not None:
        return _FLOAT_SPECIAL[special]
    return float(f"{'-' if negative else ''}{digits}e{exponent}")


def schemaless_number(parsed: Parsed, key: bytes, pos: int) -> Any:
    """Integral -> int, other finite -> Decimal, NaN and infinities -> float (spec §11)."""
    special = parsed[0]
    if special is not None:
        return 0 if special == "zero" else _FLOAT_SPECIAL[special]
    n = int_of(parsed)
    return decimal_of(parsed, key, pos) if n is None else n


def read_schemaless_number(key: bytes, pos: int, sink: Sink | None = None) -> tuple[Any, int]:
    if sink is None:
        fast = medium_int(key, pos)
        if fast is not None:
            return fast
    parsed, end = read_number(key, pos, sink)
    return schemaless_number(parsed, key, pos), end


def decode_number(data: bytes, pos: int = 0) -> tuple[Any, int]:
    """``(value, next offset)`` of the ascending number at *pos*, as a schemaless decode
    gives it: integral -> ``int``, other finite -> ``Decimal``, NaN/infinities -> ``float``.

    >>> decode_number(bytes.fromhex("18194564"))
    (Decimal('12.345'), 4)
    """
    data = as_key_bytes(NAME, data)
    try:
        if pos >= len(data):
            raise truncated(data, "number missing")
        if not NAN <= data[pos] <= POS_INF:
            raise DecodeError(f"{data[pos]:02x} is not a number header", offset=pos,
                              found=data[pos:pos + 1], expected="06..23")
        return read_schemaless_number(data, pos)
    except LexCodecError as exc:
        raise exc.add_context(codec=NAME) from None


# -- text and binary (spec §6, §7, §8) ------------------------------------------------------


def read_null(key: bytes, pos: int, sink: Sink | None = None) -> tuple[None, int]:
    if sink is not None:
        sink.part(pos, pos + 1, "null", None)
    return None, pos + 1


def read_text(key: bytes, pos: int, sink: Sink | None = None) -> tuple[str, int]:
    end = key.find(b"\x00", pos + 1)
    if end < 0:
        raise truncated(key, "unterminated text")
    try:
        text = key[pos + 1:end].decode("utf-8")
    except UnicodeDecodeError as exc:
        at = pos + 1 + exc.start
        raise DecodeError(f"invalid UTF-8 in text ({exc.reason})", offset=at,
                          found=key[at:at + 1], expected="UTF-8") from None
    if sink is not None:
        sink.part(pos, pos + 1, "header", TEXT)
        if end > pos + 1:
            sink.part(pos + 1, end, "payload", (TEXT, end - pos - 1))
        sink.part(end, end + 1, "terminator", TEXT)
    return text, end + 1


def _unpack_groups(groups: bytes, n: int) -> bytes:
    """The *n* bytes held by 7-bit *groups* (high bits already checked)."""
    low = groups.translate(LOW7) + b"\x00" * (-len(groups) % 8)
    out = []
    for i in range(0, len(low), 8):
        x = int.from_bytes(low[i:i + 8], "big")
        x = (x & SPREAD_7[1]) | ((x >> 1) & SPREAD_7[0])
        x = (x & SPREAD_14[1]) | ((x >> 2) & SPREAD_14[0])
        x = (x & SPREAD_28[1]) | ((x >> 4) & SPREAD_28[0])
        out.append(x.to_bytes(7, "big"))
    return b"".join(out)[:n]


def read_binary_body(key: bytes, start: int, sink: Sink | None = None) -> tuple[bytes, int]:
    """``(value, next offset)`` of the 7-bit groups and ``00`` at *start* (no type byte);
    only the canonical form is accepted."""
    k = key[start:].translate(GROUP_MARK).find(0)
    if k < 0:
        raise truncated(key, "unterminated binary")
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
    if sink is not None:
        if k:
            sink.part(start, stop, "payload", (BINARY, k))
        sink.part(stop, stop + 1, "terminator", BINARY)
    return _unpack_groups(key[start:stop], n), stop + 1


def read_binary(key: bytes, pos: int, sink: Sink | None = None) -> tuple[bytes, int]:
    if sink is not None:
        sink.part(pos, pos + 1, "header", BINARY)
    return read_binary_body(key, pos + 1, sink)


def read_final(key: bytes, pos: int, sink: Sink | None = None) -> tuple[bytes, int]:
    if sink is not None:
        sink.part(pos, pos + 1, "header", FINAL_BINARY)
        if len(key) > pos + 1:
            sink.part(pos + 1, len(key), "payload", (FINAL_BINARY, len(key) - pos - 1))
    return key[pos + 1:], len(key)


# -- one value without a schema (spec §12) --------------------------------------------------


def _reader_table() -> list[Reader | None]:
    table: list[Reader | None] = [None] * 256
    for h in range(NAN, POS_INF + 1):
        table[h] = read_schemaless_number
    table[NULL], table[TEXT], table[BINARY] = read_null, read_text, read_binary
    table[FINAL_BINARY] = read_final
    return table


#: ascending header -> its schemaless reader (None: not an ascending header)
ASCENDING_READERS: Final = _reader_table()


def not_a_type(key: bytes, pos: int) -> DecodeError:
    b = key[pos]
    if b == 0xFF ^ FINAL_BINARY:
        return DecodeError("descending final binary (d9) is not supported: inverted raw bytes "
                           "have no terminator, so they cannot sort in descending order",
                           offset=pos, found=key[pos:pos + 1], expected="05..26 or da..fa")
    return DecodeError(f"{b:02x} is not a type byte", offset=pos, found=key[pos:pos + 1],
                       expected="05..26 (ascending) or da..fa (descending)")


def read_ascending(key: bytes, pos: int, sink: Sink | None = None) -> tuple[Any, int]:
    """One ascending value at *pos*, typed as a schemaless decode types it."""
    reader = ASCENDING_READERS[key[pos]]
    if reader is None:
        raise not_a_type(key, pos)
    value, end = reader(key, pos, sink)
    return value, end


def read_descending(read: Reader, key: bytes, pos: int, sink: Sink | None = None
                    ) -> tuple[Any, int]:
    """Read a descending value with the ascending reader *read*: complement the rest of the
    key (offsets kept) and read it; an error shows the bytes as they are in the key."""
    plain = b"\x00" * pos + invert(key[pos:])
    try:
        if sink is None:
            value, end = read(plain, pos)
        else:
            value, end = read(plain, pos, sink.inverted())
    except DecodeError as exc:
        if exc.found and exc.offset is not None:  # show the bytes as they are in the key
            exc.found = key[exc.offset:exc.offset + len(exc.found)]
        raise
    return value, end


def read_any(key: bytes, pos: int, sink: Sink | None = None) -> tuple[Any, int]:
    """One value of either direction, typed from its header alone."""
    b = key[pos]
    if FIRST_ASC <= b <= LAST_ASC:
        return read_ascending(key, pos, sink)
    if FIRST_DESC <= b <= LAST_DESC:
        return read_descending(read_ascending, key, pos, sink)
    raise not_a_type(key, pos)


# -- per field kind (spec §12 "with a schema") ----------------------------------------------


def _read_decimal(key: bytes, pos: int, sink: Sink | None = None) -> tuple[Any, int]:
    # no int shortcut: Decimal(10) would keep the zero that Decimal("1E+1") strips
    parsed, end = read_number(key, pos, sink)
    return decimal_of(parsed, key, pos), end


def _read_float(key: bytes, pos: int, sink: Sink | None = None) -> tuple[Any, int]:
    if sink is None:
        fast = medium_int(key, pos)
        if fast is not None:  # int -> float rounds correctly
            return float(fast[0]), fast[1]
    parsed, end = read_number(key, pos, sink)
    return float_of(parsed), end


def _cut(text: str) -> str:
    """*text* cut to the one limit of values quoted in messages."""
    return text if len(text) <= MAX_VALUE_REPR else text[:MAX_VALUE_REPR - 1] + "…"


def _int_field_reader(field_type: str, lo: int | None, hi: int | None) -> Reader:
    def read_int(key: bytes, pos: int, sink: Sink | None = None) -> tuple[Any, int]:
        fast = medium_int(key, pos) if sink is None else None
        if fast is not None and (lo is None or lo <= fast[0] <= hi):  # type: ignore[operator]
            return fast
        parsed, end = read_number(key, pos, sink)
        n = int_of(parsed)
        if n is None:
            what = (parsed[0] if parsed[0] is not None else
                    _cut(str(decimal_of(parsed, key, pos))) if parsed[2] else "?")
            too_big = parsed[0] is None and parsed[3] >= 0
            raise DecodeError(
                f"{what} is not an integer ({field_type} field)" if not too_big else
                f"integer of more than {MAX_INT_DIGITS} digits ({field_type} field)",
                offset=pos, found=key[pos:end], expected="an integer")
        if lo is not None and hi is not None and not lo <= n <= hi:
            shown = describe_int(n)
            raise DecodeError(f"{shown} is out of range for {field_type}", offset=pos,
                              found=key[pos:end], expected=f"{lo}..{hi}")
        return n, end
    return read_int


#: field kind -> a factory of its reader of a non-NULL ascending value (header checked),
#: given the field type (for messages) and the int range (None: unbounded)
KIND_READERS: Final[dict[int, Callable[[str, int | None, int | None], Reader]]] = {
    KIND_INT: _int_field_reader,
    KIND_FLOAT64: lambda t, lo, hi: _read_float,
    KIND_DECIMAL: lambda t, lo, hi: _read_decimal,
    KIND_STRING: lambda t, lo, hi: read_text,
    KIND_BYTES: lambda t, lo, hi: read_binary,
    KIND_FINAL: lambda t, lo, hi: read_final,
}


def _kind_of(h: int) -> str:
    if NAN <= h <= POS_INF:
        return "number"
    return {NULL: "NULL", TEXT: "text", BINARY: "binary", FINAL_BINARY: "final binary"}.get(
        h, "?")


@functools.cache  # a few hundred at most; binding a schema made them anew
def field_reader(kind: int, descending: bool, field_type: str, lo: int | None = None,
                 hi: int | None = None) -> Reader:
    """The strict reader of one schema field: direction, type and NULL checked (made once
    for each: readers hold no state).

    An ascending value reads through a table of the headers the kind admits; anything else is
    explained by :func:`_refuse_header`.
    """
    read_value = KIND_READERS[kind](field_type, lo, hi)
    table: list[Reader | None] = [None] * 256
    for h in KIND_HEADERS[kind]:
        table[h] = read_value
    table[NULL] = read_null

    def refuse(key: bytes, pos: int) -> DecodeError:
        return _refuse_header(key, pos, kind, descending, field_type)

    def read_ascending(key: bytes, pos: int, sink: Sink | None = None) -> tuple[Any, int]:
        reader = table[key[pos]]
        if reader is None:
            raise _mismatch(key, pos, kind, field_type)
        value, end = reader(key, pos, sink)
        return value, end

    if descending:
        def read(key: bytes, pos: int, sink: Sink | None = None) -> tuple[Any, int]:
            if pos < len(key) and FIRST_DESC <= key[pos] <= LAST_DESC:
                return read_descending(read_ascending, key, pos, sink)
            raise refuse(key, pos)
        return read

    def read_asc(key: bytes, pos: int, sink: Sink | None = None) -> tuple[Any, int]:
        reader = table[key[pos]] if pos < len(key) else None
        if reader is None:
            raise refuse(key, pos)
        value, end = reader(key, pos, sink)
        return value, end
    return read_asc


def _refuse_header(key: bytes, pos: int, kind: int, descending: bool, field_type: str
                   ) -> DecodeError:
    """Why the byte at *pos* cannot start a value of the field."""
    if pos >= len(key):
        return truncated(key, "key ends before the field")
    b = key[pos]
    found_desc = FIRST_DESC <= b <= LAST_DESC
    if not (FIRST_ASC <= b <= LAST_ASC or found_desc):
        return not_a_type(key, pos)
    if found_desc != descending:
        found, direction = (("descending", "ascending") if found_desc
                            else ("ascending", "descending"))
        return DecodeError(f"{found} header in a field declared {direction}", offset=pos,
                           found=key[pos:pos + 1],
                           expected=f"a {direction} {field_type} or NULL")
    return _mismatch(key, pos, kind, field_type)


def _mismatch(key: bytes, pos: int, kind: int, field_type: str) -> DecodeError:
    """*key* holds the value in ascending form (a descending one already complemented)."""
    h = key[pos]
    if h == FINAL_BINARY and kind == KIND_BYTES:
        reason = "final binary in a field not declared final"
    elif h == BINARY and kind == KIND_FINAL:
        reason = "binary (25) in a field declared final (26 expected)"
    else:
        reason = f"{_kind_of(h)} where the schema declares {field_type}"
    return DecodeError(reason, offset=pos, found=key[pos:pos + 1],
                       expected=f"{field_type} or NULL")
