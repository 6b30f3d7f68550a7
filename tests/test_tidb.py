"""The ``tidb`` codec: the spec's tables as (value, bytes) cases, both ways; the options and
their framing; refusals; the schemaless decode; ``inspect``.

Every hex string below is oracle output quoted by ``specs/tidb.md`` (the vectors hold the
rest, ``conformance/test_tidb_vectors.py``). Order, round trips, prefix ranges and the
declared anomalies are the harness's (``test_tidb_conformance.py``); compiled against
reference is ``test_tidb_differential.py``. Every test here runs on both implementations.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import math
from typing import Any

import pytest

from lexcodecs import DecodeError, EncodeError, OptionError, SchemaError, get_codec
from lexcodecs.codecs.tidb import TidbCodec
from lexcodecs.testing import identical
from lexcodecs.types import Float32

pytestmark = pytest.mark.usefixtures("impl")

D = decimal.Decimal
UTC = _dt.UTC
CODEC = TidbCodec()

#: (schema, values, key): spec §2..§7, written and read back
TABLE: list[tuple[str, tuple[Any, ...], str]] = [
    ("n:int64", (-(2**63),), "030000000000000000"),
    ("n:int64", (-1,), "037fffffffffffffff"),
    ("n:int64", (0,), "038000000000000000"),
    ("n:int64", (2**63 - 1,), "03ffffffffffffffff"),
    ("u:uint64", (0,), "040000000000000000"),
    ("u:uint64", (2**64 - 1,), "04ffffffffffffffff"),
    ("n:int64", (None,), "00"),
    ("n:int64, s:string, x:float64, m:int64", (1, "abc", 5.5, 100),
     "038000000000000001016162630000000000fa05c016000000000000038000000000000064"),
    ("b:bytes", (b"",), "010000000000000000f7"),
    ("s:string", ("a",), "016100000000000000f8"),
    ("s:string", ("a\x00",), "016100000000000000f9"),
    ("s:string", ("abcdefg",), "016162636465666700fe"),
    ("s:string", ("abcdefgh",), "016162636465666768ff0000000000000000f7"),
    ("s:string", ("abcdefghi",), "016162636465666768ff6900000000000000f8"),
    ("s:string", ("TiDB",), "015469444200000000fb"),
    ("l:duration", (_dt.timedelta(0),), "078000000000000000"),
    ("l:duration", (_dt.timedelta(microseconds=-1),), "077ffffffffffffc18"),
    ("l:duration", (_dt.timedelta(hours=838, minutes=59, seconds=59),), "07800abb0971799600"),
    ("y:float32", (Float32(1.5),), "05bff8000000000000"),
    ("x:float64", (-math.inf,), "05000fffffffffffff"),
    ("x:float64", (-1.0,), "05400fffffffffffff"),
    ("x:float64", (5e-324,), "058000000000000001"),
    ("x:float64", (1.0,), "05bff0000000000000"),
    ("x:float64", (math.inf,), "05fff0000000000000"),
    ("d:decimal precision=14 frac=4", (D("1234567890.1234"),), "060e04810dfb38d204d2"),
    ("d:decimal precision=14 frac=4", (D("-1234567890.1234"),), "060e047ef204c72dfb2d"),
    ("d:decimal precision=5 frac=2", (D("1.50"),), "060502800132"),
    ("d:decimal precision=5 frac=2", (D("-1.50"),), "0605027ffecd"),
    ("d:decimal precision=10 frac=0", (D("1234567890"),), "060a00810dfb38d2"),
    ("d:decimal precision=10 frac=0", (D("1"),), "060a008000000001"),
    ("d:decimal precision=18 frac=9", (D("1.000000000"),), "0612098000000100000000"),
    ("d:decimal precision=3 frac=1", (D("9.5"),), "0603018905"),
    ("d:decimal", (D("0"),), "06010080"),
    ("d:decimal", (D("0.5"),), "06010185"),
    ("d:decimal", (D("1.000"),), "060403810000"),
    ("d:decimal", (D("10"),), "0602008a"),
    ("d:decimal", (D("9.5"),), "0602018905"),
    ("t:timestamp", (_dt.datetime(1970, 1, 1, tzinfo=UTC),), "041902c20000000000"),
    ("t:timestamp", (_dt.datetime(2016, 6, 23, 11, 30, 45, tzinfo=UTC),),
     "041999aeb7ad000000"),
    ("t:timestamp", (_dt.datetime(2023, 11, 14, 22, 13, 20, 123456, tzinfo=UTC),),
     "0419b19d635401e240"),
]


@pytest.mark.parametrize(("schema", "values", "key"), TABLE)
def test_spec_tables_both_ways(schema: str, values: tuple[Any, ...], key: str) -> None:
    assert CODEC.encode(values, schema).hex() == key
    assert identical(CODEC.decode(bytes.fromhex(key), schema), values)


# -- framing (spec §8) ----------------------------------------------------------------------

FRAMED: list[tuple[dict[str, Any], str, tuple[Any, ...], str]] = [
    ({"table_id": 1, "handle": "int"}, "h:int64", (2,),
     "7480000000000000015f728000000000000002"),
    ({"table_id": 4, "index_id": 5}, "a:int64, b:string, c:float64, h:int64",
     (1, "abc", 5.5, 100), "7480000000000000045f698000000000000005038000000000000001"
     "016162630000000000fa05c016000000000000038000000000000064"),
    ({"table_id": 42, "handle": "common"}, "pk:string", ("pk1",),
     "74800000000000002a5f7201706b310000000000fa"),
]


@pytest.mark.parametrize(("options", "schema", "values", "key"), FRAMED)
def test_framed_keys_both_ways(options: dict[str, Any], schema: str, values: tuple[Any, ...],
                               key: str) -> None:
    codec = get_codec("tidb", **options)
    assert codec.encode(values, schema).hex() == key
    assert codec.decode(bytes.fromhex(key), schema) == values
    assert codec.decode(bytes.fromhex(key)) == tuple(
        v.encode() if type(v) is str else v for v in values)  # 01 is bytes without a schema


def test_index_entries_sort_before_rows() -> None:
    index = TidbCodec(table_id=7, index_id=1).encode((2**63 - 1,), "n:int64")
    row = TidbCodec(table_id=7, handle="int").encode((-(2**63),), "h:int64")
    assert index < row


def test_prefix_range_of_a_framed_key() -> None:
    codec = TidbCodec(table_id=42, index_id=2)
    start, stop = codec.prefix_range(("alice",), "s:string, n:int64")
    assert start.hex() == "74800000000000002a5f69800000000000000201616c696365000000fc"
    assert stop == start[:-1] + b"\xfd"
    assert start < codec.encode(("alice", 1), "s:string, n:int64") < stop  # type: ignore[operator]


@pytest.mark.parametrize(("options", "which"), [
    ({"index_id": 1}, "index_id"), ({"handle": "int"}, "handle"),
    ({"table_id": 1, "index_id": 1, "handle": "common"}, "index_id"),
    ({"table_id": 2**63}, "table_id"), ({"table_id": True}, "table_id"),
    ({"handle": "row"}, "handle"),
])
def test_option_refusals(options: dict[str, Any], which: str) -> None:
    with pytest.raises(OptionError) as info:
        TidbCodec(**options)
    assert info.value.codec == "tidb"
    assert info.value.option == which


def test_key_of_another_table_is_refused() -> None:
    key = TidbCodec(table_id=43, handle="int").encode((7,), "h:int64")
    with pytest.raises(DecodeError, match="table id") as info:
        TidbCodec(table_id=42, handle="int").decode(key, "h:int64")
    assert info.value.offset == 8


# -- refusals -------------------------------------------------------------------------------


@pytest.mark.parametrize(("schema", "reason"), [
    ("n:int64 desc", "TiDB has no descending order"),
    ("d:decimal precision=5", "precision and frac go together"),
    ("d:decimal precision=5 frac=6", "frac 6 is above precision 5"),
    ("d:decimal precision=82 frac=0", "precision=82 is not allowed"),
    ("s:string precision=5 frac=1", "a decimal's options"),
    ("s:string nulls last", "NULL cannot sort last"),
    ("b:bool", "'bool' is not supported"),
])
def test_schema_refusals(schema: str, reason: str) -> None:
    with pytest.raises(SchemaError, match=reason) as info:
        CODEC.bind(schema)
    assert info.value.codec == "tidb"
    assert info.value.field == 0


def test_int_handle_is_one_int64_field() -> None:
    codec = TidbCodec(table_id=1, handle="int")
    for schema in ("h:uint64", "a:int64, b:int64"):
        with pytest.raises(SchemaError, match="exactly one int64"):
            codec.bind(schema)
    for handle in ("int", "common"):
        with pytest.raises(EncodeError, match="never NULL") as info:
            TidbCodec(table_id=1, handle=handle).encode((None,), "h:int64")
        assert info.value.field == 0


@pytest.mark.parametrize(("schema", "value", "reason"), [
    ("n:int64", 2**63, "out of range for int64"),
    ("n:int64", True, "bool value in an int64 field"),
    ("u:uint64", -1, "out of range for uint64"),
    ("y:float32", 0.1, "not a float32 value"),
    ("s:string", "\ud800", "lone surrogate"),
    ("s:string", b"x", "bytes value in a string field"),
    ("d:decimal precision=3 frac=1", D("123.4"), "out of range for DECIMAL"),
    ("d:decimal precision=5 frac=0", D("1.5"), "Data Truncated"),
    ("d:decimal", D("NaN"), "not a finite decimal"),
    ("d:decimal", D("1E-31"), "more than 30 fraction digits"),
    ("d:decimal", D("1" * 82), "Bad Number"),
    ("l:duration", _dt.timedelta(days=200000), "int64 nanosecond range"),
    ("t:timestamp", _dt.datetime(2000, 1, 1), "naive datetime"),
    ("t:timestamp", _dt.datetime(1, 1, 1, tzinfo=_dt.timezone(_dt.timedelta(hours=1))),
     "years 1..9999"),
    ("t:timestamp", _dt.date(2000, 1, 1), "date value in a timestamp field"),
])
def test_value_refusals_name_codec_field_value_and_reason(schema: str, value: Any,
                                                           reason: str) -> None:
    with pytest.raises(EncodeError, match=reason) as info:
        CODEC.encode(("ctx", value), f"c:string, {schema}")
    assert info.value.codec == "tidb"
    assert info.value.field == 1
    assert info.value.value is not None


def test_trailing_zeros_beyond_frac_are_no_truncation() -> None:
    """1.50 in DECIMAL(5,1) loses no digit: written as 1.5 (TiDB rounds to the column's
    scale before it builds a key)."""
    assert CODEC.encode((D("1.50"),), "d:decimal precision=5 frac=1") == \
        CODEC.encode((D("1.5"),), "d:decimal precision=5 frac=1")


# -- decoding -------------------------------------------------------------------------------

SCHEMALESS: list[tuple[str, tuple[Any, ...]]] = [
    ("00", (None,)),
    ("016162630000000000fa", (b"abc",)),
    ("037fffffffffffffff", (-1,)),
    ("04ffffffffffffffff", (2**64 - 1,)),
    ("05bff8000000000000", (1.5,)),
    ("060502800132", (D("1.50"),)),
    ("077ffffffffffffc18", (_dt.timedelta(microseconds=-1),)),
    ("0802", (1,)),
    ("0901", (1,)),
    ("0206616263", (b"abc",)),
]


@pytest.mark.parametrize(("key", "values"), SCHEMALESS)
def test_schemaless_decode_types_each_datum_by_its_flag(key: str, values: tuple[Any, ...]
                                                        ) -> None:
    assert identical(CODEC.decode(bytes.fromhex(key)), values)


@pytest.mark.parametrize(("schema", "key", "reason"), [
    ("n:int64", "", "ends before the field"),
    ("n:int64", "078000000000000000", "durationFlag"),
    ("u:uint64", "038000000000000000", "intFlag"),
    ("y:float32", "053ff0000000000001", "not a float32 value"),
    ("l:duration", "078000000000000001", "whole number of microseconds"),
    ("t:timestamp", "040000000000000000", "zero date"),
    ("t:timestamp", "0419033c0000000000", "no valid datetime"),
    ("s:string", "01ff00000000000000f8", "invalid UTF-8"),
    ("d:decimal", "060100fa", "Bad Number"),
    ("d:decimal", "0601007f", "negative zero"),
    ("d:decimal", "065200", "Bad Number"),
    ("n:int64", "08ff80", "insufficient bytes"),
    ("n:int64", "088000", "non-minimal varint"),
    ("n:int64", "038000000000000000038000000000000000", "bytes left"),
])
def test_decode_refusals(schema: str, key: str, reason: str) -> None:
    with pytest.raises(DecodeError, match=reason) as info:
        CODEC.decode(bytes.fromhex(key), schema)
    assert info.value.codec == "tidb"
    assert info.value.offset is not None


def test_schemaless_decode_refuses_durations_finer_than_microseconds() -> None:
    with pytest.raises(DecodeError, match="microseconds"):
        CODEC.decode(bytes.fromhex("078000000000000001"))


def test_decode_is_linear_in_a_long_bytes_datum() -> None:
    """A million groups decode (a quadratic reader would not finish)."""
    data = b"\xab" * 8_000_000
    key = CODEC.encode((data,), "b:bytes")
    assert CODEC.decode(key, "b:bytes") == (data,)
    assert len(key) == 1 + 9 * 1_000_001


# -- inspect --------------------------------------------------------------------------------


def test_inspect_shows_head_flags_groups_and_decimal_header() -> None:
    codec = TidbCodec(table_id=42, index_id=3)
    key = codec.encode((D("99.95"), 3), "d:decimal precision=10 frac=2, h:int64")
    view = codec.inspect(key, "d:decimal precision=10 frac=2, h:int64")
    roles = [(p.role, p.text) for p in view.fields[0].parts]
    assert roles[:4] == [("prefix", "74 't': a table key"), ("table", "table id 42"),
                         ("marker", "'_i': an index key"), ("index", "index id 3")]
    assert ("header", "precision 10, frac 2") in roles
    assert view.fields[1].value == 3
    groups = CODEC.inspect(bytes.fromhex("016162630000000000fa"))
    assert groups.fields[0].parts[1].text.endswith("last marker fa: 3 data byte(s)")


def test_columnar_packed_times_are_the_row_apis_across_the_calendar() -> None:
    """The kernel's packed time (its own civil-from-days, ``_layout.pxi``) against the row
    API's (``datetime``'s fields): every 97th day of years 1..9999 at a moving time of day,
    and the days around each leap day and century (both run compiled; the kernel only
    where the compiled modules are built)."""
    pa = pytest.importorskip("pyarrow")
    from lexcodecs.columnar import encode_arrow, kernel_available

    if not kernel_available():
        pytest.skip("the columnar kernel does not run here (not built, or the reference in force)")
    first, last = _dt.date(1, 1, 1).toordinal(), _dt.date(9999, 12, 31).toordinal()
    days = set(range(first, last + 1, 97)) | {first, last}
    for year in range(4, 10000, 4):  # Feb 28, the day after (a leap day or not), Mar 1
        feb28 = _dt.date(year, 2, 28).toordinal()
        days |= {feb28, feb28 + 1, feb28 + 2}
    values = [_dt.datetime.combine(_dt.date.fromordinal(d), _dt.time(), _dt.UTC)
              + _dt.timedelta(microseconds=d * 7_919_993 % 86_400_000_000)
              for d in sorted(days)]
    table = pa.table({"t": pa.array(values, pa.timestamp("us", tz="UTC"))})
    codec = TidbCodec()
    written = encode_arrow(table, "t:timestamp", codec).to_pylist()
    assert written == [codec.encode((v,), "t:timestamp") for v in values]
    # many times on few days, back and forth across midnight: the kernel keeps its last
    # date and reuses it for the next time on that day (column by column and row by row)
    days = [_dt.datetime(2024, 2, 28, tzinfo=_dt.UTC) + _dt.timedelta(days=d)
            for d in (0, 1, 2, 1, 367)]
    times = [day + _dt.timedelta(microseconds=us)
             for day in days for us in (0, 1, 86_399_999_999, 43_200_000_000, 0)]
    times = [*times, *reversed(times), None, times[3]]
    table = pa.table({"t": pa.array(times, pa.timestamp("us", tz="UTC")),
                      "s": [str(i) for i in range(len(times))]})
    for names in (["t"], ["t", "s"]):
        schema = ", ".join(f"{n}:{'timestamp' if n == 't' else 'string'}" for n in names)
        bound = codec.bind(schema)
        rows = zip(*(table.column(n).to_pylist() for n in names))
        assert encode_arrow(table.select(names), schema, codec).to_pylist() == \
            [bound.encode(row) for row in rows], schema
