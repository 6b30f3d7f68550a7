"""``fdb-tuple``: the FoundationDB tuple layer, byte-identical with ``fdb.tuple`` (8.0.0).

Theory of operation: a key is ``prefix ‖ enc(v1) ‖ … ‖ enc(vn)``; every element starts with
a type code that also says how long it is, so elements are self-delimiting and the encoding
sorts by type code first, then by value. Encoding dispatches on ``type(value)`` through
:func:`_tables` (exact types, the fast path); subclasses, ``fdb.tuple`` objects and ctypes
floats take :func:`_encode_slow`, which also produces every error message. Decoding dispatches
on the type code through the 256-entry table :data:`_DECODE`; each reader returns
``(value, next_offset)`` and raises :class:`~lexcodecs.errors.DecodeError` with the offset of
the element's type code. Reading is strict (missing terminators, truncation, reserved codes
and bad UTF-8 are errors) but accepts every form an official binding writes, such as
non-minimal integers and the Java/Go form of ±(2**64-1).

Type codes (spec §2)::

    00 null          01 bytes      02 string     05 nested tuple (ends with a bare 00;
    0b..13 negative ints      14 zero      15..1d positive ints          null inside: 00 ff)
    20 binary32      21 binary64   26 false      27 true    30 UUID     33 versionstamp
"""

from __future__ import annotations

import struct
import sys
import uuid
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, ClassVar, Final, cast

from ..._bytes import order_bits, unorder_bits
from ..._compile import compile_function, value_names
from ..._native import make_uuid, speedups
from ...codec import (
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
from ...types import INT_TYPES, Float32, Versionstamp

__all__ = ["FdbTupleCodec", "decode", "encode", "encode_with_versionstamp", "prefix_range"]

NAME: Final = "fdb-tuple"

NULL, BYTES, STRING, NESTED = 0x00, 0x01, 0x02, 0x05
NEG_BIG, INT_ZERO, POS_BIG = 0x0B, 0x14, 0x1D
FLOAT, DOUBLE, FALSE, TRUE, UUID, VERSIONSTAMP = 0x20, 0x21, 0x26, 0x27, 0x30, 0x33

#: largest magnitude written in the fixed 1..8-byte forms, per ``max_u64_form``
_FIXED_LIMIT: Final = {"python": 2**64 - 2, "java": 2**64 - 1}
#: ±(2**2040 - 1): a 255-byte magnitude, the most a length byte can say
INT_LIMIT: Final = 2**2040 - 1

_Q = struct.Struct(">Q")
_D = struct.Struct(">d")
_BQ = struct.Struct(">BQ")
_BI = struct.Struct(">BI")
_I = struct.Struct(">I")

_POS_CODE: Final = [bytes((INT_ZERO + n,)) for n in range(9)]
_NEG_CODE: Final = [bytes((INT_ZERO - n,)) for n in range(9)]


# -- encoding -------------------------------------------------------------------------------


#: bytes needed for a magnitude of each bit length (index 0..64)
_NBYTES: Final = [(b + 7) >> 3 for b in range(65)]


def _int(v: int) -> bytes:
    if 0 < v < 0xFFFFFFFFFFFFFFFF:  # the hot case first: 1..8 bytes, positive
        n = _NBYTES[v.bit_length()]
        return _POS_CODE[n] + v.to_bytes(n, "big")
    return _int_rare(v, _FIXED_LIMIT["python"])


def _int_rare(v: int, limit: int) -> bytes:
    if v > 0:
        if v <= limit:
            n = (v.bit_length() + 7) >> 3
            return _POS_CODE[n] + v.to_bytes(n, "big")
        if v > INT_LIMIT:
            raise EncodeError("integer too large for the tuple layer", value=v,
                              expected=f"magnitude below 2**2040 ({NAME} length byte)")
        n = (v.bit_length() + 7) >> 3
        return bytes((POS_BIG, n)) + v.to_bytes(n, "big")
    if v == 0:
        return b"\x14"
    m = -v
    if m <= limit:
        n = (m.bit_length() + 7) >> 3
        return _NEG_CODE[n] + ((1 << (8 * n)) - 1 - m).to_bytes(n, "big")
    if m > INT_LIMIT:
        raise EncodeError("integer too small for the tuple layer", value=v,
                          expected=f"magnitude below 2**2040 ({NAME} length byte)")
    n = (m.bit_length() + 7) >> 3
    return bytes((NEG_BIG, n ^ 0xFF)) + ((1 << (8 * n)) - 1 - m).to_bytes(n, "big")


def _int_java(v: int) -> bytes:
    return _int_rare(v, _FIXED_LIMIT["java"])


def _double(v: float) -> bytes:
    return _BQ.pack(DOUBLE, order_bits(_Q.unpack(_D.pack(v))[0], 8))


def _float32_bits(bits: int) -> bytes:
    return _BI.pack(FLOAT, order_bits(bits, 4))


def _float32(v: Float32) -> bytes:
    return _float32_bits(v.bits)


def _str(v: str) -> bytes:
    try:
        data = v.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EncodeError("string is not valid UTF-8 (lone surrogate)",
                          value=v[exc.start:exc.end],
                          expected="a str without lone surrogates") from None
    return b"\x02" + data.replace(b"\x00", b"\x00\xff") + b"\x00"


def _bytes(v: bytes) -> bytes:
    return b"\x01" + v.replace(b"\x00", b"\x00\xff") + b"\x00"


def _versionstamp(v: Versionstamp) -> bytes:
    if v.tr_version is None:
        raise EncodeError("incomplete versionstamp in a plain encode", value=v,
                          expected="a complete versionstamp, or encode_with_versionstamp()")
    return b"\x33" + v.to_bytes()


Encoders = dict[type, Callable[[Any], bytes]]


def _tables(int_encoder: Callable[[int], bytes]) -> tuple[Encoders, Callable[[Any], bytes]]:
    """The exact-type dispatch table for one way of writing ints, and its nested encoder."""

    def nested(v: Sequence[Any]) -> bytes:
        try:
            return b"\x05" + b"".join([inner[type(x)](x) for x in v]) + b"\x00"
        except RecursionError:
            raise  # retrying each level would take time quadratic in the depth
        except Exception:
            return b"\x05" + b"".join([_encode_slow(x, True, int_encoder) for x in v]) + \
                b"\x00"

    top: Encoders = {
        type(None): lambda v: b"\x00",
        bytes: _bytes,
        str: _str,
        bool: lambda v: b"\x27" if v else b"\x26",
        int: int_encoder,
        Float32: _float32,
        float: _double,
        uuid.UUID: lambda v: b"\x30" + v.bytes,
        Versionstamp: _versionstamp,
        tuple: nested,
        list: nested,
    }
    # inside a nested tuple, null is 00 ff; everything else is written as at top level
    inner: Encoders = {**top, type(None): lambda v: b"\x00\xff"}
    return top, nested


def _foreign(value: Any) -> tuple[str, Any] | None:
    """fdb.tuple's own objects and ctypes floats, recognised without importing anything."""
    fdb_tuple = sys.modules.get("fdb.tuple")
    if fdb_tuple is not None:
        if isinstance(value, fdb_tuple.SingleFloat):
            return "float32", value.value
        if isinstance(value, fdb_tuple.Versionstamp):
            return "versionstamp", Versionstamp(value.tr_version, value.user_version)
    ctypes = sys.modules.get("ctypes")
    if ctypes is not None:
        if isinstance(value, ctypes.c_float):
            return "float32", value.value
        if isinstance(value, ctypes.c_double):
            return "float64", value.value
    return None


def _encode_slow(value: Any, nested: bool, int_encoder: Callable[[int], bytes]) -> bytes:
    """Encode one element by isinstance (spec §8 order); every refusal is explained here."""
    if value is None:
        return b"\x00\xff" if nested else b"\x00"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _bytes(bytes(value))
    # subclasses are written from their own data, as fdb.tuple does: str() of a str enum
    # would give its name, not its value
    if isinstance(value, str):
        return _str(value)
    if isinstance(value, bool):
        return b"\x27" if value else b"\x26"
    if isinstance(value, int):
        return int_encoder(value)
    if isinstance(value, Float32):
        return _float32(value)
    foreign = _foreign(value)
    if foreign is not None:
        kind, inner = foreign
        if kind == "float32":
            return _float32(Float32(inner))
        if kind == "float64":
            return _double(float(inner))
        return _versionstamp(inner)
    if isinstance(value, float):
        return _double(value)
    if isinstance(value, uuid.UUID):
        return b"\x30" + value.bytes
    if isinstance(value, Versionstamp):
        return _versionstamp(value)
    if isinstance(value, (tuple, list)):
        return b"\x05" + b"".join([_encode_slow(x, True, int_encoder) for x in value]) + b"\x00"
    raise UnsupportedTypeError(f"{type(value).__name__} has no tuple-layer type", value=value,
                               expected="None, bytes, str, bool, int, float, Float32, UUID, "
                               "Versionstamp, tuple or list")


def _encode_careful(values: Sequence[Any], int_encoder: Callable[[int], bytes]) -> bytes:
    """Encode by isinstance, element by element, with the element's index in any error."""
    parts = []
    for i, v in enumerate(values):
        try:
            parts.append(_encode_slow(v, False, int_encoder))
        except LexCodecError as exc:
            raise exc.add_context(codec=NAME, field=i) from None
        except RecursionError:
            raise EncodeError("tuples nested too deeply to encode", codec=NAME, field=i,
                              value=v, expected="less nesting") from None
    return b"".join(parts)


#: max_u64_form -> (top-level table, nested encoder)
_TABLES: Final = {"python": _tables(_int), "java": _tables(_int_java)}


# -- decoding -------------------------------------------------------------------------------

Reader = Callable[[bytes, int], tuple[Any, int]]


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


def _read_nested(data: bytes, pos: int) -> tuple[Any, int]:
    # iterative, with an explicit stack: a key of a thousand 05 bytes must give a DecodeError,
    # not a RecursionError
    stack: list[tuple[list[Any], int]] = []
    out: list[Any] = []
    start = pos
    q = pos + 1
    n = len(data)
    table = _DECODE
    while True:
        if q >= n:
            raise DecodeError("nested tuple has no terminator", offset=start,
                              found=data[start:start + 1], expected="a 00 byte that ends it")
        code = data[q]
        if code == NULL:
            if q + 1 < n and data[q + 1] == 0xFF:
                out.append(None)
                q += 2
                continue
            value: Any = tuple(out)
            q += 1
            if not stack:
                return value, q
            out, start = stack.pop()
            out.append(value)
        elif code == NESTED:
            stack.append((out, start))
            out, start = [], q
            q += 1
        else:
            value, q = table[code](data, q)
            out.append(value)


def _read_unknown(data: bytes, pos: int) -> tuple[Any, int]:
    code = data[pos]
    reason = _RESERVED.get(code, "unknown type code")
    raise DecodeError(reason, offset=pos, found=data[pos:pos + 1],
                      expected="a tuple-layer type code")


_RESERVED: Final = {
    0x03: "deprecated nested tuple code", 0x04: "deprecated nested tuple code",
    0x0A: "reserved type code (negative arbitrary precision)",
    0x1E: "reserved type code (positive arbitrary precision)",
    0x22: "reserved type code (80-bit float)", 0x23: "reserved type code (decimal)",
    0x24: "reserved type code (decimal)", 0x25: "deprecated true code",
    0x31: "reserved type code (64-bit identifier)",
    0x32: "reserved type code (80-bit versionstamp)",
    0x34: "reserved type code (length-prefixed bytes)",
    0x35: "reserved type code (length-prefixed bytes)",
    **{c: "user type code" for c in range(0x40, 0x50)},
    0xF0: "reserved type code (end of tuple)",
    0xFF: "ff is an escape byte, not a type code",
}

#: type code -> reader; every code has an entry, so a lookup never fails
_DECODE: Final[list[Reader]] = [_read_unknown] * 256
_DECODE[NULL] = _read_null
_DECODE[BYTES] = _read_bytes
_DECODE[STRING] = _read_str
_DECODE[NESTED] = _read_nested
for _code in range(0x0C, 0x14):
    _DECODE[_code] = _fixed_reader(_code)
for _code in range(0x15, 0x1D):
    _DECODE[_code] = _fixed_reader(_code)
_DECODE[NEG_BIG] = _read_big
_DECODE[POS_BIG] = _read_big
_DECODE[INT_ZERO] = _read_zero
_DECODE[FLOAT] = _read_float
_DECODE[DOUBLE] = _read_double
_DECODE[FALSE] = _read_false
_DECODE[TRUE] = _read_true
_DECODE[UUID] = _read_uuid
_DECODE[VERSIONSTAMP] = _read_versionstamp
del _code


_UNPACK_Q = _Q.unpack_from
_PACK_Q = _Q.pack
_UNPACK_D = _D.unpack
_FLIP_POSITIVE = 0x8000000000000000
_FLIP_NEGATIVE = 0xFFFFFFFFFFFFFFFF


def _as_bytes(data: Any, what: str = "key") -> bytes:
    if type(data) is bytes:
        return data
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise UnsupportedTypeError(f"a {what} must be bytes", codec=NAME, value=data,
                               expected="bytes, bytearray or memoryview")


def _decode_elements(data: bytes, start: int) -> tuple[list[Any], list[int]]:
    """Every top-level element from *start*, with the offset of each."""
    values = []
    offsets = []
    table = _DECODE
    pos = start
    n = len(data)
    try:
        while pos < n:
            offsets.append(pos)
            value, pos = table[data[pos]](data, pos)
            values.append(value)
    except DecodeError as exc:
        exc.element = len(values)  # type: ignore[attr-defined]  # which element failed
        raise
    return values, offsets


def _check_prefix(data: bytes, prefix: bytes) -> int:
    prefix = _as_bytes(prefix, "prefix")
    if not data.startswith(prefix):
        raise DecodeError("key does not start with the prefix", codec=NAME, offset=0,
                          found=data[:len(prefix)], expected=prefix.hex(" ") or "(empty)")
    return len(prefix)


# -- inspect --------------------------------------------------------------------------------

#: type code -> the kind of value it holds (a field's kind when there is no schema)
_KIND: Final = {NULL: "null", BYTES: "bytes", STRING: "string", NESTED: "tuple",
                **{c: "int" for c in range(NEG_BIG, POS_BIG + 1)}, FLOAT: "float32",
                DOUBLE: "float64", FALSE: "bool", TRUE: "bool", UUID: "uuid",
                VERSIONSTAMP: "versionstamp"}


def _element_parts(data: bytes, pos: int, end: int) -> list[Part]:
    """The parts of the top-level element ``data[pos:end]`` (already read, so well formed).

    A nested tuple's children are walked with an explicit stack, as :func:`_read_nested`
    reads them: a thousand levels of nesting must not overflow the recursion limit.
    """
    if data[pos] != NESTED:
        return _scalar_parts(data, pos, end, "")
    parts = [Part(pos, pos + 1, "type", "nested tuple")]
    path = [0]  # the index of the next child at each open level
    q = pos + 1
    while True:
        label = _label(path)
        code = data[q]
        if code == NULL and q + 1 < end and data[q + 1] == 0xFF:
            parts.append(Part(q, q + 2, "nested null", f"{label} NULL (00 ff in a nested "
                              "tuple)"))
            path[-1] += 1
            q += 2
        elif code == NULL:
            path.pop()
            if not path:
                parts.append(Part(q, q + 1, "terminator", "end of nested tuple"))
                return parts
            parts.append(Part(q, q + 1, "nested terminator",
                              f"{_label(path)} end of nested tuple"))
            path[-1] += 1
            q += 1
        elif code == NESTED:
            parts.append(Part(q, q + 1, "nested type", f"{label} nested tuple"))
            path.append(0)
            q += 1
        else:
            after = _DECODE[code](data, q)[1]
            parts += _scalar_parts(data, q, after, label)
            path[-1] += 1
            q = after


def _label(path: list[int]) -> str:
    """``[1][0]``: where a child sits in its top-level tuple; the middle of a path deeper
    than eight levels is left out, so a deeply nested key gives no quadratic text."""
    if len(path) > 8:
        return ("".join(f"[{i}]" for i in path[:3]) + "…" +
                "".join(f"[{i}]" for i in path[-3:]) + f" (depth {len(path)})")
    return "".join(f"[{i}]" for i in path)


def _holds_incomplete(value: Any) -> bool:
    """Whether a decoded value holds an incomplete versionstamp, at any depth (no recursion:
    decoding reads nesting deeper than the recursion limit)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if type(v) is tuple:
            stack.extend(v)
        elif isinstance(v, Versionstamp) and v.tr_version is None:
            return True
    return False


def _plural(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _scalar_parts(data: bytes, pos: int, end: int, label: str) -> list[Part]:
    """The parts of one element other than a nested tuple; *label* is its index path inside
    a nested tuple (its roles then start with ``nested``), or empty at top level."""
    code = data[pos]
    value = _DECODE[code](data, pos)[0]

    def part(start: int, stop: int, role: str, text: str) -> Part:
        return Part(start, stop, f"nested {role}" if label else role,
                    f"{label} {text}" if label else text)

    if code == NULL:  # top level only: inside a nested tuple a null is 00 ff
        return [part(pos, end, "null", "NULL")]
    if code in (BYTES, STRING):
        parts = [part(pos, pos + 1, "type",
                      "byte string" if code == BYTES else "unicode string (UTF-8)")]
        at = pos + 1
        while at < end - 1:
            j = data.find(b"\x00\xff", at, end - 1)
            stop = end - 1 if j < 0 else j
            if stop > at:
                chunk = data[at:stop]
                parts.append(part(at, stop, "payload", repr(chunk) if code == BYTES
                                  else "UTF-8 " + repr(chunk.decode("utf-8"))))
            if j < 0:
                break
            parts.append(part(j, j + 2, "escape", "a 00 byte of the value, escaped as 00 ff"))
            at = j + 2
        parts.append(part(end - 1, end, "terminator",
                          "end of byte string" if code == BYTES else "end of string"))
        return parts
    if code == INT_ZERO:
        return [part(pos, end, "type", "int zero")]
    if INT_ZERO < code < POS_BIG:
        return [part(pos, pos + 1, "type", f"int, {_plural(end - pos - 1, 'byte')}, positive"),
                part(pos + 1, end, "payload", f"{value}, big-endian")]
    if NEG_BIG < code < INT_ZERO:
        n = end - pos - 1
        return [part(pos, pos + 1, "type", f"negative int, {_plural(n, 'byte')}"),
                part(pos + 1, end, "payload",
                     f"{value} + 2**{8 * n} - 1 (one's complement of {-value}), big-endian")]
    if code in (NEG_BIG, POS_BIG):
        n = end - pos - 2
        parts = [part(pos, pos + 1, "type", ("negative" if code == NEG_BIG else "positive")
                      + " int, arbitrary precision"),
                 part(pos + 1, pos + 2, "length", f"{_plural(n, 'byte')} follow" +
                      (f" ({data[pos + 1]:02x} XOR ff)" if code == NEG_BIG else ""))]
        if n:
            parts.append(part(pos + 2, end, "payload", f"{value}, big-endian" if code == POS_BIG
                              else f"{value} + 2**{8 * n} - 1 (one's complement of "
                              f"{-value}), big-endian"))
        return parts
    if code in (FLOAT, DOUBLE):
        how = ("sign bit flipped (a value with the sign bit clear)" if data[pos + 1] & 0x80
               else "every bit inverted (a value with the sign bit set)")
        return [part(pos, pos + 1, "type", "float (binary32)" if code == FLOAT
                     else "double (binary64)"),
                part(pos + 1, end, "payload", f"{value!r}: IEEE order transform, {how}")]
    if code in (FALSE, TRUE):
        return [part(pos, end, "type", "true" if code == TRUE else "false")]
    if code == UUID:
        return [part(pos, pos + 1, "type", "UUID"),
                part(pos + 1, end, "payload", f"{value} (16 bytes, network order)")]
    assert code == VERSIONSTAMP
    tr = data[pos + 1:pos + 11]
    return [part(pos, pos + 1, "type", "versionstamp"),
            part(pos + 1, pos + 11, "payload", "transaction version ff × 10: incomplete"
                 if tr == b"\xff" * 10 else "transaction version: commit "
                 f"{int.from_bytes(tr[:8], 'big')}, batch {int.from_bytes(tr[8:], 'big')}"),
            part(pos + 11, end, "payload", f"user version {value.user_version}")]


# -- schema fields --------------------------------------------------------------------------


def _typed_int_check(name: str) -> Callable[[Any], int]:
    lo, hi = (INT_TYPES[name].min, INT_TYPES[name].max) if name in INT_TYPES else (
        -INT_LIMIT, INT_LIMIT)

    def check(v: Any) -> int:
        if type(v) is bool or not isinstance(v, int):
            raise UnsupportedTypeError(f"{type(v).__name__} in an integer field", value=v,
                                       expected="int")
        if not lo <= v <= hi:
            raise EncodeError(f"out of range for {name}", value=v, expected=f"{lo}..{hi}")
        return int(v)

    return check


def _to_float32(v: Any) -> Float32:
    if isinstance(v, Float32):
        return v
    if type(v) is bool or not isinstance(v, (int, float)):
        raise UnsupportedTypeError(f"{type(v).__name__} in a float32 field", value=v,
                                   expected="Float32, float or int")
    return Float32(v)


def _to_float64(v: Any) -> float:
    if isinstance(v, float):
        return float(v)  # a Float32 widens exactly
    if type(v) is not bool and isinstance(v, int):
        try:
            f = float(v)
        except OverflowError:
            f = float("inf")
        if f != float("inf") and f != float("-inf") and int(f) == v:
            return f
        raise EncodeError("integer does not convert to float64 exactly", value=v,
                          expected="an int that a float64 holds exactly")
    raise UnsupportedTypeError(f"{type(v).__name__} in a float64 field", value=v,
                               expected="float, Float32 or an exact int")


def _exact(kind: type | tuple[type, ...], label: str, expected: str) -> Callable[[Any], Any]:
    def check(v: Any) -> Any:
        if not isinstance(v, kind) or (kind is not bool and isinstance(v, bool)):
            raise UnsupportedTypeError(f"{type(v).__name__} in a {label} field", value=v,
                                       expected=expected)
        return v
    return check


def _check_bool(v: Any) -> bool:
    if type(v) is not bool:
        raise UnsupportedTypeError(f"{type(v).__name__} in a bool field", value=v,
                                   expected="True or False")
    return v


#: field type -> (coerce a value, write it, the type codes that may be read back)
_INT_CODES: Final = frozenset(range(NEG_BIG, POS_BIG + 1))
_FIELD_CODECS: Final[dict[str, tuple[Callable[[Any], Any], frozenset[int]]]] = {
    "string": (_exact(str, "string", "str"), frozenset({STRING})),
    "bytes": (_exact((bytes, bytearray, memoryview), "bytes", "bytes"), frozenset({BYTES})),
    "bool": (_check_bool, frozenset({FALSE, TRUE})),
    **{t: (_typed_int_check(t), _INT_CODES) for t in (*INT_TYPES, "int")},
    "float32": (_to_float32, frozenset({FLOAT})),
    "float64": (_to_float64, frozenset({DOUBLE})),
    "uuid": (_exact(uuid.UUID, "uuid", "uuid.UUID"), frozenset({UUID})),
    "tuple": (_exact((tuple, list), "tuple", "tuple or list"), frozenset({NESTED})),
}


#: field type -> the letter lexcodecs/_speedups.c knows it by
_C_KINDS: Final = {
    "string": ord("s"), "bytes": ord("y"), "bool": ord("?"), "float64": ord("f"),
    "float32": ord("F"), "uuid": ord("u"), "tuple": ord("t"), "int": ord("n"),
    "int8": ord("a"), "int16": ord("b"), "int32": ord("c"), "int64": ord("d"),
    "uint8": ord("A"), "uint16": ord("B"), "uint32": ord("C"), "uint64": ord("D"),
}


class BoundTuple(BoundKey):
    """A schema bound to the tuple layer.

    ``encode`` and ``decode`` are compiled for the schema (see :func:`_compile`): one
    function with each field's common case written out, no call per field. Whatever the
    compiled code does not expect (a subclass, an escaped NUL, a non-minimal integer, an
    error) is handed whole to the careful methods below, which accept exactly the same keys
    and produce every error message.
    """

    __slots__ = ("_codes", "_int_encoder", "_limits", "decode", "encode")

    def __init__(self, codec: FdbTupleCodec, schema: KeySchema, plans: Sequence[FieldPlan]
                 ) -> None:
        super().__init__(codec, schema, plans)
        self._int_encoder = codec._int_encoder
        self._codes = [_FIELD_CODECS[f.type][1] for f in schema.fields]
        self._limits = [(INT_TYPES[f.type].min, INT_TYPES[f.type].max)
                        if f.type in INT_TYPES else None for f in schema.fields]
        # instance attributes (slots) shadow the methods: a call reaches the compiled code
        # with no frame in between
        encode, decode = _compile(schema, codec.options["max_u64_form"],
                                  self.careful_encode, self.careful_decode)
        if SPEEDUPS is not None:
            # C first, for the whole key; it hands anything unusual to the compiled Python
            kinds = bytes(_C_KINDS[f.type] for f in schema.fields)
            encode = partial(SPEEDUPS.bound_encode, kinds, encode,
                             codec.options["max_u64_form"] == "java")
            decode = partial(SPEEDUPS.bound_decode, kinds, decode)
        self.encode, self.decode = encode, decode  # type: ignore[method-assign]

    def careful_encode(self, values: Sequence[Any], prefix: bytes = b"") -> bytes:
        key = BoundKey.encode(self, values)
        return _as_bytes(prefix, "prefix") + key if prefix else key

    def careful_decode(self, key: bytes, prefix: bytes = b"") -> tuple[Any, ...]:
        data = _as_bytes(key)
        start = _check_prefix(data, prefix) if prefix else 0
        fields = self.schema.fields
        try:
            values, offsets = _decode_elements(data, start)
        except DecodeError as exc:
            i = getattr(exc, "element", len(fields))
            if i < len(fields):
                raise self._context(exc, i) from None
            raise exc.add_context(codec=NAME) from None
        if len(values) != len(fields):
            at = len(data) if len(values) < len(fields) else offsets[len(fields)]
            raise DecodeError(f"{len(values)} element(s) for a schema of {len(fields)} "
                              "field(s)", codec=NAME, offset=at, found=data[at:at + 1],
                              expected=f"{len(fields)} elements ({self.schema})")
        for i, (v, at) in enumerate(zip(values, offsets)):
            code = data[at]
            if code == NULL:
                continue
            f = fields[i]
            if code not in self._codes[i]:
                raise DecodeError(f"type code {code:02x} does not fit the {f.type} field",
                                  codec=NAME, field=i, field_name=f.name, field_type=f.type,
                                  offset=at, found=data[at:at + 1])
            limits = self._limits[i]
            if limits is not None and not limits[0] <= v <= limits[1]:
                raise DecodeError(f"{v} is out of range for {f.type}", codec=NAME, field=i,
                                  field_name=f.name, field_type=f.type, offset=at,
                                  found=data[at:at + 1],
                                  expected=f"{limits[0]}..{limits[1]}")
        return tuple(values)

    def prefix_range(self, values: Sequence[Any], prefix: bytes = b"") -> tuple[bytes, bytes]:
        values = self._check_arity(values, prefix=True)
        body = _as_bytes(prefix, "prefix") + self._encode_prefix(values)
        return body + b"\x00", body + b"\xff"


class FdbTupleCodec(BaseCodec):
    """The FoundationDB tuple layer.

    >>> codec = FdbTupleCodec()
    >>> codec.encode(("user", 12345, None)).hex(" ")
    '02 75 73 65 72 00 16 30 39 00'
    >>> codec.decode(bytes.fromhex("0275736572001630390"  "0"))
    ('user', 12345, None)
    >>> [k.hex() for k in codec.prefix_range(("a",))]
    ['02610000', '026100ff']
    """

    name = NAME
    OPTIONS: ClassVar = {
        "max_u64_form": Option(
            "python", "how ±(2**64-1) is written: 'python' as fdb.tuple (arbitrary-precision "
            "form), 'java' as the Java and Go bindings (fixed 8-byte form)",
            choices=("python", "java")),
    }
    CAPABILITIES = Capabilities(
        field_types={"string", "bytes", "bool", "int8", "int16", "int32", "int64", "uint8",
                     "uint16", "uint32", "uint64", "int", "float32", "float64", "uuid",
                     "tuple"},
        decoding="self-describing",
        schemaless=True,
        descending=False,
        nulls="fixed",
        injective=True,
        # not prefix-free: (b"",) is 01 00 and (b"\x00",) is 01 00 ff 00. Still unambiguous,
        # because ff never starts an element, so an element's 00 followed by ff is an escape
        prefix_free=False,
        float_policy=FloatPolicy(nan="total", negative_zero="distinct"),
        int_range=(-INT_LIMIT, INT_LIMIT),
        notes="types order by type code first: every int < every Float32 < every float",
    )
    bound_class = BoundTuple

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        java = self.options["max_u64_form"] == "java"
        self._int_encoder: Callable[[int], bytes] = _int_java if java else _int
        self._table, self._nested = _TABLES[self.options["max_u64_form"]]
        # per-instance plain functions: no bound-method object per call, and the common case
        # read inline (see _fast_paths)
        self.encode, self.decode = _fast_paths(self)  # type: ignore[method-assign]

    # -- schemaless API (the codec's own) ---------------------------------------------------

    def encode(self, values: Sequence[Any], schema: SchemaLike | None = None,
               prefix: bytes = b"") -> bytes:
        """``prefix ‖ enc(values)``, as ``fdb.tuple.pack(values, prefix=prefix)``.

        (Each instance answers through :func:`_fast_paths`, which handles the common case
        and hands everything else to this method.)
        """
        if schema is not None:
            # the compiled encode takes prefix= (mypy sees BoundKey's signature)
            return self.bind(schema).encode(values, prefix)  # type: ignore[call-arg]
        values = self._values(values)
        try:
            key = b"".join([self._table[type(v)](v) for v in values])
        except Exception:  # a subclass, a foreign object or an error: the careful path
            key = _encode_careful(values, self._int_encoder)
        return _as_bytes(prefix, "prefix") + key if prefix else key

    def encode_schemaless(self, values: Sequence[Any]) -> bytes:
        return self.encode(values)

    def decode(self, key: bytes, schema: SchemaLike | None = None, prefix: bytes = b""
               ) -> tuple[Any, ...]:
        """The values of *key* (after *prefix*, which must be there).

        (Each instance answers through :func:`_fast_paths`; this is the reference reading,
        and the one that explains every error.)
        """
        if schema is not None:
            return self.bind(schema).decode(key, prefix)  # type: ignore[call-arg]
        data = _as_bytes(key)
        start = _check_prefix(data, prefix) if prefix else 0
        try:
            return tuple(_decode_elements(data, start)[0])
        except DecodeError as exc:
            raise exc.add_context(codec=NAME) from None

    def decode_schemaless(self, key: bytes) -> tuple[Any, ...]:
        return self.decode(key)

    def prefix_range(self, values: Sequence[Any], schema: SchemaLike | None = None,
                     prefix: bytes = b"") -> tuple[bytes, bytes]:
        """``(prefix+enc+00, prefix+enc+ff)``: every key extending *values*, as
        ``fdb.tuple.range``; the key of *values* itself is not in it."""
        if schema is not None:
            return self.bind(schema).prefix_range(values, prefix)
        body = self.encode(values, prefix=prefix)
        return body + b"\x00", body + b"\xff"

    def encode_with_versionstamp(self, values: Sequence[Any], prefix: bytes = b"") -> bytes:
        """The key with one incomplete versionstamp, and its 4-byte little-endian offset.

        The offset counts from the start of the output, prefix included, to the first of the
        stamp's ten ``ff`` bytes (API version 520 and later).
        """
        values = self._values(values)
        try:
            return self._encode_with_versionstamp(values, prefix)
        except RecursionError:
            raise EncodeError("tuples nested too deeply to encode", codec=NAME,
                              value=values, expected="less nesting") from None

    def _encode_with_versionstamp(self, values: Sequence[Any], prefix: bytes) -> bytes:
        stamps = _count_incomplete(values)
        if stamps != 1:
            raise EncodeError("no incomplete versionstamp" if stamps == 0 else
                              f"several incomplete versionstamps ({stamps})", codec=NAME,
                              value=values, expected="exactly one incomplete Versionstamp")
        parts: list[bytes] = [_as_bytes(prefix, "prefix")]
        offset = _write_with_stamp(values, parts, False, self._int_encoder)
        key = b"".join(parts)
        return key + offset.to_bytes(4, "little")

    # -- inspect ----------------------------------------------------------------------------

    def inspect(self, key: bytes, schema: SchemaLike | None = None) -> Inspection:
        """Each element's type code and what it means, its payload, length byte, ``00 ff``
        escapes and terminator; a nested tuple's elements inside its field, as ``nested``
        parts labelled with their index path (``[1][0]``). A key is inspected without its
        subspace prefix. Notes name the elements this codec would write differently.
        """
        data = as_key_bytes(NAME, key)
        parsed = None if schema is None else KeySchema.coerce(schema)
        self.decode(data, parsed)  # bytes that are not a key are refused, with the offset
        fields: list[FieldView] = []
        notes: list[str] = []
        pos = 0
        while pos < len(data):
            i = len(fields)
            value, end = _DECODE[data[pos]](data, pos)
            f = parsed.fields[i] if parsed is not None else None
            fields.append(FieldView(i, f.name if f else None, pos, end, value,
                                    tuple(_element_parts(data, pos, end)),
                                    f.type if f else _KIND[data[pos]]))
            note = self._form_note(i, data[pos:end], value)
            if note:
                notes.append(note)
            pos = end
        return Inspection(NAME, data, tuple(fields), tuple(notes),
                          None if parsed is None else str(parsed))

    def _form_note(self, index: int, raw: bytes, value: Any) -> str | None:
        """Why element *index* is not in the form this codec writes, or None if it is."""
        try:
            again = self.encode((value,))
        except LexCodecError as exc:
            if _holds_incomplete(value):
                return (f"element {index} holds an incomplete versionstamp (transaction "
                        "version ff × 10): a plain encode refuses it, only "
                        "encode_with_versionstamp writes it; a complete stamp with that "
                        "transaction version also reads back as incomplete")
            # a nested tuple deeper than encode's recursion goes, say
            return f"element {index} is read, but encode refuses its value ({exc})"
        if again == raw:
            return None
        why = "a non-minimal form, read as every binding reads it"
        if raw[0] == NESTED:
            why = ("it holds a non-minimal integer or the other max_u64_form of "
                   "±(2**64-1), read as every binding reads it")
        elif type(value) is int and abs(value) == 2**64 - 1:
            why = ("the other bindings' form of ±(2**64-1); this codec has max_u64_form="
                   f"{self.options['max_u64_form']!r}")
        return (f"element {index} ({raw.hex(' ')}) is not the form this codec writes for "
                f"{value!r} ({again.hex(' ')}): {why}")

    def bind(self, schema: SchemaLike) -> BoundTuple:
        """The schema compiled for this codec; its ``encode``/``decode`` take ``prefix=``."""
        return cast(BoundTuple, super().bind(schema))

    def _values(self, values: Any) -> Sequence[Any]:
        if isinstance(values, (tuple, list)):
            return values
        raise UnsupportedTypeError("the values of a key must be a tuple or a list",
                                   codec=NAME, value=values, expected="a tuple or list")

    # -- schema binding ---------------------------------------------------------------------

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        coerce = _FIELD_CODECS[field.type][0]
        int_encoder = self._int_encoder
        table = self._table
        if field.type in INT_TYPES or field.type == "int":
            def write(v: Any) -> bytes:
                return b"\x00" if v is None else int_encoder(coerce(v))
        elif field.type == "float32":
            def write(v: Any) -> bytes:
                return b"\x00" if v is None else _float32(coerce(v))
        elif field.type == "float64":
            def write(v: Any) -> bytes:
                return b"\x00" if v is None else _double(coerce(v))
        else:
            def write(v: Any) -> bytes:
                if v is None:
                    return b"\x00"
                v = coerce(v)
                try:
                    return table[type(v)](v)
                except LexCodecError:
                    raise
                except Exception:
                    return _encode_careful((v,), int_encoder)
        return FieldPlan(index, field, write)


def _count_incomplete(values: Sequence[Any]) -> int:
    n = 0
    for v in values:
        if isinstance(v, (tuple, list)):
            n += _count_incomplete(v)
        elif isinstance(v, Versionstamp) and v.tr_version is None:
            n += 1
        else:
            foreign = _foreign(v)
            if foreign is not None and foreign[0] == "versionstamp" and \
                    foreign[1].tr_version is None:
                n += 1
    return n


def _write_with_stamp(values: Sequence[Any], parts: list[bytes], nested: bool,
                      int_encoder: Callable[[int], bytes]) -> int:
    """Append the elements of *values* to *parts*; return the stamp's offset, or -1."""
    found = -1
    for v in values:
        stamp = v if isinstance(v, Versionstamp) else None
        foreign = None if stamp is not None else _foreign(v)
        if foreign is not None and foreign[0] == "versionstamp":
            stamp = foreign[1]
        if stamp is not None and stamp.tr_version is None:
            found = sum(map(len, parts)) + 1
            parts.append(b"\x33" + stamp.to_bytes())
        elif isinstance(v, (tuple, list)):
            parts.append(b"\x05")
            inner = _write_with_stamp(v, parts, True, int_encoder)
            found = inner if inner >= 0 else found
            parts.append(b"\x00")
        else:
            try:
                parts.append(_encode_slow(v, nested, int_encoder))
            except LexCodecError as exc:
                raise exc.add_context(codec=NAME) from None
    return found


_from_bytes = int.from_bytes


#: lexcodecs._speedups, or None: C code for the common case, checked against the Python
#: paths by tests/test_fdb_tuple_speedups.py; it answers None whenever it is unsure
SPEEDUPS: Final = speedups("fdb_decode")


def _fast_paths(codec: FdbTupleCodec, speedups: Any = "default"
                ) -> tuple[Callable[..., bytes], Callable[..., tuple[Any, ...]]]:
    """The instance's ``encode`` and ``decode``: the common case inline, the rest careful.

    On this interpreter a Python call or a global lookup costs as much as reading an
    element, so the fast paths are closures over locals, with the usual type codes tested
    as literals. Anything they do not expect -- a prefix, a subclass, an escaped NUL, a rare
    type code, any error -- goes to the class's methods, which accept exactly the same keys
    and say what is wrong.
    """
    table = codec._table
    careful_encode = partial(FdbTupleCodec.encode, codec)
    careful_decode = partial(FdbTupleCodec.decode, codec)
    decoders = _DECODE
    java = codec.options["max_u64_form"] == "java"
    if speedups == "default":
        speedups = SPEEDUPS
    c_encode = speedups.fdb_encode if speedups is not None else None
    c_decode = speedups.fdb_decode if speedups is not None else None

    def encode(values: Sequence[Any], schema: SchemaLike | None = None,
               prefix: bytes = b"") -> bytes:
        if schema is None and not prefix and type(values) is tuple:
            if c_encode is not None:
                key: bytes | None = c_encode(values, java)
                if key is not None:
                    return key
            try:
                # one element skips the list comprehension, whose set-up costs as much as
                # the element itself
                if len(values) == 1:
                    v = values[0]
                    return table[type(v)](v)
                return b"".join([table[type(v)](v) for v in values])
            except Exception:
                pass
        return careful_encode(values, schema, prefix)

    def decode(key: bytes, schema: SchemaLike | None = None, prefix: bytes = b""
               ) -> tuple[Any, ...]:
        if schema is not None or prefix or type(key) is not bytes:
            return careful_decode(key, schema, prefix)
        if c_decode is not None:
            values: tuple[Any, ...] | None = c_decode(key)
            if values is not None:
                return values
        out: list[Any] = []
        n = len(key)
        pos = 0
        try:
            while pos < n:
                code = key[pos]
                if code == 0x02:
                    end = key.find(b"\x00", pos + 1)
                    if end < 0 or key[end + 1:end + 2] == b"\xff":
                        value, pos = decoders[code](key, pos)
                        out.append(value)
                        continue
                    out.append(key[pos + 1:end].decode("utf-8"))
                    pos = end + 1
                elif 0x14 < code < 0x1D:
                    end = pos + code - 19
                    if end > n:
                        break
                    out.append(_from_bytes(key[pos + 1:end], "big"))
                    pos = end
                elif code == 0x01:
                    end = key.find(b"\x00", pos + 1)
                    if end < 0 or key[end + 1:end + 2] == b"\xff":
                        value, pos = decoders[code](key, pos)
                        out.append(value)
                        continue
                    out.append(key[pos + 1:end])
                    pos = end + 1
                elif code == 0x21 and pos + 9 <= n:
                    bits = _UNPACK_Q(key, pos + 1)[0]
                    bits ^= 0x8000000000000000 if bits >> 63 else 0xFFFFFFFFFFFFFFFF
                    out.append(_UNPACK_D(_PACK_Q(bits))[0])
                    pos += 9
                elif code == 0x00:
                    out.append(None)
                    pos += 1
                elif code == 0x27:
                    out.append(True)
                    pos += 1
                elif code == 0x26:
                    out.append(False)
                    pos += 1
                else:
                    value, pos = decoders[code](key, pos)
                    out.append(value)
            else:
                return tuple(out)
        except Exception:
            pass
        return careful_decode(key)  # raises the error, with its offset

    encode.__doc__ = FdbTupleCodec.encode.__doc__
    decode.__doc__ = FdbTupleCodec.decode.__doc__
    return encode, decode


_DEFAULT: Final = FdbTupleCodec()


def encode(values: Sequence[Any], prefix: bytes = b"") -> bytes:
    """Module-level shortcut for ``FdbTupleCodec().encode`` (the default options)."""
    return _DEFAULT.encode(values, prefix=prefix)


def decode(key: bytes, prefix: bytes = b"") -> tuple[Any, ...]:
    """Module-level shortcut for ``FdbTupleCodec().decode``."""
    return _DEFAULT.decode(key, prefix=prefix)


def prefix_range(values: Sequence[Any], prefix: bytes = b"") -> tuple[bytes, bytes]:
    """Module-level shortcut for ``FdbTupleCodec().prefix_range``."""
    return _DEFAULT.prefix_range(values, prefix=prefix)


def encode_with_versionstamp(values: Sequence[Any], prefix: bytes = b"") -> bytes:
    """Module-level shortcut for ``FdbTupleCodec().encode_with_versionstamp``."""
    return _DEFAULT.encode_with_versionstamp(values, prefix=prefix)


# -- compiled bound paths -------------------------------------------------------------------
#
# Theory of operation: for a bound schema the field types are known, so the per-element
# dispatch of the generic paths is wasted work. _compile writes one Python function per
# schema (as attrs writes __init__): each field's common, well-formed case inline, guarded by
# exact type checks (encode) or type-code checks (decode). Anything else -- None aside, a
# value of another type, an escaped NUL, a non-minimal integer, a truncated key, an
# exception of any kind -- returns the careful path's answer for the whole key, so the
# compiled code never needs an error message of its own and accepts nothing the careful
# path refuses. tests/test_fdb_tuple_speedups.py checks the fast paths against the
# careful ones, and runs the fdb-tuple suite in pure Python.

#: field type -> (guard on v, expression writing v); "{v}" is the field's variable
_ENCODE_SRC: Final[dict[str, tuple[str, str]]] = {
    "string": ("type({v}) is str",
               'b"\\x02" + {v}.encode("utf-8").replace(b"\\x00", b"\\x00\\xff") + b"\\x00"'),
    "bytes": ("type({v}) is bytes",
              'b"\\x01" + {v}.replace(b"\\x00", b"\\x00\\xff") + b"\\x00"'),
    "bool": ("type({v}) is bool", '(b"\\x27" if {v} else b"\\x26")'),
    "float64": ("type({v}) is float", "_double({v})"),
    "float32": ("type({v}) is Float32", "_float32({v})"),
    "uuid": ("type({v}) is UUID", 'b"\\x30" + {v}.bytes'),
    "int": ("type({v}) is int", "_int_enc({v})"),
    "tuple": ("(type({v}) is tuple or type({v}) is list)", "_nested({v})"),
}

_INT_DECODE_SRC: Final = """\
    c = data[pos]
    if 0x14 < c < 0x1d:
        end = pos + c - 19
        {v} = int.from_bytes(data[pos + 1:end], "big")
        if end > n:
            return careful(data)
        pos = end
    elif c == 0x14:
        {v} = 0
        pos += 1
    elif 0x0b < c < 0x14:
        end = pos + 21 - c
        {v} = int.from_bytes(data[pos + 1:end], "big") - _BIAS[20 - c]
        if end > n:
            return careful(data)
        pos = end
    elif c == 0:
        {v} = None
        pos += 1
    else:
        return careful(data)
"""

_ESCAPED_DECODE_SRC: Final = """\
    c = data[pos]
    if c == {code}:
        end = find(b"\\x00", pos + 1)
        if end >= 0 and data[end + 1:end + 2] == b"\\xff":
            while end >= 0 and data[end + 1:end + 2] == b"\\xff":
                end = find(b"\\x00", end + 2)
            if end < 0:
                return careful(data)
            {v} = data[pos + 1:end].replace(b"\\x00\\xff", b"\\x00"){convert}
        elif end < 0:
            return careful(data)
        else:
            {v} = data[pos + 1:end]{convert}
        pos = end + 1
    elif c == 0:
        {v} = None
        pos += 1
    else:
        return careful(data)
"""

_FIXED_DECODE_SRC: Final = """\
    c = data[pos]
    if c == {code}:
        end = pos + {width}
        if end > n:
            return careful(data)
        {v} = {expr}
        pos = end
    elif c == 0:
        {v} = None
        pos += 1
    else:
        return careful(data)
"""

_BOOL_DECODE_SRC: Final = """\
    c = data[pos]
    if c == 0x27:
        {v} = True
    elif c == 0x26:
        {v} = False
    elif c == 0:
        {v} = None
    else:
        return careful(data)
    pos += 1
"""


_NESTED_DECODE_SRC: Final = """\
    c = data[pos]
    if c == 5:
        {v}, pos = _read_nested(data, pos)
    elif c == 0:
        {v} = None
        pos += 1
    else:
        return careful(data)
"""


def _decode_src(field_type: str, v: str) -> str:
    if field_type in INT_TYPES or field_type == "int":
        return _INT_DECODE_SRC.format(v=v)
    if field_type == "string":
        return _ESCAPED_DECODE_SRC.format(v=v, code=STRING, convert='.decode("utf-8")')
    if field_type == "bytes":
        return _ESCAPED_DECODE_SRC.format(v=v, code=BYTES, convert="")
    if field_type == "bool":
        return _BOOL_DECODE_SRC.format(v=v)
    if field_type == "float64":
        return _FIXED_DECODE_SRC.format(
            v=v, code=DOUBLE, width=9,
            expr="_UNPACK_D(_PACK_Q(_unorder(_UNPACK_Q(data, pos + 1)[0], 8)))[0]")
    if field_type == "float32":
        return _FIXED_DECODE_SRC.format(
            v=v, code=FLOAT, width=5,
            expr="_from_bits(_unorder(_UNPACK_I(data, pos + 1)[0], 4))")
    if field_type == "uuid":
        return _FIXED_DECODE_SRC.format(v=v, code=UUID, width=17,
                                        expr="UUID(bytes=data[pos + 1:end])")
    if field_type == "tuple":
        return _NESTED_DECODE_SRC.format(v=v)
    raise AssertionError(f"no compiled decoder for {field_type}")


def _compile(schema: KeySchema, u64_form: str,
             careful_encode: Callable[..., bytes], careful_decode: Callable[..., tuple[Any, ...]]
             ) -> tuple[Callable[..., bytes], Callable[..., tuple[Any, ...]]]:
    """The compiled ``encode(values, prefix=b'')`` and ``decode(data, prefix=b'')``."""
    names, unpack = value_names(len(schema))
    guards, exprs = [], []
    for name, f in zip(names, schema.fields):
        guard, expr = _ENCODE_SRC["int" if f.type in INT_TYPES else f.type]
        check = guard.format(v=name)
        if f.type in INT_TYPES:
            cls = INT_TYPES[f.type]
            check += f" and {cls.min} <= {name} <= {cls.max}"
        guards.append(f"({name} is None or {check})")
        exprs.append(f'(b"\\x00" if {name} is None else {expr.format(v=name)})')
    lines = [
        "def encode(values, prefix=b''):",
        "    if type(values) is tuple or type(values) is list:",
        "        try:",
        f"            {unpack} = values",
        f"            if {' and '.join(guards)}:",
        f"                key = b''.join(({', '.join(exprs)},))",
        "                if not prefix:",
        "                    return key",
        "                if type(prefix) is bytes:",
        "                    return prefix + key",
        "        except Exception:",
        "            pass",
        "    return careful_encode(values, prefix)",
        "",
        "def decode(data, prefix=b''):",
        "    if type(data) is not bytes or prefix:",
        "        return careful(data, prefix)",
        "    n = len(data)",
        "    find = data.find",
        "    pos = 0",
        "    try:",
    ]
    for name, f in zip(names, schema.fields):
        lines += ["    " + line for line in _decode_src(f.type, name).splitlines()]
        if f.type in INT_TYPES:
            cls = INT_TYPES[f.type]
            lines += [f"        if {name} is not None and not {cls.min} <= {name} <= {cls.max}:",
                      "            return careful(data)"]
    lines += [
        "    except Exception:",
        "        return careful(data)",
        "    if pos != n:",
        "        return careful(data)",
        f"    return ({unpack})",
    ]
    namespace: dict[str, Any] = {
        "_double": _double, "_float32": _float32, "UUID": uuid.UUID, "Float32": Float32,
        "_int_enc": _int_java if u64_form == "java" else _int, "_BIAS": _BIAS,
        "careful_encode": careful_encode, "careful": careful_decode,
        "_UNPACK_D": _UNPACK_D, "_PACK_Q": _PACK_Q, "_UNPACK_Q": _UNPACK_Q,
        "_UNPACK_I": _I.unpack_from, "_unorder": unorder_bits, "_from_bits": Float32.from_bits,
        "_nested": _TABLES[u64_form][1], "_read_nested": _read_nested,
    }
    label = f"fdb-tuple bound to {schema}"
    encode = compile_function("\n".join(lines), "encode", label, namespace)
    return encode, namespace["decode"]


#: 2**(8n) - 1, the bias of an n-byte negative integer
_BIAS: Final = [(1 << (8 * n)) - 1 for n in range(9)]
