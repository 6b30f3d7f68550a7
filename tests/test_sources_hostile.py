"""Hostile values through :mod:`lexcodecs.sources` (issue 30, item 6): whatever a JSON Lines
line or a CSV cell holds, in a column of any field type, reading it gives records or a
:class:`SourceError` naming the line and the column -- never ``RecursionError``,
``OverflowError``, ``AttributeError`` or any other foreign exception (the command line turned
those into "internal error"; the Python API let them through).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import io
import json
import math
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lexcodecs import KeySchema, LexCodecError
from lexcodecs.compare import compare, records_from_json
from lexcodecs.sources import (
    TEXT_FORMS,
    SourceError,
    read_csv,
    read_jsonl,
    read_parquet,
    read_sqlite,
)
from lexcodecs.sources.records import Column, collect
from lexcodecs.sources.values import value_reader

#: every field type
FIELD_TYPES = sorted(TEXT_FORMS)

DEEP = "[" * 100_000 + "]" * 100_000

#: JSON texts of nasty values: nesting past the parser, huge and tiny numbers, wrong kinds
NASTY_JSON = [
    DEEP, "[" * 500 + "]" * 500, str(10**30), str(-(10**30)), "1" + "0" * 400,
    "1" + "0" * 5000, str(2**64), str(-(2**63) - 1), "1e400", "-1e400", "1e-400", "-0.0",
    "0.1", "NaN", "Infinity", "-Infinity", '""', '"abc"', '"1"', '"1e400"', '"\\u0000"',
    '"\\ud800"', '"' + "x" * 100_000 + '"', "true", "false", "null", "[]", "[1, [2, {}]]",
    "{}", '{"a": 1}', '{"bytes": "00", "float": "1"}', '"sNaN"', '"-P1W"',
    '"9999-12-31T23:59:59-23:59"', '"0001-01-01T00:00:00+01:00"', '"' + "f" * 32 + '"',
]
#: the typed objects, each around every nasty value
TYPED_KINDS = ["bytes", "decimal", "uuid", "float", "timestamp", "duration_us"]
JSON_VALUES = NASTY_JSON + [f'{{"{kind}": {inner}}}' for kind in TYPED_KINDS
                            for inner in NASTY_JSON]

#: CSV cells (and SQLite TEXT values): the text readers' hard cases
NASTY_TEXT = [
    " ", "1e400", "-1e400", "nan", "1" * 5000, "9" * 20, "-0", "0x", "\\x", "0xf",
    "P999999999999999999W", "PT99999999999999999H", "99999999999999999:00:00", "-P1W",
    "9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59", "{", "[[[[", "true", "1.5",
    "1_000", "１２", "٣", "\x00", "inf", "Infinity", "1e999999999", "1e-999999999", "NaN",
    "sNaN", "-sNaN", "0" * 40, "{" + "0" * 32 + "}", "24:00:00", "00:60:00", "x" * 100_000,
]

#: Python values as SQLite, Parquet and decoded keys give them
NASTY_PY: list[Any] = [
    10**30, -(10**30), 10**400, 2**64, 1e308, math.inf, -math.inf, math.nan, -0.0,
    decimal.Decimal("sNaN"), decimal.Decimal("1e999999"), decimal.Decimal("NaN"), b"",
    b"\xff" * 16, bytearray(b"x"), memoryview(b"ab"), "x", "", True, [], (), {}, object(),
    dt.date(1, 1, 1), dt.datetime(1, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=1))),
    dt.timedelta.max, uuid.UUID(int=0),
]


def _jsonl(value: str, field_type: str) -> Any:
    return read_jsonl(io.BytesIO(f'["k", {value}]\n'.encode()), f"s:string, a:{field_type}")


def _refusal(read: Callable[..., Any], *args: Any, **kwargs: Any) -> SourceError | None:
    """The SourceError ``read(*args, **kwargs)`` raises, or None when it reads; anything
    else propagates (and fails the test)."""
    try:
        read(*args, **kwargs)
    except SourceError as exc:
        return exc
    return None


@pytest.mark.parametrize("field_type", FIELD_TYPES)
def test_json_lines_give_records_or_a_source_error(field_type: str) -> None:
    for value in JSON_VALUES:
        exc = _refusal(_jsonl, value, field_type)
        if exc is None:
            continue
        assert exc.source == "records line 1", (value[:40], exc)
        if _parses(value):  # else the line as a whole is at fault
            assert exc.column == "a", (value[:40], exc)
            assert exc.field_type == field_type


def _parses(value: str) -> bool:
    try:
        json.loads(value)
    except (ValueError, RecursionError):
        return False
    return True


@pytest.mark.parametrize(("value", "field_type", "reason"), [
    pytest.param(DEEP, "int64", "nested too deeply", id="deep-nesting"),
    ('{"duration_us": 1000000000000000000000000000000}', "duration", "beyond the range"),
    ('{"duration_us": 1e400}', "duration", "a whole number of microseconds"),
    ('{"duration_us": 1.5}', "duration", "a whole number of microseconds"),
    ('{"duration_us": true}', "duration", "a whole number of microseconds"),
    ('{"uuid": 5}', "uuid", "expected a UUID in a string, not a number"),
    ('{"uuid": [1]}', "uuid", "expected a UUID in a string, not an array"),
    ('{"bytes": 5}', "bytes", "expected hex digits in a string"),
    ('{"timestamp": 5}', "timestamp", "expected ISO 8601 text"),
    ('{"decimal": [0, [1], 0]}', "decimal", "expected a number or a string of one"),
    ('{"decimal": true}', "decimal", "expected a number or a string of one"),
    ('{"float": null}', "float64", "expected a number or a string of one"),
    ('{"float": {"float": 1}}', "float64", "expected a number or a string of one"),
])
def test_the_issues_values_are_source_errors_naming_line_and_column(
        value: str, field_type: str, reason: str) -> None:
    with pytest.raises(SourceError) as info:
        _jsonl(value, field_type)
    text = str(info.value)
    assert text.startswith("records line 1: "), text
    assert reason in text
    if value != DEEP:
        assert info.value.column == "a"
        assert f"column 'a' ({field_type})" in text
    with pytest.raises(LexCodecError, match="records line 1: "):  # the same, via compare's
        records_from_json([f'["k", {value}]'], f"s:string, a:{field_type}")


def test_messages_quote_a_huge_value_briefly() -> None:
    for value in ('{"uuid": "' + "x" * 1_000_000 + '"}', '{"blob": "' + "x" * 1_000_000 + '"}'):
        with pytest.raises(SourceError) as info:
            _jsonl(value, "uuid")
        assert len(str(info.value)) < 300


def test_numbers_beyond_a_field_are_read_as_their_field_reads_them() -> None:
    """A decimal field reads a number from its text (1e400 stays 1E+400, not Infinity); a
    float field rounds as IEEE 754 does, to ±inf beyond its range, an integer too."""
    rows = _jsonl("1e400", "decimal").rows
    assert rows == [("k", decimal.Decimal("1e400"))]
    assert str(_jsonl("0.10000000000000000001", "decimal").rows[0][1]) == \
        "0.10000000000000000001"
    assert _jsonl("1" + "0" * 400, "float64").rows == [("k", math.inf)]
    assert _jsonl("-1" + "0" * 400, "float32").rows == [("k", -math.inf)]
    assert _jsonl('{"float": 1' + "0" * 400 + "}", "float64").rows == [("k", math.inf)]
    assert _jsonl('{"duration_us": "12"}', "duration").rows == [
        ("k", dt.timedelta(microseconds=12))]


@pytest.mark.parametrize("field_type", sorted(set(FIELD_TYPES) - {"tuple"}))
def test_csv_cells_give_records_or_a_source_error(tmp_path: Path, field_type: str) -> None:
    for i, text in enumerate(NASTY_TEXT):
        path = tmp_path / f"{i}.csv"
        path.write_text("k,a\n1," + text.replace("\x00", "") + "\n", encoding="utf-8")
        exc = _refusal(read_csv, path, key=f"a:{field_type}")
        if exc is not None:
            assert (exc.line, exc.column, exc.field_type) == (2, "a", field_type), exc


@pytest.mark.parametrize("field_type", FIELD_TYPES)
def test_python_values_give_records_or_a_source_error(field_type: str) -> None:
    read = value_reader(field_type)
    schema = KeySchema.parse(f"a:{field_type}")
    for value in NASTY_PY:
        exc = _refusal(collect, [(1, (value,))], [read], schema=schema,
                       columns=[Column("a", "a")], origins=[None], source="test",
                       unit="row", limit=10, seed=0, proposed=False)
        if exc is not None:
            assert (exc.line, exc.column) == (1, "a"), exc


def test_sqlite_values_of_every_storage_class(tmp_path: Path) -> None:
    import sqlite3
    from contextlib import closing

    db = tmp_path / "v.db"
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("CREATE TABLE t (a)")
        conn.executemany("INSERT INTO t VALUES (?)", [
            (2**63 - 1,), (-(2**63),), (1e308,), (math.inf,), (-0.0,), (b"\xff" * 16,),
            ("9" * 5000,), ("sNaN",), ("1e400",)])
        conn.commit()
    for field_type in sorted(set(FIELD_TYPES) - {"tuple"}):
        for row in range(1, 10):
            exc = _refusal(read_sqlite, db, query=f"SELECT a FROM t WHERE rowid = {row}",
                           key=f"a:{field_type}")
            if exc is not None:
                assert (exc.line, exc.column) == (1, "a"), exc


def test_what_the_readers_accept_compare_takes() -> None:
    """Every value a reader accepted goes through compare without a foreign exception (a
    codec's refusal is counted; a key of zero bytes divided the verdict by zero)."""
    for field_type in FIELD_TYPES:
        for value in JSON_VALUES:
            try:
                rows = _jsonl(value, field_type).rows
            except SourceError:
                continue
            with contextlib.suppress(LexCodecError):  # anything else fails the test
                compare(f"s:string, a:{field_type}", rows * 2, repeats=0)


def test_a_key_of_zero_bytes_does_not_break_the_verdict() -> None:
    report = compare("a:string", [("",), ("",)], repeats=0)
    assert report.verdict is not None


def test_parquet_extension_columns_are_read_by_their_meaning(tmp_path: Path) -> None:
    """``arrow.bool8`` is booleans, not the int8 it is stored as; an extension type whose
    meaning is not known (``arrow.json``) is refused by name, not read as its storage."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    flags = pa.ExtensionArray.from_storage(pa.bool8(), pa.array([1, 0, None, 2], pa.int8()))
    docs = pa.ExtensionArray.from_storage(pa.json_(), pa.array(['"a"', "1", None, "[]"]))
    path = tmp_path / "x.parquet"
    pq.write_table(pa.table({"b": flags, "j": docs}), path)
    records = read_parquet(path, key="b")
    assert str(records.schema) == "b:bool"
    assert records.rows == [(True,), (False,), (None,), (True,)]
    with pytest.raises(SourceError) as info:
        read_parquet(path, key="j:string")
    assert info.value.column == "j"
    assert "extension type 'arrow.json'" in str(info.value)
