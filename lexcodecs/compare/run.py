"""Running a comparison: every codec on one schema and one set of records, then the verdict.

Theory of operation: each codec (plugins included) binds the schema. One that can is measured
(:func:`lexcodecs.compare.measure.measure`); one that cannot gets every blocker with its
workaround (:func:`lexcodecs.compare.blockers.plan`). When no codec expresses the schema as
written, each codec whose blockers all have a workaround is measured again on the rewritten
schema, with the records converted by the workarounds, so the verdict can name the closest on
measurements rather than on a count of blockers. The verdict is
:func:`lexcodecs.compare.verdict.decide`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from .. import _impl
from ..codec import Codec
from ..errors import LexCodecError
from ..registry import available_codecs, get_codec
from ..schema import KeySchema
from .blockers import Plan, plan
from .defaults import DEFAULT_SCHEMA, REPEATS, STORES
from .measure import measure
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
               repeats: int, seed: int) -> Candidate | None:
    """*codec* measured on the schema its workarounds give, the records converted."""
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
    result = measure(codec, bound, found.schema, converted, store, repeats=repeats, seed=seed,
                     refused=failed)
    return Candidate(result, found.blockers, str(found.schema))


def compare(schema: KeySchema | str | None = None,
            records: Iterable[Sequence[Any]] | None = None, *, n: int = 1000,
            codecs: Iterable[Codec | str] | None = None, store: str = "sqlite", seed: int = 0,
            progress: Callable[[int], None] | ProgressSink | None = None,
            source: str | None = None, repeats: int = REPEATS,
            rewrites: bool = True) -> Comparison:
    """Every codec (default: every available one, plugins included) on *schema* and
    *records* (default: *n* generated ones), with a verdict.

    *progress* is told the number of codecs done (a :class:`ProgressSink` is also told the
    total); *source* describes where the records came from; *repeats* is the number of timed
    loops (0: no timing); *rewrites*: when no codec expresses the schema, measure the
    codecs on the schema their workarounds give.

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
    sink: ProgressSink | None = None
    tell: Callable[[int], None] | None
    if isinstance(progress, ProgressSink):
        sink = progress
        tell = progress.update
    else:
        tell = progress
    if sink is not None:
        sink.set_total(len(chosen))
    owners = _option_owners(chosen)
    results: list[CodecResult] = []
    plans: dict[int, Plan] = {}
    for done, codec in enumerate(chosen, 1):
        try:
            bound = codec.bind(schema)
        except LexCodecError as exc:
            found = plan(codec, schema, exc, owners)
            plans[done - 1] = found
            caps = codec.capabilities
            results.append(CodecResult(
                codec.name, False, blockers=found.blockers, notes=caps.notes,
                self_describing=caps.decoding == "self-describing", decoding=caps.decoding,
                readers=caps.readers, store=store,
                anomalies=[(a.name, a.kind, a.description) for a in caps.anomalies]))
        else:
            results.append(measure(codec, bound, schema, rows, store, repeats=repeats,
                                   seed=seed))
        if tell is not None:
            tell(done)
    candidates: list[Candidate] = []
    if rewrites and not any(r.expressible for r in results):
        fixable = [(i, p) for i, p in plans.items() if p.schema is not None]
        if sink is not None and fixable:
            sink.set_total(len(chosen) + len(fixable))
        for step, (i, found) in enumerate(fixable, len(chosen) + 1):
            candidate = _rewritten(chosen[i], found, rows, store, repeats, seed)
            if candidate is not None:
                candidates.append(candidate)
            if sink is not None:
                sink.update(step)
    verdict = decide(results, len(rows), candidates)
    return Comparison(str(schema), len(rows), store, results, verdict, described,
                      str(_impl.current), time.perf_counter() - started)
