"""Measuring one bound codec on the records: what it refuses, key sizes, speed, round trip,
collisions, order through a real store, and prefix scans.

Theory of operation, in the order :func:`measure` runs:

1. **encode** every record once; a typed refusal (or a value with no place in the natural
   order under the codec's float policy, or a key the store cannot hold) counts the record as
   refused, with up to three examples, and leaves it out of everything below;
2. **key sizes**: min, mean, p50, p99, max and a histogram;
3. **speed** of the bound ``encode`` and ``decode`` (:func:`timed`, after the steps below,
   for every codec of a comparison together), each in two ways: *loops*, several timed loops
   over every record, every loop's time per key kept (*batch* is the fastest); and *per
   record*, each record timed alone a few times (its least time kept), less the cost of
   reading the clock, as p50/p99. The loops of the codecs alternate -- round after round,
   each codec once, starting one further along each round -- so that a load that comes and
   goes on a busy machine falls on all of them alike, and the spread of a codec's loops
   shows how much its time moved: the verdict lets speed decide only beyond that spread.
   Decode is timed on its own, over the keys that decode: checking the values is not in it;
4. **round trip**: every key decoded and compared with its record in the natural-order model
   (:mod:`lexcodecs.model`), a failure a declared anomaly explains named as such;
5. **order**: the keys sorted by the store; the pairs in the wrong order against the natural
   order, counted exactly, collisions (one key, different values), and the smallest adjacent
   counterexample;
6. **prefix scans**: for each leading field count k < n (every one up to
   :data:`PREFIX_FIELDS`, then doubling, and n - 1: :func:`prefix_depths`), distinct
   prefixes sampled from the records; the keys inside ``prefix_range(prefix)`` (found in the
   store's sorted keys) against the records whose first k values equal the prefix in the
   model;
7. up to three **sample keys**, annotated by ``inspect``; a long key, part or text is cut
   (:data:`SAMPLE_KEY_BYTES` and the limits beside it), saying how long it was.
"""

from __future__ import annotations

import bisect
import gc
import itertools
import random
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

import attrs

from ..codec import BoundCodec, Codec
from ..errors import LexCodecError, NotDecodableError
from ..inspection import inspect_key
from ..model import ModelError, key_function
from ..schema import KeySchema
from .defaults import MIN_LOOPS, REPEATS
from .results import CodecResult, KeySize, PrefixScan, SampleKey, SamplePart, Timing, percentile
from .stores import KEY_LENGTHS, ORDERERS, inversions

__all__ = ["MIN_LOOPS", "PREFIX_FIELDS", "PREFIX_SAMPLES", "REPEATS", "Workload", "is_compiled",
           "measure", "measure_untimed", "prefix_depths", "timed"]

#: times each record is timed alone; its least time counts
RECORD_RUNS: Final = 3
#: at most this many records are timed alone (evenly spaced over the records)
RECORD_SAMPLE: Final = 5000
#: seconds one codec may spend being timed, about; a codec whose loops take longer stops
#: after :data:`MIN_LOOPS` of them
TIMING_BUDGET: Final = 0.2
#: nanoseconds a timed loop lasts, about: it passes over the records as often as takes that
#: long, so that a preemption of a few milliseconds on a busy machine moves a loop by a
#: fraction of its time, not by a multiple of it (a loop of 5,000 keys at 60 ns is 0.3 ms)
LOOP_NS: Final = 5_000_000
#: the most passes over the records one loop makes (a clock too coarse to see one pass)
MAX_PASSES: Final = 10_000
#: distinct prefixes scanned per leading field count
PREFIX_SAMPLES: Final = 30
#: every leading field count up to this one is scanned; beyond it, the counts that double
#: it and the longest (:func:`prefix_depths`), so that the work stays linear in the fields
PREFIX_FIELDS: Final = 32
#: refused records quoted, and sample keys shown
EXAMPLES: Final = 3
#: the most bytes of a sample key shown in hex, of one of its parts, the parts listed, and
#: the characters of a text (its values, a part's meaning): the rest is cut, saying so
SAMPLE_KEY_BYTES: Final = 256
SAMPLE_PART_BYTES: Final = 64
SAMPLE_PARTS: Final = 64
SAMPLE_TEXT_CHARS: Final = 200


def _short(values: Any, limit: int = 120) -> str:
    text = repr(values)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def is_compiled(bound: Any) -> bool:
    """Whether a bound codec is the compiled class of its package (``_compiled.pyx``)."""
    return type(bound).__module__.endswith("_compiled")


@attrs.frozen
class Workload:
    """What timing one measured codec needs (:func:`timed`): its bound ``encode`` over the
    records it accepted, and its bound ``decode`` over the keys that decoded (none: decode is
    not timed)."""

    encode: Callable[[Any], Any] = attrs.field(eq=False)
    decode: Callable[[Any], Any] = attrs.field(eq=False)
    records: Sequence[tuple[Any, ...]]
    keys: Sequence[bytes]


def measure(codec: Codec, bound: BoundCodec, schema: KeySchema,
            records: Sequence[tuple[Any, ...]], store: str, *, repeats: int = REPEATS,
            seed: int = 0, refused: Sequence[str] = ()) -> CodecResult:
    """Everything :mod:`lexcodecs.compare` reports about *codec* bound to *schema*, timed
    alone (a comparison times its codecs together: :func:`measure_untimed`, then
    :func:`timed`).

    *refused* are records refused before the codec saw them (a workaround's conversion
    failed), as ``"values: reason"`` texts; they count as refused.
    """
    found = measure_untimed(codec, bound, schema, records, store, seed=seed, refused=refused)
    return timed([found], repeats)[0]


def measure_untimed(codec: Codec, bound: BoundCodec, schema: KeySchema,
                    records: Sequence[tuple[Any, ...]], store: str, *, seed: int = 0,
                    refused: Sequence[str] = ()) -> tuple[CodecResult, Workload | None]:
    """What :func:`measure` reports but the speed, and what timing it needs (``None`` when
    the codec accepted no record: there is nothing to time)."""
    caps = codec.capabilities
    policy = caps.float_policy
    order_schema = getattr(bound, "order_schema", schema)
    natural = key_function(order_schema, policy)
    lo, hi = KEY_LENGTHS.get(store, (0, None))
    kept: list[tuple[Any, ...]] = []
    keys: list[bytes] = []
    models: list[tuple[Any, ...]] = []
    examples = list(refused[:EXAMPLES])
    refusals = len(refused)
    for values in records:
        try:
            key = bound.encode(values)
            model = natural(values)
            if len(key) < lo or (hi is not None and len(key) > hi):
                raise LexCodecError(f"the {store} store holds keys of {lo}..{hi} bytes; this "
                                    f"one has {len(key)}", codec=codec.name)
        except (LexCodecError, ModelError) as exc:
            refusals += 1
            if len(examples) < EXAMPLES:
                examples.append(f"{_short(values)}: {exc}")
            continue
        kept.append(values)
        keys.append(key)
        models.append(model)
    base = dict(codec=codec.name, expressible=True, notes=caps.notes,
                self_describing=caps.decoding == "self-describing", decoding=caps.decoding,
                readers=caps.readers, compiled=is_compiled(bound), store=store,
                refused=refusals, refused_examples=examples,
                anomalies=[(a.name, a.kind, a.description) for a in caps.anomalies])
    if not kept:
        return CodecResult(**base), None  # type: ignore[arg-type]
    found: dict[str, Any] = {}
    found["key_size"] = KeySize.of([len(k) for k in keys])
    decodable = _round_trip(bound, caps, schema, kept, keys, models, natural, found)
    order = _order(caps, schema, kept, keys, models, store, found)
    found["prefix_scans"] = _prefix_scans(bound, kept, keys, models, order, seed)
    found["sample_keys"] = _samples(codec, schema, kept, keys)
    result = CodecResult(**base, records=len(kept), **found)  # type: ignore[arg-type]
    return result, Workload(bound.encode, bound.decode, kept, decodable)




# -- speed ----------------------------------------------------------------------------------

#: the cost of reading each clock used so far (:func:`_clock_overhead`), by clock
_overhead: dict[Callable[[], int], float] = {}


def _clock_overhead(read: Callable[[], int]) -> float:
    """Nanoseconds between two back-to-back reads of *read* (the median of many), measured
    once per clock."""
    if read not in _overhead:
        gaps = []
        for _ in range(2000):
            t0 = read()
            gaps.append(read() - t0)
        gaps.sort()
        _overhead[read] = float(gaps[len(gaps) // 2])
    return _overhead[read]


def _loop(read: Callable[[], int], run: Callable[[Any], Any], items: Sequence[Any],
          passes: int = 1) -> int:
    """Nanoseconds *passes* passes of *run* over *items* took."""
    t0 = read()
    for _ in range(passes):
        for item in items:
            run(item)
    return read() - t0


def _each(read: Callable[[], int], run: Callable[[Any], Any], items: Sequence[Any],
          fastest: float) -> tuple[float, float]:
    """The per-record p50 and p99: each of up to :data:`RECORD_SAMPLE` records timed alone
    (the least of :data:`RECORD_RUNS` runs, or of one when a pass over *items* took *fastest*
    ns and that many would overrun the budget), less the cost of reading the clock."""
    step = max(1, len(items) // RECORD_SAMPLE)
    sample = items[::step]
    least = [float("inf")] * len(sample)
    runs = RECORD_RUNS if fastest * RECORD_RUNS / step < TIMING_BUDGET * 0.5e9 else 1
    for _ in range(runs):
        for j, item in enumerate(sample):
            t0 = read()
            run(item)
            took = read() - t0
            if took < least[j]:
                least[j] = took
    overhead = _clock_overhead(read)
    each = sorted(max(0.0, t - overhead) for t in least)
    return float(percentile(each, 50)), float(percentile(each, 99))


class _Direction:
    """One direction (encode or decode) of one codec, being timed: a first pass over the
    items, untimed as far as the result goes, warms the codec up and says how many passes
    make a loop of about :data:`LOOP_NS`; then :meth:`loop` times one loop."""

    def __init__(self, read: Callable[[], int], run: Callable[[Any], Any],
                 items: Sequence[Any]) -> None:
        self.read, self.run, self.items = read, run, items
        self.first = _loop(read, run, items)
        self.passes = min(MAX_PASSES, max(1, -(-LOOP_NS // max(self.first, 1))))
        self.loops: list[int] = []

    def loop(self) -> int:
        took = _loop(self.read, self.run, self.items, self.passes)
        self.loops.append(took)
        return took

    def timing(self) -> Timing:
        """The loops per key, with the per-record percentiles measured now."""
        per_key = tuple(t / (len(self.items) * self.passes) for t in self.loops)
        p50, p99 = _each(self.read, self.run, self.items, min(self.loops) / self.passes)
        return Timing(min(per_key), p50, p99, per_key)


def timed(measured: Sequence[tuple[CodecResult, Workload | None]], repeats: int
          ) -> list[CodecResult]:
    """Each result of *measured* with its ``encode_ns`` and ``decode_ns`` (none with
    *repeats* 0, or when it has no workload): a first pass of each codec each way
    (:class:`_Direction`), then *repeats* rounds, each timing one encode loop and one decode
    loop of every codec, the codec that starts a round one further along each time; then each
    record alone, for the per-record p50/p99.

    A codec whose timing has taken more than :data:`TIMING_BUDGET` seconds sits out the
    rounds after the first :data:`MIN_LOOPS`. The cyclic collector is paused while the loops
    run, as :mod:`timeit` does: a collection in one loop and not in another is noise.
    """
    read = time.perf_counter_ns  # looked up here: a test may put a busy machine in its place
    active = [i for i, (_, work) in enumerate(measured) if work is not None and repeats > 0]
    out = [result for result, _ in measured]
    collecting = gc.isenabled()
    gc.disable()
    try:
        timing: dict[int, tuple[_Direction, _Direction | None]] = {}
        spent = {}
        for i in active:
            work = measured[i][1]
            assert work is not None
            encode = _Direction(read, work.encode, work.records)
            decode = _Direction(read, work.decode, work.keys) if work.keys else None
            timing[i] = encode, decode
            spent[i] = encode.first + (decode.first if decode is not None else 0)
        for round_ in range(repeats):
            start = round_ % len(active) if active else 0
            for i in active[start:] + active[:start]:
                if round_ >= MIN_LOOPS and spent[i] > TIMING_BUDGET * 1e9:
                    continue  # a slow codec: its first loops will do
                for direction in timing[i]:
                    if direction is not None:
                        spent[i] += direction.loop()
        for i, (encode, decode) in timing.items():
            out[i] = attrs.evolve(out[i], encode_ns=encode.timing(),
                                  decode_ns=None if decode is None else decode.timing())
    finally:
        if collecting:
            gc.enable()
    return out


# -- round trip -----------------------------------------------------------------------------


def _round_trip(bound: BoundCodec, caps: Any, schema: KeySchema,
                kept: Sequence[tuple[Any, ...]], keys: Sequence[bytes],
                models: Sequence[tuple[Any, ...]],
                natural: Callable[[Sequence[Any]], tuple[Any, ...]],
                found: dict[str, Any]) -> list[bytes]:
    """Decode every key; fill the round-trip fields of *found*; return the keys that
    decoded (what decode is timed on). A format that cannot decode leaves them unset.

    The values come back when they are the same point of the natural order as the record's
    (``model_equal``, with the record's model computed once)."""
    if caps.decoding == "none":
        return []
    try:
        bound.decode(keys[0])
    except NotDecodableError:
        return []  # the format does not decode (this schema): round trip is n/a
    except LexCodecError:
        pass
    failures = unexplained = 0
    example = None
    decodable = []
    for values, key, model in zip(kept, keys, models):
        try:
            back = bound.decode(key)
        except LexCodecError as exc:
            failures += 1
            if not caps.explained(("round-trip",), schema, values, ()):
                unexplained += 1
            example = example or f"{_short(values)} does not decode: {exc}"
            continue
        decodable.append(key)
        try:
            same = len(back) == len(values) and natural(back) == model
        except ModelError:  # a decoded value with no place in the order (NaN, say)
            same = False
        if not same:
            failures += 1
            if not caps.explained(("round-trip",), schema, values, back):
                unexplained += 1
            example = example or f"{_short(values)} -> {_short(back)}"
    found.update(round_trip_failures=failures, round_trip_unexplained=unexplained,
                 round_trip_example=example)
    return decodable


# -- order ----------------------------------------------------------------------------------


def _order(caps: Any, schema: KeySchema, kept: Sequence[tuple[Any, ...]],
           keys: Sequence[bytes], models: Sequence[tuple[Any, ...]], store: str,
           found: dict[str, Any]) -> list[int]:
    """Sort the keys in the store; fill the order and collision fields of *found*; return
    the records' indexes in the store's order."""
    # dense ranks of the natural order: equal values share a rank
    by_model = sorted(range(len(kept)), key=models.__getitem__)
    rank = [0] * len(kept)
    for pos in range(1, len(by_model)):
        i, prev = by_model[pos], by_model[pos - 1]
        rank[i] = rank[prev] + (models[i] != models[prev])
    collisions = unexplained = 0
    example = None
    seen: dict[bytes, int] = {}
    for i, key in enumerate(keys):
        j = seen.setdefault(key, i)
        if j != i and models[j] != models[i]:
            collisions += 1
            if not (caps.explained(("collision",), schema, kept[j], kept[i]) or
                    caps.explained(("collision",), schema, kept[i], kept[j])):
                unexplained += 1
            example = example or (f"{_short(kept[j])} and {_short(kept[i])} both have the "
                                  f"key {key.hex(' ')}")
    found.update(collisions=collisions, collisions_unexplained=unexplained,
                 collision_example=example)
    order = ORDERERS[store](keys)
    wrong = inversions([rank[i] for i in order])
    found["order_pairs_wrong"] = wrong
    if not wrong:
        return order
    explained: dict[str, int] = {}
    order_unexplained = 0
    best: tuple[int, str] | None = None
    for a, b in itertools.pairwise(order):
        if rank[a] <= rank[b]:
            continue
        # b's values are smaller, yet a's key came first
        anomaly = caps.explained(("order",), schema, kept[b], kept[a])
        if anomaly is not None:
            explained[anomaly.name] = explained.get(anomaly.name, 0) + 1
        else:
            order_unexplained += 1
        text = (f"{_short(kept[b])} < {_short(kept[a])} but the keys sort the other way: "
                f"{keys[a].hex(' ')} < {keys[b].hex(' ')}"
                + (f" (declared anomaly {anomaly.name!r})" if anomaly is not None else ""))
        size = len(repr(kept[a])) + len(repr(kept[b]))
        if best is None or size < best[0]:
            best = (size, text)
    found.update(order_explained=explained, order_unexplained=order_unexplained,
                 order_example=best[1] if best is not None else None)
    return order


# -- prefix scans ---------------------------------------------------------------------------


def prefix_depths(width: int) -> list[int]:
    """The leading field counts whose prefixes are scanned, for keys of *width* fields: every
    count up to :data:`PREFIX_FIELDS`, then the counts that double it (64, 128, ...) and the
    longest prefix (every field but the last). Their sum, the values handed to
    ``prefix_range``, grows linearly with the width (every count would be quadratic: 3,200
    fields took 80 s).

    >>> prefix_depths(4), prefix_depths(200)[-4:]
    ([1, 2, 3], [32, 64, 128, 199])
    """
    depths = list(range(1, min(width, PREFIX_FIELDS + 1)))
    k = 2 * PREFIX_FIELDS
    while k < width - 1:
        depths.append(k)
        k *= 2
    if width - 1 > PREFIX_FIELDS:
        depths.append(width - 1)
    return depths


def _prefix_groups(models: Sequence[tuple[Any, ...]], depths: Sequence[int]
                   ) -> Iterator[tuple[int, list[list[int]]]]:
    """For each count k in *depths*: the records grouped by their first k model values, each
    group in record order, the groups in the order of their first record. The groups are
    refined a field at a time (a group id and the next value), so that the work is one pass
    over the records per field, not per field a pass over k values."""
    wanted = set(depths)
    ids = [0] * len(models)
    for k in range(1, max(depths, default=0) + 1):
        table: dict[tuple[int, Any], int] = {}
        ids = [table.setdefault((group, model[k - 1]), len(table))
               for group, model in zip(ids, models)]
        if k in wanted:
            groups: list[list[int]] = [[] for _ in range(len(table))]
            for i, group in enumerate(ids):
                groups[group].append(i)
            yield k, groups


def _prefix_scans(bound: BoundCodec, kept: Sequence[tuple[Any, ...]], keys: Sequence[bytes],
                  models: Sequence[tuple[Any, ...]], order: Sequence[int], seed: int
                  ) -> list[PrefixScan]:
    width = len(models[0]) if models else 0
    ordered = [keys[i] for i in order]
    scans = []
    for k, chosen in _prefix_groups(models, prefix_depths(width)):
        if len(chosen) > PREFIX_SAMPLES:
            chosen = random.Random(seed * 1000 + k).sample(chosen, PREFIX_SAMPLES)
        leaked = missed = 0
        example = error = None
        for group in chosen:
            prefix = kept[group[0]][:k]
            try:
                start, stop = bound.prefix_range(prefix)
            except LexCodecError as exc:
                error = f"prefix_range{_short(prefix)}: {exc}"
                break
            first = bisect.bisect_left(ordered, start)
            last = len(ordered) if stop is None else bisect.bisect_left(ordered, stop)
            scanned = set(order[first:last])
            expected = set(group)
            extra, lost = scanned - expected, expected - scanned
            leaked += len(extra)
            missed += len(lost)
            if example is None and (extra or lost):
                who = min(extra or lost)
                example = (f"prefix {_short(prefix)}: the scan "
                           f"{'returned' if extra else 'missed'} {_short(kept[who])}")
        scans.append(PrefixScan(k, len(chosen), leaked, missed, example, error))
    return scans


# -- sample keys ----------------------------------------------------------------------------


def _cut_hex(key: bytes, start: int, end: int, limit: int) -> str:
    """Bytes *start*..*end* of *key* in hex: at most *limit* of them, then how many there
    are (a 1 MiB value showed 3 MB of hex per sample key, per codec)."""
    if end - start <= limit:
        return key[start:end].hex(" ")
    return f"{key[start:start + limit].hex(' ')} … ({end - start:,} bytes, cut)"


def cut_text(text: str, limit: int = SAMPLE_TEXT_CHARS) -> str:
    """*text*, or its first *limit* characters and how many there are."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters, cut)"


def _samples(codec: Codec, schema: KeySchema, kept: Sequence[tuple[Any, ...]],
             keys: Sequence[bytes]) -> list[SampleKey]:
    """The shortest, a middle-sized and the longest key, each annotated by ``inspect``;
    every text bounded (:data:`SAMPLE_KEY_BYTES` and the limits beside it), saying what it
    cut."""
    by_size = sorted(range(len(keys)), key=lambda i: (len(keys[i]), i))
    picks = list(dict.fromkeys([by_size[0], by_size[len(by_size) // 2], by_size[-1]]))
    out = []
    for i in picks[:EXAMPLES]:
        key = keys[i]
        parts: list[SamplePart] = []
        try:
            seen = inspect_key(codec, key, schema)
        except (LexCodecError, NotImplementedError):
            seen = None
        for view in seen.fields if seen is not None else ():
            name = view.name if view.name is not None else str(view.index)
            for p in view.parts or ():
                parts.append(SamplePart(f"{p.start}..{p.end}",
                                        _cut_hex(key, p.start, p.end, SAMPLE_PART_BYTES),
                                        p.role, cut_text(p.text), name))
            if not view.parts:
                parts.append(SamplePart(f"{view.start}..{view.end}",
                                        _cut_hex(key, view.start, view.end, SAMPLE_PART_BYTES),
                                        view.kind or "field", _short(view.value, 60), name))
        if len(parts) > SAMPLE_PARTS:
            rest = parts[SAMPLE_PARTS:]
            start = int(rest[0].span.split("..")[0])
            parts = [*parts[:SAMPLE_PARTS], SamplePart(
                f"{start}..{len(key)}", f"… ({len(key) - start:,} bytes, cut)", "cut",
                f"{len(rest):,} more parts, cut")]
        out.append(SampleKey(cut_text(repr(kept[i])),
                             _cut_hex(key, 0, len(key), SAMPLE_KEY_BYTES), parts))
    return out
