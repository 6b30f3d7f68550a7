"""What ``lexcodecs migrate`` shows before a migration runs, in a module that imports nothing:
the command line builds its parser from it without importing the migration."""

from __future__ import annotations

from typing import Final

__all__ = ["BATCH_SIZE"]

#: keys per committed batch, by default: each commit costs a few synced writes (SQLite's
#: journal, LMDB's meta page, RocksDB's log), about 30 ms on this project's CI host, so with
#: 10,000 a batch SQLite spent a quarter of its copy committing; 100,000 keys still hold
#: little memory (LMDB and RocksDB keep one batch's keys and values: about 20 MB of 40-byte
#: keys and 50-byte values) and cost a rerun a few tenths of a second of work after a crash
BATCH_SIZE: Final = 100_000
