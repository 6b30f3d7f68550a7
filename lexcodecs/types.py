"""The value model: typed integer widths, binary32 floats, versionstamps and the END and
INFINITY sentinels.

Theory of operation: lexcodecs takes plain Python values (``int``, ``float``, ``str`` ...).
Formats that write integers at a chosen width (LexKey) or floats in 32 bits (FoundationDB
code 0x20) need to know the width, and a plain ``int`` cannot say it. The wrappers here are
subclasses of ``int`` and ``float``: they *are* their plain values (``Int32(5) == 5``, same
hash, usable anywhere an ``int`` is), and carry the width in their type. Codecs dispatch on
``type(value)`` through dicts, so each wrapper is a distinct key there.

Every wrapper checks its range when it is built. Nothing is wrapped or truncated: ``Int8(200)``
and ``Int8(1.5)`` are refused. ``Float32`` rounds to the nearest binary32 value, as a C cast
does (including overflow to ±inf), and keeps the exact 32 bits so NaN payloads survive.
"""

from __future__ import annotations

import functools
import math
import operator
import struct
from typing import Any, ClassVar, Final, Self

from .errors import EncodeError, UnsupportedTypeError

__all__ = [
    "END",
    "INFINITY",
    "INT_TYPES",
    "UNDEFINED",
    "WIDE_INT_TYPES",
    "EndSentinel",
    "Float32",
    "InfinitySentinel",
    "Int8",
    "Int16",
    "Int32",
    "Int64",
    "Int128",
    "Some",
    "TypedInt",
    "UInt8",
    "UInt16",
    "UInt32",
    "UInt64",
    "UInt128",
    "UndefinedSentinel",
    "Versionstamp",
]


class TypedInt(int):
    """Base of the fixed-width integers. Subclasses set ``bits`` and ``signed``."""

    __slots__ = ()
    bits: ClassVar[int] = 0
    signed: ClassVar[bool] = True
    min: ClassVar[int] = 0
    max: ClassVar[int] = 0
    type_name: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.signed:
            cls.min, cls.max = -(1 << (cls.bits - 1)), (1 << (cls.bits - 1)) - 1
        else:
            cls.min, cls.max = 0, (1 << cls.bits) - 1
        cls.type_name = ("int" if cls.signed else "uint") + str(cls.bits)

    def __new__(cls, value: Any = 0) -> TypedInt:
        if type(value) is bool or isinstance(value, float):
            # bool is an int and int(1.5) truncates: both would hide a caller's mistake
            raise UnsupportedTypeError(
                f"{cls.__name__} takes an integer, not {type(value).__name__}",
                value=value, expected="int")
        try:
            number = operator.index(value)
        except TypeError:
            raise UnsupportedTypeError(
                f"{cls.__name__} takes an integer, not {type(value).__name__}",
                value=value, expected="int") from None
        if not cls.min <= number <= cls.max:
            raise EncodeError(f"out of range for {cls.__name__}", value=number,
                              expected=f"{cls.min}..{cls.max}")
        return super().__new__(cls, number)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({int(self)})"

    # str(), format() and f-strings show the plain number, as they do for an int
    __str__ = int.__repr__

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (int(self),))


class Int8(TypedInt):
    """A signed 8-bit integer: ``Int8(-5) == -5``."""

    __slots__ = ()
    bits, signed = 8, True


class Int16(TypedInt):
    """A signed 16-bit integer."""

    __slots__ = ()
    bits, signed = 16, True


class Int32(TypedInt):
    """A signed 32-bit integer."""

    __slots__ = ()
    bits, signed = 32, True


class Int64(TypedInt):
    """A signed 64-bit integer."""

    __slots__ = ()
    bits, signed = 64, True


class UInt8(TypedInt):
    """An unsigned 8-bit integer."""

    __slots__ = ()
    bits, signed = 8, False


class UInt16(TypedInt):
    """An unsigned 16-bit integer."""

    __slots__ = ()
    bits, signed = 16, False


class UInt32(TypedInt):
    """An unsigned 32-bit integer."""

    __slots__ = ()
    bits, signed = 32, False


class UInt64(TypedInt):
    """An unsigned 64-bit integer: the only way to give LexKey a value ≥ 2**63."""

    __slots__ = ()
    bits, signed = 64, False


class Int128(TypedInt):
    """A signed 128-bit integer (Rust's ``i128``)."""

    __slots__ = ()
    bits, signed = 128, True


class UInt128(TypedInt):
    """An unsigned 128-bit integer (Rust's ``u128``)."""

    __slots__ = ()
    bits, signed = 128, False


#: Field type name -> wrapper class, e.g. ``INT_TYPES["uint16"] is UInt16``.
INT_TYPES: Final[dict[str, type[TypedInt]]] = {
    cls.type_name: cls for cls in (Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64)
}
#: The 128-bit widths, apart: the codecs that spread ``INT_TYPES`` into what they accept
#: (fdb-tuple, sqlite4, lexkey) must not take them by accident, and only the Rust formats
#: know them (memcomparable writes them, storekey refuses them).
WIDE_INT_TYPES: Final[dict[str, type[TypedInt]]] = {
    cls.type_name: cls for cls in (Int128, UInt128)
}

_F32 = struct.Struct(">f")
_U32 = struct.Struct(">I")
_F64 = struct.Struct(">d")
_U64 = struct.Struct(">Q")


def _f32_bits(value: float) -> int:
    """The binary32 bits of *value* rounded to nearest, as ``(float)value`` in C."""
    if value != value:
        # C casts quiet the NaN and keep the top 22 payload bits; do it by hand so the result
        # does not depend on the platform's conversion instruction
        d = int(_U64.unpack(_F64.pack(value))[0])
        return ((d >> 32) & 0x80000000) | 0x7FC00000 | ((d >> 29) & 0x003FFFFF)
    try:
        return int(_U32.unpack(_F32.pack(value))[0])
    except OverflowError:  # struct refuses what the cast turns into ±inf
        return 0xFF800000 if value < 0 else 0x7F800000


def _int_to_f32_float(value: int) -> float:
    """*value* rounded once to binary32 (nearest, ties to even), as a float; ±inf on overflow.

    ``float(value)`` would round to binary64 first, and rounding twice can land on a
    binary32 midpoint and go the wrong way (``2**53 + 2**29 + 1``).
    """
    magnitude = abs(value)
    extra = magnitude.bit_length() - 24
    if extra > 0:
        kept, rest = magnitude >> extra, magnitude & ((1 << extra) - 1)
        half = 1 << (extra - 1)
        if rest > half or (rest == half and kept & 1):
            kept += 1
        magnitude = kept << extra
    try:
        result = float(magnitude)  # exact: at most 25 significant bits
    except OverflowError:
        result = math.inf
    return -result if value < 0 else result


def _f32_value(bits: int) -> float:
    if bits & 0x7F800000 == 0x7F800000 and bits & 0x007FFFFF:
        # widen the NaN by hand: sign, quiet/payload bits shifted into the double's mantissa
        d = ((bits & 0x80000000) << 32) | 0x7FF0000000000000 | ((bits & 0x007FFFFF) << 29)
        return float(_F64.unpack(_U64.pack(d))[0])
    return float(_F32.unpack(_U32.pack(bits))[0])


class Float32(float):
    """A float holding a binary32 value: the argument rounded to nearest, overflow to ±inf.

    It is a ``float`` (``Float32(0.5) == 0.5``) whose value is exactly representable in 32
    bits. ``bits`` holds the 32-bit pattern, so a NaN read from a key re-encodes with its
    payload; :meth:`from_bits` builds one from a pattern.

    >>> Float32(0.1)
    Float32(0.10000000149011612)
    >>> Float32(1e39)
    Float32(inf)
    >>> hex(Float32.from_bits(0x7FA00001).bits)
    '0x7fa00001'
    """

    __slots__ = ("bits",)
    bits: int

    def __new__(cls, value: Any = 0.0) -> Float32:
        if type(value) is bool:
            raise UnsupportedTypeError("Float32 takes a number, not bool", value=value,
                                       expected="float or int")
        if isinstance(value, Float32):
            return cls.from_bits(value.bits)
        if isinstance(value, (str, bytes, bytearray, memoryview)):
            # float() would parse them; Float32 takes numbers only, as the int wrappers do
            raise UnsupportedTypeError(
                f"Float32 takes a number, not {type(value).__name__}", value=value,
                expected="float or int")
        if isinstance(value, int):
            return cls.from_bits(_f32_bits(_int_to_f32_float(value)))
        try:
            as_float = float(value)
        except (TypeError, ValueError):
            raise UnsupportedTypeError(
                f"Float32 takes a number, not {type(value).__name__}", value=value,
                expected="float or int") from None
        except OverflowError:  # an int too large for a double is also too large for binary32
            as_float = math.inf if value > 0 else -math.inf
        return cls.from_bits(_f32_bits(as_float))

    @classmethod
    def from_bits(cls, bits: int) -> Float32:
        """The ``Float32`` with this 32-bit IEEE pattern (NaN payloads kept)."""
        if not 0 <= bits <= 0xFFFFFFFF:
            raise EncodeError("not a 32-bit pattern", value=bits, expected="0..0xFFFFFFFF")
        self = super().__new__(cls, _f32_value(bits))
        self.bits = bits
        return self

    @staticmethod
    def is_exact(value: float) -> bool:
        """True when *value* is a binary32 value already (NaN and ±inf count as exact)."""
        if value != value:
            return True
        return _f32_value(_f32_bits(value)) == value

    def __repr__(self) -> str:
        return f"Float32({float(self)!r})"

    # str(), format() and f-strings show the plain number, as they do for a float
    __str__ = float.__repr__

    def __reduce__(self) -> tuple[Any, ...]:
        return (Float32.from_bits, (self.bits,))


class _Sentinel:
    """A value of its own kind with one instance, named by the module-level constant that
    holds it: it pickles (by that name) and copies to itself, and has no attributes."""

    __slots__ = ()
    #: the constant's name in this module, what repr shows and pickle stores
    NAME: ClassVar[str]
    #: the one instance, set on each subclass when first made
    _instance: ClassVar[Any] = None

    def __new__(cls) -> Self:
        if cls.__dict__.get("_instance") is None:  # this class's own, not a base's
            cls._instance = super().__new__(cls)
        instance: Self = cls._instance
        return instance

    def __repr__(self) -> str:
        return self.NAME

    def __reduce__(self) -> str:
        return self.NAME

    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: object) -> Self:
        return self


class EndSentinel(_Sentinel):
    """The LexKey end sentinel: a part that encodes as ``ff``, above every other part.
    Its one instance is :data:`END`."""

    __slots__ = ()
    NAME = "END"


END: Final = EndSentinel()


class InfinitySentinel(_Sentinel):
    """Google orderedcode's ``Infinity``: a string-field value above every string. Its one
    instance is :data:`INFINITY`."""

    __slots__ = ()
    NAME = "INFINITY"


INFINITY: Final = InfinitySentinel()


class UndefinedSentinel(_Sentinel):
    """JavaScript's ``undefined``: a value of its own in the JS key formats (``None`` is JS
    ``null``), sorting after every other value in bytewise and charwise. Its one instance
    is :data:`UNDEFINED`."""

    __slots__ = ()
    NAME = "UNDEFINED"


UNDEFINED: Final = UndefinedSentinel()


class Some:
    """Rust's ``Some(...)`` where ``None`` alone cannot say it: in an ``Option<Option<T>>``
    field, ``Some(None)`` is the inner ``None`` (present, holding nothing) and ``None`` the
    outer one. A value that is present at every level is written plainly (``7``, not
    ``Some(Some(7))``): ``Some`` wraps only ``None`` or another ``Some``, so each value has
    one form, and the Rust codecs refuse any other.

    >>> Some(None), Some(Some(None)) == Some(Some(None)), Some(None) == None
    (Some(None), True, False)
    """

    __slots__ = ("value",)
    value: Any

    def __init__(self, value: Any) -> None:
        object.__setattr__(self, "value", value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Some is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Some is immutable: cannot delete {name!r}")

    @property
    def depth(self) -> int:
        """How many ``Some`` wrap the innermost value: 1 for ``Some(None)``."""
        depth, value = 1, self.value
        while type(value) is Some:
            depth, value = depth + 1, value.value
        return depth

    def __eq__(self, other: object) -> bool:
        if type(other) is not Some:
            return NotImplemented
        return bool(self.value == other.value) and type(self.value) is type(other.value)

    def __hash__(self) -> int:
        return hash((Some, self.value))

    def __repr__(self) -> str:
        return f"Some({self.value!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Some, (self.value,))


@functools.total_ordering
class Versionstamp:
    """A FoundationDB versionstamp: 10 bytes of transaction version and a 16-bit user version.

    ``tr_version=None`` is an *incomplete* stamp, filled in by the database at commit.

    >>> Versionstamp(b"\\x00" * 10, 5).is_complete()
    True
    >>> Versionstamp(user_version=3).is_complete()
    False
    """

    __slots__ = ("tr_version", "user_version")
    LENGTH: ClassVar[int] = 12
    tr_version: bytes | None
    user_version: int

    def __init__(self, tr_version: bytes | None = None, user_version: int = 0) -> None:
        if tr_version is not None:
            if not isinstance(tr_version, (bytes, bytearray, memoryview)):
                raise UnsupportedTypeError("transaction version must be bytes",
                                           value=tr_version, expected="10 bytes or None")
            tr_version = bytes(tr_version)
            if len(tr_version) != 10:
                raise EncodeError("transaction version must be 10 bytes long",
                                  value=tr_version, expected="10 bytes")
        if type(user_version) is bool or not isinstance(user_version, int):
            raise UnsupportedTypeError("user version must be an int", value=user_version,
                                       expected="0..65535")
        if not 0 <= user_version <= 0xFFFF:
            raise EncodeError("user version out of range", value=user_version,
                              expected="0..65535")
        object.__setattr__(self, "tr_version", tr_version)
        object.__setattr__(self, "user_version", int(user_version))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Versionstamp is immutable")

    @classmethod
    def incomplete(cls, user_version: int = 0) -> Versionstamp:
        """An incomplete stamp, as ``fdb.tuple.Versionstamp.incomplete``."""
        return cls(None, user_version)

    def is_complete(self) -> bool:
        return self.tr_version is not None

    def to_bytes(self) -> bytes:
        """The 12 bytes as written in a key (``ff`` * 10 for an incomplete stamp)."""
        tr = self.tr_version if self.tr_version is not None else b"\xff" * 10
        return tr + self.user_version.to_bytes(2, "big")

    @classmethod
    def from_bytes(cls, data: bytes) -> Versionstamp:
        """Read 12 bytes; all-``ff`` transaction bytes mean incomplete, as FoundationDB reads."""
        if len(data) != 12:
            raise EncodeError("a versionstamp is 12 bytes", value=data, expected="12 bytes")
        tr = bytes(data[:10])
        return cls(None if tr == b"\xff" * 10 else tr, int.from_bytes(data[10:], "big"))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Versionstamp):
            return NotImplemented
        return self.tr_version == other.tr_version and self.user_version == other.user_version

    def __lt__(self, other: Versionstamp) -> bool:
        if not isinstance(other, Versionstamp):
            return NotImplemented
        return self.to_bytes() < other.to_bytes()

    def __hash__(self) -> int:
        return hash((Versionstamp, self.tr_version, self.user_version))

    def __repr__(self) -> str:
        tr = "None" if self.tr_version is None else repr(self.tr_version)
        return f"Versionstamp({tr}, {self.user_version})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Versionstamp, (self.tr_version, self.user_version))
