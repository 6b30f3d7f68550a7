"""The verification in spans (lexcodecs.migrate.spans): split points, the plan, the walk by
this process and by worker processes, on real stores.

Every store migration is checked with and without a worker (same data, same report, same
result); the span machinery itself on LMDB, with openers from ``span_openers`` that show a
worker took part, or make one die or fail: the verification then still checks every entry,
and a wrong entry in a worker's span stops the migration with the worker's own error.
"""

from __future__ import annotations

import itertools
import os
import shutil
import sqlite3
import sys
import time
from contextlib import closing
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from toys import NegativesFirstBroken, ToyCodec

import lexcodecs.migrate.spans as spans
from lexcodecs import KeySchema, get_codec
from lexcodecs.migrate import (
    MigrationError,
    MigrationReport,
    Transcoder,
    migrate_lmdb,
    migrate_rocksdb,
    migrate_sqlite,
)
from lexcodecs.migrate.lmdb_store import _LmdbSpans
from lexcodecs.migrate.spans import MAX_SPLITS, Span, Splits, plan_spans, run_spans, walk_span

lmdb = pytest.importorskip("lmdb")

SCHEMA_TEXT = "tenant:string, n:int64"
SCHEMA = KeySchema.parse(SCHEMA_TEXT)
FDB = get_codec("fdb-tuple").bind(SCHEMA)
HERE = Path(__file__).resolve().parent
ROWS = 3_000


def values(n: int = ROWS) -> list[tuple[str, int]]:
    tenants = ["acme", "b\x00z", "beta", "", "é"]
    return [(tenants[i % len(tenants)], (i * 7919) % (4 * n) - 2 * n) for i in range(n)]


def fdb_to_skv() -> Transcoder:
    return Transcoder("fdb-tuple", "skv", SCHEMA_TEXT)


def report_of(r: MigrationReport) -> dict[str, Any]:
    d = r.to_dict()
    return {k: d[k] for k in ("keys", "order_changes", "examples", "anomalies")}


@pytest.fixture
def worker_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker processes can import ``span_openers``."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(HERE), *filter(None, [os.environ.get("PYTHONPATH")])]))


# -- split points and the plan ---------------------------------------------------------------


def test_splits_keep_every_stride_th_batch_and_stay_bounded() -> None:
    s = Splits()
    for i in range(1, 3 * MAX_SPLITS + 1):
        s.add(i.to_bytes(4, "big"))
        assert len(s.keys) <= MAX_SPLITS
        assert all(int.from_bytes(k, "big") % s.stride == 0 for k in s.keys)
    assert s.stride == 4
    assert s.batches == 3 * MAX_SPLITS
    assert s.keys == [i.to_bytes(4, "big") for i in range(4, 3 * MAX_SPLITS + 1, 4)]
    assert Splits.from_dict(s.to_dict()) == s
    assert Splits.from_dict(None) == Splits()


def test_plan_cuts_both_key_spaces_at_the_same_places() -> None:
    t = fdb_to_skv()
    report = MigrationReport("fdb-tuple", "skv", SCHEMA_TEXT, "test")
    old = sorted(FDB.encode(v) for v in values(200))
    splits = old[9::10]
    plan = plan_spans(t, report, splits, "", processes=2)
    assert len(plan) == 2 * spans.SPANS_PER_PROCESS
    assert [s.index for s in plan] == list(range(len(plan)))
    assert plan[0].old[0] is None
    assert plan[-1].old[1] is None
    for a, b in itertools.pairwise(plan):
        assert a.old[1] is not None
        assert a.old[1] == b.old[0]
        assert a.new[1] == b.new[0]
        assert a.new[1] == t.transcode(a.old[1])
    # one span: one process, no split points, or an old order the new one does not keep
    whole = [Span(0, "", (None, None), (None, None))]
    assert plan_spans(t, report, splits, "", processes=1) == whole
    assert plan_spans(t, report, [], "", processes=4) == whole
    report.order_changes = 1
    assert plan_spans(t, report, splits, "", processes=2) == whole


def test_plan_is_one_span_where_the_new_keys_of_the_split_points_do_not_rise() -> None:
    t = Transcoder("fdb-tuple", NegativesFirstBroken(), SCHEMA_TEXT)  # negatives after
    report = MigrationReport("fdb-tuple", "toy-negatives", SCHEMA_TEXT, "test")
    splits = [FDB.encode(("a", n)) for n in (-2, 1, 3)]
    assert len(plan_spans(t, report, splits, "", processes=2)) == 1
    rising = [FDB.encode(("a", n)) for n in (1, 2, 3)]
    assert len(plan_spans(t, report, rising, "", processes=2)) == 4


# -- the stores, with and without a worker ---------------------------------------------------


def make_sqlite(path: Path) -> None:
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE kv (k BLOB PRIMARY KEY, v TEXT, b BLOB)")
        db.executemany("INSERT INTO kv VALUES (?, ?, ?)",
                       [(FDB.encode(v), f"row {i}", None if i % 7 else b"\x00\xff")
                        for i, v in enumerate(values())])
        db.commit()


def read_sqlite(path: Path) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(path)) as db:
        return db.execute("SELECT * FROM kv ORDER BY k").fetchall()


def make_lmdb(path: Path) -> None:
    env = lmdb.open(str(path), map_size=1 << 26)
    with env.begin(write=True) as txn:
        txn.cursor().putmulti((FDB.encode(v), b"row %d" % i) for i, v in enumerate(values()))
    env.close()


def read_lmdb(path: Path) -> list[tuple[bytes, bytes]]:
    env = lmdb.open(str(path), readonly=True, lock=False)
    try:
        with env.begin() as txn:
            return list(txn.cursor())
    finally:
        env.close()


def make_rocksdb(path: Path) -> None:
    rocksdict = pytest.importorskip("rocksdict")
    options = rocksdict.Options(raw_mode=True)
    options.create_missing_column_families(True)
    db = rocksdict.Rdict(str(path), options,
                         column_families={"meta": rocksdict.Options(raw_mode=True)})
    meta = db.get_column_family("meta")
    for i, v in enumerate(values()):
        db[FDB.encode(v)] = b"row %d" % i
        if i % 3 == 0:
            meta[FDB.encode(v)] = b"meta %d" % i
    db.close()


def read_rocksdb(path: Path) -> list[tuple[str, bytes, bytes]]:
    rocksdict = pytest.importorskip("rocksdict")
    db = rocksdict.Rdict(str(path), rocksdict.Options(raw_mode=True),
                         column_families={"meta": rocksdict.Options(raw_mode=True)},
                         access_type=rocksdict.AccessType.read_only(False))
    try:
        return [(name, k, v) for name, family in [("default", db),
                                                  ("meta", db.get_column_family("meta"))]
                for k, v in family.items()]
    finally:
        db.close()


STORES = {
    "sqlite": (make_sqlite, read_sqlite,
               lambda p, t, **kw: migrate_sqlite(p, "kv", "k", t, **kw)),
    "lmdb": (make_lmdb, read_lmdb, migrate_lmdb),
    "rocksdb": (make_rocksdb, read_rocksdb, migrate_rocksdb),
}


def migrate_watched(store: str, path: Path, workers: int) -> MigrationReport:
    """Migrate *path*, checking that the verification's progress rises to its total."""
    migrate: Any = STORES[store][2]
    seen: list[tuple[str, int]] = []  # (phase, keys done)
    phases: dict[str, int] = {}

    def phase(name: str, total: int) -> None:
        phases[name] = total
        seen.append((name, 0))

    report: MigrationReport = migrate(
        path, fdb_to_skv(), batch_size=97, workers=workers,
        progress=lambda n: seen.append((seen[-1][0], n)), phase=phase)
    verifying = [n for name, n in seen if name == "verifying"]
    assert verifying == sorted(verifying)
    assert verifying[-1] == phases["verifying"]
    return report


@pytest.mark.parametrize("store", sorted(STORES))
def test_a_worker_changes_nothing_but_who_walks(tmp_path: Path, store: str) -> None:
    make, read, _ = STORES[store]
    results = {}
    for workers in (0, 1):
        path = tmp_path / f"{store}{workers}"
        make(path)
        report = migrate_watched(store, path, workers)
        results[workers] = (report_of(report), read(path))
    assert results[1] == results[0]
    assert results[0][0]["keys"] == {"rocksdb": ROWS + ROWS // 3}.get(store, ROWS)


def test_a_codec_only_this_process_has_is_verified_here(tmp_path: Path) -> None:
    """A worker cannot rebuild a codec registered at run time: this process walks it all."""
    toy = ToyCodec()
    path = tmp_path / "env"
    env = lmdb.open(str(path), map_size=1 << 26)
    toy_bound = toy.bind(SCHEMA)
    with env.begin(write=True) as txn:
        txn.cursor().putmulti((toy_bound.encode(v), b"%d" % i) for i, v in enumerate(values()))
    env.close()
    report = migrate_lmdb(path, Transcoder(toy, "skv", SCHEMA_TEXT), batch_size=97, workers=1)
    assert report.keys == ROWS


def test_workers_must_be_a_count(tmp_path: Path) -> None:
    path = tmp_path / "env"
    make_lmdb(path)
    for bad in (-1, 1.5, "2", True):
        with pytest.raises(MigrationError, match="workers"):
            migrate_lmdb(path, fdb_to_skv(), workers=bad)  # type: ignore[arg-type]
    assert not (tmp_path / "env.lexcodecs-new").exists()


# -- the walk, by this process and a worker ---------------------------------------------------


@pytest.fixture
def migrated(tmp_path: Path) -> tuple[Path, Path, list[bytes]]:
    """An old and a new LMDB environment (a finished migration that kept the old one), and
    split points every 100 old keys."""
    path = tmp_path / "env"
    make_lmdb(path)
    migrate_lmdb(path, fdb_to_skv(), keep_old=True, workers=0)
    old = tmp_path / "env.lexcodecs-old"
    return old, path, [k for k, _ in read_lmdb(old)][99::100]


def walk_all(old: Path, new: Path, splits: list[bytes], opener: Any,
             first_wait: Path | None = None) -> tuple[list[Any], list[int]]:
    """Walk every span with one worker of *opener*; this process waits for *first_wait* to
    exist before its first span (so that the worker surely takes part)."""
    t = fdb_to_skv()
    report = MigrationReport("fdb-tuple", "skv", SCHEMA_TEXT, "test")
    plan = plan_spans(t, report, splits, "", processes=2)
    assert len(plan) == 2 * spans.SPANS_PER_PROCESS
    store = _LmdbSpans.open(str(old), str(new))
    steps: list[int] = []
    real = spans.walk_span

    def walk(*args: Any, **kwargs: Any) -> Any:
        while first_wait is not None and not first_wait.exists():  # no clock: it will start
            time.sleep(0.01)
        return real(*args, **kwargs)

    try:
        spans.walk_span = walk
        results = run_spans(store, opener, t, plan, 64, 1, steps.append)
    finally:
        spans.walk_span = real
        store.close()
    assert spans.join_spans(t, report, results) == ROWS
    return results, steps


def test_a_worker_walks_spans_from_the_last(migrated: tuple[Path, Path, list[bytes]],
                                            tmp_path: Path, worker_path: None) -> None:
    import span_openers

    old, new, splits = migrated
    mark = tmp_path / "worker-opened"
    results, steps = walk_all(old, new, splits,
                              partial(span_openers.marked, str(mark), str(old), str(new)), mark)
    assert mark.exists()
    assert sum(r.entries for r in results) == ROWS
    assert steps == sorted(steps)
    assert steps[-1] == ROWS  # a step is a key verified (issue 32)
    assert [r.index for r in results] == list(range(len(results)))


@pytest.mark.parametrize("opener", ["stops", "cannot_read"])
def test_a_worker_that_cannot_take_part_hands_its_span_back(
        migrated: tuple[Path, Path, list[bytes]], worker_path: None, opener: str) -> None:
    import span_openers

    old, new, splits = migrated
    results, steps = walk_all(old, new, splits,
                              partial(getattr(span_openers, opener), str(old), str(new)))
    assert sum(r.entries for r in results) == ROWS
    assert steps == sorted(steps)
    assert steps[-1] == ROWS  # a step is a key verified (issue 32)


def test_a_wrong_entry_in_a_workers_span_stops_with_its_error(
        migrated: tuple[Path, Path, list[bytes]], tmp_path: Path, worker_path: None) -> None:
    import span_openers

    old, new, splits = migrated
    env = lmdb.open(str(new), map_size=1 << 26)
    with env.begin(write=True) as txn:  # the last entry: the worker's first span
        last = txn.cursor()
        assert last.last()
        txn.put(last.key(), b"changed")
    env.close()
    mark = tmp_path / "worker-opened"
    with pytest.raises(MigrationError, match="is not in the new environment as it is"):
        walk_all(old, new, splits,
                 partial(span_openers.marked, str(mark), str(old), str(new)), mark)


def test_one_span_is_the_whole_walk(migrated: tuple[Path, Path, list[bytes]]) -> None:
    old, new, _ = migrated
    store = _LmdbSpans.open(str(old), str(new))
    try:
        result = walk_span(store, fdb_to_skv(), Span(0, "", (None, None), (None, None)), 50)
    finally:
        store.close()
    skv = get_codec("skv").bind(SCHEMA)
    new_keys = [k for k, _ in read_lmdb(new)]
    assert result.entries == ROWS
    assert (result.first, result.last) == (skv.decode(new_keys[0]), skv.decode(new_keys[-1]))
    assert result.anomalies == {}


def test_more_new_entries_than_old_in_a_span_are_refused(
        migrated: tuple[Path, Path, list[bytes]]) -> None:
    old, new, _ = migrated
    env = lmdb.open(str(new), map_size=1 << 26)
    with env.begin(write=True) as txn:
        txn.put(b"\xff\xff", b"extra")  # after every new key
    env.close()
    store = _LmdbSpans.open(str(old), str(new))
    try:
        with pytest.raises(MigrationError, match="holds more entries than the old one"):
            walk_span(store, fdb_to_skv(), Span(0, "", (None, None), (None, None)), 50)
    finally:
        store.close()
    shutil.rmtree(new)


def test_no_interpreter_to_start_means_no_worker(migrated: tuple[Path, Path, list[bytes]],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no interpreter can be started (an embedded Python), this process walks alone."""
    old, new, splits = migrated
    monkeypatch.setattr(sys, "executable", str(old / "no-python-here"))
    results, steps = walk_all(old, new, splits, partial(_LmdbSpans.open, str(old), str(new)))
    assert sum(r.entries for r in results) == ROWS
    assert steps == sorted(steps)
    assert steps[-1] == ROWS  # a step is a key verified (issue 32)


# -- spans walked while the copy goes on (LMDB, RocksDB) -------------------------------------


def finish_results(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What each EarlySpans.finish of this process returns, as it returns it."""
    seen: list[Any] = []
    real = spans.EarlySpans.finish

    def finish(self: Any, *args: Any) -> Any:
        seen.append(real(self, *args))
        return seen[-1]

    monkeypatch.setattr(spans.EarlySpans, "finish", finish)
    return seen


@pytest.mark.parametrize("store", ["lmdb", "rocksdb"])
def test_the_copy_hands_each_committed_batch_to_a_worker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store: str) -> None:
    seen = finish_results(monkeypatch)
    make, read, _ = STORES[store]
    path = tmp_path / "store"
    make(path)
    before = read(path)
    report = migrate_watched(store, path, 1)
    assert report.order_changes == 0
    # a span a batch, and the one after them, for each part (RocksDB: its column families)
    parts = {"lmdb": {"": ROWS}, "rocksdb": {"default": ROWS, "meta": -(-ROWS // 3)}}[store]
    assert len(seen) == 1
    assert [r.part for r in seen[0]] == [
        part for part, n in parts.items() for _ in range(-(-n // 97) + 1)]
    for part, n in parts.items():
        assert sum(r.entries for r in seen[0] if r.part == part) == n
    skv = get_codec("skv").bind(SCHEMA)
    assert [(*row[:-2], skv.decode(row[-2]), row[-1]) for row in read(path)] == [
        (*row[:-2], FDB.decode(row[-2]), row[-1]) for row in before]


@pytest.mark.parametrize("store", ["lmdb", "rocksdb", "rocksdb-chunked"])
def test_a_worker_keeping_pace_reads_each_batch_as_soon_as_it_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store: str) -> None:
    """The copy waits after each batch until the worker has walked its spans: the worker
    reads the new store while it grows (LMDB: a fresh read transaction; RocksDB: a secondary
    instance catching up), and every span but the ones after the last batches is its own.
    RocksDB reads chunks and cuts a batch into spans of :data:`_EARLY_SPAN` entries:
    "chunked" makes both small, so that a 97-entry batch is read as six chunks of 16 and one
    of 1, and handed over as three spans (32, 32 and 33 entries)."""
    if store == "rocksdb-chunked":
        import lexcodecs.migrate.rocksdb_store as rocksdb_store
        monkeypatch.setattr(rocksdb_store, "_READ_CHUNK", 16)
        monkeypatch.setattr(rocksdb_store, "_EARLY_SPAN", 32)
        assert list(itertools.islice(rocksdb_store._chunk_sizes(97), 8)) == [16] * 6 + [1, 16]
        assert list(itertools.islice(rocksdb_store._chunk_sizes(32), 3)) == [16] * 3
        store = "rocksdb"
        # default: 30 batches and one of 90 entries, three spans each; meta: 10, and 30
        # entries in one span; and the span after each family's last batch
        spans_expected = (31 * 3 + 1) + (10 * 3 + 1 + 1)
    else:
        # 31 batches of 3,000 entries and the span after them (RocksDB: and 11 of "meta"'s
        # 1,000)
        spans_expected = {"lmdb": 32, "rocksdb": 32 + 12}[store]
    seen = finish_results(monkeypatch)
    real = spans.EarlySpans.copied

    def copied(self: Any, *args: Any) -> None:
        real(self, *args)
        while self.crew.members and (self.todo or self.crew.busy()):
            self.crew.collect(self.todo, self.results, None, block=True, errors=self.errors)
        assert not self.errors
        assert sorted(self.results) == [span.index for span in self.spans]

    monkeypatch.setattr(spans.EarlySpans, "copied", copied)
    make, read, _ = STORES[store]
    path = tmp_path / "store"
    make(path)
    before = read(path)
    migrate_watched(store, path, 1)
    assert len(seen) == 1
    assert len(seen[0]) == spans_expected
    assert sum(r.entries for r in seen[0]) == {"lmdb": ROWS, "rocksdb": ROWS + ROWS // 3}[store]
    skv = get_codec("skv").bind(SCHEMA)
    assert [(*row[:-2], skv.decode(row[-2]), row[-1]) for row in read(path)] == [
        (*row[:-2], FDB.decode(row[-2]), row[-1]) for row in before]


def put_entries(store: str, path: Path, entries: list[tuple[bytes, bytes]]) -> None:
    """A new LMDB environment or RocksDB database holding *entries* (RocksDB: in its default
    column family, and an empty one)."""
    if store == "lmdb":
        env = lmdb.open(str(path), map_size=1 << 26)
        with env.begin(write=True) as txn:
            txn.cursor().putmulti(entries)
        env.close()
        return
    rocksdict = pytest.importorskip("rocksdict")
    options = rocksdict.Options(raw_mode=True)
    options.create_missing_column_families(True)  # "meta", left empty
    db = rocksdict.Rdict(str(path), options,
                         column_families={"meta": rocksdict.Options(raw_mode=True)})
    for key, value in entries:
        db[key] = value
    db.close()


@pytest.mark.parametrize("store", ["lmdb", "rocksdb"])
def test_spans_walked_during_a_copy_whose_order_changes_are_dropped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store: str) -> None:
    """lexkey stores "a\\x00b" below "a": the new keys depart from the old order part way
    through, so the spans handed out before are not final; the whole store is walked.
    (RocksDB: the batches whose new keys fall are written as a ``WriteBatch``, the others as
    table files.)"""
    seen = finish_results(monkeypatch)
    lexkey = get_codec("lexkey").bind(SCHEMA)
    rows = [(t, n) for n in range(600) for t in ("a", "a\x00b", "b", "b\x00", "c")]
    _, read, migrate = STORES[store]
    reports = {}
    for workers in (0, 1):
        path = tmp_path / f"{store}{workers}"
        put_entries(store, path, [(lexkey.encode(v), b"%d" % i) for i, v in enumerate(rows)])
        report = migrate(path, Transcoder("lexkey", "skv", SCHEMA_TEXT), batch_size=97,
                         workers=workers)
        reports[workers] = report_of(report)
        skv = get_codec("skv").bind(SCHEMA)
        assert sorted(skv.decode(row[-2]) for row in read(path)) == sorted(rows)
        assert sorted(row[-1] for row in read(path)) == sorted(b"%d" % i
                                                               for i in range(len(rows)))
    assert reports[1] == reports[0]
    assert reports[0]["order_changes"] > 0
    assert seen == [None]


def wrong_third_batch(store: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first value of the copy's third batch changed on its way to the store (RocksDB: a
    batch of 97 entries is one chunk read, written as a table file)."""
    import lexcodecs.migrate.lmdb_store as lmdb_store
    import lexcodecs.migrate.rocksdb_store as rocksdb_store

    calls = [0]

    def wrong(values: list[bytes]) -> list[bytes]:
        calls[0] += 1
        return [b"wrong", *values[1:]] if calls[0] == 3 else values

    if store == "lmdb":
        put = lmdb_store._lmdb_put_batch
        monkeypatch.setattr(lmdb_store, "_lmdb_put_batch",
                            lambda target, keys, values: put(target, keys, wrong(values)))
    else:
        add = rocksdb_store._Batch.add
        monkeypatch.setattr(rocksdb_store._Batch, "add",
                            lambda self, keys, values, **how: add(self, keys, wrong(values),
                                                                  **how))


@pytest.mark.parametrize("store", ["lmdb", "rocksdb"])
@pytest.mark.parametrize("workers", [0, 1])
def test_a_wrong_write_is_found_whoever_walks_it(tmp_path: Path, workers: int, store: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch written wrong (one value changed on its way to the store) stops the
    migration before the swap, whether a worker walked its span during the copy or this
    process walks it after."""
    wrong_third_batch(store, monkeypatch)
    make, read, migrate = STORES[store]
    path = tmp_path / "store"
    make(path)
    before = read(path)
    with pytest.raises(MigrationError, match=r"is not in the new (environment|database)"):
        migrate(path, fdb_to_skv(), batch_size=97, workers=workers)
    assert read(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]


def test_a_worker_reads_on_while_the_copy_grows_the_map(tmp_path: Path) -> None:
    """The copy doubles the new environment's map many times (a 64 KiB start) while a worker
    reads it: whatever the worker then walks or hands back, every entry arrives."""
    path = tmp_path / "env"
    make_lmdb(path)
    before = read_lmdb(path)
    report = migrate_lmdb(path, fdb_to_skv(), batch_size=97, workers=1, map_size=1 << 16)
    assert report.keys == ROWS
    skv = get_codec("skv").bind(SCHEMA)
    assert [(skv.decode(k), v) for k, v in read_lmdb(path)] == [
        (FDB.decode(k), v) for k, v in before]
