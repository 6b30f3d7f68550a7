"""Records from a Parquet file, with pyarrow (the ``parquet`` extra).

Theory of operation: the file's Arrow schema proposes each column's field type
(:func:`arrow_field_type`, by the table :data:`ARROW_TYPES` and a few rules: decimals,
timestamps, durations, dictionaries by their values, 16-byte fixed binaries as UUIDs when
the type or the column's name says so); only the key columns are read, a batch at a time.
An extension type is read by what its values mean (``arrow.uuid``, ``arrow.bool8``, or a
type whose scalars give them), never by its storage: any other key column of one is
refused.
Timestamps and durations are read as integers in their unit and made microseconds, floored
(the field types hold microseconds), so that nanosecond values need no pandas and keep their
order; a timestamp without a time zone is UTC.
"""

from __future__ import annotations

import datetime as dt
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from ..schema import KeySchema
from .key import KeyColumn, field_names, resolve_key
from .paths import open_file
from .records import DEFAULT_LIMIT, Column, Progress, Records, SourceError, check_limit, collect
from .values import value_reader

__all__ = ["ARROW_TYPES", "INSTALL_HINT", "KNOWN_EXTENSIONS", "arrow_field_type",
           "extension_values_known", "read_parquet"]

INSTALL_HINT: Final = "reading Parquet needs pyarrow: pip install 'lexcodecs[parquet]'"

#: Arrow type names (``str(type)``) -> field type; the rest by :func:`arrow_field_type`
ARROW_TYPES: Final[dict[str, str]] = {
    "bool": "bool",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "halffloat": "float32", "float": "float32", "double": "float64",
    "string": "string", "large_string": "string", "string_view": "string",
    "binary": "bytes", "large_binary": "bytes", "binary_view": "bytes",
    "date32[day]": "timestamp", "date64[ms]": "timestamp",
}

_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
#: the Arrow extension types whose values the readers know themselves -> the field type they
#: propose (any other extension type is read by its scalars' values, or refused)
KNOWN_EXTENSIONS: Final[dict[str, str]] = {"arrow.uuid": "uuid", "arrow.bool8": "bool"}
#: microseconds per unit, as (multiplier, divisor)
_UNITS: Final[dict[str, tuple[int, int]]] = {"s": (1_000_000, 1), "ms": (1000, 1),
                                             "us": (1, 1), "ns": (1, 1000)}
_BATCH: Final = 4096


def _pyarrow() -> Any:
    try:
        import pyarrow  # noqa: F401 (the package first: its absence is the usual case)
        import pyarrow.parquet as pq
    except ImportError:
        raise SourceError(INSTALL_HINT, source="Parquet") from None
    return pq


def _is_uuid_name(name: str) -> bool:
    lowered = name.lower()
    return "uuid" in lowered or "guid" in lowered


def arrow_field_type(arrow_type: Any, name: str = "") -> str | None:
    """The field type proposed for a Parquet column of *arrow_type* named *name*."""
    import pyarrow as pa

    text = str(arrow_type)
    if text in ARROW_TYPES:
        return ARROW_TYPES[text]
    types = pa.types
    if isinstance(arrow_type, pa.BaseExtensionType):
        # what the values mean, not the storage: an unknown type proposes nothing
        return KNOWN_EXTENSIONS.get(arrow_type.extension_name)
    if types.is_dictionary(arrow_type):
        return arrow_field_type(arrow_type.value_type, name)
    if types.is_decimal(arrow_type):
        return "decimal"
    if types.is_timestamp(arrow_type):
        return "timestamp"
    if types.is_duration(arrow_type):
        return "duration"
    if types.is_fixed_size_binary(arrow_type):
        return "uuid" if arrow_type.byte_width == 16 and _is_uuid_name(name) else "bytes"
    return None


def extension_values_known(kind: Any) -> bool:
    """Whether the values of an Arrow extension type *kind* are known, as opposed to its
    storage's: ``arrow.uuid`` (16 bytes, a UUID) and ``arrow.bool8`` (int8, a boolean), and
    any type whose scalars say what they are (their class overrides ``as_py``, as pyarrow's
    canonical types do). An extension type without one -- ``arrow.json``, ``arrow.opaque``,
    a type of Python's own that declares no scalar class -- gives its storage values from
    ``to_pylist``: integers of an int64 storage are not the values it means. (The columnar
    encoder, :mod:`lexcodecs.columnar.arrow`, asks the same.)"""
    import pyarrow as pa

    if kind.extension_name in KNOWN_EXTENSIONS:
        return True
    try:
        scalar = kind.__arrow_ext_scalar_class__()
    except Exception:  # a type of Python's own whose method fails: not known
        return False
    return isinstance(scalar, type) and issubclass(scalar, pa.ExtensionScalar) \
        and getattr(scalar, "as_py", None) is not pa.ExtensionScalar.as_py


def _micros(unit: str) -> Callable[[int], int]:
    times, divide = _UNITS[unit]
    return lambda n: n * times // divide


def _timestamp(micros: int) -> dt.datetime:
    try:
        return _EPOCH + dt.timedelta(microseconds=micros)
    except OverflowError:
        raise ValueError(f"{micros} microseconds since 1970 is beyond the years 1..9999"
                         ) from None


def _duration(micros: int) -> dt.timedelta:
    try:
        return dt.timedelta(microseconds=micros)
    except OverflowError:
        raise ValueError(f"{micros} microseconds is beyond the range of a duration "
                         "(±999999999 days)") from None


def _before(arrow_type: Any) -> Callable[[int], Any] | None:
    """What a value of *arrow_type*, as :func:`_column_values` gives it, goes through before
    the field's reader: instants and durations are integers of their unit until then, so
    that a value out of range is refused in its row."""
    import pyarrow as pa

    if isinstance(arrow_type, pa.BaseExtensionType):
        return None  # read by what its values mean (_column_values)
    if pa.types.is_dictionary(arrow_type):
        return _before(arrow_type.value_type)
    if pa.types.is_timestamp(arrow_type):
        to_micros = _micros(arrow_type.unit)
        return lambda n: _timestamp(to_micros(n))
    if pa.types.is_duration(arrow_type):
        to_micros = _micros(arrow_type.unit)
        return lambda n: _duration(to_micros(n))
    return None


def _then(first: Callable[[Any], Any], then: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: then(first(value))


def _column_values(array: Any) -> list[Any]:
    """The Python values of one Arrow array (instants and durations as integers of their
    unit, see :func:`_before`)."""
    import pyarrow as pa

    kind = array.type
    if isinstance(kind, pa.BaseExtensionType):
        if kind.extension_name == "arrow.uuid":
            return [None if raw is None else uuid.UUID(bytes=raw)
                    for raw in array.storage.to_pylist()]
        # the values the type means (bool8: booleans), never its storage's; a type whose
        # scalars do not say what they mean was refused by read_parquet
        return list(array.to_pylist())
    if pa.types.is_dictionary(kind):
        return _column_values(array.dictionary_decode())
    if pa.types.is_timestamp(kind) or pa.types.is_duration(kind):
        return list(array.cast(pa.int64()).to_pylist())
    return list(array.to_pylist())


def read_parquet(path: str | os.PathLike[str], *, key: str | Sequence[KeyColumn] | None = None,
                 schema: KeySchema | str | None = None, limit: int = DEFAULT_LIMIT,
                 seed: int = 0, progress: Progress = None) -> Records:
    """Records from a Parquet file (needs pyarrow: ``pip install 'lexcodecs[parquet]'``).

    The key columns are named by *key* (key text, types optional) or by the fields of
    *schema*; field types not given are proposed from the file's Arrow types
    (``Records.proposed``). At most *limit* rows are kept: a uniform sample (seeded with
    *seed*) when there are more, in file order.
    """
    check_limit(limit)
    pq = _pyarrow()
    import pyarrow as pa

    what = f"Parquet {os.fspath(path)}"
    parsed = None if schema is None else KeySchema.coerce(schema)
    open_file(path, what).close()  # missing, a directory, a pipe or a device: as for CSV
    try:
        parquet = pq.ParquetFile(os.fspath(path))
        arrow_schema = parquet.schema_arrow
    except (pa.ArrowException, OSError) as exc:
        raise SourceError(f"not a Parquet file ({_first_line(exc)})", source=what) from None
    names = [str(n) for n in arrow_schema.names]
    columns = [Column(name, field, str(arrow_schema.field(i).type),
                      arrow_field_type(arrow_schema.field(i).type, name))
               for i, (name, field) in enumerate(zip(names, field_names(names)))]
    plan = resolve_key(columns, key, parsed, source=what, carries_types=True)
    picked = [names[i] for i in plan.indexes]
    if len(set(picked)) != len(picked) or any(names.count(n) > 1 for n in picked):
        raise SourceError("two columns share a key column's name", source=what)
    for i in plan.indexes:
        kind = arrow_schema.field(i).type
        if isinstance(kind, pa.BaseExtensionType) and not extension_values_known(kind):
            raise SourceError(f"a column of the Arrow extension type {kind.extension_name!r} "
                              f"(storage {kind.storage_type}): what its values mean is not "
                              "known, and its storage values are not them", source=what,
                              column=names[i])
    readers = []
    for f, i in zip(plan.schema.fields, plan.indexes):
        before = _before(arrow_schema.field(i).type)
        read = value_reader(f.type)
        readers.append(read if before is None else _then(before, read))
    total = int(parquet.metadata.num_rows)

    def rows() -> Iterator[tuple[int, tuple[Any, ...]]]:
        number = 0
        try:
            for batch in parquet.iter_batches(batch_size=_BATCH, columns=picked):
                values = [_column_values(batch.column(j)) for j in range(len(picked))]
                for row in zip(*values):
                    number += 1
                    yield number, row
        except (pa.ArrowException, OSError) as exc:
            raise SourceError(f"cannot read on: {_first_line(exc)}", source=what,
                              line=number + 1, unit="row") from None

    return collect(rows(), readers, schema=plan.schema,
                   columns=[columns[i] for i in plan.indexes], origins=plan.origins,
                   source=what, unit="row", limit=limit, seed=seed, proposed=plan.proposed,
                   progress=progress, total=total)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__
