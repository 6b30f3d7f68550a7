"""Unit and property tests of ``lexkey`` and ``lexkey-legacy`` (spec: specs/lexkey.md).

The byte-for-byte reference values live in ``conformance/vectors/lexkey*.json`` and are checked
by ``conformance/test_lexkey_vectors.py``; this file checks the Python side of the spec: the
type mapping of §2, the NaN option, schema coercion (§7) and refusals (LK-9), decoding (§6) as
a round trip and under fuzzing, the helpers (§4), and the orderings the format does promise.
"""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import math
import re
import struct
import uuid
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexcodecs import (
    END,
    DecodeError,
    EncodeError,
    Float32,
    Int8,
    Int16,
    Int32,
    Int64,
    KeySchema,
    LexCodecError,
    NotDecodableError,
    OptionError,
    SchemaError,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    UnsupportedTypeError,
    Versionstamp,
    get_codec,
)
from lexcodecs.codecs import lexkey
from lexcodecs.codecs.lexkey import LexKeyCodec, LexKeyLegacyCodec

CANON = LexKeyCodec()
LEGACY = LexKeyLegacyCodec()
CODECS = [pytest.param(CANON, id="lexkey"), pytest.param(LEGACY, id="lexkey-legacy")]
NAMES = ("lexkey", "lexkey-legacy")
UTC = dt.UTC
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
SIGNED = (Int8, Int16, Int32, Int64)
UNSIGNED = (UInt8, UInt16, UInt32, UInt64)
_D = struct.Struct(">d")
_Q = struct.Struct(">Q")


def h(data: bytes) -> str:
    return data.hex()


# -- registry, options, config ------------------------------------------------------------------


@pytest.mark.parametrize(("name", "cls"), [("lexkey", LexKeyCodec),
                                           ("lexkey-legacy", LexKeyLegacyCodec)])
def test_registered_builtins(name: str, cls: type[Any]) -> None:
    codec = get_codec(name)
    assert type(codec) is cls
    assert codec.name == name
    assert codec.options == {"nan": "error"}
    go = get_codec(name, nan="go")
    assert go.options == {"nan": "go"}
    assert go != codec


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("nan", ["error", "go"])
def test_config_round_trip(name: str, nan: str) -> None:
    codec = get_codec(name, nan=nan)
    config = codec.config()
    assert config == {"name": name, "nan": nan}
    again = get_codec(**config)
    assert again == codec
    assert type(again) is type(codec)
    assert again.encode((1.5, "x")) == codec.encode((1.5, "x"))


@pytest.mark.parametrize("name", NAMES)
def test_bad_options(name: str) -> None:
    with pytest.raises(OptionError) as info:
        get_codec(name, nan="bad")
    assert "nan" in str(info.value)
    with pytest.raises(OptionError):
        get_codec(name, nan=True)
    with pytest.raises(OptionError):
        get_codec(name, nam="go")


@pytest.mark.parametrize("codec", CODECS)
def test_capabilities(codec: Any) -> None:
    caps = codec.capabilities
    assert caps.decoding == "schema"
    assert caps.schemaless
    assert not caps.injective
    assert not caps.prefix_free
    assert not caps.descending
    assert "decimal" not in caps.field_types
    assert "tuple" not in caps.field_types
    assert caps.int_range == (-(2**63), 2**63 - 1)


# -- §2: Python values --------------------------------------------------------------------------


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize(("value", "want"), [
    (None, "00"), (END, "ff"), (False, "00"), (True, "01"),
    (0, "8000000000000000"), (-1, "7fffffffffffffff"), (123, "800000000000007b"),
    (-(2**63), "0000000000000000"), (2**63 - 1, "ffffffffffffffff"),
    (3.14, "c0091eb851eb851f"), (-3.14, "3ff6e147ae147ae0"),
    (0.0, "8000000000000000"), (-0.0, "0000000000000000"),
    (math.inf, "fff0000000000000"), (-math.inf, "000fffffffffffff"),
    ("hello", "68656c6c6f"), ("", ""), ("a\x00b", "610062"), ("é", "c3a9"),
    ("🔥", "f09f94a5"), (b"\x00\x01\xff", "0001ff"),
    (bytearray(b"\x00\x01\xff"), "0001ff"), (memoryview(b"\x00\x01\xff"), "0001ff"),
    (uuid.UUID("550e8400-e29b-41d4-a716-446655440000"), "550e8400e29b41d4a716446655440000"),
    (EPOCH, "8000000000000000"),
    (dt.timedelta(microseconds=42), "800000000000a410"),
    (dt.timedelta(0), "8000000000000000"),
    (dt.timedelta(microseconds=-1), "7ffffffffffffc18"),
    (dt.timedelta(seconds=1.5), "8000000059682f00"),
    (Int64(-123), "7fffffffffffff85"), (UInt64(2**63), "8000000000000000"),
    (UInt64(2**64 - 1), "ffffffffffffffff"),
], ids=lambda v: re.sub(r" at 0x[0-9a-f]+", "", repr(v)))
def test_same_in_both_codecs(codec: Any, value: Any, want: str) -> None:
    assert h(codec.encode((value,))) == want


@pytest.mark.parametrize(("value", "canonical", "legacy"), [
    (Int8(-5), "7ffffffffffffffb", "7b"),
    (Int8(-128), "7fffffffffffff80", "00"),
    (Int8(127), "800000000000007f", "ff"),
    (Int8(-123), "7fffffffffffff85", "05"),
    (Int8(-100), "7fffffffffffff9c", "1c"),
    (Int16(123), "800000000000007b", "807b"),
    (Int16(-123), "7fffffffffffff85", "7f85"),
    (Int16(-32768), "7fffffffffff8000", "0000"),
    (Int16(-12345), "7fffffffffffcfc7", "4fc7"),
    (Int32(-(2**31)), "7fffffff80000000", "00000000"),
    (Int32(12345678), "8000000000bc614e", "80bc614e"),
    (Int64(1), "8000000000000001", "8000000000000001"),
    (UInt8(123), "000000000000007b", "7b"),
    (UInt8(255), "00000000000000ff", "ff"),
    (UInt16(65535), "000000000000ffff", "ffff"),
    (UInt32(2**32 - 1), "00000000ffffffff", "ffffffff"),
    (UInt64(123), "000000000000007b", "000000000000007b"),
    (Float32(3.14), "c0091eb860000000", "c048f5c3"),
    (Float32(-3.14), "3ff6e1479fffffff", "3fb70a3c"),
    (Float32(0.0), "8000000000000000", "80000000"),
    (Float32(-0.0), "0000000000000000", "00000000"),
    (Float32(math.inf), "fff0000000000000", "ff800000"),
    (Float32(-math.inf), "000fffffffffffff", "007fffff"),
    (Float32.from_bits(1), "b6a0000000000000", "80000001"),
    (Float32.from_bits(0x7F7FFFFF), "c7efffffe0000000", "ff7fffff"),
], ids=repr)
def test_widths(value: Any, canonical: str, legacy: str) -> None:
    assert h(CANON.encode((value,))) == canonical
    assert h(LEGACY.encode((value,))) == legacy


class MyInt16(Int16):
    pass


class MyUInt8(UInt8):
    pass


class Colour(enum.IntEnum):
    RED = 1


class MyFloat(float):
    pass


class MyStr(str):
    pass


class MyBytes(bytes):
    pass


@pytest.mark.parametrize(("value", "canonical", "legacy"), [
    (MyInt16(-123), "7fffffffffffff85", "7f85"),
    (MyUInt8(7), "0000000000000007", "07"),
    (Colour.RED, "8000000000000001", "8000000000000001"),
    (MyFloat(1.0), "bff0000000000000", "bff0000000000000"),
    (MyStr("ab"), "6162", "6162"),
    (MyBytes(b"ab"), "6162", "6162"),
], ids=repr)
def test_subclasses(value: Any, canonical: str, legacy: str) -> None:
    """A subclass of a typed wrapper keeps its wrapper's width; other subclasses their base."""
    assert h(CANON.encode((value,))) == canonical
    assert h(LEGACY.encode((value,))) == legacy


@pytest.mark.parametrize("codec", CODECS)
def test_plain_int_range(codec: Any) -> None:
    for v in (2**63, 2**64 - 1):
        with pytest.raises(EncodeError) as info:
            codec.encode((v,))
        text = str(info.value)
        assert "UInt64" in text, text
        assert str(v) in text, text
        assert not isinstance(info.value, UnsupportedTypeError)
    for v in (2**64, -(2**63) - 1, 10**30):
        with pytest.raises(EncodeError) as info:
            codec.encode((v,))
        assert str(v)[:20] in str(info.value)
        assert "-9223372036854775808..9223372036854775807" in str(info.value)
    assert h(codec.encode((UInt64(2**63),))) == "8000000000000000"


@pytest.mark.parametrize(("cls", "bad"), [
    (Int8, 128), (Int8, -129), (Int16, 2**15), (Int32, -(2**31) - 1), (Int64, 2**63),
    (UInt8, 256), (UInt8, -1), (UInt16, 65536), (UInt32, 2**32), (UInt64, 2**64),
    (UInt64, -1),
])
def test_typed_range(cls: type[Any], bad: int) -> None:
    with pytest.raises(EncodeError) as info:
        cls(bad)
    text = str(info.value)
    assert str(bad) in text
    assert f"{cls.min}..{cls.max}" in text


@pytest.mark.parametrize("codec", CODECS)
def test_lone_surrogate_refused(codec: Any) -> None:
    for text in ("\ud800", "a\udfffb", "\udc80"):
        with pytest.raises(EncodeError) as info:
            codec.encode(("ok", text))
        assert not isinstance(info.value, UnsupportedTypeError)
        assert info.value.field == 1
        assert info.value.codec == codec.name


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize(("value", "type_name"), [
    (dt.date(2020, 1, 1), "date"), (dt.time(1, 2), "time"),
    (decimal.Decimal("1.5"), "Decimal"), ((1, 2), "tuple"), ([1], "list"),
    ({"a": 1}, "dict"), (1 + 2j, "complex"), ({1}, "set"), (frozenset(), "frozenset"),
    (Versionstamp(b"\x01" * 10, 0), "Versionstamp"), (object(), "object"),
    (Colour, "EnumType"),
], ids=lambda v: v if isinstance(v, str) else None)
def test_unsupported_types(codec: Any, value: Any, type_name: str) -> None:
    with pytest.raises(UnsupportedTypeError) as info:
        codec.encode(("x", value))
    assert type_name in str(info.value), str(info.value)
    assert info.value.field == 1
    assert isinstance(info.value, EncodeError)


@pytest.mark.parametrize("codec", CODECS)
def test_instants(codec: Any) -> None:
    t = dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)
    for zone in (UTC, dt.timezone(dt.timedelta(hours=5, minutes=30)),
                 dt.timezone(dt.timedelta(hours=-8))):
        assert h(codec.encode((t.astimezone(zone),))) == "97979cfe362a0000"
    assert h(codec.encode((t.replace(microsecond=123456),))) == "97979cfe3d85ca00"
    assert h(codec.encode((EPOCH - dt.timedelta(seconds=1),))) == "7fffffffc4653600"
    earliest = dt.datetime(1677, 9, 21, 0, 12, 43, 145225, tzinfo=UTC)
    latest = dt.datetime(2262, 4, 11, 23, 47, 16, 854775, tzinfo=UTC)
    assert h(codec.encode((earliest,))) == "0000000000000328"
    assert h(codec.encode((latest,))) == "fffffffffffffcd8"
    us = dt.timedelta(microseconds=1)
    for outside in (earliest - us, latest + us,
                    dt.datetime(2300, 1, 1, tzinfo=UTC), dt.datetime(1600, 1, 1, tzinfo=UTC),
                    dt.datetime.max.replace(tzinfo=UTC), dt.datetime.min.replace(tzinfo=UTC),
                    (latest + us).astimezone(dt.timezone(dt.timedelta(hours=3)))):
        with pytest.raises(EncodeError) as info:
            codec.encode((outside,))
        assert not isinstance(info.value, UnsupportedTypeError)


@pytest.mark.parametrize("codec", CODECS)
def test_naive_datetime_refused(codec: Any) -> None:
    for naive in (dt.datetime(2020, 1, 1), dt.datetime(1970, 1, 1)):
        with pytest.raises(EncodeError) as info:
            codec.encode((naive,))
        assert "naive" in str(info.value)
        with pytest.raises(EncodeError):
            codec.encode((naive,), "t:timestamp")


@pytest.mark.parametrize("codec", CODECS)
def test_duration_range(codec: Any) -> None:
    top = dt.timedelta(microseconds=(2**63 - 1) // 1000)       # 9223372036854775 us
    bottom = dt.timedelta(microseconds=-(2**63 // 1000))       # -9223372036854775 us
    assert codec.encode((top,)) == ((2**63 - 1) // 1000 * 1000 + 2**63).to_bytes(8, "big")
    assert codec.encode((bottom,)) == (-(2**63 // 1000) * 1000 + 2**63).to_bytes(8, "big")
    us = dt.timedelta(microseconds=1)
    for outside in (top + us, bottom - us, dt.timedelta.max, dt.timedelta.min):
        with pytest.raises(EncodeError) as info:
            codec.encode((outside,))
        assert not isinstance(info.value, UnsupportedTypeError)
        assert "duration" in str(info.value)


# -- §3.4: NaN ----------------------------------------------------------------------------------


NANS = [float("nan"), -float("nan"), _D.unpack(_Q.pack(0x7FF0000000000001))[0],
        _D.unpack(_Q.pack(0xFFF8000000000123))[0]]
F32_NANS = [Float32(float("nan")), Float32.from_bits(0xFFC00000), Float32.from_bits(0x7F800001),
            Float32.from_bits(0x7FC12345)]


@pytest.mark.parametrize("name", NAMES)
def test_nan_refused_by_default(name: str) -> None:
    codec = get_codec(name)
    for nan in NANS + F32_NANS:
        with pytest.raises(EncodeError) as info:
            codec.encode(("x", nan))
        assert "NaN" in str(info.value)
        assert not isinstance(info.value, UnsupportedTypeError)
        with pytest.raises(EncodeError):
            codec.encode((nan,), "x:float64")
        with pytest.raises(EncodeError):
            codec.encode((nan,), "x:float32")


@pytest.mark.parametrize(("name", "f64", "f32"), [
    ("lexkey", "7ff8000000000001", "7ff8000000000001"),
    ("lexkey-legacy", "7ff8000000000001", "7fc00001"),
])
def test_nan_go(name: str, f64: str, f32: str) -> None:
    codec = get_codec(name, nan="go")
    for nan in NANS:
        assert h(codec.encode((nan,))) == f64
        assert h(codec.encode((nan,), "x:float64")) == f64
        assert h(codec.encode((nan,), "x:float32")) == f32
    for nan in F32_NANS:
        assert h(codec.encode((nan,))) == f32
        assert h(codec.encode((nan,), "x:float32")) == f32
        assert h(codec.encode((nan,), "x:float64")) == f64
    # decoding: that key is NaN under nan="go", an ordinary negative number otherwise
    assert math.isnan(codec.decode(bytes.fromhex(f64), "x:float64")[0])
    got = codec.decode(bytes.fromhex(f32), "x:float32")[0]
    assert type(got) is Float32
    assert math.isnan(got)
    plain = get_codec(name)
    assert plain.decode(bytes.fromhex(f64), "x:float64")[0] == -1.1125369292535997e-308
    # ordinary numbers are unchanged by the option
    assert codec.encode((1.5, Float32(-2.0))) == plain.encode((1.5, Float32(-2.0)))


@pytest.mark.parametrize("codec", CODECS)
def test_negative_zero(codec: Any) -> None:
    assert codec.encode((-0.0,)) == bytes(8)
    assert codec.encode((-0.0,), "x:float64") == bytes(8)
    assert codec.encode((Float32(-0.0),)) == bytes(8 if codec is CANON else 4)
    assert codec.encode((-0.0,), "x:float32") == bytes(8 if codec is CANON else 4)
    assert codec.encode((0.0,)) != codec.encode((-0.0,))
    # -0.0 is the smallest float key: below -inf
    assert codec.encode((-0.0,)) < codec.encode((-math.inf,))
    back = codec.decode(bytes(8), "x:float64")[0]
    assert back == 0.0
    assert math.copysign(1.0, back) == -1.0


# -- §7: schemas --------------------------------------------------------------------------------


@pytest.mark.parametrize(("field_type", "canonical", "legacy"), [
    ("int8", 8, 1), ("int16", 8, 2), ("int32", 8, 4), ("int64", 8, 8), ("int", 8, 8),
    ("uint8", 8, 1), ("uint16", 8, 2), ("uint32", 8, 4), ("uint64", 8, 8),
    ("float32", 8, 4), ("float64", 8, 8),
])
def test_field_widths(field_type: str, canonical: int, legacy: int) -> None:
    schema = f"x:{field_type}"
    assert len(CANON.encode((7,), schema)) == canonical
    assert len(LEGACY.encode((7,), schema)) == legacy
    # a plain int takes the declared width: the same bytes as the typed value schemaless
    if field_type.startswith(("int", "uint")) and field_type != "int":
        from lexcodecs.types import INT_TYPES
        cls = INT_TYPES[field_type]
        for codec in (CANON, LEGACY):
            assert codec.encode((5,), schema) == codec.encode((cls(5),))


def test_int32_field_in_legacy_writes_four_bytes() -> None:
    assert h(LEGACY.encode(("foo", 42, True), "s:string, n:int32, b:bool")) == \
        "666f6f008000002a0001"
    assert h(CANON.encode(("foo", 42, True), "s:string, n:int32, b:bool")) == \
        "666f6f00800000000000002a0001"
    # a typed value of another width takes the field's width
    assert h(LEGACY.encode((Int8(-1),), "x:int32")) == "7fffffff"
    assert h(LEGACY.encode((UInt64(5),), "x:uint16")) == "0005"
    with pytest.raises(EncodeError):
        LEGACY.encode((200,), "x:int8")
    with pytest.raises(EncodeError):
        LEGACY.encode((-1,), "x:uint32")
    assert h(LEGACY.encode((2**64 - 1,), "x:uint64")) == "ffffffffffffffff"


@pytest.mark.parametrize("codec", CODECS)
def test_float32_field_coercion(codec: Any) -> None:
    assert codec.encode((3.14,), "x:float32") == codec.encode((Float32(3.14),))
    assert codec.encode((3,), "x:float32") == codec.encode((Float32(3.0),))
    assert codec.encode((2**24 + 1,), "x:float32") == codec.encode((Float32(2**24),))
    assert codec.encode((1e39,), "x:float32") == codec.encode((Float32(math.inf),))
    assert codec.encode((-1e39,), "x:float32") == codec.encode((Float32(-math.inf),))
    assert codec.encode((10**400,), "x:float32") == codec.encode((Float32(math.inf),))
    for bad in (True, "1.0", b"\x00", None.__class__):
        with pytest.raises(EncodeError):
            codec.encode((bad,), "x:float32")


@pytest.mark.parametrize("codec", CODECS)
def test_float64_field_coercion(codec: Any) -> None:
    assert codec.encode((2**53,), "x:float64") == codec.encode((float(2**53),))
    assert codec.encode((-(2**53),), "x:float64") == codec.encode((-float(2**53),))
    assert codec.encode((7,), "x:float64") == codec.encode((7.0,))
    assert codec.encode((0,), "x:float64") == codec.encode((0.0,))
    # a Float32 is widened exactly, 8 bytes in both codecs
    f = Float32(3.14)
    assert codec.encode((f,), "x:float64") == codec.encode((float(f),))
    assert len(codec.encode((f,), "x:float64")) == 8
    for inexact in (2**53 + 1, -(2**53) - 1, 2**64 + 1, 10**400):
        with pytest.raises(EncodeError) as info:
            codec.encode((inexact,), "x:float64")
        assert info.value.field == 0
    for bad in (True, False, "1", b"1"):
        with pytest.raises(EncodeError):
            codec.encode((bad,), "x:float64")


@pytest.mark.parametrize("codec", CODECS)
def test_float64_field_accepts_the_largest_exact_ints(codec: Any) -> None:
    """Spec §7: float64 fields accept an int that converts to float exactly; 2**1023 and
    the largest finite double (an int) are exact."""
    for v in (2**1023, -(2**1023), int(1.7976931348623157e308)):
        assert codec.encode((v,), "x:float64") == codec.encode((float(v),))


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("field_type", ["int8", "int16", "int32", "int64", "uint8", "uint16",
                                        "uint32", "uint64", "int"])
def test_bool_refused_in_int_fields(codec: Any, field_type: str) -> None:
    for bad in (True, False):
        with pytest.raises(EncodeError) as info:
            codec.encode((bad,), f"x:{field_type}")
        assert info.value.field == 0
    for bad in (1.0, "1", b"\x01"):
        with pytest.raises(EncodeError):
            codec.encode((bad,), f"x:{field_type}")


@pytest.mark.parametrize("codec", CODECS)
def test_wrong_kinds(codec: Any) -> None:
    cases = [
        ("bool", 1), ("bool", 0), ("bool", Int8(1)), ("bool", 1.0), ("bool", "true"),
        ("string", b"a"), ("string", 1), ("bytes", "a"), ("bytes", 1),
        ("uuid", "550e8400-e29b-41d4-a716-446655440000"), ("uuid", b"\x00" * 16),
        ("timestamp", 0), ("timestamp", dt.date(2020, 1, 1)), ("duration", 1000),
        ("duration", EPOCH), ("string", True),
    ]
    for field_type, value in cases:
        with pytest.raises(EncodeError) as info:
            codec.encode(("ok", value), f"a:string, x:{field_type}")
        assert info.value.field == 1, (field_type, value, str(info.value))
        assert info.value.codec == codec.name


@pytest.mark.parametrize("codec", CODECS)
def test_schema_accepts_right_kinds(codec: Any) -> None:
    schema = "s:string, b:bytes, o:bool, u:uuid, t:timestamp, d:duration"
    u = uuid.uuid4()
    t = dt.datetime(2020, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    d = dt.timedelta(days=3)
    values = ("x", bytearray(b"y"), True, u, t, d)
    assert codec.encode(values, schema) == codec.encode(("x", b"y", True, u, t, d))
    assert codec.encode(("x", memoryview(b"y"), False, u, t, d), schema) == \
        codec.encode(("x", b"y", False, u, t, d))


@pytest.mark.parametrize("codec", CODECS)
def test_none_in_any_field(codec: Any) -> None:
    types = ["string", "bytes", "bool", "int8", "uint16", "int32", "int64", "int", "uint64",
             "float32", "float64", "uuid", "timestamp", "duration"]
    for t in types:
        assert codec.encode((None,), f"x:{t}") == b"\x00"
        assert codec.encode((1, None), f"a:int64, x:{t}") == codec.encode((1,)) + b"\x00\x00"


@pytest.mark.parametrize("codec", CODECS)
def test_arity(codec: Any) -> None:
    schema = "a:string, b:int64"
    for values in ((), ("a",), ("a", 1, 2)):
        with pytest.raises(EncodeError):
            codec.encode(values, schema)
    with pytest.raises(EncodeError):
        codec.encode(())
    with pytest.raises(EncodeError):
        codec.encode([])
    with pytest.raises(LexCodecError):
        codec.encode("ab")  # a str is not a sequence of values
    with pytest.raises(LexCodecError):
        codec.encode(x for x in (1, 2))


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize(("schema", "words"), [
    ({"fields": [{"name": "s", "type": "string", "order": "desc"}]}, ("s", "desc")),
    ({"fields": [{"name": "n", "type": "int64", "nulls": "last"}]}, ("n", "last")),
    ({"fields": [{"name": "d", "type": "decimal"}]}, ("d", "decimal")),
    ({"fields": [{"name": "t", "type": "tuple"}]}, ("t", "tuple")),
    ({"fields": [{"name": "a", "type": "int32"},
                 {"name": "z", "type": "uint8", "order": "desc", "nulls": "first"}]},
     ("z", "desc")),
], ids=["desc", "nulls-last", "decimal", "tuple", "second-field-desc"])
def test_schema_refused_at_bind(codec: Any, schema: dict[str, Any],
                                words: tuple[str, ...]) -> None:
    parsed = KeySchema.from_dict(schema)
    with pytest.raises(SchemaError) as info:
        codec.bind(parsed)
    text = str(info.value)
    assert info.value.codec == codec.name
    for word in words:
        assert word in text.lower(), text
    # and nothing is encoded or decoded with it
    with pytest.raises(SchemaError):
        codec.encode((None,) * len(parsed.fields), parsed)
    with pytest.raises(SchemaError):
        codec.decode(b"\x00", parsed)


@pytest.mark.parametrize("codec", CODECS)
def test_schema_text_forms_accepted(codec: Any) -> None:
    # explicit asc and nulls first are the natural placement: accepted
    assert codec.encode((1,), "x:int64 asc nulls first") == codec.encode((1,), "x:int64")


# -- §4: helpers --------------------------------------------------------------------------------


@pytest.mark.parametrize("codec", CODECS)
def test_encode_first_last(codec: Any) -> None:
    key = codec.encode(("tenant", "users"))
    assert codec.encode_first(("tenant", "users")) == key + b"\x00"
    assert codec.encode_last(("tenant", "users")) == key + b"\xff"
    assert codec.prefix_range(("tenant", "users")) == (key + b"\x00", key + b"\xff")
    assert codec.prefix_range(()) == (b"", None)
    assert codec.prefix_range((), "a:string") == (b"", None)
    with pytest.raises(EncodeError):
        codec.encode_first(())
    with pytest.raises(EncodeError):
        codec.encode_last(())
    schema = "a:string, b:int32"
    key = codec.encode(("t", 7), schema)
    assert codec.encode_first(("t", 7), schema) == key + b"\x00"
    assert codec.encode_last(("t", 7), schema) == key + b"\xff"
    assert codec.prefix_range(("t", 7), schema) == (key + b"\x00", key + b"\xff")


@pytest.mark.parametrize("codec", CODECS)
def test_prefix_range_with_schema_takes_a_prefix(codec: Any) -> None:
    """prefix_range(values, schema) takes a *prefix* of the schema's fields (the Codec
    protocol; the bound form does), so the range of ('tenant',) under (a, b) is
    [enc('tenant') 00, enc('tenant') ff)."""
    schema = "a:string, b:string"
    want = (b"tenant\x00", b"tenant\xff")
    assert codec.bind(schema).prefix_range(("tenant",)) == want
    assert codec.prefix_range(("tenant",), schema) == want


def test_module_encode_first_is_canonical() -> None:
    assert h(lexkey.encode_first((Int32(7),))) == "800000000000000700"
    assert h(lexkey.encode_last((UInt16(7),))) == "0000000000000007ff"
    assert h(LEGACY.encode_first((Int32(7),))) == "8000000700"
    assert h(LEGACY.encode_last((UInt16(7),))) == "0007ff"
    with pytest.raises(EncodeError):
        lexkey.encode_first(())


@pytest.mark.parametrize("owner", [lexkey, LexKeyCodec, LexKeyLegacyCodec, CANON, LEGACY],
                         ids=["module", "LexKeyCodec", "LexKeyLegacyCodec", "lexkey",
                              "lexkey-legacy"])
def test_byte_helpers(owner: Any) -> None:
    assert owner.primary_key(b"partition", b"row") == b"partition\x00row"
    assert owner.primary_key(bytearray(b"p"), memoryview(b"r")) == b"p\x00r"
    assert owner.decode_primary_key(b"partition\x00row") == (b"partition", b"row")
    assert owner.decode_primary_key(b"\x00") == (b"", b"")
    assert owner.decode_primary_key(b"a\x00b\x00c") == (b"a", b"b\x00c")
    for bad in (b"", b"abc"):
        with pytest.raises(DecodeError):
            owner.decode_primary_key(bad)
    assert owner.range_key(b"part", b"start", b"end") == (b"part\x00start", b"part\x00end\xff")
    assert owner.range_key(b"part", b"start", b"end", with_partition=False) == \
        (b"\x00start", b"\x00end\xff")
    assert owner.range_key(b"tenant", b"", b"") == (b"tenant\x00", b"tenant\xff")
    assert owner.range_key(b"tenant", b"", b"", False) == (b"\x00", b"\xff")
    assert owner.to_hex(b"hello") == "68656c6c6f"
    assert owner.to_hex(b"") == ""
    assert owner.from_hex("68656C6c6F") == b"hello"
    assert owner.from_hex("") == b""
    for bad in ("123", "invalidhex", "0x00", "68 65", " 00", "00\n", "ab\u0661\u0662", "zz"):
        with pytest.raises(DecodeError):
            owner.from_hex(bad)
    for bad_type in (b"00", None, 12):
        with pytest.raises(DecodeError):
            owner.from_hex(bad_type)
    assert owner.to_json(b"hello") == '"68656c6c6f"'
    assert owner.to_json(b"") == '""'
    assert owner.from_json('"68656c6c6f"') == b"hello"
    assert owner.from_json("null") == b""
    assert owner.from_json('""') == b""
    assert owner.from_json(' "00ff" ') == b"\x00\xff"
    for bad in ("123", '"123"', '"zz"', "true", "[]", '{"a": 1}', "", "not json", '"00'):
        with pytest.raises(DecodeError):
            owner.from_json(bad)


@given(st.binary(), st.booleans())
def test_hex_json_round_trip(key: bytes, upper: bool) -> None:
    text = lexkey.to_hex(key)
    assert text == key.hex()
    assert lexkey.from_hex(text.upper() if upper else text) == key
    assert lexkey.from_json(lexkey.to_json(key)) == key


@given(st.binary().filter(lambda b: b"\x00" not in b), st.binary())
def test_primary_key_round_trip(partition: bytes, row: bytes) -> None:
    key = lexkey.primary_key(partition, row)
    assert lexkey.decode_primary_key(key) == (partition, row)


@given(st.binary(min_size=1).filter(lambda b: b"\x00" not in b),
       st.binary(min_size=1).filter(lambda b: b"\x00" not in b),
       st.binary().filter(lambda b: not b.startswith(b"\xff")))
def test_range_key_holds_its_rows(partition: bytes, row: bytes, tail: bytes) -> None:
    """Every row that starts with ``row`` (and does not go on with ff, the upper bound's own
    byte) lies in range_key(p, row, row): the declared leak, anything starting with row is
    inside."""
    lower, upper = lexkey.range_key(partition, row, row)
    key = lexkey.primary_key(partition, row + tail)
    assert lower <= key < upper
    lower, upper = lexkey.range_key(partition, b"", b"")
    assert lower <= key < upper


# -- §6: decoding -------------------------------------------------------------------------------


FIXED = ["bool", "int8", "int16", "int32", "int64", "int", "uint8", "uint16", "uint32",
         "uint64", "float32", "float64", "uuid", "timestamp", "duration"]
VARIABLE = ["string", "bytes"]
_US_MIN = -(2**63 // 1000)
_US_MAX = (2**63 - 1) // 1000


def _float64s() -> st.SearchStrategy[float]:
    return st.one_of(
        st.floats(allow_nan=False),
        st.sampled_from([0.0, -0.0, math.inf, -math.inf, 5e-324, -5e-324,
                         -1.1125369292535997e-308, 1.7976931348623157e308]),
    )


def _float32s() -> st.SearchStrategy[Float32]:
    bits = st.integers(0, 0xFFFFFFFF).filter(
        lambda b: not (b & 0x7F800000 == 0x7F800000 and b & 0x007FFFFF))
    return st.one_of(bits.map(Float32.from_bits),
                     st.floats(width=32, allow_nan=False).map(Float32))


def _values(field_type: str) -> st.SearchStrategy[Any]:
    from lexcodecs.types import INT_TYPES
    if field_type in INT_TYPES:
        cls = INT_TYPES[field_type]
        return st.integers(cls.min, cls.max)
    return {
        "bool": st.booleans(),
        "int": st.integers(-(2**63), 2**63 - 1),
        "float32": _float32s(),
        "float64": _float64s(),
        "uuid": st.uuids(),
        "timestamp": st.integers(_US_MIN, _US_MAX).map(
            lambda us: EPOCH + dt.timedelta(microseconds=us)),
        "duration": st.integers(_US_MIN, _US_MAX).map(lambda us: dt.timedelta(microseconds=us)),
        "string": st.text(st.characters(blacklist_categories=["Cs"])),
        "bytes": st.binary(),
    }[field_type]


@st.composite
def schemas(draw: st.DrawFn) -> list[str]:
    """Fixed-width field types plus at most one string/bytes field, anywhere."""
    types = draw(st.lists(st.sampled_from(FIXED), min_size=0, max_size=5))
    if draw(st.booleans()) or not types:
        at = draw(st.integers(0, len(types)))
        types.insert(at, draw(st.sampled_from(VARIABLE)))
    return types


@st.composite
def schema_and_values(draw: st.DrawFn) -> tuple[str, tuple[Any, ...], list[str]]:
    types = draw(schemas())
    values = tuple(draw(_values(t)) for t in types)
    text = ", ".join(f"f{i}:{t}" for i, t in enumerate(types))
    return text, values, types


def _same(field_type: str, got: Any, want: Any) -> bool:
    if field_type in ("float32", "float64"):
        if type(got) is not (Float32 if field_type == "float32" else float):
            return False
        return got == want and math.copysign(1.0, got) == math.copysign(1.0, want)
    if field_type == "bool":
        return type(got) is bool and got == want
    if field_type == "timestamp":
        return got == want and got.utcoffset() == dt.timedelta(0)
    if field_type == "bytes":
        return type(got) is bytes and got == want
    if field_type in FIXED and field_type not in ("uuid", "duration"):
        return type(got) is int and got == want
    return type(got) is type(want) and got == want


@pytest.mark.parametrize("codec", CODECS)
@given(data=schema_and_values())
def test_decode_round_trip(codec: Any, data: tuple[str, tuple[Any, ...], list[str]]) -> None:
    schema, values, types = data
    key = codec.encode(values, schema)
    widths = {t: codec.width(t) for t in FIXED}
    variable = sum(len(v.encode() if isinstance(v, str) else v)
                   for v, t in zip(values, types) if t in VARIABLE)
    assert len(key) == sum(widths[t] for t in types if t in widths) + len(types) - 1 + variable
    back = codec.decode(key, schema)
    assert len(back) == len(values)
    for t, got, want in zip(types, back, values):
        assert _same(t, got, want), f"{t}: got {got!r}, expected {want!r}"
    # what decodes re-encodes to the same key
    assert codec.encode(back, schema) == key


@st.composite
def junk(draw: st.DrawFn) -> tuple[str, bytes]:
    text, values, _ = draw(schema_and_values())
    codec = CANON if draw(st.booleans()) else LEGACY
    key = codec.encode(values, text)
    how = draw(st.sampled_from(["random", "flip", "cut", "grow", "same-length"]))
    if how == "random":
        key = draw(st.binary(max_size=60))
    elif how == "flip" and key:
        at = draw(st.integers(0, len(key) - 1))
        key = key[:at] + bytes([draw(st.integers(0, 255))]) + key[at + 1:]
    elif how == "cut" and key:
        key = key[:draw(st.integers(0, len(key) - 1))]
    elif how == "grow":
        key = key + draw(st.binary(min_size=1, max_size=3))
    else:
        key = draw(st.binary(min_size=len(key), max_size=len(key)))
    return text, key


@pytest.mark.parametrize("codec", CODECS)
@given(data=junk())
def test_decode_fuzz(codec: Any, data: tuple[str, bytes]) -> None:
    """Random bytes under a decodable schema: a refusal names the codec and an offset within
    the key, and whatever decodes re-encodes to exactly the same bytes. (That nothing but a
    DecodeError escapes is the harness's ``decode_junk`` check, on both implementations.)"""
    schema, key = data
    error: DecodeError | None = None
    try:
        back = codec.decode(key, schema)
    except DecodeError as exc:
        error = exc
    if error is not None:
        assert error.offset is not None
        assert 0 <= error.offset <= len(key)
        assert error.codec == codec.name
        return
    assert codec.encode(back, schema) == key


@pytest.mark.parametrize("codec", CODECS)
def test_not_decodable(codec: Any) -> None:
    for schema, names in (("first:string, second:string", ("first", "second")),
                          ("blob:bytes, n:int64, label:string", ("blob", "label")),
                          ("a:string, b:bytes, c:string", ("a", "b", "c"))):
        for key in (b"a\x00b", b"", b"\x00" * 40):
            with pytest.raises(NotDecodableError) as info:
                codec.decode(key, schema)
            text = str(info.value)
            for name in names:
                assert repr(name) in text or name in text, text
            assert info.value.codec == codec.name
    # a single variable field, or none, is fine
    assert codec.decode(b"a\x00b", "s:string") == ("a\x00b",)
    assert codec.decode(b"", "b:bytes") == (b"",)


@pytest.mark.parametrize("codec", CODECS)
def test_decode_errors(codec: Any) -> None:
    n = 8 if codec is CANON else 4
    one = codec.encode((1,), "x:int32")
    assert len(one) == n
    with pytest.raises(DecodeError) as info:
        codec.decode(one + b"\x00", "x:int32")
    assert info.value.offset == n + 1
    with pytest.raises(DecodeError) as info:
        codec.decode(one[:-1], "x:int32")
    assert info.value.offset == n - 1
    with pytest.raises(DecodeError) as info:
        codec.decode(one + b"\x01" + one, "x:int32, y:int32")
    assert info.value.offset == n
    with pytest.raises(DecodeError) as info:
        codec.decode(one + b"\x00\x02", "x:int32, y:bool")
    assert info.value.offset == n + 1
    assert info.value.field == 1
    with pytest.raises(DecodeError) as info:  # fewer bytes than the fixed parts
        codec.decode(b"ab", "x:int64, s:string")
    assert info.value.offset == 2
    # a timestamp must be whole microseconds
    with pytest.raises(DecodeError) as info:
        codec.decode(codec.encode((1,), "x:int64") + b"\x00ab", "t:timestamp, s:string")
    assert info.value.offset == 0


@pytest.mark.parametrize("codec", CODECS)
def test_invalid_utf8_offset_is_the_fields_first_byte(codec: Any) -> None:
    """Spec §6: "Any failure is a DecodeError at the field's first byte"."""
    for key, schema, offset in ((b"\xff", "s:string", 0),
                                (b"a\xff", "s:string", 0),
                                (b"abc\xc3", "s:string", 0),
                                (b"\x01\x00ab\xff", "b:bool, s:string", 2)):
        with pytest.raises(DecodeError) as info:
            codec.decode(key, schema)
        assert info.value.offset == offset, (key, str(info.value))


@pytest.mark.parametrize("codec", CODECS)
def test_decode_takes_bytes_only(codec: Any) -> None:
    """A key is bytes, bytearray or memoryview; anything else is a lexcodecs error, not a
    TypeError, and an int is not read as that many zero bytes."""
    outcomes = {}
    for bad in ("0000000000000000", 8, None, [0] * 8):
        try:
            outcomes[repr(bad)] = f"returned {codec.decode(bad, 'x:int64')!r}"
        except LexCodecError:
            continue
        except Exception as exc:
            outcomes[repr(bad)] = f"raised {type(exc).__name__}: {exc}"
    assert not outcomes, f"not refused with a lexcodecs error: {outcomes}"


@pytest.mark.parametrize("codec", CODECS)
def test_decode_types(codec: Any) -> None:
    schema = "a:int8, b:uint32, c:float32, d:float64, e:timestamp, f:duration, g:uuid, h:bool"
    u = uuid.UUID(int=5)
    t = dt.datetime(2020, 1, 2, 3, 4, 5, 6, tzinfo=dt.timezone(dt.timedelta(hours=-3)))
    values = (-5, 7, 0.5, 1, t, dt.timedelta(microseconds=-3), u, True)
    back = codec.decode(codec.encode(values, schema), schema)
    assert [type(v) for v in back] == [int, int, Float32, float, dt.datetime, dt.timedelta,
                                       uuid.UUID, bool]
    assert back == (-5, 7, 0.5, 1.0, t, dt.timedelta(microseconds=-3), u, True)
    assert back[4].utcoffset() == dt.timedelta(0)


def test_canonical_narrow_fields_must_fit() -> None:
    for field_type, value in (("int8", 128), ("int16", -(2**15) - 1), ("int32", 2**31),
                              ("uint8", 256), ("uint16", 2**16), ("uint32", 2**32)):
        key = CANON.encode((value,))  # a plain int: 8 bytes, signed
        if field_type.startswith("uint"):
            key = CANON.encode((UInt64(value),))
        with pytest.raises(DecodeError) as info:
            CANON.decode(key, f"x:{field_type}")
        assert info.value.offset == 0
    with pytest.raises(DecodeError):  # 3.14 is not a binary32 value
        CANON.decode(CANON.encode((3.14,)), "x:float32")


# -- ordering -----------------------------------------------------------------------------------


def _cmp(a: Any, b: Any) -> int:
    return (a > b) - (a < b)


def _typed(kinds: tuple[type[Any], ...]) -> st.SearchStrategy[Any]:
    def one(cls: Any) -> st.SearchStrategy[Any]:
        if cls is int:
            return st.integers(-(2**63), 2**63 - 1)
        return st.integers(cls.min, cls.max).map(cls) | st.sampled_from([cls(cls.min),
                                                                         cls(cls.max)])
    return st.one_of([one(c) for c in kinds])


@given(_typed((*SIGNED, int)), _typed((*SIGNED, int)))
def test_canonical_signed_widths_order_numerically(a: Any, b: Any) -> None:
    """In lexkey every signed int is an int64: Int8(-1) < Int32(0) < 5 < Int64(7) as keys."""
    assert _cmp(CANON.encode((a,)), CANON.encode((b,))) == _cmp(int(a), int(b))
    assert _cmp(CANON.encode((a, "z")), CANON.encode((b, "a"))) == (_cmp(int(a), int(b)) or 1)


@given(_typed(UNSIGNED), _typed(UNSIGNED))
def test_canonical_unsigned_widths_order_numerically(a: Any, b: Any) -> None:
    assert _cmp(CANON.encode((a,)), CANON.encode((b,))) == _cmp(int(a), int(b))


def test_canonical_kinds_do_not_compare() -> None:
    """Spec §5.5: signed and unsigned keys are different kinds; UInt64(123) < -1 as keys."""
    assert CANON.encode((UInt64(123),)) < CANON.encode((-1,))
    assert CANON.encode((UInt8(3),)) < CANON.encode((Int32(-1),))


@pytest.mark.parametrize("cls", [*SIGNED, *UNSIGNED])
@given(data=st.data())
def test_legacy_native_widths(cls: Any, data: st.DataObject) -> None:
    a = cls(data.draw(st.integers(cls.min, cls.max)))
    b = cls(data.draw(st.integers(cls.min, cls.max)))
    ka, kb = LEGACY.encode((a,)), LEGACY.encode((b,))
    assert len(ka) == cls.bits // 8
    assert len(CANON.encode((a,))) == 8
    assert _cmp(ka, kb) == _cmp(int(a), int(b))
    assert LEGACY.decode(ka, f"x:{cls.type_name}") == (int(a),)


def test_legacy_widths_do_not_compare() -> None:
    """Spec §5.6: Int32(1000) sorts below Int16(123) in lexkey-legacy."""
    assert LEGACY.encode((Int32(1000),)) < LEGACY.encode((Int16(123),))
    assert CANON.encode((Int32(1000),)) > CANON.encode((Int16(123),))


@pytest.mark.parametrize("codec", CODECS)
@given(a=_float64s(), b=_float64s())
def test_float64_order(codec: Any, a: float, b: float) -> None:
    """Byte order is numeric order for floats, except -0.0 (declared: it sorts first)."""
    ka, kb = codec.encode((a,)), codec.encode((b,))
    if a == 0.0 and b == 0.0:
        assert _cmp(ka, kb) == _cmp(math.copysign(1, a), math.copysign(1, b))
    elif a == 0.0 and math.copysign(1, a) < 0:
        assert ka < kb
    elif b == 0.0 and math.copysign(1, b) < 0:
        assert kb < ka
    else:
        assert _cmp(ka, kb) == _cmp(a, b)


@pytest.mark.parametrize("codec", CODECS)
@given(a=_float32s(), b=_float32s())
def test_float32_order(codec: Any, a: Float32, b: Float32) -> None:
    ka, kb = codec.encode((a,)), codec.encode((b,))
    assert len(ka) == (8 if codec is CANON else 4)
    if a.bits == 0x80000000 or b.bits == 0x80000000:
        assert _cmp(ka, kb) == _cmp(b.bits == 0x80000000, a.bits == 0x80000000)
    else:
        assert _cmp(ka, kb) == _cmp(a, b)


@pytest.mark.parametrize("codec", CODECS)
@given(a=st.tuples(st.text(st.characters(blacklist_categories=["Cs"],
                                         blacklist_characters="\x00"), max_size=4),
                   st.integers(-(2**63), 2**63 - 1)),
       b=st.tuples(st.text(st.characters(blacklist_categories=["Cs"],
                                         blacklist_characters="\x00"), max_size=4),
                   st.integers(-(2**63), 2**63 - 1)))
def test_string_int_tuples_order(codec: Any, a: tuple[str, int], b: tuple[str, int]) -> None:
    """Without 00 in strings, (str, int) keys order like (UTF-8 bytes, int) tuples."""
    ka, kb = codec.encode(a), codec.encode(b)
    assert _cmp(ka, kb) == _cmp((a[0].encode(), a[1]), (b[0].encode(), b[1]))


@given(st.integers(_US_MIN, _US_MAX), st.integers(_US_MIN, _US_MAX))
def test_instant_and_duration_order(a: int, b: int) -> None:
    ta, tb = EPOCH + dt.timedelta(microseconds=a), EPOCH + dt.timedelta(microseconds=b)
    assert _cmp(CANON.encode((ta,)), CANON.encode((tb,))) == _cmp(a, b)
    da, db = dt.timedelta(microseconds=a), dt.timedelta(microseconds=b)
    assert _cmp(LEGACY.encode((da,)), LEGACY.encode((db,))) == _cmp(a, b)
    # an instant is its nanoseconds as a signed int64
    assert CANON.encode((ta,)) == CANON.encode((a * 1000,))
