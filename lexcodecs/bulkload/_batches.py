"""Keys of a record batch, as the bulk-load job makes them on its workers.

Theory of operation: :func:`_encode_batch` takes them from ``lexcodecs.columnar.encode_arrow``
when that module is installed, else from the row API: each key column's Arrow values are read
as :func:`lexcodecs.sources.read_parquet` reads them (instants and durations as integers of
their unit, made microseconds; then the field type's value reader), NULL as ``None``, and
``bound.encode`` makes each key. Either way the keys are the row API's, byte for byte.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from ..codec import Codec
from ..migrate.transcoder import MigrationError
from ..registry import get_codec
from ..schema import KeySchema

__all__: list[str] = []


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise MigrationError("Parquet datasets need pyarrow: "
                             "pip install 'lexcodecs[parquet]'") from None
    return pyarrow


@functools.lru_cache(maxsize=16)
def _bound(codec_json: str, schema_json: str) -> tuple[Codec, KeySchema, Any]:
    """A codec and its binding, built once per worker process for each (codec, schema)."""
    codec = get_codec(**json.loads(codec_json))
    schema = KeySchema.from_json(schema_json)
    return codec, schema, codec.bind(schema)


def _encode_batch(batch: Any, schema: KeySchema, codec: Codec) -> Any:
    """The keys of a record batch (or table) as a ``pyarrow.BinaryArray``, one per row."""
    pa = _pyarrow()
    columns = pa.RecordBatch.from_arrays(
        [_whole(batch.column(name)) for name in schema.names], names=list(schema.names))
    try:
        from ..columnar import encode_arrow  # type: ignore[attr-defined,unused-ignore]
    except ImportError:
        return _encode_rows(columns, schema, codec)
    return encode_arrow(columns, schema, codec)


def _whole(column: Any) -> Any:
    """One array for a table's chunked column (a batch's column already is one)."""
    return column.combine_chunks() if hasattr(column, "combine_chunks") else column


def _encode_rows(columns: Any, schema: KeySchema, codec: Codec) -> Any:
    """:func:`_encode_batch` through the row API."""
    import pyarrow as pa

    from ..sources.parquet import _before, _column_values, _then
    from ..sources.records import SourceError
    from ..sources.values import value_reader

    readers = []
    for i, f in enumerate(schema.fields):
        before = _before(columns.column(i).type)
        read = value_reader(f.type)
        readers.append(read if before is None else _then(before, read))
    raw = [_column_values(columns.column(i)) for i in range(len(schema))]
    encode = codec.bind(schema).encode
    keys = []
    for number, row in enumerate(zip(*raw), 1):
        values = []
        for i, value in enumerate(row):
            if value is not None:
                try:
                    value = readers[i](value)
                except (ValueError, ArithmeticError, TypeError) as exc:
                    f = schema.fields[i]
                    raise SourceError(str(exc), source="Parquet record batch", line=number,
                                      column=f.name, field_type=f.type, unit="row") from None
            values.append(value)
        keys.append(encode(values))
    return pa.array(keys, type=pa.binary())
