"""What the scale-out jobs share: the optional imports, keys of a record batch, atomic files,
range boundaries from a sample, and running tasks on a ``distributed.Client``.

Keys of a record batch (:func:`_encode_batch`) come from ``lexcodecs.columnar.encode_arrow``
when that module is installed, else from the row API: each key column's Arrow values are read
as :func:`lexcodecs.sources.read_parquet` reads them (instants and durations as integers of
their unit, made microseconds; then the field type's value reader), NULL as ``None``, and
``bound.encode`` makes each key. Either way the keys are the row API's, byte for byte.

Every file a job writes is written under a temporary name unique to the writer, flushed to
disk and renamed (:func:`write_atomic`): a file that exists is complete, and two writers of
the same file (a task rerun while a straggler of an interrupted run still works) write the
same bytes, the last rename winning.
"""

from __future__ import annotations

import bisect
import functools
import json
import os
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from ..codec import Codec
from ..migrate.transcoder import MigrationError
from ..registry import get_codec
from ..schema import KeySchema

__all__: list[str] = []

#: samples taken per range when boundaries are picked: enough that ranges come out within
#: a few percent of equal on any distribution of keys, few enough to cost nothing
OVERSAMPLE: Final = 64

#: what each task-level callback is told (as for the store migrations): a phase's label and
#: number of steps, then the steps done
PhaseStart = Callable[[str, int], None] | None
Progress = Callable[[int], None] | None


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise MigrationError("scale-out jobs need dask.distributed: "
                             "pip install 'lexcodecs[dask]'") from None
    return distributed


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


def write_atomic(path: Path, write: Callable[[Path], object], *, durable: bool = True
                 ) -> None:
    """Write *path* as ``write(tmp)`` to a name unique to this writer, fsync (when
    *durable*: a file that must survive a power loss, not only a killed process) and
    rename."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        write(tmp)
        if durable:
            with open(tmp, "rb+") as f:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    """A JSON file, replaced atomically."""
    write_atomic(path, lambda tmp: tmp.write_text(json.dumps(data), encoding="utf-8"))


def boundaries(sample: Iterable[bytes], ranges: int) -> list[bytes]:
    """At most ``ranges - 1`` ascending, distinct keys cutting a sample into equal parts:
    range ``r`` holds the keys ``k`` with ``bounds[r - 1] <= k < bounds[r]``.

    >>> [b.hex() for b in boundaries([bytes([i]) for i in range(100)], 4)]
    ['19', '32', '4b']
    """
    keys = sorted(sample)
    if not keys:
        return []
    cuts = (keys[len(keys) * r // ranges] for r in range(1, ranges))
    return sorted({c for c in cuts if c > keys[0]})


def range_of(bounds: Sequence[bytes], key: bytes) -> int:
    """The index of the range holding *key*."""
    return bisect.bisect_right(bounds, key)


def run_all(client: Any, tasks: Sequence[tuple[Callable[..., Any], tuple[Any, ...]]],
            done: Callable[[int, Any], None]) -> None:
    """Run ``fn(*args)`` for each task on the cluster; ``done(index, result)`` as each
    finishes, in the coordinator. The first error (a lexcodecs error comes back as the one the
    worker raised) or an interruption cancels the rest; what finished stays done."""
    distributed = _distributed()
    futures = [client.submit(fn, *args, pure=False) for fn, args in tasks]
    index = {f.key: i for i, f in enumerate(futures)}
    try:
        for future in distributed.as_completed(futures):
            done(index[future.key], future.result())
    except BaseException:
        client.cancel(futures)
        raise

