"""SQLite stores: migrate the key column of a table in place (copy, verify, swap).

Theory of operation (see also :mod:`lexcodecs.migrate`): the original table is never touched
until everything is known to be right.

1. **copy** -- batch after batch, one ``INSERT INTO <new> SELECT new_key(key), ... FROM
   <table> WHERE key > ? ORDER BY key LIMIT ?`` (keyset paging: constant memory; SQLite reads
   and writes the rows, Python only makes each new key, in an SQL function that is compiled
   where built, :mod:`lexcodecs.migrate.kernel`) into ``<table>__lexcodecs_new``, created
   from the
   table's own ``CREATE TABLE`` statement. Each batch commits in one transaction together with
   the position it reached, in the state table :data:`STATE_TABLE` (one row per table being
   migrated, with the settings, the phase and the report), so a run killed at any point
   resumes exactly there; a rerun with other settings is refused. Before anything is
   created, the table, its key column and the first key (decoded by the source, encoded by
   the target) are checked, so a wrong codec or schema leaves nothing behind. A run refused
   later, by a key the source cannot read or the target cannot hold, keeps its copy (fix the
   data and the same command resumes) but is recorded as refused: a rerun with other settings
   discards it instead of being blocked by it. A run refused before its first batch was
   committed removes what it created.
2. **verify** -- in one read transaction: equal row counts, then both tables read in their
   key order side by side (:class:`~lexcodecs.migrate.verify._Lockstep`): every old row is in
   the new table under its new key with the other columns equal, and the new table is in the
   natural order of the values (:mod:`lexcodecs.migrate.verify`).
3. **swap** -- one transaction drops the old table (or, with *keep_old*, renames it to
   ``<table>__lexcodecs_old``), renames the new one, makes the table's own indexes and
   triggers again, and forgets the state (dropping the state table when it is empty).

One migration of a table runs at a time (:func:`_table_lock`: an ``flock`` the operating
system drops when its holder dies, :mod:`lexcodecs.migrate.lock`); a second is refused. A
database that fills up is reported as "disk full"; SQLite has then rolled the batch back by
itself, the original is intact and the rerun resumes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Iterator, Sequence
from functools import partial
from operator import itemgetter
from typing import Any, Final

from ..errors import LexCodecError
from . import kernel
from .defaults import BATCH_SIZE
from .lock import exclusive
from .report import MigrationReport, PhaseStart, Progress, _OrderWatch
from .spans import Chunk, Splits, check_workers, join_spans, plan_spans, run_spans, workers_for
from .transcoder import MigrationError, Transcoder, same_settings, target_refusal
from .verify import _check_batch_size, _verify_chunk

__all__ = ["NEW_SUFFIX", "OLD_SUFFIX", "STATE_TABLE", "check_database_file", "migrate_sqlite"]

#: the table recording unfinished migrations of the database's tables
STATE_TABLE: Final = "lexcodecs_migration"
#: the suffixes of the copy being written and of the old table kept with keep_old
NEW_SUFFIX: Final = "__lexcodecs_new"
OLD_SUFFIX: Final = "__lexcodecs_old"


@kernel.collector_paused()
def migrate_sqlite(database: str | os.PathLike[str] | sqlite3.Connection, table: str,
                   key_column: str, transcoder: Transcoder, *, batch_size: int = BATCH_SIZE,
                   keep_old: bool = False, restart: bool = False,
                   progress: Progress = None, phase: PhaseStart = None,
                   workers: int | None = None) -> MigrationReport:
    """Migrate the keys of an SQLite table in place (copy, verify, swap; see the module).

    The key column must be the table's primary key; the other columns are carried over
    unchanged, and the table's indexes are created again on the new table. With *keep_old*
    the old table stays as ``<table>__lexcodecs_old``. A run that was interrupted resumes;
    *restart* discards the unfinished copy instead.

    *progress* is called with the number of keys copied after each batch. With *phase*, it is
    told when each phase starts (``"copying"``, then ``"verifying"``) with the number of
    steps it takes (the rows counted first), and *progress* then counts that phase's steps:
    keys copied (by this run and any it resumed), then keys verified.

    *workers* is the number of worker processes that share the verification with this one
    (default: one per processor but one, from 200,000 rows; none for a database in memory;
    see :mod:`~lexcodecs.migrate.spans`).
    """
    started = time.monotonic()  # the report's seconds: this run, from here to its end
    _check_batch_size(batch_size)
    check_workers(workers)
    own = not isinstance(database, sqlite3.Connection)
    if isinstance(database, sqlite3.Connection):
        db = database
        db.isolation_level = None  # transactions are ours
    else:
        check_database_file(database)
        db = sqlite3.connect(database, isolation_level=None)
        _fast_secure_delete(db)
    try:
        with _table_lock(db, table):
            report = _migrate_sqlite(db, table, key_column, transcoder, batch_size,
                                     keep_old, restart, progress, phase, workers)
    except sqlite3.DatabaseError as exc:
        where = database if own else "the connection"
        if _is_full(exc):
            raise MigrationError(
                f"disk full: the database {where} cannot grow (SQLite: {exc}); the original "
                f"table {table!r} is intact and the batches copied so far are kept: make room "
                "and run the same migration again, it resumes where it stopped") from None
        raise MigrationError(f"SQLite: {exc} ({where}); nothing was changed that a rerun "
                             "does not finish") from None
    finally:
        if own:
            db.close()
    report.seconds = time.monotonic() - started
    return report


def check_database_file(database: str | os.PathLike[str]) -> None:
    """A :class:`MigrationError` naming *database* when it is there but no file SQLite can
    open without waiting: a directory, a named pipe, a socket or a device, or one of those
    where its journal or write-ahead log goes (:func:`lexcodecs.sources.paths.path_problem`;
    SQLite would block for ever on a pipe). A path that is not there is SQLite's to make."""
    from ..sources.paths import path_problem

    path = os.fspath(database)
    if path == ":memory:" or not os.path.lexists(path):
        return
    reason = path_problem(path, "sqlite")
    if reason is not None:
        raise MigrationError(f"{path}: {reason}")


def _fast_secure_delete(db: sqlite3.Connection) -> None:
    """``secure_delete = FAST`` on a connection of our own that has it ON.

    An SQLite built with SECURE_DELETE (Debian's is) zeroes every page it frees, so the swap's
    ``DROP TABLE`` of the original wrote the whole table again: 756 ns a row against 61 with
    FAST, more than the rest of the swap. FAST still purges deleted content from b-tree pages;
    it leaves freed pages as they were, and the only pages this migration frees hold the
    original's rows (or a copy it drops), whose values the new table holds, under keys in the
    new encoding. A connection passed in keeps whatever its owner set."""
    if db.execute("PRAGMA secure_delete").fetchone()[0] == 1:
        db.execute("PRAGMA secure_delete = FAST")


#: SQLite's result code for "database or disk is full"
_SQLITE_FULL: Final = 13


def _is_full(exc: BaseException) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return bool(code & 0xFF == _SQLITE_FULL)
    return "full" in str(exc)


def _rollback(db: sqlite3.Connection) -> None:
    """Roll back the open transaction, if SQLite has not already (it rolls back by itself on
    some errors, a full disk among them: a second ROLLBACK would hide the real error)."""
    if db.in_transaction:
        db.execute("ROLLBACK")


@contextlib.contextmanager
def _table_lock(db: sqlite3.Connection, table: str) -> Iterator[None]:
    """Hold the lock of migrations of *table* (:func:`lexcodecs.migrate.lock.exclusive`): one
    at a time, a second run is refused. The lock file is
    ``<database>.lexcodecs-lock-<hash of the table name>``. An in-memory or temporary
    database cannot be reached by another process: no lock."""
    database = _database_path(db)
    if not database:
        yield
        return
    digest = hashlib.sha256(table.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    with exclusive(f"{database}.lexcodecs-lock-{digest}",
                   f"another migration of table {table!r} in {database} is running; wait "
                   "for it to finish, then run again"):
        yield


def _migrate_sqlite(db: sqlite3.Connection, table: str, key_column: str, t: Transcoder,
                    batch_size: int, keep_old: bool, restart: bool,
                    progress: Progress, phase: PhaseStart, workers: int | None
                    ) -> MigrationReport:
    new_table, old_table = table + NEW_SUFFIX, table + OLD_SUFFIX
    settings = json.dumps({"source": t.source.config(), "target": t.target.config(),
                           "schema": t.schema.to_text(), "key_column": key_column},
                          sort_keys=True)
    db.execute("BEGIN IMMEDIATE")
    try:
        state = _state(db, table)
        notes = []
        if state is not None and not restart and not same_settings(
                json.loads(state["settings"]), json.loads(settings)):
            refused = state["report"].get(_REFUSED)
            if refused is None:  # killed, not refused: its copy may be wanted
                raise MigrationError(
                    f"an unfinished migration of {table!r} with other settings is in this "
                    f"database ({state['settings']}); finish it with those settings, or "
                    "restart=True (--restart) to discard it")
            restart = True  # its copy is of no use to anyone: it cannot finish as it was
            notes.append("discarded the copy of an earlier run with other settings, which "
                         f"was refused ({refused})")
        if restart:
            db.execute(f"DROP TABLE IF EXISTS {_quote(new_table)}")
            db.execute(f"DELETE FROM {STATE_TABLE} WHERE source_table = ?", (table,))
            state = None
        columns = _key_is_primary(db, table, key_column)
        if state is None:
            exists = db.execute("SELECT 1 FROM sqlite_master WHERE name = ?",
                                (new_table,)).fetchone()
            if exists:
                raise MigrationError(f"table {new_table!r} exists but no migration is "
                                     "recorded; drop it, or use restart=True (--restart)")
            _check_first_key(db, table, key_column, t)
            db.execute(_renamed_sql(_table_sql(db, table), table, new_table))
            report = MigrationReport(t.source.name, t.target.name, str(t.schema),
                                     f"sqlite table {table}")
            db.execute(f"INSERT INTO {STATE_TABLE} VALUES (?, ?, 'copy', NULL, NULL, 0, ?)",
                       (table, settings, json.dumps(report.to_dict())))
        else:
            saved = {k: v for k, v in state["report"].items() if k not in (_REFUSED, _SPLITS)}
            report = MigrationReport.resume(saved)
        report.notes += notes
        db.execute("COMMIT")
    except BaseException:
        _rollback(db)
        raise
    assert state is None or isinstance(state, dict)
    splits = Splits.from_dict(None if state is None else state["report"].get(_SPLITS))
    try:
        if state is None or state["phase"] == "copy":
            if phase is not None:
                phase("copying", _count(db, table))
            _sqlite_copy(db, table, new_table, key_column, columns, t, report, state,
                         batch_size, progress, splits)
        _sqlite_verify(db, table, new_table, key_column, columns, t, report, batch_size,
                       progress if phase is not None else None, phase, splits.keys, workers)
    except MigrationError as exc:
        _note_refused(db, table, report, exc)
        raise
    swap_started = time.monotonic()
    _sqlite_swap(db, table, new_table, old_table, keep_old)
    report.swap_s += time.monotonic() - swap_started
    return report


#: the key, in the report saved with the state, that marks a run stopped by a refusal
_REFUSED: Final = "refused"
#: ... and the one that keeps the copy's split points for the verification (spans.Splits)
_SPLITS: Final = "splits"


def _check_first_key(db: sqlite3.Connection, table: str, key_column: str,
                     t: Transcoder) -> None:
    """Transcode the table's first key before anything is created: a wrong codec, option or
    schema is refused with nothing to clean up."""
    row = db.execute(f"SELECT {_quote(key_column)} FROM {_quote(table)} "
                     f"ORDER BY {_quote(key_column)} LIMIT 1").fetchone()
    if row is None:
        return
    key = row[0]
    if not isinstance(key, bytes):
        raise MigrationError(f"a key in {table}.{key_column} is not a BLOB: {key!r}; nothing "
                             "was changed")
    # the hint depends on the side that refused: a key the source cannot read says the
    # source's settings are wrong; values the target cannot hold say nothing of them
    what = f"the first key of {table!r}, {key.hex(' ') or '(empty)'}, does not transcode"
    try:
        values = t.values(key)
    except LexCodecError as exc:
        raise MigrationError(f"{what}: {exc}; nothing was changed (are the source codec, its "
                             "options and the schema those the keys were written with?)"
                             ) from None
    try:
        t.encode(values)
    except LexCodecError as exc:
        raise MigrationError(f"{what}: {exc}; nothing was changed: "
                             f"{target_refusal(t, exc, 'dry_run_sqlite')}") from None


def _note_refused(db: sqlite3.Connection, table: str, report: MigrationReport,
                  exc: MigrationError) -> None:
    """Record in the state that this run was refused (see the module), or, when nothing was
    copied, remove what the run created; best effort, since the refusal is what matters."""
    saved = {**report.to_dict(), _REFUSED: str(exc).splitlines()[0][:300]}
    with contextlib.suppress(sqlite3.Error):
        _rollback(db)
        if report.keys:
            db.execute(f"UPDATE {STATE_TABLE} SET report = ? WHERE source_table = ?",
                       (json.dumps(saved), table))
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            _forget(db, table)
            db.execute("COMMIT")
        except BaseException:
            _rollback(db)
            raise


def _forget(db: sqlite3.Connection, table: str) -> None:
    """Drop the new table and the state of *table*'s migration (and the state table when no
    other migration is left in it), inside the caller's transaction."""
    db.execute(f"DROP TABLE IF EXISTS {_quote(table + NEW_SUFFIX)}")
    db.execute(f"DELETE FROM {STATE_TABLE} WHERE source_table = ?", (table,))
    if not db.execute(f"SELECT 1 FROM {STATE_TABLE}").fetchone():
        db.execute(f"DROP TABLE {STATE_TABLE}")


def _count(db: sqlite3.Connection, table: str) -> int:
    return int(db.execute(f"SELECT COUNT(*) FROM {_quote(table)}").fetchone()[0])


def _state(db: sqlite3.Connection, table: str) -> dict[str, Any] | None:
    db.execute(f"CREATE TABLE IF NOT EXISTS {STATE_TABLE} (source_table TEXT PRIMARY KEY, "
               "settings TEXT, phase TEXT, last_key BLOB, last_new_key BLOB, copied INTEGER, "
               "report TEXT)")
    row = db.execute(f"SELECT settings, phase, last_key, last_new_key, copied, report FROM "
                     f"{STATE_TABLE} WHERE source_table = ?", (table,)).fetchone()
    if row is None:
        return None
    return {"settings": row[0], "phase": row[1], "last_key": row[2], "last_new_key": row[3],
            "copied": row[4], "report": json.loads(row[5])}


def _key_is_primary(db: sqlite3.Connection, table: str, key_column: str) -> list[str]:
    info = db.execute(f"PRAGMA table_info({_quote(table)})").fetchall()
    if not info:
        raise MigrationError(f"no table {table!r} in the database")
    columns = [row[1] for row in info]
    if key_column not in columns:
        raise MigrationError(f"table {table!r} has no column {key_column!r}; its columns: "
                             + ", ".join(columns))
    pk = [row[1] for row in info if row[5]]
    if pk != [key_column]:
        raise MigrationError(f"the key column {key_column!r} must be the primary key of "
                             f"{table!r} on its own (the primary key is {pk or 'none'})")
    return columns


def _table_sql(db: sqlite3.Connection, table: str) -> str:
    row = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
                     (table,)).fetchone()
    if row is None:
        raise MigrationError(f"no table {table!r} in the database")
    return str(row[0])


def _renamed_sql(sql: str, table: str, new_name: str) -> str:
    """The CREATE TABLE statement of *table* for a table called *new_name*.

    The name is read the way SQLite's tokenizer reads it: any of its four quotings (``"..."``,
    ``'...'``, ``[...]``, `````...`````, with doubled quotes inside), or a bare identifier
    (letters, digits, ``_``, ``$`` and any character above U+007F), possibly qualified by a
    schema name, with comments and white space around them.
    """
    head = _CREATE_TABLE.match(sql)
    if head is None:
        raise MigrationError(f"cannot read the definition of table {table!r}: {sql[:80]!r}")
    start = _skip_space(sql, head.end())
    end = _name_end(sql, start)
    after = _skip_space(sql, end)
    if end > start and after < len(sql) and sql[after] == ".":  # schema.table
        end = _name_end(sql, _skip_space(sql, after + 1))
    if end <= start:
        raise MigrationError(f"cannot read the definition of table {table!r}: {sql[:80]!r}")
    return sql[:start] + _quote(new_name) + sql[end:]


_CREATE_TABLE: Final = re.compile(r"\s*CREATE\s+(?:TEMP\s+|TEMPORARY\s+)?TABLE\s*"
                                  r"(?:(?:--[^\n]*(?:\n|$)|/\*.*?(?:\*/|$)|\s)*"
                                  r"IF\s+NOT\s+EXISTS(?![\w$\x80-\U0010ffff]))?",
                                  re.IGNORECASE | re.DOTALL)
_SPACE: Final = re.compile(r"(?:--[^\n]*(?:\n|$)|/\*.*?(?:\*/|$)|\s)*", re.DOTALL)
_NAME: Final = re.compile(r'"(?:[^"]|"")*"|\'(?:[^\']|\'\')*\'|\[[^\]]*\]|`(?:[^`]|``)*`'
                          r"|[A-Za-z0-9_$\x80-\U0010ffff]+")


def _skip_space(sql: str, pos: int) -> int:
    m = _SPACE.match(sql, pos)
    return pos if m is None else m.end()


def _name_end(sql: str, pos: int) -> int:
    m = _NAME.match(sql, pos)
    return pos if m is None else m.end()


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class _InterruptWatch:
    """Notes a Ctrl-C (SIGINT) while the copy runs, then lets the handler before it act.

    Python raises ``KeyboardInterrupt`` wherever the interpreter next checks for signals; when
    that is the first instruction of the SQL function, before any ``try`` of its own, SQLite
    swallows it into "user-defined function raised exception". The flag tells the copy that
    the error was a Ctrl-C. Only the main thread can set a handler; elsewhere this is a no-op.
    """

    def __init__(self) -> None:
        self.seen = False
        self._previous: Any = None
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.getsignal(signal.SIGINT)
            if callable(self._previous):
                signal.signal(signal.SIGINT, self._handle)
            else:
                self._previous = None

    def _handle(self, signum: int, frame: Any) -> None:
        self.seen = True
        self._previous(signum, frame)

    def close(self) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None


#: what the verification's lookup gives for a key the new table does not hold (equal to no
#: value; None would equal a NULL column)
_MISSING: Final = object()

#: the name of the copy's SQL function (registered on the connection while the copy runs)
_NEW_KEY_SQL: Final = "lexcodecs_new_key"


def _sqlite_copy(db: sqlite3.Connection, table: str, new_table: str, key_column: str,
                 columns: list[str], t: Transcoder, report: MigrationReport,
                 state: dict[str, Any] | None, batch_size: int, progress: Progress,
                 splits: Splits) -> None:
    """Copy in batches, each one ``INSERT ... SELECT`` of the next *batch_size* keys (keyset
    paging: constant memory), committed together with the position it reached, so that a
    run killed at any point resumes exactly there.

    The new key of each row is the SQL function :data:`_NEW_KEY_SQL`, a
    :class:`~lexcodecs.migrate.kernel.NewKey` (compiled where built): SQLite reads and writes
    the rows, and the function's work per row is the codecs' ``decode`` and ``encode``. It
    checks the new keys of the first batch (verify checks every key), follows the old order
    and remembers the last key, the position the batch reached.
    """
    cols = ", ".join(_quote(c) for c in columns)
    key = _quote(key_column)
    selected = ", ".join(f"{_NEW_KEY_SQL}({key})" if c == key_column else _quote(c)
                         for c in columns)
    insert = f"INSERT INTO {_quote(new_table)} ({cols}) SELECT {selected} FROM {_quote(table)} "
    first = insert + f"ORDER BY {key} LIMIT ?"
    then = insert + f"WHERE {key} > ? ORDER BY {key} LIMIT ?"
    last_key = None if state is None else state["last_key"]
    last_new = None if state is None else state["last_new_key"]
    watch = _OrderWatch(report, last_new,
                        None if last_new is None else t._target.decode(last_new))

    def refuse(key: Any, exc: LexCodecError | None) -> MigrationError:
        if exc is None:
            return MigrationError(f"a key in {table}.{key_column} is not a BLOB: {key!r}")
        return MigrationError(f"key {key.hex(' ')} of {table!r}: {exc}; the original is "
                              "untouched")

    new_key = kernel.new_key(t, refuse, watch)  # checks the first batch (see verify)
    db.create_function(_NEW_KEY_SQL, 1, new_key)
    spent, started = report.copy_s, time.monotonic()
    interrupts = _InterruptWatch()
    try:
        while True:
            db.execute("BEGIN IMMEDIATE")
            try:
                copied = (db.execute(first, (batch_size,)) if last_key is None
                          else db.execute(then, (last_key, batch_size))).rowcount
                if copied <= 0:
                    db.execute("COMMIT")
                    break
                new_key.check = False
                last_key = new_key.last_key
                report.keys += copied
                report.copy_s = spent + time.monotonic() - started
                if isinstance(last_key, bytes):
                    splits.add(last_key)
                saved = {**report.to_dict(), _SPLITS: splits.to_dict()}
                db.execute(f"UPDATE {STATE_TABLE} SET last_key = ?, last_new_key = ?, "
                           "copied = ?, report = ? WHERE source_table = ?",
                           (last_key, watch.last, report.keys, json.dumps(saved), table))
                db.execute("COMMIT")
            except sqlite3.IntegrityError as exc:
                _rollback(db)
                raise MigrationError(f"two keys of {table!r} have the same new key ({exc}): "
                                     "the target format cannot tell their values apart; the "
                                     "original is untouched") from None
            except sqlite3.OperationalError:
                _rollback(db)
                if new_key.error is not None:  # the refusal (or Ctrl-C) itself, not
                    raise new_key.error from None  # SQLite's wrapper of it
                if interrupts.seen:  # Ctrl-C landed in the function before its own try
                    raise KeyboardInterrupt from None
                raise
            except BaseException:
                _rollback(db)
                raise
            if progress is not None:
                progress(report.keys)
    finally:
        interrupts.close()
        db.create_function(_NEW_KEY_SQL, 1, None)
    report.copy_s = spent + time.monotonic() - started
    db.execute(f"UPDATE {STATE_TABLE} SET phase = 'verify' WHERE source_table = ?", (table,))


def _sqlite_verify(db: sqlite3.Connection, table: str, new_table: str, key_column: str,
                   columns: list[str], t: Transcoder, report: MigrationReport,
                   batch_size: int, progress: Progress = None, phase: PhaseStart = None,
                   splits: Sequence[bytes] = (), workers: int | None = None) -> None:
    """Equal row counts, then both tables read in their key order side by side
    (:class:`~lexcodecs.migrate.verify._Lockstep`), in spans at *splits* (old keys) walked by
    this process, in one read transaction, and by *workers* worker processes
    (:mod:`~lexcodecs.migrate.spans`): every old row is in the new table under its new key
    with the other columns equal (with equal counts, the new table holds exactly the old
    rows: a row changed between an interrupted run and its rerun is caught here), and the
    new keys are in the natural order of their values."""
    started = time.monotonic()
    db.execute("BEGIN")  # one snapshot, and no lock taken and dropped per statement
    try:
        old_count = _count(db, table)
        new_count = _count(db, new_table)
        if phase is not None:  # a step is a key verified: an old row and its new one
            phase("verifying", old_count)
        if old_count != new_count:
            raise MigrationError(f"{table!r} has {old_count} rows but the new table "
                                 f"{new_count}; the original is untouched (rows written to "
                                 "the old table during the migration? run again with "
                                 "--restart)")
        path = _database_path(db)
        helpers = workers_for(workers, old_count) if path else 0
        spans = plan_spans(t, report, splits, "", 1 + helpers)
        opener = partial(_SqliteSpans.open, path, table, new_table, key_column, columns)
        store = _SqliteSpans(db, table, new_table, key_column, columns)
        results = run_spans(store, opener, t, spans, _verify_chunk(batch_size), helpers,
                            progress)
    finally:
        _rollback(db)  # it only read
    report.anomalies.clear()
    join_spans(t, report, results)
    report.verify_s += time.monotonic() - started


def _database_path(db: sqlite3.Connection) -> str:
    """The file of the connection's main database ("" in memory or temporary)."""
    row = next((r for r in db.execute("PRAGMA database_list") if r[1] == "main"), None)
    return "" if row is None else str(row[2] or "")


class _SqliteSpans:
    """The old and the new table as the verification's spans read them
    (:class:`~lexcodecs.migrate.spans.SpanStore`): the key, and the other columns compared
    as one value."""

    def __init__(self, db: sqlite3.Connection, table: str, new_table: str, key_column: str,
                 columns: list[str]) -> None:
        self.db = db
        self.key = key = _quote(key_column)
        others = [_quote(c) for c in columns if c != key_column]
        self.cols = ", ".join([key, *others])
        self.tables = {"old": _quote(table), "new": _quote(new_table)}
        self.lookup_sql = f"SELECT {self.cols} FROM {_quote(new_table)} WHERE {key} = ?"
        # the column itself when there is one: no tuple made per row (a third of the
        # verification's time went to making them)
        self.rest = itemgetter(*range(1, len(columns))) if others else itemgetter(slice(1, 1))

    @classmethod
    def open(cls, path: str, table: str, new_table: str, key_column: str,
             columns: list[str]) -> _SqliteSpans:
        """The database opened read-only, in one read transaction (in a worker process)."""
        db = sqlite3.connect(f"file:{urllib.parse.quote(path)}?mode=ro", uri=True,
                             isolation_level=None)
        db.execute("BEGIN")
        return cls(db, table, new_table, key_column, columns)

    def chunks(self, side: str, part: str, after: bytes | None, upto: bytes | None,
               n: int) -> Iterator[Chunk]:
        where = [f"{self.key} > ?"] * (after is not None) + [f"{self.key} <= ?"] * (
            upto is not None)
        rows = self.db.execute(
            f"SELECT {self.cols} FROM {self.tables[side]} "
            + ("WHERE " + " AND ".join(where) if where else "") + f" ORDER BY {self.key}",
            [bound for bound in (after, upto) if bound is not None])
        while batch := rows.fetchmany(n):
            yield [row[0] for row in batch], list(map(self.rest, batch))

    def lookup(self, part: str, new_key: bytes) -> Any:
        row = self.db.execute(self.lookup_sql, (new_key,)).fetchone()
        return _MISSING if row is None else self.rest(row)  # not None: a column can be NULL

    def label(self, part: str) -> str:
        return "new table"

    def close(self) -> None:
        self.db.close()


def _sqlite_swap(db: sqlite3.Connection, table: str, new_table: str, old_table: str,
                 keep_old: bool) -> None:
    # the table's own indexes and triggers go with it: take them, and make them again on the
    # new table under the old name; views and other tables' REFERENCES name the table, and
    # legacy_alter_table keeps RENAME from rewriting them to follow the old table
    owned = db.execute("SELECT type, name, sql FROM sqlite_master WHERE type IN ('index', "
                       "'trigger') AND tbl_name = ? AND sql IS NOT NULL", (table,)).fetchall()
    db.execute("PRAGMA legacy_alter_table = ON")
    db.execute("BEGIN IMMEDIATE")
    try:
        if keep_old:
            db.execute(f"DROP TABLE IF EXISTS {_quote(old_table)}")
            for kind, name, _ in owned:  # the names go to the new table
                db.execute(f"DROP {kind.upper()} {_quote(name)}")
            db.execute(f"ALTER TABLE {_quote(table)} RENAME TO {_quote(old_table)}")
        else:
            db.execute(f"DROP TABLE {_quote(table)}")
        db.execute(f"ALTER TABLE {_quote(new_table)} RENAME TO {_quote(table)}")
        for _, _, sql in owned:
            db.execute(sql)
        db.execute(f"DELETE FROM {STATE_TABLE} WHERE source_table = ?", (table,))
        if not db.execute(f"SELECT 1 FROM {STATE_TABLE}").fetchone():
            db.execute(f"DROP TABLE {STATE_TABLE}")
        db.execute("COMMIT")
    except sqlite3.Error as exc:
        _rollback(db)
        raise MigrationError(f"{'disk full: ' if _is_full(exc) else ''}the swap of {table!r} "
                             f"failed ({exc}); nothing changed: the old "
                             "table is intact and the checked copy is kept for a rerun") from None
    except BaseException:
        _rollback(db)
        raise
    finally:
        db.execute("PRAGMA legacy_alter_table = OFF")
