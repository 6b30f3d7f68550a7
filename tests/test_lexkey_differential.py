"""``lexkey`` and ``lexkey-legacy``: the compiled module and the reference code agree (issue 14).

:class:`~lexcodecs.testing.DifferentialConformance` runs the bound ``encode``, ``decode`` and
``prefix_range`` and the schemaless ``encode`` under both implementations, for both width
modes and both NaN options, on valid and hostile values and keys, and checks the compiled path
is in use. What is LexKey's own is here: valid values of every exact type a field takes
(typed ints, Float32s, datetimes in any zone, durations at the nanosecond range's edges),
instants and durations just past that range and in zones that no longer exist, keys at the
edge of every field's reading, and ``encode_first`` beside ``encode``.
"""

from __future__ import annotations

import array
import datetime as dt
import math
import uuid
import zoneinfo
from typing import Any

import pytest
from hypothesis import strategies as st

from lexcodecs import END, KeySchema, _impl
from lexcodecs.codec import Codec
from lexcodecs.codecs.lexkey import LexKeyCodec, LexKeyLegacyCodec
from lexcodecs.codecs.lexkey import format as lk_format
from lexcodecs.testing import DifferentialConformance
from lexcodecs.testing.differential import Operation, both
from lexcodecs.types import INT_TYPES, Float32, Int8, Int16, Int64, UInt8, UInt64

CODECS = [LexKeyCodec(), LexKeyLegacyCodec(), LexKeyCodec(nan="go"),
          LexKeyLegacyCodec(nan="go")]
CODEC_IDS = ["lexkey", "lexkey-legacy", "lexkey-go-nan", "lexkey-legacy-go-nan"]
TYPES = sorted(lk_format.FIELD_FORMATS)
UTC = dt.UTC
EPOCH = lk_format.EPOCH
PARIS = zoneinfo.ZoneInfo("Europe/Paris")


class MyInt16(Int16):
    pass


#: LexKey's own edges: the nanosecond range of instants and durations, and zones
ODD: list[Any] = [
    MyInt16(-3), memoryview(array.array("i", [1, 2])), EPOCH,
    dt.datetime(1677, 9, 21, 0, 12, 43, 145225, tzinfo=UTC),
    dt.datetime(1677, 9, 21, 0, 12, 43, 145224, tzinfo=UTC),
    dt.datetime(2262, 4, 11, 23, 47, 16, 854775, tzinfo=UTC),
    dt.datetime(2262, 4, 11, 23, 47, 16, 854776, tzinfo=UTC),
    dt.datetime(2020, 3, 29, 2, 30, tzinfo=PARIS),
    dt.datetime(2020, 10, 25, 2, 30, fold=1, tzinfo=PARIS),
    dt.timedelta(microseconds=lk_format.US_MAX), dt.timedelta(microseconds=lk_format.US_MAX + 1),
    dt.timedelta(microseconds=lk_format.US_MIN), dt.timedelta(microseconds=lk_format.US_MIN - 1),
]


def valid(field_type: str) -> st.SearchStrategy[Any]:
    """Exact-type values a field of *field_type* takes (what must never hand over)."""
    if field_type in INT_TYPES or field_type == "int":
        cls = lk_format.int_class(field_type)
        ints = st.integers(cls.min, cls.max)
        return ints | ints.map(cls)
    zones = st.sampled_from([UTC, dt.timezone(dt.timedelta(hours=5, minutes=30)),
                             dt.timezone(dt.timedelta(hours=-8)), PARIS])
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


class TestLexKeyDifferential(DifferentialConformance):
    codec = CODECS[0]
    variants = tuple(CODECS[1:])
    example_share = 0.35
    extra_odd_values = ODD
    context = (("n:int64", -42), ("s:string", "user-1"))
    schemaless_values = (
        None, END, True, False, 0, -(2**63), 2**63 - 1, Int8(-5), Int16(300), Int64(-7),
        UInt8(255), UInt64(2**64 - 1), *[cls(cls.max) for cls in INT_TYPES.values()],
        1.5, -0.0, math.inf, 5e-324, Float32(3.14), Float32(-0.0), Float32(math.inf), "",
        "é🔥", "a\x00b", b"", b"\x00\xff", bytearray(b"ab"), memoryview(b"cd"),
        uuid.UUID(int=2**127 + 5), EPOCH, dt.datetime(2262, 4, 11, 23, 47, 16, 854775, tzinfo=UTC),
        dt.datetime(2020, 6, 1, 12, tzinfo=PARIS),
        dt.datetime(1677, 9, 21, 0, 12, 43, 145225, tzinfo=UTC), dt.timedelta(days=-3),
        dt.timedelta(microseconds=lk_format.US_MAX), dt.timedelta(microseconds=lk_format.US_MIN),
        math.nan, Float32(math.nan))  # NaN: the "go" codecs' (the others refuse it)

    def valid_keys(self, codec: Codec, schema: KeySchema) -> st.SearchStrategy[tuple[Any, ...]]:
        nan = st.just(math.nan) if getattr(codec, "go_nan", False) else st.nothing()
        return st.tuples(*(st.none() | valid(f.type) | (nan if f.type.startswith("float")
                                                        else st.nothing())
                           for f in schema.fields))

    def extra_encode_operations(self, codec: Codec, schema: KeySchema, values: Any, k: int,
                                data: st.DataObject | None = None) -> list[Operation]:
        return [("encode_first(values)", lambda: codec.encode_first(values))]  # type: ignore[attr-defined]

    def test_reference_binds_the_reference_class(self) -> None:
        for codec in self.codecs():
            with _impl.use("reference"):
                assert type(codec.bind("s:string, n:int64")).__module__ == \
                    "lexcodecs.codecs.lexkey.bound"


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
