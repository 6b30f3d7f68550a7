"""What a migration did: the report, and the watch on the old key order that fills it.

Every migration reads the source in its own key order and writes the new keys in that order.
:class:`_OrderWatch` follows the new keys as they are written: where one sorts before the
previous one, the old order disagreed with the new (a source format with anomalies can have
stored its keys in a wrong order), and :class:`MigrationReport` counts it and keeps the first
:data:`MAX_EXAMPLES` places. The report is plain data (``to_dict``), so a store migration saves
it with each batch and a resumed run carries on counting.

A store migration also says where its time went: the seconds of each phase (``copy_s``,
``verify_s``, ``swap_s``, carried over by a resumed run like the counts) and, derived from them
in :meth:`MigrationReport.to_dict` and :meth:`MigrationReport.summary`, the keys per second of
each (``keys_per_s``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import attrs

__all__ = ["MAX_EXAMPLES", "PHASES", "MigrationReport", "PhaseStart", "Progress"]

#: examples of changed order kept in a report
MAX_EXAMPLES: Final = 5

#: called with the number of keys migrated so far, after each batch (or every 1000 lines)
Progress = Callable[[int], None] | None
#: told when a phase of a store migration starts: its label (``"copying"``,
#: ``"verifying"``) and how many steps it takes; *progress* then counts that phase's steps
PhaseStart = Callable[[str, int], None] | None
#: the timed phases of a store migration, in their order
PHASES: Final = ("copy", "verify", "swap")


@attrs.define
class MigrationReport:
    """What a migration did: keys, order changes (with examples), time."""

    source: str
    target: str
    schema: str
    where: str
    keys: int = 0
    order_changes: int = 0
    examples: list[tuple[list[Any], list[Any]]] = attrs.field(factory=list)
    anomalies: dict[str, int] = attrs.field(factory=dict)
    seconds: float = 0.0
    resumed: bool = False
    #: what a run did besides the migration itself, e.g. finishing or rolling back the swap
    #: of an interrupted run (left out of :meth:`to_dict` when there is none)
    notes: list[str] = attrs.field(factory=list)
    #: seconds spent in each phase of a store migration, over all its runs (0 when a phase
    #: did not run, e.g. for a stream of lines, which has no phases)
    copy_s: float = 0.0
    verify_s: float = 0.0
    swap_s: float = 0.0
    #: keys per second of each phase, derived from the times: :meth:`to_dict` fills it in, so
    #: a saved report loads back (``MigrationReport(**d)``) and is derived again when saved
    keys_per_s: dict[str, float] = attrs.field(factory=dict)

    def __repr__(self) -> str:
        return (f"<MigrationReport {self.source} -> {self.target} ({self.where}): "
                f"{self.keys:,} keys, {self.order_changes:,} order changes"
                + (", resumed" if self.resumed else "") + ">")

    def note_order(self, before: tuple[Any, ...], after: tuple[Any, ...]) -> None:
        """Two keys adjacent in the old order whose new keys sort the other way."""
        self.order_changes += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(([repr(v) for v in before], [repr(v) for v in after]))

    def phase_rates(self) -> dict[str, float]:
        """Keys per second of each phase that took time: every phase handles every key."""
        rates = {}
        for name in PHASES:
            seconds = getattr(self, f"{name}_s")
            if seconds > 0:
                rates[name] = round(self.keys / seconds, 1)
        return rates

    def to_dict(self) -> dict[str, Any]:
        self.keys_per_s = self.phase_rates()
        d = attrs.asdict(self)
        if not d["notes"]:
            del d["notes"]
        return d

    def summary(self) -> str:
        rate = self.keys / self.seconds if self.seconds else 0.0
        lines = [f"migrated {self.keys:,} keys {self.source} -> {self.target} ({self.where}) "
                 f"in {self.seconds:.2f} s ({rate:,.0f} keys/s)"
                 + (", resumed" if self.resumed else "")]
        rates = self.phase_rates()
        if rates:
            lines.append("time: " + ", ".join(
                f"{name} {getattr(self, f'{name}_s'):.2f} s ({rates[name]:,.0f} keys/s)"
                for name in PHASES if name in rates))
        if self.order_changes:
            lines.append(f"{self.order_changes:,} place(s) where the old key order disagreed "
                         "with the new one, e.g.:")
            lines += [f"  {' , '.join(a)}  then  {' , '.join(b)}" for a, b in self.examples]
        else:
            lines.append("the old key order agreed with the new one everywhere")
        for name, count in self.anomalies.items():
            lines.append(f"{count:,} departure(s) from the natural order in the new keys, "
                         f"declared by the target as anomaly {name!r}")
        lines += self.notes
        return "\n".join(lines)


class _OrderWatch:
    """Follows the new keys in old order: where a new key sorts before the previous one, the
    old order disagreed with the new. *flat* counts the steps where the new keys did not
    rise (those, and equal new keys): a copy whose count did not move over a chunk knows its
    new keys rose, without comparing them again. (The compiled ``NewKey`` calls :meth:`see`
    only for such steps, and keeps *last* itself for the others.)"""

    def __init__(self, report: MigrationReport, last: bytes | None = None,
                 last_values: tuple[Any, ...] | None = None) -> None:
        self.report = report
        self.last = last
        self.last_values = last_values
        self.flat = 0

    def see(self, new: bytes, values: tuple[Any, ...]) -> None:
        if self.last is not None and new <= self.last:
            self.flat += 1
            if new < self.last:
                self.report.note_order(self.last_values or (), values)
        self.last, self.last_values = new, values
