"""Scale-out on dask.distributed: sorted key/value Parquet from a Parquet dataset, and store
migrations split by key range across workers (the ``dask`` extra, and ``parquet`` for the
Parquet job).

Theory of operation: the coordinator (the caller's process) plans the work, submits one task
per piece to a ``distributed.Client`` and records what finished; every task writes its result
to a file of its own, atomically (under a temporary name, renamed when complete), so a rerun
after an interruption does only what is missing. An error a worker raises comes back to the
caller as the lexcodecs error it was (lexcodecs errors pickle with all their parts).

* :func:`build_sorted_keys` (:mod:`~lexcodecs.scaleout.sorted_keys`) -- Parquet records to
  ``part-NNNNN.parquet`` files of ``key`` + the other columns (or RocksDB SST files),
  sorted by key bytes, one per key range;
* :func:`migrate_lmdb_ranges` (:mod:`~lexcodecs.scaleout.lmdb_ranges`) -- an LMDB migration
  whose copy is transcoded by range on the workers, then loaded, verified and swapped by the
  machinery of :mod:`lexcodecs.migrate.lmdb_store`.
"""

from .lmdb_ranges import RUNS_SUFFIX, migrate_lmdb_ranges
from .sorted_keys import KEY_COLUMN, MANIFEST, DuplicateKeyError, SortedKeys, build_sorted_keys

__all__ = ["KEY_COLUMN", "MANIFEST", "RUNS_SUFFIX", "DuplicateKeyError", "SortedKeys",
           "build_sorted_keys", "migrate_lmdb_ranges"]
