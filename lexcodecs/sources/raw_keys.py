"""Raw keys, as bytes, for identification (``lexcodecs identify``): nothing is decoded.

Theory of operation: :func:`lexcodecs.identification.identify` is given keys nobody
documented, so every reader here hands back the stored bytes untouched, in the source's own
order: hex lines (a file, or standard input), the BLOB values of an SQLite table's column, the
keys of an LMDB environment's main database, or the keys of one column family of a RocksDB
database. Each reader streams its source and keeps at most *sample* keys, a uniform sample
(reservoir sampling, Algorithm R, with a fixed seed, so the same source and *sample* give the
same keys every time), or every key when *sample* is ``None``: memory follows the sample, time
the source. Every key is read, so :attr:`RawKeys.read` is the source's true count.

Stores and files are only read (SQLite through a read-only URI, LMDB read-only without a lock
file, RocksDB as a read-only instance), and every path is looked at with ``stat`` before it is
opened (:mod:`~lexcodecs.sources.paths`): a named pipe, a socket or a device would make the
open wait for ever. Every refusal is a :class:`~lexcodecs.sources.SourceError` naming the
source and, for a bad key, its line or row.
"""

from __future__ import annotations

import os
import random
import re
import sqlite3
import stat
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, Final

import attrs

from .paths import open_file, special_kind
from .records import Progress, SourceError
from .sqlite import column_select, connect
from .stores import _STORAGE_CLASSES, open_lmdb

__all__ = ["ROCKSDB_HINT", "SEED", "RawKeys", "hex_line", "read_raw_hex", "read_raw_lmdb",
           "read_raw_rocksdb", "read_raw_sqlite", "rocksdb_problem", "sample_keys"]

#: the seed of every sample: a fixed one, so that a sample can be taken again
SEED: Final = 0

ROCKSDB_HINT: Final = ("reading RocksDB needs the rocksdict package: "
                       "pip install 'lexcodecs[rocksdb]'")

#: how often (in keys) progress is reported
_PROGRESS_EVERY: Final = 4096

#: what a hex line may not contain, and the separators it may: the rules of the command
#: line's HEX (``lexcodecs.cli.parse_hex``), written again here because the command line sits
#: above this package and may not be imported by it (tests/test_raw_keys.py holds them equal)
_HEX_JUNK: Final = re.compile(r"[^0-9a-fA-F\s:]")
_HEX_SEPARATORS: Final = re.compile(r"[\s:]")

#: the file rocksdict writes into any database it opens; removed again when it was not there
_ROCKSDICT_CONFIG: Final = "rocksdict-config.json"


@attrs.frozen
class RawKeys:
    """Keys read from a source: ``keys`` (the ones kept, in the source's order), ``read``
    (how many the source held), ``source`` (what was read, for people)."""

    keys: list[bytes] = attrs.field(repr=lambda keys: f"<{len(keys)} keys>")
    read: int
    source: str

    @property
    def sampled(self) -> bool:
        """Whether ``keys`` is a sample: the source held more."""
        return self.read > len(self.keys)


# -- sampling ---------------------------------------------------------------------------------

def sample_keys(keys: Iterable[bytes], sample: int | None, *, seed: int = SEED,
                progress: Progress = None, total: int | None = None
                ) -> tuple[list[bytes], int]:
    """``(kept, read)``: every key of *keys* when *sample* is ``None``, else at most *sample*
    of them, a uniform sample (Algorithm R, seeded with *seed*) in their order; *read* counts
    them all. *progress* is told the count every few thousand keys, with *total* (``None``
    when unknown; an estimate grows to the count)."""
    kept: list[tuple[int, bytes]] = []
    rng = random.Random(seed)
    read = 0
    for read, key in enumerate(keys, 1):
        index = read - 1
        if sample is None or index < sample:
            kept.append((index, key))
        else:
            slot = rng.randrange(index + 1)
            if slot < sample:
                kept[slot] = (index, key)
        if progress is not None and read % _PROGRESS_EVERY == 0:
            progress(read, None if total is None else max(total, read))
    if progress is not None:
        progress(read, read)
    kept.sort(key=lambda item: item[0])  # a replaced slot holds a later key: input order again
    return [key for _, key in kept], read


def _check_sample(sample: int | None, source: str) -> None:
    if sample is not None and (isinstance(sample, bool) or not isinstance(sample, int)
                               or sample < 1):
        raise SourceError(f"a sample is a whole number of keys, at least 1, not {sample!r}",
                          source=source)


# -- hex lines --------------------------------------------------------------------------------

Lines = Iterable[str | bytes]


def read_raw_hex(source: str | os.PathLike[str] | Lines, *, sample: int | None = None,
                 seed: int = SEED, name: str | None = None, progress: Progress = None
                 ) -> RawKeys:
    """Keys written one per line in hex, from a file path, ``"-"`` (standard input) or an
    iterable of lines (text or bytes). A line is read as the command line reads HEX: an
    optional ``0x``, the bytes optionally separated by spaces or colons; a line that is not
    hex stops the reading with its line number and the character.

    Blank lines are skipped (but counted in the line numbers of errors): a stray or final
    blank line, or blank lines between groups of keys, are far more common in a hand-made
    or exported file than an empty key, which would otherwise be read from every one of them
    and weigh on the identification. The empty key is written ``0x``.
    """
    if isinstance(source, (str, os.PathLike)) and os.fspath(source) == "-":
        what = f"hex lines {name or '(standard input)'}"
        _check_sample(sample, what)
        stdin: IO[Any] = getattr(sys.stdin, "buffer", sys.stdin)
        return _hex(stdin, what, sample, seed, progress)
    if isinstance(source, (str, os.PathLike)):
        what = f"hex lines {name or os.fspath(source)}"
        _check_sample(sample, what)
        with open_file(source, what) as stream:  # not a pipe or a device: they may wait
            return _hex(stream, what, sample, seed, progress)
    what = f"hex lines {name or '(lines)'}"
    _check_sample(sample, what)
    return _hex(source, what, sample, seed, progress)


def _hex(lines: Lines, what: str, sample: int | None, seed: int,
         progress: Progress) -> RawKeys:
    def keys() -> Iterator[bytes]:
        for number, line in enumerate(lines, 1):
            # bytes that are not UTF-8 stay themselves (a surrogate each), to be named
            text = line.decode("utf-8", "surrogateescape") if isinstance(line, bytes) \
                else line
            key = hex_line(text.rstrip("\r\n"), number, what)
            if key is not None:
                yield key

    kept, read = sample_keys(keys(), sample, seed=seed, progress=progress)
    return RawKeys(kept, read, what)


def hex_line(text: str, number: int, source: str) -> bytes | None:
    """The key on line *number* (``None`` for a blank line), or a :class:`SourceError`
    saying what is wrong and where.

    >>> hex_line(" 0x02:61 00 01", 1, "hex lines k.hex")
    b'\\x02a\\x00\\x01'
    >>> hex_line("02 6z", 7, "hex lines k.hex")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
      ...
    lexcodecs.sources.SourceError: hex lines k.hex: line 7: 'z' at character 5 is not a hex ...
    """
    body = text.strip()
    if not body:
        return None
    start = len(text) - len(text.lstrip())
    if body[:2].lower() == "0x":
        body, start = body[2:], start + 2
    bad = _HEX_JUNK.search(body)
    if bad is not None:
        char = bad.group()
        shown = f"byte {ord(char) - 0xDC00:#04x}" if "\udc80" <= char <= "\udcff" else \
            repr(char)
        raise SourceError(f"{shown} at character {start + bad.start() + 1} is not a hex "
                          "digit; write each key as 0-9 a-f, optionally with 0x, spaces or "
                          "colons", source=source, line=number)
    digits = _HEX_SEPARATORS.sub("", body)
    if len(digits) % 2:
        raise SourceError(f"odd number of hex digits ({len(digits)}); every byte takes two",
                          source=source, line=number)
    return bytes.fromhex(digits)


# -- SQLite -----------------------------------------------------------------------------------

def read_raw_sqlite(path: str | os.PathLike[str], table: str, column: str, *,
                    sample: int | None = None, seed: int = SEED,
                    progress: Progress = None) -> RawKeys:
    """The BLOB values of *column* in the SQLite *table* (read-only, in the order SQLite
    returns them: a ``WITHOUT ROWID`` table's primary key order). A value of another storage
    class (NULL, INTEGER, REAL, TEXT) is no stored key: it is refused with its row number."""
    what = f"SQLite {os.fspath(path)}, {table}.{column}"
    _check_sample(sample, what)
    conn = connect(path, what)  # checked first: a pipe or a device, or not a database
    try:
        sql = column_select(conn, table, column, what)

        def keys() -> Iterator[bytes]:
            number = 0
            try:
                for number, (value,) in enumerate(conn.execute(sql), 1):
                    if not isinstance(value, bytes):
                        kind = _STORAGE_CLASSES.get(type(value), type(value).__name__)
                        raise SourceError(f"{kind}, not a BLOB key", source=what,
                                          line=number, unit="row")
                    yield value
            except sqlite3.Error as exc:  # a corrupt page, a database locked for ever
                raise SourceError(str(exc), source=what, line=number + 1, unit="row"
                                  ) from None

        kept, read = sample_keys(keys(), sample, seed=seed, progress=progress)
        return RawKeys(kept, read, what)
    finally:
        conn.close()


# -- LMDB -------------------------------------------------------------------------------------

def read_raw_lmdb(path: str | os.PathLike[str], *, sample: int | None = None,
                  seed: int = SEED, progress: Progress = None) -> RawKeys:
    """The keys of an LMDB environment's main database (a directory, or its data file), in
    LMDB's order. Needs the lmdb package (``pip install 'lexcodecs[lmdb]'``)."""
    what = f"LMDB {os.fspath(path)}"
    _check_sample(sample, what)
    env = open_lmdb(path, what)
    import lmdb  # there: open_lmdb imported it
    try:
        total = int(env.stat()["entries"])

        def keys() -> Iterator[bytes]:
            number = 0
            try:
                with env.begin() as txn:
                    for raw in txn.cursor().iternext(values=False):
                        number += 1
                        yield bytes(raw)
            except lmdb.Error as exc:
                raise SourceError(str(exc), source=what, line=number + 1, unit="key"
                                  ) from None

        kept, read = sample_keys(keys(), sample, seed=seed, progress=progress, total=total)
        return RawKeys(kept, read, what)
    finally:
        env.close()


# -- RocksDB ----------------------------------------------------------------------------------

def rocksdb_problem(path: str | os.PathLike[str]) -> str | None:
    """Why *path* is not a RocksDB database a reader can open without waiting, or ``None``
    when it may be one: only ``stat`` looks (a database is a directory; a named pipe, a
    socket or a device in place of one of its files would make RocksDB's open wait)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return "no such RocksDB database"
    except (OSError, ValueError) as exc:  # no permission, a name too long, a NUL in it
        return getattr(exc, "strerror", None) or str(exc)
    if not stat.S_ISDIR(info.st_mode):
        kind = special_kind(info.st_mode) or "a file"
        return f"is {kind}, not a RocksDB database (a directory)"
    try:
        entries = list(os.scandir(path))
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    for entry in entries:
        try:
            inner = special_kind(entry.stat().st_mode)
        except OSError:
            continue  # gone, or a dangling link: RocksDB's own open says what it misses
        if inner is not None:
            return f"its {entry.name} is {inner}, not a file of a RocksDB database"
    return None


def read_raw_rocksdb(path: str | os.PathLike[str], *, column_family: str | None = None,
                     sample: int | None = None, seed: int = SEED,
                     progress: Progress = None) -> RawKeys:
    """The keys of one column family (default: the default one) of a RocksDB database, in
    RocksDB's order, opened as a read-only instance. Needs the rocksdict package (``pip
    install 'lexcodecs[rocksdb]'``)."""
    family = column_family or "default"
    what = f"RocksDB {os.fspath(path)}" + (f", column family {family}"
                                           if family != "default" else "")
    _check_sample(sample, what)
    try:
        import rocksdict
    except ImportError:
        raise SourceError(ROCKSDB_HINT, source=what) from None
    reason = rocksdb_problem(path)
    if reason is not None:
        raise SourceError(reason, source=what)
    config = Path(path) / _ROCKSDICT_CONFIG
    added_config = not config.exists()
    try:
        return _rocksdb_keys(rocksdict, os.fspath(path), family, what, sample, seed, progress)
    finally:  # rocksdict leaves its settings in any database it opens: not in the user's
        if added_config:
            config.unlink(missing_ok=True)


def _rocksdb_keys(rocksdict: Any, path: str, family: str, what: str, sample: int | None,
                  seed: int, progress: Progress) -> RawKeys:
    raw = rocksdict.Options(raw_mode=True)
    try:  # rocksdict reports RocksDB's errors as Exception
        families = [str(f) for f in rocksdict.Rdict.list_cf(path, raw)]
    except Exception as exc:
        raise SourceError(f"not a RocksDB database ({exc})", source=what) from None
    if family not in families:
        raise SourceError(f"no column family {family!r} (its families: "
                          f"{', '.join(sorted(families))})", source=what)
    try:
        db = rocksdict.Rdict(path, raw, column_families={
            name: rocksdict.Options(raw_mode=True) for name in families if name != "default"},
            access_type=rocksdict.AccessType.read_only(False))
    except Exception as exc:
        raise SourceError(f"cannot open it ({exc})", source=what) from None
    try:
        handle = db if family == "default" else db.get_column_family(family)
        total = int(handle.property_int_value("rocksdb.estimate-num-keys") or 0)
        scan = rocksdict.ReadOptions()
        scan.fill_cache(False)  # each block is read once: leave RocksDB's cache alone

        def keys() -> Iterator[bytes]:
            number = 0
            try:
                for key in handle.keys(read_opt=scan):
                    number += 1
                    yield bytes(key)
            except Exception as exc:  # a corrupt block
                raise SourceError(str(exc), source=what, line=number + 1, unit="key"
                                  ) from None

        # RocksDB's count is an estimate: the progress total grows to the count
        kept, read = sample_keys(keys(), sample, seed=seed, progress=progress,
                                 total=total or None)
        return RawKeys(kept, read, what)
    finally:
        db.close()

