"""What ``lexcodecs migrate`` shows before a migration runs, in a module that imports nothing:
the command line builds its parser from it without importing the migration."""

from __future__ import annotations

from typing import Final

__all__ = ["BATCH_SIZE"]

#: keys per committed batch, by default. Each commit costs a few synced writes (SQLite's
#: journal, LMDB's meta page, RocksDB's log), about 30 ms on this project's CI host: with 10,000
#: keys a batch, SQLite spent a quarter of its copy committing. A batch's keys and values are
#: held while it is written (LMDB, RocksDB): at 100,000, RocksDB's peak memory in
#: benchmarks/bench_migrate.py was 201 MB against 144 MB at 10,000, the same at any number of
#: keys; after a crash, a rerun repeats at most one batch
BATCH_SIZE: Final = 100_000
