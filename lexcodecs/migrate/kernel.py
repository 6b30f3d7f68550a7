"""The per-key work of a store migration, as callables C calls: SQLite per row, ``map`` per key.

Theory of operation: a store migration reads and writes its rows in the store's own C code
(SQLite's ``INSERT ... SELECT``, LMDB's ``putmulti``, RocksDB's ``WriteBatch``) and in batches
(lists); the Python it runs per key is what this module holds:

* :class:`NewKey` -- a source key to its new key (source ``decode``, target ``encode``), with
  the value check of :meth:`~lexcodecs.migrate.Transcoder.encode` while :attr:`NewKey.check`
  is true, following the new keys in the old order (an :class:`~lexcodecs.migrate.report.
  _OrderWatch`, when given one) and remembering the last key it saw (the position a batch
  reached). It is the SQLite copy's SQL function and the LMDB and RocksDB copies' ``map``.
  SQLite turns anything a function raises into "user-defined function raised exception", so
  it keeps what it raised in ``error`` (a :class:`MigrationError` naming the key, or a
  ``KeyboardInterrupt``) for the caller to raise as itself.
* :func:`same_values` -- whether two lists of decoded tuples hold the same values, for the
  verification's side-by-side walk (:class:`~lexcodecs.migrate.verify._Lockstep`).
* :func:`plain_rising` -- whether a batch of decoded tuples holds only plain values and
  rises, for the verification's order check (:class:`~lexcodecs.migrate.verify._NaturalOrder`).
* :func:`collector_paused` -- Python's cyclic garbage collector paused while a migration runs
  (a decorator of the store migrations; worker processes pause it for good). The per-key work
  makes millions of tuples, none in a reference cycle (reference counting frees each), and
  the collector, which runs every 700 new container objects, would walk the batches' tuples
  again and again: about a tenth of a RocksDB migration's processor time (measured).

This module is the reference: readable, always there. ``_compiled.pyx`` beside it is the same
in Cython, deciding the usual key in C (values of exact plain types: str, bytes, int, None,
and floats other than zero and NaN) and calling back into the rules here for the rest, so both
give the same keys, decisions and errors. :func:`new_key` and :func:`same_values` run the
implementation in force (:mod:`lexcodecs._impl`).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import chain, islice
from operator import le
from typing import Any, Final

from .. import _impl
from ..errors import LexCodecError
from .report import _OrderWatch
from .transcoder import _PLAIN, MigrationError, Transcoder

__all__ = ["NewKey", "collector_paused", "new_key", "plain_rising", "same_values"]

#: the compiled twin of this module
_COMPILED: Final = "lexcodecs.migrate._compiled"

#: the types whose ``==`` is the model's equality (:data:`~lexcodecs.migrate.transcoder.
#: _PLAIN`), and those whose ``==`` is but for the sign of a zero
_PLAIN_OR_FLOAT: Final[frozenset[type]] = _PLAIN | {float}

#: builds the error for a key that cannot be migrated: (key, the error or None) -> error
Refuse = Callable[[Any, LexCodecError | None], MigrationError]


class NewKey:
    """A source key to its new key, as an SQL function (see the module)."""

    def __init__(self, transcoder: Transcoder, refuse: Refuse,
                 watch: _OrderWatch | None = None, *, check: bool = True) -> None:
        self.t = transcoder
        self.refuse = refuse
        self.watch = watch
        self.check = check
        self.error: BaseException | None = None
        self.last_key: bytes | None = None

    def __call__(self, key: Any) -> bytes:
        try:
            new = _new_key(self, key)
        except BaseException as exc:  # a refusal, a Ctrl-C, a bug: kept to raise as itself
            if self.error is None:
                self.error = exc
            raise
        self.last_key = key
        return new


def _new_key(self: Any, key: Any) -> bytes:
    """The rules of :class:`NewKey` (and the compiled one's path for what C leaves)."""
    if type(key) is not bytes:
        raise self.refuse(key, None)
    try:
        values = self.t.values(key)
        new: bytes = self.t.encode(values) if self.check else self.t._target.encode(values)
    except LexCodecError as exc:
        raise self.refuse(key, exc) from None
    if self.watch is not None:
        self.watch.see(new, values)
    return new


def new_key(transcoder: Transcoder, refuse: Refuse, watch: _OrderWatch | None = None, *,
            check: bool = True) -> NewKey:
    """A :class:`NewKey` of the implementation in force."""
    compiled = _impl.compiled_module(_COMPILED)
    kind: type[NewKey] = NewKey if compiled is None else compiled.NewKey
    return kind(transcoder, refuse, watch, check=check)


def _same_values(a: Sequence[tuple[Any, ...]], b: Sequence[tuple[Any, ...]]) -> bool:
    """Whether two lists of value tuples hold the same values as the model sees them; False
    means "not decided here" (the per-key rules of the verification then decide).

    Equal tuples whose values are all of plain types (:data:`_PLAIN`) on both sides are the
    same values: a plain value equals no value of another plain type, so the types agree
    value by value too. With floats the types are compared value by value (``1 == 1.0``),
    and no value may be a float zero (``-0.0 == 0.0`` for Python, not for every codec's
    model); NaN is never equal, so never decided here.
    """
    if a != b:
        return False
    kinds = set(map(type, chain.from_iterable(a)))
    if kinds <= _PLAIN and set(map(type, chain.from_iterable(b))) <= _PLAIN:
        return True
    return (kinds <= _PLAIN_OR_FLOAT and 0.0 not in chain.from_iterable(a)
            and list(map(type, chain.from_iterable(a)))
            == list(map(type, chain.from_iterable(b))))


def same_values(a: Sequence[tuple[Any, ...]], b: Sequence[tuple[Any, ...]]) -> bool:
    """:func:`_same_values` of the implementation in force."""
    compiled = _impl.compiled_module(_COMPILED)
    return _same_values(a, b) if compiled is None else bool(compiled.same_values(a, b))


def _plain_rising(batch: Sequence[tuple[Any, ...]]) -> bool:
    """Whether every value in the tuples of *batch* is of a plain type (:data:`_PLAIN`, where
    Python's order is the natural one) and each tuple is ``<=`` the next; False means "not
    decided here" (a None against a value cannot be compared: the model decides)."""
    try:
        return (set(map(type, chain.from_iterable(batch))) <= _PLAIN
                and all(map(le, batch, islice(batch, 1, None))))
    except TypeError:
        return False


def plain_rising(batch: Sequence[tuple[Any, ...]]) -> bool:
    """:func:`_plain_rising` of the implementation in force."""
    compiled = _impl.compiled_module(_COMPILED)
    return _plain_rising(batch) if compiled is None else bool(compiled.plain_rising(batch))


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused inside (see the module), as it was after
    (a program that disabled it keeps it disabled). Other threads' cycles wait meanwhile."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
