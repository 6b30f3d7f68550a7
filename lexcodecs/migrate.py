"""Moving stored keys from one format to another: the Transcoder, streams and stores.

Theory of operation: a :class:`Transcoder` decodes a key with the source codec and encodes the
values with the target codec, both bound to one schema. It refuses at construction when the
source cannot decode that schema, and it checks every new key: decoded by the target, it must
give back the values the old key held (a target that cannot hold them is a refusal, never a
silent change).

A store migration never touches the original until everything is known to be right:

1. **copy** -- read the source in its own key order, one batch at a time (keyset paging, so
   memory does not grow with the number of keys), transcode, and write the rows to a new table
   (SQLite) or a new environment (LMDB). Each batch is committed together with the position it
   reached, so a run that is killed at any point resumes exactly there: nothing lost, nothing
   written twice.
2. **verify** -- the same number of rows; the new store, read with its own ordered scan, is in
   the natural order of the values (a departure explained by one of the target codec's
   declared anomalies is reported; any other stops the migration).
3. **swap** -- atomically: one SQLite transaction drops (or keeps, renamed) the old table and
   renames the new one; for LMDB two directory renames, which a rerun completes if a crash
   came between them.

The report counts the keys migrated and the places where the old order disagreed with the new
one: a source format with anomalies can have stored its keys in a wrong order.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Final, TextIO

import attrs

from .codec import Codec
from .errors import LexCodecError, NotDecodableError
from .model import ModelError, identical, key_function, model_equal
from .registry import get_codec
from .schema import KeySchema

__all__ = [
    "MigrationError",
    "MigrationReport",
    "Transcoder",
    "migrate_lines",
    "migrate_lmdb",
    "migrate_sqlite",
    "transcode_partition",
]

#: examples of changed order kept in a report
MAX_EXAMPLES: Final = 5
STATE_TABLE: Final = "lexcodecs_migration"
NEW_SUFFIX: Final = "__lexcodecs_new"
OLD_SUFFIX: Final = "__lexcodecs_old"

Progress = Callable[[int], None] | None


class MigrationError(LexCodecError):
    """A migration cannot go on; the original data is untouched (the message says why)."""


def _as_codec(codec: Codec | str | Mapping[str, Any]) -> Codec:
    if isinstance(codec, str):
        return get_codec(codec)
    if isinstance(codec, Mapping):
        return get_codec(**codec)
    return codec


# -- the transcoder -------------------------------------------------------------------------


class Transcoder:
    """Source keys to target keys for one schema; picklable, for process pools and Dask.

    *source* and *target* are codecs, registry names or ``config()`` dicts.

    >>> t = Transcoder("fdb-tuple", "skv", "tenant:string, n:int64")
    >>> t.transcode(bytes.fromhex("02 61 63 6d 65 00 15 2a")).hex(" ")
    '01 61 63 6d 65 00 01 04 03 00 00 00 00 00 00 00 2a 00 01'
    """

    def __init__(self, source: Codec | str | Mapping[str, Any],
                 target: Codec | str | Mapping[str, Any], schema: KeySchema | str | Any, *,
                 check: bool = True) -> None:
        self.source = _as_codec(source)
        self.target = _as_codec(target)
        self.schema = KeySchema.coerce(schema)
        self.check = check
        if self.source.capabilities.decoding == "none":
            raise NotDecodableError("the source format cannot be decoded, so its keys cannot "
                                    "be transcoded", codec=self.source.name)
        self._source = self.source.bind(self.schema)
        self._target = self.target.bind(self.schema)
        try:
            self._source.decode(b"")
        except NotDecodableError as exc:
            raise NotDecodableError(f"the source cannot decode keys of this schema: "
                                    f"{exc.reason}", codec=self.source.name,
                                    expected=exc.expected) from None
        except LexCodecError:
            pass  # b"" is not a key; the schema itself decodes
        self._policy = self.source.capabilities.float_policy

    def __repr__(self) -> str:
        return f"Transcoder({self.source.name!r} -> {self.target.name!r}, [{self.schema}])"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_transcoder, (self.source.config(), self.target.config(),
                                      self.schema.to_dict(), self.check))

    def values(self, key: bytes) -> tuple[Any, ...]:
        """The values of a source key."""
        return self._source.decode(key)

    def encode(self, values: tuple[Any, ...]) -> bytes:
        """The target key of *values*, checked to decode back to them."""
        new = self._target.encode(values)
        if self.check:
            back = self._target.decode(new)
            if not _same_values(values, back, self.schema, self._policy):
                raise MigrationError(
                    f"the target cannot hold these values: {values!r} is written "
                    f"{new.hex(' ')}, which decodes to {back!r}", codec=self.target.name)
        return new

    def transcode(self, key: bytes) -> bytes:
        """The target key holding the values of the source *key*."""
        return self.encode(self.values(key))

    def transcode_many(self, keys: Iterable[bytes]) -> Iterator[bytes]:
        """Transcode a stream of keys lazily (a Dask partition, a file, a cursor)."""
        for key in keys:
            yield self.transcode(key)


def _rebuild_transcoder(source: dict[str, Any], target: dict[str, Any],
                        schema: dict[str, Any], check: bool) -> Transcoder:
    return Transcoder(source, target, KeySchema.from_dict(schema), check=check)


def _same_values(a: tuple[Any, ...], b: tuple[Any, ...], schema: KeySchema,
                 policy: Any) -> bool:
    # the usual case, cheaply: equal, of the same types, and no zero whose sign may differ
    # (-0.0 == 0.0 for Python, but not for every codec's model)
    if a == b and all(type(x) is type(y) and not (type(x) is float and x == 0.0)
                      for x, y in zip(a, b)):
        return True
    try:
        return model_equal(a, b, schema, policy)
    except ModelError:
        return identical(a, b)


def transcode_partition(keys: Iterable[bytes], transcoder: Transcoder) -> list[bytes]:
    """One partition's keys, transcoded, for Dask and friends::

        dask.bag.from_sequence(keys, npartitions=8).map_partitions(
            transcode_partition, transcoder).compute(scheduler="processes")
    """
    return list(transcoder.transcode_many(keys))


# -- reports --------------------------------------------------------------------------------


@attrs.define
class MigrationReport:
    """What a migration did: keys, order changes (with examples), time."""

    source: str
    target: str
    schema: str
    where: str
    keys: int = 0
    order_changes: int = 0
    examples: list[tuple[list[Any], list[Any]]] = attrs.field(factory=list)
    anomalies: dict[str, int] = attrs.field(factory=dict)
    seconds: float = 0.0
    resumed: bool = False

    def note_order(self, before: tuple[Any, ...], after: tuple[Any, ...]) -> None:
        """Two keys adjacent in the old order whose new keys sort the other way."""
        self.order_changes += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(([repr(v) for v in before], [repr(v) for v in after]))

    def to_dict(self) -> dict[str, Any]:
        return attrs.asdict(self)

    def summary(self) -> str:
        rate = self.keys / self.seconds if self.seconds else 0.0
        lines = [f"migrated {self.keys:,} keys {self.source} -> {self.target} ({self.where}) "
                 f"in {self.seconds:.2f} s ({rate:,.0f} keys/s)"
                 + (", resumed" if self.resumed else "")]
        if self.order_changes:
            lines.append(f"{self.order_changes:,} place(s) where the old key order disagreed "
                         "with the new one, e.g.:")
            lines += [f"  {' , '.join(a)}  then  {' , '.join(b)}" for a, b in self.examples]
        else:
            lines.append("the old key order agreed with the new one everywhere")
        for name, count in self.anomalies.items():
            lines.append(f"{count:,} departure(s) from the natural order in the new keys, "
                         f"declared by the target as anomaly {name!r}")
        return "\n".join(lines)


class _OrderWatch:
    """Follows the new keys in old order: where a new key sorts before the previous one, the
    old order disagreed with the new."""

    def __init__(self, report: MigrationReport, last: bytes | None = None,
                 last_values: tuple[Any, ...] | None = None) -> None:
        self.report = report
        self.last = last
        self.last_values = last_values

    def see(self, new: bytes, values: tuple[Any, ...]) -> None:
        if self.last is not None and new < self.last:
            self.report.note_order(self.last_values or (), values)
        self.last, self.last_values = new, values


# -- hex-line streams -----------------------------------------------------------------------


def migrate_lines(transcoder: Transcoder, lines: Iterable[str], out: TextIO, *,
                  progress: Progress = None) -> MigrationReport:
    """Hex keys, one per line, to hex keys; blank lines are kept as blank lines."""
    report = MigrationReport(transcoder.source.name, transcoder.target.name,
                             str(transcoder.schema), "hex lines")
    watch = _OrderWatch(report)
    started = time.monotonic()
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text:
            out.write("\n")
            continue
        try:
            key = bytes.fromhex(text)
        except ValueError:
            raise MigrationError(f"line {number}: not hex: {text[:40]!r}") from None
        try:
            values = transcoder.values(key)
            new = transcoder.encode(values)
        except LexCodecError as exc:
            raise MigrationError(f"line {number}: {exc}") from None
        watch.see(new, values)
        out.write(new.hex() + "\n")
        report.keys += 1
        if progress is not None and report.keys % 1000 == 0:
            progress(report.keys)
    report.seconds = time.monotonic() - started
    return report


# -- the natural-order check of a migrated store ------------------------------------------


class _NaturalOrder:
    """Checks that keys read in store order have values in natural order (spec of verify)."""

    def __init__(self, transcoder: Transcoder, report: MigrationReport) -> None:
        self.t = transcoder
        self.report = report
        self.schema = transcoder.schema
        self.natural = key_function(self.schema, transcoder.target.capabilities.float_policy)
        self.last: tuple[Any, ...] | None = None
        self.last_key: Any = None

    def see(self, key: bytes) -> None:
        values = self.t._target.decode(key)
        model = self.natural(values)
        if self.last is not None and model < self.last_key:
            anomaly = self.t.target.capabilities.explained(("order",), self.schema, values,
                                                           self.last)
            if anomaly is None:
                raise MigrationError(
                    f"the new keys are not in the natural order: {self.last!r} sorts before "
                    f"{values!r}, and the target declares no anomaly that explains it; the "
                    "original is untouched", codec=self.t.target.name)
            self.report.anomalies[anomaly.name] = self.report.anomalies.get(anomaly.name, 0) + 1
        self.last, self.last_key = values, model


# -- SQLite ---------------------------------------------------------------------------------


def _check_batch_size(batch_size: int) -> None:
    if type(batch_size) is not int or batch_size < 1:
        raise MigrationError(f"batch size {batch_size!r}: a batch holds at least one key",
                             expected="an int >= 1")


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _table_sql(db: sqlite3.Connection, table: str) -> str:
    row = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
                     (table,)).fetchone()
    if row is None:
        raise MigrationError(f"no table {table!r} in the database")
    return str(row[0])


def _renamed_sql(sql: str, table: str, new_name: str) -> str:
    """The CREATE TABLE statement of *table* for a table called *new_name*."""
    pattern = re.compile(r"^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"
                         r"(\"(?:[^\"]|\"\")*\"|\[[^\]]*\]|`[^`]*`|[\w$]+)", re.IGNORECASE)
    m = pattern.match(sql)
    if m is None:
        raise MigrationError(f"cannot read the definition of table {table!r}: {sql[:80]!r}")
    return sql[:m.start(1)] + _quote(new_name) + sql[m.end(1):]


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


def migrate_sqlite(database: str | os.PathLike[str] | sqlite3.Connection, table: str,
                   key_column: str, transcoder: Transcoder, *, batch_size: int = 10_000,
                   keep_old: bool = False, restart: bool = False,
                   progress: Progress = None) -> MigrationReport:
    """Migrate the keys of an SQLite table in place (copy, verify, swap; see the module).

    The key column must be the table's primary key; the other columns are carried over
    unchanged, and the table's indexes are created again on the new table. With *keep_old*
    the old table stays as ``<table>__lexcodecs_old``. A run that was interrupted resumes;
    *restart* discards the unfinished copy instead.
    """
    _check_batch_size(batch_size)
    own = not isinstance(database, sqlite3.Connection)
    if isinstance(database, sqlite3.Connection):
        db = database
        db.isolation_level = None  # transactions are ours
    else:
        db = sqlite3.connect(database, isolation_level=None)
    try:
        return _migrate_sqlite(db, table, key_column, transcoder, batch_size, keep_old,
                               restart, progress)
    except sqlite3.DatabaseError as exc:
        raise MigrationError(f"SQLite: {exc} ({database if own else 'the connection'}); "
                             "nothing was changed that a rerun does not finish") from None
    finally:
        if own:
            db.close()


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


def _migrate_sqlite(db: sqlite3.Connection, table: str, key_column: str, t: Transcoder,
                    batch_size: int, keep_old: bool, restart: bool,
                    progress: Progress) -> MigrationReport:
    started = time.monotonic()
    new_table, old_table = table + NEW_SUFFIX, table + OLD_SUFFIX
    settings = json.dumps({"source": t.source.config(), "target": t.target.config(),
                           "schema": t.schema.to_text(), "key_column": key_column},
                          sort_keys=True)
    db.execute("BEGIN IMMEDIATE")
    try:
        state = _state(db, table)
        if state is not None and not restart and state["settings"] != settings:
            raise MigrationError(
                f"an unfinished migration of {table!r} with other settings is in this "
                f"database ({state['settings']}); finish it with those settings, or "
                "restart=True (--restart) to discard it")
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
            db.execute(_renamed_sql(_table_sql(db, table), table, new_table))
            report = MigrationReport(t.source.name, t.target.name, str(t.schema),
                                     f"sqlite table {table}")
            db.execute(f"INSERT INTO {STATE_TABLE} VALUES (?, ?, 'copy', NULL, NULL, 0, ?)",
                       (table, settings, json.dumps(report.to_dict())))
        else:
            report = MigrationReport(**{**state["report"], "resumed": True})
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    assert state is None or isinstance(state, dict)
    phase = "copy" if state is None else state["phase"]
    if phase == "copy":
        _sqlite_copy(db, table, new_table, key_column, columns, t, report, state, batch_size,
                     progress)
    _sqlite_verify(db, table, new_table, key_column, columns, t, report, batch_size)
    _sqlite_swap(db, table, new_table, old_table, keep_old)
    report.seconds += time.monotonic() - started
    return report


def _batches(db: sqlite3.Connection, table: str, key_column: str, columns: list[str],
             size: int, after: bytes | None = None) -> Iterator[list[tuple[Any, ...]]]:
    """The rows of *table* in key order, *size* at a time, starting after the key *after*
    (keyset paging: constant memory, and a resumed run starts where the last one stopped)."""
    cols = ", ".join(_quote(c) for c in columns)
    index = columns.index(key_column)
    first = f"SELECT {cols} FROM {_quote(table)} ORDER BY {_quote(key_column)} LIMIT ?"
    then = (f"SELECT {cols} FROM {_quote(table)} WHERE {_quote(key_column)} > ? "
            f"ORDER BY {_quote(key_column)} LIMIT ?")
    last = after
    while True:
        rows = (db.execute(first, (size,)) if last is None
                else db.execute(then, (last, size))).fetchall()
        if not rows:
            return
        yield rows
        last = rows[-1][index]


def _sqlite_copy(db: sqlite3.Connection, table: str, new_table: str, key_column: str,
                 columns: list[str], t: Transcoder, report: MigrationReport,
                 state: dict[str, Any] | None, batch_size: int, progress: Progress) -> None:
    key_index = columns.index(key_column)
    cols = ", ".join(_quote(c) for c in columns)
    marks = ", ".join("?" for _ in columns)
    insert = f"INSERT INTO {_quote(new_table)} ({cols}) VALUES ({marks})"
    last_key = None if state is None else state["last_key"]
    last_new = None if state is None else state["last_new_key"]
    watch = _OrderWatch(report, last_new,
                        None if last_new is None else t._target.decode(last_new))
    for rows in _batches(db, table, key_column, columns, batch_size, last_key):
        out = []
        for row in rows:
            key = row[key_index]
            if not isinstance(key, bytes):
                raise MigrationError(f"a key in {table}.{key_column} is not a BLOB: {key!r}")
            try:
                values = t.values(key)
                new = t.encode(values)
            except LexCodecError as exc:
                raise MigrationError(f"key {key.hex(' ')} of {table!r}: {exc}; the original "
                                     "is untouched") from None
            watch.see(new, values)
            out.append((*row[:key_index], new, *row[key_index + 1:]))
        last_key = rows[-1][key_index]
        report.keys += len(rows)
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany(insert, out)
            db.execute(f"UPDATE {STATE_TABLE} SET last_key = ?, last_new_key = ?, copied = ?, "
                       "report = ? WHERE source_table = ?",
                       (last_key, watch.last, report.keys, json.dumps(report.to_dict()),
                        table))
            db.execute("COMMIT")
        except sqlite3.IntegrityError as exc:
            db.execute("ROLLBACK")
            raise MigrationError(f"two keys of {table!r} have the same new key ({exc}): the "
                                 "target format cannot tell their values apart; the "
                                 "original is untouched") from None
        except BaseException:
            db.execute("ROLLBACK")
            raise
        if progress is not None:
            progress(report.keys)
    db.execute(f"UPDATE {STATE_TABLE} SET phase = 'verify' WHERE source_table = ?", (table,))


def _sqlite_verify(db: sqlite3.Connection, table: str, new_table: str, key_column: str,
                   columns: list[str], t: Transcoder, report: MigrationReport,
                   batch_size: int) -> None:
    old_count = db.execute(f"SELECT COUNT(*) FROM {_quote(table)}").fetchone()[0]
    new_count = db.execute(f"SELECT COUNT(*) FROM {_quote(new_table)}").fetchone()[0]
    if old_count != new_count:
        raise MigrationError(f"{table!r} has {old_count} rows but the new table {new_count}; "
                             "the original is untouched (rows written to the old table during "
                             "the migration? run again with --restart)")
    # every old row has its new row, the other columns equal: with equal counts, the new
    # table holds exactly the old rows (a row changed between an interrupted run and its
    # rerun is caught here)
    key_index = columns.index(key_column)
    cols = ", ".join(_quote(c) for c in columns)
    lookup = f"SELECT {cols} FROM {_quote(new_table)} WHERE {_quote(key_column)} = ?"
    for rows in _batches(db, table, key_column, columns, batch_size):
        for row in rows:
            # no value check here: an equal key was checked when it was copied
            new = t._target.encode(t.values(row[key_index]))
            found = db.execute(lookup, (new,)).fetchone()
            expected = (*row[:key_index], new, *row[key_index + 1:])
            if found is None or tuple(found) != expected:
                raise MigrationError(
                    f"the row of key {row[key_index].hex(' ')} is not in the new table as it "
                    "is in the old one (was the table written during an interrupted "
                    "migration?); the original is untouched: run again with --restart")
    order = _NaturalOrder(t, report)
    report.anomalies.clear()
    for (key,) in db.execute(f"SELECT {_quote(key_column)} FROM {_quote(new_table)} "
                             f"ORDER BY {_quote(key_column)}"):
        order.see(key)


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
        db.execute("ROLLBACK")
        raise MigrationError(f"the swap of {table!r} failed ({exc}); nothing changed: the old "
                             "table is intact and the checked copy is kept for a rerun") from None
    except BaseException:
        db.execute("ROLLBACK")
        raise
    finally:
        db.execute("PRAGMA legacy_alter_table = OFF")


# -- LMDB -----------------------------------------------------------------------------------


def _lmdb() -> Any:
    try:
        import lmdb
    except ImportError:
        raise MigrationError("LMDB migrations need the lmdb package: "
                             "pip install 'lexcodecs[lmdb]'") from None
    return lmdb


def _write_state(path: Path, state: dict[str, Any]) -> None:
    """Replace the state file atomically (write, fsync, rename)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def migrate_lmdb(path: str | os.PathLike[str], transcoder: Transcoder, *,
                 batch_size: int = 10_000, keep_old: bool = False, restart: bool = False,
                 progress: Progress = None) -> MigrationReport:
    """Migrate the keys of an LMDB environment (its main database), values unchanged.

    The new keys go to a new environment ``<path>.lexcodecs-new``; the position reached is
    saved after each committed batch in ``<path>.lexcodecs-state`` (a batch copied again
    after a crash writes the same keys and values again: LMDB keeps one of each). After the
    checks the directories are swapped; the old one stays as ``<path>.lexcodecs-old`` with
    *keep_old*, else it is removed.
    """
    _check_batch_size(batch_size)
    lmdb = _lmdb()
    t = transcoder
    started = time.monotonic()
    src_path = Path(path)
    new_path = src_path.with_name(src_path.name + ".lexcodecs-new")
    old_path = src_path.with_name(src_path.name + ".lexcodecs-old")
    state_path = src_path.with_name(src_path.name + ".lexcodecs-state")
    settings = {"source": t.source.config(), "target": t.target.config(),
                "schema": t.schema.to_text()}
    if restart and not _lmdb_swapping(state_path):
        shutil.rmtree(new_path, ignore_errors=True)
        state_path.unlink(missing_ok=True)
    state: dict[str, Any] | None = None
    if state_path.exists():
        state = json.loads(state_path.read_text(encoding="utf-8"))
        assert state is not None
        if state["settings"] != json.loads(json.dumps(settings)):
            raise MigrationError(f"an unfinished migration of {src_path} with other settings "
                                 f"is in progress ({state['settings']}); finish it with those "
                                 "settings, or restart=True (--restart) to discard it")
    elif new_path.exists():
        raise MigrationError(f"{new_path} exists but no migration is recorded; remove it, or "
                             "use restart=True (--restart)")
    if state is None:
        report = MigrationReport(t.source.name, t.target.name, str(t.schema),
                                 f"lmdb {src_path}")
        state = {"settings": settings, "phase": "copy", "last_key": None,
                 "last_new_key": None, "report": report.to_dict()}
    else:
        report = MigrationReport(**{**state["report"], "resumed": True})
    if state["phase"] != "verified":
        try:
            source = lmdb.open(str(src_path), readonly=True, lock=False, create=False)
        except lmdb.Error as exc:
            raise MigrationError(f"{src_path} is not an LMDB environment ({exc})") from None
        try:
            size = max(source.info()["map_size"], 2 * _used_bytes(source), 1 << 26)
            target = lmdb.open(str(new_path), map_size=size)
            try:
                if state["phase"] == "copy":
                    _lmdb_copy(source, target, t, report, state, state_path, batch_size,
                               progress)
                _lmdb_verify(source, target, t, report)
            finally:
                target.close()
        finally:
            source.close()
        state["phase"], state["report"] = "verified", report.to_dict()
        _write_state(state_path, state)
    # the swap, in steps a rerun can tell apart by what exists: while the new environment
    # is still at its own path the second rename has not happened; the first has when the
    # original path is gone
    if new_path.exists():
        if src_path.exists():
            if old_path.exists():  # a kept environment of an earlier migration
                shutil.rmtree(old_path)
            os.replace(src_path, old_path)
        os.replace(new_path, src_path)
    if not keep_old and old_path.exists():
        shutil.rmtree(old_path)
    state_path.unlink()
    report.seconds += time.monotonic() - started
    return report


def _lmdb_swapping(state_path: Path) -> bool:
    """A verified copy is being swapped in: a restart must finish it, not discard it (the
    original may already have moved aside)."""
    if not state_path.exists():
        return False
    try:
        return bool(json.loads(state_path.read_text(encoding="utf-8"))["phase"] == "verified")
    except (ValueError, KeyError, TypeError):
        return False


def _used_bytes(env: Any) -> int:
    info, stat = env.info(), env.stat()
    return int((info["last_pgno"] + 1) * stat["psize"])


def _lmdb_copy(source: Any, target: Any, t: Transcoder, report: MigrationReport,
               state: dict[str, Any], state_path: Path, batch_size: int,
               progress: Progress) -> None:
    last_key = None if state["last_key"] is None else bytes.fromhex(state["last_key"])
    last_new = None if state["last_new_key"] is None else bytes.fromhex(state["last_new_key"])
    watch = _OrderWatch(report, last_new,
                        None if last_new is None else t._target.decode(last_new))
    with source.begin() as reader:
        cursor = reader.cursor()
        positioned = cursor.set_range(last_key) if last_key is not None else cursor.first()
        if positioned and last_key is not None and cursor.key() == last_key:
            positioned = cursor.next()
        while positioned:
            batch: list[tuple[bytes, bytes]] = []
            while positioned and len(batch) < batch_size:
                key, value = cursor.key(), cursor.value()
                try:
                    values = t.values(key)
                    new = t.encode(values)
                except LexCodecError as exc:
                    raise MigrationError(f"key {key.hex(' ')}: {exc}; the original is "
                                         "untouched") from None
                watch.see(new, values)
                batch.append((new, value))
                positioned = cursor.next()
                last_key = key
            limit = target.max_key_size()
            with target.begin(write=True) as txn:
                for new, value in batch:
                    if not 1 <= len(new) <= limit:
                        raise MigrationError(
                            f"the new key {new.hex(' ') or '(empty)'} has {len(new)} bytes; "
                            f"LMDB holds keys of 1..{limit} bytes; the original is untouched",
                            codec=t.target.name)
                    txn.put(new, value)
            report.keys += len(batch)
            assert last_key is not None
            state.update(last_key=last_key.hex(),
                         last_new_key=None if watch.last is None else watch.last.hex(),
                         report=report.to_dict())
            _write_state(state_path, state)
            if progress is not None:
                progress(report.keys)
    state.update(phase="copied", report=report.to_dict())
    _write_state(state_path, state)


def _lmdb_verify(source: Any, target: Any, t: Transcoder, report: MigrationReport) -> None:
    old_count = source.stat()["entries"]
    new_count = target.stat()["entries"]
    if old_count != new_count:
        raise MigrationError(f"the source holds {old_count} keys but the new environment "
                             f"{new_count}: two keys have the same new key (the target "
                             "cannot tell their values apart), or the source changed during "
                             "the migration; the original is untouched")
    # every old key's new key holds the old value: with equal counts, exactly the old data
    with source.begin() as old, target.begin() as new:
        for key, value in old.cursor():
            if new.get(t._target.encode(t.values(key))) != value:
                raise MigrationError(
                    f"the entry of key {key.hex(' ')} is not in the new environment as it is "
                    "in the old one (was it written during an interrupted migration?); the "
                    "original is untouched: run again with --restart")
    order = _NaturalOrder(t, report)
    report.anomalies.clear()
    with target.begin() as txn:
        for key in txn.cursor().iternext(keys=True, values=False):
            order.see(key)


