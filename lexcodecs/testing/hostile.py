"""Values and keys a careless or hostile caller passes: the raw material of the differential
tests (:class:`~lexcodecs.testing.DifferentialConformance`) and of any codec's own tests.

Theory of operation: a codec with a compiled path reads an object's internals only after it
checked the object's exact type; anything else goes to the reference code, which writes the
value for what it is or refuses it with a typed error. The values here are the ones that
check is for:

* subclasses of the types codecs take whose overridable methods lie (:class:`MyInt`'s
  ``__index__``, :class:`MyStr`'s ``encode``...): a codec must read them for what they are,
  never through those methods; an :class:`Colour` IntEnum, ``bool`` where an int goes, an
  object that lies about its class (:class:`Liar`);
* objects whose internal state was tampered with or never set (:func:`tampered_float32`,
  :func:`unset_uuid`...), a released ``memoryview`` (:func:`released_view`), datetimes whose
  ``tzinfo`` fails (:class:`BrokenZone`);
* numbers at and past every width's edge, NaN payloads, huge and tiny numbers, Decimals past
  any exponent range, lone surrogates, NUL bytes, containers, arbitrary objects.

:func:`odd_values` lists them (afresh: some are mutable), :func:`hostile_values` draws them
for one field type with the arbitrary values of :func:`arbitrary_values`, and
:func:`near_misses` draws the keys next to a valid one: cut short, a byte changed, inserted
or dropped, a bit flipped, a tail added, or junk.
"""

from __future__ import annotations

import ctypes
import datetime as _dt
import decimal
import enum
import functools
import math
import struct
import uuid
from collections.abc import Sequence
from typing import Any, Final

from hypothesis import strategies as st

from ..types import END, INFINITY, INT_TYPES, Float32, Int16, Int32, Int64, Versionstamp

__all__ = [
    "BrokenZone",
    "Colour",
    "Liar",
    "ListSub",
    "MyBytes",
    "MyDatetime",
    "MyDecimal",
    "MyFloat",
    "MyInt",
    "MyStr",
    "MyTimedelta",
    "MyUUID",
    "TupleSub",
    "arbitrary_values",
    "hostile_values",
    "near_misses",
    "odd_values",
    "pick",
    "released_view",
    "tampered_float32",
    "tampered_stamp",
    "tampered_uuid",
    "unset_float32",
    "unset_uuid",
    "uuid_without_int",
]

_D: Final = struct.Struct(">d")
_Q: Final = struct.Struct(">Q")


class MyInt(int):
    """An int subclass whose ``__index__`` and ``__str__`` lie."""

    def __index__(self) -> int:
        return 99

    def __str__(self) -> str:
        return "99"


class MyStr(str):
    """A str subclass whose ``encode`` and ``__str__`` lie."""

    def encode(self, *args: Any, **kwargs: Any) -> bytes:
        return b"never read"

    def __str__(self) -> str:
        return "not me"


class MyBytes(bytes):
    """A bytes subclass whose ``__bytes__`` lies."""

    def __bytes__(self) -> bytes:
        return b"never read"


class MyFloat(float):
    """A float subclass whose ``__float__`` and ``__repr__`` lie."""

    def __float__(self) -> float:
        return 12345.0

    def __repr__(self) -> str:
        return "1.0"


class MyDecimal(decimal.Decimal):
    """A plain Decimal subclass (a codec must not take it for its exact type)."""


class MyUUID(uuid.UUID):
    """A plain UUID subclass."""


class MyDatetime(_dt.datetime):
    """A plain datetime subclass."""


class MyTimedelta(_dt.timedelta):
    """A plain timedelta subclass."""


class TupleSub(tuple):  # type: ignore[type-arg]
    """A tuple subclass whose iteration lies."""

    def __iter__(self) -> Any:
        return iter(("never read",))


class ListSub(list):  # type: ignore[type-arg]
    """A plain list subclass."""


class Colour(enum.IntEnum):
    """An IntEnum: an int subclass with a small, a large and a huge member."""

    RED = 1
    BIG = 2**40
    HUGE = 2**70


class Liar:
    """An object that claims to be an int (``isinstance`` believes ``__class__``)."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        return int


class BrokenZone(_dt.tzinfo):
    """A tzinfo whose offset fails (``raise``), is missing (``none``), is of the wrong type
    (``int``, ``sub-timedelta``) or is not a whole number of minutes (``odd``)."""

    def __init__(self, how: str) -> None:
        self.how = how

    def utcoffset(self, when: _dt.datetime | None) -> Any:
        if self.how == "raise":
            raise RuntimeError("no offset today")
        if self.how == "none":
            return None
        if self.how == "int":
            return 3600
        if self.how == "sub-timedelta":
            return MyTimedelta(hours=1)
        return _dt.timedelta(hours=-3, seconds=-7, microseconds=-11)

    def dst(self, when: _dt.datetime | None) -> _dt.timedelta | None:
        raise NotImplementedError("tzinfo subclass must override dst()")  # as tzinfo's own

    def tzname(self, when: _dt.datetime | None) -> str | None:
        raise NotImplementedError("tzinfo subclass must override tzname()")

    def __repr__(self) -> str:
        return f"BrokenZone({self.how!r})"


def tampered_float32(bits: Any, value: float = 1.5) -> Float32:
    """A Float32 of *value* whose ``bits`` were overwritten with *bits*."""
    f = Float32(value)
    object.__setattr__(f, "bits", bits)
    return f


def unset_float32(value: float = 0.1) -> Float32:
    """A Float32 never given its bits (0.1 is no binary32 value at all)."""
    return float.__new__(Float32, value)


def tampered_uuid(value: Any) -> uuid.UUID:
    """A UUID whose ``int`` was overwritten with *value*."""
    u = uuid.UUID(int=5)
    object.__setattr__(u, "int", value)
    return u


def unset_uuid() -> uuid.UUID:
    """A UUID with no fields at all."""
    return object.__new__(uuid.UUID)


def uuid_without_int() -> uuid.UUID:
    """A UUID whose ``int`` was deleted (``is_safe`` is left)."""
    u = uuid.UUID(int=1)
    object.__delattr__(u, "int")
    return u


def tampered_stamp(tr: Any = b"\x01" * 10, user: Any = 0) -> Versionstamp:
    """A Versionstamp whose slots were overwritten with *tr* and *user*."""
    s = Versionstamp(b"\x02" * 10, 1)
    object.__setattr__(s, "tr_version", tr)
    object.__setattr__(s, "user_version", user)
    return s


def released_view() -> memoryview:
    """A memoryview that was released: any read of it raises ValueError."""
    view = memoryview(b"abc")
    view.release()
    return view


def _view(data: bytes) -> memoryview:
    return memoryview(data)


def _f64(bits: int) -> float:
    return float(_D.unpack(_Q.pack(bits))[0])


def odd_values() -> list[Any]:
    """Every odd value of the module docstring, built afresh (some are mutable, some cannot
    be hashed): numbers, text and bytes past every edge, subclasses, tampered objects,
    datetimes, containers, types and arbitrary objects."""
    utc = _dt.UTC
    return [
        # ints: each width's edges and past them, huge ones, subclasses, typed ints out of range
        None, True, False, 0, 1, -1, 63, 64, -64, -65, 127, -129, 255, 2**15, -(2**15) - 1,
        2**31, -(2**31) - 1, 2**32, 2**53, 2**53 + 1, -(2**53) - 1, -(2**54) - 1, 2**63 - 1,
        2**63, -(2**63), -(2**63) - 1, 2**64 - 1, 2**64, -(2**64 - 1), 2**128 - 2**104, 2**128,
        10**31 + 5, 10**32 - 1, -(10**40), 2**200, -(2**200), 10**400, 2**1024 - 1,
        2**1024 - 2**970, -(2**1024) + 2**971, -(2**1000), 2**2040 - 1, -(2**2041), 10**4000,
        10**5000, -(10**5000), 2**50_000,
        MyInt(7), MyInt(-7), MyInt(2**70), MyInt(10**100), Colour.RED, Colour.BIG, Colour.HUGE,
        Int16(-3), Int32(-3), Int64(-3),
        *(cls(1) for cls in INT_TYPES.values()), *(cls(cls.max) for cls in INT_TYPES.values()),
        *(cls(cls.min) for cls in INT_TYPES.values()),
        int.__new__(INT_TYPES["int8"], 1000), int.__new__(INT_TYPES["uint8"], -1),
        int.__new__(INT_TYPES["uint64"], 2**70), int.__new__(INT_TYPES["int16"], -40000),
        Liar(),
        # floats: signed zeros, NaN payloads, infinities, subnormals, binary32's edges
        0.0, -0.0, 1.5, -1.5, 0.1, 1e23, math.nan, -math.nan, math.inf, -math.inf, 5e-324,
        -5e-324, 1e-320, 2.2250738585072014e-308, -1.1125369292535997e-308, 1e300, -1e300,
        1e308, 0.99999999999999999, 3.4028234663852886e38, 3.4028235677973362e38,
        3.4028235677973366e38, 1e39, _f64(0x7FF0000000000001), _f64(0x7FF0000000000123),
        _f64(0xFFF8000000000001), _f64(0xFFF8000000000123),
        MyFloat(2.5), MyFloat(math.nan), Float32(0.1), Float32(-0.0), Float32(math.nan),
        Float32(math.inf), Float32(3.4e38), Float32.from_bits(1), Float32.from_bits(0x7F800001),
        Float32.from_bits(0xFFC12345), tampered_float32("x"), tampered_float32(2**40),
        tampered_float32(2**200), tampered_float32(-1), tampered_float32(123),
        tampered_float32(0x3FC00001), tampered_float32(0x7FC00000),
        tampered_float32(0x7FC00000, math.nan), unset_float32(), unset_float32(1e300),
        unset_float32(2.0), ctypes.c_float(3.14), ctypes.c_double(-0.0),
        # Decimals: specials, signed zeros, exponents past every range, long coefficients
        decimal.Decimal("1.5"), decimal.Decimal("-0"), decimal.Decimal("0E-9"),
        decimal.Decimal("0E+7"), decimal.Decimal("-12.3400E-9"), decimal.Decimal("NaN"),
        decimal.Decimal("-NaN"), decimal.Decimal("NaN5"), decimal.Decimal("sNaN"),
        decimal.Decimal("Infinity"), decimal.Decimal("-Infinity"),
        decimal.Decimal("1E+999999999"), decimal.Decimal("1E-999999999"),
        decimal.Decimal("1E+2147483647"), decimal.Decimal("1E+2147483648"),
        decimal.Decimal("1E+2147483649"), decimal.Decimal("1E-2147483647"),
        decimal.Decimal("1E-2147483648"), decimal.Decimal("1E+999999999999999999"),
        decimal.Decimal(f"1E+{2**40}"), decimal.Decimal(f"1E-{2**40}"),
        decimal.Decimal("9" * 32), decimal.Decimal("0." + "9" * 32),
        decimal.Decimal("-0." + "9" * 40), decimal.Decimal("1" + "0" * 30 + "5"),
        decimal.Decimal("9" * 400), MyDecimal("2"), MyDecimal("NaN"),
        # text and bytes: NUL, surrogates, the edges of UTF-8, long ones, subclasses, views
        "", "a", "a\x00b", "a\x00b\xff", "\x1b", "\ud800", "a\udfffb", "\ud800\udc00x",
        "\ud800" * 70, "\U0010ffff", "\U0001f600", "é🔥", "y" * 63 + "\x00", "é" * 64,
        "x" * 300, MyStr("hi"), MyStr("a\x00b"),
        b"", b"\x00", b"\x00\xff", b"\x00\xff\x01", b"\xff" * 300, MyBytes(b"a\x00"),
        bytearray(b"x\x00"), memoryview(b"mv\x00"), memoryview(b"abcd")[1:3],
        memoryview(b"abcdef")[::2], memoryview(bytes(8)).cast("d"), released_view(),
        # UUIDs, datetimes, durations: subclasses, tampered, unset, out of range, odd zones
        uuid.UUID(int=0), uuid.UUID(int=7), uuid.UUID(int=2**128 - 1), MyUUID(int=7),
        tampered_uuid("x"), tampered_uuid(2**200), tampered_uuid(-1), tampered_uuid(2**128),
        tampered_uuid(True), tampered_uuid(MyInt(5)), unset_uuid(), uuid_without_int(),
        _dt.datetime(2020, 1, 1), _dt.datetime(2020, 1, 1, tzinfo=utc),
        _dt.datetime(1970, 1, 1, tzinfo=utc), _dt.datetime.min, _dt.datetime.max,
        _dt.datetime.min.replace(tzinfo=utc), _dt.datetime.max.replace(tzinfo=utc),
        _dt.datetime(2000, 2, 29, 23, 59, 59, 999999,
                     tzinfo=_dt.timezone(_dt.timedelta(hours=23, minutes=59))),
        *(_dt.datetime(2001, 5, 6, 7, 8, 9, tzinfo=BrokenZone(how))
          for how in ("raise", "none", "int", "sub-timedelta", "odd")),
        MyDatetime(2020, 1, 1, tzinfo=utc), _dt.date(2020, 1, 1), _dt.time(1, 2),
        _dt.timedelta(0), _dt.timedelta(days=1), _dt.timedelta(microseconds=-1),
        _dt.timedelta.max, _dt.timedelta.min, MyTimedelta(days=1),
        # lexcodecs' own types, tampered or out of place
        END, INFINITY, Versionstamp(b"\x00" * 10, 1), Versionstamp(), Versionstamp(None, 9),
        Versionstamp(b"\xff" * 10, 3), tampered_stamp(b"abc"), tampered_stamp("x" * 10),
        tampered_stamp(None, 70000), tampered_stamp(b"\x01" * 10, True),
        tampered_stamp(bytearray(10)),
        # containers, types and everything else
        (), [], (1,), [1], [1, "a"], ((),), (1, (2.0, "a")), [None, [True]],
        TupleSub((1, 2)), ListSub([1, None]), {}, {"a": 1}, {1: 2}, {1}, frozenset(), 1j,
        complex(1, 2), object(), ..., NotImplemented, type, int, type(None), print, Float32,
        Colour,
    ]


def pick(values: Sequence[Any]) -> st.SearchStrategy[Any]:
    """One of *values*, drawn by index: hypothesis hashes what it samples, and some odd
    values (a released memoryview) refuse to be hashed; and the strategy's repr (which
    hypothesis shows) never prints them, as ints too large for ``str()`` and objects whose
    repr lies are among them."""
    return st.integers(0, len(values) - 1).map(_Item(values))


class _Item:
    """``values[i]``, with a repr that names no value."""

    def __init__(self, values: Sequence[Any]) -> None:
        self.values = values

    def __call__(self, index: int) -> Any:
        return self.values[index]

    def __repr__(self) -> str:
        return f"<one of {len(self.values)} odd values>"


@functools.cache
def arbitrary_values() -> st.SearchStrategy[Any]:
    """Python values of every kind a caller may have at hand, nested in tuples and lists:
    what an encoder must write or refuse with a typed error, whatever the field."""
    leaves = st.one_of(
        st.none(), st.booleans(), st.integers(), st.integers(-(2**70), 2**70),
        st.sampled_from([2**63, -(2**63) - 1, 2**64, 10**400, -(10**400)]),
        st.floats(), st.floats(width=32).map(Float32), st.text(), st.binary(),
        st.binary().map(bytearray), st.binary().map(_view),
        st.decimals(allow_nan=True, allow_infinity=True), st.uuids(), st.datetimes(),
        st.datetimes(timezones=st.just(_dt.UTC)), st.timedeltas(), st.dates(),
        pick([Colour.RED, Colour.HUGE, MyInt(3), MyStr("s"), MyBytes(b"b"), MyFloat(1.0),
              MyDecimal("1.5"), END, INFINITY, object(), complex(1, 1)]),
        st.builds(Versionstamp, st.binary(min_size=10, max_size=10), st.integers(0, 65535)),
        st.sampled_from(sorted(INT_TYPES)).flatmap(
            lambda name: st.integers(INT_TYPES[name].min, INT_TYPES[name].max).map(
                INT_TYPES[name])),
    )
    return st.recursive(leaves, lambda inner: st.one_of(
        st.tuples(inner), st.lists(inner, max_size=3).map(tuple), st.lists(inner, max_size=3)),
        max_leaves=6)


def hostile_values(field_type: str, extra: Sequence[Any] = ()) -> st.SearchStrategy[Any]:
    """Values a field of *field_type* meets from a careless or hostile caller: every
    :func:`odd_values` value and *extra* (a codec's own), arbitrary values, and the near
    misses of the field's own type (ints of any size and subclasses for an int field, floats
    and tampered Float32s for a float field, Decimals with any exponent, subclasses of str and
    bytes, views, text where bytes go...)."""
    return st.one_of(pick([*odd_values(), *extra]), arbitrary_values(), _near_type(field_type))


@functools.cache
def _near_type(field_type: str) -> st.SearchStrategy[Any]:
    if "int" in field_type:
        return st.one_of(st.integers(), st.integers().map(MyInt), st.floats(),
                         st.integers(-(2**70), 2**70))
    if field_type.startswith("float"):
        return st.one_of(
            st.floats(), st.floats(width=32).map(Float32), st.floats().map(MyFloat),
            st.integers(-(2**60), 2**60), st.integers(0, 2**32 - 1).map(tampered_float32),
            st.integers(0, 2**64 - 1).map(_f64),
            st.tuples(st.integers(-(2**60), 2**60), st.integers(0, 1100)).map(
                lambda p: p[0] << p[1]))
    if field_type == "decimal":
        return st.one_of(
            st.decimals(), st.integers(), st.floats(),
            st.tuples(st.integers(-(10**30), 10**30), st.integers(-(2**32), 2**32)).map(
                lambda p: decimal.Decimal(f"{p[0]}E{p[1]}")),
            st.decimals(allow_nan=False).map(MyDecimal))
    if field_type == "string":
        return st.one_of(st.text(max_size=6).map(MyStr), st.binary(max_size=4),
                         st.text(max_size=8))
    if field_type == "bytes":
        return st.one_of(st.binary(max_size=6).map(bytearray),
                         st.binary(max_size=6).map(_view),
                         st.binary(max_size=6).map(MyBytes), st.text(max_size=3))
    if field_type == "uuid":
        return st.one_of(st.uuids().map(lambda u: MyUUID(int=u.int)),
                         st.integers(-(2**130), 2**130).map(tampered_uuid), st.binary())
    if field_type == "timestamp":
        return st.one_of(st.datetimes(), st.datetimes(timezones=st.timezones()),
                         st.integers(-(2**70), 2**70))
    if field_type == "duration":
        return st.one_of(st.timedeltas(), st.integers(-(2**70), 2**70), st.floats())
    return st.nothing()


def near_misses(key: bytes, notable: Sequence[int] = (0x00, 0x01, 0xFE, 0xFF), *,
                junk: int = 40, bit_flips: bool = True) -> st.SearchStrategy[bytes]:
    """*key* and the keys next to it, for a decoder: cut short, a byte replaced or inserted
    (one of the format's *notable* bytes, or any), a bit flipped (with *bit_flips*), a byte
    deleted, a short tail added, every byte complemented (a descending twin); or up to
    *junk* random bytes."""
    return _near_miss(bytes(key), tuple(notable), junk, bit_flips)


_NEAR: Final = ("same", "cut", "replace", "insert", "flip", "delete", "tail", "complement",
                "junk")


@st.composite
def _near_miss(draw: st.DrawFn, key: bytes, notable: tuple[int, ...], junk: int,
               bit_flips: bool) -> bytes:
    # one composite, drawing from strategies hypothesis caches: building a tree of
    # strategies per key was most of a decode test's time
    how = draw(st.sampled_from(_NEAR if bit_flips else _NEAR[:4] + _NEAR[5:]))
    if how == "same":
        return key
    if how == "junk" or (not key and how in ("replace", "flip", "delete")):
        return draw(st.binary(max_size=junk))
    if how == "cut":
        return key[:draw(st.integers(0, len(key)))]
    if how == "tail":
        return key + draw(st.binary(min_size=1, max_size=3))
    if how == "complement":
        return bytes(b ^ 0xFF for b in key)
    at = draw(st.integers(0, max(len(key) - 1, 0)))
    if how == "flip":
        return key[:at] + bytes((key[at] ^ (1 << draw(st.integers(0, 7))),)) + key[at + 1:]
    if how == "delete":
        return key[:at] + key[at + 1:]
    byte = draw(st.sampled_from(notable) | st.integers(0, 255) if notable else
                st.integers(0, 255))
    if how == "replace":
        return key[:at] + bytes((byte,)) + key[at + 1:]
    return key[:at] + bytes((byte,)) + key[at:]
