"""The readable ``tidb`` decoder: the executable spec of reading, and its only error shaper.

Theory of operation: the flag byte of a datum picks its reader from a 256-entry table:
:data:`SCHEMALESS_READERS` (the Python value the flag says: ``04`` is an int, ``01`` bytes)
or, for a schema field, the table :func:`field_reader` builds from the flags the field's kind
admits (``format.KIND_FLAGS``: string and bytes share ``01``, uint64 and timestamp ``04``,
float32 and float64 ``05``), each reader turning the payload into the field's type. A reader
takes ``(key, pos, parts)`` and returns ``(value, next offset)``; given a list *parts*, it
appends a :class:`~lexcodecs.inspection.Part` for every span it reads, so ``inspect`` is a
decode and not a parser of its own.

Decoding is strict and linear: every malformed datum is a DecodeError with its offset. That
includes a decimal body shorter than its header says (TiDB's ``DecodeDecimal`` panics there),
digit words out of range, a negative zero decimal and non-minimal varints (which TiDB never
writes), a time field's packed value that is no date, and a duration that is not a whole
number of microseconds (a ``timedelta`` cannot hold it). The value encodings TiDB's decoder
takes (``08``, ``09``, ``02``) are read as it reads them.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import functools
import struct
from collections.abc import Callable
from typing import Any, Final

from ...errors import DecodeError, with_article
from ...inspection import Part
from ...types import Float32
from .format import (
    BYTES_FLAG,
    COMPACT_BYTES_FLAG,
    DECIMAL_FLAG,
    DECIMAL_SIGN,
    DIG2BYTES,
    DIGITS_PER_WORD,
    DURATION_FLAG,
    FLAG_NAMES,
    FLOAT_FLAG,
    GROUP_SIZE,
    HMS_BITS,
    HOUR_SHIFT,
    INT_FLAG,
    KIND_BYTES,
    KIND_DECIMAL,
    KIND_DURATION,
    KIND_FLAGS,
    KIND_FLOAT32,
    KIND_FLOAT64,
    KIND_INT64,
    KIND_STRING,
    KIND_TIMESTAMP,
    KIND_UINT64,
    MARKER,
    MAX_PRECISION,
    MAX_VARINT_LEN,
    MICRO_BITS,
    MIN_MARKER,
    MINUTE_SHIFT,
    MONTHS_PER_YEAR_SLOT,
    NIL_FLAG,
    NS_PER_US,
    SIGN_BIT,
    UINT_FLAG,
    UVARINT_FLAG,
    VARINT_FLAG,
    WIDTH,
    WORD_SIZE,
)

__all__ = ["SCHEMALESS_READERS", "bin_size", "field_reader", "read_any", "read_datum_end",
           "unpack_time"]

Parts = list[Part] | None
Reader = Callable[[bytes, int, Parts], tuple[Any, int]]

_Q: Final = struct.Struct(">Q")
_D: Final = struct.Struct(">d")
_UTC: Final = _dt.UTC
_WORD_MAX: Final = 10**DIGITS_PER_WORD - 1


def insufficient(key: bytes, what: str) -> DecodeError:
    """TiDB's ``insufficient bytes to decode value``, at the end of the key."""
    return DecodeError(f"insufficient bytes to decode value ({what})", offset=len(key),
                       found=b"", expected="more bytes")


def bad_flag(key: bytes, pos: int) -> DecodeError:
    flag = key[pos]
    return DecodeError(f"invalid encoded key flag {flag}", offset=pos, found=key[pos:pos + 1],
                       expected="a datum flag: 00..09")


def _head(key: bytes, pos: int, parts: Parts, text: str) -> None:
    if parts is not None:
        parts.append(Part(pos, pos + 1, "flag", f"{key[pos]:02x}: {text}"))


# -- fixed-width payloads (spec §4, §5) -----------------------------------------------------


def read_u64(key: bytes, pos: int, what: str) -> int:
    """The 8 payload bytes after the flag at *pos*, big-endian."""
    if pos + 1 + WIDTH > len(key):
        raise insufficient(key, what)
    value: int = _Q.unpack_from(key, pos + 1)[0]
    return value


def _fixed(key: bytes, pos: int, parts: Parts, what: str, text: str) -> int:
    u = read_u64(key, pos, what)
    if parts is not None:
        _head(key, pos, parts, FLAG_NAMES[key[pos]])
        parts.append(Part(pos + 1, pos + 1 + WIDTH, "payload", text))
    return u


def read_int(key: bytes, pos: int, parts: Parts = None) -> tuple[int, int]:
    return _fixed(key, pos, parts, "int64", "int64, sign bit flipped") - SIGN_BIT, pos + 9


def read_uint(key: bytes, pos: int, parts: Parts = None) -> tuple[int, int]:
    return _fixed(key, pos, parts, "uint64", "uint64, big-endian"), pos + 9


def float_of(u: int) -> float:
    """The inverse of ``EncodeFloat``: a set sign bit means it was >= 0."""
    bits = u ^ SIGN_BIT if u & SIGN_BIT else u ^ 0xFFFFFFFFFFFFFFFF
    value: float = _D.unpack(_Q.pack(bits))[0]
    return value


def read_float(key: bytes, pos: int, parts: Parts = None) -> tuple[float, int]:
    u = _fixed(key, pos, parts, "float64", "IEEE bits: sign set if >= 0, else all inverted")
    return float_of(u), pos + 9


def read_float32(key: bytes, pos: int, parts: Parts = None) -> tuple[Float32, int]:
    x, end = read_float(key, pos, parts)
    if not Float32.is_exact(x):
        raise DecodeError(f"{x!r} is not a float32 value (a FLOAT is a widened binary32)",
                          offset=pos, found=key[pos:end], expected="a float32 value")
    return Float32(x), end


def read_duration(key: bytes, pos: int, parts: Parts = None) -> tuple[_dt.timedelta, int]:
    ns = _fixed(key, pos, parts, "duration", "int64 nanoseconds, sign bit flipped") - SIGN_BIT
    if ns % NS_PER_US:
        raise DecodeError(f"duration of {ns} ns is not a whole number of microseconds "
                          "(datetime.timedelta holds microseconds)", offset=pos,
                          found=key[pos:pos + 9], expected="a multiple of 1000 ns")
    return _dt.timedelta(microseconds=ns // NS_PER_US), pos + 9


# -- packed time (spec §7) ------------------------------------------------------------------


def unpack_time(packed: int) -> tuple[int, int, int, int, int, int, int]:
    """(year, month, day, hour, minute, second, microsecond) of a packed time."""
    micro = packed & ((1 << MICRO_BITS) - 1)
    ymdhms = packed >> MICRO_BITS
    hms = ymdhms & ((1 << HMS_BITS) - 1)
    ymd = ymdhms >> HMS_BITS
    day = ymd & 31
    ym = ymd >> 5
    return (ym // MONTHS_PER_YEAR_SLOT, ym % MONTHS_PER_YEAR_SLOT, day, hms >> HOUR_SHIFT,
            (hms >> MINUTE_SHIFT) & 63, hms & 63, micro)


def time_of(packed: int, key: bytes, pos: int, end: int) -> _dt.datetime:
    if packed == 0:
        raise DecodeError("the zero date 0000-00-00 is no instant", offset=pos,
                          found=key[pos:end], expected="a packed date in years 1..9999")
    try:
        return _dt.datetime(*unpack_time(packed), tzinfo=_UTC)
    except ValueError as exc:
        raise DecodeError(f"packed time {packed:#x} is no valid datetime ({exc})", offset=pos,
                          found=key[pos:end], expected="a packed date in years 1..9999") \
            from None


def read_timestamp(key: bytes, pos: int, parts: Parts = None) -> tuple[_dt.datetime, int]:
    if key[pos] == UVARINT_FLAG:
        packed, end = read_uvarint(key, pos, parts)
    else:
        packed = _fixed(key, pos, parts, "packed time", "packed UTC time: ((Y*13+M)<<5|D)"
                        "<<17|h<<12|m<<6|s, <<24|us")
        end = pos + 9
    return time_of(packed, key, pos, end), end


# -- varints (the value encodings, spec §10) ------------------------------------------------


def _uvarint_at(key: bytes, start: int) -> tuple[int, int]:
    """Go's ``binary.Uvarint`` at *start*, minimal forms only: (value, end)."""
    x = shift = 0
    for i in range(start, min(len(key), start + MAX_VARINT_LEN)):
        b = key[i]
        if b < 0x80:
            if i == start + MAX_VARINT_LEN - 1 and b > 1:
                raise DecodeError("varint overflows 64 bits", offset=start,
                                  found=key[start:i + 1], expected="a uint64 varint")
            if b == 0 and i > start:
                raise DecodeError("non-minimal varint (a last byte 00)", offset=i,
                                  found=key[i:i + 1], expected="a minimal varint")
            return x | (b << shift), i + 1
        x |= (b & 0x7F) << shift
        shift += 7
    if len(key) >= start + MAX_VARINT_LEN:
        raise DecodeError("varint overflows 64 bits", offset=start,
                          found=key[start:start + MAX_VARINT_LEN], expected="a uint64 varint")
    raise insufficient(key, "varint")


def read_uvarint(key: bytes, pos: int, parts: Parts = None) -> tuple[int, int]:
    value, end = _uvarint_at(key, pos + 1)
    if parts is not None:
        _head(key, pos, parts, FLAG_NAMES[key[pos]])
        parts.append(Part(pos + 1, end, "payload", "uvarint (a value encoding)"))
    return value, end


def _zigzag(u: int) -> int:
    return ~(u >> 1) if u & 1 else u >> 1


def read_varint(key: bytes, pos: int, parts: Parts = None) -> tuple[int, int]:
    u, end = _uvarint_at(key, pos + 1)
    if parts is not None:
        _head(key, pos, parts, FLAG_NAMES[key[pos]])
        parts.append(Part(pos + 1, end, "payload", "zigzag varint (a value encoding)"))
    return _zigzag(u), end


# -- bytes (spec §3) ------------------------------------------------------------------------


def read_groups(key: bytes, start: int, parts: Parts = None) -> tuple[bytes, int]:
    """The data of the 8-byte groups at *start* (after the flag): (data, end)."""
    chunks = []
    g = start
    while True:
        if g + GROUP_SIZE + 1 > len(key):
            raise insufficient(key, "a bytes group")
        marker = key[g + GROUP_SIZE]
        if marker == MARKER:
            chunks.append(key[g:g + GROUP_SIZE])
            g += GROUP_SIZE + 1
            continue
        if marker < MIN_MARKER:
            raise DecodeError(f"invalid marker byte {marker:02x}", offset=g + GROUP_SIZE,
                              found=key[g + GROUP_SIZE:g + GROUP_SIZE + 1],
                              expected="a group marker f7..ff")
        real = GROUP_SIZE - (MARKER - marker)
        if key[g + real:g + GROUP_SIZE].count(0) != GROUP_SIZE - real:
            at = next(i for i in range(g + real, g + GROUP_SIZE) if key[i])
            raise DecodeError("invalid padding byte", offset=at, found=key[at:at + 1],
                              expected="00 (a pad byte)")
        chunks.append(key[g:g + real])
        end = g + GROUP_SIZE + 1
        if parts is not None:
            parts.append(Part(start, end, "payload", f"{(end - start) // 9} group(s) of 8 "
                              f"bytes + marker; last marker {marker:02x}: {real} data byte(s)"))
        return b"".join(chunks), end


def read_bytes(key: bytes, pos: int, parts: Parts = None) -> tuple[bytes, int]:
    if key[pos] == COMPACT_BYTES_FLAG:
        return read_compact(key, pos, parts)
    _head(key, pos, parts, FLAG_NAMES[BYTES_FLAG])
    return read_groups(key, pos + 1, parts)


def read_compact(key: bytes, pos: int, parts: Parts = None) -> tuple[bytes, int]:
    u, start = _uvarint_at(key, pos + 1)
    n = _zigzag(u)
    if n < 0:
        raise DecodeError(f"negative length {n} of compact bytes", offset=pos + 1,
                          found=key[pos + 1:start], expected="a length >= 0")
    if start + n > len(key):
        raise insufficient(key, "compact bytes")
    if parts is not None:
        _head(key, pos, parts, FLAG_NAMES[COMPACT_BYTES_FLAG])
        parts += [Part(pos + 1, start, "length", f"{n} (zigzag varint)"),
                  Part(start, start + n, "payload", "raw bytes (a value encoding)")]
    return key[start:start + n], start + n


def read_text(key: bytes, pos: int, parts: Parts = None) -> tuple[str, int]:
    data, end = read_bytes(key, pos, parts)
    try:
        return data.decode("utf-8"), end
    except UnicodeDecodeError as exc:
        raise DecodeError(f"invalid UTF-8 in a string ({exc.reason})", offset=pos,
                          found=key[pos:end], expected="UTF-8") from None


# -- decimal (spec §6) ----------------------------------------------------------------------


def bin_size(precision: int, frac: int) -> int:
    """The body size of DECIMAL(precision, frac) (MySQL's ``decimal_bin_size``)."""
    whole = precision - frac
    return (whole // DIGITS_PER_WORD * WORD_SIZE + DIG2BYTES[whole % DIGITS_PER_WORD]
            + frac // DIGITS_PER_WORD * WORD_SIZE + DIG2BYTES[frac % DIGITS_PER_WORD])


def _bad_number(key: bytes, at: int, n: int, why: str) -> DecodeError:
    return DecodeError(f"[types:1]Bad Number: {why}", offset=at, found=key[at:at + n],
                       expected="a digit word in range")


def read_decimal(key: bytes, pos: int, parts: Parts = None) -> tuple[decimal.Decimal, int]:
    if pos + 3 > len(key):
        raise insufficient(key, "decimal header")
    p, f = key[pos + 1], key[pos + 2]
    if not (1 <= p <= MAX_PRECISION and f <= p):
        raise DecodeError(f"decimal header ({p},{f}): [types:1]Bad Number", offset=pos + 1,
                          found=key[pos + 1:pos + 3],
                          expected=f"1 <= precision <= {MAX_PRECISION}, frac <= precision")
    body = pos + 3
    end = body + bin_size(p, f)
    if end > len(key):
        raise DecodeError(f"decimal body shorter than its header ({p},{f}) says (TiDB's "
                          "DecodeDecimal panics here)", offset=len(key), found=b"",
                          expected=f"{end - body} body bytes")
    raw = bytearray(key[body:end])
    negative = not raw[0] & DECIMAL_SIGN
    raw[0] ^= DECIMAL_SIGN
    if negative:
        raw = bytearray(b ^ 0xFF for b in raw)
    whole, frac = p - f, f
    lead, trail = whole % DIGITS_PER_WORD, frac % DIGITS_PER_WORD
    words: list[str] = []
    at = 0

    def take(n: int, digits: int) -> None:
        nonlocal at
        value = int.from_bytes(raw[at:at + n], "big")
        if value >= 10**digits:
            raise _bad_number(key, body + at, n, f"{value} has more than {digits} digit(s)")
        words.append(str(value).rjust(digits, "0"))
        at += n

    if lead:
        take(DIG2BYTES[lead], lead)
    for _ in range(whole // DIGITS_PER_WORD):
        take(WORD_SIZE, DIGITS_PER_WORD)
    int_text = "".join(words)
    words.clear()
    for _ in range(frac // DIGITS_PER_WORD):
        take(WORD_SIZE, DIGITS_PER_WORD)
    if trail:
        take(DIG2BYTES[trail], trail)
    frac_text = "".join(words)
    int_text = int_text.lstrip("0") or "0"
    if negative and not (int_text + frac_text).strip("0"):
        raise DecodeError("negative zero decimal (TiDB writes zero with the sign bit set)",
                          offset=body, found=key[body:end], expected="a positive zero")
    if parts is not None:
        _head(key, pos, parts, FLAG_NAMES[DECIMAL_FLAG])
        parts += [Part(pos + 1, pos + 3, "header", f"precision {p}, frac {f}"),
                  Part(body, end, "payload", "MySQL binary decimal: 9-digit words of 4 bytes"
                       + (", inverted (negative)" if negative else "") + ", top bit flipped")]
    text = ("-" if negative else "") + int_text + ("." + frac_text if f else "")
    return decimal.Decimal(text), end


# -- one datum without a schema -------------------------------------------------------------


def read_null(key: bytes, pos: int, parts: Parts = None) -> tuple[None, int]:
    if parts is not None:
        parts.append(Part(pos, pos + 1, "null", "00: NULL"))
    return None, pos + 1


def _reader_table() -> list[Reader | None]:
    table: list[Reader | None] = [None] * 256
    table[NIL_FLAG] = read_null
    table[BYTES_FLAG] = table[COMPACT_BYTES_FLAG] = read_bytes
    table[INT_FLAG] = read_int
    table[UINT_FLAG] = read_uint
    table[FLOAT_FLAG] = read_float
    table[DECIMAL_FLAG] = read_decimal
    table[DURATION_FLAG] = read_duration
    table[VARINT_FLAG] = read_varint
    table[UVARINT_FLAG] = read_uvarint
    return table


#: flag -> the reader of a datum without a schema (None: not a flag TiDB's decoder takes)
SCHEMALESS_READERS: Final = _reader_table()


def read_any(key: bytes, pos: int, parts: Parts = None) -> tuple[Any, int]:
    """One datum, typed by its flag alone."""
    reader = SCHEMALESS_READERS[key[pos]]
    if reader is None:
        raise bad_flag(key, pos)
    return reader(key, pos, parts)


def read_datum_end(key: bytes, pos: int) -> int:
    """Where the datum at *pos* ends (it is read, so a malformed one is refused)."""
    return read_any(key, pos)[1]


# -- per field kind -------------------------------------------------------------------------

def read_int64(key: bytes, pos: int, parts: Parts = None) -> tuple[int, int]:
    return (read_varint if key[pos] == VARINT_FLAG else read_int)(key, pos, parts)


def read_uint64(key: bytes, pos: int, parts: Parts = None) -> tuple[int, int]:
    return (read_uvarint if key[pos] == UVARINT_FLAG else read_uint)(key, pos, parts)


#: kind -> the reader of its non-NULL datums (the flag checked against KIND_FLAGS first)
KIND_READERS: Final[dict[int, Reader]] = {
    KIND_INT64: read_int64,
    KIND_UINT64: read_uint64,
    KIND_FLOAT64: read_float,
    KIND_FLOAT32: read_float32,
    KIND_STRING: read_text,
    KIND_BYTES: read_bytes,
    KIND_DECIMAL: read_decimal,
    KIND_DURATION: read_duration,
    KIND_TIMESTAMP: read_timestamp,
}


@functools.cache  # readers hold no state: one per (kind, field type)
def field_reader(kind: int, field_type: str) -> Reader:
    """The strict reader of one schema field: NULL, or a datum whose flag the kind admits."""
    table: list[Reader | None] = [None] * 256
    for flag in KIND_FLAGS[kind]:
        table[flag] = KIND_READERS[kind]
    table[NIL_FLAG] = read_null

    def read(key: bytes, pos: int, parts: Parts = None) -> tuple[Any, int]:
        if pos >= len(key):
            raise DecodeError("invalid encoded key: it ends before the field", offset=pos,
                              found=b"", expected=f"{with_article(field_type)} datum or NULL")
        reader = table[key[pos]]
        if reader is None:
            raise _mismatch(key, pos, field_type)
        return reader(key, pos, parts)
    return read


def _mismatch(key: bytes, pos: int, field_type: str) -> DecodeError:
    flag = key[pos]
    if SCHEMALESS_READERS[flag] is None:
        return bad_flag(key, pos)
    return DecodeError(f"{FLAG_NAMES[flag]} ({flag:02x}) where the schema declares "
                       f"{field_type}", offset=pos, found=key[pos:pos + 1],
                       expected=f"{with_article(field_type)} datum or NULL")
