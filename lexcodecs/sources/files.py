"""Records from files of text: JSON Lines and CSV.

Theory of operation: both are read as bytes and decoded line by line, strictly, so that text
that is not UTF-8 is refused with its line number (a byte-order mark at the start is
dropped). JSON Lines are the records file of ``compare --records`` (one array per line, read
by :func:`~lexcodecs.sources.jsonl.json_record` with the user's schema, which names and types
its columns); CSV is read by the standard :mod:`csv` module, strictly, its first row naming
the columns, each key column's cells read by the field type's text reader
(:data:`~lexcodecs.sources.values.TEXT_FORMS`), an empty cell being NULL. A CSV carries no
types, so each key column's type comes from the key text or the schema; when one is missing,
the error shows the key text with the types guessed from the first rows.
"""

from __future__ import annotations

import csv
import itertools
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Any, Final

from ..schema import Field, KeySchema
from .jsonl import JsonRecordError, json_record
from .key import GUESS_ROWS, KeyColumn, field_names, resolve_key
from .paths import open_file
from .records import DEFAULT_LIMIT, Column, Progress, Records, SourceError, check_limit, collect
from .values import guess_type, text_reader

__all__ = ["read_csv", "read_jsonl"]

#: delimiters by file name suffix (anything else: a comma)
_DELIMITERS: Final = {".tsv": "\t", ".tab": "\t"}

Path = str | os.PathLike[str]


def utf8_lines(stream: Iterable[bytes], source: str) -> Iterator[str]:
    """The lines of *stream* as text, line endings kept; a line that is not UTF-8 is a
    :class:`SourceError` with its number (and a byte-order mark at the start is dropped)."""
    for number, raw in enumerate(stream, 1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SourceError(f"not UTF-8 text: byte {raw[exc.start:exc.start + 1]!r} at "
                              f"byte {exc.start + 1} of the line", source=source, line=number
                              ) from None
        yield text[1:] if number == 1 and text.startswith("\ufeff") else text


# -- JSON Lines -----------------------------------------------------------------------------


def read_jsonl(source: Path | IO[bytes], schema: KeySchema | str, *,
               key: str | Sequence[KeyColumn] | None = None, limit: int = DEFAULT_LIMIT,
               seed: int = 0, name: str | None = None, progress: Progress = None) -> Records:
    """Records from JSON Lines (``compare --records``): one JSON array per line, a value per
    field of *schema*, which names and types the columns; *key* picks and orders the key
    columns among them (default: all, as the schema has them). *source* is a path or a
    binary stream (standard input: ``sys.stdin.buffer``), named *name* in messages.

    Error messages keep the form of :func:`~lexcodecs.sources.jsonl.records_from_json`
    (``records line 3: ...``).
    """
    check_limit(limit)
    schema = KeySchema.coerce(schema)
    label = name if name is not None else (
        os.fspath(source) if isinstance(source, (str, os.PathLike)) else "(stream)")
    what = f"JSON Lines {label}"
    columns = [Column(f.name, f.name) for f in schema.fields]
    plan = resolve_key(columns, key, schema, source=what, carries_types=True,
                       schema_describes_input=True)
    # the lines are read with the schema's columns, each typed as the key types it
    by_index = dict(zip(plan.indexes, plan.schema.fields))
    reading = KeySchema(tuple(
        Field(f.name, by_index[i].type, f.descending, f.nulls, f.options)
        if i in by_index else f for i, f in enumerate(schema.fields)))
    stream = open_file(source, what) if isinstance(source, (str, os.PathLike)) else source
    try:
        return collect(_json_rows(stream, reading, plan.indexes), [_same] * len(plan.indexes),
                       schema=plan.schema, columns=[columns[i] for i in plan.indexes],
                       origins=plan.origins, source=what, unit="line", noun="records",
                       limit=limit, seed=seed, proposed=False, progress=progress)
    finally:
        if stream is not source:
            stream.close()


def _json_rows(stream: IO[bytes], reading: KeySchema, picked: Sequence[int]
               ) -> Iterator[tuple[int, tuple[Any, ...]]]:
    """The picked values of each record, read a line at a time (memory follows the sample,
    not the file) as ``records_from_json`` reads them, its messages numbered with the file's
    lines and naming the column at fault."""

    lines = utf8_lines(stream, "records")
    number = 0
    try:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json_record(line, reading)
            except JsonRecordError as exc:
                f = None if exc.field is None else reading.fields[exc.field]
                raise SourceError(exc.reason, source=f"records line {number}",
                                  column=None if f is None else f.name,
                                  field_type=None if f is None else f.type) from None
            yield number, tuple(row[i] for i in picked)
    except SourceError as exc:
        if exc.line is None:
            raise
        # not UTF-8: said as records_from_json says its errors
        raise SourceError(exc.reason, source=f"records line {exc.line}") from None


def _same(value: Any) -> Any:
    return value


# -- CSV ------------------------------------------------------------------------------------


def read_csv(path: Path, *, key: str | Sequence[KeyColumn] | None = None,
             schema: KeySchema | str | None = None, limit: int = DEFAULT_LIMIT, seed: int = 0,
             delimiter: str | None = None, progress: Progress = None) -> Records:
    """Records from a CSV file whose first row names the columns.

    The key columns are named by *key* (key text: ``"user_id:int64, created:timestamp
    desc"``) or by the fields of *schema*, matched to the header by name; a CSV carries no
    types, so every key column's type must come from one of them. Cells are read as
    :data:`~lexcodecs.sources.values.TEXT_FORMS` says; an empty cell is NULL. *delimiter*
    defaults to a tab for ``.tsv`` and ``.tab`` files, else a comma. At most *limit* rows
    are kept: a uniform sample (seeded with *seed*) when there are more, in file order.
    """
    check_limit(limit)
    what = f"CSV {os.fspath(path)}"
    parsed = None if schema is None else KeySchema.coerce(schema)
    sep = delimiter or _DELIMITERS.get(os.path.splitext(os.fspath(path))[1].lower(), ",")
    with open_file(path, what) as stream:
        records = _CsvRows(utf8_lines(stream, what), sep, what)
        header = records.header()
        columns = [Column(name, field) for name, field in zip(header, field_names(header))]

        def guess(indexes: Sequence[int]) -> list[str | None]:
            rows = [cells for _, cells in itertools.islice(records, GUESS_ROWS)]
            return [guess_type(cells[i] or None for cells in rows if i < len(cells))
                    for i in indexes]

        plan = resolve_key(columns, key, parsed, source=what, carries_types=False,
                           guess=guess)
        readers = [text_reader(f.type) for f in plan.schema.fields]
        for f in plan.schema.fields:
            if f.type == "tuple":
                raise SourceError("a tuple field is not readable from CSV; use JSON Lines",
                                  source=what, column=f.name)
        width = len(header)
        picked = plan.indexes

        def rows() -> Iterator[tuple[int, tuple[str | None, ...]]]:
            for number, cells in records:
                if len(cells) != width:
                    raise SourceError(f"{len(cells)} value{'' if len(cells) == 1 else 's'} "
                                      f"where the header names {width} columns", source=what,
                                      line=number)
                yield number, tuple(cells[i] or None for i in picked)

        return collect(rows(), readers, schema=plan.schema,
                       columns=[columns[i] for i in picked], origins=plan.origins,
                       source=what, unit="line", limit=limit, seed=seed, proposed=False,
                       progress=progress)


class _CsvRows:
    """The records of a CSV text, each with the number of the line it starts on; blank lines
    are skipped, and every :class:`csv.Error` is a :class:`SourceError` with its line."""

    def __init__(self, lines: Iterator[str], delimiter: str, source: str) -> None:
        self.source = source
        self.reader = csv.reader(lines, delimiter=delimiter, strict=True)

    def __iter__(self) -> Iterator[tuple[int, list[str]]]:
        return self

    def __next__(self) -> tuple[int, list[str]]:
        while True:
            start = self.reader.line_num + 1
            try:
                cells = next(self.reader)
            except csv.Error as exc:
                raise SourceError(f"not valid CSV: {exc}", source=self.source,
                                  line=self.reader.line_num or start) from None
            if cells:
                return start, cells

    def header(self) -> list[str]:
        try:
            _, names = next(self)
        except StopIteration:
            raise SourceError("the file is empty; its first row must name the columns",
                              source=self.source) from None
        return [name.strip() for name in names]

