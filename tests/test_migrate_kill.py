"""Kill a real ``lexcodecs migrate`` process mid-run (SIGKILL), run it again, and check that
nothing was lost and nothing duplicated.

The store is watched from outside, read-only: for SQLite, another connection reads the
migration's state table (``copied``); for LMDB, the state file next to the environment. At the
chosen point the process is killed with SIGKILL (no clean-up runs), then the same command is
run again to completion. The expected rows are built before the first run, from the values
each old key was made from, so the check never relies on the code under test.

A run that ends before the kill point is a skip, not a failure; the sizes make it unlikely.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
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

SQLITE_ROWS = 60_000
SQLITE_BATCH = 200
LMDB_ROWS = 100_000
LMDB_BATCH = 100

#: where to kill: a share of the rows copied (0: as soon as any are), or "verify": once the
#: copy is recorded as complete, while the new store is being checked
KILL_POINTS: dict[str, float | str] = {"early": 0.0, "late": 0.75, "verify": "verify"}


def row_values(n: int) -> list[tuple[str, int]]:
    """*n* distinct keys; the tenants include "" and a NUL, the numbers both signs."""
    tenants = ["acme", "", "b\x00c", "beta", "é", "zz"]
    return [(tenants[i % len(tenants)], (i * 7919) % (4 * n) - 2 * n) for i in range(n)]


def other(i: int) -> tuple[str, bytes | None]:
    return f"value {i}", None if i % 9 == 0 else bytes([i % 256, 0, 255])


def kill_when(proc: subprocess.Popen[bytes], reached: Callable[[], bool],
              deadline: float = 60.0) -> None:
    """Poll *reached* until it is true, then SIGKILL *proc*; skip if *proc* ended first."""
    stop = time.monotonic() + deadline
    while time.monotonic() < stop:
        if proc.poll() is not None:
            if proc.returncode != 0:
                err = proc.stderr.read().decode() if proc.stderr else ""
                pytest.fail(f"the migration failed (status {proc.returncode}): {err}")
            pytest.skip("the migration finished before it could be killed")
        try:
            if reached():
                break
        except (sqlite3.OperationalError, OSError, ValueError):
            pass  # the state is not there yet, or the database is busy for a moment
        time.sleep(0.005)
    else:
        proc.kill()
        proc.wait()
        pytest.fail("the kill point was not reached in time")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    if proc.returncode != -signal.SIGKILL:
        pytest.skip(f"the migration ended on its own (status {proc.returncode})")


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


def reached(point: float | str, rows: int, phase: str, copied: int) -> bool:
    if point == "verify":
        return phase in ("verify", "copied")
    assert isinstance(point, float)
    return phase == "copy" and copied >= max(1, int(point * rows))


@pytest.mark.parametrize("point", list(KILL_POINTS))
def test_sqlite_killed_and_rerun(tmp_path: Path, point: str) -> None:
    path = tmp_path / "kv.db"
    expected = make_sqlite(path)
    command = [*MIGRATE, "--sqlite", str(path), "--table", "kv", "--key-column", "k",
               "--batch-size", str(SQLITE_BATCH)]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        kill_when(proc, lambda: reached(KILL_POINTS[point], SQLITE_ROWS, *sqlite_state(path)))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()

    # killed before the swap: the original is whole, the new table holds what was recorded
    with closing(sqlite3.connect(path, timeout=10)) as db:
        assert db.execute("SELECT COUNT(*) FROM kv").fetchone()[0] == SQLITE_ROWS
        phase, copied = db.execute(f"SELECT phase, copied FROM {STATE_TABLE}").fetchone()
        new_rows = db.execute(f"SELECT COUNT(*) FROM kv{NEW_SUFFIX}").fetchone()[0]
    assert new_rows == copied
    if point == "verify":
        assert phase == "verify"
        assert copied == SQLITE_ROWS
    else:
        assert phase == "copy"
        assert 0 < copied < SQLITE_ROWS

    result = subprocess.run(command, capture_output=True, text=True, timeout=180)
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


@pytest.mark.parametrize("point", list(KILL_POINTS))
def test_lmdb_killed_and_rerun(tmp_path: Path, point: str) -> None:
    path = tmp_path / "env"
    state_path = tmp_path / "env.lexcodecs-state"
    expected = make_lmdb(path)
    command = [*MIGRATE, "--lmdb", str(path), "--batch-size", str(LMDB_BATCH)]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        kill_when(proc, lambda: reached(KILL_POINTS[point], LMDB_ROWS, *lmdb_state(state_path)))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()

    assert len(read_lmdb(path)) == LMDB_ROWS  # the original is whole
    assert (tmp_path / "env.lexcodecs-new").is_dir()
    phase, copied = lmdb_state(state_path)
    if point == "verify":
        assert phase == "copied"
        assert copied == LMDB_ROWS
    else:
        assert phase == "copy"
        assert 0 < copied < LMDB_ROWS

    result = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    assert "resumed" in result.stdout
    assert f"migrated {LMDB_ROWS:,} keys" in result.stdout

    assert_migrated_rows(read_lmdb(path), expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env"]


# -- Ctrl-C -----------------------------------------------------------------------------------
# The same, with SIGINT (what Ctrl-C sends) instead of SIGKILL: the command must stop in one
# line that says nothing is lost and how to go on, exit 130, and the same command must then
# finish with every key. Smaller stores and batches than above: one stop, mid-copy. The SQLite
# store is in WAL mode: in rollback-journal mode the copy's back-to-back commits can starve the
# test's reading connection for most of the copy (its busy handler backs off for up to 100 ms at
# a time), so it first saw the migration when the copy was over and the Ctrl-C landed in the
# verification instead.

CTRL_C_ROWS = 3_000
CTRL_C_BATCH = 15


def interrupt_when(proc: subprocess.Popen[str], reached: Callable[[], bool]) -> str:
    """Send SIGINT to *proc* once *reached*; return its standard error after it exits 130."""
    stop = time.monotonic() + 60
    while not _reached_safely(reached):
        if proc.poll() is not None:
            pytest.skip(f"the migration ended before the interrupt ({proc.returncode})")
        if time.monotonic() > stop:
            pytest.fail("the interrupt point was not reached in time")
        time.sleep(0.005)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    if proc.returncode == 0:
        pytest.skip("the migration finished before the interrupt reached it")
    assert proc.returncode == 130, err
    return err


def mid_copy(phase: str, copied: int) -> bool:
    """The copy has committed a batch and is still going."""
    return phase == "copy" and copied > 0


def _reached_safely(reached: Callable[[], bool]) -> bool:
    try:
        return reached()
    except (sqlite3.OperationalError, OSError, ValueError):
        return False  # not there yet, or busy for a moment


def _sigint_default() -> None:
    """In the child: SIGINT at its default, so Python turns it into KeyboardInterrupt even
    when the test runner ignores it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def assert_one_line_resume_message(err: str) -> None:
    assert "Traceback" not in err, err
    assert err.count("\n") == 1, err
    assert err.startswith("lexcodecs: stopped (Ctrl-C): nothing is lost"), err
    assert "run the same command again to resume" in err
    assert "--restart" in err


def test_sqlite_ctrl_c_then_the_same_command_finishes(tmp_path: Path) -> None:
    path = tmp_path / "kv.db"
    values = row_values(CTRL_C_ROWS)
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA journal_mode=WAL")  # readers never wait for the copy's commits
        db.execute("CREATE TABLE kv (k BLOB PRIMARY KEY, v TEXT NOT NULL, b BLOB)")
        db.executemany("INSERT INTO kv VALUES (?, ?, ?)",
                       [(FDB.encode(v), *other(i)) for i, v in enumerate(values)])
        db.commit()
    expected = {other(i)[0]: (v, other(i)[1]) for i, v in enumerate(values)}
    command = [*MIGRATE, "--sqlite", str(path), "--table", "kv", "--key-column", "k",
               "--batch-size", str(CTRL_C_BATCH)]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, preexec_fn=_sigint_default)
    try:
        err = interrupt_when(proc, lambda: mid_copy(*sqlite_state(path)))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert_one_line_resume_message(err)
    with closing(sqlite3.connect(path, timeout=10)) as db:  # stopped mid-copy, original whole
        assert db.execute("SELECT COUNT(*) FROM kv").fetchone()[0] == CTRL_C_ROWS
        copied = db.execute(f"SELECT copied FROM {STATE_TABLE}").fetchone()[0]
        assert db.execute(f"SELECT COUNT(*) FROM kv{NEW_SUFFIX}").fetchone()[0] == copied
    assert 0 < copied < CTRL_C_ROWS

    result = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    assert "resumed" in result.stdout
    with closing(sqlite3.connect(path)) as db:
        rows = db.execute("SELECT k, v, b FROM kv ORDER BY k").fetchall()
    assert_migrated_rows(rows, expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kv.db"]


def test_lmdb_ctrl_c_then_the_same_command_finishes(tmp_path: Path) -> None:
    lmdb = pytest.importorskip("lmdb")
    path = tmp_path / "env"
    state_path = tmp_path / "env.lexcodecs-state"
    values = row_values(CTRL_C_ROWS)
    env = lmdb.open(str(path), map_size=1 << 26)
    with env.begin(write=True) as txn:
        for i, v in enumerate(values):
            txn.put(FDB.encode(v), _lmdb_value(i))
    env.close()
    expected = {other(i)[0]: (v, other(i)[1]) for i, v in enumerate(values)}
    command = [*MIGRATE, "--lmdb", str(path), "--batch-size", str(CTRL_C_BATCH)]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, preexec_fn=_sigint_default)
    try:
        err = interrupt_when(proc, lambda: lmdb_state(state_path)[1] > 0)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert_one_line_resume_message(err)
    assert len(read_lmdb(path)) == CTRL_C_ROWS  # the original is whole
    phase, copied = lmdb_state(state_path)
    assert phase == "copy"
    assert 0 < copied < CTRL_C_ROWS

    result = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    assert "resumed" in result.stdout
    assert_migrated_rows(read_lmdb(path), expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env"]
