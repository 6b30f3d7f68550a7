"""Moving stored keys from one format to another: the Transcoder, streams and stores.

Theory of operation: a :class:`Transcoder` decodes a key with the source codec and encodes the
values with the target codec, both bound to one schema. It refuses at construction when the
source cannot decode that schema, and it checks every new key: decoded by the target, it must
give back the values the old key held (a target that cannot hold them is a refusal, never a
silent change).

A store migration never touches the original until everything is known to be right:

1. **copy** -- read the source in its own key order, one batch at a time (keyset paging, so
   memory does not grow with the number of keys), transcode, and write the rows to a new table
   (SQLite: one ``INSERT ... SELECT`` per batch through the transcoder registered as an SQL
   function) or a new environment (LMDB, RocksDB). Each batch is committed together with the
   position it reached, so a run that is killed at any point resumes exactly there: nothing
   lost, nothing written twice.
2. **verify** -- in one read transaction: the same number of rows; old and new walked side
   by side, each pair holding equal values and equal other columns (anything the cheap
   comparison cannot judge is transcoded again and looked up); and the new store, in its own
   order, in the natural order of the values (a departure explained by one of the target
   codec's declared anomalies is reported; any other stops the migration).
3. **swap** -- atomically: one SQLite transaction drops (or keeps, renamed) the old table and
   renames the new one; for LMDB and RocksDB two directory renames, which a rerun completes if
   a crash came between them.

The report counts the keys migrated and the places where the old order disagreed with the new
one: a source format with anomalies can have stored its keys in a wrong order.

A **dry run** (:func:`dry_run_sqlite`, :func:`dry_run_lmdb`, :func:`dry_run_rocksdb`,
:func:`dry_run_lines`) reads the store read-only, transcodes its keys as the copy would, and
reports the plan, the counts, the key growth, collisions and refusals, writing nothing.

The modules, by job: :mod:`~lexcodecs.migrate.transcoder` (the Transcoder, its value check,
``MigrationError``, Dask partitions), :mod:`~lexcodecs.migrate.report` (the report and the
old-order watch), :mod:`~lexcodecs.migrate.lines` (hex-line streams),
:mod:`~lexcodecs.migrate.verify` (the natural-order check of a migrated store),
:mod:`~lexcodecs.migrate.sqlite_store`, :mod:`~lexcodecs.migrate.lmdb_store` and
:mod:`~lexcodecs.migrate.rocksdb_store` (copy, verify and swap for each store),
:mod:`~lexcodecs.migrate.dry_run` (the dry run).
"""

from typing import TYPE_CHECKING, Final

from .._lazy import exports
from .defaults import BATCH_SIZE

if TYPE_CHECKING:
    from .dry_run import DryRun, dry_run_lines, dry_run_lmdb, dry_run_rocksdb, dry_run_sqlite
    from .lines import migrate_lines
    from .lmdb_ranges import RUNS_SUFFIX as RUNS_SUFFIX
    from .lmdb_ranges import migrate_lmdb_ranges
    from .lmdb_store import migrate_lmdb
    from .report import MAX_EXAMPLES as MAX_EXAMPLES
    from .report import MigrationReport
    from .report import Progress as Progress
    from .rocksdb_store import migrate_rocksdb
    from .sqlite_store import NEW_SUFFIX as NEW_SUFFIX
    from .sqlite_store import OLD_SUFFIX as OLD_SUFFIX
    from .sqlite_store import STATE_TABLE as STATE_TABLE
    from .sqlite_store import migrate_sqlite
    from .transcoder import MigrationError, Transcoder, transcode_partition

#: every other public name -> the module it is imported from on first use (PEP 562): the
#: command line imports this package for its defaults, and only ``migrate`` needs the rest
_LAZY: Final = {
    "DryRun": "dry_run", "dry_run_lines": "dry_run", "dry_run_lmdb": "dry_run",
    "dry_run_rocksdb": "dry_run", "dry_run_sqlite": "dry_run",
    "migrate_lines": "lines", "migrate_lmdb": "lmdb_store", "migrate_rocksdb": "rocksdb_store",
    "migrate_lmdb_ranges": "lmdb_ranges", "RUNS_SUFFIX": "lmdb_ranges",
    "migrate_sqlite": "sqlite_store", "NEW_SUFFIX": "sqlite_store",
    "OLD_SUFFIX": "sqlite_store", "STATE_TABLE": "sqlite_store",
    "MAX_EXAMPLES": "report", "MigrationReport": "report", "Progress": "report",
    "MigrationError": "transcoder", "Transcoder": "transcoder",
    "transcode_partition": "transcoder",
}

__getattr__, __dir__ = exports(__name__, _LAZY)

__all__ = [
    "BATCH_SIZE",
    "DryRun",
    "MigrationError",
    "MigrationReport",
    "Transcoder",
    "dry_run_lines",
    "dry_run_lmdb",
    "dry_run_rocksdb",
    "dry_run_sqlite",
    "migrate_lines",
    "migrate_lmdb",
    "migrate_lmdb_ranges",
    "migrate_rocksdb",
    "migrate_sqlite",
    "transcode_partition",
]
