"""LMDB stores: migrate the keys of an environment's main database, values unchanged.

Theory of operation (see also :mod:`lexcodecs.migrate`): the original environment is only
read until everything is known to be right. Next to ``<path>`` live:

* ``<path>.lexcodecs-new`` -- the new environment the copy writes, sized from the old one;
* ``<path>.lexcodecs-state`` -- a JSON state file (settings, phase, the last source and new
  key reached, the report), replaced atomically after every committed batch
  (:func:`lexcodecs.migrate.directory.write_state`); a batch copied again after a crash
  writes the same keys and values again, and LMDB keeps one of each;
* ``<path>.lexcodecs-old`` -- the original, after the swap, when it is kept.

The phases are ``copy``, ``copied`` and ``verified``. The copy reads the source with one
cursor and writes each batch with ``putmulti`` in one write transaction. Verify checks, in one
read transaction per environment, equal entry counts, then walks both in their key order side
by side (:class:`~lexcodecs.migrate.verify._Lockstep`): every old entry under its new key with
its value, and the natural order of the new keys. The swap is
two directory renames (``<path>`` to ``.lexcodecs-old``, ``.lexcodecs-new`` to ``<path>``); a
rerun tells from what exists which of them happened and finishes them, and a restart never
discards a verified copy that is being swapped in; a rerun that finds the original moved aside
but no verified copy puts the original back (:func:`lexcodecs.migrate.directory.half_swapped`;
the paths, the state file and the swap are shared with RocksDB there). The new map doubles
whenever a batch does not fit (:func:`_lmdb_put_batch`); a refusal while copying or checking
removes the new environment and the state file. A run is a
:class:`lexcodecs.migrate.directory.Run`: the environment checked first (a directory; nothing
read-only that the run must write or remove), then the lock beside it held (a second run is
refused before it touches anything), and the run's own files checked before each state write
and before the swap (a run whose files another process changed stops without swapping).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any

from ..errors import LexCodecError
from . import kernel
from .defaults import BATCH_SIZE
from .directory import Run
from .report import MigrationReport, PhaseStart, Progress, _OrderWatch
from .spans import (
    Chunk,
    EarlySpans,
    Splits,
    check_workers,
    chunks_upto,
    join_spans,
    plan_spans,
    run_spans,
    workers_for,
)
from .transcoder import MigrationError, Transcoder
from .verify import _check_batch_size, _verify_chunk

__all__ = ["migrate_lmdb"]


@kernel.collector_paused()
def migrate_lmdb(path: str | os.PathLike[str], transcoder: Transcoder, *,
                 batch_size: int = BATCH_SIZE, keep_old: bool = False, restart: bool = False,
                 progress: Progress = None, map_size: int | None = None,
                 phase: PhaseStart = None, workers: int | None = None) -> MigrationReport:
    """Migrate the keys of an LMDB environment (its main database), values unchanged.

    The new keys go to a new environment ``<path>.lexcodecs-new``; the position reached is
    saved after each committed batch in ``<path>.lexcodecs-state`` (a batch copied again
    after a crash writes the same keys and values again: LMDB keeps one of each). After the
    checks the directories are swapped; the old one stays as ``<path>.lexcodecs-old`` with
    *keep_old*, else it is removed.

    The new environment's map starts at *map_size* bytes (default: the larger of the
    source's map, twice the space it uses, and 64 MiB) and doubles whenever a batch does not
    fit (between transactions, as LMDB allows), so a target with larger keys never fails for
    room. A refusal while copying or checking removes the half-written new environment and
    the state file: a rerun starts afresh, and nothing is left behind.

    *progress* and *phase* are as for :func:`~lexcodecs.migrate.migrate_sqlite` (the totals
    are the environments' entry counts). *workers* is the number of worker processes that
    share the verification with this one (default: one per processor but one, from
    200,000 keys; see :mod:`~lexcodecs.migrate.spans`).
    """
    _check_batch_size(batch_size)
    check_workers(workers)
    if map_size is not None and (isinstance(map_size, bool) or not isinstance(map_size, int)
                                 or map_size < 1):
        raise MigrationError(f"map_size must be a positive number of bytes, not {map_size!r}")
    lmdb = _lmdb()
    t = transcoder
    started = time.monotonic()
    run = Run(path, "an LMDB environment")

    def fresh(settings: dict[str, Any], report: MigrationReport) -> dict[str, Any]:
        return {"settings": settings, "phase": "copy", "last_key": None,
                "last_new_key": None, "report": report.to_dict()}

    def work(state: dict[str, Any], report: MigrationReport) -> None:
        _lmdb_migrate(lmdb, run, state, report, t, batch_size, progress, map_size, phase,
                      workers)

    report = run.migrate(t, restart=restart, keep_old=keep_old, where=f"lmdb {run.at.path}",
                         fresh=fresh, work=work)
    report.seconds = time.monotonic() - started  # this run's (see the report)
    return report


def _lmdb_migrate(lmdb: Any, run: Run, state: dict[str, Any], report: MigrationReport,
                  t: Transcoder, batch_size: int, progress: Progress, map_size: int | None,
                  phase: PhaseStart, workers: int | None) -> None:
    """Copy (from where the state says) and verify (:meth:`Run.migrate`'s work)."""
    src_path, new_path = run.at.path, run.at.new
    try:
        source = lmdb.open(str(src_path), readonly=True, lock=False, create=False)
    except lmdb.Error as exc:
        raise MigrationError(f"{src_path} is not an LMDB environment ({exc})") from None
    try:
        size = map_size or max(source.info()["map_size"], 2 * _used_bytes(source),
                               _MIN_MAP_SIZE)
        # recorded before the new environment exists: a run killed from here on resumes
        run.write(state)
        try:
            target = lmdb.open(str(new_path), map_size=size)
        except lmdb.Error as exc:
            raise MigrationError(f"LMDB: cannot create {new_path} ({exc}); the original "
                                 "is untouched") from None
        early = None
        try:
            run.made_new(state)
            if state["phase"] == "copy":
                entries = source.stat()["entries"]
                if phase is not None:
                    phase("copying", entries)
                if state["last_key"] is None and workers_for(workers, entries):
                    early = EarlySpans(partial(_LmdbSpans.open, source.path(),
                                               target.path(), live=True),
                                       t, _verify_chunk(batch_size))
                _lmdb_copy(source, target, t, report, state, run, batch_size, progress,
                           early)
            verify_started = time.monotonic()
            _lmdb_verify(source, target, t, report, batch_size,
                         progress if phase is not None else None, phase,
                         splits=Splits.from_dict(state.get("splits")).keys,
                         workers=workers, early=early)
            report.verify_s += time.monotonic() - verify_started
        except lmdb.Error as exc:
            raise MigrationError(f"LMDB: {exc} (writing {new_path}); the original is "
                                 "untouched") from None
        finally:
            if early is not None:
                early.close()
            target.close()
    finally:
        source.close()


#: the smallest map a new environment starts with (unless map_size says otherwise)
_MIN_MAP_SIZE = 1 << 26
#: the map never grows beyond this (a batch that does not fit then is a refusal)
_MAX_MAP_SIZE = 1 << 44


def _lmdb() -> Any:
    try:
        import lmdb
    except ImportError:
        raise MigrationError("LMDB migrations need the lmdb package: "
                             "pip install 'lexcodecs[lmdb]'") from None
    return lmdb


def _used_bytes(env: Any) -> int:
    info, stat = env.info(), env.stat()
    return int((info["last_pgno"] + 1) * stat["psize"])


def _lmdb_copy(source: Any, target: Any, t: Transcoder, report: MigrationReport,
               state: dict[str, Any], run: Run, batch_size: int,
               progress: Progress, early: EarlySpans | None = None) -> None:
    """Copy in batches, one write transaction each, the position reached written to the
    state file after each; each batch's span handed to *early* once committed."""
    last_key = None if state["last_key"] is None else bytes.fromhex(state["last_key"])
    last_new = None if state["last_new_key"] is None else bytes.fromhex(state["last_new_key"])
    watch = _OrderWatch(report, last_new,
                        None if last_new is None else t._target.decode(last_new))
    new_key = kernel.new_key(t, _refuse, watch)  # checks the first batch (see verify)
    splits = Splits.from_dict(state.get("splits"))
    spent, started = report.copy_s, time.monotonic()
    with source.begin() as reader:
        for keys, stored in chunks_upto(*_entries_after(reader, last_key), None, batch_size):
            new_keys = list(map(new_key, keys))
            new_key.check = False
            last_key = keys[-1]
            _check_key_sizes(new_keys, target.max_key_size(), t)
            _lmdb_put_batch(target, new_keys, stored)
            report.keys += len(keys)
            report.copy_s = spent + time.monotonic() - started
            splits.add(last_key)
            state.update(last_key=last_key.hex(),
                         last_new_key=None if watch.last is None else watch.last.hex(),
                         splits=splits.to_dict(), report=report.to_dict())
            run.write(state)
            if early is not None and watch.last is not None and not report.order_changes:
                early.copied(last_key, watch.last)
            if progress is not None:
                progress(report.keys)
    state.update(phase="copied", report=report.to_dict())
    run.write(state)


def _check_key_sizes(new_keys: list[bytes], limit: int, t: Transcoder) -> None:
    """Refuse a batch with a new key LMDB cannot hold (1..*limit* bytes); decided in C."""
    if new_keys and not 1 <= min(map(len, new_keys)) <= max(map(len, new_keys)) <= limit:
        new = next(new for new in new_keys if not 1 <= len(new) <= limit)
        raise MigrationError(f"the new key {new.hex(' ') or '(empty)'} has {len(new)} bytes; "
                             f"LMDB holds keys of 1..{limit} bytes; the original is untouched",
                             codec=t.target.name)


def _refuse(key: bytes, exc: LexCodecError | None) -> MigrationError:
    return MigrationError(f"key {key.hex(' ')}: {exc}; the original is untouched")


def _entries_after(txn: Any, last_key: bytes | None) -> tuple[Iterator[bytes], Iterator[bytes]]:
    """The keys and the values after *last_key* (from the first without one), as two
    iterators in step: LMDB reads keys alone and values alone faster than (key, value)
    pairs, which Python must then take apart again."""
    cursors = txn.cursor(), txn.cursor()
    for cursor in cursors:
        positioned = cursor.set_range(last_key) if last_key is not None else cursor.first()
        if positioned and last_key is not None and cursor.key() == last_key:
            positioned = cursor.next()
        if not positioned:
            return iter(()), iter(())
    return (cursors[0].iternext(keys=True, values=False),
            cursors[1].iternext(keys=False, values=True))


def _lmdb_put_batch(target: Any, keys: list[bytes], values: list[bytes]) -> None:
    """Write one batch in one transaction; when the map is full, the transaction is aborted,
    the map doubled (between transactions, as LMDB allows) and the batch written again."""
    lmdb = _lmdb()
    while True:
        try:
            with target.begin(write=True) as txn:
                txn.cursor().putmulti(zip(keys, values))
            return
        except lmdb.MapFullError:
            size = target.info()["map_size"]
            if size >= _MAX_MAP_SIZE:
                raise MigrationError(f"the new environment is full at a map of {size:,} "
                                     "bytes; the original is untouched") from None
            target.set_mapsize(min(2 * size, _MAX_MAP_SIZE))


def _lmdb_verify(source: Any, target: Any, t: Transcoder, report: MigrationReport,
                 batch_size: int, progress: Progress = None, phase: PhaseStart = None, *,
                 splits: Sequence[bytes] = (), workers: int | None = None,
                 early: EarlySpans | None = None) -> None:
    """Equal entry counts, then both environments walked in their key order side by side
    (:class:`~lexcodecs.migrate.verify._Lockstep`), in spans at *splits* (old keys) by this
    process and *workers* worker processes (:mod:`~lexcodecs.migrate.spans`), or what is left
    of *early*'s spans, walked while the copy went on: with equal counts, every old entry
    found under its new key means exactly the old data."""
    old_count = source.stat()["entries"]
    new_count = target.stat()["entries"]
    if phase is not None:  # a step is a key verified: an old entry and its new one
        phase("verifying", old_count)
    if old_count != new_count:
        raise MigrationError(f"the source holds {old_count} keys but the new environment "
                             f"{new_count}: two keys have the same new key (the target "
                             "cannot tell their values apart), or the source changed during "
                             "the migration; the original is untouched")
    with source.begin() as old, target.begin() as new:
        store = _LmdbSpans(old, new)
        results = None if early is None else early.finish(store, report, progress)
        if results is None:  # no early spans, or the order changed: all spans from here
            helpers = workers_for(workers, old_count)
            results = run_spans(store, partial(_LmdbSpans.open, source.path(), target.path()),
                                t, plan_spans(t, report, splits, "", 1 + helpers),
                                _verify_chunk(batch_size), helpers, progress)
    report.anomalies.clear()
    join_spans(t, report, results)


def _begin_resized(env: Any) -> Any:
    """A read transaction, after taking up a map the writer grew meanwhile."""
    try:
        return env.begin()
    except _lmdb().MapResizedError:
        env.set_mapsize(0)  # LMDB: 0 takes up the size another process set
        return env.begin()


class _LmdbSpans:
    """The old and the new environment as the verification's spans read them
    (:class:`~lexcodecs.migrate.spans.SpanStore`), in one read transaction each."""

    def __init__(self, old: Any, new: Any, envs: tuple[Any, ...] = (), *,
                 live: bool = False) -> None:
        self.txns = {"old": old, "new": new}
        self.envs = envs  # opened by open(): closed with the store
        self.live = live

    @classmethod
    def open(cls, old_path: str, new_path: str, *, live: bool = False) -> _LmdbSpans:
        """Both environments opened read-only (in a worker process). *live*: the copy is
        still writing the new one, so its readers take part in its locking (a writer does
        not reuse pages a registered reader may see), and each span reads it afresh."""
        lmdb = _lmdb()
        envs = (lmdb.open(old_path, readonly=True, lock=False, create=False),
                lmdb.open(new_path, readonly=True, lock=live, create=False))
        return cls(envs[0].begin(), envs[1].begin(), envs, live=live)

    def chunks(self, side: str, part: str, after: bytes | None, upto: bytes | None,
               n: int) -> Iterator[Chunk]:
        if self.live and side == "new":  # what the copy committed since the last span
            self.txns["new"].abort()
            self.txns["new"] = _begin_resized(self.envs[1])
        return chunks_upto(*_entries_after(self.txns[side], after), upto, n)

    def lookup(self, part: str, new_key: bytes) -> Any:
        return self.txns["new"].get(new_key)

    def label(self, part: str) -> str:
        return "new environment"

    def close(self) -> None:
        for txn in self.txns.values():
            txn.abort()
        for env in self.envs:
            env.close()
