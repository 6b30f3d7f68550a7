"""Tests of lexcodecs.migrate (Transcoder, hex lines, SQLite and LMDB migrations) and of the
``lexcodecs migrate`` command.

The expectations are computed independently of the code under test: the old key's values come
from the source codec, the expected new order from the natural-order model
(:func:`lexcodecs.testing.natural_key`), and the expected count of order changes from the new
keys compared pairwise in the old order. Interruptions are simulated in-process here (a
``progress`` callback that raises after a batch, or a failing file operation at the swap);
``tests/test_migrate_kill.py`` kills a real process.
"""

from __future__ import annotations

import inspect
import io
import itertools
import json
import math
import os
import pickle
import random
import shutil
import sqlite3
import subprocess
import sys
import tracemalloc
from collections.abc import Callable, Iterable
from contextlib import closing
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from toys import NegativesFirstBroken, ToyCodec

import lexcodecs.migrate as migrate_module
import lexcodecs.migrate.directory as directory
import lexcodecs.migrate.lmdb_store as lmdb_store
from lexcodecs import KeySchema, _impl, get_codec
from lexcodecs.errors import DecodeError, EncodeError, LexCodecError, NotDecodableError, SchemaError
from lexcodecs.migrate import (
    NEW_SUFFIX,
    OLD_SUFFIX,
    STATE_TABLE,
    MigrationError,
    MigrationReport,
    Transcoder,
    kernel,
    migrate_lines,
    migrate_lmdb,
    migrate_sqlite,
)
from lexcodecs.migrate.report import MIN_TIMED_S, _OrderWatch
from lexcodecs.migrate.transcoder import same_settings
from lexcodecs.testing import identical, keys, natural_key

lmdb = pytest.importorskip("lmdb")

SCHEMA_TEXT = "tenant:string, n:int64"
SCHEMA = KeySchema.parse(SCHEMA_TEXT)
FDB = get_codec("fdb-tuple").bind(SCHEMA)
SKV = get_codec("skv").bind(SCHEMA)
SKV_POLICY = get_codec("skv").capabilities.float_policy


def fdb_to_skv() -> Transcoder:
    return Transcoder("fdb-tuple", "skv", SCHEMA_TEXT)


def sample_values(n: int) -> list[tuple[str, int]]:
    """*n* distinct keys: seven tenants, negative and positive numbers, a NUL in one tenant."""
    tenants = ["acme", "b\x00z", "beta", "", "zeta", "é", "a"]
    return [(tenants[i % len(tenants)], (i * 7919) % (4 * n) - 2 * n) for i in range(n)]


def natural_sorted(values: Iterable[tuple[Any, ...]],
                   schema: KeySchema = SCHEMA) -> list[tuple[Any, ...]]:
    return sorted(values, key=lambda v: natural_key(v, schema, SKV_POLICY))


def inversions(new_keys: list[bytes]) -> int:
    """Adjacent places where a key sorts before the one before it."""
    return sum(b < a for a, b in itertools.pairwise(new_keys))


# -- the transcoder ---------------------------------------------------------------------------

PAIR_SCHEMA = "s:string, n:int64, x:float64"
PAIRS = [
    ("fdb-tuple", "skv"),
    ("skv", "fdb-tuple"),
    ("fdb-tuple", "orderly"),
    ("orderly", "sqlite4"),
    ("sqlite4", "skv"),
    ("skv", "lexkey"),
    ("lexkey", "fdb-tuple"),
    ("lexkey-legacy", "orderly"),
]


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_transcode_examples_round_trip(source: str, target: str) -> None:
    t = Transcoder(source, target, PAIR_SCHEMA)
    src = get_codec(source).bind(PAIR_SCHEMA)
    tgt = get_codec(target).bind(PAIR_SCHEMA)
    for values in [("acme", 42, 1.5), ("", -(2**63), -1e300), ("中文", 2**63 - 1, math.inf),
                   ("x y", 0, -2.5), ("acme", -1, 5e-324)]:
        new = t.transcode(src.encode(values))
        assert new == tgt.encode(values)
        assert identical(tgt.decode(new), values)
        assert identical(t.values(src.encode(values)), values)


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_transcode_property_values_identical_or_justified_refusal(source: str,
                                                                  target: str) -> None:
    """For generated values: the target decodes the new key to exactly the old key's values;
    a refusal is a lexcodecs error, and only when the target really cannot hold them."""
    schema = KeySchema.parse(PAIR_SCHEMA)
    t = Transcoder(source, target, schema)
    src = get_codec(source).bind(schema)
    tgt = get_codec(target).bind(schema)
    caps = get_codec(source).capabilities

    @given(keys(schema, caps, nullable=getattr(src, "nullable", None)))
    def check(values: tuple[Any, ...]) -> None:
        try:
            old = src.encode(values)
            original = src.decode(old)
        except LexCodecError:
            assume(False)
            return
        try:
            new = t.transcode(old)
        except LexCodecError:
            try:
                back = tgt.decode(tgt.encode(original))
            except LexCodecError:
                return  # the target refuses them itself
            assert not identical(back, original), f"refused {original!r} without cause"
            return
        assert identical(tgt.decode(new), original)

    check()


def test_refuses_source_that_cannot_decode_the_schema() -> None:
    with pytest.raises(NotDecodableError) as info:
        Transcoder("lexkey", "skv", "a:string, b:string")
    assert info.value.codec == "lexkey"
    text = str(info.value)
    assert "lexkey" in text
    assert "source cannot decode" in text
    assert "variable length" in text
    # the same schema is fine the other way round: lexkey as a target encodes it
    Transcoder("skv", "lexkey", "a:string, b:string")


def test_refuses_source_format_that_never_decodes() -> None:
    class NoDecoding(ToyCodec):
        name = "toy-nodecode"
        CAPABILITIES = attrs.evolve(ToyCodec.CAPABILITIES, decoding="none")

    with pytest.raises(NotDecodableError, match="cannot be decoded") as info:
        Transcoder(NoDecoding(), "skv", "n:int64")
    assert info.value.codec == "toy-nodecode"


@pytest.mark.parametrize(("source", "target", "schema", "codec"), [
    ("fdb-tuple", "skv", "d:decimal", "fdb-tuple"),   # the source cannot express it
    ("skv", "fdb-tuple", "t:tuple", "skv"),
    ("fdb-tuple", "skv", "t:tuple", "skv"),           # the target cannot express it
    ("fdb-tuple", "sqlite4", "x:float32", "sqlite4"),
    ("skv", "lexkey", "s:string desc", None),         # lexkey has no descending fields
])
def test_refuses_schema_a_codec_cannot_express(source: str, target: str, schema: str,
                                               codec: str | None) -> None:
    with pytest.raises(SchemaError) as info:
        Transcoder(source, target, schema)
    if codec is not None:
        assert info.value.codec == codec


def test_bad_schema_text_is_a_schema_error() -> None:
    with pytest.raises(SchemaError):
        Transcoder("fdb-tuple", "skv", "s:strin g")


@pytest.mark.parametrize(("target", "values", "error"), [
    ("sqlite4", ("a\x00b", 1), EncodeError),      # U+0000 cannot be in sqlite4 text
    ("lexkey", (None, 1), MigrationError),         # lexkey NULL decodes as "" : a change
])
def test_transcode_refuses_values_the_target_cannot_hold(
        target: str, values: tuple[Any, ...], error: type[Exception]) -> None:
    t = Transcoder("fdb-tuple", target, SCHEMA_TEXT)
    with pytest.raises(error) as info:
        t.transcode(FDB.encode(values))
    assert isinstance(info.value, LexCodecError)


def test_transcode_refuses_nan_to_skv() -> None:
    fdb = get_codec("fdb-tuple").bind("x:float64")
    t = Transcoder("fdb-tuple", "skv", "x:float64")
    with pytest.raises(LexCodecError, match="NaN"):
        t.transcode(fdb.encode((math.nan,)))


def test_transcode_refuses_negative_zero_to_sqlite4_instead_of_changing_it() -> None:
    """sqlite4 writes -0.0 like 0.0; the transcoder checks the decoded key and refuses."""
    fdb = get_codec("fdb-tuple").bind("x:float64")
    t = Transcoder("fdb-tuple", "sqlite4", "x:float64")
    with pytest.raises(MigrationError, match="cannot hold") as info:
        t.transcode(fdb.encode((-0.0,)))
    assert info.value.codec == "sqlite4"
    assert t.transcode(fdb.encode((0.0,))) == get_codec("sqlite4").encode((0.0,), "x:float64")


def test_transcode_rejects_a_key_that_is_not_a_source_key() -> None:
    with pytest.raises(DecodeError):
        fdb_to_skv().transcode(b"\xff\xfe")


def test_accepts_codec_objects_names_and_config_dicts() -> None:
    key = FDB.encode(("acme", 7))
    expected = SKV.encode(("acme", 7))
    for source, target, schema in [
        ("fdb-tuple", "skv", SCHEMA_TEXT),
        (get_codec("fdb-tuple"), get_codec("skv"), SCHEMA),
        (get_codec("fdb-tuple").config(), get_codec("skv").config(), SCHEMA_TEXT),
        ({"name": "fdb-tuple"}, "skv", SCHEMA),
    ]:
        t = Transcoder(source, target, schema)
        assert t.transcode(key) == expected
        assert t.source.name == "fdb-tuple"
        assert t.target.name == "skv"


def test_config_dict_options_are_honoured() -> None:
    """Under nan='go', lexkey's 7ff8000000000001 is NaN; under the default it is a number."""
    go = get_codec("lexkey", nan="go")
    key = bytes.fromhex("7ff8000000000001")
    fdb = get_codec("fdb-tuple").bind("x:float64")
    with_go = Transcoder(go.config(), "fdb-tuple", "x:float64")
    assert with_go.source.config() == {"name": "lexkey", "nan": "go"}
    assert math.isnan(fdb.decode(with_go.transcode(key))[0])
    plain = Transcoder("lexkey", "fdb-tuple", "x:float64")
    assert fdb.decode(plain.transcode(key)) == (-1.1125369292535997e-308,)
    # the option survives pickling
    again = pickle.loads(pickle.dumps(with_go))
    assert again.source.config() == {"name": "lexkey", "nan": "go"}
    assert math.isnan(fdb.decode(again.transcode(key))[0])


def test_pickle_round_trip() -> None:
    schema = "tenant:string, n:int64 desc, x:float64"
    t = Transcoder("skv", "orderly", schema, check=False)
    skv = get_codec("skv").bind(schema)
    again = pickle.loads(pickle.dumps(t))
    assert isinstance(again, Transcoder)
    assert repr(again) == repr(t)
    assert again.check is False
    assert again.schema == t.schema
    assert again.source.config() == t.source.config()
    assert again.target.config() == t.target.config()
    for values in [("acme", 5, 1.0), ("", -(2**40), -0.0), ("z\x00", 0, math.inf)]:
        key = skv.encode(values)
        assert again.transcode(key) == t.transcode(key)
    plain = fdb_to_skv()
    key = FDB.encode(("acme", 1))
    assert pickle.loads(pickle.dumps(plain)).transcode(key) == plain.transcode(key)


def test_transcode_many_is_lazy() -> None:
    t = fdb_to_skv()
    good = FDB.encode(("a", 1))
    stream = t.transcode_many(iter([good, b"\xff junk", good]))
    assert inspect.isgenerator(stream)
    assert next(stream) == SKV.encode(("a", 1))  # the bad key is not read yet
    with pytest.raises(LexCodecError):
        next(stream)
    endless = t.transcode_many(itertools.repeat(good))
    assert list(itertools.islice(endless, 3)) == [SKV.encode(("a", 1))] * 3


def test_transcode_many_matches_transcode() -> None:
    t = fdb_to_skv()
    old = [FDB.encode(v) for v in sample_values(300)]
    assert list(t.transcode_many(old)) == [t.transcode(k) for k in old]
    assert migrate_module.transcode_partition(old, t) == [t.transcode(k) for k in old]


# -- hex lines --------------------------------------------------------------------------------


def test_migrate_lines_keeps_blank_lines() -> None:
    t = fdb_to_skv()
    a, b = FDB.encode(("a", 1)), FDB.encode(("b", -2))
    lines = [a.hex() + "\n", "\n", "   \n", b.hex(" ").upper() + "\n", "\n"]
    out = io.StringIO()
    report = migrate_lines(t, lines, out)
    assert out.getvalue().split("\n") == [
        SKV.encode(("a", 1)).hex(), "", "", SKV.encode(("b", -2)).hex(), "", ""]
    assert report.keys == 2
    assert report.order_changes == 0
    assert report.where == "hex lines"
    assert (report.source, report.target, report.schema) == ("fdb-tuple", "skv", str(SCHEMA))
    assert report.seconds >= 0


def test_migrate_lines_refuses_bad_hex_with_the_line_number() -> None:
    good = FDB.encode(("a", 1)).hex()
    with pytest.raises(MigrationError, match=r"line 3: not hex"):
        migrate_lines(fdb_to_skv(), [good, "", "zz-not-hex", good], io.StringIO())


def test_migrate_lines_refuses_undecodable_key_with_the_line_number() -> None:
    good = FDB.encode(("a", 1)).hex()
    with pytest.raises(MigrationError, match=r"^line 2: "):
        migrate_lines(fdb_to_skv(), [good, "ff00ff", good], io.StringIO())


def test_migrate_lines_counts_order_changes() -> None:
    values = sample_values(200)
    random.Random(7).shuffle(values)
    t = fdb_to_skv()
    new = [SKV.encode(v) for v in values]
    expected = inversions(new)
    assert expected > 5
    report = migrate_lines(t, [FDB.encode(v).hex() for v in values], io.StringIO())
    assert report.keys == 200
    assert report.order_changes == expected
    first = next(i for i in range(1, len(new)) if new[i] < new[i - 1])
    assert len(report.examples) == migrate_module.MAX_EXAMPLES
    assert report.examples[0] == ([repr(v) for v in values[first - 1]],
                                  [repr(v) for v in values[first]])
    assert "place(s) where the old key order disagreed" in report.summary()


def test_migrate_lines_in_source_order_has_no_order_changes() -> None:
    values = natural_sorted(sample_values(100))
    report = migrate_lines(fdb_to_skv(), [FDB.encode(v).hex() for v in values],
                           io.StringIO())
    assert report.order_changes == 0
    assert report.examples == []
    assert "agreed with the new one everywhere" in report.summary()


def test_migrate_lines_reports_progress() -> None:
    seen: list[int] = []
    values = sample_values(2500)
    migrate_lines(fdb_to_skv(), [FDB.encode(v).hex() for v in values], io.StringIO(),
                  progress=seen.append)
    assert seen == [1000, 2000]


# -- SQLite -----------------------------------------------------------------------------------


class Stop(Exception):
    """Raised by a progress callback: a simulated crash between two batches."""


class Crash(BaseException):
    """A simulated power cut at one file operation."""


def stop_after(keys_done: int) -> Callable[[int], None]:
    def progress(done: int) -> None:
        if done >= keys_done:
            raise Stop(done)
    return progress


def other_columns(i: int) -> tuple[Any, ...]:
    """Values of the non-key columns: several types, NULLs, blobs, a typeless column."""
    kinds: list[Any] = [i, i * 0.5, f"text {i}", bytes([i % 256, 0, 255]), None]
    return (i, None if i % 5 == 0 else i / 3, None if i % 3 == 0 else f"t{i % 11}",
            None if i % 4 == 0 else bytes([i % 256, 0, 255]) * (i % 3 + 1), kinds[i % 5])


def make_table(path: Path | str, values: list[tuple[Any, ...]], *, without_rowid: bool = False,
               codec: Any = FDB, table: str = "kv") -> dict[str, str]:
    """A table of keys *values* (encoded with *codec*) and other columns; returns
    repr(values) -> repr(other columns) (reprs tell -0.0 from 0.0, and 1 from 1.0)."""
    with closing(sqlite3.connect(path)) as db:
        db.execute(f"CREATE TABLE {table} (k BLOB PRIMARY KEY, i INTEGER NOT NULL, r REAL, "
                   "t TEXT, b BLOB, n)" + (" WITHOUT ROWID" if without_rowid else ""))
        db.execute(f"CREATE INDEX {table}_t ON {table} (t)")
        db.execute(f"CREATE UNIQUE INDEX {table}_i ON {table} (i DESC)")
        db.execute(f"CREATE INDEX {table}_partial ON {table} (r, b) WHERE r > 10")
        db.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?, ?)",
                       [(codec.encode(v), *other_columns(i)) for i, v in enumerate(values)])
        db.commit()
    return {repr(v): repr(other_columns(i)) for i, v in enumerate(values)}


def table_rows(path: Path | str, table: str = "kv") -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(path)) as db:
        return db.execute(f"SELECT * FROM {table} ORDER BY k").fetchall()


def schema_objects(path: Path | str) -> list[tuple[str, str, str]]:
    with closing(sqlite3.connect(path)) as db:
        return sorted(db.execute("SELECT type, name, tbl_name FROM sqlite_master").fetchall())


def assert_sqlite_migrated(path: Path | str, expected: dict[str, str], *,
                           codec: Any = SKV, schema: KeySchema = SCHEMA,
                           table: str = "kv") -> None:
    """The table holds exactly *expected* under new keys: every key decodes to its values,
    the other columns are unchanged, ``ORDER BY k`` is the natural order, no leftovers."""
    rows = table_rows(path, table)
    decoded = [codec.decode(row[0]) for row in rows]
    assert len(rows) == len(expected)
    assert len({row[0] for row in rows}) == len(rows)
    assert {repr(v): repr(row[1:]) for v, row in zip(decoded, rows)} == expected
    assert decoded == sorted(decoded, key=lambda v: natural_key(v, schema, SKV_POLICY))
    names = [name for _, name, _ in schema_objects(path)]
    assert table + NEW_SUFFIX not in names
    assert STATE_TABLE not in names


def index_definitions(path: Path | str, table: str = "kv") -> dict[str, str]:
    with closing(sqlite3.connect(path)) as db:
        return dict(db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' "
                               "AND tbl_name = ? AND sql IS NOT NULL", (table,)).fetchall())


@pytest.mark.parametrize("without_rowid", [False, True])
def test_sqlite_migration_carries_everything_over(tmp_path: Path, without_rowid: bool) -> None:
    db = tmp_path / "kv.db"
    values = sample_values(1500)
    expected = make_table(db, values, without_rowid=without_rowid)
    indexes = index_definitions(db)
    seen: list[int] = []
    report = migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=400, progress=seen.append)
    assert isinstance(report, MigrationReport)
    assert report.keys == 1500
    assert report.resumed is False
    assert report.order_changes == 0
    assert report.anomalies == {}
    assert report.where == "sqlite table kv"
    assert report.seconds > 0
    assert seen == [400, 800, 1200, 1500]
    assert_sqlite_migrated(db, expected)
    assert index_definitions(db) == indexes
    names = [name for _, name, _ in schema_objects(db)]
    assert "kv" + OLD_SUFFIX not in names
    with closing(sqlite3.connect(db)) as conn:
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'kv'").fetchone()[0]
        assert ("WITHOUT ROWID" in sql) is without_rowid
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        # the recreated unique index still holds
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute("INSERT INTO kv (k, i) VALUES (x'00', 3)")


def test_sqlite_keep_old(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    values = sample_values(300)
    expected = make_table(db, values)
    before = table_rows(db)
    indexes = index_definitions(db)
    migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=100, keep_old=True)
    assert_sqlite_migrated(db, expected)
    assert table_rows(db, "kv" + OLD_SUFFIX) == before
    assert index_definitions(db) == indexes


def test_sqlite_accepts_a_connection(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    expected = make_table(db, sample_values(50))
    with closing(sqlite3.connect(db)) as conn:
        report = migrate_sqlite(conn, "kv", "k", fdb_to_skv(), batch_size=7)
        assert report.keys == 50
    assert_sqlite_migrated(db, expected)


@pytest.mark.parametrize(("setting", "value"), [("OFF", 0), ("ON", 1), ("FAST", 2)])
def test_sqlite_connection_passed_in_keeps_its_secure_delete(tmp_path: Path, setting: str,
                                                            value: int) -> None:
    db = tmp_path / "kv.db"
    expected = make_table(db, sample_values(50))
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(f"PRAGMA secure_delete = {setting}")
        migrate_sqlite(conn, "kv", "k", fdb_to_skv(), batch_size=7)
        assert conn.execute("PRAGMA secure_delete").fetchone() == (value,)
    assert_sqlite_migrated(db, expected)


def test_sqlite_own_connection_drops_the_original_with_fast_secure_delete(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An SQLite built with SECURE_DELETE zeroes every freed page: the swap's DROP then wrote
    the whole original again. The migration's own connection turns ON into FAST (and leaves
    OFF alone); the connection is SQLite's own, only watched here."""
    seen: list[tuple[int, ...]] = []
    connect = sqlite3.connect

    class Watched(sqlite3.Connection):
        def close(self) -> None:
            seen.append(self.execute("PRAGMA secure_delete").fetchone())
            super().close()

    def watched(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = connect(*args, **kwargs, factory=Watched)
        conn.execute("PRAGMA secure_delete = ON")  # whatever this build's default is
        return conn

    db = tmp_path / "kv.db"
    expected = make_table(db, sample_values(50))
    monkeypatch.setattr(sqlite3, "connect", watched)
    migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=7)
    monkeypatch.undo()
    assert seen == [(2,)]
    assert_sqlite_migrated(db, expected)


def test_sqlite_empty_table(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    make_table(db, [])
    report = migrate_sqlite(db, "kv", "k", fdb_to_skv())
    assert report.keys == 0
    assert_sqlite_migrated(db, {})


@pytest.mark.parametrize("ddl", [
    "CREATE TABLE kv (id INTEGER PRIMARY KEY, k BLOB UNIQUE, v)",
    "CREATE TABLE kv (k BLOB, x INTEGER, v, PRIMARY KEY (k, x))",
    "CREATE TABLE kv (k BLOB, v)",
])
def test_sqlite_key_column_must_be_the_primary_key(tmp_path: Path, ddl: str) -> None:
    db = tmp_path / "kv.db"
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(ddl)
        conn.execute("INSERT INTO kv (k, v) VALUES (?, 1)", (FDB.encode(("a", 1)),))
        conn.commit()
    objects, rows = schema_objects(db), table_rows(db)
    with pytest.raises(MigrationError, match="primary key"):
        migrate_sqlite(db, "kv", "k", fdb_to_skv())
    assert schema_objects(db) == objects
    assert table_rows(db) == rows


def test_sqlite_missing_column_or_table_refused(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    make_table(db, sample_values(10))
    objects = schema_objects(db)
    with pytest.raises(MigrationError, match="no column 'key'"):
        migrate_sqlite(db, "kv", "key", fdb_to_skv())
    with pytest.raises(MigrationError, match="no table 'nope'"):
        migrate_sqlite(db, "nope", "k", fdb_to_skv())
    assert schema_objects(db) == objects


def test_sqlite_non_blob_key_refused(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    make_table(db, sample_values(10))
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("INSERT INTO kv (k, i) VALUES ('text key', 1000)")
        conn.commit()
    before = table_rows(db)
    with pytest.raises(MigrationError, match="not a BLOB"):
        migrate_sqlite(db, "kv", "k", fdb_to_skv())
    assert table_rows(db) == before


BAD_KEY = b"\x02t\x00\x15"  # fdb-tuple: an int code without its byte; sorts among the middle
BAD_ROW = repr((99999, None, "bad", None, None))


def _table_with_bad_key(db: Path) -> tuple[list[tuple[Any, ...]], dict[str, str]]:
    values = [(f"{c}", n) for c in "abcdefghijklmnopqrstuvwxyz" for n in range(20)]
    expected = make_table(db, values)
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("INSERT INTO kv (k, i, t) VALUES (?, 99999, 'bad')", (BAD_KEY,))
        conn.commit()
    return values, expected


def test_sqlite_invalid_source_key_stops_and_leaves_the_original(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    _, expected = _table_with_bad_key(db)
    before = table_rows(db)
    with pytest.raises(MigrationError) as info:
        migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=50)
    assert BAD_KEY.hex(" ") in str(info.value)
    assert "untouched" in str(info.value)
    assert table_rows(db) == before
    with closing(sqlite3.connect(db)) as conn:  # it stopped in the middle of the copy
        copied = conn.execute(f"SELECT copied FROM {STATE_TABLE}").fetchone()[0]
    assert 0 < copied < len(before)
    # fixed by deleting the row: the rerun resumes and completes
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("DELETE FROM kv WHERE k = ?", (BAD_KEY,))
        conn.commit()
    report = migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=50)
    assert report.resumed is True
    assert report.keys == len(expected)
    assert_sqlite_migrated(db, expected)


def test_sqlite_invalid_key_fixed_to_a_later_key_completes(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    _, expected = _table_with_bad_key(db)
    with pytest.raises(MigrationError):
        migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=50)
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("UPDATE kv SET k = ? WHERE k = ?", (FDB.encode(("zz", 1)), BAD_KEY))
        conn.commit()
    report = migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=50)
    assert report.keys == len(expected) + 1
    assert_sqlite_migrated(db, {**expected, repr(("zz", 1)): BAD_ROW})


def test_sqlite_invalid_key_fixed_to_an_earlier_key_is_not_lost(tmp_path: Path) -> None:
    """A fixed key that sorts before the position already reached is never copied by a resumed
    run: the row count check must refuse (nothing lost), and a restart completes."""
    db = tmp_path / "kv.db"
    _, expected = _table_with_bad_key(db)
    with pytest.raises(MigrationError):
        migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=50)
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("UPDATE kv SET k = ? WHERE k = ?", (FDB.encode(("a", -1)), BAD_KEY))
        conn.commit()
    before = table_rows(db)
    with pytest.raises(MigrationError, match="rows"):
        migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=50)
    assert table_rows(db) == before
    report = migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=50, restart=True)
    assert report.resumed is False
    assert_sqlite_migrated(db, {**expected, repr(("a", -1)): BAD_ROW})


def _interrupted_sqlite(db: Path, n: int = 1000, batch: int = 100) -> dict[str, str]:
    expected = make_table(db, sample_values(n))
    before = table_rows(db)
    with pytest.raises(Stop):
        migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=batch,
                       progress=stop_after(2 * batch))
    assert table_rows(db) == before  # the original is untouched
    with closing(sqlite3.connect(db)) as conn:
        state = conn.execute(f"SELECT phase, copied FROM {STATE_TABLE} "
                             "WHERE source_table = 'kv'").fetchone()
        new_rows = conn.execute(f"SELECT COUNT(*) FROM kv{NEW_SUFFIX}").fetchone()[0]
    assert state == ("copy", 2 * batch)
    assert new_rows == 2 * batch
    return expected


def test_sqlite_interrupted_run_resumes(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    expected = _interrupted_sqlite(db)
    seen: list[int] = []
    report = migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=100, progress=seen.append)
    assert report.resumed is True
    assert report.keys == 1000
    assert seen[0] == 300
    assert seen[-1] == 1000
    assert report.order_changes == 0
    assert_sqlite_migrated(db, expected)


def test_sqlite_resume_with_other_settings_refused(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    _interrupted_sqlite(db)
    before = table_rows(db)
    for other in [Transcoder("fdb-tuple", "orderly", SCHEMA_TEXT),
                  Transcoder("fdb-tuple", "skv", "tenant:string, n:int32")]:
        with pytest.raises(MigrationError, match="other settings"):
            migrate_sqlite(db, "kv", "k", other, batch_size=100)
    assert table_rows(db) == before
    # the unfinished migration is still there, and finishes with its own settings
    report = migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=100)
    assert report.resumed is True
    assert report.keys == 1000


def test_sqlite_restart_discards_the_unfinished_copy(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    expected = _interrupted_sqlite(db)
    orderly = get_codec("orderly").bind(SCHEMA)
    report = migrate_sqlite(db, "kv", "k", Transcoder("fdb-tuple", "orderly", SCHEMA_TEXT),
                            batch_size=100, restart=True)
    assert report.resumed is False
    assert report.keys == 1000
    assert_sqlite_migrated(db, expected, codec=orderly)


def test_sqlite_new_table_without_state_refused(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    make_table(db, sample_values(10))
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(f"CREATE TABLE kv{NEW_SUFFIX} (x)")
        conn.commit()
    objects = schema_objects(db)
    with pytest.raises(MigrationError, match="exists but no migration is recorded"):
        migrate_sqlite(db, "kv", "k", fdb_to_skv())
    assert schema_objects(db) == objects


def test_sqlite_restart_drops_a_stray_new_table(tmp_path: Path) -> None:
    """The refusal above says "drop it, or use restart=True (--restart)": restart must work."""
    db = tmp_path / "kv.db"
    expected = make_table(db, sample_values(10))
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(f"CREATE TABLE kv{NEW_SUFFIX} (x)")
        conn.commit()
    report = migrate_sqlite(db, "kv", "k", fdb_to_skv(), restart=True)
    assert report.keys == 10
    assert_sqlite_migrated(db, expected)


def test_sqlite_target_collision_refused(tmp_path: Path) -> None:
    """lexkey writes ("a\\x00b", "c") and ("a", "b\\x00c") as the same bytes 61 00 62 00 63."""
    schema = "a:string, b:string"
    fdb = get_codec("fdb-tuple").bind(schema)
    lexkey = get_codec("lexkey")
    one, two = ("a\x00b", "c"), ("a", "b\x00c")
    assert lexkey.encode(one) == lexkey.encode(two)
    values = [("a", "a"), one, two, ("b", "x")]
    for check in (True, False):  # the value check, or the store's uniqueness, catches it
        db = tmp_path / f"kv{check}.db"
        make_table(db, values, codec=fdb)
        before = table_rows(db)
        with pytest.raises(MigrationError):
            migrate_sqlite(db, "kv", "k", Transcoder("fdb-tuple", "lexkey", schema,
                                                     check=check))
        assert table_rows(db) == before


def test_sqlite_target_collision_message(tmp_path: Path) -> None:
    schema = "a:string, b:string"
    fdb = get_codec("fdb-tuple").bind(schema)
    db = tmp_path / "kv.db"
    make_table(db, [("a\x00b", "c"), ("a", "b\x00c")], codec=fdb)
    with pytest.raises(MigrationError, match="same new key"):
        migrate_sqlite(db, "kv", "k", Transcoder("fdb-tuple", "lexkey", schema, check=False))


def test_sqlite_unnatural_new_order_refused(tmp_path: Path) -> None:
    """A target whose keys are out of the natural order, with no declared anomaly to explain
    it, fails the verification; the original stays."""
    db = tmp_path / "kv.db"
    make_table(db, sample_values(100))
    before = table_rows(db)
    broken = Transcoder("fdb-tuple", NegativesFirstBroken(), SCHEMA_TEXT)
    with pytest.raises(MigrationError, match="not in the natural order"):
        migrate_sqlite(db, "kv", "k", broken)
    assert table_rows(db) == before


@pytest.mark.parametrize(("schema", "values", "first_example"), [
    ("x:float64",
     [-math.inf, -1e300, -2.5, -1.0, -5e-324, -0.0, 0.0, 5e-324, 1.0, math.inf],
     (["-0.0"], ["-inf"])),
    ("s:string, n:int64",
     [("a", 1), ("a\x00b", 1), ("a\x00", 2), ("ab", 0), ("b", -1), ("", 5)],
     (["'a\\x00b'", "1"], ["'a'", "1"])),
])
@pytest.mark.parametrize("target", ["fdb-tuple", "skv"])
def test_sqlite_report_counts_keys_stored_in_a_wrong_order(
        tmp_path: Path, schema: str, values: list[Any], first_example: Any,
        target: str) -> None:
    """lexkey stores -0.0 below -inf, and "a\\x00b" below "a": the new keys put them in the
    natural order, and the report shows where the old order was wrong."""
    rows = [v if isinstance(v, tuple) else (v,) for v in values]
    lexkey = get_codec("lexkey").bind(schema)
    tgt = get_codec(target).bind(schema)
    db = tmp_path / "kv.db"
    expected = make_table(db, rows, codec=lexkey)
    old_order = [lexkey.decode(row[0]) for row in table_rows(db)]
    expected_changes = inversions([tgt.encode(v) for v in old_order])
    assert expected_changes >= 1
    report = migrate_sqlite(db, "kv", "k", Transcoder("lexkey", target, schema))
    assert report.order_changes == expected_changes
    assert report.examples[0] == first_example
    assert report.anomalies == {}
    assert_sqlite_migrated(db, expected, codec=tgt, schema=KeySchema.parse(schema))
    assert "place(s) where the old key order disagreed" in report.summary()


def test_sqlite_declared_target_anomaly_is_reported(tmp_path: Path) -> None:
    """To lexkey, -0.0 lands below -inf: a declared anomaly of the target, reported, not a
    failure."""
    schema = "x:float64"
    fdb = get_codec("fdb-tuple").bind(schema)
    db = tmp_path / "kv.db"
    make_table(db, [(v,) for v in (-math.inf, -1.0, -0.0, 0.0, 2.0)], codec=fdb)
    report = migrate_sqlite(db, "kv", "k", Transcoder("fdb-tuple", "lexkey", schema))
    assert report.keys == 5
    assert report.anomalies == {"negative-zero-below-inf": 1}
    assert report.order_changes == 1
    assert "negative-zero-below-inf" in report.summary()


def test_sqlite_table_and_column_names_are_quoted(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    values = sample_values(30)
    with closing(sqlite3.connect(db)) as conn:
        conn.execute('CREATE TABLE "my table" ("key col" BLOB PRIMARY KEY, "v""x" TEXT) '
                     "WITHOUT ROWID")
        conn.executemany('INSERT INTO "my table" VALUES (?, ?)',
                         [(FDB.encode(v), repr(v)) for v in values])
        conn.commit()
    report = migrate_sqlite(db, "my table", "key col", fdb_to_skv(), batch_size=7)
    assert report.keys == 30
    with closing(sqlite3.connect(db)) as conn:
        rows = conn.execute('SELECT * FROM "my table" ORDER BY "key col"').fetchall()
    assert [SKV.decode(k) for k, _ in rows] == natural_sorted(values)
    assert all(repr(SKV.decode(k)) == v for k, v in rows)


@pytest.mark.parametrize(("declared", "name"), [
    ("'kv'", "kv"),
    ("'it''s'", "it's"),
    ("'my table'", "my table"),
    ("main.'s q'", "s q"),
    ('"a""b"', 'a"b'),
    ("[x y]", "x y"),
    ("`q``r`", "q`r"),
    ("é€x", "é€x"),
    ("/* c */ 'c m' /* d */", "c m"),
    ("IF NOT EXISTS 'ine'", "ine"),
])
def test_sqlite_every_table_name_sqlite_accepts(tmp_path: Path, declared: str,
                                                name: str) -> None:
    """Issue 15 item 8: single-quoted names (and every other spelling SQLite accepts)."""
    db = tmp_path / "kv.db"
    values = sample_values(20)
    quoted = '"' + name.replace('"', '""') + '"'
    index = '"' + (name + " v").replace('"', '""') + '"'
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(f"CREATE TABLE {declared} (k BLOB PRIMARY KEY, v TEXT)")
        conn.execute(f"CREATE INDEX {index} ON {quoted} (v)")
        conn.executemany(f"INSERT INTO {quoted} VALUES (?, ?)",
                         [(FDB.encode(v), repr(v)) for v in values])
        conn.commit()
    report = migrate_sqlite(db, name, "k", fdb_to_skv(), batch_size=7)
    assert report.keys == 20
    with closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(f"SELECT * FROM {quoted} ORDER BY k").fetchall()
        names = {n for (n,) in conn.execute("SELECT name FROM sqlite_master")}
    assert [SKV.decode(k) for k, _ in rows] == natural_sorted(values)
    assert all(repr(SKV.decode(k)) == v for k, v in rows)
    assert f"{name} v" in names
    assert name + NEW_SUFFIX not in names
    assert STATE_TABLE not in names


def test_sqlite_two_migrations_of_one_table_at_once_the_second_is_refused(
        tmp_path: Path) -> None:
    """Issue 15 item 7: while one migration of a table runs (between two of its batches), a
    second one -- in this process or another, through the API or the CLI -- is refused with
    a clear message and changes nothing; the first then finishes; a third after it runs."""
    db = tmp_path / "kv.db"
    expected = make_table(db, sample_values(600))
    seen: list[str] = []

    def second_run(done: int) -> None:
        if seen:
            return
        objects = schema_objects(db)
        with pytest.raises(MigrationError, match=r"another migration of table 'kv'.*running"):
            migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=100)
        result = run_cli(*MIGRATE, "--sqlite", db, "--table", "kv", "--key-column", "k",
                         "--no-progress", cwd=tmp_path)
        seen.append(assert_cli_error(result))
        assert schema_objects(db) == objects

    report = migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=100, progress=second_run)
    assert report.keys == 600
    assert report.resumed is False
    assert "another migration of table 'kv'" in seen[0]
    assert_sqlite_migrated(db, expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kv.db"]  # no lock file left
    make_table(db, sample_values(10), table="other")
    migrate_sqlite(db, "other", "k", fdb_to_skv())  # the lock is free again


@pytest.mark.parametrize("room", [0.0, 0.3, 0.6])
def test_sqlite_disk_full_says_so_keeps_the_table_and_resumes(tmp_path: Path,
                                                              room: float) -> None:
    """Issue 15 item 7: the database fills up for real (SQLite's ``max_page_count`` caps
    it) before the copy, halfway or near its end: the error says "disk full", the original
    table is intact, and once there is room the same migration resumes and finishes."""
    db = tmp_path / "kv.db"
    expected = make_table(db, sample_values(3000))
    before = table_rows(db)
    with closing(sqlite3.connect(db)) as conn:
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages + int(pages * room) + 1}")
        with pytest.raises(MigrationError, match="disk full") as caught:
            migrate_sqlite(conn, "kv", "k", fdb_to_skv(), batch_size=200)
        assert "rollback" not in str(caught.value)
        assert table_rows(db) == before
        assert index_definitions(db)  # the table's indexes too
        conn.execute(f"PRAGMA max_page_count = {1 << 30}")
        report = migrate_sqlite(conn, "kv", "k", fdb_to_skv(), batch_size=200)
    assert report.keys == 3000
    assert_sqlite_migrated(db, expected)


def test_sqlite_verify_notices_rows_changed_between_runs(tmp_path: Path) -> None:
    """Between an interrupted run and its rerun, a row already copied is deleted and a new one
    added (the count stays the same). Verification ("every new key decodes to the old key's
    values") must notice; at the least the result must not hold the deleted row, and must
    hold the new one."""
    db = tmp_path / "kv.db"
    expected = _interrupted_sqlite(db)
    first = natural_sorted(sample_values(1000))[0]  # copied in the first batch
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("DELETE FROM kv WHERE k = ?", (FDB.encode(first),))
        # a new row that sorts before the position reached: the count stays the same
        conn.execute("INSERT INTO kv (k, i) VALUES (?, 123456)", (FDB.encode(("", -10**12)),))
        conn.commit()
    now = {**{v: r for v, r in expected.items() if v != repr(first)},
           repr(("", -10**12)): repr((123456, None, None, None, None))}
    before = table_rows(db)
    try:
        migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=100)
    except MigrationError:
        assert table_rows(db) == before
    else:
        rows = {SKV.decode(row[0]) for row in table_rows(db)}
        assert first not in rows, f"the deleted row {first!r} came back"
        assert_sqlite_migrated(db, now)


@pytest.mark.parametrize("change", ["other-column", "new-table-row", "new-table-key"])
def test_sqlite_verify_compares_every_row(tmp_path: Path, change: str) -> None:
    """After an interrupted run, a copied row differs between the old and the new table (its
    other column changed in the old one, or the new table tampered with): the rerun's
    verification refuses, and the original stays; a restart then completes."""
    db = tmp_path / "kv.db"
    expected = _interrupted_sqlite(db)
    first = natural_sorted(sample_values(1000))[0]  # copied in the first batch
    with closing(sqlite3.connect(db)) as conn:
        if change == "other-column":
            conn.execute("UPDATE kv SET t = 'changed' WHERE k = ?", (FDB.encode(first),))
        elif change == "new-table-row":
            conn.execute(f"UPDATE kv{NEW_SUFFIX} SET i = -1 WHERE k = ?", (SKV.encode(first),))
        else:  # a new key that decodes to other values
            conn.execute(f"UPDATE kv{NEW_SUFFIX} SET k = ? WHERE k = ?",
                         (SKV.encode(("", -10**12)), SKV.encode(first)))
        conn.commit()
    before = table_rows(db)
    with pytest.raises(MigrationError, match="not in the new table as it is in the old one"):
        migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=100)
    assert table_rows(db) == before
    migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=100, restart=True)
    if change == "other-column":
        rest = other_columns(sample_values(1000).index(first))
        expected[repr(first)] = repr((*rest[:2], "changed", *rest[3:]))
    assert_sqlite_migrated(db, expected)


def test_sqlite_verify_tells_a_missing_row_from_a_null_column(tmp_path: Path) -> None:
    """A table of a key and one other column, NULL in some rows: the verification compares
    that column's values themselves, so a row whose new key is missing must not pass as "its
    value is None" (the row is not there, which is not a NULL)."""
    db = tmp_path / "kv.db"
    values = [("t", n) for n in range(300)]
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("CREATE TABLE kv (k BLOB PRIMARY KEY, v BLOB)")
        conn.executemany("INSERT INTO kv VALUES (?, ?)",
                         [(FDB.encode(v), None if v[1] % 3 else b"x") for v in values])
        conn.commit()
    with pytest.raises(Stop):
        migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=100, progress=stop_after(200))
    with closing(sqlite3.connect(db)) as conn:  # a copied row with a NULL, under another key
        conn.execute(f"UPDATE kv{NEW_SUFFIX} SET k = ? WHERE k = ?",
                     (SKV.encode(("t", -1)), SKV.encode(("t", 1))))
        conn.commit()
    before = table_rows(db)
    with pytest.raises(MigrationError, match="not in the new table as it is in the old one"):
        migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=100)
    assert table_rows(db) == before


def test_sqlite_triggers_survive_the_swap(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    make_table(db, sample_values(20))
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("CREATE TABLE log (i)")
        conn.execute("CREATE TRIGGER kv_log AFTER INSERT ON kv BEGIN "
                     "INSERT INTO log VALUES (new.i); END")
        conn.commit()
    migrate_sqlite(db, "kv", "k", fdb_to_skv())
    with closing(sqlite3.connect(db)) as conn:
        triggers = conn.execute("SELECT name, tbl_name FROM sqlite_master "
                                "WHERE type = 'trigger'").fetchall()
    assert triggers == [("kv_log", "kv")], "the table's trigger was dropped by the swap"


@pytest.mark.parametrize("keep_old", [False, True])
def test_sqlite_views_follow_the_migrated_table(tmp_path: Path, keep_old: bool) -> None:
    """A view on the table: the migration completes with the view reading the migrated table,
    or is refused with a lexcodecs error, leaving the original as it was."""
    db = tmp_path / "kv.db"
    expected = make_table(db, sample_values(20))
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("CREATE VIEW kv_view AS SELECT k, i FROM kv")
        conn.commit()
    before = table_rows(db)
    try:
        migrate_sqlite(db, "kv", "k", fdb_to_skv(), keep_old=keep_old)
    except MigrationError:
        assert table_rows(db) == before
        return
    assert_sqlite_migrated(db, expected)
    with closing(sqlite3.connect(db)) as conn:
        viewed = sorted(conn.execute("SELECT k FROM kv_view").fetchall())
    assert viewed == sorted((row[0],) for row in table_rows(db)), \
        "the view reads the old table"


def test_sqlite_memory_does_not_grow_with_rows(tmp_path: Path) -> None:
    """Keyset paging: the peak of Python memory is set by the batch, not the table."""
    peaks = []
    for n in (3_000, 30_000):
        db = tmp_path / f"m{n}.db"
        values = [(f"tenant{i % 50}", i) for i in range(n)]
        with closing(sqlite3.connect(db)) as conn:
            conn.execute("CREATE TABLE kv (k BLOB PRIMARY KEY, v TEXT)")
            conn.executemany("INSERT INTO kv VALUES (?, ?)",
                             ((FDB.encode(v), f"value {v[1]}" * 3) for v in values))
            conn.commit()
        with closing(sqlite3.connect(db)) as conn:
            conn.execute("PRAGMA synchronous = OFF")
            t = fdb_to_skv()
            tracemalloc.start()
            try:
                base = tracemalloc.get_traced_memory()[0]
                report = migrate_sqlite(conn, "kv", "k", t, batch_size=200)
                peaks.append(tracemalloc.get_traced_memory()[1] - base)
            finally:
                tracemalloc.stop()
        assert report.keys == n
    small, large = peaks
    assert large < 2 * small + 200_000, f"peak {small} bytes for 3k rows, {large} for 30k"


# -- LMDB -------------------------------------------------------------------------------------


def make_env(path: Path, values: list[tuple[Any, ...]], codec: Any = FDB,
             extra: Iterable[tuple[bytes, bytes]] = ()) -> dict[tuple[Any, ...], bytes]:
    env = lmdb.open(str(path), map_size=1 << 26)
    try:
        with env.begin(write=True) as txn:
            for i, v in enumerate(values):
                txn.put(codec.encode(v), b"value %d \x00\xff" % i)
            for key, value in extra:
                txn.put(key, value)
    finally:
        env.close()
    return {v: b"value %d \x00\xff" % i for i, v in enumerate(values)}


def read_env(path: Path) -> list[tuple[bytes, bytes]]:
    env = lmdb.open(str(path), readonly=True, lock=False)
    try:
        with env.begin() as txn:
            return list(txn.cursor())
    finally:
        env.close()


def leftovers(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name + "."))


def assert_lmdb_migrated(path: Path, expected: dict[tuple[Any, ...], bytes],
                         codec: Any = SKV, *, keep_old: bool = False) -> None:
    items = read_env(path)
    decoded = [codec.decode(k) for k, _ in items]
    assert len(items) == len(expected)
    assert dict(zip(decoded, (v for _, v in items))) == expected
    assert decoded == natural_sorted(decoded)
    assert leftovers(path) == ([path.name + ".lexcodecs-old"] if keep_old else [])


def test_lmdb_migration(tmp_path: Path) -> None:
    path = tmp_path / "env"
    expected = make_env(path, sample_values(1200))
    seen: list[int] = []
    report = migrate_lmdb(path, fdb_to_skv(), batch_size=500, progress=seen.append)
    assert report.keys == 1200
    assert report.resumed is False
    assert report.order_changes == 0
    assert report.where == f"lmdb {path}"
    assert seen == [500, 1000, 1200]
    assert_lmdb_migrated(path, expected)


def test_lmdb_keep_old(tmp_path: Path) -> None:
    path = tmp_path / "env"
    expected = make_env(path, sample_values(300))
    before = read_env(path)
    migrate_lmdb(path, fdb_to_skv(), keep_old=True)
    assert_lmdb_migrated(path, expected, keep_old=True)
    assert read_env(tmp_path / "env.lexcodecs-old") == before


def _interrupted_lmdb(path: Path, n: int = 1000, batch: int = 100,
                      ) -> dict[tuple[Any, ...], bytes]:
    expected = make_env(path, sample_values(n))
    before = read_env(path)
    with pytest.raises(Stop):
        migrate_lmdb(path, fdb_to_skv(), batch_size=batch, progress=stop_after(2 * batch))
    assert leftovers(path) == ["env.lexcodecs-new", "env.lexcodecs-state"]
    assert read_env(path) == before  # the original is untouched
    assert len(read_env(new_env_path(path))) == 2 * batch
    return expected


def new_env_path(path: Path) -> Path:
    return path.with_name(path.name + ".lexcodecs-new")


def test_lmdb_interrupted_run_resumes(tmp_path: Path) -> None:
    path = tmp_path / "env"
    expected = _interrupted_lmdb(path)
    report = migrate_lmdb(path, fdb_to_skv(), batch_size=100)
    assert report.resumed is True
    assert report.keys == 1000
    assert_lmdb_migrated(path, expected)


def test_lmdb_crash_between_a_commit_and_its_state_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The third batch is committed to the new environment but the state file still says two:
    the rerun copies the third batch again, which must neither lose nor double anything."""
    path = tmp_path / "env"
    expected = make_env(path, sample_values(1000))
    real_write = directory.write_state
    calls = []

    def write_state(state_path: Path, state: dict[str, Any]) -> None:
        calls.append(state.get("last_key"))
        if len(calls) == 4:  # the first records the migration, then one a batch
            raise Crash
        real_write(state_path, state)

    monkeypatch.setattr(directory, "write_state", write_state)
    with pytest.raises(Crash):
        migrate_lmdb(path, fdb_to_skv(), batch_size=100)
    monkeypatch.undo()
    assert len(read_env(new_env_path(path))) == 300
    report = migrate_lmdb(path, fdb_to_skv(), batch_size=100)
    assert report.resumed is True
    assert report.keys == 1000
    assert_lmdb_migrated(path, expected)


@pytest.mark.parametrize("change", ["value", "delete-and-insert"])
def test_lmdb_verify_notices_entries_changed_between_runs(tmp_path: Path, change: str) -> None:
    """Between an interrupted run and its rerun, a copied entry's value changes, or one copied
    key is deleted and another inserted before the position (same count): refused."""
    path = tmp_path / "env"
    expected = _interrupted_lmdb(path)
    first = natural_sorted(sample_values(1000))[0]
    env = lmdb.open(str(path))
    try:
        with env.begin(write=True) as txn:
            if change == "value":
                txn.put(FDB.encode(first), b"changed")
            else:
                txn.delete(FDB.encode(first))
                txn.put(FDB.encode(("", -10**12)), b"inserted")
    finally:
        env.close()
    before = read_env(path)
    with pytest.raises(MigrationError, match="not in the new environment as it is"):
        migrate_lmdb(path, fdb_to_skv(), batch_size=100)
    assert read_env(path) == before
    migrate_lmdb(path, fdb_to_skv(), batch_size=100, restart=True)
    if change == "value":
        expected[first] = b"changed"
    else:
        del expected[first]
        expected[("", -10**12)] = b"inserted"
    assert_lmdb_migrated(path, expected)


def test_lmdb_resume_with_other_settings_refused(tmp_path: Path) -> None:
    path = tmp_path / "env"
    _interrupted_lmdb(path)
    before = read_env(path)
    with pytest.raises(MigrationError, match="other settings"):
        migrate_lmdb(path, Transcoder("fdb-tuple", "orderly", SCHEMA_TEXT))
    assert read_env(path) == before
    report = migrate_lmdb(path, fdb_to_skv())
    assert report.resumed is True


def test_lmdb_restart_discards_the_unfinished_copy(tmp_path: Path) -> None:
    path = tmp_path / "env"
    expected = _interrupted_lmdb(path)
    report = migrate_lmdb(path, Transcoder("fdb-tuple", "orderly", SCHEMA_TEXT), restart=True)
    assert report.resumed is False
    assert report.keys == 1000
    assert_lmdb_migrated(path, expected, get_codec("orderly").bind(SCHEMA))


def test_lmdb_new_environment_without_state_refused(tmp_path: Path) -> None:
    path = tmp_path / "env"
    make_env(path, sample_values(10))
    new_env_path(path).mkdir()
    with pytest.raises(MigrationError, match="no migration is recorded"):
        migrate_lmdb(path, fdb_to_skv())
    assert migrate_lmdb(path, fdb_to_skv(), restart=True).keys == 10


def test_lmdb_invalid_source_key_leaves_the_original(tmp_path: Path) -> None:
    path = tmp_path / "env"
    make_env(path, sample_values(200), extra=[(BAD_KEY, b"bad")])
    before = read_env(path)
    with pytest.raises(MigrationError, match=BAD_KEY.hex(" ")):
        migrate_lmdb(path, fdb_to_skv(), batch_size=30)
    assert read_env(path) == before


def test_lmdb_target_collision_refused(tmp_path: Path) -> None:
    schema = "a:string, b:string"
    fdb = get_codec("fdb-tuple").bind(schema)
    path = tmp_path / "env"
    make_env(path, [("a\x00b", "c"), ("a", "b\x00c"), ("z", "z")], codec=fdb)
    before = read_env(path)
    for check in (True, False):
        with pytest.raises(MigrationError):
            migrate_lmdb(path, Transcoder("fdb-tuple", "lexkey", schema, check=check),
                         restart=True)
        assert read_env(path) == before


def test_lmdb_order_changes_reported(tmp_path: Path) -> None:
    schema = "x:float64"
    lexkey = get_codec("lexkey").bind(schema)
    path = tmp_path / "env"
    make_env(path, [(v,) for v in (-math.inf, -1.0, -0.0, 0.0, 1.0)], codec=lexkey)
    report = migrate_lmdb(path, Transcoder("lexkey", "skv", schema))
    assert report.order_changes == 1
    assert report.examples == [(["-0.0"], ["-inf"])]


@pytest.mark.parametrize("keep_old", [False, True])
def test_lmdb_crash_after_the_second_rename_is_finished_by_a_rerun(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep_old: bool) -> None:
    """Crash right after ``<path>.lexcodecs-new`` became ``<path>``: a rerun must finish (the
    new data stays at ``<path>``), not fail on the directories that are already in place."""
    path = tmp_path / "env"
    expected = make_env(path, sample_values(100))
    real_replace = os.replace

    def replace(src: Any, dst: Any) -> None:
        real_replace(src, dst)
        if str(src).endswith(".lexcodecs-new"):
            raise Crash

    monkeypatch.setattr(lmdb_store.os, "replace", replace)
    with pytest.raises(Crash):
        migrate_lmdb(path, fdb_to_skv(), keep_old=keep_old)
    monkeypatch.undo()
    migrate_lmdb(path, fdb_to_skv(), keep_old=keep_old)
    assert_lmdb_migrated(path, expected, keep_old=keep_old)


def test_lmdb_crash_before_the_state_file_is_removed_is_finished_by_a_rerun(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Crash after the swap and the removal of the old directory, before the state file is
    deleted: the migrated data is at ``<path>``; a rerun must leave it there."""
    path = tmp_path / "env"
    expected = make_env(path, sample_values(100))
    real_unlink = Path.unlink

    def unlink(self: Path, *args: Any, **kwargs: Any) -> None:
        if self.name.endswith(".lexcodecs-state"):
            raise Crash
        real_unlink(self, *args, **kwargs)

    monkeypatch.setattr(Path, "unlink", unlink)
    with pytest.raises(Crash):
        migrate_lmdb(path, fdb_to_skv())
    monkeypatch.undo()
    try:
        migrate_lmdb(path, fdb_to_skv())
    finally:
        assert path.exists(), f"{path} is gone; the data is in {leftovers(path)}"
    assert_lmdb_migrated(path, expected)


def test_lmdb_crash_between_the_renames_is_finished_by_a_rerun(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "env"
    expected = make_env(path, sample_values(100))
    real_replace = os.replace

    def replace(src: Any, dst: Any) -> None:
        if str(src).endswith(".lexcodecs-new"):
            raise Crash
        real_replace(src, dst)

    monkeypatch.setattr(lmdb_store.os, "replace", replace)
    with pytest.raises(Crash):
        migrate_lmdb(path, fdb_to_skv())
    monkeypatch.undo()
    assert not path.exists()
    report = migrate_lmdb(path, fdb_to_skv())
    assert report.resumed is True
    assert_lmdb_migrated(path, expected)


def test_lmdb_restart_after_a_crash_between_the_renames(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a crash between the renames, ``<path>`` does not exist (the original is at
    ``<path>.lexcodecs-old``). A rerun with restart=True must not strand the data: either it
    finishes (the environment is at ``<path>`` with every entry), or it refuses with a
    lexcodecs error and removes nothing."""
    path = tmp_path / "env"
    expected = make_env(path, sample_values(100))
    real_replace = os.replace

    def replace(src: Any, dst: Any) -> None:
        if str(src).endswith(".lexcodecs-new"):
            raise Crash
        real_replace(src, dst)

    monkeypatch.setattr(lmdb_store.os, "replace", replace)
    with pytest.raises(Crash):
        migrate_lmdb(path, fdb_to_skv())
    monkeypatch.undo()
    left = leftovers(path)
    assert left == ["env.lexcodecs-new", "env.lexcodecs-old", "env.lexcodecs-state"]
    try:
        migrate_lmdb(path, fdb_to_skv(), restart=True)
    except MigrationError:
        assert leftovers(path) == left, "a refusal removed part of the migration"
        return
    except Exception as exc:
        raise AssertionError(f"{type(exc).__name__}: {exc}; {path} exists: {path.exists()}; "
                             f"left: {leftovers(path)}") from None
    assert_lmdb_migrated(path, expected)


def _crash_between_the_renames(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_replace = os.replace

    def replace(src: Any, dst: Any) -> None:
        if str(src).endswith(".lexcodecs-new"):
            raise Crash
        real_replace(src, dst)

    monkeypatch.setattr(lmdb_store.os, "replace", replace)
    with pytest.raises(Crash):
        migrate_lmdb(path, fdb_to_skv())
    monkeypatch.undo()
    assert not path.exists()


@pytest.mark.parametrize("keep_old", [False, True])
def test_cli_finishes_a_swap_interrupted_between_the_renames(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep_old: bool) -> None:
    """Issue 15 item 5: the CLI, not only the API, finishes the half-done swap, and says so."""
    path = tmp_path / "env"
    expected = make_env(path, sample_values(100))
    before = read_env(path)
    _crash_between_the_renames(path, monkeypatch)
    result = run_cli(*MIGRATE, "--lmdb", path, "--no-progress",
                     *(["--keep-old"] if keep_old else []), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "finished the swap of an interrupted run" in result.stdout
    assert_lmdb_migrated(path, expected, keep_old=keep_old)
    if keep_old:
        assert read_env(tmp_path / "env.lexcodecs-old") == before


def test_cli_rolls_back_a_swap_interrupted_between_the_renames_without_its_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 15 item 5: the verified copy is gone (removed by hand): the CLI puts the
    original back, says it rolled back, and migrates again from it."""
    path = tmp_path / "env"
    expected = make_env(path, sample_values(100))
    _crash_between_the_renames(path, monkeypatch)
    shutil.rmtree(new_env_path(path))
    result = run_cli(*MIGRATE, "--lmdb", path, "--no-progress", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert any("rolled back" in note for note in report["notes"])
    assert report["keys"] == 100
    assert_lmdb_migrated(path, expected)


def test_lmdb_new_key_too_long_for_lmdb_is_a_migration_error(tmp_path: Path) -> None:
    """sqlite4 writes bytes 8/7 longer: a 480-byte value fits LMDB's 511-byte key limit as an
    fdb-tuple key but not as a sqlite4 key. A lexcodecs error, not lmdb's own."""
    schema = "b:bytes"
    fdb = get_codec("fdb-tuple").bind(schema)
    path = tmp_path / "env"
    make_env(path, [(b"\x01" * 480,), (b"a",)], codec=fdb)
    before = read_env(path)
    with pytest.raises(MigrationError):
        migrate_lmdb(path, Transcoder("fdb-tuple", "sqlite4", schema))
    assert read_env(path) == before


def test_lmdb_map_grows_when_it_fills(tmp_path: Path) -> None:
    """Issue 15 item 6: a new environment whose map is too small grows between batches
    instead of failing with lmdb's MapFullError."""
    path = tmp_path / "env"
    expected = make_env(path, sample_values(3000))
    report = migrate_lmdb(path, fdb_to_skv(), batch_size=500, map_size=1 << 15)
    assert report.keys == 3000
    assert_lmdb_migrated(path, expected)


def test_lmdb_map_grows_from_the_default_size(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The default map (twice what the source uses, with a floor made small here) is too
    small for keys that grow more than twice: it grows."""
    schema = "n:int64"
    fdb = get_codec("fdb-tuple").bind(schema)
    monkeypatch.setattr(lmdb_store, "_MIN_MAP_SIZE", 1 << 12)
    path = tmp_path / "env"
    env = lmdb.open(str(path), map_size=1 << 20)
    try:
        with env.begin(write=True) as txn:
            for n in range(20_000):
                txn.put(fdb.encode((n,)), b"")
    finally:
        env.close()
    report = migrate_lmdb(path, Transcoder("fdb-tuple", "skv", schema), batch_size=5000)
    assert report.keys == 20_000
    skv = get_codec("skv").bind(schema)
    assert [skv.decode(k) for k, _ in read_env(path)] == [(n,) for n in range(20_000)]
    assert leftovers(path) == []


def test_cli_map_size(tmp_path: Path) -> None:
    path = tmp_path / "env"
    expected = make_env(path, sample_values(2000))
    result = run_cli(*MIGRATE, "--lmdb", path, "--map-size", "32KiB", "--batch-size", "700",
                     "--json", "--no-progress", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["keys"] == 2000
    assert_lmdb_migrated(path, expected)
    for bad in ("0", "lots", "1.5GiB"):
        result = run_cli(*MIGRATE, "--lmdb", path, "--map-size", bad, cwd=tmp_path)
        assert result.returncode == 2
        assert "Traceback" not in result.stderr
        assert result.stderr.splitlines()[-1].startswith(
            "lexcodecs migrate: error: argument --map-size")
    assert "--map-size" in assert_cli_error(
        run_cli(*MIGRATE, "--input", "-", "--map-size", "1MiB", cwd=tmp_path, stdin=""))


def test_lmdb_refusal_leaves_no_half_written_target(tmp_path: Path) -> None:
    """Issue 15 item 6: a refusal during the copy (a new key too long for LMDB, after some
    batches were written) removes the new environment and the state file; a rerun is
    refused the same way, again leaving nothing behind."""
    schema = "b:bytes"
    fdb = get_codec("fdb-tuple").bind(schema)
    path = tmp_path / "env"
    make_env(path, [(b"a%d" % i,) for i in range(50)] + [(b"\x7f" * 480,)], codec=fdb)
    before = read_env(path)
    for _ in range(2):
        with pytest.raises(MigrationError, match="LMDB holds keys"):
            migrate_lmdb(path, Transcoder("fdb-tuple", "sqlite4", schema), batch_size=10)
        assert read_env(path) == before
        assert leftovers(path) == []


def test_lmdb_new_environment_that_cannot_be_made_is_a_refusal(tmp_path: Path) -> None:
    """LMDB cannot map the new environment (a map larger than the address space): a
    MigrationError naming it, nothing left behind, and the same command with a sane map
    then migrates."""
    path = tmp_path / "env"
    expected = make_env(path, sample_values(50))
    with pytest.raises(MigrationError, match=r"^LMDB: cannot create .*env\.lexcodecs-new .*"
                                             r"the original is untouched$"):
        migrate_lmdb(path, fdb_to_skv(), map_size=2**62)
    assert leftovers(path) == []
    migrate_lmdb(path, fdb_to_skv())
    assert_lmdb_migrated(path, expected)


def test_lmdb_state_file_that_cannot_be_written_is_a_refusal(tmp_path: Path) -> None:
    """The state file cannot be written (its temporary name is taken by a directory, which
    no one, root included, can open for writing): a MigrationError naming it, the original
    untouched and nothing else left behind; once the way is clear the migration runs."""
    path = tmp_path / "env"
    expected = make_env(path, sample_values(50))
    before = read_env(path)
    blocker = tmp_path / "env.lexcodecs-state.tmp"
    blocker.mkdir()
    with pytest.raises(MigrationError, match=r"^cannot write the migration's state file "
                                             r".*env\.lexcodecs-state .*untouched$"):
        migrate_lmdb(path, fdb_to_skv())
    assert read_env(path) == before
    assert leftovers(path) == ["env.lexcodecs-state.tmp"]
    blocker.rmdir()
    migrate_lmdb(path, fdb_to_skv())
    assert_lmdb_migrated(path, expected)


@pytest.mark.parametrize("batch_size", [0, -1])
def test_non_positive_batch_size_refused(tmp_path: Path, batch_size: int) -> None:
    db = tmp_path / "kv.db"
    make_table(db, sample_values(10))
    objects = schema_objects(db)
    with pytest.raises((MigrationError, ValueError)):
        migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=batch_size)
    assert schema_objects(db) == objects
    path = tmp_path / "env"
    make_env(path, sample_values(10))
    with pytest.raises((MigrationError, ValueError)):
        migrate_lmdb(path, fdb_to_skv(), batch_size=batch_size)
    assert leftovers(path) == []


# -- the command line -------------------------------------------------------------------------


def run_cli(*args: str | os.PathLike[str], cwd: Path, stdin: str | None = None,
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lexcodecs", *map(str, args)], cwd=cwd,
                          input=stdin, capture_output=True, text=True)


MIGRATE = ("migrate", "--from", "fdb-tuple", "--to", "skv", "-s", SCHEMA_TEXT)


def assert_cli_error(result: subprocess.CompletedProcess[str], *,
                     lines: int | None = 1) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    err = result.stderr.splitlines()
    assert err, "nothing on stderr"
    assert err[0].startswith("lexcodecs: error:"), result.stderr
    if lines is not None:
        assert len(err) == lines, result.stderr
    return err[0]


def test_cli_hex_file_to_output(tmp_path: Path) -> None:
    values = sample_values(50)
    (tmp_path / "in.hex").write_text("".join(FDB.encode(v).hex() + "\n" for v in values)
                                     + "\n", encoding="utf-8")
    result = run_cli(*MIGRATE, "--input", "in.hex", "--output", "out.hex", "--json",
                     cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = (tmp_path / "out.hex").read_text(encoding="utf-8").split("\n")
    assert lines == [SKV.encode(v).hex() for v in values] + ["", ""]
    report = json.loads(result.stdout)
    assert report["keys"] == 50
    assert report["order_changes"] == inversions([SKV.encode(v) for v in values])
    assert report["source"] == "fdb-tuple"
    assert report["target"] == "skv"
    assert sorted(os.listdir(tmp_path)) == ["in.hex", "out.hex"]


def test_cli_hex_stdin_to_stdout(tmp_path: Path) -> None:
    values = natural_sorted(sample_values(20))
    result = run_cli(*MIGRATE, "--input", "-", "--no-progress", cwd=tmp_path,
                     stdin="".join(FDB.encode(v).hex() + "\n" for v in values))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [SKV.encode(v).hex() for v in values]
    assert "migrated 20 keys fdb-tuple -> skv" in result.stderr
    assert "agreed with the new one everywhere" in result.stderr


def test_cli_output_is_atomic(tmp_path: Path) -> None:
    """A bad line: the existing output stays as it was, and no temporary file is left."""
    good = FDB.encode(("a", 1)).hex()
    (tmp_path / "in.hex").write_text(f"{good}\n{good}\nnot hex\n", encoding="utf-8")
    (tmp_path / "out.hex").write_text("previous\n", encoding="utf-8")
    result = run_cli(*MIGRATE, "--input", "in.hex", "--output", "out.hex", cwd=tmp_path)
    line = assert_cli_error(result)
    assert "line 3" in line
    assert (tmp_path / "out.hex").read_text(encoding="utf-8") == "previous\n"
    assert sorted(os.listdir(tmp_path)) == ["in.hex", "out.hex"]
    result = run_cli(*MIGRATE, "--input", "in.hex", "--output", "new.hex", cwd=tmp_path)
    assert_cli_error(result)
    assert not (tmp_path / "new.hex").exists()


def test_cli_sqlite(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    expected = make_table(db, sample_values(500))
    before = table_rows(db)
    result = run_cli(*MIGRATE, "--sqlite", db, "--table", "kv", "--key-column", "k",
                     "--batch-size", "64", "--keep-old", "--json", "--no-progress",
                     cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["keys"] == 500
    assert report["resumed"] is False
    assert report["where"] == "sqlite table kv"
    assert result.stderr == ""
    assert_sqlite_migrated(db, expected)
    assert table_rows(db, "kv" + OLD_SUFFIX) == before


def test_cli_sqlite_summary_and_restart(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    expected = _interrupted_sqlite(db)
    result = run_cli(*MIGRATE, "--sqlite", db, "--table", "kv", "--key-column", "k",
                     "--to-option", "x=1", cwd=tmp_path)
    assert_cli_error(result)  # skv has no option x
    result = run_cli("migrate", "--from", "fdb-tuple", "--to", "orderly", "-s", SCHEMA_TEXT,
                     "--sqlite", db, "--table", "kv", "--key-column", "k", cwd=tmp_path)
    assert "other settings" in assert_cli_error(result)
    result = run_cli(*MIGRATE, "--sqlite", db, "--table", "kv", "--key-column", "k",
                     "--no-progress", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "migrated 1,000 keys fdb-tuple -> skv (sqlite table kv)" in result.stdout
    assert "resumed" in result.stdout
    assert_sqlite_migrated(db, expected)


def test_cli_lmdb(tmp_path: Path) -> None:
    path = tmp_path / "env"
    expected = make_env(path, sample_values(400))
    result = run_cli(*MIGRATE, "--lmdb", path, "--batch-size", "150", "--json",
                     "--no-progress", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["keys"] == 400
    assert_lmdb_migrated(path, expected)


@pytest.mark.parametrize("args", [
    pytest.param(("migrate", "--from", "fdb-tupl", "--to", "skv", "-s", "s:string",
                  "--input", "-"), id="unknown-source"),
    pytest.param(("migrate", "--from", "fdb-tuple", "--to", "nope", "-s", "s:string",
                  "--input", "-"), id="unknown-target"),
    pytest.param(("migrate", "--from", "lexkey", "--to", "skv", "-s", "a:string, b:string",
                  "--input", "-"), id="not-decodable"),
    pytest.param((*MIGRATE, "--sqlite", "kv.db", "--key-column", "k"), id="missing-table"),
    pytest.param((*MIGRATE, "--sqlite", "kv.db", "--table", "kv"), id="missing-key-column"),
    pytest.param((*MIGRATE, "--sqlite", "nowhere.db", "--table", "kv", "--key-column", "k"),
                 id="no-database"),
    pytest.param((*MIGRATE, "--sqlite", "kv.db", "--table", "nope", "--key-column", "k"),
                 id="no-table"),
    pytest.param((*MIGRATE, "--sqlite", "kv.db", "--table", "kv", "--key-column", "i"),
                 id="key-not-primary"),
    pytest.param((*MIGRATE, "--lmdb", "nowhere"), id="no-lmdb"),
    pytest.param((*MIGRATE,), id="no-source"),
    pytest.param((*MIGRATE, "--input", "in.hex", "--lmdb", "env"), id="two-sources"),
    pytest.param((*MIGRATE, "--input", "missing.hex"), id="missing-input"),
    pytest.param((*MIGRATE, "--from-option", "bogus=1", "--input", "-"), id="bad-option"),
    pytest.param((*MIGRATE, "--sqlite", "notadb.db", "--table", "kv", "--key-column", "k"),
                 id="not-a-database"),
    pytest.param((*MIGRATE, "--lmdb", "emptydir"), id="not-an-lmdb-environment"),
])
def test_cli_bad_input(tmp_path: Path, args: tuple[str, ...]) -> None:
    make_table(tmp_path / "kv.db", sample_values(20))
    make_env(tmp_path / "env", sample_values(5))
    (tmp_path / "in.hex").write_text("", encoding="utf-8")
    (tmp_path / "notadb.db").write_text("this is not an SQLite database\n" * 100,
                                        encoding="utf-8")
    (tmp_path / "emptydir").mkdir()
    objects = schema_objects(tmp_path / "kv.db")
    result = run_cli(*args, cwd=tmp_path, stdin="")
    assert_cli_error(result)
    assert result.stdout == ""
    assert schema_objects(tmp_path / "kv.db") == objects  # nothing was started
    assert leftovers(tmp_path / "env") == []


def test_cli_bad_schema_text(tmp_path: Path) -> None:
    result = run_cli("migrate", "--from", "fdb-tuple", "--to", "skv", "-s", "s:strin g",
                     "--input", "-", cwd=tmp_path, stdin="")
    first = assert_cli_error(result, lines=None)  # a SchemaError adds the text and a caret
    assert "unknown field type 'strin'" in first


@pytest.mark.parametrize(("args", "named"), [
    (("migrate", "--to", "skv", "-s", "s:string", "--input", "-"), "--from"),
    ((*MIGRATE, "--sqlite", "kv.db", "--table", "kv", "--key-column", "k", "--batch-size", "0"),
     "--batch-size"),
    ((*MIGRATE, "--lmdb", "env", "--batch-size", "-5"), "--batch-size"),
    ((*MIGRATE, "--lmdb", "env", "--batch-size", "many"), "--batch-size"),
])
def test_cli_usage_errors(tmp_path: Path, args: tuple[str, ...], named: str) -> None:
    """Flag errors are argparse's: the usage line, then the error naming the flag; status 2,
    and nothing started."""
    make_table(tmp_path / "kv.db", sample_values(20))
    make_env(tmp_path / "env", sample_values(5))
    objects = schema_objects(tmp_path / "kv.db")
    result = run_cli(*args, cwd=tmp_path, stdin="")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("usage: lexcodecs migrate")
    last = result.stderr.splitlines()[-1]
    assert last.startswith("lexcodecs migrate: error:")
    assert named in last
    assert schema_objects(tmp_path / "kv.db") == objects
    assert leftovers(tmp_path / "env") == []


def test_sqlite_resumes_a_run_recorded_before_a_codec_gained_an_option(tmp_path: Path) -> None:
    # a run recorded by an older lexcodecs has no max_depth in fdb-tuple's config: rebuilt,
    # that is the same codec, so the rerun resumes instead of refusing "other settings"
    db = tmp_path / "kv.db"
    expected = _interrupted_sqlite(db)
    with closing(sqlite3.connect(db)) as conn:
        (text,) = conn.execute(f"SELECT settings FROM {STATE_TABLE} "
                               "WHERE source_table = 'kv'").fetchone()
        settings = json.loads(text)
        assert settings["source"].pop("max_depth") == 64
        conn.execute(f"UPDATE {STATE_TABLE} SET settings = ? WHERE source_table = 'kv'",
                     (json.dumps(settings, sort_keys=True),))
        conn.commit()
    report = migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=100)
    assert report.resumed is True
    assert_sqlite_migrated(db, expected)


def test_sqlite_refuses_a_run_recorded_with_another_option_value(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    _interrupted_sqlite(db)
    with pytest.raises(MigrationError, match="other settings"):
        migrate_sqlite(db, "kv", "k",
                       Transcoder(get_codec("fdb-tuple", max_depth=5), "skv", SCHEMA_TEXT),
                       batch_size=100)


def test_same_settings_rebuilds_the_codecs() -> None:
    now = {"source": {"name": "fdb-tuple", "max_u64_form": "python", "max_depth": 64},
           "target": {"name": "skv"}, "schema": "a:int64"}
    older = {**now, "source": {"name": "fdb-tuple", "max_u64_form": "python"}}
    assert same_settings(older, now)
    assert not same_settings({**now, "schema": "a:int32"}, now)
    assert not same_settings({**now, "target": {"name": "sqlite4"}}, now)
    assert not same_settings({**now, "source": {"name": "fdb-tuple", "bogus": 1}}, now)
    assert not same_settings({"schema": "a:int64"}, now)


# -- issue 17: where the time went, and refusals through the copy's SQL function -------------

def _assert_phase_times(report: MigrationReport) -> None:
    """The phases took time, add up with the rest to the run's seconds, and have rates as
    issue 32 defines them (whatever the machine's speed: a phase under MIN_TIMED_S has none;
    tests/test_migrate_report.py checks the arithmetic with a clock of its own)."""
    assert report.copy_s > 0
    assert report.verify_s > 0
    assert report.swap_s > 0
    assert report.copy_s + report.verify_s + report.swap_s <= report.seconds
    d = report.to_dict()
    assert d["copy_s"] + d["verify_s"] + d["swap_s"] + d["other_s"] == pytest.approx(
        d["seconds"])
    rates = d["keys_per_s"]
    for name in ("copy", "verify", "swap"):
        assert d[f"{name}_s"] == getattr(report, f"{name}_s")
        if d[f"{name}_s"] < MIN_TIMED_S:
            assert name not in rates
        else:
            assert rates[name] == pytest.approx(report.keys / d[f"{name}_s"], rel=1e-3)
    line = report.summary().splitlines()[1]
    assert line.startswith("time: copy ")
    assert " + verify " in line
    assert " + swap " in line
    assert line.endswith(f" = {report.seconds:.2f} s")
    again = MigrationReport(**d)  # a saved report loads back, the rates derived again
    assert again.to_dict() == d


def test_sqlite_report_says_where_the_time_went(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    make_table(db, sample_values(300))
    report = migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=100)
    assert report.keys == 300
    _assert_phase_times(report)


def test_lmdb_report_says_where_the_time_went(tmp_path: Path) -> None:
    path = tmp_path / "env"
    make_env(path, sample_values(300))
    report = migrate_lmdb(path, fdb_to_skv(), batch_size=100)
    assert report.keys == 300
    _assert_phase_times(report)


def test_a_resumed_run_reports_its_own_copy(tmp_path: Path) -> None:
    """The counts of a killed run carry over to the run that resumes it; its times do not
    (issue 32: they are the resuming run's own), and the keys the killed run copied are
    said (``copied_earlier``)."""
    db = tmp_path / "kv.db"
    make_table(db, sample_values(400))
    with pytest.raises(Stop):
        migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=100, progress=stop_after(200))
    with closing(sqlite3.connect(db)) as conn:
        saved = json.loads(conn.execute(f"SELECT report FROM {STATE_TABLE}").fetchone()[0])
    assert saved["keys"] == 200
    assert saved["verify_s"] == 0
    report = migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=100)
    assert report.resumed
    assert report.keys == 400
    assert report.copied_earlier == 200
    assert report.copy_s + report.verify_s + report.swap_s <= report.seconds


def test_sqlite_refusal_mid_copy_is_the_typed_error(tmp_path: Path) -> None:
    """A key refused in the copy reaches the caller as the MigrationError it is, with the
    key, not as SQLite's "user-defined function raised exception"."""
    db = tmp_path / "kv.db"
    _table_with_bad_key(db)
    with pytest.raises(MigrationError) as info:
        migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=50)
    assert type(info.value) is MigrationError
    message = str(info.value)
    assert message.startswith(f"key {BAD_KEY.hex(' ')} of 'kv': ")
    assert "user-defined function" not in message
    assert info.value.__cause__ is None
    assert info.value.__suppress_context__
    # the function is not left registered
    with closing(sqlite3.connect(db)) as conn, pytest.raises(sqlite3.OperationalError,
                                                             match="no such function"):
        conn.execute("SELECT lexcodecs_new_key(x'00')")


class _InterruptedDecoder:
    """A bound codec whose decode raises KeyboardInterrupt at its *at*-th call."""

    def __init__(self, bound: Any, at: int) -> None:
        self.bound, self.at, self.calls = bound, at, 0

    def decode(self, key: bytes) -> tuple[Any, ...]:
        self.calls += 1
        if self.calls == self.at:
            raise KeyboardInterrupt
        return self.bound.decode(key)  # type: ignore[no-any-return]


def test_ctrl_c_mid_copy_is_a_keyboard_interrupt(tmp_path: Path) -> None:
    """A Ctrl-C in the middle of a batch reaches the caller as KeyboardInterrupt (the CLI
    then says the same command resumes, exit 130), and the batch is not committed."""
    db = tmp_path / "kv.db"
    _table_with_bad_key(db)
    t = fdb_to_skv()
    t._source = _InterruptedDecoder(t._source, 70)  # in the second batch
    with pytest.raises(KeyboardInterrupt):
        migrate_sqlite(db, "kv", "k", t, batch_size=50)
    with closing(sqlite3.connect(db)) as conn:
        copied = conn.execute("SELECT count(*) FROM kv__lexcodecs_new").fetchone()[0]
    assert copied == 50  # the first batch, committed; the interrupted one rolled back


def test_lmdb_refusal_mid_copy_is_the_typed_error(tmp_path: Path) -> None:
    path = tmp_path / "env"
    make_env(path, [(f"{c}", n) for c in "abcdefgh" for n in range(20)],
             extra=[(BAD_KEY, b"bad")])
    with pytest.raises(MigrationError) as info:
        migrate_lmdb(path, fdb_to_skv(), batch_size=50)
    assert type(info.value) is MigrationError
    assert str(info.value).startswith(f"key {BAD_KEY.hex(' ')}: ")
    assert not (tmp_path / "env.lexcodecs-new").exists()


# -- the value check, once per key (the copy's first batch, then the verification) ------------


LATE_NEGATIVE_ZERO = [(float(-i),) for i in range(200, 0, -1)] + [(-0.0,), (1.0,), (2.5,)]


def test_sqlite_value_the_target_cannot_hold_after_the_first_batch_is_refused(
        tmp_path: Path) -> None:
    """sqlite4 writes -0.0 as 0.0; with -0.0 in the fifth batch the copy does not check it,
    and the verification refuses it before the swap, naming the key."""
    fdb = get_codec("fdb-tuple").bind("x:float64")
    db = tmp_path / "kv.db"
    make_table(db, LATE_NEGATIVE_ZERO, codec=fdb)
    before = table_rows(db)
    with pytest.raises(MigrationError, match="cannot hold") as info:
        migrate_sqlite(db, "kv", "k", Transcoder("fdb-tuple", "sqlite4", "x:float64"),
                       batch_size=50)
    assert fdb.encode((-0.0,)).hex(" ") in str(info.value)
    assert table_rows(db) == before


def test_lmdb_value_the_target_cannot_hold_after_the_first_batch_is_refused(
        tmp_path: Path) -> None:
    fdb = get_codec("fdb-tuple").bind("x:float64")
    path = tmp_path / "env"
    make_env(path, LATE_NEGATIVE_ZERO, codec=fdb)
    before = read_env(path)
    with pytest.raises(MigrationError, match="cannot hold"):
        migrate_lmdb(path, Transcoder("fdb-tuple", "sqlite4", "x:float64"), batch_size=50)
    assert read_env(path) == before
    assert not (tmp_path / "env.lexcodecs-new").exists()


_VALUE = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(-2, 2),
                   st.sampled_from([0.0, -0.0, math.nan, 1.0, 1]), st.text(max_size=2),
                   st.binary(max_size=2))
_ROWS = st.lists(st.tuples(_VALUE, _VALUE), max_size=6)


def _require_the_kernel() -> None:
    """The tests that hold the compiled kernel to the reference need it built."""
    if _impl.compiled_module("lexcodecs.migrate._compiled") is None:
        if os.environ.get(_impl.ENV_REQUIRE):
            pytest.fail("lexcodecs.migrate._compiled is not built")
        pytest.skip("lexcodecs.migrate._compiled is not built: nothing to compare")


@given(_ROWS, _ROWS)
def test_same_values_decides_only_identical_values(a: list[tuple[Any, ...]],
                                                   b: list[tuple[Any, ...]]) -> None:
    """The comparison of decoded batches (reference and compiled) is sound: when it says "the
    same", every pair of tuples is identical (same types, floats by their bits); it may leave
    a batch undecided, never wrongly decide one. And it decides the usual case: equal plain
    values."""
    _require_the_kernel()
    plain = [tuple(v for v in row if type(v) in (str, bytes, int, type(None))) for row in a]
    for implementation in _impl.IMPLEMENTATIONS:
        with _impl.use(implementation):
            if kernel.same_values(a, b):
                assert len(a) == len(b)
                assert all(map(identical, a, b))
            assert kernel.same_values(plain, [tuple(row) for row in plain])


_PLAINISH = st.one_of(st.none(), st.integers(-3, 3), st.text("ab", max_size=2),
                      st.binary(max_size=2), st.sampled_from([True, 1.0, 0.5]))


@given(st.lists(st.lists(_PLAINISH, min_size=0, max_size=3).map(tuple), max_size=8),
       st.booleans())
def test_plain_rising_decides_only_rising_plain_batches(batch: list[tuple[Any, ...]],
                                                        sort: bool) -> None:
    """The order check of a decoded batch (reference and compiled) is sound: when it says
    "rising", every value is an exact str, bytes, int or None and each tuple is <= the next by
    the natural-order model; and it decides the usual case, a sorted batch of one plain type
    per field."""
    _require_the_kernel()
    if sort:
        batch = sorted(batch, key=lambda row: tuple((type(v).__name__, v) for v in row))
    schema_free = [tuple(natural_key_of(v) for v in row) for row in batch]
    plain = sorted({(v, str(v)) for row in batch for v in row if type(v) is int})
    for implementation in _impl.IMPLEMENTATIONS:
        with _impl.use(implementation):
            if kernel.plain_rising(batch):
                assert all(type(v) in (str, bytes, int, type(None))
                           for row in batch for v in row)
                assert all(a <= b for a, b in itertools.pairwise(schema_free))
            assert kernel.plain_rising(plain)
            assert kernel.plain_rising([(1, "b"), (1, "b"), (2, "a")])
            assert not kernel.plain_rising([(2, "a"), (1, "b")])
            assert not kernel.plain_rising([(1, None), (1, "a")])  # the model decides
            assert not kernel.plain_rising([(1, 1.5), (2, 0.5)])  # floats: the model decides


def natural_key_of(v: Any) -> tuple[int, Any]:
    """A natural-order model of one plain value, without any codec: None first, then by
    type (the batches above hold one type per field where they rise), then the value."""
    return (0, 0) if v is None else (1 + [int, str, bytes, bool, float].index(type(v)), v)


def test_a_migration_pauses_the_collector_and_restores_it(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """The cyclic collector is paused while a store migration runs (its per-key work makes
    no cycles) and as it was after: enabled again, or still disabled."""
    import gc
    seen: list[bool] = []
    real = lmdb_store._lmdb_put_batch

    def put(*args: Any) -> None:
        seen.append(gc.isenabled())
        real(*args)

    monkeypatch.setattr(lmdb_store, "_lmdb_put_batch", put)
    for enabled in (True, False):
        path = tmp_path / f"env{enabled}"
        make_env(path, [("a", i) for i in range(100)])
        (gc.enable if enabled else gc.disable)()
        try:
            migrate_lmdb(path, fdb_to_skv(), batch_size=30)
            assert gc.isenabled() is enabled
        finally:
            gc.enable()
    assert seen == [False] * 8


def _refuse(key: Any, exc: LexCodecError | None) -> MigrationError:
    return MigrationError(f"key {key!r}: {exc}")


_KEYS = st.lists(st.one_of(
    st.tuples(st.text(max_size=3), st.integers(-2**63, 2**63 - 1),
              st.one_of(st.floats(allow_nan=False), st.just(-0.0))).map(
        get_codec("fdb-tuple").bind("tenant:string, n:int64, x:float64").encode),
    st.binary(max_size=6), st.integers(0, 3)), max_size=8)


@given(_KEYS, st.booleans())
def test_new_key_is_the_transcoder_on_both_implementations(keys: list[Any],
                                                           check: bool) -> None:
    """NewKey gives what Transcoder gives, key by key -- the new key, or a refusal carrying
    the transcoder's own error -- with the same order watch, compiled or not; sqlite4 cannot
    hold -0.0, so the check refuses it."""
    _require_the_kernel()
    t = Transcoder("fdb-tuple", "sqlite4", "tenant:string, n:int64, x:float64")
    outcomes = []
    for implementation in _impl.IMPLEMENTATIONS:
        with _impl.use(implementation):
            report = MigrationReport("", "", "", "")
            watch = _OrderWatch(report)
            new_key = kernel.new_key(t, _refuse, watch, check=check)
            got: list[Any] = []
            for key in keys:
                try:
                    got.append(new_key(key))
                except MigrationError as exc:
                    got.append(str(exc))
                    kept, new_key.error = new_key.error, None
                    got.append(kept is exc)  # kept to raise as itself
                else:
                    got.append(new_key.last_key == key)
            outcomes.append((got, report.order_changes, report.examples, watch.last))
    assert outcomes[0] == outcomes[1]
    expected: list[Any] = []
    for key in keys:
        if type(key) is not bytes:
            expected.append(str(_refuse(key, None)))
        else:
            try:
                expected.append(t.transcode(key) if check
                                else t._target.encode(t.values(key)))
            except LexCodecError as exc:
                expected.append(str(_refuse(key, exc)))
        expected.append(True)
    assert outcomes[0][0] == expected
