"""One migration of a thing at a time: an exclusive lock file that a second run is refused by.

The lock is an exclusive ``flock`` on a file beside the store (SQLite: one per table, LMDB
and RocksDB: one per store). The operating system drops it when its holder dies (even by
``kill -9``), so a crashed run never leaves a stale lock, and the file is removed by the run
that holds it. A run refused by the lock has touched nothing: it is taken before anything is
read, rolled back, resumed or removed. Without ``fcntl`` (not POSIX) there is no lock.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from .transcoder import MigrationError

__all__ = ["exclusive"]


@contextlib.contextmanager
def exclusive(path: str | os.PathLike[str], busy: str) -> Iterator[None]:
    """Hold the lock file *path*; another holder makes this a :class:`MigrationError` saying
    *busy* (what is running, and what to do) and naming the file."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        yield
        return
    path = os.fspath(path)
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise MigrationError(f"cannot create the migration's lock file {path} "
                                 f"({exc.strerror or exc}); nothing was changed") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise MigrationError(f"{busy} (it holds {path})") from None
        try:  # the holder before us may have removed the file just before we locked it
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
        os.close(fd)
