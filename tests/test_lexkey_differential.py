"""``lexkey`` and ``lexkey-legacy``: the compiled module and the reference code agree (issue 14).

Every operation -- bound ``encode``, ``decode`` and ``prefix_range``, and the schemaless
``encode`` -- runs once under each implementation (``lexcodecs._impl.use``) on the same input,
for both width modes and both NaN options, and any difference fails: in bytes, in decoded
values (types compared, floats by their bits, ``Float32`` by its ``bits`` too), or in the
error's class and message. Schemas are drawn over every field type; values are valid ones and
odd ones (subclasses of int/str/bytes/float and of the typed wrappers, bool in int fields,
IntEnum, bytearray and memoryview (released, strided, typed), NaN, huge and tiny numbers,
arbitrary objects, tampered UUIDs, Float32s and typed ints, datetimes whose tzinfo fails);
keys are valid, mutated or random bytes. Nothing but a
:class:`~lexcodecs.errors.LexCodecError` may leave either implementation.

The last tests check the compiled path is in use: the bound class is the compiled one, and
valid exact-type values of every field type, in every mode, never hand over.
"""

from __future__ import annotations

import array
import datetime as dt
import decimal
import math
import os
import struct
import uuid
import zoneinfo
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oddities import (
    Colour,
    Liar,
    MyBytes,
    MyFloat,
    MyInt,
    MyStr,
    both,
    pick,
    released_view,
    tampered_float32,
    tampered_uuid,
    unset_float32,
    uuid_without_int,
)

from lexcodecs import END, KeySchema, Versionstamp, _impl
from lexcodecs.codecs.lexkey import LexKeyCodec, LexKeyLegacyCodec
from lexcodecs.codecs.lexkey import format as lk_format
from lexcodecs.types import INT_TYPES, Float32, Int8, Int16, Int64, UInt8, UInt64

try:
    from lexcodecs.codecs.lexkey import _compiled
except ImportError:  # not built: there is no compiled run to compare
    _compiled = None  # type: ignore[assignment]

CODECS = [LexKeyCodec(), LexKeyLegacyCodec(), LexKeyCodec(nan="go"),
          LexKeyLegacyCodec(nan="go")]
CODEC_IDS = ["lexkey", "lexkey-legacy", "lexkey-go-nan", "lexkey-legacy-go-nan"]
TYPES = sorted(lk_format.FIELD_FORMATS)
UTC = dt.UTC
EPOCH = lk_format.EPOCH
_D = struct.Struct(">d")


def require_compiled() -> None:
    if _compiled is None:
        if os.environ.get(_impl.ENV_REQUIRE):
            pytest.fail(f"lexkey's compiled module is not built and {_impl.ENV_REQUIRE} is set")
        pytest.skip("lexkey's compiled module is not built")


# -- odd values ---------------------------------------------------------------------------------


class MyInt16(Int16):
    pass


class MyUUID(uuid.UUID):
    pass


class MyDatetime(dt.datetime):
    pass


class MyTimedelta(dt.timedelta):
    pass


class BrokenZone(dt.tzinfo):
    """A tzinfo whose offset fails, is missing, or is of the wrong type."""

    def __init__(self, how: str) -> None:
        self.how = how

    def utcoffset(self, when: dt.datetime | None) -> Any:
        if self.how == "raise":
            raise RuntimeError("no offset today")
        if self.how == "none":
            return None
        if self.how == "int":
            return 3600
        if self.how == "sub-timedelta":
            return MyTimedelta(hours=1)
        return dt.timedelta(hours=-3, seconds=-7, microseconds=-11)  # "odd"

    def __repr__(self) -> str:
        return f"BrokenZone({self.how!r})"


ODD: list[Any] = [
    None, END, True, False, 0, 1, -1, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64 - 1,
    2**64, 2**128, 2**200, -(2**200), 2**1024 - 1, 10**400, 2**53 + 1, 2**24 + 1,
    MyInt(5), MyInt(2**70), Colour.RED, Colour.BIG, MyInt16(-3), Int8(-128), UInt8(255),
    Int64(-(2**63)), UInt64(2**64 - 1), int.__new__(Int8, 1000), int.__new__(UInt8, -1),
    int.__new__(UInt64, 2**70), int.__new__(Int16, -40000), Liar(),
    0.0, -0.0, 1.5, -1.5, 5e-324, -5e-324, 1e300, -1e300, 3.4028235677973366e38,
    3.4028235677973362e38, 1e39, math.inf, -math.inf, math.nan, -math.nan,
    _D.unpack(bytes.fromhex("7ff0000000000001"))[0],
    _D.unpack(bytes.fromhex("fff8000000000123"))[0],
    -1.1125369292535997e-308, MyFloat(2.5), MyFloat(math.nan),
    Float32(3.14), Float32(-0.0), Float32(math.inf), Float32(math.nan),
    Float32.from_bits(0x7F800001), Float32.from_bits(0xFFC12345), Float32.from_bits(1),
    tampered_float32(123), tampered_float32("x"), tampered_float32(2**40),
    unset_float32(), unset_float32(1e300), unset_float32(2.0),
    "", "a", "a\x00b", "\ud800", "é🔥", MyStr("xy"), b"", b"\x00\xff", MyBytes(b"ab"),
    bytearray(b"\x00a"), memoryview(b"mv"), memoryview(b"abcdef")[::2],
    memoryview(array.array("i", [1, 2])), released_view(),
    uuid.UUID(int=0), uuid.UUID(int=2**128 - 1), MyUUID(int=7), tampered_uuid("x"),
    tampered_uuid(2**200), tampered_uuid(-1), tampered_uuid(2**128), tampered_uuid(True),
    tampered_uuid(MyInt(5)), uuid_without_int(),
    EPOCH, dt.datetime(2020, 1, 1), dt.datetime(2020, 1, 1, tzinfo=UTC),
    dt.datetime(1677, 9, 21, 0, 12, 43, 145225, tzinfo=UTC),
    dt.datetime(1677, 9, 21, 0, 12, 43, 145224, tzinfo=UTC),
    dt.datetime(2262, 4, 11, 23, 47, 16, 854775, tzinfo=UTC),
    dt.datetime(2262, 4, 11, 23, 47, 16, 854776, tzinfo=UTC),
    dt.datetime.max.replace(tzinfo=UTC), dt.datetime.min.replace(tzinfo=UTC),
    dt.datetime(2020, 3, 29, 2, 30, tzinfo=zoneinfo.ZoneInfo("Europe/Paris")),
    dt.datetime(2020, 10, 25, 2, 30, fold=1, tzinfo=zoneinfo.ZoneInfo("Europe/Paris")),
    dt.datetime(2000, 2, 29, 23, 59, 59, 999999,
                tzinfo=dt.timezone(dt.timedelta(hours=23, minutes=59))),
    *[dt.datetime(2001, 5, 6, 7, 8, 9, tzinfo=BrokenZone(how))
      for how in ("raise", "none", "int", "sub-timedelta", "odd")],
    MyDatetime(2020, 1, 1, tzinfo=UTC), dt.timedelta(0), dt.timedelta(microseconds=-1),
    dt.timedelta(microseconds=lk_format.US_MAX), dt.timedelta(microseconds=lk_format.US_MAX + 1),
    dt.timedelta(microseconds=lk_format.US_MIN), dt.timedelta(microseconds=lk_format.US_MIN - 1),
    dt.timedelta.max, dt.timedelta.min, MyTimedelta(days=1),
    dt.date(2020, 1, 1), dt.time(1, 2), decimal.Decimal("1.5"), 1 + 2j, (1, 2), [1], {"a": 1},
    {1}, object(), Versionstamp(b"\x01" * 10, 0), Colour, int, type(None),
]


def valid(field_type: str) -> st.SearchStrategy[Any]:
    """Exact-type values a field of *field_type* takes (what must never hand over)."""
    if field_type in INT_TYPES or field_type == "int":
        cls = lk_format.int_class(field_type)
        ints = st.integers(cls.min, cls.max)
        return ints | ints.map(cls)
    zones = st.sampled_from([UTC, dt.timezone(dt.timedelta(hours=5, minutes=30)),
                             dt.timezone(dt.timedelta(hours=-8)),
                             zoneinfo.ZoneInfo("Europe/Paris")])
    us = st.integers(lk_format.US_MIN, lk_format.US_MAX)
    return {
        "bool": st.booleans(),
        "float32": st.integers(0, 0xFFFFFFFF).filter(
            lambda b: b & 0x7F800000 != 0x7F800000 or not b & 0x007FFFFF).map(Float32.from_bits)
        | st.floats(allow_nan=False) | st.integers(-(2**63), 2**63 - 1),
        "float64": st.floats(allow_nan=False) | st.integers(-(2**53), 2**53)
        | st.floats(width=32).map(Float32),
        "uuid": st.uuids(),
        "timestamp": st.builds(lambda u, z: (EPOCH + dt.timedelta(microseconds=u)).astimezone(z),
                               us, zones),
        "duration": us.map(lambda u: dt.timedelta(microseconds=u)),
        "string": st.text(st.characters(blacklist_categories=["Cs"])),
        "bytes": st.binary() | st.binary().map(bytearray) | st.binary().map(memoryview),
    }[field_type]


ANY_ODD = pick(ODD)  # some are unhashable


def field_value(field_type: str) -> st.SearchStrategy[Any]:
    return st.one_of(valid(field_type), ANY_ODD, ANY_ODD)


@st.composite
def schema_and_values(draw: st.DrawFn) -> tuple[KeySchema, Any]:
    types = draw(st.lists(st.sampled_from(TYPES), min_size=1, max_size=4))
    schema = KeySchema.parse(", ".join(f"f{i}:{t}" for i, t in enumerate(types)))
    values: Any = [draw(field_value(t)) for t in types]
    shape = draw(st.sampled_from(["tuple"] * 6 + ["list", "short", "long", "str", "none"]))
    if shape == "tuple":
        values = tuple(values)
    elif shape == "short":
        values = tuple(values[:-1])
    elif shape == "long":
        values = (*values, 1)
    elif shape == "str":
        values = "ab"
    elif shape == "none":
        values = None
    return schema, values


def mutations(key: bytes) -> st.SearchStrategy[bytes]:
    """The key, cut, grown, with a byte changed, or random bytes of about its length."""
    at = st.integers(0, max(len(key) - 1, 0))
    return st.one_of(
        st.just(key),
        at.map(lambda i: key[:i]),
        st.binary(min_size=1, max_size=3).map(lambda tail: key + tail),
        st.tuples(at, st.integers(0, 255)).map(
            lambda p: key[:p[0]] + bytes([p[1]]) + key[p[0] + 1:] if key else bytes([p[1]])),
        st.binary(min_size=len(key), max_size=len(key)),
        st.binary(max_size=40),
    )


# -- the properties -----------------------------------------------------------------------------


@pytest.mark.parametrize("codec", CODECS, ids=CODEC_IDS)
@given(data=st.data())
def test_bound_encode_decode_prefix(codec: Any, data: st.DataObject) -> None:
    schema, values = data.draw(schema_and_values())
    got = both(lambda: codec.bind(schema).encode(values))
    if got[0] == "ok":
        key = got[1]
        for k in (key, data.draw(mutations(key)), bytearray(key), memoryview(key)):
            both(lambda k=k: codec.bind(schema).decode(k))
    if isinstance(values, tuple):
        prefix = values[:data.draw(st.integers(0, len(values)))]
        both(lambda: codec.bind(schema).prefix_range(prefix))
        both(lambda: codec.prefix_range(prefix, schema))


@pytest.mark.parametrize("codec", CODECS, ids=CODEC_IDS)
@given(values=st.one_of(
    st.lists(st.one_of(ANY_ODD, *[valid(t) for t in TYPES]), max_size=5).map(tuple),
    st.lists(ANY_ODD, max_size=3),
    st.sampled_from(["ab", None, 5, b"x", iter(())]),
))
def test_schemaless_encode(codec: Any, values: Any) -> None:
    got = both(lambda: codec.encode(values))
    if got[0] == "ok":
        both(lambda: codec.prefix_range(values))
        both(lambda: codec.encode_first(values))


@pytest.mark.parametrize("codec", CODECS, ids=CODEC_IDS)
@given(data=st.data())
def test_decode_valid_and_junk(codec: Any, data: st.DataObject) -> None:
    types = data.draw(st.lists(st.sampled_from(TYPES), min_size=1, max_size=5))
    schema = KeySchema.parse(", ".join(f"f{i}:{t}" for i, t in enumerate(types)))
    values = tuple(data.draw(valid(t)) for t in types)
    with _impl.use("reference"):
        key = codec.encode(values, schema)
    for k in (key, data.draw(mutations(key))):
        both(lambda k=k: codec.decode(k, schema))


@pytest.mark.parametrize("codec", CODECS, ids=CODEC_IDS)
def test_every_odd_value_in_every_field(codec: Any) -> None:
    """Each odd value alone, schemaless and in a field of every type, and between two
    valid parts: the two implementations agree (deterministic, so no odd value is missed)."""
    for v in ODD:
        both(lambda v=v: codec.encode((v,)))
        both(lambda v=v: codec.encode(["a", v, 1]))
        for t in TYPES:
            both(lambda v=v, t=t: codec.encode((v,), f"x:{t}"))
            both(lambda v=v, t=t: codec.encode(("a", v, 1), f"s:string, x:{t}, n:int64"))


def _patterns(width: int) -> list[int]:
    """Numbers of *width* bytes at the edges of every field type's reading."""
    top = (1 << (8 * width)) - 1
    sign = 1 << (8 * width - 1)
    exp = {8: 0x000FFFFFFFFFFFFF, 4: 0x007FFFFF}.get(width, 0)
    inf = {8: 0xFFF0000000000000, 4: 0xFF800000}.get(width, 0)
    go = {8: 0x7FF8000000000001, 4: 0x7FC00001}.get(width, 0)
    edges = {0, 1, 2, 0x7F, 0x80, 0xFF, 0x100, 1000, 0x7FFF, 0x8000, 0xFFFF, 0x10000,
             sign - 1, sign, sign + 1, sign + 1000, sign - 1000, top, top - 1, exp - 1, exp,
             exp + 1, inf - 1, inf, inf + 1, go, go - 1, sign - 2, 0x3FF0000000000000,
             0xBFF0000000000000, 0x40490FDB, 0xC0490FDB, 0x80000000FFFFFFFF,
             0x7FFFFFFF00000000, 0x8000000080000000, 0x8000000000000100}
    return sorted(e & top for e in edges)


def _keys_of(width: int) -> list[bytes]:
    return [n.to_bytes(width, "big") for n in _patterns(width)]


JUNK_TEXT = [b"", b"a", b"\x00", b"\xff", b"a\xffb", b"\xc3", b"\xc3\xa9", b"\xed\xa0\x80",
             b"\xf0\x9f\x94\xa5", b"\xf4\x90\x80\x80", b"\x00\x00x\x00"]


@pytest.mark.parametrize("codec", CODECS, ids=CODEC_IDS)
@pytest.mark.parametrize("field_type", TYPES)
def test_edge_keys_decode_alike(codec: Any, field_type: str) -> None:
    """Keys at the edge of every reading (ranges, float bits, NaN, microseconds, UTF-8), alone
    and between a bool and an int64, with the separator right and wrong."""
    width = codec.width(field_type)
    cores = JUNK_TEXT if width is None else [*_keys_of(width), bytes(width - 1),
                                             bytes(width + 1)]
    one = f"x:{field_type}"
    three = f"b:bool, x:{field_type}, n:int64"
    n = b"\x80" + bytes(7)
    for core in cores:
        both(lambda k=core: codec.decode(k, one))
        for flag in (b"\x00", b"\x01", b"\x02"):
            for sep in (b"\x00", b"\x01"):
                both(lambda k=flag + sep + core + b"\x00" + n: codec.decode(k, three))
    for key in [bytes([i]) for i in range(256)]:
        both(lambda k=key: codec.decode(k, one))


# -- the compiled path is in use ------------------------------------------------------------


@pytest.mark.parametrize("codec", CODECS, ids=CODEC_IDS)
def test_the_bound_class_is_compiled(codec: Any) -> None:
    require_compiled()
    with _impl.use("compiled"):
        bound = codec.bind("s:string, n:int64")
        assert type(bound) is _compiled.BoundLexKey
        assert type(bound).__module__ == "lexcodecs.codecs.lexkey._compiled"
    with _impl.use("reference"):
        assert type(codec.bind("s:string, n:int64")).__module__ == \
            "lexcodecs.codecs.lexkey.reference"


@pytest.mark.parametrize("codec", CODECS, ids=CODEC_IDS)
@pytest.mark.parametrize("field_type", TYPES)
@settings(max_examples=20)  # 68 cases: kept short
@given(data=st.data())
def test_valid_values_never_hand_over(codec: Any, field_type: str, data: st.DataObject) -> None:
    """Every field type, alone and between a string and an int64, in every mode: bound
    encode (of a tuple, a list, NULLs), prefix_range and decode stay compiled."""
    require_compiled()
    value = data.draw(valid(field_type) | st.just(math.nan)
                      if codec.go_nan and field_type.startswith("float") else valid(field_type))
    row = {"s": "user-1", "n": -42, "v": value}
    with _impl.use("compiled"):
        _impl.HANDOVERS.clear()
        for text in (f"v:{field_type}", f"s:string, v:{field_type}, n:int64",
                     f"n:int64, v:{field_type}"):
            bound = codec.bind(text)
            values = tuple(row[f.name] for f in bound.schema.fields)
            key = bound.encode(values)
            bound.encode(list(values))
            bound.encode(tuple(None for _ in values))
            bound.prefix_range(values[:1])
            if not (text.startswith("s:") and field_type in lk_format.VARIABLE):
                bound.decode(key)
        assert _impl.HANDOVERS["lexkey"] == 0


SCHEMALESS_VALUES = [
    None, END, True, False, 0, -(2**63), 2**63 - 1, Int8(-5), Int16(300), Int64(-7),
    UInt8(255), UInt64(2**64 - 1), *[cls(cls.max) for cls in INT_TYPES.values()],
    1.5, -0.0, math.inf, 5e-324, Float32(3.14), Float32(-0.0), Float32(math.inf), "", "é🔥",
    "a\x00b", b"", b"\x00\xff", bytearray(b"ab"), memoryview(b"cd"), uuid.UUID(int=2**127 + 5),
    EPOCH, dt.datetime(2262, 4, 11, 23, 47, 16, 854775, tzinfo=UTC),
    dt.datetime(2020, 6, 1, 12, tzinfo=zoneinfo.ZoneInfo("Europe/Paris")),
    dt.datetime(1677, 9, 21, 0, 12, 43, 145225, tzinfo=UTC), dt.timedelta(days=-3),
    dt.timedelta(microseconds=lk_format.US_MAX), dt.timedelta(microseconds=lk_format.US_MIN),
]


@pytest.mark.parametrize("codec", CODECS, ids=CODEC_IDS)
def test_schemaless_values_never_hand_over(codec: Any) -> None:
    require_compiled()
    values = SCHEMALESS_VALUES + ([math.nan, Float32(math.nan)] if codec.go_nan else [])
    with _impl.use("compiled"):
        _impl.HANDOVERS.clear()
        for v in values:
            codec.encode((v,))
            codec.encode(["x", v, 1])
        codec.encode(tuple(values))
        assert _impl.HANDOVERS["lexkey"] == 0
