"""Kill a real ``lexcodecs migrate`` process mid-run (SIGKILL), run it again, and check that
nothing was lost and nothing duplicated; the same with Ctrl-C (SIGINT).

The command runs in a child process that is the CLI with one function wrapped (:data:`CHILD`):
at its chosen call, the wrapper sends the signal to its own process, so the signal lands at
an exact point -- inside a batch's write transaction, between a batch's commit and the state
that records it, in the middle of the verification -- and never races the migration (a
watcher polling from outside saw a fast copy end first). SIGKILL runs no clean-up. The store
is then read from outside: the original must be whole, the copy as far as the state says.
Then the same command is run again to completion. The expected rows are built before the
first run, from the values each old key was made from, so the check never relies on the code
under test.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from lexcodecs import KeySchema, get_codec
from lexcodecs.migrate import NEW_SUFFIX, OLD_SUFFIX, STATE_TABLE
from lexcodecs.testing import natural_key

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")

SCHEMA_TEXT = "tenant:string, n:int64"
SCHEMA = KeySchema.parse(SCHEMA_TEXT)
FDB = get_codec("fdb-tuple").bind(SCHEMA)
SKV = get_codec("skv").bind(SCHEMA)
POLICY = get_codec("skv").capabilities.float_policy
MIGRATE = [sys.executable, "-m", "lexcodecs", "migrate", "--from", "fdb-tuple", "--to", "skv",
           "-s", SCHEMA_TEXT, "--no-progress"]

SQLITE_ROWS = 6_000
SQLITE_BATCH = 200
LMDB_ROWS = 6_000
LMDB_BATCH = 100

#: the child: the real command, with the function at the signal's point wrapped
CHILD = """
import os, signal, sys
import lexcodecs.migrate.{store}_store as m
import lexcodecs.migrate.directory as d
import lexcodecs.migrate.spans as s
import lexcodecs.migrate.verify as v
signal.signal(signal.SIGINT, signal.default_int_handler)  # even where the runner ignores it
sig, name, at = getattr(signal, sys.argv[1]), sys.argv[2], int(sys.argv[3])
owner = {"see_batch": v._Lockstep, "to_dict": m.MigrationReport,
         "finish": s.EarlySpans, "write_state": d}.get(name, m)
real, calls = getattr(owner, name), [0]
def wrapped(*args, **kwargs):
    calls[0] += 1
    if calls[0] == at:
        os.kill(os.getpid(), sig)
    return real(*args, **kwargs)
setattr(owner, name, wrapped)
from lexcodecs.cli import main
sys.exit(main(sys.argv[4:]))
"""

#: where to kill, for each store: (the function, where among its calls, how many calls come
#: before the first batch's; or None and the number of the call). SQLite:
#: ``MigrationReport.to_dict`` is called once when the migration is recorded, then inside
#: each batch's write transaction, before its commit.
#: LMDB: ``_lmdb_put_batch`` inside a batch (transcoded, not yet written), ``write_state``
#: between a batch's commit and the state that records it (its first call records the
#: migration, before the new environment exists). Both: ``_Lockstep.see_batch`` in
#: the middle of the verification; ``spans``: the same with a worker process walking spans of
#: it (``--workers 1``), in this process's first span (its second chunk: whatever the worker
#: takes, this process walks the first span itself); ``late-spans``:
#: late in an LMDB copy whose committed batches a worker is walking meanwhile. An LMDB
#: verification with a worker starts with ``EarlySpans.finish``, which the signal hits (share
#: None: its one call), the worker alive: how much of the walk the worker left to this process
#: depends on how fast it kept up with the copy, so a count of ``see_batch`` calls could be
#: never reached (a CI run finished the migration that way).
KILL_POINTS: dict[str, dict[str, tuple[str, float | None, int]]] = {
    "sqlite": {"early": ("to_dict", 0.0, 1), "late": ("to_dict", 0.75, 1),
               "verify": ("see_batch", 0.5, 0), "spans": ("see_batch", 0.0, 0)},
    "lmdb": {"early": ("_lmdb_put_batch", 0.0, 0), "late": ("_lmdb_put_batch", 0.75, 0),
             "commit": ("write_state", 0.5, 1), "verify": ("see_batch", 0.5, 0),
             "spans": ("finish", None, 1), "late-spans": ("_lmdb_put_batch", 0.75, 0)},
}
#: the points in the verification
VERIFYING = {"verify", "spans"}
#: the arguments a point adds: a worker process (for LMDB, walking spans during the copy too)
WORKER_ARGS = {"spans": ["--workers", "1"], "late-spans": ["--workers", "1"]}


def run_until_signal(store: str, signal_name: str, point: str, rows: int, batch: int,
                     args: list[str]) -> subprocess.CompletedProcess[str]:
    """Run the migrate *args* in a child that sends itself *signal_name* at *point*."""
    name, share, before = KILL_POINTS[store][point]
    # never the first batch: some is copied
    at = before if share is None else before + 2 + int(share * (rows // batch - 2))
    return subprocess.run([sys.executable, "-c", CHILD.replace("{store}", store), signal_name, name,
                           str(at), *MIGRATE[3:], *args], capture_output=True, text=True)


def row_values(n: int) -> list[tuple[str, int]]:
    """*n* distinct keys; the tenants include "" and a NUL, the numbers both signs."""
    tenants = ["acme", "", "b\x00c", "beta", "é", "zz"]
    return [(tenants[i % len(tenants)], (i * 7919) % (4 * n) - 2 * n) for i in range(n)]


def other(i: int) -> tuple[str, bytes | None]:
    return f"value {i}", None if i % 9 == 0 else bytes([i % 256, 0, 255])


def assert_migrated_rows(rows: list[tuple[Any, ...]],
                         expected: dict[str, tuple[tuple[str, int], Any]]) -> None:
    """*rows* (key, text, blob) in store order hold exactly *expected* (text -> (values,
    blob)) under skv keys, each key once, in the natural order."""
    assert len(rows) == len(expected)
    assert len({row[0] for row in rows}) == len(rows), "a key is duplicated"
    decoded = [SKV.decode(row[0]) for row in rows]
    for values, (key, text, blob) in zip(decoded, rows):
        assert (values, blob) == expected[text], f"row {text!r}: key {key.hex(' ')}"
    natural = [natural_key(v, SCHEMA, POLICY) for v in decoded]
    assert all(a < b for a, b in pairwise(natural)), "the new keys are not in natural order"


# -- SQLite -----------------------------------------------------------------------------------


def make_sqlite(path: Path) -> dict[str, tuple[tuple[str, int], Any]]:
    values = row_values(SQLITE_ROWS)
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE kv (k BLOB PRIMARY KEY, v TEXT NOT NULL, b BLOB)")
        db.executemany("INSERT INTO kv VALUES (?, ?, ?)",
                       [(FDB.encode(v), *other(i)) for i, v in enumerate(values)])
        db.commit()
    return {other(i)[0]: (v, other(i)[1]) for i, v in enumerate(values)}


def sqlite_state(path: Path) -> tuple[str, int]:
    """(phase, rows copied) of the migration, read from another, read-only connection."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)) as db:
        row = db.execute(f"SELECT phase, copied FROM {STATE_TABLE} WHERE source_table = 'kv'"
                         ).fetchone()
    return ("", 0) if row is None else (str(row[0]), int(row[1] or 0))


@pytest.mark.parametrize("point", ["early", "late", "verify", "spans"])
def test_sqlite_killed_and_rerun(tmp_path: Path, point: str) -> None:
    path = tmp_path / "kv.db"
    expected = make_sqlite(path)
    args = ["--sqlite", str(path), "--table", "kv", "--key-column", "k",
            "--batch-size", str(SQLITE_BATCH), *WORKER_ARGS.get(point, [])]
    killed = run_until_signal("sqlite", "SIGKILL", point, SQLITE_ROWS, SQLITE_BATCH, args)
    assert killed.returncode == -signal.SIGKILL, killed.stderr

    # killed before the swap: the original is whole, the new table holds what was recorded
    with closing(sqlite3.connect(path, timeout=10)) as db:
        assert db.execute("SELECT COUNT(*) FROM kv").fetchone()[0] == SQLITE_ROWS
        phase, copied = db.execute(f"SELECT phase, copied FROM {STATE_TABLE}").fetchone()
        new_rows = db.execute(f"SELECT COUNT(*) FROM kv{NEW_SUFFIX}").fetchone()[0]
    assert new_rows == copied
    if point in VERIFYING:
        assert phase == "verify"
        assert copied == SQLITE_ROWS
    else:
        assert phase == "copy"
        assert 0 < copied < SQLITE_ROWS

    result = subprocess.run([*MIGRATE, *args], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "resumed" in result.stdout
    assert f"migrated {SQLITE_ROWS:,} keys" in result.stdout

    with closing(sqlite3.connect(path)) as db:
        rows = db.execute("SELECT k, v, b FROM kv ORDER BY k").fetchall()
        names = sorted(r[0] for r in db.execute("SELECT name FROM sqlite_master"))
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert_migrated_rows(rows, expected)
    assert names == ["kv", "sqlite_autoindex_kv_1"]
    assert NEW_SUFFIX not in "".join(names)
    assert OLD_SUFFIX not in "".join(names)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kv.db"]


# -- LMDB -------------------------------------------------------------------------------------


def make_lmdb(path: Path) -> dict[str, tuple[tuple[str, int], Any]]:
    lmdb = pytest.importorskip("lmdb")
    values = row_values(LMDB_ROWS)
    env = lmdb.open(str(path), map_size=1 << 28)
    try:
        with env.begin(write=True) as txn:
            for i, v in enumerate(values):
                assert txn.put(FDB.encode(v), _lmdb_value(i), overwrite=False)
    finally:
        env.close()
    return {other(i)[0]: (v, other(i)[1]) for i, v in enumerate(values)}


def _lmdb_value(i: int) -> bytes:
    text, blob = other(i)
    return json.dumps([text, None if blob is None else blob.hex()]).encode()


def lmdb_state(state_path: Path) -> tuple[str, int]:
    """(phase, keys copied) from the state file (replaced atomically, so read whole)."""
    state = json.loads(state_path.read_text(encoding="utf-8"))
    return str(state["phase"]), int(state["report"]["keys"])


def read_lmdb(path: Path) -> list[tuple[Any, ...]]:
    lmdb = pytest.importorskip("lmdb")
    env = lmdb.open(str(path), readonly=True, lock=False)
    try:
        with env.begin() as txn:
            out = []
            for key, value in txn.cursor():
                text, blob = json.loads(value)
                out.append((key, text, None if blob is None else bytes.fromhex(blob)))
            return out
    finally:
        env.close()


@pytest.mark.parametrize("point", ["early", "late", "commit", "verify", "spans", "late-spans"])
def test_lmdb_killed_and_rerun(tmp_path: Path, point: str) -> None:
    path = tmp_path / "env"
    state_path = tmp_path / "env.lexcodecs-state"
    expected = make_lmdb(path)
    args = ["--lmdb", str(path), "--batch-size", str(LMDB_BATCH), *WORKER_ARGS.get(point, [])]
    killed = run_until_signal("lmdb", "SIGKILL", point, LMDB_ROWS, LMDB_BATCH, args)
    assert killed.returncode == -signal.SIGKILL, killed.stderr

    assert len(read_lmdb(path)) == LMDB_ROWS  # the original is whole
    assert (tmp_path / "env.lexcodecs-new").is_dir()
    phase, copied = lmdb_state(state_path)
    if point in VERIFYING:
        assert phase == "copied"
        assert copied == LMDB_ROWS
    else:
        assert phase == "copy"
        assert 0 < copied < LMDB_ROWS

    result = subprocess.run([*MIGRATE, *args], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "resumed" in result.stdout
    assert f"migrated {LMDB_ROWS:,} keys" in result.stdout

    assert_migrated_rows(read_lmdb(path), expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env"]


# -- Ctrl-C -----------------------------------------------------------------------------------
# The same, with SIGINT (what Ctrl-C sends) instead of SIGKILL: the command must stop in one
# line that says nothing is lost and how to go on, exit 130, and the same command must then
# finish with every key.


def assert_one_line_resume_message(err: str) -> None:
    assert "Traceback" not in err, err
    assert err.count("\n") == 1, err
    assert err.startswith("lexcodecs: stopped (Ctrl-C): nothing is lost"), err
    assert "run the same command again to resume" in err
    assert "--restart" in err


@pytest.mark.parametrize("point", ["early", "late"])
def test_sqlite_ctrl_c_then_the_same_command_finishes(tmp_path: Path, point: str) -> None:
    path = tmp_path / "kv.db"
    expected = make_sqlite(path)
    args = ["--sqlite", str(path), "--table", "kv", "--key-column", "k",
            "--batch-size", str(SQLITE_BATCH)]
    stopped = run_until_signal("sqlite", "SIGINT", point, SQLITE_ROWS, SQLITE_BATCH, args)
    assert stopped.returncode == 130, stopped.stderr
    assert_one_line_resume_message(stopped.stderr)
    with closing(sqlite3.connect(path, timeout=10)) as db:  # stopped mid-copy, original whole
        assert db.execute("SELECT COUNT(*) FROM kv").fetchone()[0] == SQLITE_ROWS
        copied = db.execute(f"SELECT copied FROM {STATE_TABLE}").fetchone()[0]
        assert db.execute(f"SELECT COUNT(*) FROM kv{NEW_SUFFIX}").fetchone()[0] == copied
    assert 0 < copied < SQLITE_ROWS

    result = subprocess.run([*MIGRATE, *args], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "resumed" in result.stdout
    with closing(sqlite3.connect(path)) as db:
        rows = db.execute("SELECT k, v, b FROM kv ORDER BY k").fetchall()
    assert_migrated_rows(rows, expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kv.db"]


@pytest.mark.parametrize("point", ["early", "commit"])
def test_lmdb_ctrl_c_then_the_same_command_finishes(tmp_path: Path, point: str) -> None:
    path = tmp_path / "env"
    state_path = tmp_path / "env.lexcodecs-state"
    expected = make_lmdb(path)
    args = ["--lmdb", str(path), "--batch-size", str(LMDB_BATCH)]
    stopped = run_until_signal("lmdb", "SIGINT", point, LMDB_ROWS, LMDB_BATCH, args)
    assert stopped.returncode == 130, stopped.stderr
    assert_one_line_resume_message(stopped.stderr)
    assert len(read_lmdb(path)) == LMDB_ROWS  # the original is whole
    phase, copied = lmdb_state(state_path)
    assert phase == "copy"
    assert 0 < copied < LMDB_ROWS

    result = subprocess.run([*MIGRATE, *args], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "resumed" in result.stdout
    assert_migrated_rows(read_lmdb(path), expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env"]


def test_ctrl_c_while_a_worker_verifies(tmp_path: Path) -> None:
    """Ctrl-C in the verification, with a worker process walking spans of it: the same one
    line, the worker stopped with it (the state says verify is still to do), and the same
    command then finishes."""
    path = tmp_path / "env"
    state_path = tmp_path / "env.lexcodecs-state"
    expected = make_lmdb(path)
    args = ["--lmdb", str(path), "--batch-size", str(LMDB_BATCH), "--workers", "1"]
    stopped = run_until_signal("lmdb", "SIGINT", "spans", LMDB_ROWS, LMDB_BATCH, args)
    assert stopped.returncode == 130, stopped.stderr
    assert_one_line_resume_message(stopped.stderr)
    assert lmdb_state(state_path) == ("copied", LMDB_ROWS)

    result = subprocess.run([*MIGRATE, *args], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "resumed" in result.stdout
    assert_migrated_rows(read_lmdb(path), expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env"]
