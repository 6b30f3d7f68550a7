"""The Codec protocol, capabilities, and the base class most codecs are built on.

Theory of operation: a codec turns a sequence of values into one key (``encode``), back
(``decode``), and gives the byte range of every key that extends a prefix of values
(``prefix_range``). A codec may work without a schema (self-describing formats), but the fast
path is ``bind(schema)``: the schema is checked against what the codec can express *once*, and
compiled into one plan per field (an encode function and a decode function). The bound object
then encodes with a single list comprehension and ``b"".join``.

:class:`Capabilities` is what the codec *claims*: its types, whether keys decode, null
placement, descending, injectivity, prefix-freeness, how floats order, and its declared
anomalies (places where byte order and value order knowingly disagree, each with a witness).
The conformance harness (``lexcodecs.testing``) checks every claim, and ``compare`` reads them.

:class:`Codec` is a ``typing.Protocol``: a plugin needs no base class. :class:`BaseCodec` is
the shared behaviour (option validation, schema checks, the bind cache, error context) for
codecs that want it.

The value readers the codecs share live here too: :func:`plain_value` (a subclass of a type
the codecs take, read as its plain type without calling anything it overrides),
:func:`plain_values` (a key's values as an exact tuple or list), :func:`as_key_bytes` (a key
given to a decoder; a released memoryview is a
:class:`~lexcodecs.errors.DecodeError`), :func:`buffer_value` and :func:`utf8_value`.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import difflib
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Final,
    Literal,
    Protocol,
    TypeVar,
    runtime_checkable,
)

import attrs

from . import _impl
from ._bytes import strinc
from .errors import (
    DecodeError,
    EncodeError,
    LexCodecError,
    NotDecodableError,
    OptionError,
    SchemaError,
    UnsupportedTypeError,
)
from .schema import FIELD_TYPES, Field, KeySchema
from .types import INT_TYPES, Float32, TypedInt, Versionstamp

if TYPE_CHECKING:
    from .pieces import CodecPieces

__all__ = [
    "Anomaly",
    "BaseCodec",
    "BoundCodec",
    "BoundKey",
    "Capabilities",
    "Codec",
    "FieldPlan",
    "FloatPolicy",
    "Option",
    "SchemaLike",
]

SchemaLike = KeySchema | str
B = TypeVar("B", bound="BoundKey")
_T = TypeVar("_T")
Decoding = Literal["self-describing", "schema", "none"]
NullSupport = Literal["first", "last", "both", "fixed", "none"]
NanPolicy = Literal["refuse", "total", "lowest", "highest"]
AnomalyKind = Literal["order", "collision", "prefix-leak", "round-trip", "interop"]

#: What each NULL-support mode means, for messages and docs.
NULL_SUPPORT: Mapping[str, str] = {
    "first": "NULL always sorts first",
    "last": "NULL always sorts last",
    "both": "NULL first or last, chosen per field",
    "fixed": "NULL is the lowest value: first ascending, last descending",
    "none": "no NULL",
}

#: How each NaN policy places NaN in the value order.
NAN_POLICIES: Mapping[str, str] = {
    "refuse": "NaN is refused",
    "total": "IEEE total order: -NaN below -inf, +NaN above +inf, payloads kept",
    "lowest": "every NaN is one value, below -inf",
    "highest": "every NaN is one value, above +inf",
}


@attrs.frozen
class FloatPolicy:
    """How a codec orders floats; the natural-order model applies it on top of IEEE order.

    ``nan``: see :data:`NAN_POLICIES`. ``negative_zero``: ``"distinct"`` (-0.0 just below
    +0.0) or ``"equal"`` (-0.0 is zero). ``compare``: how a float compares with an int or a
    Decimal in one numeric field, ``"exact"`` (by exact binary value) or ``"repr"`` (as the
    decimal of its shortest repr, so 0.1 == Decimal("0.1")).
    """

    nan: NanPolicy = attrs.field(default="refuse",
                                 validator=attrs.validators.in_(tuple(NAN_POLICIES)))
    negative_zero: Literal["distinct", "equal"] = attrs.field(
        default="distinct", validator=attrs.validators.in_(("distinct", "equal")))
    compare: Literal["exact", "repr"] = attrs.field(
        default="exact", validator=attrs.validators.in_(("exact", "repr")))

    def describe(self) -> str:
        zero = "-0.0 < +0.0" if self.negative_zero == "distinct" else "-0.0 == +0.0"
        return f"{NAN_POLICIES[self.nan]}; {zero}"


def _as_tuple(items: Any) -> tuple[Any, ...]:
    return tuple(items)


Explainer = Callable[[KeySchema | None, tuple[Any, ...], tuple[Any, ...]], bool]


@attrs.frozen
class Anomaly:
    """A declared place where a codec knowingly departs from the natural order.

    ``kind`` and ``witness`` say what happens, and the harness checks that it does:

    ``order``        ``witness=(a, b)``: a < b as values, but not as keys;
    ``collision``    ``witness=(a, b)``: different values, the same key;
    ``prefix-leak``  ``witness=(prefix, values)``: values do not extend prefix, yet their key
                     falls in ``prefix_range(prefix)``;
    ``round-trip``   ``witness=(values,)``: decoding the key does not give values back;
    ``interop``      no witness: a layout fact (for example bytes another reader cannot
                     read), shown by the codec's vectors.

    ``schema`` is the text form of the schema the witness is written in (``None``: no schema).
    ``explains(schema, a, b)`` says whether a disagreement the harness finds between keys
    ``a`` and ``b`` (for ``prefix-leak``: prefix and values; for ``round-trip``: the values
    and what decoded) is this anomaly; keep it as narrow as the anomaly is, because whatever it
    explains the harness does not report.
    """

    name: str
    kind: AnomalyKind = attrs.field(validator=attrs.validators.in_(
        ("order", "collision", "prefix-leak", "round-trip", "interop")))
    description: str
    witness: tuple[Any, ...] = attrs.field(default=(), converter=_as_tuple)
    schema: str | None = None
    explains: Explainer | None = attrs.field(default=None, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        wanted = {"order": 2, "collision": 2, "prefix-leak": 2, "round-trip": 1, "interop": 0}
        if len(self.witness) != wanted[self.kind]:
            raise ValueError(f"anomaly {self.name!r} of kind {self.kind!r} needs a witness of "
                             f"{wanted[self.kind]} item(s), got {len(self.witness)}")

    def applies(self, schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
        return self.explains is not None and bool(self.explains(schema, a, b))


def _frozen_types(value: Any) -> frozenset[str]:
    types = frozenset(value)
    unknown = types - set(FIELD_TYPES)
    if unknown:
        raise ValueError(f"unknown field types {sorted(unknown)}; expected {FIELD_TYPES}")
    return types


@attrs.frozen
class Capabilities:
    """What a codec claims about itself. The conformance harness checks each claim.

    * ``field_types``: the schema field types it can encode;
    * ``decoding``: ``"self-describing"`` (keys decode without a schema), ``"schema"`` (only
      with one) or ``"none"``;
    * ``schemaless``: ``encode`` works without a schema, choosing types from the values;
    * ``descending``: descending fields are supported;
    * ``nulls``: NULL placement, see :data:`NULL_SUPPORT`;
    * ``injective``: different values never share a key (within one schema);
    * ``prefix_free``: no key is a proper byte prefix of another key of the same schema;
    * ``float_policy``: see :class:`FloatPolicy`;
    * ``anomalies``: declared departures from the natural order, see :class:`Anomaly`;
    * ``int_range``: inclusive bounds of the arbitrary-size ``int`` type (``None``: unbounded);
    * ``text_nul``: strings may contain U+0000;
    * ``notes``: one line for people (compatibility with other readers, say);
    * ``readers``: the languages and systems that read the format, for people choosing one
      (``lexcodecs compare`` shows them); empty when the codec does not say.

    The repr fits on a screen: types by name, bounds of ``int_range`` as powers of two, and
    anomalies by name (``to_dict()`` has everything).
    """

    field_types: frozenset[str] = attrs.field(converter=_frozen_types)
    decoding: Decoding = attrs.field(
        validator=attrs.validators.in_(("self-describing", "schema", "none")))
    descending: bool = False
    nulls: NullSupport = attrs.field(default="fixed",
                                     validator=attrs.validators.in_(tuple(NULL_SUPPORT)))
    injective: bool = True
    prefix_free: bool = True
    schemaless: bool = False
    float_policy: FloatPolicy = FloatPolicy()
    anomalies: tuple[Anomaly, ...] = attrs.field(default=(), converter=_as_tuple)
    int_range: tuple[int, int] | None = None
    text_nul: bool = True
    notes: str = ""
    readers: tuple[str, ...] = attrs.field(default=(), converter=_as_tuple)

    def __repr__(self) -> str:
        types = ", ".join(t for t in FIELD_TYPES if t in self.field_types)
        parts = [f"field_types={{{types}}}", f"decoding={self.decoding!r}",
                 f"descending={self.descending}", f"nulls={self.nulls!r}",
                 f"injective={self.injective}", f"prefix_free={self.prefix_free}",
                 f"schemaless={self.schemaless}", f"nan={self.float_policy.nan!r}"]
        if self.int_range is not None:
            lo, hi = self.int_range
            parts.append(f"int_range={_bound_text(lo)}..{_bound_text(hi)}")
        if not self.text_nul:
            parts.append("text_nul=False")
        if self.anomalies:
            parts.append("anomalies=[" + ", ".join(a.name for a in self.anomalies) + "]")
        if self.readers:
            parts.append(f"readers={list(self.readers)!r}")
        return f"Capabilities({', '.join(parts)})"

    def anomaly(self, name: str) -> Anomaly:
        for a in self.anomalies:
            if a.name == name:
                return a
        raise KeyError(name)

    def explained(self, kinds: Sequence[str], schema: KeySchema | None,
                  a: tuple[Any, ...], b: tuple[Any, ...]) -> Anomaly | None:
        """The declared anomaly of one of *kinds* that explains (a, b), if any."""
        for anomaly in self.anomalies:
            if anomaly.kind in kinds and anomaly.applies(schema, a, b):
                return anomaly
        return None

    def summary(self) -> str:
        """One line for ``lexcodecs list``."""
        decode = {"self-describing": "self-describing", "schema": "decodes with schema",
                  "none": "encode only"}[self.decoding]
        parts = [
            decode,
            "desc" if self.descending else "no desc",
            f"nulls {self.nulls}",
            "injective" if self.injective else "NOT injective",
            "prefix-free" if self.prefix_free else "not prefix-free",
            f"NaN {self.float_policy.nan}",
        ]
        if self.anomalies:
            parts.append("anomalies: " + ", ".join(a.name for a in self.anomalies))
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (the anomalies by name, kind and description)."""
        return {
            "field_types": sorted(self.field_types, key=FIELD_TYPES.index),
            "decoding": self.decoding,
            "schemaless": self.schemaless,
            "descending": self.descending,
            "nulls": self.nulls,
            "injective": self.injective,
            "prefix_free": self.prefix_free,
            "float_policy": attrs.asdict(self.float_policy),
            "anomalies": [{"name": a.name, "kind": a.kind, "description": a.description}
                          for a in self.anomalies],
            "int_range": list(self.int_range) if self.int_range else None,
            "text_nul": self.text_nul,
            "notes": self.notes,
            "readers": list(self.readers),
        }


def _bound_text(n: int) -> str:
    """An ``int_range`` bound for a repr: ``-(2**2040 - 1)``, not its 615 digits."""
    magnitude = abs(n)
    sign = "-" if n < 0 else ""
    for delta, tail in ((0, ""), (1, " - 1"), (-1, " + 1")):
        bits = (magnitude + delta).bit_length() - 1
        if bits >= 16 and magnitude + delta == 1 << bits:
            text = f"2**{bits}{tail}"
            return f"{sign}({text})" if sign and tail else f"{sign}{text}"
    return str(n) if magnitude < 10**24 else f"{sign}<int of {magnitude.bit_length()} bits>"


@runtime_checkable
class BoundCodec(Protocol):
    """A codec bound to one schema: the fast path.

    A bound codec may also have a ``prefix_free`` attribute: ``False`` narrows the codec's
    ``prefix_free`` claim for this one schema (keys ending in an unterminated field), and the
    harness then skips the prefix-free check for it.
    """

    @property
    def schema(self) -> KeySchema: ...

    def encode(self, values: Sequence[Any]) -> bytes: ...

    def decode(self, key: bytes) -> tuple[Any, ...]: ...

    def prefix_range(self, values: Sequence[Any]) -> tuple[bytes, bytes | None]: ...


@runtime_checkable
class Codec(Protocol):
    """What every codec provides. Third-party codecs need not inherit anything.

    ``prefix_range(values)`` returns ``(start, stop)``: every key that extends the prefix
    *values* with more fields satisfies ``start <= key < stop`` and no other key of the same
    schema does (``stop=None``: no upper bound). ``config()`` is JSON-able and
    ``get_codec(**codec.config())`` rebuilds an equal codec.
    """

    @property
    def name(self) -> str: ...

    @property
    def capabilities(self) -> Capabilities: ...

    def encode(self, values: Sequence[Any], schema: SchemaLike | None = None) -> bytes: ...

    def decode(self, key: bytes, schema: SchemaLike | None = None) -> tuple[Any, ...]: ...

    def prefix_range(self, values: Sequence[Any], schema: SchemaLike | None = None
                     ) -> tuple[bytes, bytes | None]: ...

    def bind(self, schema: SchemaLike) -> BoundCodec: ...

    def config(self) -> dict[str, Any]: ...


@attrs.frozen
class Option:
    """A codec option: its default, its allowed values (or a check), and a line of help.

    ``check`` returns ``None`` for a good value or a text saying what was expected.
    ``guess``, for an option without ``choices``, gives the values worth trying on keys
    nobody documented (:func:`lexcodecs.identify` tries each ``choices`` value and each
    guess: a table number every key starts with, say). ``reading``: the option changes only
    how keys are read, never the bytes written (bytewise's and charwise's ``reading``), so
    ``identify``, which asks what wrote the keys, does not try its values, and a columnar
    declaration holds under any of them.
    """

    default: Any
    doc: str = ""
    choices: tuple[Any, ...] | None = None
    check: Callable[[Any], str | None] | None = attrs.field(default=None, eq=False)
    guess: Callable[[Sequence[bytes]], Iterable[Any]] | None = attrs.field(default=None,
                                                                          eq=False)
    reading: bool = False

    def problem(self, value: Any) -> str | None:
        """``None`` for a good value, else what was expected."""
        # compare by type too: True == 1 must not pass for a choice of 1
        if self.choices is not None and not any(
                type(value) is type(c) and value == c for c in self.choices):
            return "one of " + ", ".join(repr(c) for c in self.choices)
        return self.check(value) if self.check is not None else None

    def validate(self, codec: str, name: str, value: Any) -> None:
        expected = self.problem(value)
        if expected is not None:
            raise OptionError("bad value" if self.choices is None else "not an allowed value",
                              codec=codec, option=name, value=value, expected=expected)


@attrs.frozen
class FieldPlan:
    """One field of a bound schema: how to write a value and how to read one back.

    ``encode(value) -> bytes``; ``decode(key, offset) -> (value, next_offset)``. Both raise
    lexcodecs errors without the codec/field context; :class:`BoundKey` adds it.
    """

    index: int
    field: Field
    encode: Callable[[Any], bytes]
    decode: Callable[[bytes, int], tuple[Any, int]] | None = None


def plain_values(values: Any) -> Sequence[Any] | None:
    """A key's *values* as an exact tuple or list (a subclass's own elements, by
    :func:`plain_value`), or None when they are neither: by the real type, so an object that
    lies about its ``__class__`` is no tuple."""
    cls = type(values)
    if cls is tuple or cls is list:
        return values  # type: ignore[no-any-return]
    if issubclass(cls, (tuple, list)):
        return plain_value(values)  # type: ignore[no-any-return]
    return None


def _as_values(codec: str, values: Any) -> Sequence[Any]:
    plain = plain_values(values)
    if plain is not None:
        return plain
    raise UnsupportedTypeError("the values of a key must be a tuple or a list", codec=codec,
                               value=values, expected="a tuple or list of values")


# -- subclasses read as their plain type -------------------------------------------------------
#
# The docs' rule: a value of a subclass is written as its plain type. An override (``__int__``,
# ``__float__``, ``__abs__``, ``__eq__``, ``__bytes__``, ``encode``, ``utcoffset``, a property
# shadowing ``year`` or a UUID's ``int`` ...) may lie or raise, so a subclass is read through the
# base class's own C slots and descriptors, never through anything the subclass can override.
# Exact types never come here: each codec dispatches on the exact type first, and calls
# :func:`plain_value` only for what is left.

_F32_BITS: Final[Any] = Float32.__dict__["bits"]
_UUID_SLOTS: Final[tuple[Any, ...]] = tuple(uuid.UUID.__dict__[n] for n in ("int", "is_safe"))
_STAMP_SLOTS: Final[tuple[Any, ...]] = tuple(Versionstamp.__dict__[n]
                                             for n in ("tr_version", "user_version"))
_TYPED: Final = frozenset(INT_TYPES.values())
_FULL: Final = slice(None)
_D: Final[Any] = _dt.datetime  # its getset descriptors (year, tzinfo ...) read the C fields
_TD: Final[Any] = _dt.timedelta


def _copy_slots(new: _T, old: Any, slots: tuple[Any, ...]) -> _T:
    """*new* with each of *slots* (member descriptors of the base class) copied from *old*;
    an unset slot stays unset, so a tampered object reads as the same tampered object."""
    for slot in slots:
        with contextlib.suppress(AttributeError):
            slot.__set__(new, slot.__get__(old))
    return new


def _plain_typed(v: Any) -> int:
    # a subclass of a typed wrapper keeps its wrapper's width; its range is the codec's to check
    for cls in type(v).__mro__:
        if cls in _TYPED:
            return int.__new__(cls, int.__int__(v))
    return int.__int__(v)


def _plain_float32(v: Any) -> Float32:
    return _copy_slots(float.__new__(Float32, float.__float__(v)), v, (_F32_BITS,))


def _plain_datetime(v: Any) -> _dt.datetime:
    return _dt.datetime(_D.year.__get__(v), _D.month.__get__(v), _D.day.__get__(v),
                        _D.hour.__get__(v), _D.minute.__get__(v), _D.second.__get__(v),
                        _D.microsecond.__get__(v), _D.tzinfo.__get__(v),
                        fold=_D.fold.__get__(v))


def _plain_date(v: Any) -> _dt.date:
    return _dt.date(_D.year.__get__(v), _D.month.__get__(v), _D.day.__get__(v))


def _plain_timedelta(v: Any) -> _dt.timedelta:
    return _dt.timedelta(_TD.days.__get__(v), _TD.seconds.__get__(v),
                         _TD.microseconds.__get__(v))


#: (base, reader) by the real type's MRO, most derived bases first
_PLAIN_READERS: Final[tuple[tuple[type, Callable[[Any], Any]], ...]] = (
    (TypedInt, _plain_typed),
    (int, int.__int__),  # bool cannot be subclassed; an IntEnum is its int
    (Float32, _plain_float32),
    (float, float.__float__),
    (str, str.__str__),
    (bytes, lambda v: bytes.__getitem__(v, _FULL)),
    (bytearray, lambda v: bytearray.__getitem__(v, _FULL)),
    (Decimal, Decimal),  # the C constructor copies a Decimal's digits, calling nothing
    (_dt.datetime, _plain_datetime),
    (_dt.date, _plain_date),
    (_dt.timedelta, _plain_timedelta),
    (uuid.UUID, lambda v: _copy_slots(object.__new__(uuid.UUID), v, _UUID_SLOTS)),
    (Versionstamp, lambda v: _copy_slots(object.__new__(Versionstamp), v, _STAMP_SLOTS)),
    (tuple, lambda v: tuple.__getitem__(v, _FULL)),
    (list, lambda v: list.__getitem__(v, _FULL)),
)


#: the types that are their own plain type (``bool`` cannot be subclassed)
_EXACT: Final = frozenset({
    type(None), bool, int, *INT_TYPES.values(), float, Float32, str, bytes, bytearray,
    memoryview, Decimal, _dt.datetime, _dt.date, _dt.timedelta, uuid.UUID, Versionstamp,
    tuple, list,
})


def plain_value(v: Any) -> Any:
    """*v* as its plain type when it is an instance of a subclass of a type the codecs take
    (int, a typed int, float, ``Float32``, str, bytes, bytearray, Decimal, datetime, date,
    timedelta, UUID, ``Versionstamp``, tuple, list), read from the base type's own data
    without calling anything the subclass overrides; anything else as it is.

    >>> class Loud(int):
    ...     def __int__(self): raise RuntimeError("no")
    >>> plain_value(Loud(5)), type(plain_value(Loud(5))).__name__
    (5, 'int')
    """
    cls = type(v)
    if cls in _EXACT:
        return v
    for base, read in _PLAIN_READERS:
        if issubclass(cls, base):
            return read(v)
    return v


def as_key_bytes(codec: str, key: Any) -> bytes:
    """Accept ``bytes``, ``bytearray`` and ``memoryview`` as a key (a subclass by its own
    bytes, never its ``__bytes__``); refuse anything else, and a released memoryview with a
    :class:`DecodeError`."""
    if type(key) is bytes:
        return key
    if type(key) is memoryview:
        try:
            return bytes(key)
        except ValueError:
            raise DecodeError("a released memoryview cannot be read", codec=codec,
                              expected="bytes, bytearray or a readable memoryview") from None
    if issubclass(type(key), (bytes, bytearray)):
        return bytes(plain_value(key))
    raise UnsupportedTypeError("a key must be bytes", codec=codec, value=key,
                               expected="bytes, bytearray or memoryview")


def utf8_value(text: str, why: str = "") -> bytes:
    """A string field's value as UTF-8, a lone surrogate refused (*why* says what the format's
    own writer would do instead); the value readers of several codecs share it."""
    try:
        return str.encode(text, "utf-8")
    except UnicodeEncodeError as exc:
        raise EncodeError(f"lone surrogate is not encodable as UTF-8{why}",
                          value=str.__getitem__(text, slice(exc.start, exc.end)),
                          expected="a str without lone surrogates") from None


def buffer_value(v: Any) -> bytes:
    """A bytes field's value read from its buffer (a subclass by its own bytes, never its
    ``__bytes__``); a released memoryview refused."""
    if issubclass(type(v), (bytes, bytearray)):
        return bytes(plain_value(v))
    try:
        return bytes(memoryview(v))
    except (ValueError, TypeError, BufferError):  # a released memoryview, say
        raise EncodeError("the buffer cannot be read (a released memoryview?)", value=v,
                          expected="readable bytes") from None


def text_value(v: Any, expected: str = "str (use a bytes field for bytes)") -> bytes:
    """A string field's *v* as UTF-8 (:func:`utf8_value`), anything but a str refused with
    *expected* (by the real type: ``isinstance`` would believe a ``__class__`` property)."""
    if not issubclass(type(v), str):
        raise UnsupportedTypeError(f"{type(v).__name__} value in a string field", value=v,
                                   expected=expected)
    return utf8_value(v)


def bytes_value(v: Any, expected: str = "bytes (use a string field for str)") -> bytes:
    """A bytes field's *v* (:func:`buffer_value`), anything but bytes, bytearray and
    memoryview refused with *expected*."""
    if type(v) is bytes:
        return v
    if not issubclass(type(v), (bytes, bytearray, memoryview)):
        raise UnsupportedTypeError(f"{type(v).__name__} value in a bytes field", value=v,
                                   expected=expected)
    return buffer_value(v)


def float_holds(n: int, mantissa: int = 53, max_bits: int = 1024) -> bool:
    """Whether the int *n* is exactly a binary float of *mantissa* significant bits below
    ``2**max_bits`` (a float64 by default; a float32 is 24 and 128): its odd part fits the
    mantissa. Checked on the int, without ``float(n)`` (which overflows near the top of the
    range), in time linear in its size."""
    m = abs(n)
    if m.bit_length() > max_bits:
        return False
    return m == 0 or (m >> ((m & -m).bit_length() - 1)).bit_length() <= mantissa


class BoundKey:
    """The generic bound codec: a concatenation of per-field encodings.

    Codecs whose keys are field encodings laid end to end get ``encode``, ``decode`` (strict:
    every byte must be consumed) and ``prefix_range`` (``[P, strinc(P))``, right whenever the
    format is prefix-free field by field) from here; they override what differs.
    """

    __slots__ = ("_decoders", "_encoders", "_name", "codec", "plans", "schema")

    def __init__(self, codec: BaseCodec, schema: KeySchema, plans: Sequence[FieldPlan]) -> None:
        self.codec = codec
        self.schema = schema
        self.plans = tuple(plans)
        self._name = codec.name
        self._encoders = tuple(p.encode for p in self.plans)
        decoders = tuple(p.decode for p in self.plans)
        self._decoders = decoders if all(d is not None for d in decoders) else None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._name} [{self.schema}]>"

    def _context(self, exc: LexCodecError, index: int) -> LexCodecError:
        f = self.schema.fields[index]
        return exc.add_context(codec=self._name, field=index, field_name=f.name,
                               field_type=f.type)

    def _check_arity(self, values: Any, *, prefix: bool = False) -> Sequence[Any]:
        values = _as_values(self._name, values)
        n, m = len(self._encoders), len(values)
        if (m > n) if prefix else (m != n):
            expected = f"at most {n}" if prefix else f"{n}"
            raise EncodeError(f"the schema has {n} field(s), got {m} value(s)",
                              codec=self._name, value=values,
                              expected=f"{expected} value(s) ({self.schema})")
        return values  # type: ignore[no-any-return]

    def encode(self, values: Sequence[Any]) -> bytes:
        # the common case checked inline; anything unusual goes the long way for its message
        if (type(values) is not tuple and type(values) is not list) or \
                len(values) != len(self._encoders):
            values = self._check_arity(values)
        try:
            return b"".join([enc(v) for enc, v in zip(self._encoders, values)])
        except LexCodecError as exc:
            raise self._locate(exc, values) from None

    def _encode_prefix(self, values: Sequence[Any]) -> bytes:
        try:
            return b"".join([enc(v) for enc, v in zip(self._encoders, values)])
        except LexCodecError as exc:
            raise self._locate(exc, values) from None

    def _locate(self, exc: LexCodecError, values: Sequence[Any]) -> LexCodecError:
        # the fast path does not track which field failed; find it again, off the hot path
        for i, (enc, v) in enumerate(zip(self._encoders, values)):
            try:
                enc(v)
            except LexCodecError:
                return self._context(exc, i)
        return exc.add_context(codec=self._name)

    def decode(self, key: bytes) -> tuple[Any, ...]:
        if self._decoders is None:
            raise NotDecodableError("this codec cannot decode keys", codec=self._name)
        key = as_key_bytes(self._name, key)
        out = []
        offset = 0
        for i, dec in enumerate(self._decoders):
            assert dec is not None
            try:
                value, offset = dec(key, offset)
            except LexCodecError as exc:
                raise self._context(exc, i) from None
            out.append(value)
        if offset != len(key):
            raise DecodeError("bytes left after the last field", codec=self._name,
                              offset=offset, found=key[offset:], expected="end of key")
        return tuple(out)

    def prefix_range(self, values: Sequence[Any]) -> tuple[bytes, bytes | None]:
        values = self._check_arity(values, prefix=True)
        start = self._encode_prefix(values)
        return start, strinc(start)


class BaseCodec:
    """Shared behaviour for codecs: options, schema checks, the bind cache, error context.

    A subclass sets ``name``, ``CAPABILITIES`` (or overrides ``capabilities`` when they
    depend on options), ``OPTIONS``, and implements :meth:`plan_field`. Schemaless formats
    also implement :meth:`encode_schemaless` / :meth:`decode_schemaless`.
    """

    name: ClassVar[str] = ""
    CAPABILITIES: ClassVar[Capabilities]
    OPTIONS: ClassVar[Mapping[str, Option]] = {}
    #: the ``key=value`` options a schema field may carry; any other is refused at bind
    FIELD_OPTIONS: ClassVar[Mapping[str, Option]] = {}
    #: bound schemas kept per codec instance; when full, the one bound first is dropped
    BIND_CACHE_SIZE: ClassVar[int] = 256
    bound_class: ClassVar[type[BoundKey]] = BoundKey

    def __init__(self, **options: Any) -> None:
        for key, value in options.items():
            if key not in self.OPTIONS:
                close = difflib.get_close_matches(key, list(self.OPTIONS), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise OptionError(f"unknown option{hint}", codec=self.name, option=key,
                                  value=value,
                                  expected="one of " + ", ".join(self.OPTIONS)
                                  if self.OPTIONS else "no options")
            self.OPTIONS[key].validate(self.name, key, value)
        self.options: dict[str, Any] = {k: o.default for k, o in self.OPTIONS.items()}
        self.options.update(options)
        # one bind cache per implementation (lexcodecs._impl): a plan bound under the
        # compiled implementation is never served under the reference one, or back
        self._bound_by_impl: dict[str, dict[KeySchema | str, BoundKey]] = {
            name: {} for name in _impl.IMPLEMENTATIONS}

    # -- public API ------------------------------------------------------------------------

    @property
    def capabilities(self) -> Capabilities:
        return self.CAPABILITIES

    def config(self) -> dict[str, Any]:
        """JSON-able; ``get_codec(**codec.config())`` rebuilds this codec."""
        return {"name": self.name, **self.options}

    #: the codec's keys as the columnar kernel writes them, for its default options
    #: (:mod:`lexcodecs.pieces`); None: ``encode_arrow`` takes the row API
    COLUMNAR: ClassVar[CodecPieces | None] = None

    def columnar(self) -> CodecPieces | None:
        """How :func:`lexcodecs.columnar.encode_arrow` may write this codec's keys through
        the columnar kernel (:mod:`lexcodecs.pieces`), or None: the row API writes them. The
        codec's declaration, like its capabilities: :attr:`COLUMNAR` when every option is at
        its default, else None (a codec whose pieces depend on an option overrides this)."""
        if self.COLUMNAR is None or any(value != self.OPTIONS[key].default
                                        for key, value in self.options.items()):
            return None
        return self.COLUMNAR

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items()
                         if v != self.OPTIONS[k].default)
        return f"<{type(self).__name__} {self.name!r}{' ' + opts if opts else ''}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BaseCodec):
            return NotImplemented
        return type(self) is type(other) and self.options == other.options

    def __hash__(self) -> int:
        return hash((type(self), tuple(sorted(self.options.items(), key=lambda kv: kv[0]))))

    def __reduce__(self) -> tuple[Any, ...]:
        # the bind cache holds closures; rebuild from the options instead
        return (_rebuild_codec, (type(self), dict(self.options)))

    def encode(self, values: Sequence[Any], schema: SchemaLike | None = None) -> bytes:
        if schema is None:
            return self.encode_schemaless(_as_values(self.name, values))
        return self.bind(schema).encode(values)

    def decode(self, key: bytes, schema: SchemaLike | None = None) -> tuple[Any, ...]:
        if schema is None:
            return self.decode_schemaless(as_key_bytes(self.name, key))
        return self.bind(schema).decode(key)

    def prefix_range(self, values: Sequence[Any], schema: SchemaLike | None = None
                     ) -> tuple[bytes, bytes | None]:
        if schema is None:
            start = self.encode_schemaless(_as_values(self.name, values))
            return start, strinc(start)
        return self.bind(schema).prefix_range(values)

    def bind(self, schema: SchemaLike) -> BoundKey:
        """Check *schema* against the codec and compile it; cached per schema (and per text,
        so ``encode(values, "a:int64")`` parses the text once)."""
        cache = self._bound_by_impl[_impl.current]
        hashable = isinstance(schema, (KeySchema, str))
        bound = cache.get(schema) if hashable else None
        if bound is None:
            parsed = schema if isinstance(schema, KeySchema) else KeySchema.coerce(schema)
            bound = cache.get(parsed)
            if bound is None:
                for i, f in enumerate(parsed.fields):
                    self.check_field(i, f, parsed)
                plans = [self.plan_field(i, f, parsed) for i, f in enumerate(parsed.fields)]
                bound = self.make_bound(parsed, plans)
            self._remember(parsed, bound)
            if isinstance(schema, str):
                self._remember(schema, bound)
        return bound

    def bind_as(self, schema: SchemaLike, cls: type[B]) -> B:
        """:meth:`bind`, for a codec whose bound objects are all *cls* (its own ``bind`` can
        then say so to the type checker in one line)."""
        bound = BaseCodec.bind(self, schema)
        if not isinstance(bound, cls):
            raise TypeError(f"{self.name} bound {type(bound).__name__}, not {cls.__name__}")
        return bound

    def _remember(self, key: KeySchema | str, bound: BoundKey) -> None:
        cache = self._bound_by_impl[_impl.current]
        while len(cache) >= self.BIND_CACHE_SIZE:
            # drop the entry added first; pop() with a default stays safe if another thread
            # got there before us (at worst a schema is bound twice)
            cache.pop(next(iter(cache), key), None)
        cache[key] = bound

    # -- hooks for subclasses --------------------------------------------------------------

    def encode_schemaless(self, values: Sequence[Any]) -> bytes:
        raise SchemaError("this codec needs a schema to encode", codec=self.name,
                          expected="encode(values, schema)")

    def decode_schemaless(self, key: bytes) -> tuple[Any, ...]:
        if self.capabilities.decoding == "none":
            raise NotDecodableError("keys of this format cannot be decoded", codec=self.name)
        raise NotDecodableError("keys of this format decode only with a schema",
                                codec=self.name, expected="decode(key, schema)")

    def refuse(self, index: int, field: Field, reason: str, expected: str | None = None
               ) -> SchemaError:
        """A :class:`SchemaError` for *field*, for ``raise self.refuse(...)`` in hooks."""
        return SchemaError(reason, codec=self.name, field=index, field_name=field.name,
                           field_type=field.type, expected=expected)

    def check_field(self, index: int, field: Field, schema: KeySchema) -> None:
        """Refuse what the capabilities say the codec cannot express."""
        caps = self.capabilities
        if field.type not in caps.field_types:
            raise self.refuse(index, field, f"type {field.type!r} is not supported",
                              "one of " + ", ".join(t for t in FIELD_TYPES
                                                    if t in caps.field_types))
        if field.descending and not caps.descending:
            raise self.refuse(index, field, "descending fields are not supported",
                              "an ascending field")
        for key, value in field.options.items():
            option = self.FIELD_OPTIONS.get(key)
            if option is None:
                close = difflib.get_close_matches(key, list(self.FIELD_OPTIONS), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise self.refuse(index, field, f"unknown field option {key!r}{hint}",
                                  "one of " + ", ".join(self.FIELD_OPTIONS)
                                  if self.FIELD_OPTIONS else "no field options")
            expected = option.problem(value)
            if expected is not None:
                raise self.refuse(index, field, f"field option {key}={value!r} is not allowed",
                                  expected)
        placement = field.effective_nulls
        ok = {
            "both": True,
            "first": placement == "first",
            "last": placement == "last",
            "fixed": field.natural_nulls,
            "none": field.nulls is None,
        }[caps.nulls]
        if not ok:
            raise self.refuse(index, field,
                              f"NULL cannot sort {placement} here ({NULL_SUPPORT[caps.nulls]})",
                              "nulls left out" if caps.nulls in ("fixed", "none")
                              else f"nulls {caps.nulls}")

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        raise NotImplementedError(f"{type(self).__name__} must implement plan_field")

    def make_bound(self, schema: KeySchema, plans: Sequence[FieldPlan]) -> BoundKey:
        return self.bound_class(self, schema, plans)


def _rebuild_codec(cls: type[BaseCodec], options: dict[str, Any]) -> BaseCodec:
    return cls(**options)
