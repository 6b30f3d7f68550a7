"""Migration throughput and peak memory: SQLite to SQLite, fdb-tuple keys to skv keys.

Issue 8: migrate 1 000 000 keys of an SQLite table (``k BLOB PRIMARY KEY, v BLOB``, WITHOUT
ROWID; fdb-tuple keys of ``tenant:string, ts:int64, seq:int64``) to skv keys with
``lexcodecs.migrate.migrate_sqlite``: copy in batches, verify, swap. Each size runs in a fresh
process, whose peak resident memory (``ru_maxrss``) is reported next to that of the same
process before migrating, so the difference is what the migration itself held; it must not
grow with the number of keys.

    python3 benchmarks/bench_migrate.py [--sizes 100000,1000000] [--batch-size N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from lexcodecs._console import show, table

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = "tenant:string, ts:int64, seq:int64"

CHILD = r"""
import json, resource, sqlite3, sys, time
sys.path.insert(0, sys.argv[4])
from lexcodecs import get_codec
from lexcodecs.migrate import Transcoder, migrate_sqlite

path, n, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
schema = "tenant:string, ts:int64, seq:int64"
fdb = get_codec("fdb-tuple").bind(schema)
db = sqlite3.connect(path)
db.execute("CREATE TABLE kv (k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID")
db.executemany("INSERT INTO kv VALUES (?, ?)", (
    (fdb.encode((f"tenant-{i % 100}", 1700000000000 + 7 * i, i)), b"value-%d" % i)
    for i in range(n)))
db.commit()
db.close()
transcoder = Transcoder("fdb-tuple", "skv", schema)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
report = migrate_sqlite(path, "kv", "k", transcoder, batch_size=batch)
seconds = time.perf_counter() - started
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"keys": report.keys, "seconds": seconds, "rss_before_kib": before,
                  "rss_after_kib": after, "order_changes": report.order_changes}))
"""


def run(size: int, batch: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="lexcodecs-bench-") as tmp:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(Path(tmp) / "kv.db"), str(size), str(batch),
             str(ROOT)], capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(out.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--batch-size", type=int, default=10_000)
    args = parser.parse_args()
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        r = run(size, args.batch_size)
        held = r["rss_after_kib"] - r["rss_before_kib"]
        rows.append([f"{int(r['keys']):,}", f"{r['seconds']:.1f}",
                     f"{r['keys'] / r['seconds']:,.0f}", f"{r['rss_before_kib'] / 1024:.1f}MB",
                     f"{r['rss_after_kib'] / 1024:.1f}MB", f"{held / 1024:.1f}MB"])
    show(table(["keys", "seconds", "keys/s", "RSS before", "RSS peak", "migration held"], rows,
               title=f"fdb-tuple -> skv, SQLite to SQLite, batch size {args.batch_size}",
               justify=["right"] * 6))


if __name__ == "__main__":
    main()
