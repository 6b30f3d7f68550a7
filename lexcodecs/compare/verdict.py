"""The verdict: which codec to use for this schema and these records, and why.

Theory of operation: the *candidates* are the codecs that express every field and accepted at
least one record. They are ranked by :data:`RANKING`, criteria compared in order: the first
one on which two codecs differ decides, and the later ones only break ties. Correctness on the
records comes first (a key format that reorders, merges or loses keys is wrong whatever its
size), then refusing the fewest records (a refused record cannot be stored at all), then exact
prefix scans and decoding, and only then key size and speed. Sizes within 10% of the smallest
count as a tie, so a near-tie falls through to the next criterion. docs/choosing.md shows the
table as text.

Speed is the one criterion measured with noise: on a busy machine one codec's time moved 2x
between identical runs, and a verdict must be the same on every run of the same input. So
speed compares the spread of each codec's timed loops (the loops of all codecs alternate,
:func:`lexcodecs.compare.measure.timed`), not one number: it puts one codec ahead of another
only when the slower one's *fastest* loop is at least :data:`SPEED_MARGIN` times the faster
one's *slowest* (encode plus decode per key, each codec timed in :data:`MIN_LOOPS` loops or
more). Anything closer is a tie, the next criterion (a deterministic one) decides, and the
verdict says that speed was a tie. Because "clearly faster" is not transitive (A and B tie,
B and C tie, A is clearly faster than C), a criterion splits a group of tied candidates into
ordered groups (:meth:`Criterion.groups`) instead of giving each candidate a number: the speed
groups are chains of ties, so any two codecs in different groups are clearly apart.

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

from .defaults import MIN_LOOPS, SPEED_MARGIN
from .results import Blocker, CodecResult

__all__ = ["CLOSEST_RANKING", "MIN_LOOPS", "RANKING", "SIZE_TIE", "SPEED_MARGIN", "Candidate",
           "Closest", "Criterion", "RunnerUp", "Speed", "Verdict", "decide", "speed_groups"]

#: key sizes within this share of the smallest are a tie
SIZE_TIE: Final = 0.10


@attrs.frozen
class Candidate:
    """A measured codec; ``workarounds``: the blockers worked around to measure it."""

    result: CodecResult
    workarounds: tuple[Blocker, ...] = ()
    schema: str | None = None

    @property
    def codec(self) -> str:
        return self.result.codec


@attrs.frozen(eq=False)
class Context:
    """What the criteria compare against: the smallest keys among the candidates, and
    ``lead``, the candidates of the first speed group (:func:`speed_groups`): those speed
    cannot tell from the fastest (empty when speed ranks none: untimed, too few loops, or a
    single candidate)."""

    records: int
    smallest: float
    lead: tuple[CodecResult, ...] = ()


@attrs.frozen
class Speed:
    """Encode plus decode nanoseconds per key over a codec's timed loops: ``fastest`` (its
    fastest encode loop plus its fastest decode loop), ``slowest`` (the slowest of each), and
    ``loops``, the fewest loops either direction had."""

    fastest: float
    slowest: float
    loops: int

    @property
    def ranks(self) -> bool:
        """Timed in enough loops for speed to rank it (:data:`MIN_LOOPS`)."""
        return self.loops >= MIN_LOOPS

    def clearly_faster(self, other: Speed) -> bool:
        """Even this codec's slowest loops, times :data:`SPEED_MARGIN`, are no slower than
        *other*'s fastest."""
        return self.ranks and other.ranks and self.slowest * SPEED_MARGIN <= other.fastest


def _speed(r: CodecResult) -> Speed | None:
    """What *r*'s timed loops say about its speed (``None``: not timed)."""
    if r.encode_ns is None:
        return None
    parts = [t for t in (r.encode_ns, r.decode_ns) if t is not None]
    return Speed(sum(t.batch for t in parts), sum(t.slowest for t in parts),
                 min(len(t.loops) for t in parts))


def _in(r: CodecResult, results: Sequence[CodecResult]) -> bool:
    return any(r is x for x in results)


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
    if not speed.ranks:
        return text + (f" ({_count(speed.loops, 'timed loop')}: too few to rank by speed, "
                       f"which takes {MIN_LOOPS})")
    text += (f" (encode + decode {_range(speed)} over {_count(speed.loops, 'loop')}")
    if _in(r, ctx.lead):
        text += ("; clearly the fastest" if len(ctx.lead) == 1 else
                 "; among the fastest, within the timing noise")
    return text + ")"


def _range(speed: Speed) -> str:
    """Its loops' range, each number with its unit (what the docs' tests mask as a time)."""
    return f"{speed.fastest:,.0f} ns to {speed.slowest:,.0f} ns"


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


#: how a criterion splits candidates into ordered groups, best first (:meth:`Criterion.groups`)
Split = Callable[[Sequence[Candidate], Context], list[list[Candidate]]]


@attrs.frozen
class Criterion:
    """One ranking criterion: ``key`` (smaller is better) and ``versus``, how a runner-up
    that this criterion put behind compares with the best. ``split``, when given, is used
    instead of ``key``: it puts candidates into ordered groups itself, where one number per
    candidate cannot say it (speed: only a clear difference separates two codecs)."""

    name: str
    rule: str
    key: Callable[[Candidate, Context], float] = attrs.field(eq=False)
    versus: Callable[[Candidate, Candidate, Context], str] = attrs.field(eq=False)
    split: Split | None = attrs.field(default=None, eq=False)

    def groups(self, candidates: Sequence[Candidate], ctx: Context) -> list[list[Candidate]]:
        """*candidates* in groups, best first, each group in the candidates' given order;
        the candidates of one group tie on this criterion."""
        if self.split is not None:
            return self.split(candidates, ctx)
        keys = [self.key(c, ctx) for c in candidates]
        return [[c for c, k in zip(candidates, keys) if k == value]
                for value in sorted(set(keys))]


def _versus_refused(c: Candidate, best: Candidate, ctx: Context) -> str:
    theirs = best.result.refused
    return (f"refuses {c.result.refused:,} of the {ctx.records:,} records "
            f"({best.codec}: {theirs:,})" if theirs else
            f"refuses {c.result.refused:,} of the {ctx.records:,} records ({best.codec}: none)")


def _versus_size(c: Candidate, best: Candidate, ctx: Context) -> str:
    a, b = _mean(c.result), _mean(best.result)
    return f"keys {a - b:.1f} bytes longer on average ({a:.1f} against {b:.1f})"


def _versus_speed(c: Candidate, best: Candidate, ctx: Context) -> str:
    a, b = _speed(c.result), _speed(best.result)
    if a is None or b is None:  # pragma: no cover - speed splits timed candidates only
        return "slower"
    return (f"clearly slower: {a.fastest:,.0f} ns per key to encode and decode in its "
            f"fastest loops, against {b.slowest:,.0f} ns in {best.codec}'s slowest "
            f"({a.fastest / b.slowest:.1f}x)")


def _inexact(c: Candidate) -> int:
    return sum(b.exact is not True for b in c.workarounds)


def _rewritten(c: Candidate) -> int:
    return len({b.index for b in c.workarounds})


def _size_key(c: Candidate, ctx: Context) -> float:
    return _step(_mean(c.result) / ctx.smallest, SIZE_TIE) if ctx.smallest > 0 else 0


def speed_groups(candidates: Sequence[Candidate], ctx: Context | None = None
                 ) -> list[list[Candidate]]:
    """*candidates* in speed groups, fastest first: one group (a tie) unless every one was
    timed in enough loops. Sorted by their fastest loops, a candidate starts a new group only
    when it is clearly slower than every candidate before it (:meth:`Speed.clearly_faster`
    than it: the one with the slowest loops so far says it), so any two candidates in
    different groups are clearly apart, and a chain of near-ties stays one tie."""
    speeds = [_speed(c.result) for c in candidates]
    timed = [s for s in speeds if s is not None and s.ranks]
    if len(candidates) < 2 or len(timed) < len(speeds):
        return [list(candidates)]
    order = sorted(range(len(candidates)), key=lambda i: (timed[i].fastest, i))
    groups: list[list[int]] = []
    slowest = timed[order[0]]
    for i in order:
        if groups and not slowest.clearly_faster(timed[i]):
            groups[-1].append(i)
        else:
            groups.append([i])
        slowest = max(slowest, timed[i], key=lambda s: s.slowest)
    return [[candidates[i] for i in sorted(group)] for group in groups]


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
    "speed", f"the fastest encode + decode per key, only when clearly so: the other's fastest "
    f"timed loops at least {SPEED_MARGIN}x this one's slowest, over {MIN_LOOPS} loops or more "
    "each (else a tie)",
    lambda c, ctx: 0, _versus_speed, speed_groups)
_SELF_DESCRIBING: Final = Criterion(
    "self-describing", "keys that decode without the schema",
    lambda c, ctx: 0 if c.result.self_describing else 1,
    lambda c, best, ctx: "keys decode with the schema only")

#: the criteria, in order: the first that tells two codecs apart decides
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
    codec's blockers. ``speed_tie`` names the codecs that speed, the criterion that would
    have decided, could not tell from the recommended (or closest) one."""

    recommended: str | None
    headline: str
    why: tuple[str, ...] = ()
    runners_up: tuple[RunnerUp, ...] = ()
    cannot: tuple[tuple[str, tuple[Blocker, ...]], ...] = ()
    closest: Closest | None = None
    #: the criteria the ranking used, as (name, rule)
    ranking: tuple[tuple[str, str], ...] = tuple((c.name, c.rule) for c in RANKING)
    speed_tie: tuple[str, ...] = ()

    @property
    def chosen(self) -> str | None:
        """The codec to use: the recommended one, else the closest (``None``: neither)."""
        if self.recommended is not None:
            return self.recommended
        return None if self.closest is None else self.closest.codec

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
            "speed_tie": list(self.speed_tie),
        }


#: the candidates best first, each with its path: under each criterion in turn, the place of
#: its group among the candidates tied with it on every criterion before
Ranked = list[tuple[Candidate, tuple[int, ...]]]


def _context(candidates: Sequence[Candidate], records: int) -> Context:
    sizes = [_mean(c.result) for c in candidates]
    speeds = [_speed(c.result) for c in candidates]
    lead: tuple[CodecResult, ...] = ()
    if len(candidates) > 1 and all(s is not None and s.ranks for s in speeds):
        lead = tuple(c.result for c in speed_groups(candidates)[0])
    return Context(records, min(sizes), lead)


def _ranked(candidates: Sequence[Candidate], ranking: Sequence[Criterion], ctx: Context
            ) -> Ranked:
    """Each criterion splits the groups the ones before it left tied, in their order; a
    group keeps the candidates' given order, which is the last tie-break."""
    groups: list[tuple[list[Candidate], tuple[int, ...]]] = [(list(candidates), ())]
    for criterion in ranking:
        groups = [(part, (*path, i)) for group, path in groups
                  for i, part in enumerate(criterion.groups(group, ctx))]
    return [(c, path) for group, path in groups for c in group]


def _decider(path: tuple[int, ...], best: tuple[int, ...], ranking: Sequence[Criterion]
             ) -> Criterion | None:
    """The first criterion that put a candidate on *path* apart from the best."""
    return next((k for k, a, b in zip(ranking, path, best) if a != b), None)


def _runners_up(ranked: Ranked, ranking: Sequence[Criterion], ctx: Context
                ) -> tuple[RunnerUp, ...]:
    best, best_path = ranked[0]
    out = []
    for c, path in ranked[1:]:
        decider = _decider(path, best_path, ranking)
        versus = (decider.versus(c, best, ctx) if decider is not None else
                  f"ties with {best.codec} on every criterion; listed after it")
        why = [f for f in (_refusals(c.result, ctx.records), _size_fact(c.result, ctx),
                           _speed_fact(c.result, ctx)) if f]
        if not c.result.sound:
            why.insert(0, problems(c.result))
        out.append(RunnerUp(c.codec, tuple(why), versus,
                            None if decider is None else decider.name))
    return tuple(out)


def _speed_tied(ranked: Ranked, ranking: Sequence[Criterion]) -> Ranked:
    """The timed candidates that tie with the best on every criterion up to speed and on
    speed itself: speed would have decided between them, and could not."""
    if _SPEED not in ranking or _speed(ranked[0][0].result) is None:
        return []
    through = ranking.index(_SPEED) + 1
    best = ranked[0][1][:through]
    return [(c, path) for c, path in ranked[1:]
            if path[:through] == best and _speed(c.result) is not None]


def _tie_note(ranked: Ranked, ranking: Sequence[Criterion], tied: Ranked) -> tuple[str, str]:
    """Speed was a tie: (the reason with the timings, for the list of facts; the sentence
    for the headline), each saying what decided instead."""
    best, best_path = ranked[0]
    names = ", ".join(c.codec for c, _ in tied)
    speeds = [(c.codec, _speed(c.result)) for c in (best, *(c for c, _ in tied))]
    if all(s is not None and s.ranks for _, s in speeds):
        short = "within the timing noise"
        reason = (f"their timed loops are not {SPEED_MARGIN}x apart: " + ", ".join(
            f"{name} {_range(s)}" for name, s in speeds if s is not None)
            + " per key to encode and decode")
    else:
        short = "too few timed loops to tell"
        reason = f"fewer than {MIN_LOOPS} timed loops: too few to tell"
    decider = _decider(tied[0][1], best_path, ranking)
    then = (f"the next criterion, {decider.name}, decided" if decider is not None else
            f"{best.codec} came first in the order the codecs were given")
    return (f"speed was a tie with {names} ({reason}); {then}",
            f"Speed was a tie with {names}, {short}; {then}.")


def _headline(best: Candidate, ranked: Ranked, ctx: Context) -> str:
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
    elif speed is not None and _in(r, ctx.lead):
        which = "clearly the fastest" if len(ctx.lead) == 1 else "among the fastest"
        clauses.append(f"is {which} ({speed.fastest:,.0f} ns per key to encode and decode)")
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
        best = ranked[0][0]
        why, headline = facts(best.result, ctx), _headline(best, ranked, ctx)
        tied = _speed_tied(ranked, RANKING)
        if tied:
            fact, sentence = _tie_note(ranked, RANKING, tied)
            why.append(fact)
            headline += " " + sentence
        return Verdict(best.codec, headline, tuple(why), _runners_up(ranked, RANKING, ctx),
                       tuple(cannot), speed_tie=tuple(c.codec for c, _ in tied))
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
    best = ranked[0][0]
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
    tied = _speed_tied(ranked, CLOSEST_RANKING)
    if tied:
        fact, sentence = _tie_note(ranked, CLOSEST_RANKING, tied)
        why.append(fact)
        headline += " " + sentence
    closest = Closest(best.codec, best.schema or "", best.workarounds, r,
                      _runners_up(ranked, CLOSEST_RANKING, ctx))
    return Verdict(None, headline, tuple(why), cannot=cannot, closest=closest,
                   ranking=tuple((c.name, c.rule) for c in CLOSEST_RANKING),
                   speed_tie=tuple(c.codec for c, _ in tied))
