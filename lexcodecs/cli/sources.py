"""The user's data on the command line: ``--records``, ``--csv``, ``--sqlite``, ``--parquet``
and ``--keys-from``, with ``--key``.

:func:`add_source_arguments` adds the options to a command's parser (``compare`` uses them);
:func:`load_records` reads what they name with :mod:`lexcodecs.sources` and returns its
:class:`~lexcodecs.sources.Records`, or ``None`` when no input is named (the command then
generates records). A file that cannot be opened is a :class:`~lexcodecs.cli.CliError` naming
the option (``--csv users.csv: No such file or directory``); anything wrong inside the input
is a :class:`~lexcodecs.sources.SourceError` naming the source, the line or row and the
column. While the input is read, a progress bar counts its rows.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Final

from .._console import Progress as Bar
from ..registry import get_codec
from ..schema import KeySchema
from ..sources import (
    Records,
    read_csv,
    read_jsonl,
    read_lmdb_keys,
    read_parquet,
    read_sqlite,
    read_sqlite_keys,
)
from ..sources.paths import open_file, path_problem, special_kind_at
from ..sources.records import Progress, SourceError
from .arguments import CliError, _progress_bar

__all__ = ["INPUTS", "add_source_arguments", "load_records"]

#: the options that name an input (at most one is given), by their ``args`` attribute
INPUTS: Final[dict[str, str]] = {"records": "--records", "csv": "--csv", "sqlite": "--sqlite",
                                 "parquet": "--parquet", "keys_from": "--keys-from"}

#: the options that only qualify an input: which one each goes with
_QUALIFIERS: Final[dict[str, tuple[str, str]]] = {
    "table": ("--table", "sqlite"), "query": ("--query", "sqlite"),
    "keys_codec": ("--keys-codec", "keys_from"),
}


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the input options to *parser* (one input at most; see docs/your-data.md)."""
    group = parser.add_argument_group(
        "your data", "compare on your own records instead of generated ones (one of these; "
        "see docs/your-data.md)")
    inputs = group.add_mutually_exclusive_group()
    inputs.add_argument("--records", metavar="FILE", help="JSON Lines, one array of values per "
                        "record, typed by -s ('-': standard input)")
    inputs.add_argument("--csv", metavar="FILE", help="a CSV file whose first row names the "
                        "columns; give the key columns' types in --key or -s")
    inputs.add_argument("--sqlite", metavar="DB", help="an SQLite database (read-only), with "
                        "--table or --query")
    inputs.add_argument("--parquet", metavar="FILE", help="a Parquet file (needs "
                        "lexcodecs[parquet])")
    inputs.add_argument("--keys-from", metavar="STORE", help="keys already in a store, "
                        "decoded with --keys-codec: sqlite:DB:TABLE:COLUMN or lmdb:PATH[:DB]")
    group.add_argument("--table", metavar="TABLE", help="with --sqlite: the table or view")
    group.add_argument("--query", metavar="SQL", help="with --sqlite: a SELECT giving the rows")
    group.add_argument("--keys-codec", metavar="NAME", help="with --keys-from: the codec that "
                       "wrote the keys")
    group.add_argument("--key", metavar="COLUMNS", help="the key columns in order, types "
                       "optional: 'user_id, created:timestamp desc nulls last' (default: "
                       "-s's fields, an SQLite table's primary key, a stored key's fields)")


def load_records(args: argparse.Namespace, schema: KeySchema | None, n: int,
                 seed: int) -> Records | None:
    """The records of the input *args* names, at most *n* of them (a uniform sample, seeded
    with *seed*, when there are more); ``None`` when no input is named. *schema* is the
    user's ``-s`` (``None`` when not given): it types the columns, matched by name."""
    given = [name for name in INPUTS if getattr(args, name, None) is not None]
    _check_qualifiers(args, given[0] if given else None)
    if not given:
        if getattr(args, "key", None) is not None:
            raise CliError("--key names the key columns of an input: give one (--records, "
                           "--csv, --sqlite, --parquet or --keys-from)")
        return None
    if len(given) > 1:  # argparse refuses this already; a Namespace built by hand may not
        raise CliError(f"give one input, not {' and '.join(INPUTS[g] for g in given)}")
    if n < 0:
        raise CliError(f"-n {n}: must be at least 0")
    kind = given[0]
    key = getattr(args, "key", None)
    bar = _progress_bar(args, "reading", None)
    progress = _progress(bar)
    try:
        if kind == "records":
            return _jsonl(args.records, schema, key, n, seed, progress)
        if kind == "csv":
            _file(INPUTS[kind], args.csv)
            return read_csv(args.csv, key=key, schema=schema, limit=n, seed=seed,
                            progress=progress)
        if kind == "sqlite":
            if (args.table is None) == (args.query is None):
                raise CliError("--sqlite needs --table TABLE or --query SQL (one of them)")
            _database(args.sqlite)
            return read_sqlite(args.sqlite, table=args.table, query=args.query, key=key,
                               schema=schema, limit=n, seed=seed, progress=progress)
        if kind == "parquet":
            _file(INPUTS[kind], args.parquet)
            return read_parquet(args.parquet, key=key, schema=schema, limit=n, seed=seed,
                                progress=progress)
        return _keys(args, schema, key, n, seed, progress)
    finally:
        if bar is not None:
            bar.close()


def _check_qualifiers(args: argparse.Namespace, kind: str | None) -> None:
    for name, (option, goes_with) in _QUALIFIERS.items():
        if getattr(args, name, None) is not None and kind != goes_with:
            raise CliError(f"{option} goes with {INPUTS[goes_with]}")
    if kind == "keys_from" and getattr(args, "keys_codec", None) is None:
        raise CliError("--keys-from needs --keys-codec NAME: the codec that wrote the keys")


def _progress(bar: Bar | None) -> Progress:
    if bar is None:
        return None

    def update(done: int, total: int | None) -> None:
        if total != bar.total:
            bar.set_total(total)
        bar.update(done)
    return update


def _file(option: str, path: str) -> None:
    """*path* is a regular file, or a CliError naming *option* (a named pipe, a socket or a
    device is refused before anything opens it: reading one may wait for ever)."""
    reason = path_problem(path, "file")
    if reason is not None:
        raise CliError(f"{option} {path}: {reason}")


def _database(path: str) -> None:
    reason = path_problem(path, "sqlite")
    if reason is not None:
        raise CliError(f"--sqlite {path}: {reason}")


def _jsonl(path: str, schema: KeySchema | None, key: str | None, n: int, seed: int,
           progress: Progress) -> Records:
    if schema is None:  # the records file has always been read with compare's default
        from ..compare import DEFAULT_SCHEMA

        schema = KeySchema.parse(DEFAULT_SCHEMA)
    if path == "-":
        return read_jsonl(sys.stdin.buffer, schema, key=key, limit=n, seed=seed,
                          name="(standard input)", progress=progress)
    try:
        stream = open_file(path, path)  # not a pipe or a device: they may wait for ever
    except SourceError as exc:
        hint = "; for standard input, give -" if special_kind_at(path) else ""
        raise CliError(f"--records {path}: {exc.reason}{hint}") from None
    with stream:
        return read_jsonl(stream, schema, key=key, limit=n, seed=seed, name=path,
                          progress=progress)


def _keys(args: argparse.Namespace, schema: KeySchema | None, key: str | None, n: int,
          seed: int, progress: Progress) -> Records:
    spec: str = args.keys_from
    codec = get_codec(args.keys_codec)
    kind, _, rest = spec.partition(":")
    if kind == "sqlite":
        parts = rest.rsplit(":", 2)  # the path may hold colons, the names not
        if len(parts) != 3 or not all(parts):
            raise CliError(f"--keys-from {spec}: write sqlite:DB:TABLE:COLUMN")
        path, table, column = parts
        reason = path_problem(path, "sqlite")
        if reason is not None:
            raise CliError(f"--keys-from {spec}: {path}: {reason}")
        return read_sqlite_keys(path, table, column, codec, key=key, schema=schema, limit=n,
                                seed=seed, progress=progress)
    if kind == "lmdb" and rest:
        path, db = rest, None
        if not os.path.exists(path) and ":" in rest:  # lmdb:PATH:DB names a database
            head, _, tail = rest.rpartition(":")
            if os.path.exists(head):
                path, db = head, tail
        if not os.path.exists(path):
            raise CliError(f"--keys-from {spec}: no such LMDB environment {path}")
        reason = path_problem(path, "lmdb")
        if reason is not None:
            raise CliError(f"--keys-from {spec}: {path}: {reason}")
        return read_lmdb_keys(path, codec, db=db, key=key, schema=schema, limit=n, seed=seed,
                              progress=progress)
    raise CliError(f"--keys-from {spec}: write sqlite:DB:TABLE:COLUMN or lmdb:PATH[:DB]")


