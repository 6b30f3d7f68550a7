"""Sorting keys in a real store, and counting the pairs a store's order gets wrong.

Theory of operation: the keys go into a real sorted store and come back through the store's
own ordered scan -- an SQLite ``WITHOUT ROWID`` table with a BLOB primary key (the default),
an LMDB database (dupsort, so equal keys are all kept), a RocksDB database (each distinct key
once, holding the indexes of the keys equal to it) or a Python sort (``memory``). Each
orderer returns the indexes of the keys in the store's order; equal keys keep their input
order. :func:`inversions` counts the pairs in the wrong order exactly, by merge sort.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Callable, Sequence
from typing import Final

from ..errors import LexCodecError
from .defaults import STORES

__all__ = ["KEY_LENGTHS", "ORDERERS", "STORES", "inversions", "order_lmdb", "order_memory",
           "order_rocksdb", "order_sqlite"]


def order_sqlite(keys: Sequence[bytes]) -> list[int]:
    db = sqlite3.connect(":memory:")
    try:
        db.execute("CREATE TABLE k (key BLOB NOT NULL, idx INTEGER NOT NULL, "
                   "PRIMARY KEY (key, idx)) WITHOUT ROWID")
        db.executemany("INSERT INTO k VALUES (?, ?)", ((k, i) for i, k in enumerate(keys)))
        return [i for (i,) in db.execute("SELECT idx FROM k ORDER BY key, idx")]
    finally:
        db.close()


def order_lmdb(keys: Sequence[bytes]) -> list[int]:
    try:
        import lmdb
    except ImportError:
        raise LexCodecError("the lmdb store needs the lmdb package: "
                            "pip install 'lexcodecs[lmdb]'") from None
    with tempfile.TemporaryDirectory(prefix="lexcodecs-compare-") as path:
        size = 1 << 20
        size = max(size, 8 * sum(len(k) + 64 for k in keys))
        env = lmdb.open(path, map_size=size, max_dbs=1)
        try:
            db = env.open_db(b"keys", dupsort=True)
            with env.begin(write=True, db=db) as txn:
                for i, k in enumerate(keys):
                    if not k or len(k) > env.max_key_size():
                        raise LexCodecError(f"LMDB holds keys of 1..{env.max_key_size()} "
                                            f"bytes; this codec wrote one of {len(k)}")
                    txn.put(k, i.to_bytes(8, "big"), dupdata=True)
            with env.begin(db=db) as txn:
                return [int.from_bytes(v, "big") for _, v in txn.cursor()]
        finally:
            env.close()


def order_rocksdb(keys: Sequence[bytes]) -> list[int]:
    try:
        import rocksdict
    except ImportError:
        raise LexCodecError("the rocksdb store needs the rocksdict package: "
                            "pip install 'lexcodecs[rocksdb]'") from None
    # RocksDB keeps one entry per key: equal keys share one, which lists their indexes (in
    # input order, so equal keys keep it, as in the other stores)
    groups: dict[bytes, list[int]] = {}
    for i, k in enumerate(keys):
        groups.setdefault(k, []).append(i)
    with tempfile.TemporaryDirectory(prefix="lexcodecs-compare-") as path:
        db = rocksdict.Rdict(path, rocksdict.Options(raw_mode=True))
        try:
            batch = rocksdict.WriteBatch(raw_mode=True)
            for k, indexes in groups.items():
                batch.put(k, b"".join(i.to_bytes(8, "big") for i in indexes))
            db.write(batch)
            db.flush()  # the order read back is that of RocksDB's sorted files
            return [int.from_bytes(v[j:j + 8], "big") for _, v in db.items()
                    for j in range(0, len(v), 8)]
        finally:
            db.close()


def order_memory(keys: Sequence[bytes]) -> list[int]:
    return sorted(range(len(keys)), key=keys.__getitem__)


#: the key lengths a store holds (LMDB: 1..511 bytes with its default build)
KEY_LENGTHS: Final[dict[str, tuple[int, int | None]]] = {"lmdb": (1, 511)}

ORDERERS: Final[dict[str, Callable[[Sequence[bytes]], list[int]]]] = {
    "sqlite": order_sqlite, "lmdb": order_lmdb, "rocksdb": order_rocksdb,
    "memory": order_memory,
}


def inversions(ranks: list[int]) -> int:
    """Pairs i < j with ranks[i] > ranks[j] (ties are not inversions), by merge sort."""
    def sort(seq: list[int]) -> tuple[list[int], int]:
        if len(seq) <= 1:
            return seq, 0
        mid = len(seq) // 2
        left, a = sort(seq[:mid])
        right, b = sort(seq[mid:])
        merged, count, i, j = [], a + b, 0, 0
        while i < len(left) and j < len(right):
            if right[j] < left[i]:
                merged.append(right[j])
                count += len(left) - i
                j += 1
            else:
                merged.append(left[i])
                i += 1
        merged += left[i:]
        merged += right[j:]
        return merged, count
    return sort(ranks)[1]
