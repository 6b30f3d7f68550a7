"""RocksDB migrations on real databases (rocksdict): every column family, values unchanged,
killed with SIGKILL at every phase and run again with nothing lost, refusals that leave
nothing behind, and ``compare --store rocksdb`` sorting as SQLite does.

The kills are exact rather than timed: the child is the real ``lexcodecs migrate`` command,
with one function of the migration wrapped so that the process sends itself SIGKILL at the
chosen point (no clean-up runs, as with ``kill -9``): after the first batch is written and
before anything records it, after a batch is recorded early or late in the copy (late also
with a worker walking the batches written), midway through the verify scan, as the
verification with a worker starts, or between the two renames of the swap. The
expected entries are built before the first run, from the values each old key was made from.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import pytest

from lexcodecs import KeySchema, get_codec
from lexcodecs.compare.stores import order_rocksdb, order_sqlite
from lexcodecs.migrate import MigrationError, Transcoder, dry_run_rocksdb, migrate_rocksdb
from lexcodecs.testing import natural_key

rocksdict = pytest.importorskip("rocksdict")
pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")

SCHEMA_TEXT = "tenant:string, n:int64"
SCHEMA = KeySchema.parse(SCHEMA_TEXT)
FDB = get_codec("fdb-tuple").bind(SCHEMA)
SKV = get_codec("skv").bind(SCHEMA)
POLICY = get_codec("skv").capabilities.float_policy
ROWS = 2_000
BATCH = 50
FAMILIES = ("default", "meta")


def row_values(n: int) -> list[tuple[str, int]]:
    tenants = ["acme", "", "b\x00c", "beta", "é", "zz"]
    return [(tenants[i % len(tenants)], (i * 7919) % (4 * n) - 2 * n) for i in range(n)]


def make_db(path: Path, rows: int = ROWS) -> dict[str, dict[tuple[str, int], bytes]]:
    """A database with two column families; returns, per family, values -> stored value."""
    options = rocksdict.Options(raw_mode=True)
    options.create_missing_column_families(True)
    db = rocksdict.Rdict(str(path), options,
                         column_families={"meta": rocksdict.Options(raw_mode=True)})
    expected: dict[str, dict[tuple[str, int], bytes]] = {name: {} for name in FAMILIES}
    try:
        meta = db.get_column_family("meta")
        for i, v in enumerate(row_values(rows)):
            family, name = (meta, "meta") if i % 5 == 0 else (db, "default")
            value = b"" if i % 11 == 0 else f"value {i}".encode() + bytes([i % 256, 0])
            family[FDB.encode(v)] = value
            expected[name][v] = value
    finally:
        db.close()
    return expected


def read_db(path: Path) -> dict[str, list[tuple[bytes, bytes]]]:
    db = rocksdict.Rdict(str(path), rocksdict.Options(raw_mode=True),
                         column_families={"meta": rocksdict.Options(raw_mode=True)},
                         access_type=rocksdict.AccessType.read_only(False))
    try:
        return {name: list((db if name == "default" else db.get_column_family(name)).items())
                for name in FAMILIES}
    finally:
        db.close()


def assert_migrated(path: Path, expected: dict[str, dict[tuple[str, int], bytes]]) -> None:
    """Each family holds exactly its expected entries under skv keys, in natural order."""
    found = read_db(path)
    for name in FAMILIES:
        entries = found[name]
        decoded = [SKV.decode(k) for k, _ in entries]
        assert dict(zip(decoded, (v for _, v in entries))) == expected[name]
        assert len(entries) == len(expected[name])
        natural = [natural_key(v, SCHEMA, POLICY) for v in decoded]
        assert all(a < b for a, b in pairwise(natural)), f"{name}: not in natural order"


def test_a_state_file_that_cannot_be_written_is_a_refusal(tmp_path: Path) -> None:
    """As for LMDB (tests/test_migrate.py): a MigrationError naming the state file, the
    original untouched, nothing left but the blocking directory; then the migration runs."""
    path = tmp_path / "db"
    expected = make_db(path, 200)
    before = read_db(path)
    blocker = tmp_path / "db.lexcodecs-state.tmp"
    blocker.mkdir()
    with pytest.raises(MigrationError, match=r"^cannot write the migration's state file "
                                             r".*db\.lexcodecs-state .*untouched$"):
        migrate_rocksdb(path, Transcoder("fdb-tuple", "skv", SCHEMA))
    assert read_db(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db", "db.lexcodecs-state.tmp"]
    blocker.rmdir()
    migrate_rocksdb(path, Transcoder("fdb-tuple", "skv", SCHEMA))
    assert_migrated(path, expected)


def test_round_trip_with_column_families_and_keep_old(tmp_path: Path) -> None:
    path = tmp_path / "db"
    expected = make_db(path, 500)
    before = read_db(path)
    report = migrate_rocksdb(path, Transcoder("fdb-tuple", "skv", SCHEMA), batch_size=64,
                             keep_old=True)
    assert report.keys == 500
    assert not report.resumed
    assert_migrated(path, expected)
    assert read_db(tmp_path / "db.lexcodecs-old") == before  # the original, as it was
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db", "db.lexcodecs-old"]


# -- killed at every phase ---------------------------------------------------------------------

#: the child: the real command, with the point of its death wrapped in
_CHILD = """
import os, signal, sys
import lexcodecs.migrate.directory as d
import lexcodecs.migrate.rocksdb_store as m
import lexcodecs.migrate.spans as s
import lexcodecs.migrate.verify as v
point = sys.argv[1]
def die():
    os.kill(os.getpid(), signal.SIGKILL)
if point in ("early", "late", "commit", "late-spans"):
    # the first write records the migration, before the new database exists; then a write
    # after each batch
    write, after = d.write_state, {"early": 2, "late": 32, "commit": 21, "late-spans": 32}[point]
    def write_state(path, state, n=[0]):
        n[0] += 1
        if n[0] == after and point == "commit":
            die()  # the batch is written and synced, the state does not say so yet
        write(path, state)
        if n[0] == after:
            die()
    d.write_state = write_state
elif point == "first":  # the first batch written, nothing recorded of it
    commit = m._Batch.commit
    def commit_then_die(self):
        commit(self)
        die()
    m._Batch.commit = commit_then_die
elif point == "verify":
    see, seen = v._Lockstep.see_batch, [0]
    def see_then_die(self, *batch):
        seen[0] += 1
        if seen[0] == 14:
            die()
        see(self, *batch)
    v._Lockstep.see_batch = see_then_die
elif point == "spans":  # the verification starts, the worker walking spans since the copy's
    def finish_then_die(self, *args):  # first batch alive (how much it walked: its speed's)
        die()
    s.EarlySpans.finish = finish_then_die
else:  # between the two renames of the swap
    replace = os.replace
    def replace_then_die(a, b):
        replace(a, b)
        if str(b).endswith(".lexcodecs-old"):
            die()
    m.os.replace = replace_then_die
from lexcodecs.cli import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("point", ["first", "early", "late", "commit", "verify", "spans",
                                   "late-spans", "swap"])
def test_killed_and_rerun(tmp_path: Path, point: str) -> None:
    path = tmp_path / "db"
    expected = make_db(path)
    args = ["migrate", "--from", "fdb-tuple", "--to", "skv", "-s", SCHEMA_TEXT,
            "--no-progress", "--rocksdb", str(path), "--batch-size", str(BATCH),
            *(["--workers", "1"] if point.endswith("spans") else [])]
    killed = subprocess.run([sys.executable, "-c", _CHILD, point, *args],
                            capture_output=True, text=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    state = tmp_path / "db.lexcodecs-state"
    if point == "swap":  # the original moved aside, the verified copy not yet in place
        assert not path.exists()
        assert (tmp_path / "db.lexcodecs-new").is_dir()
    else:  # the original is whole and untouched
        assert {n: len(e) for n, e in read_db(path).items()} == {
            n: len(e) for n, e in expected.items()}
        phase = json.loads(state.read_text(encoding="utf-8"))["phase"]
        assert phase == ("copied" if point in ("verify", "spans") else "copy")

    result = subprocess.run([sys.executable, "-m", "lexcodecs", *args], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    assert "resumed" in result.stdout
    assert f"migrated {ROWS:,} keys" in result.stdout
    assert_migrated(path, expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db"]


# -- refusals ----------------------------------------------------------------------------------


def test_a_refusal_leaves_nothing_in_the_way(tmp_path: Path) -> None:
    path = tmp_path / "db"
    expected = make_db(path, 300)
    # uint64 cannot hold the negative numbers: refused while copying
    with pytest.raises(MigrationError, match="untouched"):
        migrate_rocksdb(path, Transcoder("fdb-tuple", "skv", "tenant:string, n:uint64"),
                        batch_size=16)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db"]
    assert {n: len(e) for n, e in read_db(path).items()} == {
        n: len(e) for n, e in expected.items()}
    migrate_rocksdb(path, Transcoder("fdb-tuple", "skv", SCHEMA), batch_size=16)
    assert_migrated(path, expected)


@pytest.mark.parametrize("batch", [3, 4])
def test_two_keys_with_one_new_key_are_refused(tmp_path: Path, batch: int) -> None:
    """sqlite4 writes -0.0 and 0.0 as one key. In batches of 3 both are in the third, which is
    then written as a ``WriteBatch`` (a table file cannot hold a key twice); in batches of 4
    they end the second and start the third, each a table file, the later holding the key
    again. Either way the verification refuses the key that cannot be told apart, naming it;
    nothing is left behind. (Not in the first batch, whose keys the copy checks itself.)"""
    path = tmp_path / "db"
    fdb = get_codec("fdb-tuple").bind("x:float64")
    options = rocksdict.Options(raw_mode=True)
    options.create_missing_column_families(True)
    db = rocksdict.Rdict(str(path), options,
                         column_families={"meta": rocksdict.Options(raw_mode=True)})
    for i, x in enumerate([-6.0, -5.0, -4.0, -3.0, -2.5, -1.0, -0.5, -0.0, 0.0, 1.0, 2.0]):
        db[fdb.encode((x,))] = b"%d" % i
    db.close()
    before = read_db(path)
    with pytest.raises(MigrationError, match=r"^key 21 7f ff .*cannot hold these values.*"
                                             r"untouched$"):
        migrate_rocksdb(path, Transcoder("fdb-tuple", "sqlite4", "x:float64"),
                        batch_size=batch)
    assert read_db(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db"]


def test_a_changed_new_database_is_refused_and_cleaned_up(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    import lexcodecs.migrate.directory as d
    path = tmp_path / "db"
    expected = make_db(path, 300)
    t = Transcoder("fdb-tuple", "skv", SCHEMA)
    write, calls = d.write_state, [0]

    def stop_after_two(state_path: Path, state: dict[str, object]) -> None:
        write(state_path, state)
        calls[0] += 1
        if calls[0] == 2:
            raise KeyboardInterrupt  # stopped mid-copy, as Ctrl-C would

    monkeypatch.setattr(d, "write_state", stop_after_two)
    with pytest.raises(KeyboardInterrupt):
        migrate_rocksdb(path, t, batch_size=40)
    monkeypatch.setattr(d, "write_state", write)
    new = rocksdict.Rdict(str(tmp_path / "db.lexcodecs-new"), rocksdict.Options(raw_mode=True),
                          column_families={"meta": rocksdict.Options(raw_mode=True)})
    first = next(new.keys())
    new[first] = b"not from the original"  # same count, a changed value
    new.close()
    with pytest.raises(MigrationError, match="run again with --restart"):
        migrate_rocksdb(path, t, batch_size=40)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db"]
    assert migrate_rocksdb(path, t, batch_size=40).keys == 300
    assert_migrated(path, expected)


def test_missing_path_is_one_line(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "lexcodecs", "migrate", "--from",
                             "fdb-tuple", "--to", "skv", "-s", SCHEMA_TEXT, "--rocksdb",
                             str(tmp_path / "nope")], capture_output=True, text=True)
    assert result.returncode == 2
    assert "no such RocksDB database" in result.stderr
    assert "Traceback" not in result.stderr


# -- compare --store rocksdb --------------------------------------------------------------------


def test_rocksdb_orders_as_sqlite() -> None:
    keys = [FDB.encode(v) for v in row_values(400)] + [b"", b"\x00", b"\x00", b"\xff" * 3]
    keys += keys[:50]  # equal keys keep their input order
    assert order_rocksdb(keys) == order_sqlite(keys)


# -- a dry run ---------------------------------------------------------------------------------


def _tree(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*"))
            if p.is_file()}


def test_dry_run_reads_every_family_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "db"
    make_db(path, 300)
    before = _tree(path)
    result = dry_run_rocksdb(path, Transcoder("fdb-tuple", "skv", SCHEMA), sample=None)
    assert result.total == result.keys == 300
    assert result.would_succeed
    assert "default (240)" in result.plan[0]
    assert "meta (60)" in result.plan[0]
    assert _tree(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db"]
    # uint64 cannot hold the negative numbers: the dry run finds the refusals
    refused = dry_run_rocksdb(path, Transcoder("fdb-tuple", "skv", "tenant:string, n:uint64"),
                              sample=50)
    assert not refused.would_succeed
    assert 0 < refused.refused <= refused.keys <= 60
    cli = subprocess.run([sys.executable, "-m", "lexcodecs", "migrate", "--from", "fdb-tuple",
                          "--to", "skv", "-s", SCHEMA_TEXT, "--rocksdb", str(path),
                          "--dry-run", "--json", "--no-progress"], capture_output=True,
                         text=True)
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)["would_succeed"] is True
    assert _tree(path) == before


def test_dry_run_progress_counts_on_across_column_families(tmp_path: Path) -> None:
    """The keys read go on rising from one column family to the next, up to the total."""
    path = tmp_path / "db"
    make_db(path, 3000)  # 2,400 keys in default, 600 in meta
    seen: list[int] = []
    phases: list[tuple[str, int]] = []
    dry_run_rocksdb(path, Transcoder("fdb-tuple", "skv", SCHEMA), progress=seen.append,
                    phase=lambda label, total: phases.append((label, total)))
    assert phases == [("reading", 3000)]
    assert seen == sorted(seen)
    assert seen[-1] == 3000
    assert 3000 in seen[:-1]  # counted on in meta, not started again at 0
