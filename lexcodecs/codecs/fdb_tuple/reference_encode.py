"""The reference encoder of ``fdb-tuple``: readable Python, the executable spec of writing.

Theory of operation: an element is written by the writer its value's *exact* type selects in
a table (:func:`_tables`; ``bool`` is an ``int``, so an ``isinstance`` chain would be wrong as
well as slow). What the table does not hold -- a subclass, an ``fdb.tuple`` object, a ctypes
float -- and every failure go to :func:`encode_element`, which dispatches on the value's real
type (``issubclass(type(v), ...)``: ``isinstance`` believes a ``__class__`` that lies) in the
order of spec §8, and shapes every error message. A subclass is written from its own data
(``str.__str__``, ``int.__index__``, ``float.__float__``: never through a method it
overrides). Values with internal state (a UUID's ``int``, a Float32's ``bits``, a
Versionstamp's fields) are checked before they are written: a tampered object is refused,
never written from a slot nobody checked.

Nested tuples may nest no deeper than the codec's ``max_depth`` (:data:`~.format.MAX_DEPTH`
by default), as on decode: :func:`check_depth` walks a nested value with an explicit stack
before anything is written and refuses it with an ``EncodeError``, so the recursive writers
below only ever see bounded depth (and a list that contains itself is refused, not chased).

Schema fields coerce their value first (:data:`FIELD_COERCE`: an int in a float64 field, a
float in a float32 field, a range check in an int8 field), then write it as above.

The compiled module (``_compiled.pyx``) writes the same bytes for the exact types and hands
anything else to these functions.
"""

from __future__ import annotations

import functools
import struct
import sys
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from ..._bytes import order_bits
from ...codec import plain_value
from ...errors import EncodeError, LexCodecError, UnsupportedTypeError
from ...types import INT_TYPES, Float32, Versionstamp
from .format import FIXED_LIMIT, INT_LIMIT, MAX_DEPTH, NAME, NEG_BIG, POS_BIG

__all__ = [
    "FIELD_COERCE",
    "TABLES",
    "check_depth",
    "encode_careful",
    "encode_element",
    "encode_values",
    "encode_with_versionstamp",
    "field_writer",
    "int_writer",
    "items",
]

Writer = Callable[[Any], bytes]
Writers = dict[type, Writer]

_Q = struct.Struct(">Q")
_D = struct.Struct(">d")
_BQ = struct.Struct(">BQ")
_BI = struct.Struct(">BI")

_POS_CODE: Final = [bytes((0x14 + n,)) for n in range(9)]
_NEG_CODE: Final = [bytes((0x14 - n,)) for n in range(9)]
#: bytes needed for a magnitude of each bit length (index 0..64)
_NBYTES: Final = [(b + 7) >> 3 for b in range(65)]

# -- integers -------------------------------------------------------------------------------


def _int(v: int) -> bytes:
    if 0 < v < 0xFFFFFFFFFFFFFFFF:  # the common case first: 1..8 bytes, positive
        n = _NBYTES[v.bit_length()]
        return _POS_CODE[n] + v.to_bytes(n, "big")
    return _int_rare(v, FIXED_LIMIT["python"])


def _int_java(v: int) -> bytes:
    return _int_rare(v, FIXED_LIMIT["java"])


def _int_rare(v: int, limit: int) -> bytes:
    """Any int: *limit* is the largest magnitude written in the fixed 1..8-byte forms."""
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


#: max_u64_form -> the int writer
_INT_WRITERS: Final[dict[str, Callable[[int], bytes]]] = {"python": _int, "java": _int_java}


def int_writer(form: str) -> Callable[[int], bytes]:
    return _INT_WRITERS[form]

# -- the other scalars ----------------------------------------------------------------------


def _double(v: float) -> bytes:
    # struct reads a float subclass's own value, never a __float__ it defines
    return _BQ.pack(0x21, order_bits(_Q.unpack(_D.pack(v))[0], 8))


def _float32(v: Float32) -> bytes:
    """A Float32 from its ``bits``, once they are known to be its value's bits: a Float32
    whose ``bits`` was changed (or never set) is refused, so no path writes a slot blindly."""
    bits = getattr(v, "bits", None)
    if type(bits) is not int or not 0 <= bits <= 0xFFFFFFFF or \
            _D.pack(Float32.from_bits(bits)) != _D.pack(v):
        raise EncodeError("Float32 whose bits do not match its value", value=v,
                          expected="a Float32 made by Float32() or Float32.from_bits()")
    return _BI.pack(0x20, order_bits(bits, 4))


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


def _uuid(v: uuid.UUID) -> bytes:
    """A UUID from its ``int``, once it is known to be a 128-bit unsigned int."""
    try:
        i = v.int
    except Exception:
        i = None
    if type(i) is not int or not 0 <= i < 1 << 128:
        raise EncodeError("UUID whose int is not a 128-bit unsigned integer", value=v,
                          expected="a UUID made by uuid.UUID()")
    return b"\x30" + i.to_bytes(16, "big")


def stamp_fields(v: Versionstamp) -> tuple[bytes | None, int]:
    """A Versionstamp's transaction and user versions, checked: one whose fields were
    changed after it was made is refused."""
    try:
        tr, user = v.tr_version, v.user_version
    except Exception:
        tr, user = b"", -1
    if (tr is None or (type(tr) is bytes and len(tr) == 10)) and type(user) is int and \
            0 <= user <= 0xFFFF:
        return tr, user
    raise EncodeError("versionstamp whose fields were changed after it was made", value=v,
                      expected="10 bytes (or None) and a user version 0..65535")


def _versionstamp(v: Versionstamp) -> bytes:
    tr, user = stamp_fields(v)
    if tr is None:
        raise EncodeError("incomplete versionstamp in a plain encode", value=v,
                          expected="a complete versionstamp, or encode_with_versionstamp()")
    return b"\x33" + tr + user.to_bytes(2, "big")

# -- dispatch -------------------------------------------------------------------------------


def _too_deep(value: Any, max_depth: int) -> EncodeError:
    return EncodeError(f"tuples nested deeper than max_depth={max_depth}", codec=NAME,
                       value=value, expected=f"at most {max_depth} levels of nested tuples")


def _deeper_than(value: Any, max_depth: int) -> bool:
    """Whether the tuple or list *value* (itself at depth 1) holds a tuple or list deeper
    than *max_depth*; an explicit stack of iterators, so time is linear and stops there."""
    if max_depth < 1:
        return True
    stack = [items(value)]
    while stack:
        for x in stack[-1]:
            if issubclass(type(x), (tuple, list)):
                if len(stack) >= max_depth:  # x would be at depth len(stack) + 1
                    return True
                stack.append(items(x))
                break
        else:
            stack.pop()
    return False


def check_depth(values: Sequence[Any], max_depth: int) -> None:
    """Refuse (``EncodeError``, with the top-level index as ``field``) an element of
    *values* whose tuples nest deeper than *max_depth*."""
    for i, v in enumerate(values):
        if issubclass(type(v), (tuple, list)) and _deeper_than(v, max_depth):
            raise _too_deep(v, max_depth).add_context(field=i)


@functools.lru_cache(maxsize=32)
def tables(form: str, max_depth: int) -> tuple[Writers, Writer]:
    """The top-level exact-type table for ``max_u64_form`` *form* and nesting limit
    *max_depth*, and its (unchecked) nested-tuple writer."""
    top, nested = _tables(_INT_WRITERS[form])

    def checked(v: Sequence[Any]) -> bytes:
        if _deeper_than(v, max_depth):
            raise _too_deep(v, max_depth)
        return nested(v)

    return {**top, tuple: checked, list: checked}, nested


def _tables(int_encoder: Callable[[int], bytes]) -> tuple[Writers, Writer]:
    """The exact-type table for one way of writing ints, and its nested-tuple writer; the
    writer does not check depth (:func:`tables` wraps it in the check)."""

    def nested(v: Sequence[Any]) -> bytes:
        try:
            return b"\x05" + b"".join([inner[type(x)](x) for x in v]) + b"\x00"
        except RecursionError:
            raise  # retrying each level would take time quadratic in the depth
        except Exception:
            return b"\x05" + b"".join([encode_element(x, True, int_encoder) for x in v]) + \
                b"\x00"

    top: Writers = {
        type(None): lambda v: b"\x00",
        bytes: _bytes,
        str: _str,
        bool: lambda v: b"\x27" if v else b"\x26",
        int: int_encoder,
        Float32: _float32,
        float: _double,
        uuid.UUID: _uuid,
        Versionstamp: _versionstamp,
        tuple: nested,
        list: nested,
    }
    # inside a nested tuple, null is 00 ff; everything else is written as at top level
    inner: Writers = {**top, type(None): lambda v: b"\x00\xff"}
    return top, nested


#: max_u64_form -> (top-level table, nested-tuple writer), with the default nesting limit
TABLES: Final = {form: tables(form, MAX_DEPTH) for form in _INT_WRITERS}


def foreign(value: Any) -> tuple[str, Any] | None:
    """fdb.tuple's own objects and ctypes floats, recognised without importing anything."""
    cls = type(value)
    fdb_tuple = sys.modules.get("fdb.tuple")
    if fdb_tuple is not None:
        if issubclass(cls, fdb_tuple.SingleFloat):
            return "float32", value.value
        if issubclass(cls, fdb_tuple.Versionstamp):
            return "versionstamp", Versionstamp(value.tr_version, value.user_version)
    ctypes = sys.modules.get("ctypes")
    if ctypes is not None:
        if issubclass(cls, ctypes.c_float):
            return "float32", value.value
        if issubclass(cls, ctypes.c_double):
            return "float64", value.value
    return None


def items(seq: Any) -> Iterator[Any]:
    """The elements of a tuple or list (or a subclass's own elements, not its ``__iter__``)."""
    if issubclass(type(seq), list):
        return list.__iter__(seq)
    return tuple.__iter__(seq)


def _buffer(value: Any) -> bytes:
    try:
        if issubclass(type(value), (bytes, bytearray)):
            return bytes(plain_value(value))  # a subclass's own data, not its __bytes__
        return bytes(value)
    except (TypeError, ValueError):  # a released memoryview, say
        raise EncodeError("a bytes-like value whose data cannot be read", value=value,
                          expected="bytes, bytearray or a readable memoryview") from None


def encode_element(value: Any, nested: bool, int_encoder: Callable[[int], bytes]) -> bytes:
    """Encode one element by its real type (spec §8 order); every refusal is explained here."""
    if value is None:
        return b"\x00\xff" if nested else b"\x00"
    cls = type(value)
    if issubclass(cls, (bytes, bytearray, memoryview)):
        return _bytes(_buffer(value))
    # subclasses are written from their own data, as fdb.tuple does: str() of a str enum
    # would give its name, not its value
    if issubclass(cls, str):
        return _str(str.__str__(value))
    if cls is bool:
        return b"\x27" if value else b"\x26"
    if issubclass(cls, int):
        return int_encoder(int.__index__(value))
    if issubclass(cls, Float32):
        return _float32(plain_value(value))  # its slot, never a property shadowing it
    found = foreign(value)
    if found is not None:
        kind, inner = found
        if kind == "float32":
            return _float32(Float32(inner))
        if kind == "float64":
            return _double(_to_float64(inner))
        return _versionstamp(inner)
    if issubclass(cls, float):
        return _double(float.__float__(value))
    if issubclass(cls, uuid.UUID):
        return _uuid(plain_value(value))
    if issubclass(cls, Versionstamp):
        return _versionstamp(plain_value(value))
    if issubclass(cls, (tuple, list)):
        return b"\x05" + b"".join([encode_element(x, True, int_encoder)
                                   for x in items(value)]) + b"\x00"
    raise UnsupportedTypeError(f"{type(value).__name__} has no tuple-layer type", value=value,
                               expected="None, bytes, str, bool, int, float, Float32, UUID, "
                               "Versionstamp, tuple or list")


def encode_careful(values: Sequence[Any], int_encoder: Callable[[int], bytes],
                   max_depth: int = MAX_DEPTH) -> bytes:
    """Encode element by element, by real type, with the element's index in any error."""
    check_depth(values, max_depth)
    parts = []
    for i, v in enumerate(values):
        try:
            parts.append(encode_element(v, False, int_encoder))
        except LexCodecError as exc:
            raise exc.add_context(codec=NAME, field=i) from None
        except RecursionError:
            raise EncodeError("tuples nested too deeply to encode", codec=NAME, field=i,
                              value=v, expected="less nesting") from None
    return b"".join(parts)


def encode_values(values: Sequence[Any], form: str, max_depth: int = MAX_DEPTH) -> bytes:
    """The elements of *values* (a tuple or list), written as ``max_u64_form`` *form* says,
    nested no deeper than *max_depth*."""
    table = tables(form, max_depth)[0]
    try:
        return b"".join([table[type(v)](v) for v in values])
    except Exception:  # a subclass, a foreign object or an error: the careful path
        return encode_careful(values, _INT_WRITERS[form], max_depth)

# -- versionstamps --------------------------------------------------------------------------


def _incomplete_stamp(v: Any) -> Any:
    """*v* when it is an incomplete stamp (one of ours or fdb.tuple's), else None."""
    stamp = plain_value(v) if issubclass(type(v), Versionstamp) else None
    if stamp is None:
        found = foreign(v)
        if found is not None and found[0] == "versionstamp":
            stamp = found[1]
    if stamp is not None and getattr(stamp, "tr_version", b"") is None:
        return stamp
    return None


def _count_incomplete(values: Sequence[Any]) -> int:
    n = 0
    for v in values:
        if issubclass(type(v), (tuple, list)):
            n += _count_incomplete(list(items(v)))
        elif _incomplete_stamp(v) is not None:
            n += 1
    return n


def _write_with_stamp(values: Sequence[Any], parts: list[bytes], nested: bool,
                      int_encoder: Callable[[int], bytes]) -> int:
    """Append the elements of *values* to *parts*; return the stamp's offset, or -1."""
    found = -1
    for v in values:
        stamp = _incomplete_stamp(v)
        try:
            if stamp is not None:
                user = stamp_fields(stamp)[1]
                found = sum(map(len, parts)) + 1
                parts.append(b"\x33" + b"\xff" * 10 + user.to_bytes(2, "big"))
            elif issubclass(type(v), (tuple, list)):
                parts.append(b"\x05")
                inner = _write_with_stamp(list(items(v)), parts, True, int_encoder)
                found = inner if inner >= 0 else found
                parts.append(b"\x00")
            else:
                parts.append(encode_element(v, nested, int_encoder))
        except LexCodecError as exc:
            raise exc.add_context(codec=NAME) from None
    return found


def encode_with_versionstamp(values: Sequence[Any], prefix: bytes, form: str,
                             max_depth: int = MAX_DEPTH) -> bytes:
    """``prefix ‖ key ‖ offset``: the key holding exactly one incomplete versionstamp, and the
    4-byte little-endian offset of its first ``ff`` byte (counted from the prefix's start)."""
    check_depth(values, max_depth)
    try:
        stamps = _count_incomplete(values)
        if stamps != 1:
            raise EncodeError("no incomplete versionstamp" if stamps == 0 else
                              f"several incomplete versionstamps ({stamps})", codec=NAME,
                              value=values, expected="exactly one incomplete Versionstamp")
        parts: list[bytes] = [prefix]
        offset = _write_with_stamp(values, parts, False, _INT_WRITERS[form])
    except RecursionError:
        raise EncodeError("tuples nested too deeply to encode", codec=NAME,
                          value=values, expected="less nesting") from None
    return b"".join(parts) + offset.to_bytes(4, "little")

# -- schema fields --------------------------------------------------------------------------


def _typed_int_check(name: str) -> Callable[[Any], int]:
    lo, hi = (INT_TYPES[name].min, INT_TYPES[name].max) if name in INT_TYPES else (
        -INT_LIMIT, INT_LIMIT)
    # the unbounded int's limits have 615 digits: name them, do not spell them out
    bits = INT_LIMIT.bit_length()
    span = f"{lo}..{hi}" if name in INT_TYPES else f"-(2**{bits} - 1)..2**{bits} - 1"

    def check(v: Any) -> int:
        if type(v) is bool or not issubclass(type(v), int):
            raise UnsupportedTypeError(f"{type(v).__name__} in an integer field", value=v,
                                       expected="int")
        n: int = int.__index__(v)
        if not lo <= n <= hi:
            raise EncodeError(f"out of range for {name}", value=n, expected=span)
        return n

    return check


def _to_float32(v: Any) -> Float32:
    cls = type(v)
    if issubclass(cls, Float32):
        return plain_value(v)  # type: ignore[no-any-return]
    if issubclass(cls, float):
        return Float32(float.__float__(v))
    if cls is not bool and issubclass(cls, int):
        return Float32(int.__index__(v))
    raise UnsupportedTypeError(f"{cls.__name__} in a float32 field", value=v,
                               expected="Float32, float or int")


def _to_float64(v: Any) -> float:
    cls = type(v)
    if issubclass(cls, float):
        return float.__float__(v)  # a Float32 widens exactly
    if cls is not bool and issubclass(cls, int):
        v = int.__index__(v)
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
        if not issubclass(type(v), kind):
            raise UnsupportedTypeError(f"{type(v).__name__} in a {label} field", value=v,
                                       expected=expected)
        return v
    return check


def _check_bool(v: Any) -> bool:
    if type(v) is not bool:
        raise UnsupportedTypeError(f"{type(v).__name__} in a bool field", value=v,
                                   expected="True or False")
    return v


#: field type -> how a value is checked and coerced before it is written
FIELD_COERCE: Final[dict[str, Callable[[Any], Any]]] = {
    "string": _exact(str, "string", "str"),
    "bytes": _exact((bytes, bytearray, memoryview), "bytes", "bytes"),
    "bool": _check_bool,
    **{t: _typed_int_check(t) for t in (*INT_TYPES, "int")},
    "float32": _to_float32,
    "float64": _to_float64,
    "uuid": _exact(uuid.UUID, "uuid", "uuid.UUID"),
    "tuple": _exact((tuple, list), "tuple", "tuple or list"),
}

#: field type -> how its coerced value is written, when not by the exact-type table
_FIELD_WRITE: Final[dict[str, Callable[[Any, Callable[[int], bytes]], bytes]]] = {
    **{t: lambda v, ints: ints(v) for t in (*INT_TYPES, "int")},
    "float32": lambda v, ints: _float32(v),
    "float64": lambda v, ints: _double(v),
}


def field_writer(field_type: str, form: str, max_depth: int = MAX_DEPTH) -> Writer:
    """``write(value) -> bytes`` for one field of a bound schema: null is ``00``, anything
    else is coerced for the field and written (a tuple field's value is at depth 1)."""
    coerce = FIELD_COERCE[field_type]
    ints = _INT_WRITERS[form]
    special = _FIELD_WRITE.get(field_type)
    if special is not None:
        def write_special(v: Any) -> bytes:
            return b"\x00" if v is None else special(coerce(v), ints)
        return write_special
    table = tables(form, max_depth)[0]

    def write(v: Any) -> bytes:
        if v is None:
            return b"\x00"
        v = coerce(v)
        # checked here, so the error carries this field's index (BoundKey adds it), not 0
        if issubclass(type(v), (tuple, list)) and _deeper_than(v, max_depth):
            raise _too_deep(v, max_depth)
        try:
            return table[type(v)](v)
        except LexCodecError:
            raise
        except Exception:
            return encode_careful((v,), ints, max_depth)
    return write
