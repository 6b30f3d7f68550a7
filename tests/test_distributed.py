"""The scale-out jobs on a real dask.distributed cluster of two worker processes.

``build_sorted_keys``: every record once, under the row API's key, in ascending key bytes
across the parts in name order, with its other columns as the value; SST parts that a real
RocksDB ingests and reads back; duplicate keys refused naming the key; a worker's error back
as the lexcodecs error it was; a job interrupted while encoding and while sorting resumed
without redoing finished row groups and ranges; other settings refused. ``migrate_lmdb_ranges``:
the same environment and report as ``migrate_lmdb``; interrupted while transcoding and while
loading, resumed with nothing lost and finished ranges not redone; a refusal in a worker comes
back as the error it was and leaves nothing. One ``LocalCluster`` serves the whole module
(starting one takes about 2.5 s).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lexcodecs import get_codec
from lexcodecs.errors import LexCodecError
from lexcodecs.migrate import MigrationError, Transcoder, migrate_lmdb
from lexcodecs.schema import KeySchema

distributed = pytest.importorskip("distributed")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
lmdb = pytest.importorskip("lmdb")

from lexcodecs.bulkload import MANIFEST, DuplicateKeyError, build_sorted_keys  # noqa: E402
from lexcodecs.bulkload._batches import _encode_batch, _encode_rows  # noqa: E402
from lexcodecs.migrate.lmdb_ranges import RUNS_SUFFIX, migrate_lmdb_ranges  # noqa: E402

SCHEMA = "tenant:string, at:timestamp, n:int64"
CODEC = "lexkey"  # one that holds timestamps
UTC = dt.UTC


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                       dashboard_address=":0",
                                       silence_logs=logging.CRITICAL)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


class Stop(Exception):
    """An interruption of the coordinator (as Ctrl-C would be)."""


def stop_in(stage: list[str], label: str, count: int) -> Callable[[int], None]:
    """A *progress* that stops the job at *count* steps of the phase *label*; *stage* is the
    list a *phase* callback appends the labels to."""
    def progress(done: int) -> None:
        if stage[-1] == label and done >= count:
            raise Stop
    return progress


def idle(client: Any) -> None:
    """Wait until tasks left running by an interrupted job have finished (no clock: on a busy
    machine they finish later)."""
    while any(client.processing().values()):
        time.sleep(0.02)


# -- Parquet records to sorted key/value parts ----------------------------------------------

def records(n: int, start: int = 0) -> Any:
    rows = range(start, start + n)
    return pa.table({
        "tenant": [["acme", "", "b\x00c", "zeta", "中文"][i % 5] for i in rows],
        "at": pa.array([1_700_000_000_000_000 + (i * 7919) % 100_003 * 1000 for i in rows],
                       pa.timestamp("us", tz="UTC")),
        "n": [(i * 104_729) % 65_537 - 32_768 + i * 65_537 for i in rows],
        "payload": [f"v{i}".encode() for i in rows],
        "score": [i / 3 for i in rows],
    })


def dataset(tmp: Path, files: int = 2, n: int = 1500) -> Path:
    root = tmp / "in"
    root.mkdir()
    for f in range(files):
        pq.write_table(records(n, f * n), root / f"f{f}.parquet", row_group_size=600)
    return root


BOUND = get_codec(CODEC).bind(SCHEMA)


def row_key(row: dict[str, Any]) -> bytes:
    return BOUND.encode((row["tenant"], row["at"], row["n"]))


def read_parts(parts: tuple[Path, ...]) -> Any:
    return pa.concat_tables([pq.read_table(p) for p in parts])


def test_encode_batch_is_the_row_api() -> None:
    table = records(300)
    bound = get_codec(CODEC).bind(SCHEMA)
    expected = [bound.encode((r["tenant"], r["at"], r["n"])) for r in table.to_pylist()]
    assert table.to_pylist()[0]["at"].tzinfo is not None
    codec, schema = get_codec(CODEC), KeySchema.parse(SCHEMA)
    assert _encode_rows(table.select(list(schema.names)).to_batches()[0], schema,
                        codec).to_pylist() == expected
    assert _encode_batch(table, schema, codec).to_pylist() == expected  # columnar or rows


def test_parts_hold_every_record_once_in_key_order(client: Any, tmp_path: Path) -> None:
    src = dataset(tmp_path)
    result = build_sorted_keys(src, tmp_path / "out", SCHEMA, CODEC, client, ranges=4)
    assert [p.name for p in result.parts] == [f"part-{r:05d}.parquet" for r in range(4)]
    assert len(result.boundaries) == 3
    assert result.rows == 3000
    assert result.reused == 0
    table = read_parts(result.parts)
    assert table.column_names == ["key", "payload", "score"]  # the value: the other columns
    keys = table.column("key").to_pylist()
    assert keys == sorted(keys)
    assert len(set(keys)) == 3000
    want = {row_key(r): (r["payload"], r["score"]) for r in
            pa.concat_tables([records(1500), records(1500, 1500)]).to_pylist()}
    got = {r["key"]: (r["payload"], r["score"]) for r in table.to_pylist()}
    assert got == want
    sizes = [pq.read_metadata(p).num_rows for p in result.parts]
    assert min(sizes) > 3000 / 4 / 2  # the sampled boundaries cut about equal ranges
    manifest = json.loads((tmp_path / "out" / MANIFEST).read_text())
    assert manifest["complete"]
    assert manifest["rows"] == sizes
    assert not (tmp_path / "out" / "_shuffle").exists()


def test_interrupted_job_resumes_and_other_settings_are_refused(client: Any,
                                                               tmp_path: Path) -> None:
    src, out = dataset(tmp_path), tmp_path / "out"
    stage: list[str] = []

    def phase(label: str, total: int) -> None:
        stage.append(label)

    with pytest.raises(Stop):  # stopped after 2 of 6 row groups were encoded
        build_sorted_keys(src, out, SCHEMA, CODEC, client, ranges=6, phase=phase,
                          progress=stop_in(stage, "encoding", 2))
    idle(client)
    runs = {p: p.stat().st_mtime_ns for p in (out / "_shuffle").glob("p*.arrow")}
    assert len(runs) >= 2
    assert json.loads((out / MANIFEST).read_text())["boundaries"] is None
    with pytest.raises(Stop):  # then after 2 of 6 ranges were sorted
        build_sorted_keys(src, out, SCHEMA, CODEC, client, ranges=6, phase=phase,
                          progress=stop_in(stage, "sorting", 2))
    idle(client)
    assert {p: p.stat().st_mtime_ns for p in runs} == runs  # not encoded again
    done = {p: p.stat().st_mtime_ns for p in out.glob("part-*.parquet")}
    assert len(done) >= 2
    result = build_sorted_keys(src, out, SCHEMA, CODEC, client, ranges=6)
    assert result.reused >= 6 + len(done)  # every row group was encoded, and parts stay
    assert {p: p.stat().st_mtime_ns for p in done} == done  # not sorted again
    keys = read_parts(result.parts).column("key").to_pylist()
    assert len(keys) == 3000
    assert keys == sorted(keys)
    assert len(set(keys)) == 3000
    again = build_sorted_keys(src, out, SCHEMA, CODEC, client, ranges=6)
    assert again.reused == 6 + 6
    assert again.rows == 3000
    with pytest.raises(MigrationError, match="other settings"):
        build_sorted_keys(src, out, SCHEMA, CODEC, client, ranges=3)
    desc = "tenant:string, n:int64, at:timestamp"  # other settings: another key
    with pytest.raises(MigrationError, match="other settings"):
        build_sorted_keys(src, out, desc, CODEC, client, ranges=6)
    restarted = build_sorted_keys(src, out, desc, CODEC, client, ranges=3, restart=True)
    assert len(restarted.parts) == 3
    assert sorted(out.glob("part-*")) == list(restarted.parts)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(MigrationError, match="not empty"):
        build_sorted_keys(src, tmp_path / "other", SCHEMA, CODEC, client, restart=True)


def test_duplicate_keys_are_refused_naming_the_key(client: Any, tmp_path: Path) -> None:
    src = dataset(tmp_path, files=1, n=400)
    with pytest.raises(DuplicateKeyError) as info:
        build_sorted_keys(src, tmp_path / "out", "tenant:string", "fdb-tuple", client,
                          ranges=2)
    err = info.value
    assert type(err) is DuplicateKeyError
    assert err.codec == "fdb-tuple"
    assert err.values in {(t,) for t in ("acme", "", "b\x00c", "zeta", "中文")}
    assert err.key == get_codec("fdb-tuple").bind("tenant:string").encode(err.values)
    assert err.key.hex(" ") in str(err)


def test_a_value_the_key_cannot_hold_comes_back_as_a_lexcodecs_error(
        client: Any, tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    pq.write_table(pa.table({"n": [1, 2, 300, 4]}), tmp_path / "in" / "a.parquet")
    with pytest.raises(LexCodecError) as info:
        build_sorted_keys(tmp_path / "in", tmp_path / "out", "n:int8", "fdb-tuple", client)
    assert type(info.value).__module__.startswith("lexcodecs")
    assert "300" in str(info.value)


def test_sst_parts_ingest_into_rocksdb(client: Any, tmp_path: Path) -> None:
    rocksdict = pytest.importorskip("rocksdict")
    src = dataset(tmp_path)
    with pytest.raises(MigrationError, match="name the value column"):
        build_sorted_keys(src, tmp_path / "out", SCHEMA, CODEC, client, format="sst")
    with pytest.raises(MigrationError, match="is double"):
        build_sorted_keys(src, tmp_path / "out", SCHEMA, CODEC, client, format="sst",
                          value="score")
    result = build_sorted_keys(src, tmp_path / "out", SCHEMA, CODEC, client, ranges=4,
                               format="sst", value="payload")
    assert [p.suffix for p in result.parts] == [".sst"] * 4
    assert result.rows == 3000
    db = rocksdict.Rdict(str(tmp_path / "db"), rocksdict.Options(raw_mode=True))
    try:
        db.ingest_external_file([str(p) for p in result.parts])
        got = list(db.items())
    finally:
        db.close()
    rows = pa.concat_tables([records(1500), records(1500, 1500)]).to_pylist()
    assert got == sorted((row_key(r), r["payload"]) for r in rows)


@pytest.mark.parametrize(("fmt", "parts"), [("parquet", 1), ("sst", 0)])
def test_an_empty_dataset_gives_an_empty_result(client: Any, tmp_path: Path, fmt: str,
                                                parts: int) -> None:
    (tmp_path / "in").mkdir()
    pq.write_table(records(1).slice(0, 0), tmp_path / "in" / "a.parquet")
    result = build_sorted_keys(tmp_path / "in", tmp_path / "out", SCHEMA, CODEC, client,
                               format=fmt, value="payload" if fmt == "sst" else None)
    assert result.rows == 0
    assert len(result.parts) == parts  # RocksDB writes no SST file without keys
    assert build_sorted_keys(tmp_path / "in", tmp_path / "out", SCHEMA, CODEC, client,
                             format=fmt, value="payload" if fmt == "sst" else None
                             ).parts == result.parts


# -- an LMDB migration by key range -----------------------------------------------------------

LMDB_SCHEMA = "tenant:string, score:float64"


def lmdb_env(path: Path, n: int = 2400, bad: bool = False, codec: str = "lexkey"
             ) -> list[tuple[bytes, bytes]]:
    """LexKey keys by default: its strings sort "a\\x00" before "a", so fdb-tuple changes the
    order."""
    lexkey = get_codec(codec).bind(LMDB_SCHEMA)
    rows = [(lexkey.encode((["a", "a\x00", "b", "acme"][i % 4] * (1 + i % 3), i / 7 - 50.0)),
             b"value %d" % i) for i in range(n)]
    if bad:
        rows.append((b"\xff\xfe not a key", b"x"))
    env = lmdb.open(str(path), map_size=1 << 24)
    with env.begin(write=True) as txn:
        txn.cursor().putmulti(rows)
    env.close()
    return rows


def contents(path: Path) -> list[tuple[bytes, bytes]]:
    env = lmdb.open(str(path), readonly=True, lock=False)
    with env.begin() as txn:
        entries = list(txn.cursor())
    env.close()
    return entries


@pytest.mark.parametrize(("source", "target"), [("lexkey", "fdb-tuple"), ("fdb-tuple", "skv")])
def test_lmdb_by_ranges_is_migrate_lmdb(client: Any, tmp_path: Path, source: str,
                                        target: str) -> None:
    t = Transcoder(source, target, LMDB_SCHEMA)
    lmdb_env(tmp_path / "a", codec=source)
    lmdb_env(tmp_path / "b", codec=source)
    report = migrate_lmdb_ranges(tmp_path / "a", t, client, ranges=5, batch_size=500)
    plain = migrate_lmdb(tmp_path / "b", t, batch_size=500)
    assert contents(tmp_path / "a") == contents(tmp_path / "b")
    assert report.keys == plain.keys == 2400
    assert report.order_changes == plain.order_changes
    assert report.examples == plain.examples
    assert (report.order_changes > 0) == (source == "lexkey")  # the old order, both ways
    assert sorted(tmp_path.iterdir()) == [tmp_path / "a", tmp_path / "b"]  # nothing left


def test_lmdb_interrupted_while_transcoding_and_loading_resumes(client: Any,
                                                                tmp_path: Path) -> None:
    t = Transcoder("lexkey", "fdb-tuple", LMDB_SCHEMA)
    rows = lmdb_env(tmp_path / "env")
    runs = tmp_path / ("env" + RUNS_SUFFIX)
    stage: list[str] = []

    def phase(label: str, total: int) -> None:
        stage.append(label)

    with pytest.raises(Stop):  # stopped after two of six ranges were transcoded
        migrate_lmdb_ranges(tmp_path / "env", t, client, ranges=6, phase=phase,
                            progress=stop_in(stage, "transcoding", 2))
    idle(client)
    first = {p.name: p.stat().st_mtime_ns for p in runs.glob("run-*")}
    assert 2 <= len(first) <= 6
    with pytest.raises(Stop):  # stopped after the first run was loaded
        migrate_lmdb_ranges(tmp_path / "env", t, client, ranges=3, batch_size=10_000,
                            phase=phase,
                            progress=stop_in(stage, "loading", 1))
    idle(client)
    assert {n: m for n, m in ((p.name, p.stat().st_mtime_ns) for p in runs.glob("run-*"))
            if n in first} == first  # finished ranges were not transcoded again
    assert len(list(runs.glob("run-*"))) == 6  # the recorded six ranges, not three
    state = json.loads((tmp_path / "env.lexcodecs-state").read_text())
    assert state["phase"] == "copy"
    assert len(state["loaded"]) >= 1
    report = migrate_lmdb_ranges(tmp_path / "env", t, client)
    assert report.resumed
    assert report.keys == len(rows)
    fdb = get_codec("fdb-tuple").bind(LMDB_SCHEMA)
    lexkey = get_codec("lexkey").bind(LMDB_SCHEMA)
    assert contents(tmp_path / "env") == sorted((fdb.encode(lexkey.decode(k)), v)
                                                for k, v in rows)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env"]


def test_lmdb_refusal_in_a_worker_leaves_nothing(client: Any, tmp_path: Path) -> None:
    t = Transcoder("lexkey", "fdb-tuple", LMDB_SCHEMA)
    rows = lmdb_env(tmp_path / "env", n=600, bad=True)
    with pytest.raises(MigrationError, match="ff fe") as info:
        migrate_lmdb_ranges(tmp_path / "env", t, client, ranges=3)
    assert type(info.value) is MigrationError
    assert "lexkey: field 0 'tenant'" in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env"]
    assert contents(tmp_path / "env") == sorted(rows)


def test_a_task_cancelled_late_writes_no_run_behind(tmp_path: Path) -> None:
    """After a refusal the coordinator cancels the other ranges, but a task already running
    on its worker runs on (a cluster cannot stop it). Its run file is written under a shared
    lock of the runs directory, which the coordinator removes under an exclusive one: while
    a task writes, the removal waits; once removed, a task writes nothing and makes no
    directory (one had once left its temporary file in a directory being removed)."""
    import fcntl
    import os

    from lexcodecs.migrate import lmdb_ranges

    runs = tmp_path / ("env" + RUNS_SUFFIX)
    runs.mkdir()
    with lmdb_ranges._runs_held(runs, exclusive=False) as there:
        assert there
        fd = os.open(runs, os.O_RDONLY)
        try:
            with pytest.raises(BlockingIOError):  # the coordinator's removal would wait
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
    lmdb_ranges._write_run(runs / "run-00000", {}, [b"k"], [b"v"])
    assert [p.name for p in runs.iterdir()] == ["run-00000"]
    lmdb_ranges._remove_runs(runs)
    lmdb_ranges._write_run(runs / "run-00001", {}, [b"k"], [b"v"])  # cancelled, too late
    assert list(tmp_path.iterdir()) == []
