"""The verdict: which codec to use for this schema and these records, and why.

Theory of operation: the *candidates* are the codecs that express every field and accepted at
least one record. They are ranked by :data:`RANKING`, criteria compared in order: the first
one on which two codecs differ decides, and the later ones only break ties. Correctness on the
records comes first (a key format that reorders, merges or loses keys is wrong whatever its
size), then refusing the fewest records (a refused record cannot be stored at all), then exact
prefix scans and decoding, and only then key size and speed. Sizes within 10% and speeds within
25% of the best count as ties -- timing on a shared machine is not finer than that -- so a
near-tie falls through to the next criterion. docs/choosing.md shows the table as text.

The best candidate is *recommended*; the others are *runners-up*, each with the criterion that
put it behind. Every codec that cannot express the schema is listed with every blocker and its
workaround (:mod:`lexcodecs.compare.blockers`). When no codec expresses the schema as written,
the codecs whose blockers all have a workaround are measured on their rewritten schema and
ranked by :data:`CLOSEST_RANKING` (the same criteria, with fewest and exact workarounds before
prefix scans), and the verdict names the closest.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Final

import attrs

from .results import Blocker, CodecResult

__all__ = ["CLOSEST_RANKING", "RANKING", "SIZE_TIE", "SPEED_TIE", "Candidate", "Closest",
           "Criterion", "RunnerUp", "Verdict", "decide"]

#: key sizes within this share of the smallest are a tie
SIZE_TIE: Final = 0.10
#: speeds within this share of the fastest are a tie
SPEED_TIE: Final = 0.25


@attrs.frozen
class Candidate:
    """A measured codec; ``workarounds``: the blockers worked around to measure it."""

    result: CodecResult
    workarounds: tuple[Blocker, ...] = ()
    schema: str | None = None

    @property
    def codec(self) -> str:
        return self.result.codec


@attrs.frozen
class Context:
    """What the criteria compare against: the best size and speed among the candidates."""

    records: int
    smallest: float
    fastest: float | None


def _speed(r: CodecResult) -> float | None:
    """Encode plus decode nanoseconds per key (batch)."""
    if r.encode_ns is None:
        return None
    return r.encode_ns.batch + (r.decode_ns.batch if r.decode_ns is not None else 0.0)


def _step(ratio: float, tie: float) -> int:
    """How many tie-widths *ratio* (>= 1) is above the best: 0 is a tie with it."""
    return int(math.log(ratio) / math.log1p(tie) + 1e-9) if ratio > 1 else 0


def _mean(r: CodecResult) -> float:
    return r.key_size.mean if r.key_size is not None else math.inf


# -- facts, for people ----------------------------------------------------------------------


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def problems(r: CodecResult) -> str:
    """What went wrong on the records, in one phrase ("" when nothing did)."""
    parts = []
    if r.order_pairs_wrong:
        parts.append(f"puts {_count(r.order_pairs_wrong, 'pair')} out of order")
    if r.collisions:
        parts.append(f"gives {_count(r.collisions, 'record')} another record's key")
    if r.round_trip_failures:
        parts.append(f"decodes {_count(r.round_trip_failures, 'key')} wrong")
    if not parts:
        return ""
    unexplained = r.order_unexplained + r.collisions_unexplained + r.round_trip_unexplained
    declared = sorted(r.order_explained)
    tail = (f" ({unexplained:,} not explained by a declared anomaly)" if unexplained else
            " (declared anomalies" + (f": {', '.join(declared)}" if declared else "") + ")")
    return ", ".join(parts) + tail


def _refusals(r: CodecResult, records: int) -> str:
    if not r.refused:
        return f"refuses none of the {records:,} records"
    return f"refuses {r.refused:,} of the {records:,} records"


def _order_fact(r: CodecResult) -> str:
    if not r.sound:
        return problems(r)
    decode = (", keys do not decode" if r.round_trip_failures is None else
              ", every key decodes back")
    return "keeps the natural order: no pair out of order, no collision" + decode


def _prefix_fact(r: CodecResult) -> str | None:
    if not r.prefix_scans:
        return None
    if r.prefix_exact:
        depths = [s.fields for s in r.prefix_scans]
        run = 0  # the leading counts 1, 2, ... scanned without a gap
        while run < len(depths) and depths[run] == run + 1:
            run += 1
        text = ("exact prefix scans on the first field" if run == 1 else
                f"exact prefix scans on the first 1 to {run} fields")
        rest = [str(k) for k in depths[run:]]  # beyond PREFIX_FIELDS: doubling, and n - 1
        if rest:
            text += (f" and on the first {', '.join(rest[:-1])}"
                     + (" and " if len(rest) > 1 else "") + f"{rest[-1]} (longer prefixes "
                     "are scanned at these counts only)")
        return text
    bad = [s for s in r.prefix_scans if not s.exact]
    if any(s.error for s in bad):
        return f"prefix_range refused a prefix of {bad[0].fields} field(s): {bad[0].error}"
    return "prefix scans are not exact: " + "; ".join(
        f"on {s.fields} field(s) {s.leaked:,} key(s) leaked in, {s.missed:,} missed"
        for s in bad)


def _size_fact(r: CodecResult, ctx: Context) -> str | None:
    if r.key_size is None:
        return None
    ks = r.key_size
    rank = (" (the smallest)" if ks.mean <= ctx.smallest else
            f" (within {SIZE_TIE:.0%} of the smallest)"
            if ctx.smallest > 0 and _step(ks.mean / ctx.smallest, SIZE_TIE) == 0 else "")
    return f"keys of {ks.mean:.1f} bytes on average{rank}: p99 {ks.p99}, max {ks.max}"


def _speed_fact(r: CodecResult, ctx: Context) -> str | None:
    speed = _speed(r)
    if speed is None or r.encode_ns is None:
        return None
    text = f"encodes in {r.encode_ns.batch:,.0f} ns"
    if r.decode_ns is not None:
        text += f" and decodes in {r.decode_ns.batch:,.0f} ns"
    text += " per key"
    if ctx.fastest is not None and speed <= ctx.fastest:
        text += " (the fastest)"
    elif ctx.fastest and _step(speed / ctx.fastest, SPEED_TIE) == 0:
        text += f" (within {SPEED_TIE:.0%} of the fastest)"
    return text


def _decode_fact(r: CodecResult) -> str:
    if r.round_trip_failures is None:
        return "keys do not decode with this schema"
    if r.self_describing:
        return "self-describing: keys decode without the schema"
    return "keys decode with the schema only"


def facts(r: CodecResult, ctx: Context) -> list[str]:
    """Everything a person weighs about one measured codec, one phrase each."""
    out = ["expresses every field", _refusals(r, ctx.records), _order_fact(r)]
    out += [f for f in (_prefix_fact(r), _size_fact(r, ctx), _speed_fact(r, ctx)) if f]
    out.append(_decode_fact(r))
    out.append("read by " + "; ".join(r.readers) if r.readers else "readers not declared")
    out.append("ran compiled" if r.compiled else "ran the reference Python (not compiled)")
    return out


# -- the criteria ---------------------------------------------------------------------------


@attrs.frozen
class Criterion:
    """One ranking criterion: ``key`` (smaller is better) and ``versus``, how a runner-up
    that this criterion put behind compares with the best."""

    name: str
    rule: str
    key: Callable[[Candidate, Context], float] = attrs.field(eq=False)
    versus: Callable[[Candidate, Candidate, Context], str] = attrs.field(eq=False)


def _versus_refused(c: Candidate, best: Candidate, ctx: Context) -> str:
    theirs = best.result.refused
    return (f"refuses {c.result.refused:,} of the {ctx.records:,} records "
            f"({best.codec}: {theirs:,})" if theirs else
            f"refuses {c.result.refused:,} of the {ctx.records:,} records ({best.codec}: none)")


def _versus_size(c: Candidate, best: Candidate, ctx: Context) -> str:
    a, b = _mean(c.result), _mean(best.result)
    return f"keys {a - b:.1f} bytes longer on average ({a:.1f} against {b:.1f})"


def _versus_speed(c: Candidate, best: Candidate, ctx: Context) -> str:
    a, b = _speed(c.result) or 0.0, _speed(best.result) or 1.0
    return (f"{a / b:.1f}x slower: {a:,.0f} against {b:,.0f} ns per key to encode and "
            "decode")


def _inexact(c: Candidate) -> int:
    return sum(b.exact is not True for b in c.workarounds)


def _rewritten(c: Candidate) -> int:
    return len({b.index for b in c.workarounds})


def _size_key(c: Candidate, ctx: Context) -> float:
    return _step(_mean(c.result) / ctx.smallest, SIZE_TIE) if ctx.smallest > 0 else 0


def _speed_key(c: Candidate, ctx: Context) -> float:
    speed = _speed(c.result)
    if speed is None or not ctx.fastest:
        return 0
    return _step(speed / ctx.fastest, SPEED_TIE)


_CORRECT: Final = Criterion(
    "correct", "keeps the natural order on these records: no pair out of order, no collision, "
    "no key that decodes to other values (a declared anomaly still counts)",
    lambda c, ctx: 0 if c.result.sound else 1,
    lambda c, best, ctx: problems(c.result))
_COMPLETE: Final = Criterion(
    "complete", "refuses the fewest records", lambda c, ctx: c.result.refused, _versus_refused)
_PREFIX: Final = Criterion(
    "prefix scans", "exact prefix scans on every leading field count",
    lambda c, ctx: 0 if c.result.prefix_exact else 1,
    lambda c, best, ctx: _prefix_fact(c.result) or "prefix scans are not exact")
_DECODES: Final = Criterion(
    "decodes", "keys decode back to the values",
    lambda c, ctx: 0 if c.result.round_trip_failures is not None else 1,
    lambda c, best, ctx: "keys do not decode with this schema")
_SIZE: Final = Criterion(
    "size", f"the smallest keys on average (within {SIZE_TIE:.0%} is a tie)", _size_key,
    _versus_size)
_SPEED: Final = Criterion(
    "speed", f"the fastest encode + decode per key (within {SPEED_TIE:.0%} is a tie)",
    _speed_key, _versus_speed)
_SELF_DESCRIBING: Final = Criterion(
    "self-describing", "keys that decode without the schema",
    lambda c, ctx: 0 if c.result.self_describing else 1,
    lambda c, best, ctx: "keys decode with the schema only")

#: the criteria, in order: the first on which two codecs differ decides
RANKING: Final[tuple[Criterion, ...]] = (
    _CORRECT, _COMPLETE, _PREFIX, _DECODES, _SIZE, _SPEED, _SELF_DESCRIBING)

#: when no codec expresses the schema as written: the codecs measured on their rewritten
#: schema, with exact and fewer workarounds preferred right after correctness and refusals
CLOSEST_RANKING: Final[tuple[Criterion, ...]] = (
    _CORRECT, _COMPLETE,
    Criterion("exact workarounds", "workarounds that keep every value and the order exactly",
              lambda c, ctx: _inexact(c),
              lambda c, best, ctx: f"{_count(_inexact(c), 'workaround')} not exact "
              f"({best.codec}: {_inexact(best)})"),
    Criterion("fewest workarounds", "the fewest fields to rewrite",
              lambda c, ctx: _rewritten(c),
              lambda c, best, ctx: f"{_count(_rewritten(c), 'field')} to rewrite "
              f"({best.codec}: {_rewritten(best)})"),
    _PREFIX, _DECODES, _SIZE, _SPEED, _SELF_DESCRIBING)


# -- the verdict ----------------------------------------------------------------------------


@attrs.frozen
class RunnerUp:
    """A candidate behind the recommended one: its facts, and what put it behind."""

    codec: str
    why: tuple[str, ...]
    versus: str
    decided_by: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"codec": self.codec, "why": list(self.why), "versus": self.versus,
                "decided_by": self.decided_by}


@attrs.frozen
class Closest:
    """No codec expresses the schema as written: the nearest one, measured on the schema its
    workarounds give."""

    codec: str
    schema: str
    workarounds: tuple[Blocker, ...]
    result: CodecResult
    others: tuple[RunnerUp, ...] = ()

    @property
    def exact(self) -> bool:
        return all(b.exact for b in self.workarounds)

    def to_dict(self) -> dict[str, Any]:
        return {"codec": self.codec, "schema": self.schema, "exact": self.exact,
                "workarounds": [b.to_dict() for b in self.workarounds],
                "result": self.result.to_dict(),
                "others": [o.to_dict() for o in self.others]}


@attrs.frozen
class Verdict:
    """The decision: ``recommended`` (``None`` when no codec expresses the schema and stores
    the records), a one-sentence ``headline``, the reasons, the runners-up, and every other
    codec's blockers."""

    recommended: str | None
    headline: str
    why: tuple[str, ...] = ()
    runners_up: tuple[RunnerUp, ...] = ()
    cannot: tuple[tuple[str, tuple[Blocker, ...]], ...] = ()
    closest: Closest | None = None
    #: the criteria the ranking used, as (name, rule)
    ranking: tuple[tuple[str, str], ...] = tuple((c.name, c.rule) for c in RANKING)

    def to_dict(self) -> dict[str, Any]:
        return {
            "recommended": self.recommended,
            "headline": self.headline,
            "why": list(self.why),
            "runners_up": [r.to_dict() for r in self.runners_up],
            "cannot": [{"codec": name, "blockers": [b.to_dict() for b in blockers]}
                       for name, blockers in self.cannot],
            "closest": None if self.closest is None else self.closest.to_dict(),
            "ranking": [{"criterion": name, "rule": rule} for name, rule in self.ranking],
        }


def _context(candidates: Sequence[Candidate], records: int) -> Context:
    sizes = [_mean(c.result) for c in candidates]
    speeds = [s for s in (_speed(c.result) for c in candidates) if s is not None]
    return Context(records, min(sizes), min(speeds) if speeds else None)


def _ranked(candidates: Sequence[Candidate], ranking: Sequence[Criterion], ctx: Context
            ) -> list[Candidate]:
    position = {id(c): i for i, c in enumerate(candidates)}
    return sorted(candidates, key=lambda c: ([k.key(c, ctx) for k in ranking],
                                             position[id(c)]))


def _runners_up(ranked: Sequence[Candidate], ranking: Sequence[Criterion], ctx: Context
                ) -> tuple[RunnerUp, ...]:
    best = ranked[0]
    out = []
    for c in ranked[1:]:
        decider = next((k for k in ranking if k.key(c, ctx) != k.key(best, ctx)), None)
        versus = (decider.versus(c, best, ctx) if decider is not None else
                  f"ties with {best.codec} on every criterion; listed after it")
        why = [f for f in (_refusals(c.result, ctx.records), _size_fact(c.result, ctx),
                           _speed_fact(c.result, ctx)) if f]
        if not c.result.sound:
            why.insert(0, problems(c.result))
        out.append(RunnerUp(c.codec, tuple(why), versus,
                            None if decider is None else decider.name))
    return tuple(out)


def _headline(best: Candidate, ranked: Sequence[Candidate], ctx: Context) -> str:
    r = best.result
    clauses = [_refusals(r, ctx.records) if not r.refused or len(ranked) == 1 else
               f"refuses the fewest records ({r.refused:,} of {ctx.records:,})"]
    if r.sound:
        clauses.append("keeps the natural order")
    speed = _speed(r)
    if _size_key(best, ctx) == 0 and r.key_size is not None:
        which = ("the smallest keys" if r.key_size.mean <= ctx.smallest else
                 f"keys within {SIZE_TIE:.0%} of the smallest")
        clauses.append(f"has {which} ({r.key_size.mean:.1f} bytes on average)")
    elif _speed_key(best, ctx) == 0 and speed is not None and ctx.fastest is not None:
        which = "the fastest" if speed <= ctx.fastest else "among the fastest"
        clauses.append(f"is {which} ({speed:,.0f} ns per key to encode and decode)")
    elif r.key_size is not None:
        clauses.append(f"has keys of {r.key_size.mean:.1f} bytes on average")
    only = "it is the only codec that expresses every field; it " if len(ranked) == 1 else \
        "it expresses every field, "
    text = f"Use {best.codec}: {only}" + ", ".join(clauses[:-1]) + \
        (" and " if len(clauses) > 1 else "") + clauses[-1]
    if not r.sound:
        text += f", but it {problems(r)}"
    return text + "."


def decide(results: Sequence[CodecResult], records: int,
           rewritten: Sequence[Candidate] = ()) -> Verdict:
    """The verdict on *results* (one per codec, as written) over *records* records;
    *rewritten* are codecs measured on their rewritten schema, used when none expresses it."""
    cannot: list[tuple[str, tuple[Blocker, ...]]] = [
        (r.codec, r.blockers) for r in results if not r.expressible]
    for r in results:
        if r.expressible and not r.measured and records:
            example = f", e.g. {r.refused_example}" if r.refused_example else ""
            cannot.append((r.codec, (Blocker(None, None, "refused every one of the "
                                             f"{records:,} records{example}"),)))
    candidates = [Candidate(r) for r in results if r.measured]
    if candidates:
        ctx = _context(candidates, records)
        ranked = _ranked(candidates, RANKING, ctx)
        best = ranked[0]
        return Verdict(best.codec, _headline(best, ranked, ctx), tuple(facts(best.result, ctx)),
                       _runners_up(ranked, RANKING, ctx), tuple(cannot))
    expressing = [r.codec for r in results if r.expressible]
    if expressing:
        what = ("there are no records to measure" if not records else
                "they refused every record")
        return Verdict(None, f"Nothing to recommend: {', '.join(expressing)} express the "
                       f"schema, but {what}.", cannot=tuple(cannot))
    return _closest(rewritten, records, tuple(cannot))


def _closest(rewritten: Sequence[Candidate], records: int,
             cannot: tuple[tuple[str, tuple[Blocker, ...]], ...]) -> Verdict:
    measured = [c for c in rewritten if c.result.measured]
    if not measured:
        return Verdict(None, "No codec expresses this schema as written, and none has a "
                       "workaround for every blocker that could be measured: see what each "
                       "codec cannot do.", cannot=cannot)
    ctx = _context(measured, records)
    ranked = _ranked(measured, CLOSEST_RANKING, ctx)
    best = ranked[0]
    fixes = "; ".join(f"{b.field}: {b.workaround}" for b in best.workarounds
                      if b.workaround is not None)
    r = best.result
    state = [_refusals(r, records)] + (["keeps the natural order"] if r.sound else
                                       [problems(r)])
    if r.key_size is not None:
        state.append(f"has keys of {r.key_size.mean:.1f} bytes on average")
    headline = (f"No codec expresses this schema as written. Closest: {best.codec}, with "
                f"{_count(len({b.index for b in best.workarounds}), 'field')} rewritten "
                f"({fixes}); measured on {best.schema!r} it " + ", ".join(state[:-1]) +
                " and " + state[-1] + ".")
    why = [f"rewritten schema: {best.schema}", *facts(r, ctx)[1:]]
    closest = Closest(best.codec, best.schema or "", best.workarounds, r,
                      _runners_up(ranked, CLOSEST_RANKING, ctx))
    return Verdict(None, headline, tuple(why), cannot=cannot, closest=closest,
                   ranking=tuple((c.name, c.rule) for c in CLOSEST_RANKING))
