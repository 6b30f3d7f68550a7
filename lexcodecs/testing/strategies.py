"""Hypothesis strategies for field values, whole keys and batches, shaped by capabilities.

Theory of operation: ordering bugs hide where keys are *almost* equal: one string a prefix of
another, a ``00`` or ``ff`` byte inside a value, ints at a width's edge, -0.0 next to +0.0,
equal leading fields that push the comparison into a later field. So every strategy mixes
uniform values with a small alphabet of troublemakers, and :func:`batches` draws keys whose
fields come from small shared pools, so that many keys tie on their first fields.

What is generated follows the codec's :class:`~lexcodecs.codec.Capabilities`: no NULL where it
has none, no NaN where it refuses NaN, no U+0000 in strings where it refuses it, ints inside
``int_range``. A codec with narrower values than its capabilities can say (a fixed-length
bytes field, say) passes its own strategy per field name or per type as an *override*.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import functools
import math
import struct
from collections.abc import Mapping, Sequence
from typing import Any, Final

from hypothesis import strategies as st

from ..codec import Capabilities
from ..schema import FIELD_TYPES, Field, KeySchema
from ..types import INT_TYPES, WIDE_INT_TYPES, Float32, Some

__all__ = [
    "GENERATED_TYPES",
    "Overrides",
    "batches",
    "junk_keys",
    "keys",
    "neighbour_pairs",
    "prefixes",
    "values_for",
]

#: the field types :func:`values_for` draws values of by itself; any other ("tuple": nested
#: order is format-specific) needs an override
GENERATED_TYPES: Final = tuple(t for t in FIELD_TYPES if t != "tuple")

#: per field name (checked first) or per field type: the strategy to use for its non-NULL values
Overrides = Mapping[str, st.SearchStrategy[Any]]

_EPOCH: Final = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
#: instants and durations within signed 64-bit nanoseconds, in whole microseconds
_US_MIN: Final = -(2**63) // 1000 + 1
_US_MAX: Final = (2**63 - 1) // 1000
_D = struct.Struct(">d")
_Q = struct.Struct(">Q")

_TRICKY_CHARS: Final = ["a", "b", " ", "\x00", "\x01", "\x7f", "\xff", "é", "\u0100", "\uffff",
                        "\U0001f600", "\U0010ffff"]
_TRICKY_BYTES: Final = [b"\x00", b"\x01", b"\xfe", b"\xff", b"a", b"\x00\xff", b"\x00\x01"]


def _text(caps: Capabilities) -> st.SearchStrategy[str]:
    # whole-string strategies (not one_of per character) let hypothesis draw a string in one
    # step, which is many times faster to generate and to shrink
    tricky = "".join(c for c in _TRICKY_CHARS if caps.text_nul or c != "\x00")
    uniform = st.characters(blacklist_categories=["Cs"],
                            blacklist_characters="" if caps.text_nul else "\x00")
    return st.one_of(st.text(tricky, max_size=6), st.text(uniform, max_size=8))


def _bytes() -> st.SearchStrategy[bytes]:
    tricky = st.lists(st.sampled_from(_TRICKY_BYTES), max_size=3).map(b"".join)
    return st.one_of(tricky, st.binary(max_size=10))


def _bits_to_float(bits: int) -> float:
    return float(_D.unpack(_Q.pack(bits))[0])


def _float64(caps: Capabilities) -> st.SearchStrategy[float]:
    allow_nan = caps.float_policy.nan != "refuse"
    edges = st.sampled_from([0.0, -0.0, math.inf, -math.inf, 5e-324, -5e-324,
                             1.7976931348623157e308, -1.7976931348623157e308, 1.0, -1.0])
    plain = st.floats(allow_nan=False)
    parts: list[st.SearchStrategy[float]] = [edges, plain]
    if allow_nan:
        # every NaN bit pattern, both signs, quiet and signalling, with payloads
        nan_bits = st.tuples(st.booleans(), st.integers(1, 2**52 - 1)).map(
            lambda sp: (sp[0] << 63) | 0x7FF0000000000000 | sp[1])
        parts.append(nan_bits.map(_bits_to_float))
    return st.one_of(*parts)


def _float32(caps: Capabilities) -> st.SearchStrategy[Float32]:
    allow_nan = caps.float_policy.nan != "refuse"
    bits = st.integers(0, 2**32 - 1)
    if not allow_nan:
        bits = bits.filter(lambda b: (b & 0x7F800000) != 0x7F800000 or not b & 0x007FFFFF)
    edges = st.sampled_from([0.0, -0.0, math.inf, -math.inf, 1.0, -1.0, 1.401298464324817e-45])
    return st.one_of(bits.map(Float32.from_bits), edges.map(Float32),
                     st.floats(width=32, allow_nan=False).map(Float32))


def _decimal() -> st.SearchStrategy[decimal.Decimal]:
    digits = st.lists(st.integers(0, 9), min_size=1, max_size=20).map(tuple)
    return st.builds(lambda s, d, e: decimal.Decimal((s, d, e)),
                     st.integers(0, 1), digits, st.integers(-40, 40))


def _int(caps: Capabilities) -> st.SearchStrategy[int]:
    if caps.int_range is not None:
        lo, hi = caps.int_range
        return st.one_of(st.integers(lo, hi), st.sampled_from([lo, hi, 0, -1 if lo < 0 else 0]))
    return st.one_of(st.integers(), st.integers(-(2**200), 2**200))


def _char(caps: Capabilities) -> st.SearchStrategy[str]:
    # one Unicode scalar value: surrogates are not characters (Rust's char refuses them)
    tricky = [c for c in _TRICKY_CHARS if caps.text_nul or c != "\x00"]
    return st.one_of(st.sampled_from(tricky), st.characters(
        blacklist_categories=["Cs"], blacklist_characters="" if caps.text_nul else "\x00"))


#: the variant indexes every format takes (memcomparable writes one byte; a codec with a
#: wider index tests its own range)
_VARIANT: Final = st.one_of(st.integers(0, 255), st.sampled_from([0, 1, 255]))


def _typed_int(name: str) -> st.SearchStrategy[int]:
    cls = INT_TYPES.get(name) or WIDE_INT_TYPES[name]
    edges = sorted({cls.min, cls.max, 0, 1, min(max(-1, cls.min), cls.max), cls.min + 1,
                    cls.max - 1})
    return st.one_of(st.integers(cls.min, cls.max), st.sampled_from(edges))


def _timestamp() -> st.SearchStrategy[_dt.datetime]:
    return st.integers(_US_MIN, _US_MAX).map(
        lambda us: _EPOCH + _dt.timedelta(microseconds=us))


def _duration() -> st.SearchStrategy[_dt.timedelta]:
    return st.integers(_US_MIN, _US_MAX).map(lambda us: _dt.timedelta(microseconds=us))


def values_for(field: Field, caps: Capabilities, overrides: Overrides | None = None,
               *, nullable: bool | None = None) -> st.SearchStrategy[Any]:
    """Values of one field: its type's values, plus ``None`` when the codec has NULL.

    >>> from lexcodecs import Capabilities, Field
    >>> caps = Capabilities(field_types={"int8"}, decoding="schema", nulls="none")
    >>> strategy = values_for(Field("x", "int8"), caps)
    """
    overrides = overrides or {}
    override = overrides.get(field.name)
    if override is None:
        override = overrides.get(field.type)
    if nullable is None:
        nullable = caps.nulls != "none"
    values = _values_of(field.type, caps, override, nullable)
    layers = field.options.get("nullable")
    if nullable and type(layers) is int and layers > 1:
        # Rust's Option<Option<T>>: Some(None) (and deeper) between NULL and the values
        values = st.one_of(values, st.integers(1, layers - 1).map(_some_none))
    return values


def _some_none(depth: int) -> Some:
    value = Some(None)
    for _ in range(depth - 1):
        value = Some(value)
    return value


@functools.lru_cache(maxsize=2048)
def _values_of(field_type: str, caps: Capabilities, override: st.SearchStrategy[Any] | None,
               nullable: bool) -> st.SearchStrategy[Any]:
    """:func:`values_for` by what it depends on, made once: a strategy is immutable, and a new
    one is validated again on its first draw, which cost tests that draw a schema per example
    a fifth of their time."""
    base: st.SearchStrategy[Any]
    if override is not None:
        base = override
    elif field_type in INT_TYPES or field_type in WIDE_INT_TYPES:
        base = _typed_int(field_type)
    else:
        t = field_type
        table: dict[str, st.SearchStrategy[Any]] = {
            "string": _text(caps) if t == "string" else st.nothing(),
            "bytes": _bytes() if t == "bytes" else st.nothing(),
            "bool": st.booleans(),
            "int": _int(caps) if t == "int" else st.nothing(),
            "float64": _float64(caps) if t == "float64" else st.nothing(),
            "float32": _float32(caps) if t == "float32" else st.nothing(),
            "decimal": _decimal() if t == "decimal" else st.nothing(),
            "uuid": st.uuids(),
            "timestamp": _timestamp(),
            "duration": _duration(),
            "char": _char(caps) if t == "char" else st.nothing(),
            "variant": _VARIANT,
        }
        if t not in table:
            raise ValueError(f"no strategy for field type {t!r}; pass one in overrides")
        base = table[t]
    # one NULL in four: enough to test placement, not so many that values go unexercised
    return st.one_of(st.none(), base, base, base) if nullable else base


def _field_values(schema: KeySchema, caps: Capabilities, overrides: Overrides | None,
                  nullable: Sequence[bool] | None) -> list[st.SearchStrategy[Any]]:
    """One strategy per field; *nullable* (per field) narrows where NULL is drawn."""
    return [values_for(f, caps, overrides,
                       nullable=None if nullable is None or nullable[i] else False)
            for i, f in enumerate(schema.fields)]


def keys(schema: KeySchema, caps: Capabilities, overrides: Overrides | None = None, *,
         nullable: Sequence[bool] | None = None) -> st.SearchStrategy[tuple[Any, ...]]:
    """Whole keys of *schema*: one value per field.

    *nullable*, one flag per field, marks the fields that take no NULL even though the codec
    has NULL (Orderly's fixed-width ints, say); a bound codec tells it with its own
    ``nullable`` attribute, which :mod:`~lexcodecs.testing.conformance` passes on.
    """
    return st.tuples(*_field_values(schema, caps, overrides, nullable))


def prefixes(schema: KeySchema, caps: Capabilities, overrides: Overrides | None = None, *,
             nullable: Sequence[bool] | None = None) -> st.SearchStrategy[tuple[Any, ...]]:
    """Proper prefixes of keys of *schema*: the first 0 .. n-1 field values."""
    return st.tuples(keys(schema, caps, overrides, nullable=nullable),
                     st.integers(0, len(schema) - 1)).map(
        lambda key_and_length: key_and_length[0][:key_and_length[1]])


_POOL_PICK: Final = st.integers(0, 5)


def batches(schema: KeySchema, caps: Capabilities, overrides: Overrides | None = None, *,
            min_size: int = 2, max_size: int = 16, nullable: Sequence[bool] | None = None
            ) -> st.SearchStrategy[list[tuple[Any, ...]]]:
    """Lists of keys that tie often on leading fields (values come from small pools).

    Pair it with :func:`neighbour_pairs` to compare each key with its closest variants.
    """
    # strategies are built once here, not inside the draw: building them is what is slow
    fields = _field_values(schema, caps, overrides, nullable)
    pool_lists = [st.lists(s, min_size=1, max_size=3) for s in fields]
    sizes = st.integers(min_size, max_size)

    @st.composite
    def draw_batch(draw: st.DrawFn) -> list[tuple[Any, ...]]:
        pools = [draw(p) for p in pool_lists]
        rows = []
        for _ in range(draw(sizes)):
            row = []
            for pool, strategy in zip(pools, fields):
                pick = draw(_POOL_PICK)
                row.append(pool[pick] if pick < len(pool) else draw(strategy))
            rows.append(tuple(row))
        return rows

    return draw_batch()


def neighbour_pairs(batch: Sequence[tuple[Any, ...]], schema: KeySchema, caps: Capabilities,
                    overrides: Overrides | None = None) -> list[tuple[tuple[Any, ...],
                                                                     tuple[Any, ...]]]:
    """Each key paired with copies of itself that differ in one field by one step.

    A step is the value right next door: -x for a number (so -0.0 meets +0.0), x±1 for an
    int, x + "\\x00" or x[:-1] for a string. Collisions and misorderings hide there, and
    random keys almost never land that close. Deterministic, so shrinking stays cheap.
    """
    pairs = []
    for values in batch:
        for index, f in enumerate(schema.fields):
            for near in _neighbours(values[index], f.type):
                if _allowed(near, f, caps, overrides):
                    pairs.append((values, (*values[:index], near, *values[index + 1:])))
    return pairs


def _neighbours(value: Any, field_type: str) -> list[Any]:
    """Values right next to *value*: where off-by-one and sign bugs live."""
    if value is None or field_type in _NO_NEIGHBOURS:
        return []
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, Float32):
        return [Float32(-value)]
    if isinstance(value, float):
        return [-value, math.nextafter(value, math.inf), math.nextafter(value, -math.inf)]
    if isinstance(value, int) and (field_type in INT_TYPES or field_type in WIDE_INT_TYPES):
        cls = INT_TYPES.get(field_type) or WIDE_INT_TYPES[field_type]
        return [v for v in (value - 1, value + 1, -value) if cls.min <= v <= cls.max]
    if isinstance(value, int) and field_type == "variant":
        return [v for v in (value - 1, value + 1) if 0 <= v <= 255]  # every format's range
    if isinstance(value, str) and field_type == "char":
        # the code points next door, surrogates skipped (they are no characters)
        return [chr(c) for c in (ord(value) - 1, ord(value) + 1)
                if 0 <= c <= 0x10FFFF and not 0xD800 <= c <= 0xDFFF]
    if isinstance(value, int):
        return [value - 1, value + 1, -value]
    if isinstance(value, str):
        return [value + "\x00", value + "a", value + " ", value[:-1], value + "\U0010ffff"]
    if isinstance(value, bytes):
        return [value + b"\x00", value + b"\xff", value[:-1], value + b"\x00\xff"]
    if isinstance(value, decimal.Decimal) and value.is_finite():
        # one more digit and one less: digit strings that are prefixes of each other, where
        # a decimal format without a terminator goes wrong
        sign, digits, exponent = value.as_tuple()
        assert isinstance(exponent, int)
        out = [-value, decimal.Decimal((sign, (*digits, 5), exponent - 1))]
        if len(digits) > 1:
            out.append(decimal.Decimal((sign, digits[:-1], exponent + 1)))
        return out
    return []


#: types whose neighbours the generic rules do not know
_NO_NEIGHBOURS: Final = frozenset({"uuid", "timestamp", "duration", "tuple"})


def _allowed(value: Any, field: Field, caps: Capabilities, overrides: Overrides | None) -> bool:
    if overrides and (field.name in overrides or field.type in overrides):
        return False  # a custom strategy's values may be narrower than the type's
    if isinstance(value, float) and value != value and caps.float_policy.nan == "refuse":
        return False
    if isinstance(value, str) and "\x00" in value and not caps.text_nul:
        return False
    if isinstance(value, int) and field.type == "int" and caps.int_range is not None:
        return caps.int_range[0] <= value <= caps.int_range[1]
    return True


def junk_keys(schema: KeySchema, caps: Capabilities, encode: Any,
              overrides: Overrides | None = None, *,
              nullable: Sequence[bool] | None = None) -> st.SearchStrategy[bytes]:
    """Bytes that are not (quite) keys: random bytes, or a valid key cut, spliced or flipped."""
    kinds = st.sampled_from(["random", "truncate", "flip", "insert", "append", "delete"])
    whole = keys(schema, caps, overrides, nullable=nullable)
    junk = st.binary(max_size=40)
    tail = st.binary(min_size=1, max_size=4)
    byte_values = st.sampled_from([0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF]) | st.integers(0, 255)

    @st.composite
    def draw_junk(draw: st.DrawFn) -> bytes:
        kind = draw(kinds)
        if kind == "random":
            return draw(junk)
        try:
            key: bytes = encode(draw(whole))
        except Exception:
            return draw(junk)
        pos = draw(st.integers(0, len(key)))
        if kind == "truncate":
            return key[:pos]
        if kind == "append":
            return key + draw(tail)
        byte = draw(byte_values)
        if kind in ("flip", "delete") and key:
            pos = min(pos, len(key) - 1)
            if kind == "delete":
                return key[:pos] + key[pos + 1:]
            return key[:pos] + bytes((key[pos] ^ (byte or 1),)) + key[pos + 1:]
        return key[:pos] + bytes((byte,)) + key[pos:]

    return draw_junk()
