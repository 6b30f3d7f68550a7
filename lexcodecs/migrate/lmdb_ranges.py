"""An LMDB migration whose copy is split by source key range across the workers of a
dask.distributed cluster (the ``dask`` extra; the cluster machinery is :mod:`lexcodecs._dask`).

Theory of operation: the phases, paths, state file, verification and swap are those of
:func:`lexcodecs.migrate.migrate_lmdb` (:mod:`lexcodecs.migrate.lmdb_store`, reused, not
copied); only the copy is done another way, in two steps:

1. **transcode** -- the coordinator walks the source's keys once (keys only) and keeps every
   few, cuts them into *ranges* ranges of about equal size
   (:func:`~lexcodecs._dask.boundaries`) and records the boundaries in the state
   file. One task per range opens the source read-only, transcodes its keys with the
   migration's kernel (:class:`~lexcodecs.migrate.kernel.NewKey`, as ``migrate_lmdb``'s copy
   does: the first chunk checked as :meth:`Transcoder.encode` checks, to refuse early a
   target that cannot hold the data; every key is checked by the verification), sorts
   the pairs by new key when the old order was not the new one and writes them to a
   **run file** ``<path>.lexcodecs-runs/run-NNNNN`` atomically
   (:func:`~lexcodecs._dask.write_atomic`): a run file that exists is a finished range, which a
   rerun does not do again.
2. **load** -- the coordinator writes each run into the new environment, one write
   transaction per batch (``lmdb_store._lmdb_put_batch``, which grows the map), and records
   each run loaded in the state file; a run loaded again after a crash writes the same keys
   and values again, and LMDB keeps one of each.

Then, as for ``migrate_lmdb``: verify (``lmdb_store._lmdb_verify``: equal counts, both
environments walked side by side, natural order), the ``verified`` phase, the run files
removed, and the swap (:meth:`lexcodecs.migrate.directory.Run.swap`; the run checked, locked
and watched as ``migrate_lmdb``'s is). A refusal (a key the codecs
refuse, in any worker) removes the new environment, the runs and the state, as
``migrate_lmdb`` does; an interruption (Ctrl-C, a lost cluster) keeps them for the rerun.

A run file is a header line (``LXRUN1``, then as JSON the number of entries, the first and
last new key in old order and the order changes seen inside the range), then the new keys
and their values as two lists in :mod:`marshal`'s format, which is written and read in C
(four times faster than any per-entry parsing); it is a file of this migration only, read
back by a process of the same Python. A task holds
its range in memory, and so does the coordinator while it loads one run: *ranges* sets the
size of both.
"""

from __future__ import annotations

import contextlib
import json
import marshal
import os
import shutil
import time
from collections.abc import Iterator
from itertools import islice, takewhile
from pathlib import Path
from typing import Any, Final

from .._dask import OVERSAMPLE, boundaries, run_all, write_atomic
from ..errors import LexCodecError
from . import kernel
from .defaults import BATCH_SIZE
from .directory import Interfered, Run
from .lmdb_store import (
    _MIN_MAP_SIZE,
    _check_key_sizes,
    _lmdb,
    _lmdb_put_batch,
    _lmdb_verify,
    _refuse,
    _used_bytes,
)
from .report import MAX_EXAMPLES, MigrationReport, PhaseStart, Progress, _OrderWatch
from .transcoder import MigrationError, Transcoder
from .verify import _check_batch_size

try:
    import fcntl
except ImportError:  # no flock (Windows): a task cancelled late may leave its run behind
    fcntl = None  # type: ignore[assignment]

__all__ = ["RUNS_SUFFIX", "migrate_lmdb_ranges"]

#: the directory of run files, beside the environment
RUNS_SUFFIX: Final = ".lexcodecs-runs"
#: what the state file says this migration is (``migrate_lmdb`` records none)
_METHOD: Final = "ranges"
_MAGIC: Final = b"LXRUN1 "
#: source entries a task transcodes at a time
_CHUNK: Final = 10_000


def migrate_lmdb_ranges(path: str | os.PathLike[str], transcoder: Transcoder, client: Any, *,
                        ranges: int = 8, batch_size: int = BATCH_SIZE, keep_old: bool = False,
                        restart: bool = False, map_size: int | None = None,
                        progress: Progress = None, phase: PhaseStart = None
                        ) -> MigrationReport:
    """:func:`~lexcodecs.migrate.migrate_lmdb`, with the transcoding done by range on the
    workers of *client* (a ``distributed.Client`` whose workers see *path*).

    The same guarantees and files (``.lexcodecs-new``, ``.lexcodecs-state``,
    ``.lexcodecs-old``), plus the run files in ``<path>.lexcodecs-runs``; an interrupted run
    resumes with the ranges and runs it finished. A resumed run keeps the recorded ranges
    (*ranges* counts only for a new one). *phase* is told ``"transcoding"`` (the number of
    ranges; *progress* then counts ranges done), ``"loading"`` (entries; keys loaded) and
    ``"verifying"`` as for ``migrate_lmdb``.
    """
    _check_batch_size(batch_size)
    if type(ranges) is not int or ranges < 1:
        raise MigrationError(f"ranges must be a whole number >= 1, not {ranges!r}")
    lmdb = _lmdb()
    t = transcoder
    started = time.monotonic()
    run = Run(path, "an LMDB environment")
    at = run.at
    runs = at.path.with_name(at.path.name + RUNS_SUFFIX)

    def fresh(settings: dict[str, Any], report: MigrationReport) -> dict[str, Any]:
        # last_key and last_new_key as migrate_lmdb writes them: should it meet this state,
        # it copies from the start into the same new environment, which is still right
        return {"settings": settings, "phase": "copy", "method": _METHOD, "last_key": None,
                "last_new_key": None, "boundaries": None, "loaded": [],
                "report": report.to_dict()}

    def resumable(state: dict[str, Any]) -> None:
        if state.get("method") != _METHOD:
            raise MigrationError(f"an unfinished migrate_lmdb run of {at.path} is recorded; "
                                 "finish it with migrate_lmdb, or restart=True (--restart) "
                                 "to discard it")

    def work(state: dict[str, Any], report: MigrationReport) -> None:
        if state["boundaries"] is None:  # a new migration: runs of an old one mean nothing
            _remove_runs(runs)
        try:
            _ranges_migrate(lmdb, run, state, report, t, client, runs, ranges, batch_size,
                            map_size, progress, phase)
        except Interfered:
            raise
        except LexCodecError:  # a refusal leaves nothing half-written behind: nor the runs
            _remove_runs(runs)
            raise
        _remove_runs(runs)  # verified: the runs are of no more use

    report = run.migrate(t, restart=restart, keep_old=keep_old, where=f"lmdb {at.path}",
                         fresh=fresh, work=work, resumable=resumable)
    _remove_runs(runs)  # verified by an earlier run, which was stopped
    report.seconds = time.monotonic() - started  # this run's (see the report)
    return report


def _ranges_migrate(lmdb: Any, run: Run, state: dict[str, Any], report: MigrationReport,
                    t: Transcoder, client: Any, runs: Path, ranges: int, batch_size: int,
                    map_size: int | None, progress: Progress, phase: PhaseStart) -> None:
    """Transcode, load and verify (:meth:`Run.migrate`'s work)."""
    at = run.at
    try:
        source = lmdb.open(str(at.path), readonly=True, lock=False, create=False)
    except lmdb.Error as exc:
        raise MigrationError(f"{at.path} is not an LMDB environment ({exc})") from None
    try:
        size = map_size or max(source.info()["map_size"], 2 * _used_bytes(source),
                               _MIN_MAP_SIZE)
        target = lmdb.open(str(at.new), map_size=size)
        try:
            run.made_new(state)
            if state["phase"] == "copy":
                copy_started = time.monotonic()
                _transcode(source, client, t, state, run, runs, ranges, report, progress,
                           phase)
                _load(target, t, state, run, runs, report, batch_size, progress, phase)
                report.copy_s += time.monotonic() - copy_started
            verify_started = time.monotonic()
            _lmdb_verify(source, target, t, report, batch_size,
                         progress if phase is not None else None, phase,
                         splits=[bytes.fromhex(b) for b in state["boundaries"] or ()])
            report.verify_s += time.monotonic() - verify_started
        except lmdb.Error as exc:
            raise MigrationError(f"LMDB: {exc} (writing {at.new}); the original is "
                                 "untouched") from None
        finally:
            target.close()
    finally:
        source.close()


def _transcode(source: Any, client: Any, t: Transcoder, state: dict[str, Any], run: Run,
               runs: Path, ranges: int, report: MigrationReport, progress: Progress,
               phase: PhaseStart) -> None:
    """Step 1: the boundaries (recorded once), then a task for each range without a run."""
    if state["boundaries"] is None:
        entries = source.stat()["entries"]
        every = max(1, entries // (OVERSAMPLE * ranges))
        with source.begin() as txn:
            sample = [key for i, key in enumerate(txn.cursor().iternext(values=False))
                      if i % every == 0]
        state["boundaries"] = [b.hex() for b in boundaries(sample, ranges)]
        run.write(state)
    bounds: list[bytes | None] = [None, *(bytes.fromhex(b) for b in state["boundaries"]),
                                  None]
    runs.mkdir(exist_ok=True)
    n = len(bounds) - 1
    todo = [r for r in range(n) if not (runs / f"run-{r:05d}").exists()]
    if phase is not None:
        phase("transcoding", n)
    finished = [n - len(todo)]

    def done(_: int, __: Any) -> None:
        finished[0] += 1
        if progress is not None:
            progress(finished[0])

    if len(todo) < n:
        report.notes.append(f"{n - len(todo)} of {n} key ranges were transcoded by an "
                            "earlier run and not again")
    run_all(client, [(_transcode_range, (str(run.at.path), t, bounds[r], bounds[r + 1],
                                         str(runs / f"run-{r:05d}")))
                     for r in todo], done)


def _load(target: Any, t: Transcoder, state: dict[str, Any], run: Run, runs: Path,
          report: MigrationReport, batch_size: int, progress: Progress,
          phase: PhaseStart) -> None:
    """Step 2: each run into the new environment (the report's counts from the headers)."""
    n = len(state["boundaries"]) + 1
    headers = [_header(runs / f"run-{r:05d}") for r in range(n)]
    if phase is not None:
        phase("loading", sum(h["entries"] for h in headers))
    # the order changes of the old order: inside each range (counted by its task), and
    # between the last key of a range and the first of the next
    report.keys, report.order_changes, report.examples = 0, 0, []
    last: bytes | None = None
    for h in headers:
        if h["first"] is None:
            continue
        first = bytes.fromhex(h["first"])
        if last is not None and first < last:
            report.note_order(t._target.decode(last), t._target.decode(first))
        last = bytes.fromhex(h["last"])
        report.order_changes += h["order_changes"]
        report.examples += [(before, after) for before, after in
                            h["examples"][:max(0, MAX_EXAMPLES - len(report.examples))]]
    loaded: list[int] = state["loaded"]
    done = sum(headers[r]["entries"] for r in loaded)
    for r in range(n):
        report.keys += headers[r]["entries"]
        if r in loaded:
            continue
        keys, values = _read_run(runs / f"run-{r:05d}")
        for start in range(0, max(len(keys), 1), batch_size):
            batch = keys[start:start + batch_size]
            if batch:
                _lmdb_put_batch(target, batch, values[start:start + batch_size])
                done += len(batch)
            if start + batch_size >= len(keys):  # the run is in: said before progress
                loaded.append(r)
                state.update(report=report.to_dict())
                run.write(state)
            if progress is not None:
                progress(done)
    state.update(phase="copied", report=report.to_dict())
    run.write(state)


# -- run files -----------------------------------------------------------------------------

def _header(path: Path) -> dict[str, Any]:
    with open(path, "rb") as f:
        line = f.readline()
    if not line.startswith(_MAGIC):
        raise MigrationError(f"{path} is not a run file of this migration; run again with "
                             "restart=True (--restart)")
    header: dict[str, Any] = json.loads(line[len(_MAGIC):])
    return header


@contextlib.contextmanager
def _runs_held(runs: Path, exclusive: bool) -> Iterator[bool]:
    """The runs directory's lock (``flock`` on the directory), held: shared while a task
    writes its run file into it, exclusive while the coordinator removes it; yields whether
    the directory is (still) there. A cancelled task keeps running on its worker (a cluster
    cannot stop a running task), so after a refusal one could create its temporary file in
    the directory while the coordinator removed it, which then stayed behind; now the
    coordinator waits for a task writing, and a task later finds no directory and writes
    nothing."""
    try:
        fd = os.open(runs, os.O_RDONLY)
    except FileNotFoundError:
        yield False
        return
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:  # removed (or removed and made again) while this waited for the lock
            there = os.path.samestat(os.fstat(fd), os.stat(runs))
        except FileNotFoundError:
            there = False
        yield there
    finally:
        os.close(fd)  # (and with it the lock)


def _remove_runs(runs: Path) -> None:
    """Remove the runs directory once no task is writing a run into it."""
    with _runs_held(runs, exclusive=True) as there:
        if there:
            shutil.rmtree(runs, ignore_errors=True)


def _write_run(run: Path, header: dict[str, Any], keys: list[bytes], values: list[bytes]
               ) -> None:
    """The header line, then the keys and the values as two lists in ``marshal``'s format
    (written and read in C); nothing when the runs directory is gone (the migration was
    given up: :func:`_runs_held`)."""
    def write(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            f.write(_MAGIC + json.dumps({**header, "entries": len(keys)}).encode() + b"\n")
            f.write(marshal.dumps((keys, values)))

    with _runs_held(run.parent, exclusive=False) as there:
        if there:
            write_atomic(run, write)


def _read_run(path: Path) -> tuple[list[bytes], list[bytes]]:
    with open(path, "rb") as f:
        header = json.loads(f.readline()[len(_MAGIC):])
        try:
            run = marshal.loads(f.read())
        except (EOFError, ValueError, TypeError):
            run = None
    if not (type(run) is tuple and len(run) == 2 and all(
            type(part) is list and len(part) == header["entries"] for part in run)):
        raise MigrationError(f"{path} is not a whole run file; run again with restart=True "
                             "(--restart)")
    keys, values = run
    return keys, values


def _transcode_range(src: str, t: Transcoder, lo: bytes | None, hi: bytes | None,
                     run: str) -> int:
    """The task: one source key range, transcoded, sorted by new key, to a run file."""
    lmdb = _lmdb()
    report = MigrationReport(t.source.name, t.target.name, str(t.schema), src)
    watch = _OrderWatch(report)
    new_keys: list[bytes] = []
    stored: list[bytes] = []
    try:
        env = lmdb.open(src, readonly=True, lock=False, create=False)
    except lmdb.Error as exc:  # e.g. a thread of the coordinator's process, which has it open
        raise MigrationError(f"a worker cannot open {src} ({exc}); the workers must be "
                             "processes of their own that see the path (LocalCluster("
                             "processes=True))") from None
    try:
        limit = env.max_key_size()
        with env.begin() as txn:
            keys_from, values_from = _range(txn, lo, hi)
            # the compiled kernel, as migrate_lmdb's copy: the first chunk checked (the
            # verification checks all), the old order watched
            new_key = kernel.new_key(t, _refuse, watch)
            while keys := list(islice(keys_from, _CHUNK)):
                new = list(map(new_key, keys))
                new_key.check = False
                _check_key_sizes(new, limit, t)
                new_keys += new
                stored += islice(values_from, len(keys))
    finally:
        env.close()
    first = new_keys[0] if new_keys else None
    if report.order_changes:  # else they are in order already, as nearly always
        order = sorted(range(len(new_keys)), key=new_keys.__getitem__)
        new_keys, stored = [new_keys[i] for i in order], [stored[i] for i in order]
    _write_run(Path(run), {"first": None if first is None else first.hex(),
                           "last": None if watch.last is None else watch.last.hex(),
                           "order_changes": report.order_changes,
                           "examples": report.examples}, new_keys, stored)
    return len(new_keys)


def _range(txn: Any, lo: bytes | None, hi: bytes | None) -> tuple[Iterator[bytes],
                                                                  Iterator[bytes]]:
    """The keys and the values from *lo* up to (not including) *hi*, as two iterators in
    step: LMDB reads keys alone and values alone faster than pairs, and the bound is
    compared in C (``hi.__gt__``)."""
    cursors = txn.cursor(), txn.cursor()
    for cursor in cursors:
        if not (cursor.first() if lo is None else cursor.set_range(lo)):
            return iter(()), iter(())
    keys: Iterator[bytes] = cursors[0].iternext(keys=True, values=False)
    if hi is not None:
        keys = takewhile(hi.__gt__, keys)
    return keys, cursors[1].iternext(keys=False, values=True)
