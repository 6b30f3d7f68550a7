"""Records from keys already in a store, decoded with the codec that wrote them.

Theory of operation: the keys are read in the store's order -- an SQLite table's key column
(read-only, as :mod:`~lexcodecs.sources.sqlite` opens it) or an LMDB environment's main or
named database (read-only, without a lock file) -- and each is decoded. The schema they were
written with decodes them when it is known: the user's schema, or key text that types every
field (it then names the key's fields in order). Without one, a self-describing format
decodes them alone; the fields are named ``f0, f1, ...`` (or by the key text, in order) and
their types proposed from the values of the first keys (:func:`~lexcodecs.sources.values.
guess_type`). A key that does not decode stops the reading with its number and the codec's
reason: it is corruption, or not this codec's key.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from ..codec import Codec
from ..errors import LexCodecError
from ..registry import get_codec
from ..schema import Field, KeySchema
from .key import GUESS_ROWS, KeyColumn, parse_key, resolve_key
from .paths import check_lmdb
from .records import DEFAULT_LIMIT, Column, Progress, Records, SourceError, check_limit, collect
from .sqlite import column_select, connect
from .values import guess_type, value_reader

__all__ = ["LMDB_HINT", "open_lmdb", "read_lmdb_keys", "read_sqlite_keys"]

LMDB_HINT: Final = "reading LMDB needs the lmdb package: pip install 'lexcodecs[lmdb]'"

#: what SQLite calls the values that are not keys
_STORAGE_CLASSES: Final[dict[type, str]] = {type(None): "NULL", int: "an INTEGER",
                                             float: "a REAL", str: "a TEXT value"}

#: ``(number, key)`` pairs of a store, opened anew at each call
Keys = Callable[[], Iterator[tuple[int, Any]]]


def open_lmdb(path: str | os.PathLike[str], what: str, *, max_dbs: int = 0) -> Any:
    """An LMDB environment opened read-only, without its lock (a directory, or its data
    file); a SourceError when the lmdb package is missing (:data:`LMDB_HINT`), when the path
    is a pipe or a device (LMDB would wait for ever) or not an environment."""
    try:
        import lmdb
    except ImportError:
        raise SourceError(LMDB_HINT, source=what) from None
    check_lmdb(path, what)
    try:
        return lmdb.open(os.fspath(path), readonly=True, lock=False, create=False,
                         subdir=os.path.isdir(path), max_dbs=max_dbs)
    except lmdb.Error as exc:
        raise SourceError(f"not an LMDB environment ({exc})", source=what) from None


def read_sqlite_keys(path: str | os.PathLike[str], table: str, column: str,
                     codec: Codec | str, *, key: str | Sequence[KeyColumn] | None = None,
                     schema: KeySchema | str | None = None, limit: int = DEFAULT_LIMIT,
                     seed: int = 0, progress: Progress = None) -> Records:
    """Records decoded from the BLOB keys in *column* of an SQLite *table*, by *codec* (a
    codec or its registry name) with *schema* (needed unless the format is
    self-describing). *key* picks the compared fields by name, or, without a schema, names
    (and types) the keys' fields in order."""
    check_limit(limit)
    codec = get_codec(codec) if isinstance(codec, str) else codec
    what = f"{codec.name} keys in SQLite {os.fspath(path)}, {table}.{column}"
    conn = connect(path, what)
    try:
        sql = column_select(conn, table, column, what)

        def keys() -> Iterator[tuple[int, Any]]:
            number = 0
            try:
                for number, (value,) in enumerate(conn.execute(sql), 1):
                    yield number, value
            except sqlite3.Error as exc:  # text that is not UTF-8, a corrupt page
                raise SourceError(str(exc), source=what, line=number + 1, unit="row"
                                  ) from None

        return _decoded(keys, codec, key, schema, what, "row", limit, seed, progress, None)
    finally:
        conn.close()


def read_lmdb_keys(path: str | os.PathLike[str], codec: Codec | str, *, db: str | None = None,
                   key: str | Sequence[KeyColumn] | None = None,
                   schema: KeySchema | str | None = None, limit: int = DEFAULT_LIMIT,
                   seed: int = 0, progress: Progress = None) -> Records:
    """Records decoded from the keys of an LMDB environment (its main database, or the
    named database *db*), by *codec* with *schema* (see :func:`read_sqlite_keys`). Needs
    the lmdb package (``pip install 'lexcodecs[lmdb]'``)."""
    check_limit(limit)
    codec = get_codec(codec) if isinstance(codec, str) else codec
    what = f"{codec.name} keys in LMDB {os.fspath(path)}" + (f", database {db}" if db else "")
    env = open_lmdb(path, what, max_dbs=1 if db else 0)
    import lmdb  # there: open_lmdb imported it
    try:
        try:
            handle = env.open_db(db.encode("utf-8"), create=False) if db else None
            with env.begin(db=handle) as txn:
                total = int(txn.stat(handle)["entries"]) if handle else int(
                    env.stat()["entries"])
        except lmdb.Error as exc:
            raise SourceError(f"no database {db!r} ({exc})" if db else str(exc),
                              source=what) from None

        def keys() -> Iterator[tuple[int, Any]]:
            number = 0
            try:
                with env.begin(db=handle) as txn:
                    for number, raw in enumerate(txn.cursor().iternext(values=False), 1):
                        yield number, bytes(raw)
            except lmdb.Error as exc:
                raise SourceError(str(exc), source=what, line=number + 1, unit="key"
                                  ) from None

        return _decoded(keys, codec, key, schema, what, "key", limit, seed, progress, total)
    finally:
        env.close()


def _decoded(keys: Keys, codec: Codec, key: str | Sequence[KeyColumn] | None,
             schema: KeySchema | str | None, what: str, unit: str, limit: int, seed: int,
             progress: Progress, total: int | None) -> Records:
    """Decode every key and collect the records (see the module's text)."""
    parsed = None if schema is None else KeySchema.coerce(schema)
    items = parse_key(key) if isinstance(key, str) else key
    written = parsed
    if written is None and items and all(item.type for item in items):
        written = KeySchema(tuple(Field(i.name, i.type or "", bool(i.descending), i.nulls,
                                        i.options) for i in items))
        items = None  # the key text is the schema: it names every field, in order
    if written is not None:
        try:
            bound = codec.bind(written)
        except LexCodecError as exc:
            raise SourceError(f"the keys' schema: {exc}", source=what) from None
        decode: Callable[[bytes], tuple[Any, ...]] = bound.decode
        # every field of a stored key is a key column, in order, unless the key text picks
        columns = [Column(f.name, f.name, primary=i) for i, f in enumerate(written.fields)]
        plan = resolve_key(columns, items, written, source=what, carries_types=True,
                           schema_describes_input=True)
    elif codec.capabilities.decoding == "self-describing":
        decode = codec.decode
        columns = _proposed_columns(keys, decode, items, what, unit)
        plan = resolve_key(columns, items, None, source=what, carries_types=True,
                           proposed_from=f"the values of the first {GUESS_ROWS:,} keys")
    else:
        raise SourceError(f"{codec.name} keys decode only with the schema they were written "
                          "with: give it (-s), or type every field in the key", source=what)
    width = len(columns)
    picked = plan.indexes

    def rows() -> Iterator[tuple[int, tuple[Any, ...]]]:
        for number, raw in keys():
            values = _decode(decode, raw, number, what, unit)
            if len(values) != width:
                raise SourceError(f"a key of {len(values)} fields where the keys have "
                                  f"{width}", source=what, line=number, unit=unit)
            yield number, tuple(values[i] for i in picked)

    readers = [value_reader(f.type) for f in plan.schema.fields]
    return collect(rows(), readers, schema=plan.schema, columns=[columns[i] for i in picked],
                   origins=plan.origins, source=what, unit=unit, limit=limit, seed=seed,
                   proposed=plan.proposed, progress=progress, total=total,
                   noun="keys" if unit == "key" else "rows")


def _decode(decode: Callable[[bytes], tuple[Any, ...]], raw: Any, number: int, what: str,
            unit: str) -> tuple[Any, ...]:
    if not isinstance(raw, (bytes, bytearray, memoryview)):
        kind = _STORAGE_CLASSES.get(type(raw), type(raw).__name__)
        raise SourceError(f"{kind}, not a BLOB key", source=what, line=number, unit=unit)
    try:
        return decode(bytes(raw))
    except LexCodecError as exc:
        raise SourceError(f"key {bytes(raw)[:32].hex()}{'…' if len(raw) > 32 else ''} does "
                          f"not decode: {exc}", source=what, line=number, unit=unit) from None


def _proposed_columns(keys: Keys, decode: Callable[[bytes], tuple[Any, ...]],
                      items: Sequence[KeyColumn] | None, what: str, unit: str) -> list[Column]:
    """Columns of self-describing keys: named by the key text in order (else f0, f1, ...),
    their types guessed from the values of the first keys."""
    first = [_decode(decode, raw, n, what, unit)
             for n, raw in itertools.islice(keys(), GUESS_ROWS)]
    width = len(first[0]) if first else len(items or ())
    if items is not None and len(items) != width:
        raise SourceError(f"the key names {len(items)} fields where the keys have {width}; "
                          "without a schema, the key names every field in order", source=what)
    names = [item.name for item in items] if items is not None else \
        [f"f{i}" for i in range(width)]
    columns = []
    for i, name in enumerate(names):
        guessed = guess_type(values[i] for values in first if len(values) == width)
        columns.append(Column(name, name, "", guessed, primary=i))
    if not columns:
        raise SourceError("no keys to propose a schema from: give the schema (-s)",
                          source=what)
    return columns
