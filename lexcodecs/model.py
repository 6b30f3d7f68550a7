"""The natural order of key values, written without any codec.

Theory of operation: the harness never derives the expected order by encoding. Instead each
key is mapped to a Python tuple whose ordinary comparison *is* the natural order, built field
by field from the schema:

* NULL is ``(0,)`` when it sits first in the final order and ``(2,)`` when last; any value is
  ``(1, k)``, so NULL placement is independent of direction, as SQL's NULLS FIRST/LAST are;
* Rust's nested ``Option`` (:class:`~lexcodecs.types.Some`): ``Some(None)`` sits between NULL
  and the values, ``Some(Some(None))`` nearer the values, so ``(0.5, depth)`` beside a NULL
  first and ``(1.5, -depth)`` beside a NULL last;
* a descending field wraps ``k`` in :class:`Desc`, which reverses comparisons;
* ``k`` is the value's own order: code points for strings, unsigned bytes for bytes and UUIDs,
  exact integers for instants and durations, and for numbers a rank plus the exact value.

Numbers follow the codec's :class:`~lexcodecs.codec.FloatPolicy` on top of IEEE total order
(-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN): NaN may be refused, kept with its
payload (``total``), or be a single value below -inf or above +inf; -0.0 may be distinct or
zero; and a float may compare with ints and Decimals exactly or as the decimal of its repr.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import math
import struct
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from .codec import FloatPolicy
from .schema import Field, KeySchema
from .types import END, EndSentinel, Float32, Some

__all__ = [
    "Desc",
    "ModelError",
    "field_key",
    "identical",
    "key_function",
    "model_equal",
    "natural_key",
    "value_key",
]

_EPOCH: Final = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_US: Final = _dt.timedelta(microseconds=1)
_D = struct.Struct(">d")
_Q = struct.Struct(">Q")

#: the policy used when none is given: NaN refused, -0.0 < +0.0, exact comparisons
DEFAULT_POLICY: Final = FloatPolicy()

# ranks of number keys: NaN-below, -inf, finite, +inf, NaN-above
_NAN_LOW, _NEG_INF, _FINITE, _POS_INF, _NAN_HIGH = range(5)


class ModelError(ValueError):
    """A value the model has no order for (a type it does not know, or NaN where refused)."""


class Desc:
    """Reverses the comparison of the wrapped key (for descending fields)."""

    __slots__ = ("key",)

    def __init__(self, key: Any) -> None:
        self.key = key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Desc) and self.key == other.key

    def __lt__(self, other: Desc) -> bool:
        return bool(other.key < self.key)

    def __le__(self, other: Desc) -> bool:
        return bool(other.key <= self.key)

    def __gt__(self, other: Desc) -> bool:
        return bool(other.key > self.key)

    def __ge__(self, other: Desc) -> bool:
        return bool(other.key >= self.key)

    def __hash__(self) -> int:
        return hash(("desc", self.key))

    def __repr__(self) -> str:
        return f"Desc({self.key!r})"


def _float_bits(value: float) -> int:
    if isinstance(value, Float32) and value != value:
        # widen by hand: a binary32 NaN keeps its payload, and so its place in total order
        b = value.bits
        return ((b & 0x80000000) << 32) | 0x7FF0000000000000 | ((b & 0x007FFFFF) << 29)
    return int(_Q.unpack(_D.pack(value))[0])


def _number_key(value: Any, policy: FloatPolicy) -> tuple[Any, ...]:
    if isinstance(value, float):
        if value != value:
            if policy.nan == "refuse":
                raise ModelError("NaN is refused by this codec's float policy")
            if policy.nan == "lowest":
                return (_NAN_LOW,)
            if policy.nan == "highest":
                return (_NAN_HIGH,)
            bits = _float_bits(value)
            magnitude = bits & 0x7FFFFFFFFFFFFFFF
            return (_NAN_LOW, -magnitude) if bits >> 63 else (_NAN_HIGH, magnitude)
        if value == math.inf:
            return (_POS_INF,)
        if value == -math.inf:
            return (_NEG_INF,)
        negative_zero = value == 0.0 and math.copysign(1.0, value) < 0
        zero_rank = -1 if negative_zero and policy.negative_zero == "distinct" else 0
        exact: Any = decimal.Decimal(repr(float(value))) if policy.compare == "repr" else value
        return (_FINITE, exact, zero_rank)
    if isinstance(value, decimal.Decimal):
        if value.is_snan():
            raise ModelError("signalling NaN has no order")
        if value.is_nan():
            if policy.nan in ("refuse", "total"):
                raise ModelError("Decimal NaN has no order under this float policy")
            return (_NAN_LOW,) if policy.nan == "lowest" else (_NAN_HIGH,)
        if value.is_infinite():
            return (_POS_INF,) if value > 0 else (_NEG_INF,)
        return (_FINITE, value, 0)
    if isinstance(value, int) and not isinstance(value, bool):
        return (_FINITE, value, 0)
    raise ModelError(f"not a number: {type(value).__name__}")


def _bool_key(value: Any, policy: FloatPolicy) -> Any:
    if type(value) is not bool:
        raise ModelError(f"not a bool: {type(value).__name__}")
    return int(value)


def _str_key(value: Any, policy: FloatPolicy) -> Any:
    if not isinstance(value, str):
        raise ModelError(f"not a str: {type(value).__name__}")
    return value  # code point order, which is also UTF-8 byte order


def _bytes_key(value: Any, policy: FloatPolicy) -> Any:
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise ModelError(f"not bytes: {type(value).__name__}")
    return bytes(value)


def _uuid_key(value: Any, policy: FloatPolicy) -> Any:
    if not isinstance(value, uuid.UUID):
        raise ModelError(f"not a UUID: {type(value).__name__}")
    return value.bytes


def _timestamp_key(value: Any, policy: FloatPolicy) -> Any:
    if not isinstance(value, _dt.datetime) or value.utcoffset() is None:
        raise ModelError("not an aware datetime")
    return (value - _EPOCH) // _US


def _duration_key(value: Any, policy: FloatPolicy) -> Any:
    if not isinstance(value, _dt.timedelta):
        raise ModelError(f"not a timedelta: {type(value).__name__}")
    return value // _US


def _char_key(value: Any, policy: FloatPolicy) -> Any:
    if type(value) is not str or len(value) != 1:
        raise ModelError(f"not one character: {value!r:.40}")
    return ord(value)


def _tuple_key(value: Any, policy: FloatPolicy) -> Any:
    raise ModelError("nested tuples have no format-independent order; test them per codec")


#: field type -> function(value, policy) giving the comparable key of a non-NULL value
VALUE_KEYS: Final[Mapping[str, Callable[[Any, FloatPolicy], Any]]] = {
    "string": _str_key,
    "bytes": _bytes_key,
    "bool": _bool_key,
    **{t: _number_key for t in ("int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "int", "int128", "uint128", "variant",
                                "float32", "float64", "decimal")},
    "char": _char_key,
    "uuid": _uuid_key,
    "timestamp": _timestamp_key,
    "duration": _duration_key,
    "tuple": _tuple_key,
}


def value_key(value: Any, field_type: str, policy: FloatPolicy = DEFAULT_POLICY) -> Any:
    """The comparable key of one non-NULL value of *field_type*.

    The LexKey end sentinel ``END`` is above every value of every type.
    """
    if value is END or isinstance(value, EndSentinel):
        return (9,)
    return (1, VALUE_KEYS[field_type](value, policy))


def field_key(value: Any, field: Field, policy: FloatPolicy = DEFAULT_POLICY) -> tuple[Any, ...]:
    """The comparable key of one field's value, NULL placement and direction included."""
    if value is None:
        return (0,) if field.effective_nulls == "first" else (2,)
    if type(value) is Some:
        return _some_key(value, field)
    key = value_key(value, field.type, policy)
    return (1, Desc(key) if field.descending else key)


def _some_key(value: Some, field: Field) -> tuple[Any, ...]:
    inner: Any = value
    while type(inner) is Some:
        inner = inner.value
    if inner is not None:
        raise ModelError(f"Some wraps only None or another Some, not {inner!r:.40}")
    return (0.5, value.depth) if field.effective_nulls == "first" else (1.5, -value.depth)


def natural_key(values: Sequence[Any], schema: KeySchema,
                policy: FloatPolicy = DEFAULT_POLICY) -> tuple[Any, ...]:
    """The comparable key of a whole key (or of a prefix of one).

    >>> s = KeySchema.parse("name:string, ts:int64 desc nulls first")
    >>> sorted([("b", 1), ("a", 1), ("a", 2), ("a", None)],
    ...        key=lambda v: natural_key(v, s))
    [('a', None), ('a', 2), ('a', 1), ('b', 1)]
    """
    if len(values) > len(schema):
        raise ModelError(f"{len(values)} values for a schema of {len(schema)} fields")
    return tuple(field_key(v, f, policy) for v, f in zip(values, schema.fields))


_INT_FIELD_TYPES: Final = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16",
                                     "uint32", "uint64", "int", "int128", "uint128",
                                     "variant"})


def _fast_field_key(field: Field, policy: FloatPolicy) -> Callable[[Any], tuple[Any, ...]]:
    """:func:`field_key` for one field, with its usual case (exact str, bytes or int) read
    without dispatch; the result is the same tuple."""
    null = (0,) if field.effective_nulls == "first" else (2,)
    exact: type | None = {"string": str, "bytes": bytes}.get(field.type)
    is_int = field.type in _INT_FIELD_TYPES
    desc = field.descending

    def key(v: Any) -> tuple[Any, ...]:
        if v is None:
            return null
        t = type(v)
        if t is exact:
            inner: Any = (1, v)
        elif is_int and t is int:
            inner = (1, (_FINITE, v, 0))
        else:
            return field_key(v, field, policy)
        return (1, Desc(inner)) if desc else (1, inner)
    return key


def key_function(schema: KeySchema, policy: FloatPolicy = DEFAULT_POLICY
                 ) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """``natural_key(values, schema, policy)`` as one function per schema: the same keys,
    several times faster, for code that orders many rows (``compare``, ``migrate``).

    >>> s = KeySchema.parse("name:string, n:int64 desc")
    >>> key_function(s)(("a", 1)) == natural_key(("a", 1), s)
    True
    """
    keys = [_fast_field_key(f, policy) for f in schema.fields]
    n = len(keys)

    def natural(values: Sequence[Any]) -> tuple[Any, ...]:
        if len(values) > n:
            raise ModelError(f"{len(values)} values for a schema of {n} fields")
        return tuple([k(v) for k, v in zip(keys, values)])
    return natural


def model_equal(a: Sequence[Any], b: Sequence[Any], schema: KeySchema,
                policy: FloatPolicy = DEFAULT_POLICY) -> bool:
    """True when two keys are the same point of the natural order."""
    return len(a) == len(b) and natural_key(a, schema, policy) == natural_key(b, schema, policy)


def identical(expected: Any, got: Any) -> bool:
    """*got* (a decoded value) is exactly *expected*: the same types, floats compared by their
    bits (so NaN payloads and -0.0 count), lists as the tuples a decoder gives back.

    Stricter than the model's equality, which compares by place in the order; for
    differential tests against a reference implementation.

    >>> identical((1.0, [None]), (1.0, (None,)))
    True
    >>> identical((-0.0,), (0.0,)), identical((1,), (True,))
    (False, False)
    """
    a, b = expected, got
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, Float32) or isinstance(b, Float32):
        return type(a) is Float32 and type(b) is Float32 and a.bits == b.bits
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, float) and type(b) is float and _D.pack(a) == _D.pack(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is bool and type(b) is bool and a == b
    if isinstance(a, int):
        return type(b) is int and a == b
    if isinstance(a, (tuple, list)):
        return (type(b) is tuple and len(a) == len(b)
                and all(identical(x, y) for x, y in zip(a, b)))
    if isinstance(a, (bytes, bytearray, memoryview)):
        return type(b) is bytes and bytes(a) == b
    if isinstance(a, str):
        return type(b) is str and a == b
    return type(a) is type(b) and bool(a == b)
