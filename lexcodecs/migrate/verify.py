"""The checks both store migrations share: the batch size they are given, and the natural
order of the migrated store (the spec of the verify step).

After the copy, a store migration reads the new store with its own ordered scan and hands
every key to :class:`_NaturalOrder`: decoded by the target, the values must be in their
natural order (:func:`lexcodecs.model.key_function` under the target's float policy). A
departure that one of the target codec's declared anomalies explains is counted in the
report; any other stops the migration before the swap, so the original is untouched.
"""

from __future__ import annotations

from typing import Any

from ..model import key_function
from .report import MigrationReport
from .transcoder import MigrationError, Transcoder

__all__: list[str] = []


def _check_batch_size(batch_size: int) -> None:
    if type(batch_size) is not int or batch_size < 1:
        raise MigrationError(f"batch size {batch_size!r}: a batch holds at least one key",
                             expected="an int >= 1")


class _NaturalOrder:
    """Checks that keys read in store order have values in natural order (spec of verify)."""

    def __init__(self, transcoder: Transcoder, report: MigrationReport) -> None:
        self.t = transcoder
        self.report = report
        self.schema = transcoder.schema
        self.natural = key_function(self.schema, transcoder.target.capabilities.float_policy)
        self.last: tuple[Any, ...] | None = None
        self.last_key: Any = None

    def see(self, key: bytes) -> None:
        values = self.t._target.decode(key)
        model = self.natural(values)
        if self.last is not None and model < self.last_key:
            anomaly = self.t.target.capabilities.explained(("order",), self.schema, values,
                                                           self.last)
            if anomaly is None:
                raise MigrationError(
                    f"the new keys are not in the natural order: {self.last!r} sorts before "
                    f"{values!r}, and the target declares no anomaly that explains it; the "
                    "original is untouched", codec=self.t.target.name)
            self.report.anomalies[anomaly.name] = self.report.anomalies.get(anomaly.name, 0) + 1
        self.last, self.last_key = values, model
