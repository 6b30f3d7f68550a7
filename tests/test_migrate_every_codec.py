"""Every built-in codec migrates to and from every store: fdb-tuple keys into the codec's
and back again, in an SQLite table, an LMDB environment and a RocksDB database (each a real
store), with the values beside the keys carried over and the keys coming back byte for
byte. The migration machinery itself (resume, verify, crash safety, reports) is tested in
``test_migrate*.py``; this file proves no codec is left out of it."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from lexcodecs import get_codec
from lexcodecs.migrate import Transcoder, migrate_lmdb, migrate_rocksdb, migrate_sqlite
from lexcodecs.registry import BUILTIN_CODECS

#: a string and an integer of each codec's own kind (the JS formats' int is a number)
ROWS = [(f"user{i % 7}", i * 1000 - 7000) for i in range(40)]


def _schema(name: str) -> str:
    types = get_codec(name).capabilities.field_types
    return "s:string, n:" + next(t for t in ("int64", "int", "int32") if t in types)


def _keys(name: str) -> list[bytes]:
    return [get_codec("fdb-tuple").encode(row, _schema(name)) for row in ROWS]


def _sqlite(path: Path, keys: list[bytes]) -> Any:
    db = path / "kv.db"
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("CREATE TABLE kv (k BLOB PRIMARY KEY, v INTEGER) WITHOUT ROWID")
        conn.executemany("INSERT INTO kv VALUES (?, ?)", [(k, i) for i, k in enumerate(keys)])

    def run(t: Transcoder) -> None:
        migrate_sqlite(db, "kv", "k", t)

    def read() -> dict[bytes, int]:
        with closing(sqlite3.connect(db)) as conn:
            return dict(conn.execute("SELECT k, v FROM kv"))
    return run, read


def _lmdb(path: Path, keys: list[bytes]) -> Any:
    lmdb = pytest.importorskip("lmdb")
    where = path / "env"
    with lmdb.open(str(where), map_size=2**24) as env, env.begin(write=True) as txn:
        for i, k in enumerate(keys):
            txn.put(k, str(i).encode())

    def run(t: Transcoder) -> None:
        migrate_lmdb(where, t)

    def read() -> dict[bytes, int]:
        with lmdb.open(str(where), readonly=True) as env, env.begin() as txn:
            return {bytes(k): int(v) for k, v in txn.cursor()}
    return run, read


def _rocksdb(path: Path, keys: list[bytes]) -> Any:
    rocksdict = pytest.importorskip("rocksdict")
    where = path / "db"
    db = rocksdict.Rdict(str(where), rocksdict.Options(raw_mode=True))  # a store's own bytes
    for i, k in enumerate(keys):
        db[k] = str(i).encode()
    db.close()

    def run(t: Transcoder) -> None:
        migrate_rocksdb(where, t)

    def read() -> dict[bytes, int]:
        db = rocksdict.Rdict(str(where), rocksdict.Options(raw_mode=True))
        try:
            return {bytes(k): int(v) for k, v in db.items()}
        finally:
            db.close()
    return run, read


@pytest.mark.parametrize("store", [_sqlite, _lmdb, _rocksdb], ids=["sqlite", "lmdb", "rocksdb"])
@pytest.mark.parametrize("name", sorted(BUILTIN_CODECS))
def test_a_store_migrates_to_the_codec_and_back(tmp_path: Path, name: str, store: Any) -> None:
    keys = _keys(name)
    run, read = store(tmp_path, keys)
    schema = _schema(name)
    run(Transcoder("fdb-tuple", name, schema))
    codec = get_codec(name).bind(schema)
    assert read() == {codec.encode(row): i for i, row in enumerate(ROWS)}
    run(Transcoder(name, "fdb-tuple", schema))
    assert read() == {k: i for i, k in enumerate(keys)}
