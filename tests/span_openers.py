"""Openers for the verification's worker processes, importable by them (the tests put this
directory on their PYTHONPATH): the real stores, with a mark that a worker opened them, or a
worker that stops or cannot read them."""

from __future__ import annotations

import os
from pathlib import Path

from lexcodecs.migrate.lmdb_store import _LmdbSpans


def marked(mark: str, old: str, new: str) -> _LmdbSpans:
    """The real stores, after leaving *mark* (a file): a worker took part."""
    Path(mark).touch()
    return _LmdbSpans.open(old, new)


def stops(old: str, new: str) -> _LmdbSpans:
    """A worker that dies as it starts its span."""
    os._exit(3)


def cannot_read(old: str, new: str) -> _LmdbSpans:
    """A worker that cannot open the stores."""
    raise OSError("no such store here")
