"""A dry run: what a migration would do, found by reading the store and writing nothing.

Theory of operation: the store is opened read-only (SQLite with ``mode=ro``, LMDB with
``readonly=True, lock=False``, RocksDB read-only; no lock file, no state, no new table) and its
keys are read in
their own order, exactly as the copy would read them. Each key goes through the
:class:`~lexcodecs.migrate.Transcoder` the real run would use, value check included, and
:class:`_Tally` counts what the real run would meet:

* the **plan** -- source, target, schema, store, and the steps the run would take, including
  what it would do with an unfinished migration already recorded for this store;
* the **keys** -- how many the store holds and how many were read (all, or a sample spread
  evenly through the store with *sample*);
* the **key growth** -- bytes before and after, in total, per key and at most;
* **collisions** -- two old keys that would become one new key (the real run refuses: the
  target cannot tell their values apart), found with a map of every new key read, which costs
  memory in proportion to the keys read (*sample* bounds it);
* **refusals** -- keys the source cannot read or the target cannot hold, keys that are not
  BLOBs, new keys too long for LMDB; the real run stops at the first one;
* the **old order** -- places where the old key order disagrees with the new one, as the real
  run's report counts them.

:meth:`DryRun.summary` is the text ``lexcodecs migrate --dry-run`` prints, :meth:`DryRun.to_dict`
its ``--json``.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Final

import attrs

from .._console import table, to_text
from ..errors import LexCodecError
from .defaults import BATCH_SIZE
from .directory import is_directory
from .report import MigrationReport, PhaseStart, Progress, _OrderWatch
from .sqlite_store import (
    NEW_SUFFIX,
    OLD_SUFFIX,
    STATE_TABLE,
    _key_is_primary,
    _quote,
    check_database_file,
)
from .transcoder import MigrationError, Transcoder, same_settings

__all__ = ["DryRun", "dry_run_lines", "dry_run_lmdb", "dry_run_rocksdb", "dry_run_sqlite"]

#: examples kept of each kind of problem
MAX_EXAMPLES: Final = 3


@attrs.define
class DryRun:
    """What a migration would do (see the module): the plan, counts, growth, problems."""

    source: str
    target: str
    schema: str
    where: str
    plan: list[str] = attrs.field(factory=list)
    #: keys in the store (``None``: a stream, not counted ahead)
    total: int | None = None
    #: keys read and handed to the transcoder
    keys: int = 0
    #: of those, keys that transcoded (the sizes are theirs, before and after)
    transcoded: int = 0
    #: every *step*-th key was transcoded (1: all of them)
    step: int = 1
    bytes_before: int = 0
    bytes_after: int = 0
    max_before: int = 0
    max_after: int = 0
    collisions: int = 0
    collision_examples: list[dict[str, str]] = attrs.field(factory=list)
    refused: int = 0
    refused_examples: list[str] = attrs.field(factory=list)
    order_changes: int = 0
    notes: list[str] = attrs.field(factory=list)

    def __repr__(self) -> str:
        verdict = "would go through" if self.would_succeed else "would be refused"
        return (f"<DryRun {self.source} -> {self.target} ({self.where}): {self.keys:,} keys "
                f"read, {verdict}>")

    @property
    def sampled(self) -> bool:
        """Whether only some of the keys were transcoded."""
        return self.total is not None and self.keys < self.total

    @property
    def would_succeed(self) -> bool:
        """No refusal and no collision among the keys read."""
        return self.refused == 0 and self.collisions == 0

    def growth(self) -> dict[str, float | None]:
        """Key bytes per key before and after, and the change (``None`` with no keys)."""
        if not self.transcoded:
            return {"mean_before": None, "mean_after": None, "change_per_key": None,
                    "change_percent": None}
        before = self.bytes_before / self.transcoded
        after = self.bytes_after / self.transcoded
        return {"mean_before": round(before, 2), "mean_after": round(after, 2),
                "change_per_key": round(after - before, 2),
                "change_percent": (round(100 * (after - before) / before, 1)
                                   if self.bytes_before else None)}

    def to_dict(self) -> dict[str, Any]:
        return {**attrs.asdict(self), "sampled": self.sampled,
                "would_succeed": self.would_succeed, "growth": self.growth(),
                "written": False}

    def summary(self, width: int | None = None) -> str:
        """The report as text; *width* wraps it (``None``: lines as long as they need)."""
        head = [f"dry run: {self.source} -> {self.target}, schema {self.schema}, "
                f"{self.where}; nothing was written"]
        head += [f"plan: {step}" for step in self.plan]
        head.append(f"keys: {self._counted()}")
        g = self.growth()
        sizes = table(
            ["key bytes", "before", "after", "change"],
            [[f"total ({self.transcoded:,} keys)", f"{self.bytes_before:,}",
              f"{self.bytes_after:,}", _percent(g["change_percent"])],
             ["per key", _number(g["mean_before"]), _number(g["mean_after"]),
              _signed(g["change_per_key"])],
             ["largest", f"{self.max_before:,}", f"{self.max_after:,}",
              _signed(self.max_after - self.max_before if self.transcoded else None)]])
        tail = [self._collisions(), self._refusals(), self._order()]
        tail += [f"note: {n}" for n in self.notes]
        tail.append(self._verdict())
        return to_text("\n".join(head), sizes, "\n".join(tail),
                       width=width if width is not None else 10_000)

    def _counted(self) -> str:
        if self.total is None:
            return f"{self.keys:,} read"
        if not self.sampled:
            return f"{self.total:,} in the store, every one read"
        return (f"{self.keys:,} of the {self.total:,} in the store read (every "
                f"{_ordinal(self.step)} in key order): the sizes are estimates, and "
                "collisions were looked for among those only")

    def _collisions(self) -> str:
        if not self.collisions:
            return "collisions: none (no two old keys become one new key)"
        lines = [f"collisions: {self.collisions:,} old key(s) would become the new key of "
                 "another one; the target cannot tell their values apart, e.g.:"]
        lines += [f"  {e['old']} and {e['other_old']} both become {e['new']}"
                  for e in self.collision_examples]
        return "\n".join(lines)

    def _refusals(self) -> str:
        if not self.refused:
            return "refusals: none"
        lines = [f"refusals: {self.refused:,} key(s) would be refused, e.g.:"]
        lines += [f"  {e}" for e in self.refused_examples]
        return "\n".join(lines)

    def _order(self) -> str:
        if not self.order_changes:
            return "order: the old key order agrees with the new one everywhere read"
        return (f"order: {self.order_changes:,} place(s) where the old key order disagrees "
                "with the new one (reported, not refused: see docs/migrating.md)")

    def _verdict(self) -> str:
        where = " among the keys read" if self.sampled else ""
        if self.would_succeed:
            return f"verdict: the migration would go through{where}"
        return ("verdict: the migration would be refused at the first problem above; the "
                "original would stay untouched")


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:,.2f}"


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+,.2f}".replace(".00", "")


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:+.1f}%"


def _ordinal(n: int) -> str:
    if n == 1:
        return "key"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


class _Tally:
    """Transcodes keys as the real run would, and counts what it would meet."""

    def __init__(self, transcoder: Transcoder, result: DryRun, *,
                 max_key: int | None = None) -> None:
        self.t = transcoder
        self.result = result
        self.max_key = max_key
        self.seen: dict[bytes, bytes] = {}  # new key -> the old key that became it
        self.watch = _OrderWatch(MigrationReport("", "", "", ""))

    def see(self, old: Any) -> None:
        r = self.result
        r.keys += 1
        if not isinstance(old, bytes):
            self.refuse(f"{old!r}: not a BLOB")
            return
        try:
            values = self.t.values(old)
            new = self.t.encode(values)
        except LexCodecError as exc:
            self.refuse(f"{old.hex(' ') or '(empty)'}: {exc}")
            return
        r.transcoded += 1
        r.bytes_before += len(old)
        r.max_before = max(r.max_before, len(old))
        r.bytes_after += len(new)
        r.max_after = max(r.max_after, len(new))
        if self.max_key is not None and not 1 <= len(new) <= self.max_key:
            self.refuse(f"{old.hex(' ')}: the new key has {len(new)} bytes; LMDB holds keys "
                        f"of 1..{self.max_key} bytes")
        other = self.seen.setdefault(new, old)
        if other != old:
            r.collisions += 1
            if len(r.collision_examples) < MAX_EXAMPLES:
                r.collision_examples.append({"old": old.hex(" "), "other_old": other.hex(" "),
                                             "new": new.hex(" ")})
        self.watch.see(new, values)
        r.order_changes = self.watch.report.order_changes

    def refuse(self, text: str) -> None:
        self.result.refused += 1
        if len(self.result.refused_examples) < MAX_EXAMPLES:
            self.result.refused_examples.append(text[:300])


def _every(keys: Iterable[Any], step: int, tally: _Tally, progress: Progress,
           start: int = 0) -> int:
    """Hand every *step*-th of *keys* to *tally*, counting on from *start* keys read before
    (another column family's), telling *progress* every 1000 keys; the keys read in all."""
    i = start
    for i, key in enumerate(keys, start + 1):
        if (i - 1) % step == 0:
            tally.see(key)
        if progress is not None and i % 1000 == 0:
            progress(i)
    return i


def _step(total: int, sample: int | None) -> int:
    if sample is None:
        return 1
    if type(sample) is not int or sample < 1:
        raise MigrationError(f"sample {sample!r}: a sample holds at least one key",
                             expected="an int >= 1")
    return max(1, math.ceil(total / sample))


def _batch_plan(batch_size: int) -> str:
    return f"in batches of {batch_size:,} keys, each committed with the position reached"


def dry_run_sqlite(database: str | os.PathLike[str] | sqlite3.Connection, table: str,
                   key_column: str, transcoder: Transcoder, *, sample: int | None = None,
                   batch_size: int = BATCH_SIZE, keep_old: bool = False,
                   progress: Progress = None, phase: PhaseStart = None) -> DryRun:
    """What :func:`~lexcodecs.migrate.migrate_sqlite` would do with these arguments, read
    from the database opened read-only (a path), or through *database* (a connection, which
    is only read). *sample* transcodes about that many keys, spread evenly through the table,
    instead of all of them."""
    if isinstance(database, sqlite3.Connection):
        return _dry_run_sqlite(database, table, key_column, transcoder, sample, batch_size,
                               keep_old, progress, phase)
    check_database_file(database)
    uri = Path(database).resolve().as_uri() + "?mode=ro"
    db = sqlite3.connect(uri, uri=True)
    try:
        return _dry_run_sqlite(db, table, key_column, transcoder, sample, batch_size,
                               keep_old, progress, phase)
    except sqlite3.DatabaseError as exc:
        raise MigrationError(f"SQLite: {exc} ({database}); nothing was written") from None
    finally:
        db.close()


def _dry_run_sqlite(db: sqlite3.Connection, table: str, key_column: str, t: Transcoder,
                    sample: int | None, batch_size: int, keep_old: bool, progress: Progress,
                    phase: PhaseStart) -> DryRun:
    _key_is_primary(db, table, key_column)
    total = int(db.execute(f"SELECT COUNT(*) FROM {_quote(table)}").fetchone()[0])
    result = DryRun(t.source.name, t.target.name, str(t.schema), f"sqlite table {table}",
                    total=total, step=_step(total, sample))
    new_table = table + NEW_SUFFIX
    result.plan = [
        f"copy the {total:,} rows of {table!r} into a new table {new_table!r} "
        + _batch_plan(batch_size),
        "verify: equal row counts, every row under its new key, the new keys in the natural "
        "order of the values",
        f"swap in one transaction: {table!r} is " + (f"kept as {table + OLD_SUFFIX!r}"
                                                     if keep_old else "dropped")
        + f", {new_table!r} takes its name, indexes and triggers"]
    result.notes += _sqlite_recorded(db, table, key_column, t)
    if phase is not None:
        phase("reading", total)
    keys = (row[0] for rows in _key_batches(db, table, key_column, batch_size) for row in rows)
    _every(keys, result.step, _Tally(t, result), progress)
    if progress is not None:
        progress(total)
    return result


def _key_batches(db: sqlite3.Connection, table: str, key_column: str, size: int
                 ) -> Iterator[list[tuple[Any, ...]]]:
    """The key column in key order, *size* rows at a time (keyset paging, as the copy)."""
    key = _quote(key_column)
    last: Any = None
    while True:
        rows = (db.execute(f"SELECT {key} FROM {_quote(table)} ORDER BY {key} LIMIT ?",
                           (size,)) if last is None else
                db.execute(f"SELECT {key} FROM {_quote(table)} WHERE {key} > ? ORDER BY {key} "
                           "LIMIT ?", (last, size))).fetchall()
        if not rows:
            return
        yield rows
        last = rows[-1][0]


def _sqlite_recorded(db: sqlite3.Connection, table: str, key_column: str,
                     t: Transcoder) -> list[str]:
    """What the real run would do with an unfinished migration recorded for *table*."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (STATE_TABLE,)).fetchone():
        stray = db.execute("SELECT 1 FROM sqlite_master WHERE name = ?",
                           (table + NEW_SUFFIX,)).fetchone()
        return [f"a table {table + NEW_SUFFIX!r} exists but no migration is recorded: the "
                "real run refuses unless --restart"] if stray else []
    row = db.execute(f"SELECT settings, phase, copied, report FROM {STATE_TABLE} "
                     "WHERE source_table = ?", (table,)).fetchone()
    if row is None:
        return []
    settings = {"source": t.source.config(), "target": t.target.config(),
                "schema": t.schema.to_text(), "key_column": key_column}
    return [_recorded(json.loads(row[0]), settings, row[1], f"{row[2]:,} rows copied",
                      json.loads(row[3]).get("refused"))]


def _recorded(saved: dict[str, Any], settings: dict[str, Any], phase: str, done: str,
              refused: str | None) -> str:
    head = f"an unfinished migration is recorded (phase {phase}, {done})"
    if same_settings(saved, json.loads(json.dumps(settings))):
        why = f"; it was refused ({refused})" if refused is not None else ""
        return (f"{head} with these settings: the real run resumes it (--restart discards "
                f"it){why}")
    if refused is not None:
        return f"{head} with other settings, refused ({refused}): the real run discards it"
    return f"{head} with other settings: the real run refuses unless --restart"


def dry_run_lmdb(path: str | os.PathLike[str], transcoder: Transcoder, *,
                 sample: int | None = None, batch_size: int = BATCH_SIZE, keep_old: bool = False,
                 progress: Progress = None, phase: PhaseStart = None) -> DryRun:
    """What :func:`~lexcodecs.migrate.migrate_lmdb` would do, read from the environment
    opened read-only and without a lock file; *sample* as for :func:`dry_run_sqlite`."""
    from .lmdb_store import _lmdb

    lmdb = _lmdb()
    t = transcoder
    src = Path(path)
    is_directory(src, "an LMDB environment")  # never a file opened: a named pipe would block
    try:
        env = lmdb.open(str(src), readonly=True, lock=False, create=False)
    except lmdb.Error as exc:
        raise MigrationError(f"{src} is not an LMDB environment ({exc})") from None
    try:
        total = int(env.stat()["entries"])
        result = DryRun(t.source.name, t.target.name, str(t.schema), f"lmdb {src}",
                        total=total, step=_step(total, sample))
        new = src.with_name(src.name + ".lexcodecs-new")
        result.plan = [
            f"copy the {total:,} entries into a new environment {new} "
            + _batch_plan(batch_size),
            "verify: equal entry counts, every value under its new key, the new keys in the "
            "natural order of the values",
            _swap_plan(src, keep_old)]
        result.notes += _recorded_beside(src, t)
        if phase is not None:
            phase("reading", total)
        with env.begin() as txn:
            keys = txn.cursor().iternext(keys=True, values=False)
            _every(keys, result.step, _Tally(t, result, max_key=env.max_key_size()), progress)
        if progress is not None:
            progress(total)
        return result
    finally:
        env.close()


def dry_run_rocksdb(path: str | os.PathLike[str], transcoder: Transcoder, *,
                    sample: int | None = None, batch_size: int = BATCH_SIZE,
                    keep_old: bool = False, progress: Progress = None,
                    phase: PhaseStart = None) -> DryRun:
    """What :func:`~lexcodecs.migrate.migrate_rocksdb` would do, read from the database
    opened read-only (every column family); *sample* as for :func:`dry_run_sqlite`. RocksDB
    keeps no exact count, so the keys are counted first, by one scan of the keys alone."""
    from .rocksdb_store import _rocksdict, _Source

    t = transcoder
    src = Path(path)
    with _Source(_rocksdict(), src) as source:
        counts = {name: sum(1 for _ in source.family(name).keys())  # noqa: SIM118 (iter(Rdict) fails in raw mode)
                  for name in source.families}
        total = sum(counts.values())
        result = DryRun(t.source.name, t.target.name, str(t.schema), f"rocksdb {src}",
                        total=total, step=_step(total, sample))
        new = src.with_name(src.name + ".lexcodecs-new")
        families = ", ".join(f"{name} ({n:,})" for name, n in counts.items())
        result.plan = [
            f"copy the {total:,} entries of the column families {families} into a new "
            f"database {new} " + _batch_plan(batch_size),
            "verify: old and new walked side by side, every entry under its new key, the new "
            "keys in the natural order of the values; the original not written meanwhile",
            _swap_plan(src, keep_old)]
        result.notes += _recorded_beside(src, t)
        if phase is not None:
            phase("reading", total)
        read = 0
        for name in source.families:  # a tally each: a collision is within a column
            tally = _Tally(t, result)  # family, so each family is its own key space
            read = _every(source.family(name).keys(), result.step, tally, progress, read)
        if progress is not None:
            progress(total)
        return result


def _swap_plan(src: Path, keep_old: bool) -> str:
    """The swap step of an LMDB or RocksDB plan."""
    kept = src.with_name(src.name + ".lexcodecs-old")
    return "swap the directories: the original is " + (
        f"kept as {kept}" if keep_old else "removed")


def _recorded_beside(src: Path, t: Transcoder) -> list[str]:
    """What the state file beside an LMDB or RocksDB store records, as notes."""
    state_path = src.with_name(src.name + ".lexcodecs-state")
    if not state_path.exists():
        if src.with_name(src.name + ".lexcodecs-new").exists():
            return [f"{src.name}.lexcodecs-new exists but no migration is recorded: the real "
                    "run refuses unless --restart"]
        return []
    try:
        state = json.loads(state_path.read_text(encoding="utf-8"))
        settings = {"source": t.source.config(), "target": t.target.config(),
                    "schema": t.schema.to_text()}
        return [_recorded(state["settings"], settings, state["phase"],
                          f"{state['report']['keys']:,} keys copied", None)]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return [f"the state file {state_path} cannot be read ({exc})"]


def dry_run_lines(transcoder: Transcoder, lines: Iterable[str], *, sample: int | None = None,
                  progress: Progress = None) -> DryRun:
    """What :func:`~lexcodecs.migrate.migrate_lines` would do with these hex lines; *sample*
    reads only the first that many keys (a stream is not counted ahead)."""
    t = transcoder
    if sample is not None:
        _step(1, sample)  # the same check
    result = DryRun(t.source.name, t.target.name, str(t.schema), "hex lines",
                    plan=["write one new hex key per line (blank lines kept)"])
    tally = _Tally(t, result)
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text:
            continue
        if sample is not None and result.keys >= sample:
            break
        try:
            key = bytes.fromhex(text)
        except ValueError:
            result.keys += 1
            tally.refuse(f"line {number}: not hex: {text[:40]!r}")
            continue
        tally.see(key)
        if progress is not None and result.keys % 1000 == 0:
            progress(result.keys)
    return result
