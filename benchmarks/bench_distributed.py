"""Scale-out on dask.distributed: rows/s of the two jobs on 1 and on 2 worker processes.

Issue 17, item 4. Records of ``tenant:string, ts:int64, id:bytes`` (fdb-tuple keys of 38
bytes) with a 50-byte payload, as in bench_migrate.py:

* ``build_sorted_keys`` -- a Parquet dataset of *rows* records in 8 files to sorted
  key/value parts (8 key ranges), on a ``LocalCluster`` of 1 and of 2 worker processes
  (one thread each), against one process doing the same with pyarrow alone (read, encode
  with the same ``_encode_batch``, sort, write one file): what the cluster costs and gains;
* the same job writing RocksDB SST parts (``format="sst"``, the payload as value), on 1
  and 2 workers;
* ``migrate_lmdb_ranges`` -- an LMDB environment of *rows* entries migrated to skv keys
  (8 ranges) on 1 and 2 workers, against ``migrate_lmdb`` in one process.

Every figure is the minimum over *repeat* runs, each on fresh data; the clusters are warmed
up first (their workers import lexcodecs and pyarrow once). The machine's cores are shared
by the workers, the scheduler and the coordinator: on 2 cores, 2 workers cannot double.

    python3 benchmarks/bench_distributed.py [--rows 500000] [--repeat 3]
                                            [--jobs parquet,sst,lmdb]
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from itertools import pairwise
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


class Phases:
    """The seconds from each phase's start to the next (and to the end), as the jobs'
    *phase* callbacks tell them; "plan" is the time before the first (for the LMDB job on a
    cluster, the walk of the keys that picks the ranges)."""

    def __init__(self) -> None:
        self.marks: list[tuple[str, float]] = []

    def __call__(self, label: str, total: int) -> None:
        self.marks.append((label, time.perf_counter()))

    def spans(self, started: float, ended: float) -> str:
        marks = [("plan", started), *self.marks, ("", ended)]
        return " / ".join(f"{a} {t2 - t1:.2f}" for (a, t1), (_, t2) in pairwise(marks)
                          if t2 - t1 >= 0.005)


def one_process(dataset: Path, out: Path, phase: Phases) -> None:
    """The same job without a cluster: read, encode, sort, write, in this process."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from lexcodecs.bulkload._batches import _encode_batch
    from lexcodecs.schema import KeySchema

    schema, codec = KeySchema.parse(SCHEMA), get_codec("fdb-tuple")
    phase("reading", 0)
    whole = pq.read_table(sorted(dataset.glob("*.parquet")))
    phase("encoding", 0)
    keys = pa.concat_arrays([_encode_batch(b, schema, codec) for b in whole.to_batches()])
    phase("sorting", 0)
    table = pa.table({"key": keys, "payload": whole.column("payload")}).sort_by("key")
    phase("writing", 0)
    out.mkdir()
    pq.write_table(table, out / "part-00000.parquet")


def best(repeat: int, prepare: Callable[[Path], Any],
         job: Callable[[Any, Path, Phases], Any]) -> tuple[float, str]:
    """The minimum of *repeat* timed ``job(prepared, dir, phases)`` runs, each on fresh
    data, and where that run's time went."""
    runs = []
    for _ in range(repeat):
        tmp = Path(tempfile.mkdtemp(prefix="lexcodecs-bench-"))
        try:
            prepared = prepare(tmp)
            phases = Phases()
            started = time.perf_counter()
            job(prepared, tmp, phases)
            ended = time.perf_counter()
            runs.append((ended - started, phases.spans(started, ended)))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return min(runs)


def main() -> None:
    from lexcodecs._dask import _distributed
    from lexcodecs.bulkload import build_sorted_keys
    from lexcodecs.migrate import Transcoder, migrate_lmdb, migrate_lmdb_ranges

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", default="parquet,sst,lmdb")
    args = parser.parse_args()
    n, jobs = args.rows, args.jobs.split(",")
    transcoder = Transcoder("fdb-tuple", "skv", SCHEMA)
    results: dict[tuple[str, str], tuple[float, str]] = {}
    distributed = _distributed()
    tmp = Path(tempfile.mkdtemp(prefix="lexcodecs-bench-"))

    def same(d: Path) -> Path:
        return d

    def env(d: Path) -> None:
        make_lmdb(d / "env", n)

    def alone(_: object, d: Path, p: Phases) -> None:
        one_process(dataset, d / "out", p)

    def plain(_: object, d: Path, p: Phases) -> None:
        migrate_lmdb(d / "env", transcoder, phase=p, progress=lambda done: None)

    def parts(fmt: str, client: Any) -> Callable[[object, Path, Phases], None]:
        def job(_: object, d: Path, p: Phases) -> None:
            build_sorted_keys(dataset, d / "out", SCHEMA, "fdb-tuple", client, ranges=RANGES,
                              format=fmt, value="payload" if fmt == "sst" else None, phase=p)
        return job

    def ranges(client: Any) -> Callable[[object, Path, Phases], None]:
        def job(_: object, d: Path, p: Phases) -> None:
            migrate_lmdb_ranges(d / "env", transcoder, client, ranges=RANGES, phase=p)
        return job

    try:  # one dataset for every Parquet run (the job only reads it)
        dataset = make_dataset(tmp / "in", n) if {"parquet", "sst"} & set(jobs) else tmp
        if "parquet" in jobs:
            results["parquet", "one process"] = best(args.repeat, same, alone)
        if "lmdb" in jobs:
            results["lmdb", "one process"] = best(args.repeat, env, plain)
        for workers in (1, 2):
            with distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                          processes=True, dashboard_address=":0",
                                          silence_logs=logging.ERROR) as cluster, \
                    distributed.Client(cluster) as client:
                warm = tmp / f"warm{workers}"
                make_dataset(warm, 2000)
                build_sorted_keys(warm, warm / "out", SCHEMA, "fdb-tuple", client)
                label = f"{workers} worker" + ("s" if workers > 1 else "")
                for fmt in ("parquet", "sst"):
                    if fmt in jobs:
                        results[fmt, label] = best(args.repeat, same, parts(fmt, client))
                if "lmdb" in jobs:
                    results["lmdb", label] = best(args.repeat, env, ranges(client))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    names = {"parquet": "Parquet -> parts", "sst": "Parquet -> SST",
             "lmdb": "LMDB migration"}
    out = []
    for job in jobs:
        base = results[job, "one process"][0] if (job, "one process") in results else None
        for how in ("one process", "1 worker", "2 workers"):
            if (job, how) not in results:
                continue  # SST: no one-process version to compare with
            seconds, spans = results[job, how]
            out.append([names[job], how, f"{n:,}", f"{seconds:.2f}", f"{n / seconds:,.0f}",
                        "-" if base is None else f"{base / seconds:.2f}",
                        "-" if how == "one process"
                        else f"{results[job, '1 worker'][0] / seconds:.2f}", spans])
    print(to_text(table(["job", "run on", "rows", "s", "rows/s", "/ one proc", "/ 1 worker",
                         "where the time went (s)"], out,
               title=f"scale-out on dask.distributed, min of {args.repeat} "
                     f"(cores: {os.cpu_count()})"), width=160))


if __name__ == "__main__":
    main()
