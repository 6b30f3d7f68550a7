"""Migration throughput, phase times and peak memory, against each store's own copy speed.

Issue 17: migrate the keys of an SQLite table (``k BLOB PRIMARY KEY, v BLOB``, WITHOUT ROWID)
and of an LMDB environment, fdb-tuple keys of ``tenant:string, ts:int64, id:bytes`` (38 bytes)
with 50-byte values, to skv keys, with the library calls the CLI makes (``migrate_sqlite``,
``migrate_lmdb``: copy, verify, swap). In the same run, the store's own ceilings on the same
data, without transcoding: for SQLite ``INSERT INTO t2 SELECT * FROM t1`` and a cursor with
``executemany`` in one transaction; for LMDB ``putmulti`` in one transaction. The migration's
rate is given as a ratio to each ceiling (min of the repeats' times).

Each store and size runs in a fresh process, whose peak resident memory (``ru_maxrss``) is read
before and after the migration (the ceilings run after it), so the difference is what the
migration itself held: it must not grow with the number of keys.

    python3 benchmarks/bench_migrate.py [--sizes 200000,1000000] [--stores sqlite,lmdb]
                                        [--repeat N] [--batch-size N]
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

CHILD = r"""
import json, os, resource, shutil, sqlite3, sys, time
sys.path.insert(0, sys.argv[6])
from lexcodecs import get_codec
from lexcodecs.migrate import Transcoder, migrate_lmdb, migrate_sqlite

store, tmp, n, batch, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), \
    int(sys.argv[5])
schema = "tenant:string, ts:int64, id:bytes"
fdb = get_codec("fdb-tuple").bind(schema)

def rows():
    for i in range(n):
        key = fdb.encode((f"tenant-{i % 100:02d}", 1700000000000 + 7 * i,
                          i.to_bytes(8, "big") * 2 + b"id"))
        yield key, (b"v%08d" % i) * 5

def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

transcoder = Transcoder("fdb-tuple", "skv", schema)
result = {"store": store, "keys": n}
best = None
ceilings = {}
for r in range(repeat):
    if store == "sqlite":
        path = os.path.join(tmp, f"kv{r}.db")
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE kv (k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID")
        db.executemany("INSERT INTO kv VALUES (?, ?)", rows())
        db.commit()
        db.close()
        before = rss()
        started = time.perf_counter()
        report = migrate_sqlite(path, "kv", "k", transcoder, batch_size=batch)
    else:
        import lmdb
        path = os.path.join(tmp, f"env{r}")
        env = lmdb.open(path, map_size=1 << 32)
        with env.begin(write=True) as txn:
            txn.cursor().putmulti(rows())
        env.close()
        before = rss()
        started = time.perf_counter()
        report = migrate_lmdb(path, transcoder, batch_size=batch)
    seconds = time.perf_counter() - started
    after = rss()
    if best is None or seconds < best["seconds"]:
        best = {"seconds": seconds, "copy_s": report.copy_s, "verify_s": report.verify_s,
                "swap_s": report.swap_s, "rss_before_kib": before, "rss_after_kib": after,
                "migrated": report.keys}
    # the store's own ceilings on the same (now migrated: same sizes) data
    if store == "sqlite":
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("CREATE TABLE t2 (k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID")
        started = time.perf_counter()
        db.execute("BEGIN"); db.execute("INSERT INTO t2 SELECT * FROM kv"); db.execute("COMMIT")
        s = time.perf_counter() - started
        ceilings["insert_select"] = min(ceilings.get("insert_select", s), s)
        db.execute("CREATE TABLE t3 (k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID")
        started = time.perf_counter()
        db.execute("BEGIN")
        db.executemany("INSERT INTO t3 VALUES (?, ?)", db.cursor().execute("SELECT k, v FROM kv"))
        db.execute("COMMIT")
        s = time.perf_counter() - started
        ceilings["executemany"] = min(ceilings.get("executemany", s), s)
        db.close()
        os.unlink(path)
    else:
        src = lmdb.open(path, readonly=True, lock=False)
        dst = lmdb.open(path + ".copy", map_size=1 << 32)
        started = time.perf_counter()
        with src.begin() as old, dst.begin(write=True) as new:
            new.cursor().putmulti(old.cursor())
        s = time.perf_counter() - started
        ceilings["putmulti"] = min(ceilings.get("putmulti", s), s)
        src.close(); dst.close()
        shutil.rmtree(path); shutil.rmtree(path + ".copy")
result.update(best)
result["ceilings"] = ceilings
print(json.dumps(result))
"""


def run(store: str, size: int, batch: int, repeat: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="lexcodecs-bench-") as tmp:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, store, tmp, str(size), str(batch), str(repeat),
             str(ROOT)], capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(out.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="200000,1000000")
    parser.add_argument("--stores", default="sqlite,lmdb")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=10_000)
    args = parser.parse_args()
    rows = []
    for store in args.stores.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            r = run(store, size, args.batch_size, args.repeat)
            keys, seconds = float(r["keys"]), float(r["seconds"])  # type: ignore[arg-type]
            rate = keys / seconds
            ceilings: dict[str, float] = r["ceilings"]  # type: ignore[assignment]
            held = (float(r["rss_after_kib"]) - float(r["rss_before_kib"])  # type: ignore
                    ) / 1024
            phases = " / ".join(f"{keys / float(r[p]) / 1000:,.0f}k"  # type: ignore
                                if float(r[p]) else "-"  # type: ignore
                                for p in ("copy_s", "verify_s", "swap_s"))
            ratio = ", ".join(f"{name} {keys / s:,.0f}/s: {rate / (keys / s):.2f}"
                              for name, s in ceilings.items())
            rows.append([store, f"{int(keys):,}", f"{seconds:.2f}", f"{rate:,.0f}", phases,
                         ratio, f"{float(r['rss_after_kib']) / 1024:.0f}MB",  # type: ignore
                         f"{held:.1f}MB"])
    show(table(["store", "keys", "seconds", "keys/s", "copy / verify / swap keys/s",
                "ceiling: migration / ceiling", "RSS peak", "migration held"], rows,
               title=f"fdb-tuple -> skv, batch size {args.batch_size}, min of {args.repeat}",
               justify=["left", "right", "right", "right", "right", "left", "right",
                        "right"]))


if __name__ == "__main__":
    main()
