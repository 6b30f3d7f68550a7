"""The reference decoder of ``bytewise``: a strict reader, in readable Python.

Theory of operation: the first byte of a value is its tag (:data:`~.format.TAGS`); the reader
dispatches on it through :data:`READERS`. Unlike ``bytewise.decode`` (spec §7), which accepts
bytes its encoder never writes, this reader takes exactly the keys the encoder writes and
refuses everything else with a :class:`~lexcodecs.errors.DecodeError` at an offset:

* an empty key, an unknown tag (at top level or in an array), bytes after a complete value;
* a number or Date body that is short, NaN, infinite (those have tags of their own), has a
  sign bit that contradicts its tag, is ``-0`` (written as ``+0``), or a Date that is not a
  whole number of milliseconds or lies outside Python's years 1-9999;
* invalid UTF-8 in a string; in an array, a string or Buffer without its ``00``, an escape
  that is not one the encoder writes (``01`` not followed by ``01``/``02``, a Buffer's ``fe``
  not followed by ``fd``/``fe``, an unescaped ``ff``/``fe`` in a Buffer);
* an array that runs past the end of the key, or nests deeper than
  :data:`~.format.MAX_DEPTH` (bytewise overflows its stack there).

Arrays are read with an explicit stack, so nesting never recurses; every byte is looked at a
bounded number of times, so decoding is linear in the key. The reader returns the one value
the key holds (a JS array as a tuple); ``inspect`` runs it with an annotation sink.
"""

from __future__ import annotations

import datetime as _dt
import math
import struct
from collections.abc import Callable
from typing import Any, Final

import attrs

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

__all__ = ["READERS", "Element", "decode_value"]

_D: Final = struct.Struct(">d")
_MASK: Final = 0xFFFF_FFFF_FFFF_FFFF
_EPOCH: Final = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
#: the milliseconds of Python's first and last whole-millisecond datetimes
_MIN_MS: Final = (_dt.datetime(1, 1, 1, tzinfo=_dt.UTC) - _EPOCH) // _dt.timedelta(milliseconds=1)
_MAX_MS: Final = (_dt.datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=_dt.UTC)
                  - _EPOCH) // _dt.timedelta(milliseconds=1)


@attrs.define
class Element:
    """One value read (for ``inspect``): its kind, first byte, end, value and depth (0 for
    the key's value, 1 for an element of it, ...). An array gives one Element at its ``a0``
    (end: past its ``00``)."""

    kind: str
    start: int
    end: int
    value: Any
    depth: int


def _error(reason: str, data: bytes, at: int, expected: str) -> DecodeError:
    return DecodeError(reason, codec=NAME, offset=at, found=data[at:at + 16], expected=expected)


def _double(data: bytes, at: int, tag: int, positive_tag: int, what: str) -> float:
    """The magnitude-signed double of the 8 bytes after the tag at *at*, checked canonical."""
    body = data[at + 1:at + 1 + BODY_SIZE]
    if len(body) < BODY_SIZE:
        raise _error(f"a {what} needs 8 bytes after its tag (Invalid float encoding length)",
                     data, at, f"the tag and 8 bytes of a {what}")
    bits = int.from_bytes(body, "big")
    if tag != positive_tag:
        bits ^= _MASK
    x = float(_D.unpack(bits.to_bytes(8, "big"))[0])
    if bits >> 63 or math.isnan(x) or math.isinf(x) or (tag != positive_tag and x == 0.0):
        raise _error(f"not the bytes of a {what} bytewise writes (the sign bit contradicts "
                     "the tag, -0, NaN or an infinity written as a number)", data, at,
                     f"the tag and 8 bytes of a finite {what}")
    return -x if tag != positive_tag else x


def _number(data: bytes, at: int, tag: int) -> tuple[Any, int]:
    return _double(data, at, tag, NUMBER_POS, "number"), at + 1 + BODY_SIZE


def _date(data: bytes, at: int, tag: int) -> tuple[Any, int]:
    ms = _double(data, at, tag, DATE_POS, "Date")
    if not ms.is_integer() or not _MIN_MS <= ms <= _MAX_MS:
        raise _error(f"the Date's {ms!r} ms is not a whole number of milliseconds in Python's "
                     "years 1-9999", data, at, "a Date of whole milliseconds, years 1-9999")
    return _EPOCH + _dt.timedelta(milliseconds=int(ms)), at + 1 + BODY_SIZE


_NULLARY: Final[dict[int, Any]] = {NULL: None, FALSE: False, TRUE: True, NEG_INF: -math.inf,
                                   POS_INF: math.inf, UNDEFINED_TAG: UNDEFINED}


def _nullary(data: bytes, at: int, tag: int) -> tuple[Any, int]:
    return _NULLARY[tag], at + 1


def _unescape(data: bytes, start: int, stop: int, buffer: bool) -> bytes:
    """The body ``data[start:stop]`` of an element with its escapes undone; an escape the
    encoder does not write is refused."""
    body = data[start:stop]
    if ESCAPE_LOW not in body and not (buffer and (ESCAPE_HIGH in body or 0xFF in body)):
        return body
    out = bytearray()
    i, n = 0, len(body)
    while i < n:
        b = body[i]
        if b == ESCAPE_LOW or (buffer and b == ESCAPE_HIGH):
            nxt = body[i + 1] if i + 1 < n else -1
            if b == ESCAPE_LOW and nxt in (1, 2):
                out.append(nxt - 1)
            elif b == ESCAPE_HIGH and nxt in (0xFD, 0xFE):
                out.append(nxt + 1)
            else:
                raise _error(f"byte {b:02x} does not start an escape bytewise writes", data,
                             start + i, "01 01, 01 02 (and in a Buffer fe fd, fe fe)")
            i += 2
        elif buffer and b == 0xFF:
            raise _error("an ff in a Buffer element is written fe fe", data, start + i,
                         "fe fe for ff")
        else:
            out.append(b)
            i += 1
    return bytes(out)


def _text(data: bytes, body: bytes, at: int) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _error("a string's bytes are not valid UTF-8", data, at + 1 + exc.start,
                     "UTF-8 text") from None


def _body(data: bytes, at: int, tag: int, in_array: bool) -> tuple[bytes, int]:
    """A string or Buffer body: the rest of the key at top level, else up to its ``00``."""
    if not in_array:
        return data[at + 1:], len(data)
    stop = data.find(END, at + 1)
    if stop < 0:
        raise _error("no 00 ends the element (No closing byte found for sequence)", data, at,
                     "a string or Buffer element ended by 00")
    return _unescape(data, at + 1, stop, tag == BUFFER), stop + 1


def _string(data: bytes, at: int, tag: int, in_array: bool = False) -> tuple[Any, int]:
    body, end = _body(data, at, tag, in_array)
    return _text(data, body, at), end


def _buffer(data: bytes, at: int, tag: int, in_array: bool = False) -> tuple[Any, int]:
    return _body(data, at, tag, in_array)


Reader = Callable[..., tuple[Any, int]]

#: tag -> reader(data, at, tag[, in_array]) -> (value, end); arrays are :func:`decode_value`'s
READERS: Final[dict[int, Reader]] = {
    NULL: _nullary, FALSE: _nullary, TRUE: _nullary, NEG_INF: _nullary, POS_INF: _nullary,
    UNDEFINED_TAG: _nullary,
    NUMBER_NEG: _number, NUMBER_POS: _number,
    DATE_NEG: _date, DATE_POS: _date,
    STRING: _string, BUFFER: _buffer,
}


def _unknown(data: bytes, at: int) -> DecodeError:
    if at >= len(data):
        return _error("the key ends inside an array (bytewise overflows its stack here)", data,
                      at, "an element or the 00 that ends the array")
    return _error(f"byte {data[at]:02x} is not a bytewise type tag", data, at,
                  "one of " + " ".join(f"{t:02x}" for t in TAGS))


def decode_value(data: bytes, sink: list[Element] | None = None) -> Any:
    """The one JS value of the key *data* (an array as a tuple), or a DecodeError."""
    if not data:
        raise _error("the empty key holds no value", data, 0, "a type tag")
    tag = data[0]
    if tag != ARRAY:
        reader = READERS.get(tag)
        if reader is None:
            raise _unknown(data, 0)
        value, end = reader(data, 0, tag)
        if sink is not None:
            sink.append(Element(TAGS[tag], 0, end, value, 0))
        if end != len(data):
            raise _error("bytes after the key's value", data, end, "the end of the key")
        return value
    # an array: a stack of (elements, start, sink index); the top is the array being read
    stack: list[tuple[list[Any], int, int]] = [([], 0, len(sink) if sink is not None else 0)]
    if sink is not None:
        sink.append(Element("array", 0, 0, None, 0))
    at, n = 1, len(data)
    while True:
        tag = data[at] if at < n else -1
        if tag == END:
            items, _start, mark = stack.pop()
            value = tuple(items)
            at += 1
            if sink is not None:
                sink[mark].end, sink[mark].value = at, value
            if not stack:
                if at != n:
                    raise _error("bytes after the key's value", data, at, "the end of the key")
                return value
            stack[-1][0].append(value)
        elif tag == ARRAY:
            if len(stack) >= MAX_DEPTH:
                raise _error(f"arrays nest deeper than {MAX_DEPTH} levels", data, at,
                             f"at most {MAX_DEPTH} levels of nesting")
            if sink is not None:
                sink.append(Element("array", at, at, None, len(stack)))
            stack.append(([], at, len(sink) - 1 if sink is not None else 0))
            at += 1
        else:
            reader = READERS.get(tag)
            if reader is None:
                raise _unknown(data, at)
            if tag in (STRING, BUFFER):
                value, end = reader(data, at, tag, True)
            else:
                value, end = reader(data, at, tag)
            if sink is not None:
                sink.append(Element(TAGS[tag], at, end, value, len(stack)))
            stack[-1][0].append(value)
            at = end
