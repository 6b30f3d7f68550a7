"""The paths a user names, checked before anything opens them.

Theory of operation: opening a named pipe (FIFO) for reading waits for a writer, for ever if
none comes; a character device (``/dev/zero``, a terminal) never ends or waits for typing; a
socket cannot be opened at all. None of them is a file of records, a database or an LMDB
environment, so every path is looked at with :func:`os.stat` (which never waits) first, and
anything but what the reader takes is refused with what it is: a data file must be a regular
file; an SQLite database a regular file, and so must its journal and write-ahead log be when
they exist (SQLite opens them, and a FIFO there hangs it just the same); an LMDB environment
a directory whose ``data.mdb`` is a regular file, or the data file itself (as LMDB opens a
path without ``subdir``). A file is then opened without waiting (``O_NONBLOCK``) and looked
at again through its descriptor, so a path swapped for a pipe in between is refused too.

:func:`path_problem` gives the reason as text (the command line puts its option in front);
the ``check_*`` functions and :func:`open_file` raise a :class:`SourceError` with it.
"""

from __future__ import annotations

import os
import stat
from typing import IO, Final, Literal

from .records import SourceError

__all__ = ["Kind", "check_database", "check_lmdb", "open_file", "path_problem", "special_kind",
           "special_kind_at"]

#: what a path must be: a data file, an SQLite database, an LMDB environment
Kind = Literal["file", "sqlite", "lmdb"]

#: what a path of each kind is, in messages
_WHAT: Final[dict[str, str]] = {
    "file": "a regular file",
    "sqlite": "an SQLite database file",
    "lmdb": "an LMDB environment (a directory, or its data file)",
}
#: the kinds of file that are neither a regular file nor a directory, as messages name them
_SPECIAL: Final = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
                   (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
#: the files SQLite opens next to a database, when they exist
SQLITE_COMPANIONS: Final = ("-journal", "-wal", "-shm")


def special_kind(mode: int) -> str | None:
    """What a file of *mode* is when it is neither a regular file nor a directory (a named
    pipe, a socket, a device), else ``None``."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return next((name for test, name in _SPECIAL if test(mode)), "a special file")


def special_kind_at(path: str | os.PathLike[str]) -> str | None:
    """What the file at *path* is when it is a named pipe, a socket or a device; ``None``
    for anything else, or nothing there (only :func:`os.stat` looks)."""
    try:
        return special_kind(os.stat(path).st_mode)
    except (OSError, ValueError):
        return None


def _special(mode: int, what: str) -> str | None:
    kind = special_kind(mode)
    return None if kind is None else f"is {kind}, not {what}"


def path_problem(path: str | os.PathLike[str], kind: Kind) -> str | None:
    """Why *path* is not what a reader of *kind* opens, or ``None`` when it is. Nothing is
    opened: only :func:`os.stat` looks, which never waits.

    >>> path_problem("/dev/null", "file")
    'is a character device, not a regular file'
    """
    what = _WHAT[kind]
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return {"file": "No such file or directory", "sqlite": "no such database file",
                "lmdb": "no such LMDB environment"}[kind]
    except (OSError, ValueError) as exc:  # no permission, a name too long, a NUL in it
        return getattr(exc, "strerror", None) or str(exc)
    if stat.S_ISDIR(info.st_mode):
        if kind == "file":
            return "is a directory, not a file"
        if kind == "sqlite":
            return "is a directory, not an SQLite database file"
        data = os.path.join(path, "data.mdb")
        try:
            inner = os.stat(data)
        except FileNotFoundError:
            return None  # LMDB says what it misses
        except OSError as exc:
            return f"{data}: {exc.strerror or exc}"
        reason = _special(inner.st_mode, "an LMDB data file") or (
            "is a directory, not an LMDB data file" if stat.S_ISDIR(inner.st_mode) else None)
        return None if reason is None else f"its data.mdb {reason}"
    reason = _special(info.st_mode, what)
    if reason is not None:
        return reason
    if kind == "sqlite":
        for suffix in SQLITE_COMPANIONS:
            companion = os.fspath(path) + suffix
            try:
                other = os.stat(companion)
            except OSError:
                continue  # none: SQLite makes it when it needs one (not read-only)
            reason = _special(other.st_mode, f"the database's {suffix[1:]} file") or (
                f"is a directory, not the database's {suffix[1:]} file"
                if stat.S_ISDIR(other.st_mode) else None)
            if reason is not None:
                return f"{os.path.basename(companion)} next to it {reason}"
    return None


def _check(path: str | os.PathLike[str], kind: Kind, source: str) -> None:
    reason = path_problem(path, kind)
    if reason is not None:
        raise SourceError(reason, source=source)


def check_database(path: str | os.PathLike[str], source: str) -> None:
    """A :class:`SourceError` unless *path* is a regular file SQLite can open without
    waiting (its journal, WAL and shared-memory files regular files too, when they exist)."""
    _check(path, "sqlite", source)


def check_lmdb(path: str | os.PathLike[str], source: str) -> None:
    """A :class:`SourceError` unless *path* is an LMDB environment's directory (its
    ``data.mdb`` a regular file when it exists) or a regular data file."""
    _check(path, "lmdb", source)


def open_file(path: str | os.PathLike[str], source: str) -> IO[bytes]:
    """*path* opened for reading bytes, or a :class:`SourceError` saying why not: missing,
    a directory, a named pipe, a socket or a device (checked before opening, and again on
    the opened file, which is opened without waiting)."""
    _check(path, "file", source)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise SourceError(exc.strerror or str(exc), source=source) from None
    try:
        mode = os.fstat(fd).st_mode
        reason = "is a directory, not a file" if stat.S_ISDIR(mode) else \
            _special(mode, _WHAT["file"])
        if reason is not None:
            raise SourceError(reason, source=source)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
