"""RocksDB migration on 1M rows against RocksDB's own copy speed, in one run.

The data of issue 17: fdb-tuple keys of ``tenant:string, ts:int64, id:bytes`` (38 bytes),
50-byte values, migrated to skv. The ceiling is RocksDB copying the same entries through
rocksdict without transcoding (ordered iterator, ``WriteBatch`` of 10,000, one synced write
per batch, as the migration does). Each figure is the best of ``--repeat`` runs; the ratio is
to the ceiling measured in the same run.

    python benchmarks/bench_migrate_rocksdb.py [--rows 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import rocksdict

from lexcodecs import KeySchema, get_codec
from lexcodecs._console import show, table
from lexcodecs.migrate import Transcoder, migrate_rocksdb

SCHEMA = "tenant:string, ts:int64, id:bytes"
BATCH = 10_000


def make(path: Path, rows: int) -> None:
    fdb = get_codec("fdb-tuple").bind(KeySchema.parse(SCHEMA))
    db = rocksdict.Rdict(str(path), rocksdict.Options(raw_mode=True))
    batch = rocksdict.WriteBatch(raw_mode=True)
    for i in range(rows):
        batch.put(fdb.encode((f"tenant-{i % 1000:04d}", 1_700_000_000_000 + i,
                              i.to_bytes(12, "big"))), bytes(50))
        if len(batch) >= 100_000:
            db.write(batch)
            batch = rocksdict.WriteBatch(raw_mode=True)
    db.write(batch)
    db.close()


def store_copy(src: Path, dst: Path) -> float:
    """RocksDB's own copy: iterate and WriteBatch, no transcoding."""
    started = time.perf_counter()
    source = rocksdict.Rdict(str(src), rocksdict.Options(raw_mode=True),
                             access_type=rocksdict.AccessType.read_only(False))
    target = rocksdict.Rdict(str(dst), rocksdict.Options(raw_mode=True))
    sync = rocksdict.WriteOptions()
    sync.sync = True
    batch = rocksdict.WriteBatch(raw_mode=True)
    for key, value in source.items():
        batch.put(key, value)
        if len(batch) == BATCH:
            target.write(batch, sync)
            batch = rocksdict.WriteBatch(raw_mode=True)
    target.write(batch, sync)
    target.close()
    source.close()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    t = Transcoder("fdb-tuple", "skv", SCHEMA)
    with tempfile.TemporaryDirectory(prefix="bench-rocksdb-") as tmp:
        base = Path(tmp) / "base"
        make(base, args.rows)
        copies, migrations = [], []
        for _ in range(args.repeat):
            dst = Path(tmp) / "copy"
            copies.append(store_copy(base, dst))
            shutil.rmtree(dst)
            work = Path(tmp) / "db"
            shutil.copytree(base, work)
            started = time.perf_counter()
            migrate_rocksdb(work, t, batch_size=BATCH)
            migrations.append(time.perf_counter() - started)
            shutil.rmtree(work)
    ceiling, ours = args.rows / min(copies), args.rows / min(migrations)
    show(table(["what", "keys/s", "ratio to RocksDB's copy"], [
        ["RocksDB copy (iterate + WriteBatch, no transcoding)", f"{ceiling:,.0f}", "1.00"],
        ["migrate_rocksdb (copy, verify, swap)", f"{ours:,.0f}", f"{ours / ceiling:.2f}"],
    ], title=f"RocksDB migration, {args.rows:,} rows, best of {args.repeat}"))


if __name__ == "__main__":
    main()
