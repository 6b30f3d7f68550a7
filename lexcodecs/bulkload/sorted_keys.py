"""Parquet records to sorted key/value Parquet files, partitioned by key range, on a cluster.

Theory of operation: a sample sort in two rounds of tasks on a ``distributed.Client``, each
task's file written atomically so that a rerun does only what is missing.

1. **encode** -- one task per row group of the input reads it, encodes every key
   (:func:`~._batches._encode_batch`: the columnar encoder when installed, else the row API,
   the same bytes), sorts its rows by key and writes them to a sorted run
   ``_shuffle/pNNNNN.arrow`` (Arrow IPC, read back memory-mapped). It returns a few evenly
   spaced keys of its run (:data:`~lexcodecs._dask.OVERSAMPLE` per range over
   all runs); the coordinator cuts these into *ranges* equal parts
   (:func:`~lexcodecs._dask.boundaries`, by the bytes of the keys) and records the boundaries in
   the manifest. The runs are not synced to disk: a killed process loses none of them, a
   power loss may (a rerun then meets a damaged run and says to restart).
2. **sort** -- one task per range takes its slice of every run (found by bisection; only
   those pages of the map are read), sorts them together, refuses two equal keys
   (:class:`DuplicateKeyError`) and writes ``part-NNNNN.parquet``.

Every part holds a ``key`` column (binary: the record's key in the codec's format) and the
record's other columns, unchanged, with their Arrow types: **the value is the record minus
its key columns.** With ``format="sst"`` the parts are RocksDB SST files instead, for bulk
ingestion, and the value of each entry is the bytes of one column. The parts in name order
hold every record once, the keys ascending by bytes across all of them. The manifest
``_lexcodecs-sorted-keys.json`` records the settings (inputs with their sizes and times,
schema, codec, ranges, format) and the boundaries; a rerun with the same settings skips the
row groups with a run and the ranges with a part, with other settings it refuses unless
told to restart. When all parts are written the shuffle is removed and the manifest says
so.
"""

from __future__ import annotations

import bisect
import json
import os
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import attrs

from .._dask import OVERSAMPLE, boundaries, run_all, write_atomic, write_json
from ..codec import Codec
from ..migrate.report import PhaseStart, Progress
from ..migrate.transcoder import MigrationError, _as_codec
from ..schema import KeySchema
from ._batches import _bound, _encode_batch, _pyarrow

__all__ = ["KEY_COLUMN", "MANIFEST", "DuplicateKeyError", "SortedKeys", "build_sorted_keys"]

#: the name of the key column in every part
KEY_COLUMN: Final = "key"
#: the manifest's file name, in the output directory
MANIFEST: Final = "_lexcodecs-sorted-keys.json"
_SHUFFLE: Final = "_shuffle"
_VERSION: Final = 1
#: the parts' file names by format
_SUFFIXES: Final = {"parquet": ".parquet", "sst": ".sst"}
#: what an SST part of a range without keys is instead (RocksDB writes no empty SST file)
_EMPTY: Final = ".empty"


class DuplicateKeyError(MigrationError):
    """Two records have the same key: a sorted key/value file holds one entry per key, and
    keeping either would lose the other (``key`` is the key, ``values`` its decoded values
    when the codec decodes)."""

    __module__ = "lexcodecs.bulkload"

    def __init__(self, reason: str, *, key: bytes, codec: str | None = None,
                 values: Any = None) -> None:
        super().__init__(reason, codec=codec)
        self.key = key
        self.values = values


@attrs.frozen
class SortedKeys:
    """What :func:`build_sorted_keys` wrote: the parts in key order, rows, boundaries."""

    out_dir: Path
    parts: tuple[Path, ...]
    rows: int
    boundaries: tuple[bytes, ...]
    #: row groups and ranges an earlier, interrupted run had finished (not done again)
    reused: int
    seconds: float


def build_sorted_keys(dataset: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
                      out_dir: str | os.PathLike[str], schema: KeySchema | str,
                      codec: Codec | str | Mapping[str, Any], client: Any, *,
                      ranges: int = 8, restart: bool = False, format: str = "parquet",
                      value: str | None = None, progress: Progress = None,
                      phase: PhaseStart = None) -> SortedKeys:
    """Encode the keys of a Parquet dataset and write them, sorted, with the other columns
    as values, as ``part-NNNNN.parquet`` files in *out_dir*, one per key range.

    With ``format="sst"`` the parts are RocksDB SST files (``part-NNNNN.sst``, for
    ``ingest_external_file``; a range without keys has none) and each entry's value is the
    bytes of one column: *value*, or the dataset's only column besides the key columns
    (binary, or string as UTF-8; other columns are not written).

    *dataset* is a Parquet file, a directory (its ``*.parquet`` files, recursively, in name
    order) or a list of files; *schema* names the key columns and their field types; the
    tasks run on *client* (a ``distributed.Client``). Two records with the same key are
    refused (:class:`DuplicateKeyError`); a value a field type cannot read or the codec
    cannot encode raises the lexcodecs error the worker met. A rerun of an interrupted job
    (same settings) does only what is missing; other settings are refused unless *restart*,
    which discards the earlier job's files (never files it did not write).
    """
    pa = _pyarrow()
    started = time.monotonic()
    if type(ranges) is not int or ranges < 1:
        raise MigrationError(f"ranges must be a whole number >= 1, not {ranges!r}")
    key_schema = KeySchema.coerce(schema)
    the_codec = _as_codec(codec)
    codec_json = json.dumps(the_codec.config())
    schema_json = key_schema.to_json()
    out = Path(out_dir)
    if format not in _SUFFIXES:
        raise MigrationError(f"format {format!r}: the parts are 'parquet' or 'sst' files")
    pieces, value_names, out_schema = _plan(pa, _inputs(dataset, out), key_schema)
    if format == "sst":
        value_names, out_schema = _sst_value(pa, value_names, out_schema, value)
    elif value is not None:
        raise MigrationError("value names the value column of SST parts; Parquet parts "
                             "hold every other column")
    settings = json.loads(json.dumps({
        "version": _VERSION, "codec": the_codec.config(), "schema": key_schema.to_dict(),
        "ranges": ranges, "format": format, "value": value_names,
        "inputs": sorted({(p[0], p[3], p[4]) for p in pieces})}))
    manifest = _open_manifest(out, settings, restart)
    shuffle = out / _SHUFFLE
    reused = 0

    total = sum(p[2] for p in pieces)
    quota = [-(-OVERSAMPLE * ranges * p[2] // max(total, 1)) for p in pieces]
    runs = [shuffle / f"p{i:05d}.arrow" for i in range(len(pieces))]
    if not manifest["complete"]:
        todo = [i for i in range(len(pieces)) if not runs[i].exists()]
        reused += len(pieces) - len(todo)
        samples: dict[int, list[bytes]] = {}
        steps = _Steps(progress)

        def encoded(j: int, keys: list[bytes]) -> None:
            samples[todo[j]] = keys
            steps.done(j, keys)

        if phase is not None:
            phase("encoding", len(todo))
        run_all(client, [(_encode_piece, (pieces[i][0], pieces[i][1], value_names,
                                          str(runs[i]), quota[i], codec_json, schema_json))
                         for i in todo], encoded)
        if manifest["boundaries"] is None:
            sample = [key for i in range(len(pieces)) for key in
                      (samples[i] if i in samples else _sample(_read_ipc(runs[i]), quota[i]))]
            manifest["boundaries"] = [b.hex() for b in boundaries(sample, ranges)]
            write_json(out / MANIFEST, manifest)
    bounds = [bytes.fromhex(b) for b in manifest["boundaries"]]
    n_ranges = len(bounds) + 1
    parts = [out / f"part-{r:05d}{_SUFFIXES[format]}" for r in range(n_ranges)]
    if not manifest["complete"]:
        left = [r for r in range(n_ranges) if not _written(parts[r])]
        reused += n_ranges - len(left)
        edges: list[bytes | None] = [None, *bounds, None]
        if phase is not None:
            phase("sorting", len(left))
        run_all(client, [(_sort_range, (edges[r], edges[r + 1], [str(p) for p in runs],
                                        str(parts[r]), out_schema, codec_json, schema_json))
                         for r in left], _Steps(progress).done)
        counts = _range_counts(runs, bounds)
        if sum(counts) != total or (format == "parquet" and counts != [
                int(_pq().read_metadata(p).num_rows) for p in parts]):
            raise MigrationError(f"the parts do not hold the {total:,} rows of the input: "
                                 f"was {out} changed by another job? rerun with "
                                 "restart=True")
        manifest.update(complete=True, rows=counts)
        write_json(out / MANIFEST, manifest)
        shutil.rmtree(shuffle, ignore_errors=True)
    else:
        reused += len(pieces) + n_ranges
    written = tuple(p for p, rows in zip(parts, manifest["rows"]) if rows or
                    format == "parquet")
    return SortedKeys(out, written, sum(manifest["rows"]), tuple(bounds), reused,
                      time.monotonic() - started)


class _Steps:
    """Counts the tasks of one round as they finish, for *progress*."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.count = 0

    def done(self, index: int, result: Any) -> None:
        self.count += 1
        if self.progress is not None:
            self.progress(self.count)


def _pq() -> Any:
    import pyarrow.parquet as pq

    return pq


def _inputs(dataset: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], out: Path
            ) -> list[Path]:
    if isinstance(dataset, (str, os.PathLike)):
        root = Path(dataset)
        if root.is_dir():  # the output may be inside: its parts are not input
            mine = out.resolve()
            files = sorted(p for p in root.rglob("*.parquet")
                           if mine not in p.resolve().parents)
            if not files:
                raise MigrationError(f"{root} holds no *.parquet files")
            for p in files:
                _check_file(p)
            return files
        paths = [root]
    else:
        paths = [Path(p) for p in dataset]
    for p in paths:
        _check_file(p)
    return paths


def _check_file(path: Path) -> None:
    """A Parquet input must be a regular file: a named pipe or a device is refused before
    anything opens it (reading one would wait for ever)."""
    from ..sources.paths import path_problem

    reason = path_problem(path, "file")
    if reason is not None:
        raise MigrationError(f"{path} is not a Parquet file ({reason})")


def _plan(pa: Any, files: list[Path], schema: KeySchema
          ) -> tuple[list[tuple[str, int, int, int, int]], list[str], Any]:
    """The row groups to read (path, group, rows, size, mtime), the value columns, and the
    Arrow schema of a part; every file must have the key columns and the same others."""
    pq = _pq()
    pieces: list[tuple[str, int, int, int, int]] = []
    first: Any = None
    for path in files:
        try:
            meta = pq.ParquetFile(path)
            arrow = meta.schema_arrow
        except (pa.ArrowException, OSError) as exc:
            raise MigrationError(f"{path} is not a Parquet file ({exc})") from None
        missing = [n for n in schema.names if n not in arrow.names]
        if missing:
            raise MigrationError(f"{path} has no column {missing[0]!r}, a key column of "
                                 f"the schema ({schema.to_text()})")
        values = pa.schema([f for f in arrow if f.name not in schema.names])
        if first is None:
            first = values
            if KEY_COLUMN in values.names:
                raise MigrationError(f"{path} has a column {KEY_COLUMN!r} that is not a key "
                                     f"column: the parts name their key column so")
        elif not values.equals(first):
            raise MigrationError(f"{path} has other value columns than {files[0]} "
                                 f"({values} against {first})")
        stat = path.stat()
        pieces += [(str(path), g, int(meta.metadata.row_group(g).num_rows), stat.st_size,
                    stat.st_mtime_ns) for g in range(meta.metadata.num_row_groups)]
    out_schema = pa.schema([pa.field(KEY_COLUMN, pa.binary(), nullable=False), *first])
    return pieces, list(first.names), out_schema


def _sst_value(pa: Any, value_names: list[str], out_schema: Any, value: str | None
               ) -> tuple[list[str], Any]:
    """The value column of SST parts: *value*, or the only column besides the key's; its
    bytes are the value, so it must be binary or string."""
    if value is None and len(value_names) != 1:
        raise MigrationError(f"SST parts hold one value per key: name the value column "
                             f"(value=...) among {value_names}")
    name = value if value is not None else value_names[0]
    if name not in value_names:
        raise MigrationError(f"the value column {name!r} is not a column of the dataset "
                             f"besides the key's ({value_names})")
    kind = out_schema.field(name).type
    types = pa.types
    if not (types.is_binary(kind) or types.is_large_binary(kind) or types.is_string(kind)
            or types.is_large_string(kind) or types.is_fixed_size_binary(kind)):
        raise MigrationError(f"the value column {name!r} is {kind}: the value of an SST "
                             "entry is bytes, from a binary or string column")
    return [name], pa.schema([out_schema.field(KEY_COLUMN), out_schema.field(name)])


def _written(part: Path) -> bool:
    return part.exists() or part.with_suffix(_EMPTY).exists()


def _range_counts(runs: list[Path], bounds: list[bytes]) -> list[int]:
    """The rows of each range over all runs, by bisection in their maps."""
    counts = [0] * (len(bounds) + 1)
    for run in runs:
        keys = _keys_of(_read_ipc(run))
        cuts = [0, *(bisect.bisect_left(keys, b, key=_as_py) for b in bounds), len(keys)]
        for r in range(len(counts)):
            counts[r] += cuts[r + 1] - cuts[r]
    return counts


def _keys_of(rows: Any) -> Any:
    keys = rows.column(KEY_COLUMN)
    return keys.chunk(0) if keys.num_chunks == 1 else keys.combine_chunks()


def _open_manifest(out: Path, settings: dict[str, Any], restart: bool) -> dict[str, Any]:
    path = out / MANIFEST
    if path.exists():
        manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        if manifest.get("settings") == settings and not restart:
            return manifest
        if not restart:
            saved = manifest.get("settings") or {}
            differ = [k for k in settings if saved.get(k) != settings[k]]
            raise MigrationError(f"{out} holds the output of a job with other settings "
                                 f"({', '.join(differ)} differ); use another directory, or "
                                 "restart=True to discard it")
        _discard(out)
    elif out.exists() and any(out.iterdir()):
        raise MigrationError(f"{out} is not empty and holds no {MANIFEST}: it is not the "
                             "output of build_sorted_keys; give an empty or new directory")
    out.mkdir(parents=True, exist_ok=True)
    manifest = {"settings": settings, "boundaries": None, "complete": False}
    write_json(path, manifest)
    return manifest


def _discard(out: Path) -> None:
    """Remove the files of an earlier job (and only those)."""
    shutil.rmtree(out / _SHUFFLE, ignore_errors=True)
    for p in out.iterdir():
        if p.name.startswith(("part-", ".part-")) and p.name.endswith(
                (*_SUFFIXES.values(), _EMPTY, ".tmp")):
            p.unlink()
    (out / MANIFEST).unlink()


# -- the tasks (run in the workers) ------------------------------------------------------------

def _encode_piece(path: str, group: int, value_names: list[str], run: str, k: int,
                  codec_json: str, schema_json: str) -> list[bytes]:
    """Encode one row group's keys, sort its rows by key, write them to *run*; returns
    *k* evenly spaced keys of it, for the boundaries."""
    import pyarrow as pa

    codec, schema, _ = _bound(codec_json, schema_json)
    table = _pq().ParquetFile(path).read_row_group(group)
    keys = _encode_batch(table, schema, codec)
    rows = pa.Table.from_arrays([keys, *(table.column(n) for n in value_names)],
                                names=[KEY_COLUMN, *value_names]
                                ).sort_by(KEY_COLUMN).combine_chunks()
    Path(run).parent.mkdir(parents=True, exist_ok=True)
    write_atomic(Path(run), _ipc_writer(rows), durable=False)
    return _sample(rows, k)


def _sample(rows: Any, k: int) -> list[bytes]:
    """*k* evenly spaced keys of a table sorted by key."""
    n = len(rows)
    if n == 0 or k <= 0:
        return []
    k = min(k, n)
    keys: list[bytes] = rows.column(KEY_COLUMN).take(
        [(2 * i + 1) * n // (2 * k) for i in range(k)]).to_pylist()
    return keys


def _ipc_writer(table: Any) -> Callable[[Path], None]:
    def write(tmp: Path) -> None:
        import pyarrow as pa

        with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(sink, table.schema) as out:
            out.write_table(table)

    return write


def _read_ipc(path: Path) -> Any:
    import pyarrow as pa

    try:  # the table keeps the map open as long as it needs it
        return pa.ipc.open_file(pa.memory_map(str(path))).read_all()
    except (pa.ArrowException, OSError) as exc:
        raise MigrationError(f"the shuffle file {path} cannot be read ({exc}); after a "
                             "power loss the shuffle may be damaged: rerun with "
                             "restart=True") from None


def _writer(table: Any) -> Callable[[Path], None]:
    def write(tmp: Path) -> None:
        _pq().write_table(table, tmp)

    return write


def _as_py(scalar: Any) -> bytes:
    value: bytes = scalar.as_py()
    return value


def _sort_range(lo: bytes | None, hi: bytes | None, runs: list[str], part: str,
                out_schema: Any, codec_json: str, schema_json: str) -> int:
    """One key range: its slice of every sorted run (found by bisection, read from the
    memory map), sorted together, refused if two keys are equal, written as *part*."""
    import pyarrow as pa
    import pyarrow.compute as pc

    codec, _, bound = _bound(codec_json, schema_json)
    slices = []
    for run in runs:
        rows = _read_ipc(Path(run))
        keys = _keys_of(rows)
        start = 0 if lo is None else bisect.bisect_left(keys, lo, key=_as_py)
        end = len(keys) if hi is None else bisect.bisect_left(keys, hi, key=_as_py)
        if end > start:
            slices.append(rows.slice(start, end - start))
    table = (pa.concat_tables(slices) if slices else out_schema.empty_table()
             ).sort_by(KEY_COLUMN).combine_chunks()
    keys = table.column(KEY_COLUMN).combine_chunks()
    if len(keys) > 1:
        same = pc.equal(keys.slice(1), keys.slice(0, len(keys) - 1))
        if pc.any(same).as_py():
            key: bytes = keys[int(pc.index(same, True).as_py())].as_py()
            try:
                values = bound.decode(key)
            except Exception:  # a format that cannot be decoded: the key bytes say it
                values = None
            raise DuplicateKeyError(
                f"two records have the key {key.hex(' ')}"
                + ("" if values is None else f" (values {values!r})")
                + "; a sorted key/value file holds one entry per key", key=key,
                codec=codec.name, values=values)
    if part.endswith(_SUFFIXES["sst"]):
        if len(table) == 0:
            write_atomic(Path(part).with_suffix(_EMPTY), lambda tmp: tmp.write_bytes(b""))
        else:
            write_atomic(Path(part), _sst_writer(table))
    else:
        write_atomic(Path(part), _writer(table))
    return len(table)


def _sst_writer(table: Any) -> Callable[[Path], None]:
    def write(tmp: Path) -> None:
        import pyarrow as pa

        try:
            import rocksdict
        except ImportError:
            raise MigrationError("SST parts need rocksdict: pip install 'lexcodecs[rocksdb]'"
                                 ) from None
        keys, values = table.column(0), table.column(1)
        if values.null_count:
            key = keys[values.is_null().index(True).as_py()].as_py()
            raise MigrationError(f"the key {key.hex(' ')} has a NULL value: an SST entry "
                                 "holds bytes")
        writer = rocksdict.SstFileWriter(rocksdict.Options(raw_mode=True))
        writer.open(str(tmp))
        for key, value in zip(keys.to_pylist(), values.cast(pa.binary()).to_pylist()):
            writer[key] = value
        writer.finish()

    return write
