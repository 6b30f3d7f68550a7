"""Scale-out on dask.distributed: rows/s of the two jobs on 1 and on 2 worker processes.

Issue 17, item 4. Records of ``tenant:string, ts:int64, id:bytes`` (fdb-tuple keys of 38
bytes) with a 50-byte payload, as in bench_migrate.py:

* ``build_sorted_keys`` -- a Parquet dataset of *rows* records in 8 files to sorted
  key/value parts (8 key ranges), on a ``LocalCluster`` of 1 and of 2 worker processes
  (one thread each), against one process doing the same with pyarrow alone (read, encode
  with the same ``_encode_batch``, sort, write one file): what the cluster costs and gains;
* ``migrate_lmdb_ranges`` -- an LMDB environment of *rows* entries migrated to skv keys
  (8 ranges) on 1 and 2 workers, against ``migrate_lmdb`` in one process.

Every figure is the minimum over *repeat* runs, each on fresh data; the clusters are warmed
up first (their workers import lexcodecs and pyarrow once). The machine's cores are shared
by the workers, the scheduler and the coordinator: on 2 cores, 2 workers cannot double.

    python3 benchmarks/bench_distributed.py [--rows 500000] [--repeat 3] [--jobs parquet,lmdb]
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lexcodecs import get_codec
from lexcodecs._console import table, to_text

SCHEMA = "tenant:string, ts:int64, id:bytes"
FILES = 8
RANGES = 8


def rows(n: int, start: int = 0) -> Any:
    import pyarrow as pa

    ids = range(start, start + n)
    return pa.table({
        "tenant": [f"tenant-{i % 100:02d}" for i in ids],
        "ts": pa.array([1_700_000_000_000 + 7 * ((i * 7919) % n) for i in ids], pa.int64()),
        "id": [i.to_bytes(8, "big") * 2 + b"id" for i in ids],
        "payload": [(b"v%08d" % i) * 5 for i in ids],
    })


def make_dataset(root: Path, n: int) -> Path:
    import pyarrow.parquet as pq

    root.mkdir()
    per = -(-n // FILES)
    for f in range(FILES):
        pq.write_table(rows(min(per, n - f * per), f * per), root / f"part{f}.parquet")
    return root


def make_lmdb(path: Path, n: int) -> None:
    import lmdb

    fdb = get_codec("fdb-tuple").bind(SCHEMA)
    env = lmdb.open(str(path), map_size=1 << 32)
    with env.begin(write=True) as txn:
        txn.cursor().putmulti(
            (fdb.encode((f"tenant-{i % 100:02d}", 1_700_000_000_000 + 7 * i,
                         i.to_bytes(8, "big") * 2 + b"id")), (b"v%08d" % i) * 5)
            for i in range(n))
    env.close()


def one_process(dataset: Path, out: Path) -> None:
    """The same job without a cluster: read, encode, sort, write, in this process."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from lexcodecs.scaleout._common import _encode_batch
    from lexcodecs.schema import KeySchema

    schema, codec = KeySchema.parse(SCHEMA), get_codec("fdb-tuple")
    whole = pq.read_table(sorted(dataset.glob("*.parquet")))
    keys = pa.concat_arrays([_encode_batch(b, schema, codec) for b in whole.to_batches()])
    out.mkdir()
    pq.write_table(pa.table({"key": keys, "payload": whole.column("payload")}
                            ).sort_by("key"), out / "part-00000.parquet")


def best(repeat: int, prepare: Callable[[Path], Any], job: Callable[[Any, Path], Any]
         ) -> float:
    """The minimum of *repeat* timed ``job(prepared, dir)`` runs, each on fresh data."""
    times = []
    for _ in range(repeat):
        tmp = Path(tempfile.mkdtemp(prefix="lexcodecs-bench-"))
        try:
            prepared = prepare(tmp)
            started = time.perf_counter()
            job(prepared, tmp)
            times.append(time.perf_counter() - started)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return min(times)


def main() -> None:
    import distributed

    from lexcodecs.migrate import Transcoder, migrate_lmdb
    from lexcodecs.scaleout import build_sorted_keys
    from lexcodecs.scaleout.lmdb_ranges import migrate_lmdb_ranges

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", default="parquet,lmdb")
    args = parser.parse_args()
    n, jobs = args.rows, args.jobs.split(",")
    transcoder = Transcoder("fdb-tuple", "skv", SCHEMA)
    results: dict[tuple[str, str], float] = {}

    tmp = Path(tempfile.mkdtemp(prefix="lexcodecs-bench-"))
    try:  # one dataset for every Parquet run (the job only reads it)
        dataset = make_dataset(tmp / "in", n) if "parquet" in jobs else tmp
        if "parquet" in jobs:
            results["parquet", "one process"] = best(
                args.repeat, lambda d: d, lambda _, d: one_process(dataset, d / "out"))
        if "lmdb" in jobs:
            results["lmdb", "one process"] = best(
                args.repeat, lambda d: make_lmdb(d / "env", n),
                lambda _, d: migrate_lmdb(d / "env", transcoder))
        for workers in (1, 2):
            with distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                          processes=True, dashboard_address=None,
                                          silence_logs=logging.ERROR) as cluster, \
                    distributed.Client(cluster) as client:
                warm = tmp / f"warm{workers}"
                make_dataset(warm, 2000)
                build_sorted_keys(warm, warm / "out", SCHEMA, "fdb-tuple", client)
                label = f"{workers} worker" + ("s" if workers > 1 else "")
                if "parquet" in jobs:
                    results["parquet", label] = best(
                        args.repeat, lambda d: d,
                        lambda _, d, c=client: build_sorted_keys(
                            dataset, d / "out", SCHEMA, "fdb-tuple", c, ranges=RANGES))
                if "lmdb" in jobs:
                    results["lmdb", label] = best(
                        args.repeat, lambda d: make_lmdb(d / "env", n),
                        lambda _, d, c=client: migrate_lmdb_ranges(
                            d / "env", transcoder, c, ranges=RANGES))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    names = {"parquet": "Parquet -> parts", "lmdb": "LMDB migration"}
    out = []
    for job in jobs:
        base = results[job, "one process"]
        for how in ("one process", "1 worker", "2 workers"):
            seconds = results[job, how]
            out.append([names[job], how, f"{n:,}", f"{seconds:.2f}", f"{n / seconds:,.0f}",
                        f"{base / seconds:.2f}",
                        "-" if how == "one process"
                        else f"{results[job, '1 worker'] / seconds:.2f}"])
    print(to_text(table(["job", "run on", "rows", "s", "rows/s", "/ one proc", "/ 1 worker"], out,
               title=f"scale-out on dask.distributed, min of {args.repeat} "
                     f"(cores: {os.cpu_count()})"), width=120))


if __name__ == "__main__":
    main()
