"""Records from an SQLite table or query, read-only.

Theory of operation: the database is opened read-only (a ``file:...?mode=ro`` URI), so
nothing the user names can change it. A table's columns and declared types come from
``pragma_table_info``, its primary key (and each key column's ASC/DESC) from its ``pk``
index; a query is made a TEMP view -- the temporary database is writable even when the main
one is not -- so that its result columns have declared types too, those of the table columns
they are taken from. Only the key columns are selected.

A declared type proposes a field type (:func:`sqlite_field_type`): first by the names in
:data:`SQLITE_NAMES` (BOOLEAN, TIMESTAMP, DECIMAL, UUID, ...), then by SQLite's own affinity
rules (datatype3.html, section 3.1), in their order: a name containing INT is an integer
(its width from the name: TINYINT int8 ... BIGINT int64, unsigned with UNSIGNED), CHAR, CLOB
or TEXT a string, BLOB bytes, REAL, FLOA or DOUB a float64; anything else (NUMERIC affinity
under a name not listed, or no declared type) proposes nothing. Values are read by the field
type's value reader: SQLite's own values (INTEGER, REAL, BLOB) as they convert exactly, TEXT
as a CSV cell is read.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final

from ..schema import KeySchema
from .key import GUESS_ROWS, KeyColumn, field_names, resolve_key
from .paths import check_database
from .records import DEFAULT_LIMIT, Column, Progress, Records, SourceError, check_limit, collect
from .values import guess_type, value_reader

__all__ = ["SQLITE_NAMES", "column_select", "connect", "quote", "read_sqlite",
           "sqlite_field_type"]

#: declared type names (upper case, arguments such as ``(10, 2)`` dropped) -> field type;
#: consulted before the affinity rules
SQLITE_NAMES: Final[dict[str, str]] = {
    "BOOLEAN": "bool", "BOOL": "bool",
    "TIMESTAMP": "timestamp", "DATETIME": "timestamp", "DATE": "timestamp",
    "TIMESTAMPTZ": "timestamp", "TIMESTAMP WITH TIME ZONE": "timestamp",
    "TIMESTAMP WITHOUT TIME ZONE": "timestamp",
    "DECIMAL": "decimal", "NUMERIC": "decimal", "NUMBER": "decimal",
    "UUID": "uuid", "GUID": "uuid", "UNIQUEIDENTIFIER": "uuid",
    "INTERVAL": "duration",
    "BYTEA": "bytes", "BINARY": "bytes", "VARBINARY": "bytes",
}

#: integer widths by the declared name's first word (others: 64 bits)
_INT_WIDTHS: Final[dict[str, int]] = {"TINYINT": 8, "SMALLINT": 16, "INT2": 16,
                                      "MEDIUMINT": 32, "INT4": 32}

#: the TEMP view a query is read through
_VIEW: Final = "lexcodecs_query"


def sqlite_field_type(declared: str) -> str | None:
    """The field type proposed for an SQLite column of declared type *declared*.

    >>> [sqlite_field_type(t) for t in ("INTEGER", "SMALLINT", "BIGINT UNSIGNED", "VARCHAR(20)",
    ...                                 "DECIMAL(10, 2)", "DATETIME", "BLOB", "JSON", "")]
    ['int64', 'int16', 'uint64', 'string', 'decimal', 'timestamp', 'bytes', None, None]
    """
    name = " ".join(re.sub(r"\(.*?\)", " ", declared).upper().split())
    if name in SQLITE_NAMES:
        return SQLITE_NAMES[name]
    if "INT" in name:
        words = name.split()
        bits = _INT_WIDTHS.get(words[0], 64) if words else 64
        return f"{'uint' if 'UNSIGNED' in words else 'int'}{bits}"
    if any(part in name for part in ("CHAR", "CLOB", "TEXT")):
        return "string"
    if "BLOB" in name:
        return "bytes"
    if any(part in name for part in ("REAL", "FLOA", "DOUB")):
        return "float64"
    return None


def quote(name: str) -> str:
    """An SQL identifier, quoted."""
    return '"' + name.replace('"', '""') + '"'


def column_select(conn: sqlite3.Connection, table: str, column: str, source: str) -> str:
    """The SELECT of one *column* of *table* in the main database, after checking both exist
    (a SourceError naming the table's columns otherwise)."""
    names = [str(n) for (n,) in conn.execute(
        "SELECT name FROM pragma_table_info(?, 'main')", (table,))]
    if not names:
        raise SourceError(f"no table or view named {table!r}", source=source)
    if column not in names:
        raise SourceError(f"no column {column!r} in {table} (its columns: "
                          f"{', '.join(names)})", source=source)
    return f"SELECT {quote(column)} FROM main.{quote(table)}"


def connect(path: str | os.PathLike[str], source: str) -> sqlite3.Connection:
    """A read-only connection to the database file *path*, checked to be a database: a
    regular file (a named pipe, a socket or a device is refused before SQLite opens it, as
    is one in place of its journal or WAL file: SQLite would wait on it for ever)."""
    check_database(path, source)
    try:
        conn = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise SourceError(f"cannot open it: {exc}", source=source) from None
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as exc:
        conn.close()
        raise SourceError(f"not an SQLite database ({exc})", source=source) from None
    return conn


def _table_columns(conn: sqlite3.Connection, table: str, schema: str,
                   source: str) -> list[Column]:
    info = conn.execute("SELECT name, type, pk FROM pragma_table_info(?, ?) ORDER BY cid",
                        (table, schema)).fetchall()
    if not info:
        names = [n for (n,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
            "AND name NOT LIKE 'sqlite_%' ORDER BY name LIMIT 30")]
        raise SourceError(f"no table or view named {table!r}; the database has: "
                          f"{', '.join(names) or 'none'}", source=source)
    descending: set[int] = set()
    if schema == "main":
        for (index,) in conn.execute(
                "SELECT name FROM pragma_index_list(?, ?) WHERE origin = 'pk'",
                (table, schema)):
            descending = {cid for cid, desc in conn.execute(
                "SELECT cid, desc FROM pragma_index_xinfo(?, ?) WHERE key = 1",
                (index, schema)) if desc}
    names = [str(name) for name, _, _ in info]
    return [Column(name, field, str(declared or ""), sqlite_field_type(str(declared or "")),
                   cid in descending, int(pk) - 1 if pk else None)
            for cid, ((name, declared, pk), field) in enumerate(zip(info, field_names(names)))]


def read_sqlite(path: str | os.PathLike[str], *, table: str | None = None,
                query: str | None = None, key: str | Sequence[KeyColumn] | None = None,
                schema: KeySchema | str | None = None, limit: int = DEFAULT_LIMIT,
                seed: int = 0, progress: Progress = None) -> Records:
    """Records from an SQLite *table* (or view), or from the result of a SELECT *query*.

    The key columns are named by *key* (key text, types optional) or by the fields of
    *schema*; with neither, a table's primary key is the key. Field types not given are
    proposed from the declared types (``Records.proposed``); a column with no usable
    declared type (an expression in a query, a column declared without a type) needs its
    type in *key* or *schema*. At most *limit* rows are kept: a uniform sample (seeded with
    *seed*) when there are more, in the order SQLite returns them.
    """
    check_limit(limit)
    if (table is None) == (query is None):
        raise SourceError("give a table or a query (one of them)", source=f"SQLite {path}")
    what = f"SQLite {os.fspath(path)}" + (f", table {table}" if table is not None
                                          else ", query")
    parsed = None if schema is None else KeySchema.coerce(schema)
    conn = connect(path, what)
    try:
        if table is not None:
            columns = _table_columns(conn, table, "main", what)
            origin = f"main.{quote(table)}"
        else:
            assert query is not None
            try:
                conn.execute(f"CREATE TEMP VIEW {quote(_VIEW)} AS "
                             f"{query.strip().rstrip(';').rstrip()}")
            except (sqlite3.Error, sqlite3.Warning) as exc:
                raise SourceError(f"the query does not run: {exc}", source=what) from None
            columns = _table_columns(conn, _VIEW, "temp", what)
            origin = f"temp.{quote(_VIEW)}"

        def select(indexes: Sequence[int], limit_sql: str = "") -> sqlite3.Cursor:
            names = ", ".join(quote(columns[i].name) for i in indexes)
            return conn.execute(f"SELECT {names} FROM {origin}{limit_sql}")

        def guess(indexes: Sequence[int]) -> list[str | None]:
            try:
                rows = select(indexes, f" LIMIT {GUESS_ROWS}").fetchall()
            except sqlite3.Error:
                return [None] * len(indexes)
            return [guess_type(row[j] for row in rows) for j in range(len(indexes))]

        plan = resolve_key(columns, key, parsed, source=what, carries_types=True, guess=guess)
        readers = [value_reader(f.type) for f in plan.schema.fields]
        try:
            cursor = select(plan.indexes)
        except sqlite3.Error as exc:
            raise SourceError(str(exc), source=what) from None

        def rows() -> Iterator[tuple[int, Any]]:
            number = 0
            try:
                for number, row in enumerate(cursor, 1):
                    yield number, row
            except sqlite3.Error as exc:  # text that is not UTF-8, a corrupt page
                raise SourceError(str(exc), source=what, line=number + 1, unit="row"
                                  ) from None

        return collect(rows(), readers, schema=plan.schema,
                       columns=[columns[i] for i in plan.indexes], origins=plan.origins,
                       source=what, unit="row", limit=limit, seed=seed,
                       proposed=plan.proposed, progress=progress)
    except sqlite3.Error as exc:
        raise SourceError(str(exc), source=what) from None
    finally:
        conn.close()
