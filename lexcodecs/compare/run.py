"""Running a comparison: every codec on one schema and one set of records, then the verdict.

Theory of operation: each codec (plugins included) binds the schema. One that can is measured
(:func:`lexcodecs.compare.measure.measure`); one that cannot gets every blocker with its
workaround (:func:`lexcodecs.compare.blockers.plan`). When no codec expresses the schema as
written, each codec whose blockers all have a workaround is measured again on the rewritten
schema, with the records converted by the workarounds, so the verdict can name the closest on
measurements rather than on a count of blockers. The verdict is
:func:`lexcodecs.compare.verdict.decide`.

The work is known before any of it starts, so that a progress bar shows its right total from
its first line: every codec binds the schema first (cheap), which says whether the rewritten
schemas will be measured and how many. Then each codec is measured, a step each; the measured
codecs are timed together, their loops alternating
(:func:`lexcodecs.compare.measure.timed`), so that a load on the machine falls on all of them
alike, and the last step of each phase is told once they are.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from .. import _impl
from ..codec import BoundCodec, Codec
from ..errors import LexCodecError
from ..registry import available_codecs, get_codec
from ..schema import KeySchema
from .blockers import Plan, plan
from .defaults import DEFAULT_SCHEMA, REPEATS, STORES
from .measure import Workload, measure_untimed, timed
from .records import generate_records
from .report import Comparison
from .results import CodecResult
from .stores import ORDERERS
from .verdict import Candidate, decide

__all__ = ["DEFAULT_SCHEMA", "ProgressSink", "compare"]


@runtime_checkable
class ProgressSink(Protocol):
    """What reports a comparison's progress: :class:`lexcodecs._console.Progress` is one."""

    def update(self, done: int) -> None: ...

    def set_total(self, total: int | None) -> None: ...


def _short(values: Any, limit: int = 120) -> str:
    text = repr(values)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _records(n: int) -> str:
    return f"{n:,} record" + ("" if n == 1 else "s")


def _option_owners(codecs: Sequence[Codec]) -> dict[str, list[str]]:
    """Field option -> the codecs that know it (for "leave it out" hints)."""
    owners: dict[str, list[str]] = {}
    for codec in codecs:
        table = getattr(codec, "FIELD_OPTIONS", None)
        if isinstance(table, Mapping):
            for key in table:
                owners.setdefault(key, []).append(codec.name)
    return owners


def _rewritten(codec: Codec, found: Plan, rows: Sequence[tuple[Any, ...]], store: str,
               seed: int) -> tuple[CodecResult, Workload | None] | None:
    """*codec* measured (untimed) on the schema its workarounds give, the records converted."""
    if found.schema is None:
        return None
    try:
        bound = codec.bind(found.schema)
    except LexCodecError:  # the plan was checked by binding; a codec that changes its mind
        return None
    converted = []
    failed = []
    for row in rows:
        try:
            converted.append(found.convert(row))
        except (ValueError, TypeError, ArithmeticError, AttributeError) as exc:
            failed.append(f"{_short(row)}: the workaround cannot convert it: {exc}")
    return measure_untimed(codec, bound, found.schema, converted, store, seed=seed,
                           refused=failed)


class _Steps:
    """Counts the steps done and tells the caller's progress (a sink also gets the total)."""

    def __init__(self, progress: Callable[[int], None] | ProgressSink | None) -> None:
        self.done = 0
        self.sink = progress if isinstance(progress, ProgressSink) else None
        self.tell = progress.update if isinstance(progress, ProgressSink) else progress

    def total(self, total: int) -> None:
        if self.sink is not None:
            self.sink.set_total(total)

    def step(self) -> None:
        self.done += 1
        if self.tell is not None:
            self.tell(self.done)


def compare(schema: KeySchema | str | None = None,
            records: Iterable[Sequence[Any]] | None = None, *, n: int = 1000,
            codecs: Iterable[Codec | str] | None = None, store: str = "sqlite", seed: int = 0,
            progress: Callable[[int], None] | ProgressSink | None = None,
            source: str | None = None, repeats: int = REPEATS,
            rewrites: bool = True) -> Comparison:
    """Every codec (default: every available one, plugins included) on *schema* and
    *records* (default: *n* generated ones), with a verdict.

    *progress* is told the number of codecs done, then of codecs measured on their rewritten
    schema, the last of each once they are all timed (a :class:`ProgressSink` is told the
    total once, before the first); *source* describes where the records came from; *repeats*
    is the number of timed loops per codec (0: no timing); *rewrites*: when no codec
    expresses the schema, measure the codecs on the schema their workarounds give.

    >>> report = compare("name:string, n:int64", n=50, codecs=["skv"], store="memory")
    >>> report.results[0].codec, report.results[0].order_pairs_wrong
    ('skv', 0)
    >>> report.verdict.recommended
    'skv'
    """
    if store not in ORDERERS:
        raise LexCodecError(f"unknown store {store!r}", expected=" or ".join(STORES))
    if n < 0:
        raise LexCodecError(f"cannot generate {n} records", expected="a count of 0 or more")
    started = time.perf_counter()
    schema = KeySchema.coerce(schema if schema is not None else DEFAULT_SCHEMA)
    if records is not None:
        rows = [tuple(r) for r in records]
        described = source or f"given: {_records(len(rows))}"
    else:
        rows = generate_records(schema, n, seed=seed)
        described = source or f"generated: {_records(n)}, seed {seed}"
    chosen = [get_codec(c) if isinstance(c, str) else c
              for c in (codecs if codecs is not None else available_codecs())]
    owners = _option_owners(chosen)
    # bind first: what binds, and so what will be measured and timed, is the work ahead
    binds: list[BoundCodec | Plan] = []
    for codec in chosen:
        try:
            binds.append(codec.bind(schema))
        except LexCodecError as exc:
            binds.append(plan(codec, schema, exc, owners))
    expressing = sum(not isinstance(b, Plan) for b in binds)
    fixable = [] if expressing or not rewrites else [
        (codec, b) for codec, b in zip(chosen, binds)
        if isinstance(b, Plan) and b.schema is not None]
    steps = _Steps(progress)
    steps.total(len(chosen) + len(fixable))
    measured: list[tuple[CodecResult, Workload | None]] = []
    for done, (codec, bound) in enumerate(zip(chosen, binds), 1):
        if isinstance(bound, Plan):
            caps = codec.capabilities
            measured.append((CodecResult(
                codec.name, False, blockers=bound.blockers, notes=caps.notes,
                self_describing=caps.decoding == "self-describing", decoding=caps.decoding,
                readers=caps.readers, store=store,
                anomalies=[(a.name, a.kind, a.description) for a in caps.anomalies]), None))
        else:
            measured.append(measure_untimed(codec, bound, schema, rows, store, seed=seed))
        if done < len(chosen) or not expressing:  # else the last step waits for the timing
            steps.step()
    results = [result for result, _ in measured]
    if expressing:
        results = timed(measured, repeats)
        steps.step()
    candidates: list[Candidate] = []
    if fixable:
        again: list[tuple[CodecResult, Workload | None]] = []
        plans: list[Plan] = []
        for done, (codec, found) in enumerate(fixable, 1):
            candidate = _rewritten(codec, found, rows, store, seed)
            if candidate is not None:
                again.append(candidate)
                plans.append(found)
            if done < len(fixable):
                steps.step()
        candidates = [Candidate(result, found.blockers, str(found.schema))
                      for result, found in zip(timed(again, repeats), plans)]
        steps.step()
    verdict = decide(results, len(rows), candidates)
    return Comparison(str(schema), len(rows), store, results, verdict, described,
                      str(_impl.current), time.perf_counter() - started)
