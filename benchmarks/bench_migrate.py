"""Migration throughput, phase times and memory, against each store's own copy speed.

Issue 17: migrate the keys of an SQLite table (``k BLOB PRIMARY KEY, v BLOB``, WITHOUT ROWID),
an LMDB environment and a RocksDB database -- fdb-tuple keys of ``tenant:string, ts:int64,
id:bytes`` (38 bytes) with 50-byte values -- to skv keys, with the library calls the CLI makes
(``migrate_sqlite``, ``migrate_lmdb``, ``migrate_rocksdb``: copy, verify, swap). In the same
run, on the same data, the store's own copy without transcoding (the ceilings):

* SQLite: ``INSERT INTO t2 SELECT * FROM kv`` in one transaction, and a cursor feeding
  ``executemany`` in one transaction;
* LMDB: a cursor feeding ``putmulti`` in one write transaction;
* RocksDB: its ordered iterator feeding a ``WriteBatch`` of the migration's batch size, one
  synced write per batch, as the migration writes.

The migration's keys per second are given as a ratio to each ceiling (the fastest of the
repeats of each). Each store and size runs in a fresh process (the stores are made by
another), whose peak resident memory (``ru_maxrss``) is read before and after its first
migration (the ceilings run after it), so the difference is what the migration itself held:
it must not grow with the number of keys. LMDB's figure includes the pages of the
memory-mapped environments it read, which the operating system can drop at will.

    python3 benchmarks/bench_migrate.py [--sizes 200000,1000000] [--stores sqlite,lmdb,rocksdb]
                                        [--repeat N] [--batch-size N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lexcodecs import get_codec  # noqa: E402
from lexcodecs._console import show, table  # noqa: E402
from lexcodecs.migrate import (  # noqa: E402
    BATCH_SIZE,
    MigrationReport,
    Transcoder,
    migrate_lmdb,
    migrate_rocksdb,
    migrate_sqlite,
)

SCHEMA = "tenant:string, ts:int64, id:bytes"


def rows(n: int) -> Iterator[tuple[bytes, bytes]]:
    fdb = get_codec("fdb-tuple").bind(SCHEMA)
    for i in range(n):
        key = fdb.encode((f"tenant-{i % 100:02d}", 1_700_000_000_000 + 7 * i,
                          i.to_bytes(8, "big") * 2 + b"id"))
        yield key, (b"v%08d" % i) * 5


def rss_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def timed(run: Callable[[], Any]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


# -- each store: make it, migrate it, copy it as the store itself would ------------------------


def sqlite_make(path: str, n: int) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE kv (k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID")
        db.executemany("INSERT INTO kv VALUES (?, ?)", rows(n))
    db.close()


def sqlite_migrate(path: str, t: Transcoder, batch: int) -> MigrationReport:
    return migrate_sqlite(path, "kv", "k", t, batch_size=batch)


def sqlite_ceilings(path: str, batch: int) -> dict[str, float]:
    db = sqlite3.connect(path, isolation_level=None)
    out = {}
    for name, fill in [
        ("INSERT…SELECT", lambda: db.execute("INSERT INTO t2 SELECT * FROM kv")),
        ("executemany", lambda: db.executemany("INSERT INTO t2 VALUES (?, ?)",
                                               db.cursor().execute("SELECT k, v FROM kv"))),
    ]:
        db.execute("CREATE TABLE t2 (k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID")

        def copy(fill: Callable[[], Any] = fill) -> None:
            db.execute("BEGIN")
            fill()
            db.execute("COMMIT")

        out[name] = timed(copy)
        db.execute("DROP TABLE t2")
    db.close()
    return out


def lmdb_make(path: str, n: int) -> None:
    import lmdb
    env = lmdb.open(path, map_size=1 << 33)
    with env.begin(write=True) as txn:
        txn.cursor().putmulti(rows(n))
    env.close()


def lmdb_migrate(path: str, t: Transcoder, batch: int) -> MigrationReport:
    return migrate_lmdb(path, t, batch_size=batch)


def lmdb_ceilings(path: str, batch: int) -> dict[str, float]:
    import lmdb
    src = lmdb.open(path, readonly=True, lock=False)
    dst = lmdb.open(path + ".copy", map_size=1 << 33)

    def copy() -> None:
        with src.begin() as old, dst.begin(write=True) as new:
            new.cursor().putmulti(old.cursor().iternext())

    seconds = timed(copy)
    src.close()
    dst.close()
    shutil.rmtree(path + ".copy")
    return {"putmulti": seconds}


def rocksdb_make(path: str, n: int) -> None:
    import rocksdict
    db = rocksdict.Rdict(path, rocksdict.Options(raw_mode=True))
    batch = rocksdict.WriteBatch(raw_mode=True)
    for key, value in rows(n):
        batch.put(key, value)
        if len(batch) >= 100_000:
            db.write(batch)
            batch = rocksdict.WriteBatch(raw_mode=True)
    db.write(batch)
    db.close()


def rocksdb_migrate(path: str, t: Transcoder, batch: int) -> MigrationReport:
    return migrate_rocksdb(path, t, batch_size=batch)


def rocksdb_ceilings(path: str, batch: int) -> dict[str, float]:
    import rocksdict
    source = rocksdict.Rdict(path, rocksdict.Options(raw_mode=True),
                             access_type=rocksdict.AccessType.read_only(False))
    target = rocksdict.Rdict(path + ".copy", rocksdict.Options(raw_mode=True))
    sync = rocksdict.WriteOptions()
    sync.sync = True

    def copy() -> None:
        writes = rocksdict.WriteBatch(raw_mode=True)
        for key, value in source.items():
            writes.put(key, value)
            if len(writes) == batch:
                target.write(writes, sync)
                writes = rocksdict.WriteBatch(raw_mode=True)
        target.write(writes, sync)

    seconds = timed(copy)
    target.close()
    source.close()
    shutil.rmtree(path + ".copy")
    return {"iterate+WriteBatch": seconds}


STORES: dict[str, tuple[Callable[..., None], Callable[..., MigrationReport],
                        Callable[..., dict[str, float]]]] = {
    "sqlite": (sqlite_make, sqlite_migrate, sqlite_ceilings),
    "lmdb": (lmdb_make, lmdb_migrate, lmdb_ceilings),
    "rocksdb": (rocksdb_make, rocksdb_migrate, rocksdb_ceilings),
}


def child(store: str, tmp: str, n: int, batch: int, repeat: int) -> dict[str, Any]:
    """One store and size, in this (fresh) process: the best migration and best ceilings.
    Each store is made by another process, so that this one's peak memory is the
    migration's (read around the first, before anything else ran here)."""
    _, migrate, ceilings = STORES[store]
    t = Transcoder("fdb-tuple", "skv", SCHEMA)
    best: dict[str, Any] = {}
    best_ceilings: dict[str, float] = {}
    held = None
    for r in range(repeat):
        path = os.path.join(tmp, f"{store}{r}")
        subprocess.run([sys.executable, __file__, "--make", store, path, str(n)], check=True)
        before = rss_kib()
        started = time.perf_counter()
        report = migrate(path, t, batch)
        seconds = time.perf_counter() - started
        if held is None:
            held = rss_kib() - before
        if not best or seconds < best["seconds"]:
            best = {"seconds": seconds, "copy_s": report.copy_s, "verify_s": report.verify_s,
                    "swap_s": report.swap_s, "rss_held_kib": held, "migrated": report.keys}
        for name, s in ceilings(path, batch).items():  # on the migrated data: same sizes
            best_ceilings[name] = min(best_ceilings.get(name, s), s)
        (shutil.rmtree if os.path.isdir(path) else os.unlink)(path)
    return {"store": store, "keys": n, **best, "ceilings": best_ceilings}


def run(store: str, size: int, batch: int, repeat: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="lexcodecs-bench-") as tmp:
        out = subprocess.run([sys.executable, __file__, "--child", store, tmp, str(size),
                              str(batch), str(repeat)], capture_output=True, text=True,
                             check=True)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def main() -> None:
    if sys.argv[1:2] == ["--make"]:
        store, path, n = sys.argv[2:5]
        STORES[store][0](path, int(n))
        return
    if sys.argv[1:2] == ["--child"]:
        store, tmp, n, batch, repeat = sys.argv[2:7]
        print(json.dumps(child(store, tmp, int(n), int(batch), int(repeat))))
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="200000,1000000")
    parser.add_argument("--stores", default="sqlite,lmdb,rocksdb")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=BATCH_SIZE)
    args = parser.parse_args()
    lines = []
    for store in args.stores.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            r = run(store, size, args.batch_size, args.repeat)
            keys = r["keys"]
            rate = keys / r["seconds"]
            phases = [f"{keys / r[p] / 1000:,.0f}k" if r[p] else "-"
                      for p in ("copy_s", "verify_s", "swap_s")]
            ceilings = "\n".join(f"{name} {keys / s / 1000:,.0f}k" for name, s in
                                 r["ceilings"].items())
            ratios = "\n".join(f"{rate / (keys / s):.2f}" for s in r["ceilings"].values())
            held = r["rss_held_kib"] / 1024
            lines.append([store, f"{keys:,}", f"{r['seconds']:.2f}", f"{rate / 1000:,.0f}k",
                          *phases, ceilings, ratios, f"{held:.1f}"])
    show(table(["store", "keys", "s", "keys/s", "copy", "verify", "swap",
                "store's own copy, keys/s", "ratio", "MB held"], lines,
               title=f"fdb-tuple -> skv migration, batch size {args.batch_size}, best of "
                     f"{args.repeat}",
               justify=["left", "right", "right", "right", "right", "right", "right", "left",
                        "right", "right"]))


if __name__ == "__main__":
    main()
