"""Sorted stores for tests: keys in, range scans in key order out (the store's own order).

One place for every test that puts a codec's keys in a real store: an SQLite table with a
BLOB primary key (``WITHOUT ROWID``: a B-tree ordered by ``memcmp`` and then length, as a
sorted key-value store orders keys) and an LMDB environment. Rows are numbered by their
position in the list of keys given, so a scan answers with positions.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from lexcodecs import EncodeError, FloatPolicy, KeySchema
from lexcodecs.codec import Codec
from lexcodecs.testing import natural_key

__all__ = ["STORES", "Scan", "assert_natural_order", "encode_batch", "lmdb_store", "near",
           "sqlite_store"]


def encode_batch(codec: Codec, batch: Sequence[Sequence[Any]], schema: KeySchema | str,
                 *, allow_empty: bool = True) -> tuple[list[tuple[Any, ...]], list[bytes]]:
    """The values of *batch* that encode (deduplicated by key), and their keys; a value the
    codec refuses (a neighbour out of its field's range) is not a key and is left out."""
    inserted: list[tuple[Any, ...]] = []
    encoded: list[bytes] = []
    seen: set[bytes] = set()
    for values in batch:
        try:
            key = codec.encode(tuple(values), schema)
        except EncodeError:
            continue
        if key not in seen and (key or allow_empty):
            seen.add(key)
            inserted.append(tuple(values))
            encoded.append(key)
    return inserted, encoded


Scan = Callable[[bytes, bytes | None], list[int]]


@contextmanager
def sqlite_store(keys_: Sequence[bytes], _: Path | None = None) -> Iterator[Scan]:
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.execute("CREATE TABLE kv (k BLOB PRIMARY KEY, v INTEGER) WITHOUT ROWID")
        conn.executemany("INSERT INTO kv (k, v) VALUES (?, ?)",
                         [(k, i) for i, k in enumerate(keys_)])

        def scan(start: bytes, stop: bytes | None) -> list[int]:
            if stop is None:
                rows = conn.execute("SELECT v FROM kv WHERE k >= ? ORDER BY k", (start,))
            else:
                rows = conn.execute("SELECT v FROM kv WHERE k >= ? AND k < ? ORDER BY k",
                                    (start, stop))
            return [v for (v,) in rows]

        yield scan


@contextmanager
def lmdb_store(keys_: Sequence[bytes], tmp: Path) -> Iterator[Scan]:
    lmdb = pytest.importorskip("lmdb")
    env = lmdb.open(str(tmp / "env"), map_size=1 << 24, subdir=True)
    try:
        with env.begin(write=True) as txn:
            for i, k in enumerate(keys_):
                if k:  # LMDB refuses an empty key
                    txn.put(k, i.to_bytes(4, "big"))

        def scan(start: bytes, stop: bytes | None) -> list[int]:
            out = []
            with env.begin() as txn:
                cursor = txn.cursor()
                if not cursor.set_range(start):
                    return out
                for k, v in cursor:
                    if stop is not None and k >= stop:
                        break
                    out.append(int.from_bytes(v, "big"))
            return out

        yield scan
    finally:
        env.close()


STORES = {"sqlite": sqlite_store, "lmdb": lmdb_store}


def assert_natural_order(rows: Sequence[int], inserted: Sequence[tuple[Any, ...]],
                         schema: KeySchema, policy: FloatPolicy) -> None:
    got = [natural_key(inserted[i], schema, policy) for i in rows]
    for i, (a, b) in enumerate(pairwise(got)):
        assert a < b, (f"store order is not the natural order at row {i}: "
                       f"{inserted[rows[i]]!r} then {inserted[rows[i + 1]]!r}")


def near(value: Any) -> list[Any]:
    """Values right next to *value* in its own order (a sloppy range takes these in)."""
    if type(value) is str:
        return [value + "\x01", value + "\U0010ffff", value[:-1]]
    if type(value) is bytes:
        return [value + b"\x00", value + b"\xff", value[:-1]]
    if type(value) is int:
        return [value - 1, value + 1]
    return []
