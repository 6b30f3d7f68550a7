"""The checks the store migrations share: the batch size they are given, the natural order of
the migrated store, and the verify step's walk of both stores in lockstep.

After the copy, a store migration reads the new store with its own ordered scan and hands
every key to :class:`_NaturalOrder`: decoded by the target, the values must be in their
natural order (:func:`lexcodecs.model.key_function` under the target's float policy). A
departure that one of the target codec's declared anomalies explains is counted in the
report; any other stops the migration before the swap, so the original is untouched.

Verification is one pass (:class:`_Lockstep`): the old store in its key order and the new store
in its key order are read side by side, one entry of each at a time. Where the old order and
the new agree (nearly everywhere: they differ only where the source stored keys in a wrong
order), the entry at the same place in the new store is the old entry's copy, and that is
known cheaply: its values, decoded by the target, are exactly those the old key decodes to by
the source (tuple ``==`` with the same types, no float zero, which ``==`` compares too
loosely), and its stored value is the old one. Anywhere else the old key is transcoded again,
checked as :meth:`Transcoder.encode` checks it, and looked up (byte for byte). With equal
counts, every old entry found means the new store holds exactly the old data, each under a
new key that decodes back to the old key's values. The new keys seen by the walk are the
whole new store in its order: the same pass checks the natural order. Comparing models costs
about 1 µs a key; that is done only where the cheap comparison of decoded tuples cannot decide.

So the value check of every new key happens here, once: the copy checks only its first
batch (:class:`~lexcodecs.migrate.kernel.NewKey` with *check*), so that a target that cannot
hold the data at all is refused before much is written, and a key it cannot hold further on
is refused here, before the swap, with the original untouched.

Everything runs a batch at a time, so that the work per key happens inside C: the codecs'
compiled ``decode`` called through ``map``, whole lists of decoded tuples compared in C
(:func:`~lexcodecs.migrate.kernel.same_values`), the order of a batch checked in C
(:func:`~lexcodecs.migrate.kernel.plain_rising`).
Python code runs per key only where a batch cannot be decided that way (a float zero, a
descending field, a refusal, a departure from the order); then the per-key rules above decide,
and give the same answer, with the key in the message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import islice
from typing import Any, Final

from ..errors import LexCodecError
from ..model import identical, key_function
from .kernel import plain_rising, same_values
from .report import MigrationReport
from .transcoder import _PLAIN, MigrationError, Transcoder

__all__: list[str] = []

Values = tuple[Any, ...]

#: the most entries of each store the verification reads and compares at a time: enough to
#: keep the per-key work in C, few enough to stay in the processor's caches (measured: with
#: 100,000 at a time, verifying was 15-20 % slower than with 4,096, and held 100 MB)
VERIFY_CHUNK: Final = 4096


def _verify_chunk(batch_size: int) -> int:
    """Entries per step of a verification: the batch size, up to :data:`VERIFY_CHUNK`."""
    return max(2, min(batch_size, VERIFY_CHUNK))


def _check_batch_size(batch_size: int) -> None:
    if type(batch_size) is not int or batch_size < 1:
        raise MigrationError(f"batch size {batch_size!r}: a batch holds at least one key",
                             expected="an int >= 1")


class _NaturalOrder:
    """Checks that keys read in store order have values in natural order (spec of verify).

    The usual case is decided without building models: when every field is ascending and two
    neighbours hold only plain values (:data:`_PLAIN`, one type per field), Python's tuple order
    is the natural order, and neighbours in that order need nothing more. Anything else (a
    descending field, a float, a departure) is decided by the model.
    """

    def __init__(self, transcoder: Transcoder, report: MigrationReport) -> None:
        self.t = transcoder
        self.report = report
        self.schema = transcoder.schema
        self.natural = key_function(self.schema, transcoder.target.capabilities.float_policy)
        self.last: tuple[Any, ...] | None = None
        self.last_key: Any = None  # the model of self.last, built only when needed
        self.ascending = not any(f.descending for f in self.schema.fields)
        self.last_plain = False
        self.plain_types: dict[tuple[type, ...], bool] = {}  # memo: are these types plain?

    def jump(self, values: tuple[Any, ...]) -> None:
        """The next values seen follow *values* (the keys between were checked elsewhere:
        a span of the verification, see :mod:`lexcodecs.migrate.spans`)."""
        self.last, self.last_key, self.last_plain = values, None, self._plain(values)

    def _plain(self, values: tuple[Any, ...]) -> bool:
        """Whether Python's order of *values* against plain neighbours is the natural one."""
        types = tuple(map(type, values))
        plain = self.plain_types.get(types)
        if plain is None:
            plain = self.plain_types[types] = self.ascending and all(
                t in _PLAIN for t in types)
        return plain

    def see_values(self, values: tuple[Any, ...]) -> None:
        """Check the values of the next key in store order."""
        plain = self._plain(values)
        last = self.last
        if last is not None and not (plain and self.last_plain and _le(last, values)):
            self._by_model(last, values)
        else:
            self.last_key = None
        self.last, self.last_plain = values, plain

    def see_batch(self, batch: Sequence[Values]) -> None:
        """Check the values of the next keys in store order: in C when every field is
        ascending and every value plain, key by key otherwise (or where that finds them out
        of order, so that the model and the anomalies decide)."""
        if not batch:
            return
        self.see_values(batch[0])  # the step from the last batch, by the per-key rules
        if self.ascending and self.last_plain and len(batch) > 1 and plain_rising(batch):
            self.last, self.last_key = batch[-1], None
            return
        for values in islice(batch, 1, None):
            self.see_values(values)

    def _by_model(self, last: tuple[Any, ...], values: tuple[Any, ...]) -> None:
        model = self.natural(values)
        if self.last_key is None:
            self.last_key = self.natural(last)
        if model < self.last_key:
            anomaly = self.t.target.capabilities.explained(("order",), self.schema, values,
                                                           last)
            if anomaly is None:
                raise MigrationError(
                    f"the new keys are not in the natural order: {last!r} sorts before "
                    f"{values!r}, and the target declares no anomaly that explains it; the "
                    "original is untouched", codec=self.t.target.name)
            self.report.anomalies[anomaly.name] = self.report.anomalies.get(anomaly.name, 0) + 1
        self.last_key = model


def _le(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    try:
        return a <= b
    except TypeError:  # None against a value: the model decides
        return False


class _Lockstep:
    """The verify step as one walk of both stores in their own orders (see the module).

    :meth:`see_batch` takes the next entries of each store, the old and the new entry at the
    same place; *lookup* gives the new store's value (the rest of its row) under a new key,
    or something equal to no value when it holds none.
    """

    def __init__(self, transcoder: Transcoder, report: MigrationReport,
                 lookup: Callable[[bytes], Any], store: str = "new store") -> None:
        self.t = transcoder
        self.store = store
        self.order = _NaturalOrder(transcoder, report)
        self.lookup = lookup
        self.source_decode = transcoder._source.decode
        self.target_decode = transcoder._target.decode
        self.plain = self.order.plain_types  # shared memo: are these types plain?
        self.first: Values | None = None  # the target's values of the first new key seen

    def see_batch(self, old_keys: Sequence[bytes], old_values: Sequence[Any],
                  new_keys: Sequence[bytes], new_values: Sequence[Any]) -> None:
        """Check the next keys and values of each store (as parallel lists, which the stores
        read fastest): decided in C where :func:`~lexcodecs.migrate.kernel.same_values` can,
        key by key elsewhere."""
        if len(new_keys) != len(old_keys):
            raise MigrationError(f"the {self.store} holds fewer entries than the old one: two "
                                 "keys have the same new key (the target cannot tell their "
                                 "values apart), or a store was changed; the original is "
                                 "untouched")
        decoded = list(map(self.target_decode, new_keys))
        if self.first is None and decoded:
            self.first = decoded[0]
        old_decoded = list(map(self.source_decode, old_keys))
        if old_values == new_values and same_values(old_decoded, decoded):
            self.order.see_batch(decoded)
            return
        for old_key, old_value, new_value, was, values in zip(old_keys, old_values, new_values,
                                                              old_decoded, decoded):
            if not self._same(old_value, was, values, new_value):
                self.look_up(old_key, old_value)
            self.order.see_values(values)

    def _same(self, old_value: Any, old_values: tuple[Any, ...], new_values: tuple[Any, ...],
              new_value: Any) -> bool:
        """Whether the entry at the same place is the old one's copy, key by key."""
        if old_value != new_value or old_values != new_values:
            return False
        types = tuple(map(type, old_values))
        return types == tuple(map(type, new_values)) and bool(
            self.plain.get(types) or _plain(types) or identical(old_values, new_values))

    def look_up(self, old_key: bytes, old_value: Any) -> None:
        """Check one old entry by its new key, byte for byte."""
        try:  # checked here, where the copy did not check (see the module)
            new_key = self.t.encode(self.t.values(old_key))
        except LexCodecError as exc:
            raise MigrationError(f"key {old_key.hex(' ')}: {exc}; the original is "
                                 "untouched") from None
        if self.lookup(new_key) != old_value:
            raise MigrationError(
                f"the entry of key {old_key.hex(' ')} is not in the {self.store} as it is "
                "in the old one (was it written during an interrupted migration?); the original "
                "is untouched: run again with --restart")


def _plain(types: tuple[type, ...]) -> bool:
    return all(t in _PLAIN for t in types)
