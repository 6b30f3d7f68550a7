"""What a migration did: the report, and the watch on the old key order that fills it.

Every migration reads the source in its own key order and writes the new keys in that order.
:class:`_OrderWatch` follows the new keys as they are written: where one sorts before the
previous one, the old order disagreed with the new (a source format with anomalies can have
stored its keys in a wrong order), and :class:`MigrationReport` counts it and keeps the first
:data:`MAX_EXAMPLES` places. The report is plain data (``to_dict``), so a store migration saves
it with each batch and a resumed run carries on counting (:meth:`MigrationReport.resume`).

A store migration also says where its time went, and the times are always *this run's*: the
counts carry over to a resumed run, the times do not (an interrupted run's time after its last
saved batch is lost with it, so a sum over runs would be wrong anyway). ``seconds`` is the
run from start to end; ``copy_s``, ``verify_s`` and ``swap_s`` are its phases, and
``other_s`` the rest (opening the stores, the checks before the copy, counting the rows,
finishing an interrupted swap), so that the four add up to ``seconds``. A resumed run says
how many keys an earlier run had copied (``copied_earlier``); it copied the others.

The keys per second (``keys_per_s``) are derived from these: ``copy`` counts the keys this run
copied, ``verify`` and ``swap`` every key (each walks or moves the whole store), and
``total`` every key over ``seconds``, given only when this run did the whole copy. A time
under :data:`MIN_TIMED_S` gives no rate: at that length the clock's resolution and the cost
of the calls around the work are much of what is measured, and a rate made of them is noise
(a swap of two directory renames in 0.1 ms read as 113,797,814 keys/s).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

import attrs

__all__ = ["MAX_EXAMPLES", "MIN_TIMED_S", "PHASES", "MigrationReport", "PhaseStart",
           "Progress"]

#: examples of changed order kept in a report
MAX_EXAMPLES: Final = 5
#: the shortest time, in seconds, that gets a rate (see the module): 10 ms
MIN_TIMED_S: Final = 0.01

#: called with the number of keys migrated so far, after each batch (or every 1000 lines)
Progress = Callable[[int], None] | None
#: told when a phase of a store migration starts: its label (``"copying"``,
#: ``"verifying"``) and how many steps it takes; *progress* then counts that phase's steps
#: (in both, a step is a key: copied, or verified against its new key)
PhaseStart = Callable[[str, int], None] | None
#: the timed phases of a store migration, in their order
PHASES: Final = ("copy", "verify", "swap")


@attrs.define
class MigrationReport:
    """What a migration did: keys, order changes (with examples), time (see the module)."""

    source: str
    target: str
    schema: str
    where: str
    #: keys migrated: for a resumed run, all of them, not just this run's
    keys: int = 0
    order_changes: int = 0
    examples: list[tuple[list[Any], list[Any]]] = attrs.field(factory=list)
    anomalies: dict[str, int] = attrs.field(factory=dict)
    #: this run's time, from start to end: copy_s + verify_s + swap_s + other_s
    seconds: float = 0.0
    resumed: bool = False
    #: of the keys, those an earlier, interrupted run had copied (0: this run copied all)
    copied_earlier: int = 0
    #: what a run did besides the migration itself, e.g. finishing or rolling back the swap
    #: of an interrupted run (left out of :meth:`to_dict` when there is none)
    notes: list[str] = attrs.field(factory=list)
    #: this run's seconds in each phase of a store migration (0 when a phase did not run in
    #: it, e.g. the copy of a run that resumed at the swap, or anything for a stream of
    #: lines, which has no phases)
    copy_s: float = 0.0
    verify_s: float = 0.0
    swap_s: float = 0.0
    #: derived by :meth:`to_dict` (like keys_per_s): the seconds outside the phases
    other_s: float = 0.0
    #: keys per second, derived from the times: :meth:`to_dict` fills it in, so a saved
    #: report loads back (``MigrationReport(**d)``) and is derived again when saved
    keys_per_s: dict[str, float] = attrs.field(factory=dict)

    def __repr__(self) -> str:
        return (f"<MigrationReport {self.source} -> {self.target} ({self.where}): "
                f"{self.keys:,} keys, {self.order_changes:,} order changes"
                + (", resumed" if self.resumed else "") + ">")

    @classmethod
    def resume(cls, saved: dict[str, Any]) -> MigrationReport:
        """The report a run goes on with when it resumes the recorded migration whose report
        was *saved* (:meth:`to_dict`): the counts carried on, the keys so far marked as
        copied by an earlier run, and the times started afresh (they are this run's)."""
        report = cls(**{**saved, "resumed": True})
        report.copied_earlier = report.keys
        report.seconds = report.copy_s = report.verify_s = report.swap_s = 0.0
        return report

    def note_order(self, before: tuple[Any, ...], after: tuple[Any, ...]) -> None:
        """Two keys adjacent in the old order whose new keys sort the other way."""
        self.order_changes += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(([repr(v) for v in before], [repr(v) for v in after]))

    def other_seconds(self) -> float:
        """This run's seconds outside the phases (never below 0: the phases are timed inside
        the run, but each reading of the clock is its own)."""
        return max(0.0, self.seconds - self.copy_s - self.verify_s - self.swap_s)

    def phase_rates(self) -> dict[str, float]:
        """Keys per second of the run (``total``, when this run did the whole copy) and of
        each phase that took at least :data:`MIN_TIMED_S` and handled keys: ``copy`` the
        keys this run copied, ``verify`` and ``swap`` every key."""
        handled = {"total": self.keys if not self.copied_earlier else 0,
                   "copy": self.keys - self.copied_earlier, "verify": self.keys,
                   "swap": self.keys}
        seconds = {"total": self.seconds, "copy": self.copy_s, "verify": self.verify_s,
                   "swap": self.swap_s}
        return {name: round(handled[name] / seconds[name], 1) for name in handled
                if handled[name] > 0 and seconds[name] >= MIN_TIMED_S}

    def to_dict(self) -> dict[str, Any]:
        self.other_s = self.other_seconds()
        self.keys_per_s = self.phase_rates()
        d = attrs.asdict(self)
        if not d["notes"]:
            del d["notes"]
        return d

    def summary(self) -> str:
        """The report as text: the keys and time, then (a store migration) where the time
        went, its parts adding up to the total as shown, then the order."""
        rates = self.phase_rates()
        lines = [f"migrated {self.keys:,} keys {self.source} -> {self.target} ({self.where}) "
                 f"in {self.seconds:.2f} s" + _rate(rates.get("total"))
                 + (", resumed" if self.resumed else "")
                 + (f": {self.copied_earlier:,} of them copied by an earlier run"
                    if self.copied_earlier else "")]
        timed = [name for name in PHASES if getattr(self, f"{name}_s") > 0]
        if timed:
            shown = _hundredths([getattr(self, f"{name}_s") for name in timed]
                                + [self.other_seconds()], self.seconds)
            parts = [f"{name} {shown[i] / 100:.2f} s" + _rate(rates.get(name))
                     for i, name in enumerate(timed)]
            lines.append("time: " + " + ".join([*parts, f"other {shown[-1] / 100:.2f} s"])
                         + f" = {self.seconds:.2f} s")
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


def _rate(rate: float | None) -> str:
    return "" if rate is None else f" ({rate:,.0f} keys/s)"


def _hundredths(parts: list[float], total: float) -> list[int]:
    """*parts* (which add up to *total*) in hundredths of a second, rounded so that they add
    up to *total* rounded as ``f"{total:.2f}"`` shows it: each part rounded down, then the
    hundredths still missing given to the parts that lost the most (the largest remainder
    method). Each stays within 0.01 of its value, and the printed sum is the printed total.
    (Parts that add up to more than *total*, which no run measures, lose hundredths from
    those that lost the least instead, none going below 0.)"""
    scaled = [max(0.0, p) * 100 for p in parts]
    shown = [math.floor(x) for x in scaled]
    missing = round(float(f"{total:.2f}") * 100) - sum(shown)
    order = sorted(range(len(parts)), key=lambda i: shown[i] - scaled[i])  # most lost first
    for i in order[:max(0, missing)]:
        shown[i] += 1
    for i in reversed(order):
        if missing >= 0:
            break
        take = min(shown[i], -missing)
        shown[i] -= take
        missing += take
    return shown


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
