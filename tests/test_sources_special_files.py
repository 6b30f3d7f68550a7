"""Paths that are not files (issue 30, item 5): a named pipe, a socket or a device where
``compare`` and :mod:`lexcodecs.sources` expect a data file, an SQLite database or an LMDB
environment is refused in one line, before anything opens it -- opening a FIFO for reading
waits for a writer, for ever.

The command runs in a subprocess, as a user runs it, and the Python API in this process,
both under :func:`unblocked`: should a reader open a pipe after all, a helper that keeps
opening the pipes' writing ends lets it go on, so that the test fails on its assertion
instead of hanging the suite. No clock is involved: a busy machine only makes it slower.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from lexcodecs.compare.html import write_html
from lexcodecs.errors import LexCodecError
from lexcodecs.sources import (
    SourceError,
    read_csv,
    read_jsonl,
    read_lmdb_keys,
    read_parquet,
    read_sqlite,
    read_sqlite_keys,
)
from lexcodecs.sources.paths import open_file, path_problem

ROOT = Path(__file__).resolve().parent.parent
PIPE = "is a named pipe (FIFO)"

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")


#: the helper of :func:`unblocked`: open the writing end of each FIFO given, or found under a
#: directory given, again and again until stopped (with no reader, the open fails at once:
#: harmless to the code under test, which should never open them)
_RELEASER = """
import os, stat, sys, time
def fifos():
    for path in sys.argv[1:]:
        if os.path.isdir(path):
            for top, _, names in os.walk(path):
                yield from (os.path.join(top, n) for n in names)
        else:
            yield path
while True:
    for fifo in fifos():
        try:
            if stat.S_ISFIFO(os.lstat(fifo).st_mode):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
    time.sleep(0.1)
"""


@contextlib.contextmanager
def unblocked(*fifos: Path) -> Iterator[None]:
    """Run the body while a helper process keeps opening the writing end of each FIFO (or of
    each FIFO under a directory), which lets a reader stuck in ``open`` go on, to the test's
    failure. A process, not a thread: a reader may wait holding the GIL (py-lmdb's open
    does)."""
    helper = subprocess.Popen([sys.executable, "-c", _RELEASER, *map(str, fifos)],
                              stdin=subprocess.DEVNULL)
    try:
        yield
    finally:
        helper.kill()
        helper.wait()


def _db(path: Path) -> Path:
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE t (k BLOB PRIMARY KEY, n INTEGER)")
        conn.execute("INSERT INTO t VALUES (x'0101', 1)")
        conn.commit()
    return path


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


@pytest.fixture
def env_with_a_pipe(tmp_path: Path) -> Path:
    """A directory whose data.mdb is a FIFO: LMDB would open it and wait."""
    env = tmp_path / "env"
    env.mkdir()
    os.mkfifo(env / "data.mdb")
    return env


@pytest.fixture
def db_with_a_pipe_journal(tmp_path: Path) -> Path:
    """A real database whose journal is a FIFO: SQLite opens a journal that exists (a hot
    journal to roll back) and waits."""
    db = _db(tmp_path / "j.db")
    os.mkfifo(tmp_path / "j.db-journal")
    return db


def _refused(call: Callable[[], Any], *fifos: Path) -> SourceError:
    with unblocked(*fifos), pytest.raises(SourceError) as info:
        call()
    return info.value


# -- the Python API ----------------------------------------------------------------------------


def test_every_reader_refuses_a_named_pipe(fifo: Path) -> None:
    calls: list[Callable[[], Any]] = [
        lambda: read_sqlite(fifo, table="t"),
        lambda: read_sqlite(fifo, query="SELECT 1 AS a", key="a:int64"),
        lambda: read_sqlite_keys(fifo, "t", "k", "fdb-tuple"),
        lambda: read_csv(fifo, key="a:int64"),
        lambda: read_jsonl(fifo, "a:int64"),
        lambda: read_parquet(fifo, key="a"),
        lambda: open_file(fifo, "x"),
    ]
    if _has("lmdb"):
        calls.append(lambda: read_lmdb_keys(fifo, "skv"))
    for call in calls:
        error = _refused(call, fifo)
        assert PIPE in error.reason, error
        assert str(fifo) in str(error) or error.source == "x"


def test_a_pipe_inside_an_lmdb_environment_is_refused(env_with_a_pipe: Path) -> None:
    pytest.importorskip("lmdb")
    error = _refused(lambda: read_lmdb_keys(env_with_a_pipe, "skv"),
                     env_with_a_pipe / "data.mdb")
    assert f"its data.mdb {PIPE}" in str(error)


def test_a_pipe_for_an_sqlite_journal_is_refused(db_with_a_pipe_journal: Path) -> None:
    journal = db_with_a_pipe_journal.with_name("j.db-journal")
    for call in (lambda: read_sqlite(db_with_a_pipe_journal, table="t"),
                 lambda: read_sqlite_keys(db_with_a_pipe_journal, "t", "k", "fdb-tuple")):
        error = _refused(call, journal)
        assert f"j.db-journal next to it {PIPE}" in str(error)


def test_sockets_and_devices_are_refused(tmp_path: Path) -> None:
    sock = tmp_path / "s"
    with closing(socket.socket(socket.AF_UNIX)) as server:
        server.bind(str(sock))
        assert "is a socket, not an SQLite database file" in str(
            _refused(lambda: read_sqlite(sock, table="t")))
        assert "is a socket, not a regular file" in str(
            _refused(lambda: read_csv(sock, key="a:int64")))
    if os.path.exists("/dev/zero"):  # would never end
        assert "is a character device, not a regular file" in str(
            _refused(lambda: read_jsonl("/dev/zero", "a:int64")))
        assert path_problem("/dev/null", "lmdb") == (
            "is a character device, not an LMDB environment (a directory, or its data file)")


def test_regular_files_and_directories_are_still_what_they_were(tmp_path: Path) -> None:
    db = _db(tmp_path / "ok.db")
    assert read_sqlite(db, table="t", key="n").rows == [(1,)]
    assert path_problem(db, "sqlite") is None
    assert path_problem(tmp_path, "lmdb") is None  # LMDB says what the directory lacks
    assert path_problem(tmp_path, "file") == "is a directory, not a file"
    assert path_problem(tmp_path / "none", "sqlite") == "no such database file"


def test_write_html_does_not_replace_a_pipe(fifo: Path) -> None:
    pytest.importorskip("matplotlib")
    report = __import__("json").loads(
        (ROOT / "tests" / "compare_report.json").read_text(encoding="utf-8"))
    with unblocked(fifo), pytest.raises(LexCodecError, match="named pipe"):
        write_html(report, fifo)
    assert os.path.exists(fifo)
    assert not fifo.is_file()  # still the pipe


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


# -- the command line --------------------------------------------------------------------------


def _compare(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LEXCODECS_DEBUG", None)
    with unblocked(cwd):
        return subprocess.run([sys.executable, "-m", "lexcodecs", "compare", "--no-progress",
                               "-n", "5", *argv], capture_output=True, text=True, cwd=cwd,
                              env=env, stdin=subprocess.DEVNULL, check=False)


@pytest.mark.parametrize(("argv", "line"), [
    (["--sqlite", "{pipe}", "--table", "t"], "--sqlite {pipe}: " + PIPE),
    (["--sqlite", "{pipe}", "--query", "SELECT 1"], "--sqlite {pipe}: " + PIPE),
    (["--keys-from", "sqlite:{pipe}:t:k", "--keys-codec", "fdb-tuple"],
     "--keys-from sqlite:{pipe}:t:k: {pipe}: " + PIPE),
    (["--keys-from", "lmdb:{pipe}", "--keys-codec", "skv"],
     "--keys-from lmdb:{pipe}: {pipe}: " + PIPE + ", not an LMDB environment"),
    (["--keys-from", "lmdb:{env}", "--keys-codec", "skv"],
     "--keys-from lmdb:{env}: {env}: its data.mdb " + PIPE),
    (["--records", "{pipe}"], "--records {pipe}: " + PIPE + ", not a regular file; for "
     "standard input, give -"),
    (["--csv", "{pipe}", "--key", "a:int64"], "--csv {pipe}: " + PIPE),
    (["--parquet", "{pipe}"], "--parquet {pipe}: " + PIPE),
    (["--sqlite", "{journal}", "--table", "t"],
     "--sqlite {journal}: j.db-journal next to it " + PIPE),
    (["--html", "{pipe}"], "--html {pipe}: " + PIPE + ", not a regular file"),
])
def test_the_command_refuses_a_pipe_in_one_line(tmp_path: Path, fifo: Path,
                                                env_with_a_pipe: Path,
                                                db_with_a_pipe_journal: Path,
                                                argv: list[str], line: str) -> None:
    names = {"{pipe}": str(fifo), "{env}": str(env_with_a_pipe),
             "{journal}": str(db_with_a_pipe_journal)}

    def fill(text: str) -> str:
        for name, value in names.items():
            text = text.replace(name, value)
        return text

    result = _compare(*map(fill, argv), cwd=tmp_path)
    assert result.returncode == 2, result
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("lexcodecs: error: " + fill(line)), lines[0]
    assert os.path.exists(fifo)
    assert not fifo.is_file()  # nothing replaced the pipe


# -- migrations: every store path a user gives, checked the same way ---------------------------


def _migrate(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with unblocked(cwd):
        return subprocess.run([sys.executable, "-m", "lexcodecs", "migrate", "--from",
                               "fdb-tuple", "--to", "skv", "-s", "a:bytes", "--no-progress",
                               *argv], capture_output=True, text=True, cwd=cwd, env=env,
                              stdin=subprocess.DEVNULL, check=False)


@pytest.fixture
def rocksdb_with_a_pipe(tmp_path: Path) -> Path:
    """A directory whose CURRENT (the file RocksDB reads first) is a FIFO."""
    db = tmp_path / "rocks"
    db.mkdir()
    os.mkfifo(db / "CURRENT")
    return db


@pytest.mark.parametrize(("argv", "line"), [
    (["--sqlite", "{pipe}", "--table", "t", "--key-column", "k"], "--sqlite {pipe}: " + PIPE),
    (["--sqlite", "{journal}", "--table", "t", "--key-column", "k"],
     "--sqlite {journal}: j.db-journal next to it " + PIPE),
    (["--lmdb", "{env}"], "{env}/data.mdb " + PIPE + ", not a file of an LMDB environment"),
    (["--rocksdb", "{rocks}"], "{rocks}/CURRENT " + PIPE + ", not a file of a RocksDB "
     "database"),
])
@pytest.mark.parametrize("dry_run", [False, True], ids=["migrate", "dry-run"])
def test_a_migration_refuses_a_pipe_in_one_line(tmp_path: Path, fifo: Path,
                                                env_with_a_pipe: Path,
                                                db_with_a_pipe_journal: Path,
                                                rocksdb_with_a_pipe: Path, argv: list[str],
                                                line: str, dry_run: bool) -> None:
    names = {"{pipe}": str(fifo), "{env}": str(env_with_a_pipe),
             "{journal}": str(db_with_a_pipe_journal), "{rocks}": str(rocksdb_with_a_pipe)}

    def fill(text: str) -> str:
        for name, value in names.items():
            text = text.replace(name, value)
        return text

    before = sorted(p.name for p in tmp_path.iterdir())
    result = _migrate(*map(fill, argv), *(["--dry-run"] if dry_run else []), cwd=tmp_path)
    assert result.returncode == 2, result
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("lexcodecs: error: " + fill(line)), lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no lock, state or copy


def test_the_migration_api_refuses_a_pipe(tmp_path: Path, fifo: Path, env_with_a_pipe: Path,
                                          db_with_a_pipe_journal: Path,
                                          rocksdb_with_a_pipe: Path) -> None:
    from lexcodecs.migrate import (
        MigrationError,
        Transcoder,
        dry_run_lmdb,
        dry_run_rocksdb,
        dry_run_sqlite,
        migrate_lmdb,
        migrate_rocksdb,
        migrate_sqlite,
    )

    t = Transcoder("fdb-tuple", "skv", "a:bytes")
    calls: list[tuple[Callable[[], Any], Path, str]] = [
        (lambda: migrate_sqlite(fifo, "t", "k", t), fifo, PIPE),
        (lambda: dry_run_sqlite(fifo, "t", "k", t), fifo, PIPE),
        (lambda: migrate_sqlite(db_with_a_pipe_journal, "t", "k", t),
         tmp_path / "j.db-journal", "j.db-journal next to it " + PIPE),
        (lambda: dry_run_sqlite(db_with_a_pipe_journal, "t", "k", t),
         tmp_path / "j.db-journal", "j.db-journal next to it " + PIPE),
    ]
    if _has("lmdb"):
        calls += [(lambda: migrate_lmdb(env_with_a_pipe, t), env_with_a_pipe / "data.mdb",
                   "data.mdb " + PIPE),
                  (lambda: dry_run_lmdb(env_with_a_pipe, t), env_with_a_pipe / "data.mdb",
                   "data.mdb " + PIPE)]
    if _has("rocksdict"):
        calls += [(lambda: migrate_rocksdb(rocksdb_with_a_pipe, t),
                   rocksdb_with_a_pipe / "CURRENT", "CURRENT " + PIPE),
                  (lambda: dry_run_rocksdb(rocksdb_with_a_pipe, t),
                   rocksdb_with_a_pipe / "CURRENT", "CURRENT " + PIPE)]
    for call, pipe, text in calls:
        with unblocked(pipe), pytest.raises(MigrationError) as info:
            call()
        assert text in str(info.value)


def test_a_scaled_out_dataset_refuses_a_pipe(tmp_path: Path, fifo: Path) -> None:
    pytest.importorskip("pyarrow")
    from lexcodecs.bulkload.sorted_keys import _inputs
    from lexcodecs.migrate import MigrationError

    named = tmp_path / "part.parquet"
    os.mkfifo(named)
    for dataset in (fifo, [fifo], tmp_path):  # the file, a list of files, a directory of them
        with unblocked(fifo, named), pytest.raises(MigrationError, match=PIPE.replace(
                "(", r"\(").replace(")", r"\)")):
            _inputs(dataset, tmp_path / "out")
