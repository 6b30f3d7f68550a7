"""Migrations of stores kept in a directory (LMDB, RocksDB), against what else happens to the
store: a second run of the same migration, another process changing the run's files, a
read-only store, a path that is no store at all (issue 30, items 1-4).

Every case runs on both stores, for real (lmdb and rocksdict). The first run is the API in
this process; whatever happens to it happens from its progress callback, at an exact point
(after its second batch, or as its verification starts), never after a delay. A second run
comes both from this process (the lock is a ``flock``, which a second open of the file in the
same process does not get) and from the command line in a child process.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lexcodecs import KeySchema, get_codec
from lexcodecs.migrate import (
    MigrationError,
    Transcoder,
    dry_run_lmdb,
    dry_run_rocksdb,
    migrate_lmdb,
    migrate_rocksdb,
)
from lexcodecs.migrate.directory import MARKER, Interfered

lmdb = pytest.importorskip("lmdb")
rocksdict = pytest.importorskip("rocksdict")

SCHEMA_TEXT = "t:string, n:int64"
SCHEMA = KeySchema.parse(SCHEMA_TEXT)
FDB = get_codec("fdb-tuple").bind(SCHEMA)
SKV = get_codec("skv").bind(SCHEMA)
ROWS, BATCH = 600, 100
STORES = ("lmdb", "rocksdb")
MIGRATE: dict[str, Callable[..., Any]] = {"lmdb": migrate_lmdb, "rocksdb": migrate_rocksdb}
SUFFIXES = (".lexcodecs-new", ".lexcodecs-state", ".lexcodecs-old", ".lexcodecs-lock")


def transcoder() -> Transcoder:
    return Transcoder("fdb-tuple", "skv", SCHEMA)


def values(n: int = ROWS) -> list[tuple[str, int]]:
    return [(["acme", "", "b\x00c", "zz"][i % 4], i * 7919 % 1000 - 500) for i in range(n)]


def make_store(store: str, path: Path) -> dict[bytes, bytes]:
    """The store at *path* with fdb-tuple keys; returns its entries."""
    entries = {FDB.encode(v): b"value %d" % i for i, v in enumerate(values())}
    if store == "lmdb":
        env = lmdb.open(str(path), map_size=1 << 24)
        with env.begin(write=True) as txn:
            for key, value in entries.items():
                txn.put(key, value)
        env.close()
    else:
        db = rocksdict.Rdict(str(path), rocksdict.Options(raw_mode=True))
        for key, value in entries.items():
            db[key] = value
        db.close()
    return entries


def read_store(store: str, path: Path) -> dict[bytes, bytes]:
    if store == "lmdb":
        env = lmdb.open(str(path), readonly=True, lock=False)
        with env.begin() as txn:
            items = dict(txn.cursor())
        env.close()
        return items
    db = rocksdict.Rdict(str(path), rocksdict.Options(raw_mode=True),
                         access_type=rocksdict.AccessType.read_only(False))
    items = dict(db.items())
    db.close()
    (path / "rocksdict-config.json").unlink(missing_ok=True)
    return items


def migrated(entries: dict[bytes, bytes]) -> dict[bytes, bytes]:
    return {SKV.encode(FDB.decode(key)): value for key, value in entries.items()}


def beside(path: Path) -> dict[str, Any]:
    """What is beside the store and in the migration's files: names, the state file's bytes,
    the copy's identity. A refused run must leave it exactly as it was."""
    seen: dict[str, Any] = {}
    for p in sorted(path.parent.iterdir()):
        if p.name.startswith(path.name + "."):
            info = p.stat()
            seen[p.name] = p.read_bytes() if p.is_file() else (info.st_ino, sorted(
                (q.name, q.stat().st_size) for q in p.iterdir()))
    return seen


def leftovers(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name + "."))


def cli(store: str, path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lexcodecs", "migrate", "--from", "fdb-tuple",
                           "--to", "skv", "-s", SCHEMA_TEXT, f"--{store}", str(path),
                           "--batch-size", str(BATCH), "--no-progress", *extra],
                          capture_output=True, text=True)


def one_line_refusal(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("lexcodecs: error:"), result.stderr
    assert "migrated" not in result.stdout
    return lines[0]


def at_batch(n: int, action: Callable[[], None]) -> Callable[[int], None]:
    """A progress callback that does *action* once, after the *n*-th batch of the copy."""
    done = [False]

    def progress(keys: int) -> None:
        if not done[0] and keys >= n * BATCH:
            done[0] = True
            action()
    return progress


# -- 1, 2: one run at a time ---------------------------------------------------------------


@pytest.mark.parametrize("store", STORES)
def test_a_second_run_is_refused_and_touches_nothing(tmp_path: Path, store: str) -> None:
    path = tmp_path / "db"
    entries = make_store(store, path)
    seen: list[str] = []

    def second_runs() -> None:
        before = beside(path)
        with pytest.raises(MigrationError, match=r"another migration of .*db is running"):
            MIGRATE[store](path, transcoder(), batch_size=BATCH)
        seen.append(one_line_refusal(cli(store, path)))
        assert beside(path) == before  # not a file made, changed or removed

    report = MIGRATE[store](path, transcoder(), batch_size=BATCH,
                            progress=at_batch(2, second_runs))
    assert "another migration of" in seen[0]
    assert report.keys == ROWS
    assert not report.resumed
    assert read_store(store, path) == migrated(entries)
    assert leftovers(path) == []  # the lock file went with the run
    assert not (path / MARKER).exists()  # and the copy's marker with the swap
    assert MIGRATE[store](path, Transcoder("skv", "fdb-tuple", SCHEMA)).keys == ROWS


# -- 1, 2: files changed under a run -----------------------------------------------------------


def _remove_state(path: Path) -> None:
    path.with_name(path.name + ".lexcodecs-state").unlink()


def _replace_state(path: Path) -> None:
    state = path.with_name(path.name + ".lexcodecs-state")
    recorded = json.loads(state.read_text())
    state.write_text(json.dumps({**recorded, "run": "another run"}))


def _remove_copy(path: Path) -> None:
    shutil.rmtree(path.with_name(path.name + ".lexcodecs-new"))


def _replace_copy(path: Path) -> None:
    _remove_copy(path)
    path.with_name(path.name + ".lexcodecs-new").mkdir()


def _remove_both(path: Path) -> None:  # what the refused second run used to do
    _remove_copy(path)
    _remove_state(path)


TAMPERS = {"state removed": _remove_state, "state replaced": _replace_state,
           "copy removed": _remove_copy, "copy replaced": _replace_copy,
           "both removed": _remove_both}


@pytest.mark.parametrize("when", ["copying", "verifying"])
@pytest.mark.parametrize("tamper", sorted(TAMPERS))
@pytest.mark.parametrize("store", STORES)
def test_a_run_whose_files_change_under_it_stops_without_swapping(
        tmp_path: Path, store: str, tamper: str, when: str) -> None:
    """Whatever another process does to the run's state file or copy, the run stops with
    :class:`Interfered`: no swap, no success, and nothing it no longer owns removed."""
    path = tmp_path / "db"
    entries = make_store(store, path)
    action = TAMPERS[tamper]
    progress: Callable[[int], None] | None = None
    phase: Callable[[str, int], None] | None = None
    if when == "copying":
        progress = at_batch(2, lambda: action(path))
    else:
        def phase(label: str, total: int) -> None:
            if label == "verifying":
                action(path)
    with pytest.raises(Interfered, match="another process"):
        MIGRATE[store](path, transcoder(), batch_size=BATCH, progress=progress, phase=phase,
                       workers=0)
    left = beside(path)
    assert read_store(store, path) == entries  # the original, unchanged, where it was
    assert path.name + ".lexcodecs-old" not in left
    if tamper == "state replaced":  # the other run's record is its own: kept
        state = json.loads(path.with_name(path.name + ".lexcodecs-state").read_text())
        assert state["run"] == "another run"
    if tamper == "copy replaced":  # whoever made this directory still has it
        assert path.name + ".lexcodecs-new" in left


@pytest.mark.parametrize("store", STORES)
def test_a_verified_copy_that_is_gone_is_no_success(tmp_path: Path, store: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy removed between the verified record and the swap (another process, in the
    window the store functions cannot watch): refused at the swap, the original in place."""
    import lexcodecs.migrate.directory as directory

    path = tmp_path / "db"
    entries = make_store(store, path)
    real = directory.write_state

    def write_then_remove(where: Path, state: dict[str, Any]) -> None:
        real(where, state)
        if state["phase"] == "verified":
            _remove_copy(path)

    monkeypatch.setattr(directory, "write_state", write_then_remove)
    with pytest.raises(Interfered, match="removed or replaced"):
        MIGRATE[store](path, transcoder(), batch_size=BATCH)
    monkeypatch.undo()
    assert read_store(store, path) == entries
    assert leftovers(path) == [path.name + ".lexcodecs-state"]


@pytest.mark.parametrize("between", ["copy removed", "copy replaced"])
@pytest.mark.parametrize("store", STORES)
def test_a_copy_changed_between_runs_is_started_again_or_refused(
        tmp_path: Path, store: str, between: str) -> None:
    """Between a stopped run and its rerun: a recorded copy that is gone means nothing, and
    the rerun starts again (saying so); one that was replaced is not the migration's, and the
    rerun refuses it, removing nothing, until --restart discards it."""
    path = tmp_path / "db"
    entries = make_store(store, path)

    def stop() -> None:
        raise KeyboardInterrupt  # as Ctrl-C would: the state and the copy kept

    with pytest.raises(KeyboardInterrupt):
        MIGRATE[store](path, transcoder(), batch_size=BATCH, progress=at_batch(2, stop))
    TAMPERS[between](path)
    if between == "copy removed":
        report = MIGRATE[store](path, transcoder(), batch_size=BATCH)
        assert any("recorded by an earlier run was gone: the migration started again" in note
                   for note in report.notes)
    else:
        before = beside(path)
        with pytest.raises(MigrationError, match="is not the copy the recorded migration made"):
            MIGRATE[store](path, transcoder(), batch_size=BATCH)
        assert beside(path) == before
        MIGRATE[store](path, transcoder(), batch_size=BATCH, restart=True)
    assert read_store(store, path) == migrated(entries)
    assert leftovers(path) == []


# -- 3: read-only stores -----------------------------------------------------------------------


@pytest.fixture
def read_only() -> Iterator[Callable[[Path], None]]:
    """Makes a directory and everything in it read-only (no write bit for anyone: refused
    even for root, who could write it); writable again afterwards, for the clean-up."""
    made: list[Path] = []

    def make(path: Path) -> None:
        made.append(path)
        for p in [path, *path.rglob("*")]:
            p.chmod(stat.S_IMODE(p.stat().st_mode) & ~0o222)

    yield make
    for path in made:
        for p in [path, *path.rglob("*")] if path.exists() else []:
            p.chmod(stat.S_IMODE(p.stat().st_mode) | 0o200)


@pytest.mark.parametrize("part", ["directory", "a file"])
@pytest.mark.parametrize("store", STORES)
def test_a_read_only_store_is_refused_before_anything_changes(
        tmp_path: Path, store: str, part: str, read_only: Callable[[Path], None]) -> None:
    path = tmp_path / "db"
    entries = make_store(store, path)
    read_store(store, path)
    if part == "directory":
        read_only(path)
    else:  # the data file alone (LMDB's data.mdb, RocksDB's CURRENT)
        name = "data.mdb" if store == "lmdb" else "CURRENT"
        (path / name).chmod(0o444)
    before = sorted(p.name for p in path.iterdir())
    with pytest.raises(MigrationError, match=r"is read-only .*--keep-old"):
        MIGRATE[store](path, transcoder(), batch_size=BATCH)
    assert leftovers(path) == []
    assert "read-only" in one_line_refusal(cli(store, path))
    assert leftovers(path) == []
    assert sorted(p.name for p in path.iterdir()) == before
    # keeping the original needs nothing of it but reading: done, the original kept as it was
    report = MIGRATE[store](path, transcoder(), batch_size=BATCH, keep_old=True)
    assert report.keys == ROWS
    assert read_store(store, path) == migrated(entries)
    old = path.with_name(path.name + ".lexcodecs-old")
    assert leftovers(path) == [old.name]
    if part == "directory":
        assert not os.stat(old).st_mode & 0o222
    assert read_store(store, old) == entries


@pytest.mark.parametrize("store", STORES)
def test_a_read_only_directory_beside_the_store_is_refused(
        tmp_path: Path, store: str, read_only: Callable[[Path], None]) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    path = folder / "db"
    make_store(store, path)
    read_store(store, path)
    folder.chmod(0o555)
    try:
        with pytest.raises(MigrationError, match=r"its directory .*folder is read-only"):
            MIGRATE[store](path, transcoder(), keep_old=True)
        assert sorted(p.name for p in folder.iterdir()) == ["db"]
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("store", STORES)
def test_an_original_that_cannot_be_removed_stays_and_the_report_says_so(
        tmp_path: Path, store: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Should the original's removal after the swap fail all the same (permissions changed
    after the checks), the migration is done: it says where the original stayed, and leaves
    no state file that a rerun would stumble on."""
    path = tmp_path / "db"
    entries = make_store(store, path)
    real = shutil.rmtree

    def refuse_the_original(target: Any, *args: Any, **kwargs: Any) -> None:
        if str(target).endswith(".lexcodecs-old"):
            raise PermissionError(13, "Permission denied", str(Path(target, "lock.mdb")))
        real(target, *args, **kwargs)

    monkeypatch.setattr(shutil, "rmtree", refuse_the_original)
    report = MIGRATE[store](path, transcoder(), batch_size=BATCH)
    monkeypatch.undo()
    assert any(note.startswith("the original could not be removed")
               and note.endswith(f"it stays at {path}.lexcodecs-old") for note in report.notes)
    assert "the original could not be removed" in report.summary()
    assert read_store(store, path) == migrated(entries)
    assert leftovers(path) == [path.name + ".lexcodecs-old"]


@pytest.mark.parametrize("store", STORES)
def test_a_kept_original_of_an_earlier_run_that_cannot_go_stops_before_the_swap(
        tmp_path: Path, store: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "db"
    entries = make_store(store, path)
    MIGRATE[store](path, transcoder(), keep_old=True)
    back = Transcoder("skv", "fdb-tuple", SCHEMA)
    real = shutil.rmtree

    def refuse_the_old(target: Any, *args: Any, **kwargs: Any) -> None:
        if str(target).endswith(".lexcodecs-old"):
            raise PermissionError(13, "Permission denied", str(target))
        real(target, *args, **kwargs)

    monkeypatch.setattr(shutil, "rmtree", refuse_the_old)
    with pytest.raises(MigrationError, match="an earlier migration kept, cannot be removed"):
        MIGRATE[store](path, back, batch_size=BATCH)
    monkeypatch.undo()
    assert read_store(store, path) == migrated(entries)  # nothing swapped
    assert MIGRATE[store](path, back, batch_size=BATCH).resumed  # the verified copy kept
    assert read_store(store, path) == entries


# -- 4: not a store ----------------------------------------------------------------------------


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "file"
    path.write_bytes(b"not a store")
    return path


NOT_STORES: dict[str, Callable[[Path], Path]] = {
    "/dev/null": lambda _: Path("/dev/null"), "a regular file": _file, "a named pipe": _fifo}


@pytest.mark.parametrize("what", sorted(NOT_STORES))
@pytest.mark.parametrize("store", STORES)
def test_a_path_that_is_not_a_directory_is_refused_by_name(tmp_path: Path, store: str,
                                                           what: str) -> None:
    path = NOT_STORES[what](tmp_path)
    dry_run = {"lmdb": dry_run_lmdb, "rocksdb": dry_run_rocksdb}[store]
    for run in (MIGRATE[store], dry_run):
        with pytest.raises(MigrationError, match=f"^{path} is not an? .*: not a directory$"):
            run(path, transcoder())
    for extra in ((), ("--dry-run",)):
        assert f"{path} is not" in one_line_refusal(cli(store, path, *extra))
    assert sorted(p.name for p in tmp_path.iterdir()) == (
        [] if what == "/dev/null" else [path.name])
