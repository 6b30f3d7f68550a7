"""The reference decoder of ``fdb-tuple``: readable Python, the executable spec of reading.

Theory of operation: the type code selects a reader from the 256-entry table
:data:`READERS`; each returns ``(value, next_offset)`` and raises
:class:`~lexcodecs.errors.DecodeError` with the offset of the element's type code. Reading is
strict (missing terminators, truncation, reserved codes and bad UTF-8 are errors) but accepts
every form an official binding writes, such as non-minimal integers and the Java/Go form of
±(2**64-1). Nested tuples are read with an explicit stack, not recursion, and no deeper
than the codec's ``max_depth`` (:data:`~.format.MAX_DEPTH` by default): the ``05`` that would
open a tuple one level deeper is refused with a ``DecodeError`` at its own offset, before
anything past it is read, so a hostile run of ``05`` costs time and memory bounded by the
limit, not by the key, and every value returned is safe to hash, compare, print and pickle.

``inspect`` is this same reading with an annotation sink (``notes``, an
:class:`~lexcodecs.codecs.fdb_tuple.explain.Annotator`): the element loops tell it every
element they read and the nested reader every ``05``, ``00 ff`` and ``00`` it meets, so no
second parser has to agree with this one.

The compiled module (``_compiled.pyx``) reads the same keys to the same values and hands
every key it does not take (a malformed one above all) to these functions for the error.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from ..._bytes import unorder_bits
from ...codec import as_key_bytes, buffer_value
from ...errors import DecodeError, LexCodecError, UnsupportedTypeError
from ...types import Float32, Versionstamp
from .format import (
    BYTES,
    DOUBLE,
    FALSE,
    FLOAT,
    INT_ZERO,
    MAX_DEPTH,
    NAME,
    NEG_BIG,
    NESTED,
    NULL,
    POS_BIG,
    RESERVED,
    STRING,
    TRUE,
    UUID,
    VERSIONSTAMP,
)

if TYPE_CHECKING:
    from .explain import Annotator

__all__ = ["READERS", "as_bytes", "check_prefix", "decode_elements", "make_uuid", "read_nested",
           "too_deep"]

Reader = Callable[[bytes, int], tuple[Any, int]]

_D = struct.Struct(">d")
_Q = struct.Struct(">Q")
_I = struct.Struct(">I")


def make_uuid(raw: bytes) -> uuid.UUID:
    """A UUID from 16 bytes without ``UUID.__init__``'s argument parsing (a third of the
    cost of reading a UUID element); the same object ``uuid.UUID(bytes=raw)`` gives."""
    u = object.__new__(uuid.UUID)
    object.__setattr__(u, "int", int.from_bytes(raw, "big"))
    object.__setattr__(u, "is_safe", uuid.SafeUUID.unknown)
    return u

# -- readers --------------------------------------------------------------------------------


def _truncated(data: bytes, pos: int, what: str, need: int) -> DecodeError:
    return DecodeError(f"truncated {what}", offset=pos, found=data[pos:],
                       expected=f"{need} byte(s) after the type code")


def _read_escaped(data: bytes, pos: int) -> tuple[bytes, int]:
    """The un-escaped body of a 01/02 element at *pos*, and the offset after its 00."""
    start = pos + 1
    end = data.find(b"\x00", start)
    n = len(data)
    while True:
        if end < 0:
            raise DecodeError("missing terminator", offset=pos, found=data[pos:pos + 1],
                              expected="a 00 byte that ends the value")
        if end + 1 < n and data[end + 1] == 0xFF:
            end = data.find(b"\x00", end + 2)
            continue
        body = data[start:end]
        if b"\x00\xff" in body:
            body = body.replace(b"\x00\xff", b"\x00")
        return body, end + 1


def _read_bytes(data: bytes, pos: int) -> tuple[Any, int]:
    return _read_escaped(data, pos)


def _read_str(data: bytes, pos: int) -> tuple[Any, int]:
    body, end = _read_escaped(data, pos)
    try:
        return body.decode("utf-8"), end
    except UnicodeDecodeError as exc:
        raise DecodeError(f"invalid UTF-8 ({exc.reason})", offset=pos,
                          found=body[exc.start:exc.end], expected="UTF-8") from None


def _read_null(data: bytes, pos: int) -> tuple[Any, int]:
    return None, pos + 1


def _fixed_reader(code: int) -> Reader:
    """The reader of a 1..8-byte integer code: ``14 ± n``."""
    n = abs(code - INT_ZERO)
    negative = code < INT_ZERO
    bias = (1 << (8 * n)) - 1

    def read(data: bytes, pos: int) -> tuple[Any, int]:
        end = pos + 1 + n
        if end > len(data):
            raise _truncated(data, pos, "integer", n)
        v = int.from_bytes(data[pos + 1:end], "big")
        return (v - bias if negative else v), end

    return read


def _read_zero(data: bytes, pos: int) -> tuple[Any, int]:
    return 0, pos + 1


def _read_big(data: bytes, pos: int) -> tuple[Any, int]:
    if pos + 1 >= len(data):
        raise _truncated(data, pos, "integer length", 1)
    negative = data[pos] == NEG_BIG
    n = data[pos + 1] ^ 0xFF if negative else data[pos + 1]
    end = pos + 2 + n
    if end > len(data):
        raise _truncated(data, pos, "integer", n + 1)
    v = int.from_bytes(data[pos + 2:end], "big")
    return (v - ((1 << (8 * n)) - 1) if negative else v), end


def _read_float(data: bytes, pos: int) -> tuple[Any, int]:
    end = pos + 5
    if end > len(data):
        raise _truncated(data, pos, "binary32", 4)
    return Float32.from_bits(unorder_bits(_I.unpack_from(data, pos + 1)[0], 4)), end


def _read_double(data: bytes, pos: int) -> tuple[Any, int]:
    end = pos + 9
    if end > len(data):
        raise _truncated(data, pos, "binary64", 8)
    return _D.unpack(_Q.pack(unorder_bits(_Q.unpack_from(data, pos + 1)[0], 8)))[0], end


def _read_false(data: bytes, pos: int) -> tuple[Any, int]:
    return False, pos + 1


def _read_true(data: bytes, pos: int) -> tuple[Any, int]:
    return True, pos + 1


def _read_uuid(data: bytes, pos: int) -> tuple[Any, int]:
    end = pos + 17
    if end > len(data):
        raise _truncated(data, pos, "UUID", 16)
    return make_uuid(data[pos + 1:end]), end


def _read_versionstamp(data: bytes, pos: int) -> tuple[Any, int]:
    end = pos + 13
    if end > len(data):
        raise _truncated(data, pos, "versionstamp", 12)
    return Versionstamp.from_bytes(data[pos + 1:end]), end


def too_deep(data: bytes, pos: int, max_depth: int) -> DecodeError:
    """The error for the ``05`` at *pos* that would open a tuple deeper than *max_depth*."""
    return DecodeError(f"tuples nested deeper than max_depth={max_depth}", offset=pos,
                       found=data[pos:pos + 1],
                       expected=f"at most {max_depth} levels of nested tuples")


def read_nested(data: bytes, pos: int, notes: Annotator | None = None,
                max_depth: int = MAX_DEPTH) -> tuple[Any, int]:
    """The nested tuple at *pos* (a top-level element: its elements are at depth 1), read
    with an explicit stack (no recursion); a ``05`` that would open a tuple deeper than
    *max_depth* is refused at its offset."""
    if max_depth < 1:
        raise too_deep(data, pos, max_depth)
    stack: list[tuple[list[Any], int]] = []
    out: list[Any] = []
    start = pos
    q = pos + 1
    n = len(data)
    table = READERS
    if notes is not None:
        notes.nested_open(pos)
    while True:
        if q >= n:
            raise DecodeError("nested tuple has no terminator", offset=start,
                              found=data[start:start + 1], expected="a 00 byte that ends it")
        code = data[q]
        if code == NULL:
            if q + 1 < n and data[q + 1] == 0xFF:
                if notes is not None:
                    notes.nested_null(q)
                out.append(None)
                q += 2
                continue
            if notes is not None:
                notes.nested_close(q)
            value: Any = tuple(out)
            q += 1
            if not stack:
                return value, q
            out, start = stack.pop()
            out.append(value)
        elif code == NESTED:
            if len(stack) + 1 >= max_depth:  # this 05 opens depth len(stack) + 2
                raise too_deep(data, q, max_depth)
            if notes is not None:
                notes.nested_open(q)
            stack.append((out, start))
            out, start = [], q
            q += 1
        else:
            value, end = table[code](data, q)
            if notes is not None:
                notes.element(data, q, end, value)
            out.append(value)
            q = end


def _read_nested(data: bytes, pos: int) -> tuple[Any, int]:
    return read_nested(data, pos)


def _read_unknown(data: bytes, pos: int) -> tuple[Any, int]:
    code = data[pos]
    raise DecodeError(RESERVED.get(code, "unknown type code"), offset=pos,
                      found=data[pos:pos + 1], expected="a tuple-layer type code")


#: type code -> reader; every code has an entry, so a lookup never fails
READERS: Final[list[Reader]] = [_read_unknown] * 256
for _code, _reader in {
    NULL: _read_null, BYTES: _read_bytes, STRING: _read_str, NESTED: _read_nested,
    **{c: _fixed_reader(c) for c in (*range(0x0C, 0x14), *range(0x15, 0x1D))},
    NEG_BIG: _read_big, POS_BIG: _read_big, INT_ZERO: _read_zero, FLOAT: _read_float,
    DOUBLE: _read_double, FALSE: _read_false, TRUE: _read_true, UUID: _read_uuid,
    VERSIONSTAMP: _read_versionstamp,
}.items():
    READERS[_code] = _reader
del _code, _reader

# -- keys -----------------------------------------------------------------------------------


def as_bytes(data: Any, what: str = "key") -> bytes:
    """A key (or a prefix) given as bytes, bytearray or memoryview, as bytes: a subclass by
    its own bytes; a released memoryview refused (a key with DecodeError)."""
    if type(data) is bytes:
        return data
    if issubclass(type(data), (bytes, bytearray, memoryview)):
        if what == "key":
            return as_key_bytes(NAME, data)
        try:
            return buffer_value(data)
        except LexCodecError as exc:
            raise exc.add_context(codec=NAME) from None
    raise UnsupportedTypeError(f"a {what} must be bytes", codec=NAME, value=data,
                               expected="bytes, bytearray or memoryview")


def check_prefix(data: bytes, prefix: Any) -> int:
    """Where the elements start: after *prefix*, which *data* must start with."""
    prefix = as_bytes(prefix, "prefix")
    if not data.startswith(prefix):
        raise DecodeError("key does not start with the prefix", codec=NAME, offset=0,
                          found=data[:len(prefix)], expected=prefix.hex(" ") or "(empty)")
    return len(prefix)


def decode_elements(data: bytes, start: int, notes: Annotator | None = None,
                    max_depth: int = MAX_DEPTH) -> tuple[list[Any], list[int]]:
    """Every top-level element from *start*, with the offset of each; a DecodeError says
    which element failed in its ``element`` attribute. Nested tuples may nest *max_depth*
    deep (the codec's option)."""
    values = []
    offsets = []
    table = READERS
    pos = start
    n = len(data)
    try:
        while pos < n:
            offsets.append(pos)
            code = data[pos]
            if code == NESTED:
                value, end = read_nested(data, pos, notes, max_depth)
            else:
                value, end = table[code](data, pos)
                if notes is not None:
                    notes.element(data, pos, end, value)
            values.append(value)
            pos = end
    except DecodeError as exc:
        exc.element = len(values)  # type: ignore[attr-defined]  # which element failed
        raise
    return values, offsets
