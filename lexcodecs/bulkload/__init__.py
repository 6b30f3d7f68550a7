"""Bulk loading: a Parquet dataset's records to sorted key/value files, one per key range, on
dask.distributed (the ``dask`` and ``parquet`` extras).

Theory of operation: :func:`build_sorted_keys` (:mod:`~lexcodecs.bulkload.sorted_keys`) plans
the ranges by sampling the keys, transcodes the records on the workers (the keys of a record
batch: :mod:`~lexcodecs.bulkload._batches`) and writes ``part-NNNNN.parquet`` files of ``key``
and the other columns (or RocksDB SST files, which a store ingests whole), sorted by key
bytes; a rerun after an interruption does only what is missing (:mod:`lexcodecs._dask`: the
tasks, atomic files, the boundaries). The LMDB migration split by key range is a migration:
:func:`lexcodecs.migrate.migrate_lmdb_ranges`.
"""

from .sorted_keys import KEY_COLUMN, MANIFEST, DuplicateKeyError, SortedKeys, build_sorted_keys

__all__ = ["KEY_COLUMN", "MANIFEST", "DuplicateKeyError", "SortedKeys", "build_sorted_keys"]
