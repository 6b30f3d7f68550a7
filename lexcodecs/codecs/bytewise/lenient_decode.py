"""The lenient decoder of ``bytewise``: what bytewise-core 1.2.3's own ``decode`` returns.

Theory of operation: the codec option ``reading="reference"`` reads keys written by code other
than lexcodecs' encoder (another bytewise version, a hand-rolled writer) as the JS package
reads them (spec ``bytewise.md`` §7), rule for rule, in pure Python. This reader never asks
whether the bytes are the canonical encoding of the value it returns; the strict reader
(``reference_decode``) is the one that does.

**Top level.** The first byte picks the type; an empty key or an unregistered byte is refused
(``Invalid encoding``). Then:

* a nullary tag (``10 20 21 40 43 f0``) is its value, and the bytes after it are ignored;
* ``41``/``42`` need exactly 8 more bytes (``Invalid float encoding length``); ``42`` reads
  them as a double, ``41`` complements them, reads a double and negates it. The sign bit is
  not checked against the tag: ``42 bff0..`` is -1.0, ``41 ffff..ff`` is -0.0, NaN bits give
  NaN;
* ``51``/``52`` are read like ``41``/``42``, then go through ``new Date(x)``: not finite or
  beyond +-8.64e15 ms is an Invalid Date, else the milliseconds truncated toward zero. Python
  holds neither an Invalid Date nor one outside years 1-9999: both are a DecodeError here;
* ``60`` is the rest of the key, raw; ``70`` is the rest decoded as UTF-8 with replacement
  (Node's ``buffer.toString('utf8')``, which Python's ``"replace"`` handler matches on every
  vector: one U+FFFD per maximal ill-formed subpart);
* ``a0`` is an array (below), whose end byte must be the key's last byte.

**Arrays** (``util.parse``, recursive in JS, an explicit stack here). At an element position:

* ``00`` ends the innermost array;
* a nullary tag is its value (one byte); ``41 42 51 52`` take the next 8 bytes (too few:
  ``Invalid float encoding length``);
* ``60``/``70`` run to the next ``00`` (none: ``No closing byte found for sequence``); their
  body is unescaped without checks: ``01 x`` is ``x - 1``, and in a Buffer ``fe x`` is
  ``x + 1`` (mod 256); an escape byte with nothing after it gives ``00`` (JS reads
  ``undefined`` past the slice, and ``Buffer`` stores NaN as 0). Strings then decode as UTF-8
  with replacement;
* ``a0`` **and every unregistered byte** open a nested array;
* after each element (a nested array included) at least one more byte must follow (``No
  closing byte found for nested sequence``);
* an array opened by the key's last byte has no byte to read: JS reads ``undefined`` there,
  takes it for an unregistered tag and recurses until its stack overflows (``RangeError``);
  here it is a DecodeError at the end of the key. Nesting deeper than
  :data:`~.format.MAX_DEPTH` is refused too (JS overflows its stack somewhat deeper).

Every byte is looked at a bounded number of times and nothing recurses, so decoding is linear
in the key. Every refusal is a :class:`~lexcodecs.errors.DecodeError` naming the codec, the
offset, the bytes found there and what was expected; the JS error it stands for is quoted in
the reason.
"""

from __future__ import annotations

import datetime as _dt
import math
import struct
from typing import Any, Final

from ...errors import DecodeError
from ...types import UNDEFINED
from .format import (
    ARRAY,
    BODY_SIZE,
    BUFFER,
    DATE_NEG,
    DATE_POS,
    END,
    ESCAPE_HIGH,
    ESCAPE_LOW,
    FALSE,
    MAX_DEPTH,
    NAME,
    NEG_INF,
    NULL,
    NUMBER_NEG,
    NUMBER_POS,
    POS_INF,
    STRING,
    TAGS,
    TRUE,
)
from .format import UNDEFINED as UNDEFINED_TAG

__all__ = ["decode_value"]

_D: Final = struct.Struct(">d")
_MASK: Final = 0xFFFF_FFFF_FFFF_FFFF
_EPOCH: Final = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_MS: Final = _dt.timedelta(milliseconds=1)
#: JS's TimeClip: a Date holds at most this many ms either side of the epoch
_JS_DATE_LIMIT: Final = 8.64e15
#: the milliseconds of Python's first and last whole-millisecond datetimes
_MIN_MS: Final = (_dt.datetime(1, 1, 1, tzinfo=_dt.UTC) - _EPOCH) // _MS
_MAX_MS: Final = (_dt.datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=_dt.UTC)
                  - _EPOCH) // _MS

_NULLARY: Final[dict[int, Any]] = {NULL: None, FALSE: False, TRUE: True, NEG_INF: -math.inf,
                                   POS_INF: math.inf, UNDEFINED_TAG: UNDEFINED}
_NUMBERS: Final = frozenset((NUMBER_NEG, NUMBER_POS))
_DATES: Final = frozenset((DATE_NEG, DATE_POS))
#: the tags whose body is the rest of the key at top level, escaped up to a 00 in an array
_FLAT: Final = frozenset((STRING, BUFFER))


def _error(reason: str, data: bytes, at: int, expected: str) -> DecodeError:
    return DecodeError(reason, codec=NAME, offset=at, found=data[at:at + 16], expected=expected)


# -- scalars --------------------------------------------------------------------------------


def _double(body: bytes, negative: bool) -> float:
    """``util.decodeFloat``: the double of *body*, complemented and negated for a negative
    tag; no check of the sign bit, NaN or infinity."""
    bits = int.from_bytes(body, "big")
    if negative:
        bits ^= _MASK
    x = float(_D.unpack(bits.to_bytes(8, "big"))[0])
    return -x if negative else x


def _date(ms: float, data: bytes, at: int) -> _dt.datetime:
    """``new Date(ms)`` as a Python datetime: TimeClip, then truncation toward zero."""
    if not math.isfinite(ms) or abs(ms) > _JS_DATE_LIMIT:
        raise _error(f"the Date's {ms!r} ms make an Invalid Date in JS, which Python cannot "
                     "hold", data, at, "a Date of at most 8.64e15 ms either side of 1970")
    whole = int(ms)  # int() truncates toward zero, as ToIntegerOrInfinity does
    if not _MIN_MS <= whole <= _MAX_MS:
        raise _error(f"the Date of {whole} ms lies outside Python's years 1-9999", data, at,
                     "a Date in the years 1-9999")
    return _EPOCH + _dt.timedelta(milliseconds=whole)


def _fixed(data: bytes, at: int, tag: int, body: bytes) -> Any:
    """The value of a number or Date tag at *at* with its 8 body bytes."""
    if tag in _NUMBERS:
        return _double(body, tag == NUMBER_NEG)
    return _date(_double(body, tag == DATE_NEG), data, at)


def _short_float(data: bytes, at: int, tag: int) -> DecodeError:
    what = "number" if tag in _NUMBERS else "Date"
    return _error(f"a {what} needs exactly 8 bytes after its tag (Invalid float encoding "
                  "length)", data, at, f"the tag and 8 bytes of a {what}")


def _text(body: bytes) -> str:
    """Node's ``buffer.toString('utf8')``: each maximal ill-formed subpart is one U+FFFD."""
    return body.decode("utf-8", "replace")


def _unescape(body: bytes, buffer: bool) -> bytes:
    """``util.unescapeFlat`` (a Buffer) / ``unescapeFlatLow`` (a string), unchecked."""
    if ESCAPE_LOW not in body and not (buffer and ESCAPE_HIGH in body):
        return body
    out = bytearray()
    i, n = 0, len(body)
    while i < n:
        b = body[i]
        if b == ESCAPE_LOW or (buffer and b == ESCAPE_HIGH):
            # the next byte, shifted; none (the escape ends the body) reads as NaN in JS,
            # which a Buffer stores as 0; a shift past ff wraps, as Buffer stores mod 256
            nxt = body[i + 1] if i + 1 < n else None
            out.append(0 if nxt is None else (nxt - 1 if b == ESCAPE_LOW else nxt + 1) & 0xFF)
            i += 2
        else:
            out.append(b)
            i += 1
    return bytes(out)


def _flat(tag: int, body: bytes) -> Any:
    return _text(body) if tag == STRING else body


# -- the key --------------------------------------------------------------------------------


def _unknown_tag(data: bytes) -> DecodeError:
    what = "the empty key has no type tag" if not data else \
        f"byte {data[0]:02x} is not a bytewise type tag"
    return _error(f"{what} (Invalid encoding)", data, 0,
                  "one of " + " ".join(f"{t:02x}" for t in TAGS))


def decode_value(data: bytes) -> Any:
    """The one JS value bytewise's ``decode`` reads from *data* (an array as a tuple), or a
    DecodeError where it throws (or could return nothing Python holds)."""
    tag = data[0] if data else -1
    if tag in _NULLARY:
        return _NULLARY[tag]  # the bytes after a nullary tag are never looked at
    if tag in _NUMBERS or tag in _DATES:
        if len(data) != 1 + BODY_SIZE:
            raise _short_float(data, 0, tag)
        return _fixed(data, 0, tag, data[1:])
    if tag in _FLAT:
        return _flat(tag, data[1:])
    if tag != ARRAY:
        raise _unknown_tag(data)
    value, end = _array(data)
    if end != len(data):
        raise _error("bytes after the end of the key's array (Invalid encoding)", data, end,
                     "the end of the key")
    return value


def _element(data: bytes, at: int, tag: int) -> tuple[Any, int]:
    """The element whose registered, non-array tag is at *at*: (value, its end)."""
    if tag in _NULLARY:
        return _NULLARY[tag], at + 1
    if tag in _FLAT:
        stop = data.find(END, at + 1)
        if stop < 0:
            raise _error("no 00 ends the string or Buffer element (No closing byte found for "
                         "sequence)", data, at, "a string or Buffer element ended by 00")
        return _flat(tag, _unescape(data[at + 1:stop], tag == BUFFER)), stop + 1
    end = at + 1 + BODY_SIZE
    if end > len(data):
        raise _short_float(data, at, tag)
    return _fixed(data, at, tag, data[at + 1:end]), end


def _array(data: bytes) -> tuple[tuple[Any, ...], int]:
    """The array whose ``a0`` starts *data*: (value, the offset past its end byte)."""
    n = len(data)
    stack: list[list[Any]] = [[]]  # the items of each open array, the innermost last
    at = 1
    while True:
        if at >= n:
            # only where an array opened on the key's last byte: JS recurses forever here
            raise _error("the key ends where an array's first element belongs (bytewise "
                         "overflows its stack: Maximum call stack size exceeded)", data, n,
                         "an element or the 00 that ends the array")
        tag = data[at]
        if tag == END:
            items = stack.pop()
            at += 1
            if not stack:
                return tuple(items), at
            value: Any = tuple(items)
        elif tag in _NULLARY or tag in _FLAT or tag in _NUMBERS or tag in _DATES:
            value, at = _element(data, at, tag)
        else:  # a0, or any unregistered byte: JS parses both as an array
            if len(stack) >= MAX_DEPTH:
                raise _error(f"arrays nest deeper than {MAX_DEPTH} levels", data, at,
                             f"at most {MAX_DEPTH} levels of nesting")
            stack.append([])
            at += 1
            continue
        stack[-1].append(value)
        if at >= n:
            raise _error("the key ends after an array element (No closing byte found for "
                         "nested sequence)", data, at, "another element or the 00 that ends "
                         "the array")
