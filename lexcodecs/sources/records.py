"""What every reader shares: :class:`Records`, :class:`SourceError`, the input's columns, and
the loop that reads, checks and samples the rows.

Theory of operation: a reader describes its input as :class:`Column` s (the name, the declared
type if the input has one, and the field type proposed from it), lets
:func:`~lexcodecs.sources.key.resolve_key` choose the key columns, and then hands its rows --
each the raw values of the key columns, in key order, with the line or row number it came
from -- to :func:`collect`. ``collect`` reads every value with the field's reader (a refusal
becomes a :class:`SourceError` naming the source, the line or row, the column and the
reason), and keeps a uniform sample of at most *limit* rows (reservoir sampling, seeded), in
input order. Every row is read and checked, whatever the limit: memory is linear in the limit,
time linear in the input.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, TypeAlias

import attrs

from ..errors import LexCodecError
from ..schema import KeySchema
from .values import guess_type

__all__ = ["DEFAULT_LIMIT", "Column", "Progress", "Records", "SourceError", "collect"]

#: rows kept when no limit is given; more are sampled down to it
DEFAULT_LIMIT: Final = 100_000

#: progress callback: rows read so far, and the input's row count when it is known
Progress: TypeAlias = Callable[[int, int | None], None] | None

#: how often (in rows) progress is reported
_PROGRESS_EVERY: Final = 4096


class SourceError(LexCodecError, ValueError):
    """Input that cannot be read as records: the message names the source, the line or row,
    the column and the reason; the parts are attributes too (``None`` where they do not
    apply).

    >>> str(SourceError("not a number", source="CSV a.csv", line=3, column="n"))
    "CSV a.csv: line 3, column 'n': not a number"
    """

    __module__ = "lexcodecs.sources"  # its public home, as messages and docs name it

    def __init__(self, reason: str, *, source: str, line: int | None = None,
                 column: str | None = None, field_type: str | None = None,
                 unit: str = "line") -> None:
        super().__init__(reason, field_type=field_type)
        self.source = source
        self.line = line
        self.column = column
        self.unit = unit

    def __str__(self) -> str:
        where = [self.source]
        place = []
        if self.line is not None:
            place.append(f"{self.unit} {self.line}")
        if self.column is not None:
            place.append(f"column {self.column!r}"
                         + (f" ({self.field_type})" if self.field_type else ""))
        if place:
            where.append(", ".join(place))
        return ": ".join([*where, self.reason])


@attrs.frozen
class Records:
    """Records read from the user's data, ready for :func:`lexcodecs.compare.compare`.

    * ``schema``: the key schema, one field per key column, in key order;
    * ``rows``: one tuple of values per record, in the order of the schema's fields;
    * ``source``: what was read, for people (``"CSV users.csv, key (user_id, created desc);
      1,000 rows"``);
    * ``proposed``: some field types were proposed from the input's declared types (SQLite
      declared types, the Parquet schema, a format's self-describing keys), not given;
    * ``columns``: the input's name of each key column (a field name may differ: see
      :func:`field_name`).
    """

    schema: KeySchema
    rows: list[tuple[Any, ...]] = attrs.field(repr=lambda rows: f"<{len(rows)} rows>")
    source: str
    proposed: bool
    columns: tuple[str, ...]


@attrs.frozen
class Column:
    """One column of an input, as the key resolution sees it.

    ``field`` is its name as a schema field (:func:`field_name`); ``declared`` the input's
    declared type (``""``: none); ``proposed`` the field type proposed from it (``None``: the
    input gives none); ``descending`` and ``primary`` its direction and position in the
    input's own primary key (SQLite), if it is in one.
    """

    name: str
    field: str
    declared: str = ""
    proposed: str | None = None
    descending: bool = False
    primary: int | None = None


class _Sample:
    """At most *limit* rows, a uniform sample of all offered (Algorithm R), in input order."""

    def __init__(self, limit: int, seed: int) -> None:
        self.limit = limit
        self.rng = random.Random(seed)
        self.kept: list[tuple[int, tuple[Any, ...]]] = []
        self.seen = 0

    def offer(self, row: tuple[Any, ...]) -> None:
        index = self.seen
        self.seen += 1
        if index < self.limit:
            self.kept.append((index, row))
            return
        slot = self.rng.randrange(index + 1)
        if slot < self.limit:
            self.kept[slot] = (index, row)

    def rows(self) -> list[tuple[Any, ...]]:
        return [row for _, row in sorted(self.kept, key=lambda item: item[0])]


def check_limit(limit: int) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise SourceError(f"the limit of rows must be a whole number of at least 0, not "
                          f"{limit!r}", source="records")


def collect(rows: Iterable[tuple[int, Sequence[Any]]], readers: Sequence[Callable[[Any], Any]],
            *, schema: KeySchema, columns: Sequence[Column], origins: Sequence[str | None],
            source: str, unit: str, limit: int, seed: int, proposed: bool,
            progress: Progress = None, total: int | None = None, noun: str = "rows"
            ) -> Records:
    """Read every row (``(number, raw values)``), keep a sample of *limit*, build Records.

    ``origins[i]`` is where field *i*'s type was proposed from (a declared type), for the
    hint of a refusal; ``None`` when the user gave the type. *unit* is what errors number
    (line, row, key); *noun* what the description counts (rows, records, keys).
    """
    check_limit(limit)
    sample = _Sample(limit, seed)
    for count, (number, raw) in enumerate(rows, 1):
        values: list[Any] = []
        for i, read in enumerate(readers):
            value = raw[i]
            if value is not None:
                try:
                    value = read(value)
                except (ValueError, ArithmeticError, TypeError) as exc:
                    raise _refused(exc, value, source, unit, number, schema, columns,
                                   origins, i) from None
            values.append(value)
        sample.offer(tuple(values))
        if progress is not None and count % _PROGRESS_EVERY == 0:
            progress(count, total)
    if progress is not None:
        progress(sample.seen, total if total is not None else sample.seen)
    kept = sample.rows()
    if sample.seen > len(kept):
        how = f"{len(kept):,} of {sample.seen:,} {noun}, a uniform sample (seed {seed})"
    else:
        how = f"{len(kept):,} {noun[:-1] if len(kept) == 1 else noun}"
    return Records(schema, kept, f"{source}, key ({key_text(schema)}); {how}", proposed,
                   tuple(c.name for c in columns))


def _refused(exc: BaseException, raw: Any, source: str, unit: str, number: int,
             schema: KeySchema, columns: Sequence[Column], origins: Sequence[str | None],
             i: int) -> SourceError:
    field = schema.fields[i]
    reason = str(exc) if not isinstance(exc, LexCodecError) else exc.reason
    if origins[i] is not None:
        other = guess_type([raw])
        reason += (f" ({field.type} was proposed from {origins[i]}; give another type in "
                   "the key" + (f", e.g. '{field.name}:{other}'" if other and other !=
                                field.type else "") + ")")
    return SourceError(reason, source=source, line=number, column=columns[i].name,
                       field_type=field.type, unit=unit)


def key_text(schema: KeySchema) -> str:
    """The key columns of *schema* as a person names them: ``user_id, created desc``."""
    parts = []
    for f in schema.fields:
        text = f.name + (" desc" if f.descending else "")
        if f.nulls is not None:
            text += f" nulls {f.nulls}"
        parts.append(text)
    return ", ".join(parts)
