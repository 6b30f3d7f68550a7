"""The user's data for ``compare``: JSON Lines, CSV, SQLite, Parquet and keys in a store.

Each input kind is read into Records; the key columns are named, reordered and made
descending by key text; a schema is proposed from SQLite's declared types and Parquet's
Arrow types; a CSV without types is refused with the key text to copy; and hostile input
(bad CSV, wrong types, text that is not UTF-8, a missing table, a directory for a file,
random bytes) raises a SourceError naming the source, line or row, column and reason --
never a foreign exception. Keys in stores are decoded on both implementations.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import decimal
import io
import random
import sqlite3
import sys
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from lexcodecs import KeySchema, LexCodecError, SchemaError, get_codec
from lexcodecs.cli import CliError
from lexcodecs.cli.sources import add_source_arguments, load_records
from lexcodecs.sources import (
    KeyColumn,
    Records,
    SourceError,
    arrow_field_type,
    field_name,
    guess_type,
    parse_key,
    read_csv,
    read_jsonl,
    read_lmdb_keys,
    read_parquet,
    read_sqlite,
    read_sqlite_keys,
    sqlite_field_type,
)
from lexcodecs.sources.values import text_reader, value_reader
from lexcodecs.types import Float32

UTC = dt.UTC
USERS = "user_id,created,email,score\n" \
        "1,2024-01-01T10:00:00Z,a@x,1.5\n" \
        "2,2024-01-02 10:00:00,,2\n" \
        "3,,c@x,-0.0\n"


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return path


def refusal(call: Any, *args: Any, **kwargs: Any) -> SourceError:
    with pytest.raises(SourceError) as info:
        call(*args, **kwargs)
    return info.value


# -- key text --------------------------------------------------------------------------------


def test_key_text_names_columns_with_optional_types() -> None:
    key = parse_key('user_id, created:timestamp desc nulls last, tag asc x="a, b"')
    assert key == (
        KeyColumn("user_id"),
        KeyColumn("created", "timestamp", True, "last"),
        KeyColumn("tag", None, False, None, {"x": "a, b"}),  # a comma inside quotes
    )


@pytest.mark.parametrize(("text", "column", "reason"), [
    ("user_id dsc", 9, "unknown modifier 'dsc'"),  # after a left-out type: the column as typed
    ("a:int46", 3, "unknown field type 'int46'"),
    ("a, , b", 4, "a column name is missing"),
    ("a,", 3, "a column name is missing"),
    ("   ", 1, "the key names no column"),
    ("a nulls", 8, "'nulls' needs a placement"),
])
def test_key_text_errors_point_at_the_mistake(text: str, column: int, reason: str) -> None:
    with pytest.raises(SchemaError) as info:
        parse_key(text)
    assert info.value.reason.startswith(reason)
    assert info.value.text == text
    assert info.value.position is not None
    assert info.value.position + 1 == column


def test_column_names_become_field_names() -> None:
    assert [field_name(n, i) for i, n in enumerate(["user id", "a+1", "2nd", "", "ok.x-y"])] \
        == ["user_id", "a_1", "_2nd", "column4", "ok.x-y"]


# -- values ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("field_type", "text", "value"), [
    ("string", " a b ", " a b "),
    ("bytes", "00ff", b"\x00\xff"), ("bytes", "0x00FF", b"\x00\xff"), ("bytes", "\\x01", b"\x01"),
    ("bytes", "", b""),
    ("bool", "TRUE", True), ("bool", "f", False), ("bool", "1", True), ("bool", "no", False),
    ("int8", "-128", -128), ("uint64", "18446744073709551615", 2**64 - 1),
    ("int", "-" + "9" * 50, -int("9" * 50)),
    ("float64", "-0.0", -0.0), ("float64", "1e308", 1e308), ("float64", "-inf", -float("inf")),
    ("float32", "0.1", Float32(0.1)),
    ("decimal", "1.50", decimal.Decimal("1.50")), ("decimal", "-Infinity",
                                                   decimal.Decimal("-Infinity")),
    ("uuid", "{12345678-1234-5678-1234-567812345678}",
     uuid.UUID("12345678-1234-5678-1234-567812345678")),
    ("timestamp", "2024-01-31", dt.datetime(2024, 1, 31, tzinfo=UTC)),
    ("timestamp", "2024-01-31T12:00:00.5+01:00",
     dt.datetime(2024, 1, 31, 11, 0, 0, 500000, tzinfo=UTC)),
    ("timestamp", "2024-01-31 12:00:00.1234569", dt.datetime(2024, 1, 31, 12, 0, 0, 123456,
                                                             tzinfo=UTC)),  # floored
    ("duration", "P1W2DT3H4M5.5S", dt.timedelta(days=9, hours=3, minutes=4, seconds=5.5)),
    ("duration", "-PT0.0000015S", dt.timedelta(microseconds=-2)),  # floored, below
    ("duration", "PT0.0000019S", dt.timedelta(microseconds=1)),
    ("duration", "-1:30:00", -dt.timedelta(hours=1, minutes=30)),
])
def test_text_forms(field_type: str, text: str, value: Any) -> None:
    got = text_reader(field_type)(text)
    assert got == value
    assert type(got) is type(value)
    if isinstance(value, float):
        assert str(got) == str(value)  # -0.0 stays negative


@pytest.mark.parametrize(("field_type", "text", "reason"), [
    ("bytes", "0g", "is not hex"), ("bytes", "abc", "odd number of hex digits"),
    ("bool", "maybe", "is not a boolean"),
    ("int8", "128", "out of range for int8 (-128..127)"), ("uint8", "-1", "out of range"),
    ("int64", "1.0", "is not a whole number"), ("int64", "1_000", "is not a whole number"),
    ("int", "9" * 5000, "too long to read"),
    ("float64", "1_0", "is not a number"), ("float64", "", "is not a number"),
    ("decimal", "1,5", "is not a decimal number"),
    ("uuid", "1234", "is not a UUID"),
    ("timestamp", "2024-13-01", "is not an ISO 8601 timestamp"),
    ("duration", "P1Y", "is not a duration"), ("duration", "PT", "is not a duration"),
    ("duration", "12345", "is not a duration"),
    ("duration", "P99999999999999999D", "beyond the range of a duration"),
    ("tuple", "(1, 2)", "not readable from text"),
])
def test_bad_text_is_refused_with_the_reason(field_type: str, text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=r".") as info:
        text_reader(field_type)(text)
    assert reason in str(info.value)


@pytest.mark.parametrize(("field_type", "value", "expected"), [
    ("int16", 5.0, 5), ("int64", decimal.Decimal("7"), 7), ("bool", 1, True),
    ("float64", 3, 3.0), ("float32", 0.5, Float32(0.5)),
    ("decimal", 1.1, decimal.Decimal("1.1")), ("decimal", 3, decimal.Decimal(3)),
    ("uuid", b"\x01" * 16, uuid.UUID(bytes=b"\x01" * 16)),
    ("timestamp", 86400, dt.datetime(1970, 1, 2, tzinfo=UTC)),
    ("timestamp", dt.datetime(2024, 1, 1), dt.datetime(2024, 1, 1, tzinfo=UTC)),
    ("timestamp", dt.date(2024, 1, 1), dt.datetime(2024, 1, 1, tzinfo=UTC)),
    ("duration", 1500, dt.timedelta(microseconds=1500)),
    ("string", b"caf\xc3\xa9", "café"),  # a self-describing key's string, as bytes
    ("tuple", [1, "a"], (1, "a")),
])
def test_python_values_convert_only_exactly(field_type: str, value: Any, expected: Any) -> None:
    got = value_reader(field_type)(value)
    assert got == expected
    assert type(got) is type(expected)


@pytest.mark.parametrize(("field_type", "value", "reason"), [
    ("int16", 5.5, "type float in a int16 column"), ("int64", True, "type bool"),
    ("int8", 300, "out of range for int8"), ("bool", 2, "type int in a bool column"),
    ("float64", 2**53 + 1, "not exactly a float64"),
    ("bytes", "00", "CAST(column AS BLOB)"), ("string", b"\xff", "not UTF-8"),
    ("uuid", b"\x00" * 15, "15 bytes where a UUID has 16"),
    ("timestamp", 1.5, "ISO 8601 text or whole seconds"),
    ("timestamp", 10**12, "beyond the years 1..9999"),
])
def test_python_values_refused(field_type: str, value: Any, reason: str) -> None:
    with pytest.raises(ValueError, match=r".") as info:
        value_reader(field_type)(value)
    assert reason in str(info.value)


def test_guessing_a_type_from_values() -> None:
    assert guess_type(["1", "-5", None]) == "int64"
    assert guess_type(["18446744073709551615", "0"]) == "uint64"
    assert guess_type(["1", "1.5"]) == "float64"
    assert guess_type(["true", "False"]) == "bool"
    assert guess_type(["0", "1"]) == "int64"  # not bool: a column of 0 and 1 is a number
    assert guess_type(["2024-01-01", "2024-01-02T10:00Z"]) == "timestamp"
    assert guess_type(["20240101"]) == "int64"
    assert guess_type([str(uuid.UUID(int=5))]) == "uuid"
    assert guess_type(["PT1S"]) == "duration"
    assert guess_type(["a", "1"]) == "string"
    assert guess_type([1, 2.5]) == "float64"
    assert guess_type([b"x"]) == "bytes"
    assert guess_type([1, "x"]) is None
    assert guess_type([None]) is None


# -- CSV -------------------------------------------------------------------------------------


def test_csv_with_typed_key_columns_in_key_order(tmp_path: Path) -> None:
    path = write(tmp_path / "users.csv", USERS)
    records = read_csv(path, key="created:timestamp desc nulls last, user_id:int64")
    assert isinstance(records, Records)
    assert str(records.schema) == "created:timestamp desc nulls last, user_id:int64"
    assert records.columns == ("created", "user_id")
    assert records.rows == [(dt.datetime(2024, 1, 1, 10, tzinfo=UTC), 1),
                            (dt.datetime(2024, 1, 2, 10, tzinfo=UTC), 2), (None, 3)]
    assert records.source == (f"CSV {path}, key (created desc nulls last, user_id); 3 rows")
    assert not records.proposed


def test_csv_schema_alone_is_matched_by_name(tmp_path: Path) -> None:
    path = write(tmp_path / "users.csv", USERS)
    records = read_csv(path, schema="score:float64 desc, email:string")
    assert records.rows == [(1.5, "a@x"), (2.0, None), (-0.0, "c@x")]  # empty cell: NULL
    assert records.schema.fields[0].descending


def test_csv_key_text_types_override_the_schema(tmp_path: Path) -> None:
    path = write(tmp_path / "users.csv", USERS)
    records = read_csv(path, key="user_id:uint8, score", schema="score:decimal, user_id:int64")
    assert str(records.schema) == "user_id:uint8, score:decimal"
    assert records.rows[2] == (3, decimal.Decimal("-0.0"))


def test_csv_without_types_shows_the_key_to_copy(tmp_path: Path) -> None:
    path = write(tmp_path / "users.csv", USERS)
    err = refusal(read_csv, path, key="user_id, created desc nulls last")
    assert str(err).startswith(f"CSV {path}: no field type for the key columns 'user_id', "
                               "'created': give the types in the key, e.g. ")
    assert "--key 'user_id:int64, created:timestamp desc nulls last'" in str(err)
    err = refusal(read_csv, path)
    assert "--key 'user_id:int64, created:timestamp, email:string, score:float64'" in str(err)


@pytest.mark.parametrize(("text", "key", "message"), [
    (USERS, "user_id:int8, email:int64",
     "line 2, column 'email' (int64): 'a@x' is not a whole number"),
    ("a\n1\n300\n", "a:int8", "line 3, column 'a' (int8): 300 is out of range for int8"),
    ("a,b\n1,2\n3\n", "a:int64", "line 3: 1 value where the header names 2 columns"),
    ("a,b\n1,\"2\n3,4\n", "a:int64", "line 3: not valid CSV: unexpected end of data"),
    ("a,b\n1,2\n", "c:int64", "no column named 'c'; the columns are: a, b"),
    ("a,b\n1,2\n", "A:int64", "no column named 'A' (did you mean 'a'?)"),
    ("a,b\n1,2\n", "a:int64, a", "the key names column 'a' twice"),
    ("a,b\n1,2\n", "a:tuple", "column 'a': a tuple field is not readable from CSV"),
    ("", "a:int64", "the file is empty"),
    ("a,b\n1\n", "b", "no field type for the key column 'b': give the types in the key, "
     "e.g. --key 'b:TYPE'"),  # a short row does not stop the guess
    ("a\n" + "x" * 200_000 + "\n", "a:string", "line 2: not valid CSV: field larger than"),
])
def test_csv_refusals_say_where_and_why(tmp_path: Path, text: str, key: str,
                                        message: str) -> None:
    path = write(tmp_path / "in.csv", text)
    assert str(refusal(read_csv, path, key=key)).startswith(f"CSV {path}: {message}")


def test_csv_schema_and_key_must_agree(tmp_path: Path) -> None:
    path = write(tmp_path / "users.csv", USERS)
    err = refusal(read_csv, path, key="user_id:int64", schema="user_id:int64, score:float64")
    assert "the schema's field 'score' is not among the key columns" in str(err)


def test_csv_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    path = write(tmp_path / "in.csv", b"a,b\n1,2\n3,\xff\n")
    err = refusal(read_csv, path, key="a:int64")
    assert (err.line, err.source) == (3, f"CSV {path}")
    assert "not UTF-8 text: byte b'\\xff'" in str(err)


def test_csv_byte_order_mark_crlf_blank_lines_and_tsv(tmp_path: Path) -> None:
    path = write(tmp_path / "in.csv", b"\xef\xbb\xbfa,b c\r\n1,x\r\n\r\n2,\"y,z\"\r\n")
    records = read_csv(path, key="b_c:string, a:int64")
    assert records.rows == [("x", 1), ("y,z", 2)]
    assert records.columns == ("b c", "a")  # the header's names; the fields' are b_c, a
    tsv = write(tmp_path / "in.tsv", "a\tb\n1\t2\n")
    assert read_csv(tsv, key="b:int64").rows == [(2,)]


def test_files_that_are_not_there_or_are_directories(tmp_path: Path) -> None:
    for reader, kwargs in ((read_csv, {"key": "a:int64"}), (read_parquet, {"key": "a"})):
        assert str(refusal(reader, tmp_path / "nope", **kwargs)).endswith(
            "nope: No such file or directory")
        assert str(refusal(reader, tmp_path, **kwargs)).endswith(
            f"{tmp_path}: is a directory, not a file")


def test_sampling_keeps_a_seeded_uniform_sample_in_input_order(tmp_path: Path) -> None:
    path = write(tmp_path / "n.csv", "n\n" + "".join(f"{i}\n" for i in range(1000)))
    one = read_csv(path, key="n:int64", limit=50, seed=1)
    assert len(one.rows) == 50
    assert one.rows == sorted(one.rows)
    assert one.rows == read_csv(path, key="n:int64", limit=50, seed=1).rows
    assert one.rows != read_csv(path, key="n:int64", limit=50, seed=2).rows
    assert one.rows[-1][0] > 500  # not the first 50 rows
    assert one.source.endswith("50 of 1,000 rows, a uniform sample (seed 1)")
    assert read_csv(path, key="n:int64", limit=0).rows == []
    with pytest.raises(SourceError, match="at least 0"):
        read_csv(path, key="n:int64", limit=-5)


def test_every_row_is_checked_even_beyond_the_limit(tmp_path: Path) -> None:
    path = write(tmp_path / "n.csv", "n\n1\n2\nx\n")
    assert refusal(read_csv, path, key="n:int64", limit=1).line == 4


# -- JSON Lines ------------------------------------------------------------------------------

JSONL = '["a", 1, {"bytes": "00ff"}]\n\n["b", null, {"bytes": ""}]\n'


def test_json_lines_with_a_key_that_picks_and_reorders(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", JSONL)
    schema = "s:string, n:int64, b:bytes"
    records = read_jsonl(path, schema)
    assert records.rows == [("a", 1, b"\x00\xff"), ("b", None, b"")]
    assert records.source == f"JSON Lines {path}, key (s, n, b); 2 records"
    records = read_jsonl(io.BytesIO(JSONL.encode()), schema, key="b, n desc", name="stdin")
    assert (str(records.schema), records.rows) == ("b:bytes, n:int64 desc",
                                                  [(b"\x00\xff", 1), (b"", None)])


def test_json_lines_errors_keep_their_line_numbers() -> None:
    with pytest.raises(LexCodecError, match=r"^records line 3: expected a JSON array of 2"):
        read_jsonl(io.BytesIO(b'["a", 1]\n\n["b"]\n'), "s:string, n:int64")
    with pytest.raises(SourceError, match=r"^records line 2: not UTF-8 text"):
        read_jsonl(io.BytesIO(b'["a", 1]\n["\xff", 2]\n'), "s:string, n:int64")


# -- SQLite ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("declared", "field_type"), [
    ("INTEGER", "int64"), ("INT", "int64"), ("BIGINT", "int64"), ("TINYINT", "int8"),
    ("SMALLINT", "int16"), ("MEDIUMINT", "int32"), ("UNSIGNED BIG INT", "uint64"),
    ("TINYINT UNSIGNED", "uint8"), ("VARCHAR(255)", "string"), ("NCHAR(2)", "string"),
    ("CLOB", "string"), ("TEXT", "string"), ("BLOB", "bytes"), ("REAL", "float64"),
    ("DOUBLE PRECISION", "float64"), ("FLOAT", "float64"), ("DECIMAL(10, 2)", "decimal"),
    ("NUMERIC", "decimal"), ("BOOLEAN", "bool"), ("DATETIME", "timestamp"),
    ("timestamp", "timestamp"), ("DATE", "timestamp"), ("UUID", "uuid"),
    ("INTERVAL", "duration"), ("", None), ("JSON", None), ("POINT", "int64"),  # INT in it
])
def test_sqlite_declared_types_propose_field_types(declared: str, field_type: str | None
                                                   ) -> None:
    assert sqlite_field_type(declared) == field_type


@pytest.fixture
def events(tmp_path: Path) -> Path:
    path = tmp_path / "events.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE events (tenant VARCHAR(20), at DATETIME, id BLOB, "
                     "amount DECIMAL(10,2), flag BOOLEAN, n TINYINT, loose, "
                     "PRIMARY KEY (tenant, at DESC)) WITHOUT ROWID")
        conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)", [
            ("acme", "2024-01-01 10:00:00", b"\x01", 1.5, 1, 5, "x"),
            ("acme", 1700000000, b"\x02", "2.25", 0, -3, 2),
            ("b", "2024-02-01", None, None, None, None, None),
        ])
        conn.execute("CREATE TABLE texts (t TEXT)")
        conn.execute("INSERT INTO texts VALUES ('ok'), (CAST(x'ff' AS TEXT))")
    conn.close()
    return path


def test_sqlite_table_proposes_its_primary_key(events: Path) -> None:
    records = read_sqlite(events, table="events")
    assert str(records.schema) == "tenant:string, at:timestamp desc"
    assert records.proposed
    assert records.rows == [("acme", dt.datetime(2024, 1, 1, 10, tzinfo=UTC)),
                            ("acme", dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)),
                            ("b", dt.datetime(2024, 2, 1, tzinfo=UTC))]
    assert records.source == f"SQLite {events}, table events, key (tenant, at desc); 3 rows"


def test_sqlite_key_columns_types_and_order(events: Path) -> None:
    records = read_sqlite(events, table="events", key="amount desc, flag, id, n")
    assert str(records.schema) == "amount:decimal desc, flag:bool, id:bytes, n:int8"
    assert records.rows == [(decimal.Decimal("1.5"), True, b"\x01", 5),
                            (decimal.Decimal("2.25"), False, b"\x02", -3),
                            (None, None, None, None)]
    given = read_sqlite(events, table="events", key="n:int64 desc", schema="n:int16")
    assert (str(given.schema), given.proposed) == ("n:int64 desc", False)


def test_sqlite_query_columns_keep_their_declared_types(events: Path) -> None:
    query = "SELECT tenant AS who, n + 1 FROM events WHERE n IS NOT NULL;"
    err = refusal(read_sqlite, events, query=query, key="who, n_1 desc")
    assert "no field type for the key column 'n + 1'" in str(err)
    assert "--key 'who:string, n_1:int64 desc'" in str(err)
    records = read_sqlite(events, query=query, key="who, n_1:int64 desc")
    assert (str(records.schema), records.rows) == ("who:string, n_1:int64 desc",
                                                  [("acme", 6), ("acme", -2)])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"table": "nope"}, "no table or view named 'nope'; the database has: events, texts"),
    ({"query": "DELETE FROM events"}, "the query does not run: near \"DELETE\""),
    ({"query": "SELECT 1; DROP TABLE events"}, "the query does not run"),
    ({"table": "events", "key": "loose"}, "no field type for the key column 'loose'"),
    ({"table": "events", "key": "n:uint8"},
     "row 2, column 'n' (uint8): -3 is out of range for uint8"),
    ({"table": "events", "key": "id:uuid"},
     "row 1, column 'id' (uuid): b'\\x01': 1 bytes where a UUID has 16"),
    ({"table": "events", "key": "loose:string"},
     "row 2, column 'loose' (string): 2: a value of type int in a string column"),
    ({"table": "texts", "key": "t"}, "row 2: Could not decode to UTF-8"),
    ({"table": "events", "key": "tenant", "query": "SELECT 1"}, "give a table or a query"),
])
def test_sqlite_refusals(events: Path, kwargs: dict[str, Any], message: str) -> None:
    assert message in str(refusal(read_sqlite, events, **kwargs))


def test_sqlite_proposed_type_refusal_hints_at_another(events: Path) -> None:
    with sqlite3.connect(events) as conn:
        conn.execute("UPDATE events SET n = 300 WHERE tenant = 'b'")
    conn.close()
    err = refusal(read_sqlite, events, table="events", key="n")
    assert "300 is out of range for int8" in str(err)
    assert "int8 was proposed from the declared type 'TINYINT'" in str(err)
    assert "e.g. 'n:int64'" in str(err)


def test_sqlite_is_opened_read_only(events: Path) -> None:
    before = events.read_bytes()
    read_sqlite(events, query="SELECT tenant FROM events", key="tenant")
    assert events.read_bytes() == before
    assert not list(events.parent.glob("*-journal"))
    assert not list(events.parent.glob("*-wal"))


def test_sqlite_not_a_database(tmp_path: Path) -> None:
    junk = write(tmp_path / "junk.db", b"this is not a database" * 100)
    assert "not an SQLite database" in str(refusal(read_sqlite, junk, table="t"))
    assert "is a directory" in str(refusal(read_sqlite, tmp_path, table="t"))
    assert "no such database file" in str(refusal(read_sqlite, tmp_path / "no.db", table="t"))


# -- Parquet ---------------------------------------------------------------------------------


def test_parquet_proposes_the_schema_from_arrow_types(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table({
        "id": pa.array([3, 1], pa.int32()),
        "ts": pa.array([1_700_000_000_123_456_789, -1], pa.timestamp("ns")),
        "at": pa.array([0, None], pa.timestamp("s", tz="Europe/Paris")),
        "u": pa.array([uuid.UUID(int=1).bytes, None], pa.uuid()),
        "guid": pa.array([b"\x02" * 16, b"\x03" * 16], pa.binary(16)),
        "fixed": pa.array([b"ab", b"cd"], pa.binary(2)),
        "amount": pa.array([decimal.Decimal("1.50"), None], pa.decimal128(10, 2)),
        "name": pa.array(["a", "b"]).dictionary_encode(),
        "big": pa.array(["x", "y"], pa.large_string()),
        "blob": pa.array([b"", b"\x00"], pa.large_binary()),
        "took": pa.array([1000, -1], pa.duration("ns")),
        "f": pa.array([1.5, float("nan")], pa.float32()),
        "h": pa.array([0.5, None], pa.float16()),
        "d": pa.array([1.0, 2.0], pa.float64()),
        "flag": pa.array([True, None]),
        "day": pa.array([dt.date(2024, 1, 1), None], pa.date32()),
        "max": pa.array([2**64 - 1, 0], pa.uint64()),
        "small": pa.array([-128, 127], pa.int8()),
        "items": pa.array([[1], [2]]),
    })
    path = tmp_path / "t.parquet"
    pq.write_table(table, path)
    key = ", ".join(n for n in table.column_names if n != "items")
    records = read_parquet(path, key=key.replace("ts", "ts desc", 1))
    assert records.proposed
    assert str(records.schema) == (
        "id:int32, ts:timestamp desc, at:timestamp, u:uuid, guid:uuid, fixed:bytes, "
        "amount:decimal, name:string, big:string, blob:bytes, took:duration, f:float32, "
        "h:float32, d:float64, flag:bool, day:timestamp, max:uint64, small:int8")
    first, second = records.rows
    assert first == (3, dt.datetime(2023, 11, 14, 22, 13, 20, 123456, tzinfo=UTC),
                     dt.datetime(1970, 1, 1, tzinfo=UTC), uuid.UUID(int=1),
                     uuid.UUID(bytes=b"\x02" * 16), b"ab", decimal.Decimal("1.50"), "a", "x",
                     b"", dt.timedelta(microseconds=1), 1.5, 0.5, 1.0, True,
                     dt.datetime(2024, 1, 1, tzinfo=UTC), 2**64 - 1, -128)
    assert type(first[11]) is Float32
    # instants and durations below a microsecond are floored
    assert second[1] == dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
    assert second[10] == dt.timedelta(microseconds=-1)
    err = refusal(read_parquet, path, key="items")
    assert "no field type for the key column 'items' (declared list<" in str(err)
    assert read_parquet(path, key="items:tuple").rows == [((1,),), ((2,),)]
    err = refusal(read_parquet, path)
    assert "--key 'id:int32, ts:timestamp, at:timestamp," in str(err)
    assert arrow_field_type(pa.binary(16), "user_uuid") == "uuid"
    assert arrow_field_type(pa.list_(pa.int8())) is None


def test_parquet_refusals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pyarrow")
    junk = write(tmp_path / "junk.parquet", b"PAR1 not really" * 10)
    assert "not a Parquet file" in str(refusal(read_parquet, junk, key="a"))
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if the extra were not installed
    assert str(refusal(read_parquet, junk, key="a")) == \
        "Parquet: reading Parquet needs pyarrow: pip install 'lexcodecs[parquet]'"


# -- keys in stores --------------------------------------------------------------------------

KEY_SCHEMA = "tenant:string, n:int64, b:bytes"
KEY_ROWS = [("acme", 5, b"\x00"), ("acme", -1, b""), ("b", 2**40, b"\xff")]


def key_table(path: Path, codec: str, schema: str, rows: list[tuple[Any, ...]],
              extra: Sequence[Any] = ()) -> Path:
    c = get_codec(codec)
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE kv (k PRIMARY KEY, v) WITHOUT ROWID")
        conn.executemany("INSERT INTO kv VALUES (?, 0)",
                         [(c.encode(r, schema),) for r in rows] + [(e,) for e in extra])
    conn.close()
    return path


@pytest.mark.usefixtures("impl")
def test_self_describing_keys_propose_their_schema(tmp_path: Path) -> None:
    path = key_table(tmp_path / "k.db", "fdb-tuple", KEY_SCHEMA, KEY_ROWS)
    records = read_sqlite_keys(path, "kv", "k", "fdb-tuple")
    assert (str(records.schema), records.proposed) == ("f0:string, f1:int64, f2:bytes", True)
    assert records.rows == sorted(KEY_ROWS, key=lambda r: get_codec("fdb-tuple").encode(
        r, KEY_SCHEMA))  # in the store's order
    assert records.source == f"fdb-tuple keys in SQLite {path}, kv.k, key (f0, f1, f2); 3 rows"
    named = read_sqlite_keys(path, "kv", "k", "fdb-tuple", key="t, n:int, b")
    assert str(named.schema) == "t:string, n:int, b:bytes"


@pytest.mark.usefixtures("impl")
def test_keys_with_their_schema_and_a_key_that_picks(tmp_path: Path) -> None:
    schema = "n:int64, t:string"
    rows = [(1, "a"), (-5, "b")]
    path = key_table(tmp_path / "k.db", "lexkey", schema, rows)
    err = refusal(read_sqlite_keys, path, "kv", "k", "lexkey")
    assert "lexkey keys decode only with the schema they were written with" in str(err)
    records = read_sqlite_keys(path, "kv", "k", "lexkey", schema=schema, key="t desc")
    assert (str(records.schema), records.rows, records.proposed) == \
        ("t:string desc", [("b",), ("a",)], False)
    typed = read_sqlite_keys(path, "kv", "k", "lexkey", key="n:int64, t:string")
    assert typed.rows == [(-5, "b"), (1, "a")]


@pytest.mark.usefixtures("impl")
def test_keys_that_do_not_decode(tmp_path: Path) -> None:
    path = key_table(tmp_path / "k.db", "fdb-tuple", KEY_SCHEMA, KEY_ROWS[:1], extra=[b"\x99"])
    err = refusal(read_sqlite_keys, path, "kv", "k", "fdb-tuple", schema=KEY_SCHEMA)
    assert (err.unit, err.line) == ("row", 2)
    assert "row 2: key 99 does not decode: fdb-tuple" in str(err)
    err = refusal(read_sqlite_keys, path, "kv", "k", "skv")
    assert "row 1: key 02" in str(err)
    assert "no column 'x' in kv (its columns: k, v)" in str(
        refusal(read_sqlite_keys, path, "kv", "x", "skv"))
    assert "row 1: an INTEGER, not a BLOB key" in str(
        refusal(read_sqlite_keys, path, "kv", "v", "skv"))


@pytest.mark.usefixtures("impl")
def test_lmdb_keys(tmp_path: Path) -> None:
    lmdb = pytest.importorskip("lmdb")
    skv = get_codec("skv")
    written = "tenant:string, n:int64 desc, b:bytes"
    env = lmdb.open(str(tmp_path / "env"), map_size=1 << 20, max_dbs=1)
    named = env.open_db(b"named")
    with env.begin(write=True, db=named) as txn:
        for row in KEY_ROWS:
            txn.put(skv.encode(row, written), b"")
    env.close()
    path = tmp_path / "env"
    seen: list[tuple[int, int | None]] = []
    records = read_lmdb_keys(path, "skv", db="named", schema=written,
                             progress=lambda done, total: seen.append((done, total)))
    assert records.rows == KEY_ROWS  # in the store's order: n descending within a tenant
    assert seen == [(3, 3)]  # the count of keys is known before they are read
    alone = read_lmdb_keys(path, "skv", db="named", key="t:string, n desc, b")
    assert str(alone.schema) == "t:string, n:int64 desc, b:bytes"
    assert alone.proposed
    assert "no database 'missing'" in str(refusal(read_lmdb_keys, path, "skv", db="missing"))
    # the main database holds the named database's name: not an skv key
    assert "key 1: key 6e616d6564 does not decode" in str(refusal(read_lmdb_keys, path, "skv"))
    junk = write(tmp_path / "junk", b"x" * 100)
    assert "not an LMDB environment" in str(refusal(read_lmdb_keys, junk, "skv"))
    assert "no such LMDB environment" in str(refusal(read_lmdb_keys, tmp_path / "no", "skv"))


# -- hostile bytes ---------------------------------------------------------------------------


def test_random_bytes_give_only_source_errors(tmp_path: Path, events: Path) -> None:
    rng = random.Random(16)
    for i in range(30):
        size = rng.randint(0, 600)
        if i % 3 == 0:
            blob = rng.randbytes(size)
        else:  # text that gets past the header: digits, commas, quotes, newlines, NUL
            alphabet = b'a1-,"[]{}\n\r\x00 ' + (b"\xff" if i % 3 == 2 else b"")
            blob = b"a\n" + bytes(rng.choice(alphabet) for _ in range(size))
        path = write(tmp_path / f"r{i}", blob)
        reads: list[Callable[[Path], Records]] = [
            lambda p: read_csv(p, key="a:int64"), lambda p: read_jsonl(p, "a:int64"),
            lambda p: read_sqlite(p, table="t"), lambda p: read_parquet(p, key="a")]
        for read in reads:
            with contextlib.suppress(LexCodecError):  # anything else fails the test
                read(path)


# -- the command line ------------------------------------------------------------------------


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="test")
    add_source_arguments(parser)
    return parser.parse_args(list(argv))


def test_cli_no_input_means_generated_records() -> None:
    assert load_records(parse(), None, 10, 0) is None


def test_cli_reads_each_input(tmp_path: Path, events: Path) -> None:
    csv_path = write(tmp_path / "users.csv", USERS)
    got = load_records(parse("--csv", str(csv_path), "--key", "user_id:int64 desc"), None, 2, 0)
    assert got is not None
    assert len(got.rows) == 2
    assert str(got.schema) == "user_id:int64 desc"
    got = load_records(parse("--sqlite", str(events), "--table", "events"), None, 100, 0)
    assert got is not None
    assert got.proposed
    got = load_records(parse("--sqlite", str(events), "--query", "SELECT tenant FROM events",
                             "--key", "tenant"), None, 100, 0)
    assert got is not None
    assert len(got.rows) == 3
    jsonl = write(tmp_path / "r.jsonl", JSONL)
    got = load_records(parse("--records", str(jsonl)),
                       KeySchema.parse("s:string, n:int64, b:bytes"), 100, 0)
    assert got is not None
    assert len(got.rows) == 2
    keys = key_table(tmp_path / "k.db", "fdb-tuple", KEY_SCHEMA, KEY_ROWS)
    got = load_records(parse("--keys-from", f"sqlite:{keys}:kv:k", "--keys-codec",
                             "fdb-tuple"), None, 100, 0)
    assert got is not None
    assert str(got.schema) == "f0:string, f1:int64, f2:bytes"


@pytest.mark.parametrize(("argv", "message"), [
    (["--csv", "{tmp}/nope.csv"], "--csv {tmp}/nope.csv: No such file or directory"),
    (["--csv", "{tmp}"], "--csv {tmp}: is a directory, not a file"),
    (["--parquet", "{tmp}"], "--parquet {tmp}: is a directory, not a file"),
    (["--records", "{tmp}/nope"], "--records {tmp}/nope: No such file or directory"),
    (["--sqlite", "{tmp}/no.db", "--table", "t"], "--sqlite {tmp}/no.db: no such database file"),
    (["--sqlite", "{tmp}", "--table", "t"], "--sqlite {tmp}: is a directory"),
    (["--sqlite", "{tmp}/x.db"], "--sqlite needs --table TABLE or --query SQL"),
    (["--table", "t"], "--table goes with --sqlite"),
    (["--csv", "x", "--keys-codec", "skv"], "--keys-codec goes with --keys-from"),
    (["--key", "a"], "--key names the key columns of an input"),
    (["--keys-from", "sqlite:x:y:z"], "--keys-from needs --keys-codec NAME"),
    (["--keys-from", "redis:x", "--keys-codec", "skv"],
     "--keys-from redis:x: write sqlite:DB:TABLE:COLUMN or lmdb:PATH[:DB]"),
    (["--keys-from", "sqlite:db:t", "--keys-codec", "skv"],
     "--keys-from sqlite:db:t: write sqlite:DB:TABLE:COLUMN"),
    (["--keys-from", "lmdb:{tmp}/none", "--keys-codec", "skv"],
     "--keys-from lmdb:{tmp}/none: no such LMDB environment"),
])
def test_cli_refusals_name_the_option(tmp_path: Path, argv: list[str], message: str) -> None:
    args = parse(*(a.replace("{tmp}", str(tmp_path)) for a in argv))
    with pytest.raises(CliError) as info:
        load_records(args, None, 10, 0)
    assert str(info.value).startswith(message.replace("{tmp}", str(tmp_path)))


def test_cli_inputs_are_mutually_exclusive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse("--csv", "a", "--parquet", "b")
    assert "not allowed with argument" in capsys.readouterr().err


def test_cli_unknown_codec_for_stored_keys(tmp_path: Path) -> None:
    keys = key_table(tmp_path / "k.db", "fdb-tuple", KEY_SCHEMA, KEY_ROWS)
    with pytest.raises(LexCodecError, match="did you mean 'fdb-tuple'"):
        load_records(parse("--keys-from", f"sqlite:{keys}:kv:k", "--keys-codec", "FDB-tuple"),
                     None, 10, 0)


# -- the guide -------------------------------------------------------------------------------


def test_the_guides_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/your-data.md's pycon blocks, run in order as one doctest in an empty folder."""
    import doctest
    import re

    guide = (Path(__file__).resolve().parent.parent / "docs" / "your-data.md").read_text(
        encoding="utf-8")
    blocks = re.findall(r"```pycon\n(.*?)```", guide, flags=re.DOTALL)
    assert len(blocks) >= 3
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, "your-data.md",
                                               "docs/your-data.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    output: list[str] = []
    runner.run(test, out=output.append)
    assert runner.failures == 0, "".join(output)
    assert runner.tries >= 15
