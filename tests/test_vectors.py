"""Tests of the vector loader, lexcodecs.testing.vectors: typed values, cases and files."""

from __future__ import annotations

import datetime
import decimal
import json
import math
import struct
import uuid
from pathlib import Path
from typing import Any

import pytest

from lexcodecs.errors import EncodeError
from lexcodecs.schema import Field, KeySchema
from lexcodecs.testing.vectors import (
    ENV_VAR,
    EPOCH,
    Unrepresentable,
    VectorFormatError,
    hex_to_bytes,
    load_vectors,
    schema_from_fields,
    typed_value,
    typed_values,
)
from lexcodecs.types import (
    END,
    INFINITY,
    UNDEFINED,
    Float32,
    Int8,
    Int16,
    Int32,
    Int64,
    Some,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Versionstamp,
)

UTC = datetime.UTC


def f64(bits: int) -> float:
    return float(struct.unpack(">d", bits.to_bytes(8, "big"))[0])


def bits64(value: float) -> int:
    return int.from_bytes(struct.pack(">d", value), "big")


def same(actual: Any, expected: Any) -> bool:
    """Exact equality: same type, floats by bits, Float32 by .bits, decimals by digits."""
    if type(actual) is not type(expected):
        return False
    if isinstance(expected, Float32):
        return bool(actual.bits == expected.bits)
    if isinstance(expected, float):
        return bits64(actual) == bits64(expected)
    if isinstance(expected, decimal.Decimal):
        return bool(actual.as_tuple() == expected.as_tuple())
    if isinstance(expected, tuple):
        return len(actual) == len(expected) and all(map(same, actual, expected))
    if isinstance(expected, datetime.datetime):
        return bool(actual == expected and actual.tzinfo == expected.tzinfo)
    return bool(actual == expected)


TABLE: list[tuple[dict[str, Any], Any]] = [
    ({"null": None}, None),
    ({"bool": True}, True),
    ({"bool": False}, False),
    ({"int": "0"}, 0),
    ({"int": "-123"}, -123),
    ({"int": str(2**200)}, 2**200),
    ({"int": "-5", "width": "int"}, -5),
    ({"int": "-5", "width": "int8"}, Int8(-5)),
    ({"int": "-300", "width": "int16"}, Int16(-300)),
    ({"int": "42", "width": "int32"}, Int32(42)),
    ({"int": str(-(2**63)), "width": "int64"}, Int64(-(2**63))),
    ({"int": "255", "width": "uint8"}, UInt8(255)),
    ({"int": "65535", "width": "uint16"}, UInt16(65535)),
    ({"int": "4294967295", "width": "uint32"}, UInt32(4294967295)),
    ({"int": str(2**64 - 1), "width": "uint64"}, UInt64(2**64 - 1)),
    ({"f64": "400921fb54442d18"}, math.pi),
    ({"f64": "0000000000000000"}, 0.0),
    ({"f64": "8000000000000000"}, -0.0),
    ({"f64": "fff0000000000000"}, -math.inf),
    ({"f64": "0000000000000001"}, 5e-324),
    ({"f64": "7ff8000000000001"}, f64(0x7FF8000000000001)),
    ({"f64": "fff8000000000000"}, f64(0xFFF8000000000000)),
    ({"f64": "7ff0000000000001"}, f64(0x7FF0000000000001)),
    ({"f32": "40490fdb"}, Float32.from_bits(0x40490FDB)),
    ({"f32": "80000000"}, Float32.from_bits(0x80000000)),
    ({"f32": "7fc00000"}, Float32.from_bits(0x7FC00000)),
    ({"f32": "ffa00001"}, Float32.from_bits(0xFFA00001)),
    ({"str": ""}, ""),
    ({"str": "a\x00b\u00e9\U0001f600"}, "a\x00b\u00e9\U0001f600"),
    ({"str": "\ud800"}, "\ud800"),
    ({"bytes": ""}, b""),
    ({"bytes": "00ff10"}, b"\x00\xff\x10"),
    ({"uuid": "550e8400-e29b-41d4-a716-446655440000"},
     uuid.UUID("550e8400-e29b-41d4-a716-446655440000")),
    ({"decimal": "-1.230"}, decimal.Decimal("-1.230")),
    ({"decimal": "1E+3"}, decimal.Decimal("1E+3")),
    ({"decimal": "-0"}, decimal.Decimal("-0")),
    ({"decimal": "NaN"}, decimal.Decimal("NaN")),
    ({"ts_ns": "0"}, EPOCH),
    ({"ts_ns": "1700000000123456000"},
     datetime.datetime(2023, 11, 14, 22, 13, 20, 123456, tzinfo=UTC)),
    ({"ts_ns": "-1000"}, datetime.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)),
    ({"ts_ns": "-9223372036854775000"},
     datetime.datetime(1677, 9, 21, 0, 12, 43, 145225, tzinfo=UTC)),
    ({"ts_ns": "9223372036854775000"},
     datetime.datetime(2262, 4, 11, 23, 47, 16, 854775, tzinfo=UTC)),
    ({"dur_ns": "42000"}, datetime.timedelta(microseconds=42)),
    ({"dur_ns": "-1000"}, datetime.timedelta(microseconds=-1)),
    ({"dur_ns": "9223372036854776000"}, datetime.timedelta(microseconds=9223372036854776)),
    ({"tuple": []}, ()),
    ({"tuple": [{"str": "a"}, {"null": None}, {"tuple": [{"int": "1", "width": "uint8"}]}]},
     ("a", None, (UInt8(1),))),
    ({"end": None}, END),
    ({"infinity": None}, INFINITY),
    ({"undefined": None}, UNDEFINED),
    ({"some": {"null": None}}, Some(None)),
    ({"some": {"some": {"null": None}}}, Some(Some(None))),
    ({"vs": {"tr": "0102030405060708090a", "user": 657}},
     Versionstamp(bytes(range(1, 11)), 657)),
    ({"vs": {"tr": None, "user": 0}}, Versionstamp(None, 0)),
]


@pytest.mark.parametrize(("obj", "expected"), TABLE, ids=[json.dumps(o) for o, _ in TABLE])
def test_typed_value_table(obj: dict[str, Any], expected: Any) -> None:
    actual = typed_value(obj)
    assert same(actual, expected), (actual, expected)


def test_table_covers_every_kind() -> None:
    kinds = {next(k for k in obj if k != "width") for obj, _ in TABLE}
    assert kinds == {"null", "bool", "int", "f64", "f32", "str", "bytes", "uuid", "decimal",
                     "ts_ns", "dur_ns", "tuple", "end", "infinity", "some", "undefined", "vs"}


def test_float_details() -> None:
    neg_zero = typed_value({"f64": "8000000000000000"})
    assert neg_zero == 0.0
    assert math.copysign(1.0, neg_zero) == -1.0
    nan = typed_value({"f64": "7ff8000000000001"})
    assert math.isnan(nan)
    assert bits64(nan) == 0x7FF8000000000001
    f32 = typed_value({"f32": "ffa00001"})
    assert type(f32) is Float32
    assert f32.bits == 0xFFA00001
    assert math.isnan(f32)
    assert typed_value({"f32": "3f800000"}) == 1.0


def test_decimal_scale_kept() -> None:
    value = typed_value({"decimal": "-1.230"})
    assert value.as_tuple() == decimal.Decimal("-1.230").as_tuple()
    assert value.as_tuple() == (1, (1, 2, 3, 0), -3)
    assert str(value) == "-1.230"


@pytest.mark.parametrize(("width", "cls"), [
    ("int8", Int8), ("int16", Int16), ("int32", Int32), ("int64", Int64),
    ("uint8", UInt8), ("uint16", UInt16), ("uint32", UInt32), ("uint64", UInt64),
])
def test_width_wrapper_type(width: str, cls: type) -> None:
    value = typed_value({"int": "7", "width": width})
    assert type(value) is cls
    assert value == 7


def test_plain_int_types() -> None:
    assert type(typed_value({"int": "7"})) is int
    assert type(typed_value({"int": "7", "width": "int"})) is int
    assert type(typed_value({"int": 7})) is int  # a JSON number is accepted too


def test_timestamp_is_aware_utc_and_exact() -> None:
    value = typed_value({"ts_ns": "1700000000123456000"})
    assert value.tzinfo is UTC
    assert value.microsecond == 123456
    # beyond float precision: fromtimestamp would be off by a microsecond or more
    far = typed_value({"ts_ns": "9223372036854775000"})
    assert (far - EPOCH) // datetime.timedelta(microseconds=1) == 9223372036854775


@pytest.mark.parametrize("obj", [{"ts_ns": "42"}, {"dur_ns": "42"}, {"ts_ns": "-1"},
                                 {"dur_ns": "1000000001"}])
def test_nanoseconds_unrepresentable(obj: dict[str, Any]) -> None:
    with pytest.raises(Unrepresentable, match="nanoseconds") as info:
        typed_value(obj)
    assert isinstance(info.value, ValueError)
    assert "nanoseconds" in info.value.reason


def test_nanoseconds_inside_a_tuple() -> None:
    with pytest.raises(Unrepresentable):
        typed_value({"tuple": [{"int": "1"}, {"dur_ns": "42"}]})


def test_versionstamp_incomplete() -> None:
    value = typed_value({"vs": {"tr": None, "user": 3}})
    assert type(value) is Versionstamp
    assert not value.is_complete()
    assert value.tr_version is None
    assert value.user_version == 3
    assert value.to_bytes() == b"\xff" * 10 + b"\x00\x03"
    complete = typed_value({"vs": {"tr": "0102030405060708090a", "user": 657}})
    assert complete.is_complete()
    assert complete.to_bytes().hex() == "0102030405060708090a0291"


def test_typed_values_gives_tuple() -> None:
    assert typed_values([{"str": "foo"}, {"int": "42"}]) == ("foo", 42)
    assert typed_values([]) == ()


@pytest.mark.parametrize("obj", [
    {"float": "1.5"},
    {"i32": "5"},
    {"nul": None},
])
def test_unknown_key(obj: dict[str, Any]) -> None:
    key = next(iter(obj))
    with pytest.raises(ValueError, match=repr(key)):
        typed_value(obj)


@pytest.mark.parametrize("width", ["int7", "INT8", "uint256", "float32", 8, None])
def test_bad_width(width: Any) -> None:
    if width is None:  # "width": null means "no width", which is allowed
        assert type(typed_value({"int": "1", "width": None})) is int
        return
    with pytest.raises(ValueError, match="width"):
        typed_value({"int": "1", "width": width})


@pytest.mark.parametrize("obj", [
    {},
    {"int": "1", "str": "a"},
    {"str": "a", "width": "int8"},
    {"int": "1.5"},
    {"int": "0x10"},
    {"int": True},
    {"bool": 1},
    {"null": 0},
    {"end": 0},
    {"undefined": False},
    {"some": {"int": "7"}},
    {"str": 5},
    {"bytes": "abc"},
    {"bytes": "zz"},
    {"bytes": "00 ff"},
    {"f64": "3ff"},
    {"f32": "3f8000000"},
    {"uuid": "nope"},
    {"decimal": "1.2.3"},
    {"tuple": {"int": "1"}},
    {"vs": {"tr": "01", "user": 0}},
    {"vs": {"tr": None}},
    [{"int": "1"}],
])
def test_malformed_values(obj: Any) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - any ValueError; messages vary
        typed_value(obj)


def test_out_of_range_width_is_refused_by_the_wrapper() -> None:
    with pytest.raises(EncodeError):
        typed_value({"int": "128", "width": "int8"})


def test_hex_to_bytes() -> None:
    assert hex_to_bytes("") == b""
    assert hex_to_bytes("00ffAB") == b"\x00\xff\xab"
    for bad in ("0", "0g", "00 ff", "0x00", " 00"):
        with pytest.raises(ValueError, match="hex"):
            hex_to_bytes(bad)


def test_schema_from_fields_names_fields() -> None:
    schema = schema_from_fields([{"type": "string"},
                                 {"type": "int64", "order": "desc", "nulls": "last"},
                                 {"type": "bytes", "final": True}])
    assert isinstance(schema, KeySchema)
    assert schema.names == ("f0", "f1", "f2")
    assert schema[1] == Field("f1", "int64", descending=True, nulls="last")
    assert schema[2].options["final"] is True


# -- files and cases ------------------------------------------------------------------------

SAMPLE: dict[str, Any] = {
    "codec": "toy",
    "oracle": "hand written",
    "notes": {"cases": "a sample"},
    "cases": [
        {"fields": [{"type": "int32"}], "values": [{"int": "-5"}], "hex": "0302fffffffa0001",
         "note": "a   long note that goes on and on and on, well past forty characters"},
        {"values": [{"str": "foo"}, {"int": "42"}], "hex": "02666f6f00152a",
         "options": {"nan": "go"}, "source": "made up"},
        {"fields": [{"type": "float64"}], "values": [{"f64": "7ff8000000000000"}],
         "error": "NaN is not encodable"},
        {"values": [{"dur_ns": "42"}], "hex": "2a", "note": "42 ns"},
        {"values": [{"int": "128", "width": "int8"}], "error": "out of range"},
    ],
    "ranges": [{"values": [], "start_hex": "00", "stop_hex": "ff"}],
}


def write(tmp_path: Path, data: Any, name: str = "toy.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_load_file(tmp_path: Path) -> None:
    vf = load_vectors(write(tmp_path, SAMPLE))
    assert vf.codec == "toy"
    assert vf.oracle == "hand written"
    assert vf.notes == {"cases": "a sample"}
    assert vf.path == tmp_path / "toy.json"
    assert vf.raw == SAMPLE
    assert len(vf.cases) == len(vf) == 5
    assert vf.section("ranges") == SAMPLE["ranges"]
    assert vf.section("helpers") == []
    assert vf.sections == ("ranges",)

    c0, c1, c2, c3, c4 = vf.cases
    assert c0.index == 0
    assert c0.values == (-5,)
    assert c0.key == bytes.fromhex("0302fffffffa0001")
    assert c0.schema == KeySchema.of(Field("f0", "int32"))
    assert c0.error is None
    assert c0.value_json == [{"int": "-5"}]
    assert c0.options == {}
    assert c0.id.startswith("cases[0] a long note")
    assert len(c0.id) <= len("cases[0] ") + 40
    assert c1.schema is None
    assert c1.values == ("foo", 42)
    assert c1.options == {"nan": "go"}
    assert c1.source == "made up"
    assert c1.note is None
    assert c1.id == "cases[1]"
    assert c2.key is None
    assert c2.error == "NaN is not encodable"
    assert c2.expects_error
    assert c2.values is not None
    assert math.isnan(c2.values[0])
    assert c3.values is None
    assert c3.skip_reason is not None
    assert "nanoseconds" in c3.skip_reason
    assert c3.key == b"\x2a"
    assert not c3.runnable
    assert c4.values is None
    assert c4.skip_reason is None
    assert c4.build_error is not None
    assert "EncodeError" in c4.build_error


def test_load_by_name_via_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, SAMPLE)
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    assert load_vectors("toy").codec == "toy"
    with pytest.raises(FileNotFoundError, match="toy"):
        load_vectors("tyo")


def test_load_by_name_walks_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vectors = tmp_path / "conformance" / "vectors"
    vectors.mkdir(parents=True)
    write(vectors, SAMPLE)
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.chdir(deep)
    assert load_vectors("toy").path == vectors / "toy.json"


def test_bundled_files_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    vf = load_vectors("skv")
    assert vf.codec == "skv"
    assert vf.cases
    with pytest.raises(FileNotFoundError, match="skv"):
        load_vectors("skvv")


@pytest.mark.parametrize(("case", "match"), [
    ({"values": [{"int": "1"}]}, "exactly one of"),
    ({"values": [{"int": "1"}], "hex": "01", "error": "x"}, "exactly one of"),
    ({"hex": "01"}, "values"),
    ({"values": [{"int": "1"}], "hex": "0"}, "hex"),
    ({"values": [{"integer": "1"}], "hex": "01"}, "'integer'"),
    ({"values": [{"int": "128", "width": "int8"}], "hex": "01"}, "refuses"),
    ({"fields": [{"type": "int33"}], "values": [{"int": "1"}], "hex": "01"}, "fields"),
])
def test_malformed_cases_name_the_case(tmp_path: Path, case: dict[str, Any], match: str
                                       ) -> None:
    data = {"codec": "toy", "cases": [SAMPLE["cases"][0], case]}
    with pytest.raises(VectorFormatError, match=match) as info:
        load_vectors(write(tmp_path, data))
    assert "cases[1]" in str(info.value)
    assert "toy.json" in str(info.value)


@pytest.mark.parametrize("data", [[], {"cases": []}, {"codec": "toy"}, {"codec": 1, "cases": []}])
def test_malformed_files(tmp_path: Path, data: Any) -> None:
    with pytest.raises(VectorFormatError):
        load_vectors(write(tmp_path, data))
