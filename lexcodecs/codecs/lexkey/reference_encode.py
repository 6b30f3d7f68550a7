"""The reference LexKey encoder: readable Python, the executable spec of spec §2 and §7.

Theory of operation: without a schema, each value's exact type picks its writer from a table
(:class:`Writers`, spec §2); only a subclass (an ``IntEnum``, a subclass of a typed wrapper)
walks the subclass tests of :data:`Writers.SUBCLASSES`, by the value's real type (an object
that lies about its ``__class__`` is not believed), and is written as its plain type, read by
:func:`~lexcodecs.codec.plain_value` (never through ``__int__``, ``__float__``, ``__abs__``,
``encode`` or any other method it overrides). With a schema, the field type picks an
encoder from :data:`FIELD_ENCODERS`, which checks and coerces the value (spec §7), then
writes it; ``None`` is ``00`` in every field.

This is the only code that shapes LexKey's encode errors: the compiled module hands anything
it does not take as its own to this code, for the whole key. Objects with internal state are
read for what they mean, never trusted blindly: a ``Float32`` by its float value (its ``bits``
slot can be changed), a typed int by its value and its class's range, a ``UUID`` by its
``int`` slot only when that is an int of 128 bits, a datetime by its ``utcoffset()`` (whose
failure is an ``EncodeError``).
"""

from __future__ import annotations

import datetime as _dt
import struct
import uuid
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Final

from ...codec import plain_value
from ...errors import EncodeError, UnsupportedTypeError
from ...types import (
    EndSentinel,
    Float32,
    Int8,
    Int16,
    Int32,
    Int64,
    TypedInt,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
)
from .format import EPOCH, GO_NAN32, GO_NAN64, INT64_MAX, INT64_MIN, SEP, int_class

__all__ = [
    "FIELD_ENCODERS",
    "Writer",
    "Writers",
    "encode_schemaless",
    "float32_bits",
    "float64_bits",
    "signed",
    "unsigned",
]

Writer = Callable[[Any], bytes]

_US: Final = _dt.timedelta(microseconds=1)
_Q = struct.Struct(">Q")
_D = struct.Struct(">d")
_I = struct.Struct(">I")
_F = struct.Struct(">f")
_SIGN64: Final = 0x8000000000000000
_ALL64: Final = 0xFFFFFFFFFFFFFFFF
_UUID_INT_END: Final = 1 << 128


# -- numbers ---------------------------------------------------------------------------------


def signed(v: int, width: int) -> bytes:
    """Two's complement at *width* bytes with the sign bit flipped."""
    bits = 8 * width
    return ((v + (1 << (bits - 1))) & ((1 << bits) - 1)).to_bytes(width, "big")


def unsigned(v: int, width: int) -> bytes:
    return v.to_bytes(width, "big")


def float64_bits(x: float) -> bytes:
    bits = _Q.unpack(_D.pack(x))[0]
    # the literal rule: x < 0 is false for -0.0, which therefore gets only its sign bit
    # flipped and becomes 00..00, the smallest key (a declared anomaly)
    return _Q.pack(bits ^ _ALL64 if x < 0 else bits ^ _SIGN64)


def float32_bits(bits: int, negative: bool) -> bytes:
    return _I.pack(bits ^ 0xFFFFFFFF if negative else bits ^ 0x80000000)


# -- value writers (spec §2) -----------------------------------------------------------------


def write_int64(v: int) -> bytes:
    if not INT64_MIN <= v <= INT64_MAX:
        hint = "; use UInt64 for 2**63..2**64-1" if 2**63 <= v < 2**64 else ""
        raise EncodeError(f"a plain int is int64{hint}", value=v,
                          expected=f"{INT64_MIN}..{INT64_MAX}")
    return signed(v, 8)


def _ns(delta: _dt.timedelta, what: str, value: Any) -> bytes:
    ns = (delta // _US) * 1000  # exact integers, never a float
    if not INT64_MIN <= ns <= INT64_MAX:
        raise EncodeError(f"{what} outside the int64 nanosecond range", value=value,
                          expected="1677-09-21T00:12:43.145225Z..2262-04-11T23:47:16.854775Z"
                          if what == "instant" else "a duration within ±2**63 ns")
    return signed(ns, 8)


def write_instant(v: _dt.datetime) -> bytes:
    try:
        # utcoffset() runs the tzinfo's code, which may fail in any way: say so, typed
        naive = v.utcoffset() is None
        delta = None if naive else v - EPOCH
    except Exception as exc:
        raise EncodeError(f"the datetime's utcoffset() failed ({type(exc).__name__})",
                          value=v, expected="a timezone-aware datetime") from None
    if delta is None:
        raise EncodeError("naive datetime refused", value=v,
                          expected="a timezone-aware datetime")
    return _ns(delta, "instant", v)


def write_duration(v: _dt.timedelta) -> bytes:
    return _ns(v, "duration", v)


def write_text(v: str) -> bytes:
    try:
        return v.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EncodeError("string is not valid UTF-8 (lone surrogate)",
                          value=v[exc.start:exc.end],
                          expected="a str without lone surrogates") from None


def write_raw(v: bytes | bytearray | memoryview) -> bytes:
    try:
        return bytes(v)
    except (ValueError, TypeError, BufferError) as exc:  # a released memoryview, say
        raise EncodeError(f"the bytes cannot be read ({exc})", value=v,
                          expected="bytes, bytearray or a readable memoryview") from None


def write_uuid(v: uuid.UUID) -> bytes:
    try:
        n = v.int
    except Exception:  # a tampered UUID may have lost its int
        n = None
    if type(n) is not int or not 0 <= n < _UUID_INT_END:
        raise EncodeError("a UUID whose int is not a 128-bit unsigned int (a tampered UUID)",
                          value=n, expected="a uuid.UUID as uuid.UUID() makes it")
    return n.to_bytes(16, "big")


def _is(v: Any, kind: Any) -> bool:
    """``isinstance`` by the real type: an object that lies about its ``__class__`` is not
    taken for what it claims (it would reach code that trusts the claim)."""
    return issubclass(type(v), kind)


def write_bool(v: bool) -> bytes:
    return b"\x01" if v else b"\x00"


def _typed_value(v: TypedInt, cls: type[TypedInt]) -> int:
    """A typed int's value, which must lie in its class's range (``int.__new__`` can build
    an ``Int8(1000)``: refuse it rather than wrap it)."""
    n = int(v)
    if not cls.min <= n <= cls.max:
        raise EncodeError(f"out of range for {cls.__name__} (not made by {cls.__name__}())",
                          value=n, expected=f"{cls.min}..{cls.max}")
    return n


class Writers:
    """The value writers of one codec: its width mode (*native*) and NaN option (*go_nan*).

    ``by_type`` maps an exact type to its writer; :meth:`part` writes one value of any type.
    """

    #: what a subclass is written as, in this order (bool first: it is an int)
    SUBCLASSES: ClassVar[tuple[tuple[Any, str], ...]] = (
        (bool, "bool"), (TypedInt, "typed"), (int, "int"), (Float32, "float32"),
        (float, "float64"), (str, "text"), ((bytes, bytearray, memoryview), "raw"),
        (uuid.UUID, "uuid"), (_dt.datetime, "instant"), (_dt.timedelta, "duration"),
    )
    TYPED: ClassVar = (Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64)

    def __init__(self, native: bool, go_nan: bool) -> None:
        self.native = native
        self.go_nan = go_nan
        named: dict[str, Writer] = {
            "bool": write_bool, "int": write_int64, "float32": self.float32,
            "float64": self.float64, "text": write_text, "raw": write_raw, "uuid": write_uuid,
            "instant": write_instant, "duration": write_duration,
        }
        self.named = named
        self.by_type: dict[type, Writer] = {
            type(None): lambda v: b"\x00",
            EndSentinel: lambda v: b"\xff",
            bool: write_bool,
            int: write_int64,
            float: self.float64,
            Float32: self.float32,
            str: write_text,
            bytes: write_raw,
            bytearray: write_raw,
            memoryview: write_raw,
            uuid.UUID: write_uuid,
            _dt.datetime: write_instant,
            _dt.timedelta: write_duration,
        }
        for cls in self.TYPED:
            self.by_type[cls] = self.typed(cls)

    def float64(self, x: float) -> bytes:
        if x != x:
            if self.go_nan:
                return GO_NAN64
            raise EncodeError("NaN is not encodable", value=x,
                              expected="a number (or the codec option nan='go')")
        return float64_bits(x)

    def float32(self, v: Float32) -> bytes:
        """A ``Float32`` by its float value: widened to float64 in ``lexkey``, binary32 in
        ``lexkey-legacy``."""
        x = float(v)
        if x != x:
            if self.go_nan:
                return GO_NAN32 if self.native else GO_NAN64
            raise EncodeError("NaN is not encodable", value=v,
                              expected="a number (or the codec option nan='go')")
        if not Float32.is_exact(x):
            raise EncodeError("a Float32 whose value is not a binary32 value (not made by "
                              "Float32())", value=x, expected="a binary32 value")
        if not self.native:
            return float64_bits(x)  # widening to float64 is exact
        return float32_bits(_I.unpack(_F.pack(x))[0], x < 0)

    def typed(self, cls: type[TypedInt]) -> Writer:
        width = cls.bits // 8 if self.native else 8
        write = signed if cls.signed else unsigned
        return lambda v: write(_typed_value(v, cls), width)

    def part(self, v: Any) -> bytes:
        writer = self.by_type.get(type(v))
        if writer is None:
            writer = self._subclass_writer(v)
            v = plain_value(v)  # a subclass is written as its plain type, not its methods
        return writer(v)

    def _subclass_writer(self, v: Any) -> Writer:
        for kind, name in self.SUBCLASSES:
            if not _is(v, kind):
                continue
            if name != "typed":
                return self.named[name]
            for cls in type(v).__mro__:  # a subclass of a typed wrapper: its wrapper's width
                if cls in self.TYPED:
                    return self.by_type[cls]
        raise UnsupportedTypeError(f"{type(v).__name__} has no LexKey encoding", value=v,
                                   expected="None, END, bool, int, a lexcodecs int type, "
                                   "float, Float32, str, bytes, UUID, aware datetime or "
                                   "timedelta")


def encode_schemaless(writers: Writers, name: str, values: Sequence[Any]) -> bytes:
    """The key of *values*, each written by its type (spec §2); at least one part."""
    if not values:
        raise EncodeError("a key needs at least one part", codec=name,
                          value=tuple(values), expected="one or more values")
    parts = []
    for i, v in enumerate(values):
        try:
            parts.append(writers.part(v))
        except (EncodeError, UnsupportedTypeError) as exc:
            raise exc.add_context(codec=name, field=i) from None
    return SEP.join(parts)


# -- field encoders (spec §7): a field type's checks and coercions, then its writer ----------


def _int_field(w: Writers, field_type: str) -> Writer:
    cls = int_class(field_type)
    write = w.typed(cls)

    def encode(v: Any) -> bytes:
        if v is None:
            return SEP
        if type(v) is bool or not _is(v, int):
            raise UnsupportedTypeError(f"{type(v).__name__} in an integer field",
                                       value=v, expected="int")
        return write(cls(v))
    return encode


def _exact_float(v: int) -> float:
    try:
        x = float(v)
    except OverflowError:
        x = None
    if x is None or int(x) != v:
        raise EncodeError("integer does not convert to float64 exactly",
                          value=v, expected="an int a float64 holds exactly")
    return x


def _float64_field(w: Writers, field_type: str) -> Writer:
    def encode(v: Any) -> bytes:
        if v is None:
            return SEP
        if _is(v, float):
            return w.float64(float.__float__(v))  # a subclass's own value, not __float__
        if type(v) is not bool and _is(v, int):
            return w.float64(_exact_float(int.__index__(v)))
        raise UnsupportedTypeError(f"{type(v).__name__} in a float64 field", value=v,
                                   expected="float, Float32 or an exact int")
    return encode


def _float32_field(w: Writers, field_type: str) -> Writer:
    def encode(v: Any) -> bytes:
        if v is None:
            return SEP
        if type(v) is bool or not _is(v, (int, float)):
            raise UnsupportedTypeError(f"{type(v).__name__} in a float32 field",
                                       value=v, expected="Float32, float or int")
        # a Float32 is taken by its value; anything else rounds to binary32 (a subclass is
        # read as its plain type first: Float32() would call its __abs__ or __float__)
        v = plain_value(v)
        return w.float32(v if type(v) is Float32 else Float32(v))
    return encode


#: the other field types: (accepts, writer name, what is expected)
_PLAIN_FIELDS: Final[dict[str, tuple[Callable[[Any], bool], str, str]]] = {
    "string": (lambda v: _is(v, str), "text", "str"),
    "bytes": (lambda v: _is(v, (bytes, bytearray, memoryview)), "raw", "bytes"),
    "bool": (lambda v: type(v) is bool, "bool", "bool"),
    "uuid": (lambda v: _is(v, uuid.UUID), "uuid", "uuid.UUID"),
    "timestamp": (lambda v: _is(v, _dt.datetime), "instant", "an aware datetime"),
    "duration": (lambda v: _is(v, _dt.timedelta), "duration", "timedelta"),
}


def _plain_field(w: Writers, field_type: str) -> Writer:
    accepts, name, expected = _PLAIN_FIELDS[field_type]
    write = w.named[name]

    def encode(v: Any) -> bytes:
        if v is None:
            return SEP
        if not accepts(v):
            raise UnsupportedTypeError(f"{type(v).__name__} in a {field_type} field",
                                       value=v, expected=expected)
        return write(plain_value(v))
    return encode


#: field type -> factory(writers, field type) -> encoder of one value (None is 00)
FIELD_ENCODERS: Final[dict[str, Callable[[Writers, str], Writer]]] = {
    **{t: _int_field for t in ("int8", "int16", "int32", "int64", "int", "uint8", "uint16",
                               "uint32", "uint64")},
    "float64": _float64_field,
    "float32": _float32_field,
    **{t: _plain_field for t in _PLAIN_FIELDS},
}
