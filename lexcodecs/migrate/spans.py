"""The verify step split into key spans, walked by this process and by worker processes.

Theory of operation: a verification walks the old and the new store side by side
(:class:`~lexcodecs.migrate.verify._Lockstep`). Where the copy found the new keys rising
everywhere in the old order (``report.order_changes == 0``), the old keys in ``(a, b]`` are
exactly those whose new keys are in ``(T(a), T(b)]``, T the transcoding: each such pair of
ranges, a :class:`Span`, can be walked alone. The split points are old keys at which the copy
ended a batch (:class:`Splits`, saved with the migration's state, so that a resumed copy
keeps them); their new keys are made again here and must rise, else the walk is one span.
The spans cut both key spaces into consecutive pieces, so walking each span (equal entries
on both sides, each old entry under its new key, the natural order inside it) and checking
the natural order where one span meets the next (:func:`join_spans`: the last values of one
against the first of the next) checks what the one walk checks, entry for entry. Were a
split point's new key wrong, a span's two sides would hold different numbers of entries, or
pairs the per-key rules look up byte for byte: splitting never lets through what the one
walk would stop.

This process walks the spans from the first; worker processes (:mod:`.workers`, through
:class:`_Crew`) take them from the last, one at a time, each opening both stores read-only
itself (the store's *opener*). A refusal in a worker comes back as itself; a worker that
cannot take part hands its span back; anything this process raises (Ctrl-C included) stops
the workers, and kills the busy ones.

An LMDB or RocksDB copy that starts afresh also hands each committed batch's span to a worker
while it goes on (:class:`EarlySpans`): the verification then finds most of its walk done, the
second processor having worked while the first copied. Such spans are final only if the new
keys keep rising to the end of the copy, so their results count only then; else the
verification walks the whole store as above.
"""

from __future__ import annotations

import os
from bisect import bisect_right
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from itertools import islice, pairwise, repeat
from multiprocessing.connection import wait
from operator import itemgetter
from typing import Any, Final, Protocol

import attrs

from ..errors import LexCodecError
from .report import MigrationReport
from .transcoder import MigrationError, Transcoder
from .verify import _Lockstep, _NaturalOrder
from .workers import Worker, start

__all__: list[str] = []

#: the most split points a migration keeps: past it, every other one is dropped and the copy
#: records every other batch from then on (the spans stay about even, the state small)
MAX_SPLITS: Final = 256
#: spans per process walking them: enough that a process which started late or ran slow
#: leaves little for the others to wait for, few enough that each span is long
SPANS_PER_PROCESS: Final = 4
#: from this many keys a verification starts worker processes by default: starting one takes
#: a few tenths of a second (it imports the codecs and the store's binding)
WORKERS_FROM: Final = 200_000

#: one chunk of a store side: its keys and, in step, the rest of each entry
Chunk = tuple[list[bytes], list[Any]]


@attrs.define
class Splits:
    """Old keys at which the verification may split: the last key of every *stride*-th
    batch the copy committed, at most :data:`MAX_SPLITS` of them."""

    keys: list[bytes] = attrs.field(factory=list)
    stride: int = 1
    batches: int = 0

    def add(self, last_key: bytes) -> None:
        """The copy committed a batch ending at *last_key*."""
        self.batches += 1
        if self.batches % self.stride == 0:
            self.keys.append(last_key)
            if len(self.keys) > MAX_SPLITS:
                del self.keys[::2]  # keeps the batches that are multiples of the new stride
                self.stride *= 2

    def to_dict(self) -> dict[str, Any]:
        return {"keys": [k.hex() for k in self.keys], "stride": self.stride,
                "batches": self.batches}

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> Splits:
        """Saved splits (none from a state written before splits were saved)."""
        if not d:
            return cls()
        return cls([bytes.fromhex(k) for k in d["keys"]], int(d["stride"]), int(d["batches"]))


@attrs.frozen
class Span:
    """Old keys in ``old`` and new keys in ``new``, each ``(after, up to)`` (None: no bound),
    of the part *part* of a store (a RocksDB column family; ``""`` elsewhere)."""

    index: int
    part: str
    old: tuple[bytes | None, bytes | None]
    new: tuple[bytes | None, bytes | None]


@attrs.frozen
class SpanResult:
    """What a span's walk found (with the span's index and part): its entries, the target's
    values of its first and last new keys (None when it has none), and the declared
    anomalies it counted."""

    index: int
    part: str
    entries: int
    first: tuple[Any, ...] | None
    last: tuple[Any, ...] | None
    anomalies: dict[str, int]


class SpanStore(Protocol):
    """Both stores of a migration as the span walk reads them."""

    def chunks(self, side: str, part: str, after: bytes | None, upto: bytes | None,
               n: int) -> Iterator[Chunk]:
        """The entries of *side* (``"old"`` or ``"new"``) with keys in ``(after, upto]``, in
        key order, *n* at a time (every chunk but the last has *n*)."""
        ...

    def lookup(self, part: str, new_key: bytes) -> Any:
        """The new store's rest of the entry under *new_key*, or something equal to none."""
        ...

    def label(self, part: str) -> str:
        """The new store, as messages name it."""
        ...

    def close(self) -> None:
        ...


#: opens a :class:`SpanStore` in a worker process (picklable: a module-level function, or a
#: ``functools.partial`` of one with plain arguments)
Opener = Callable[[], SpanStore]


def chunks_upto(keys: Iterator[bytes], values: Iterator[Any], upto: bytes | None,
                n: int) -> Iterator[Chunk]:
    """Chunks of two iterators in step (keys ascending), ending after *upto*: a chunk that
    passes it is cut where it does (a bisection of the sorted chunk, in C)."""
    while keys_read := list(islice(keys, n)):
        if upto is not None and keys_read[-1] > upto:
            keys_read = keys_read[:bisect_right(keys_read, upto)]
            if keys_read:
                yield keys_read, list(islice(values, len(keys_read)))
            return
        yield keys_read, list(islice(values, len(keys_read)))


def pair_chunks_upto(pairs: Iterator[tuple[bytes, Any]], upto: bytes | None,
                     n: int | Iterator[int]) -> Iterator[Chunk]:
    """:func:`chunks_upto` of one iterator of (key, value) pairs, taken apart a chunk at a
    time (in C); *n*: the size of every chunk, or of each in turn."""
    sizes = repeat(n) if isinstance(n, int) else n
    while read := list(islice(pairs, next(sizes))):
        keys = list(map(itemgetter(0), read))
        if upto is not None and keys[-1] > upto:
            keys = keys[:bisect_right(keys, upto)]
            if keys:
                yield keys, list(map(itemgetter(1), islice(read, len(keys))))
            return
        yield keys, list(map(itemgetter(1), read))


def check_workers(workers: int | None) -> None:
    """Refuse a *workers* argument that is not a count (before a migration starts)."""
    if workers is not None and (type(workers) is not int or workers < 0):
        raise MigrationError(f"workers {workers!r}: the number of worker processes of the "
                             "verification", expected="an int >= 0")


def workers_for(workers: int | None, keys: int) -> int:
    """The worker processes a verification of *keys* keys starts: *workers* when given, else
    one per processor this process may run on, but one, from :data:`WORKERS_FROM` keys."""
    check_workers(workers)
    if workers is not None:
        return workers
    if keys < WORKERS_FROM:
        return 0
    try:
        processors = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        processors = os.cpu_count() or 1
    return max(0, processors - 1)


def plan_spans(t: Transcoder, report: MigrationReport, splits: Sequence[bytes], part: str,
               processes: int, first_index: int = 0) -> list[Span]:
    """The spans of one part of a store for *processes* walkers: one span unless the copy saw
    the new keys rise everywhere and the split points' new keys rise (see the module)."""
    whole = [Span(first_index, part, (None, None), (None, None))]
    if processes < 2 or report.order_changes or not splits:
        return whole
    want = min(len(splits), SPANS_PER_PROCESS * processes - 1)  # split points to use
    points = sorted({splits[(i + 1) * len(splits) // want - 1] for i in range(want)})
    try:
        news = [t._target.encode(t.values(key)) for key in points]
    except LexCodecError:  # the walk refuses that key, naming it
        return whole
    if any(b <= a for a, b in pairwise(news)):
        return whole
    olds: list[bytes | None] = [None, *points, None]
    bounds: list[bytes | None] = [None, *news, None]
    return [Span(first_index + i, part, (olds[i], olds[i + 1]), (bounds[i], bounds[i + 1]))
            for i in range(len(olds) - 1)]


def walk_span(store: SpanStore, t: Transcoder, span: Span, chunk: int,
              step: Callable[[int], None] | None = None) -> SpanResult:
    """Walk one span of both stores side by side; *step* is told the keys verified (an old
    entry and its new one each) after every chunk."""
    report = MigrationReport(t.source.name, t.target.name, str(t.schema), "span")
    label = store.label(span.part)
    walk = _Lockstep(t, report, lambda key: store.lookup(span.part, key), label)
    old = store.chunks("old", span.part, *span.old, chunk)
    new = store.chunks("new", span.part, *span.new, chunk)
    entries = 0
    for keys, values in old:
        new_keys, new_values = next(new, ([], []))
        walk.see_batch(keys, values, new_keys, new_values)
        entries += len(keys)
        if step is not None:
            step(len(keys))
    if next(new, None) is not None:
        raise MigrationError(f"the {label} holds more entries than the old one: a store was "
                             "changed during the migration; the original is untouched "
                             "(run again with --restart)")
    return SpanResult(span.index, span.part, entries, walk.first, walk.order.last,
                      dict(report.anomalies))


def join_spans(t: Transcoder, report: MigrationReport, results: Sequence[SpanResult]) -> int:
    """Add up the spans of one part, in their order: the natural order where one meets the
    next, and the anomalies each counted; returns their entries."""
    order = _NaturalOrder(t, report)
    for r in results:
        for name, count in r.anomalies.items():
            report.anomalies[name] = report.anomalies.get(name, 0) + count
        if r.first is None or r.last is None:
            continue
        if order.last is not None:
            order.see_values(r.first)
        order.jump(r.last)
    return sum(r.entries for r in results)


def run_spans(store: SpanStore, opener: Opener, t: Transcoder, spans: Sequence[Span],
              chunk: int, workers: int, progress: Callable[[int], None] | None = None
              ) -> list[SpanResult]:
    """Walk every span: this process from the first, up to *workers* worker processes from
    the last; the results in the spans' order. *progress* is told the keys verified so far
    (an old entry and its new one each: the verifying phase's total is the old store's
    entries), after each chunk this process walks and each span a worker hands back."""
    if workers < 1 or len(spans) < 2:
        return _walk_all(None, store, t, spans, deque(spans), {}, chunk, progress)
    crew = _Crew(min(workers, len(spans) - 1), opener, t, chunk)
    try:
        return _walk_all(crew, store, t, spans, deque(spans), {}, chunk, progress)
    finally:
        crew.close()


def _walk_all(crew: _Crew | None, store: SpanStore, t: Transcoder, spans: Sequence[Span],
              todo: deque[Span], results: dict[int, SpanResult], chunk: int,
              progress: Callable[[int], None] | None) -> list[SpanResult]:
    """Walk the spans *todo* from its left while *crew* takes them from its right; *results*
    holds those walked already."""
    done = 0

    def count(steps: int) -> None:
        nonlocal done
        done += steps
        if progress is not None:
            progress(done)

    def between(steps: int) -> None:  # after each chunk walked here
        count(steps)
        if crew is not None:
            crew.collect(todo, results, count, block=False)

    count(sum(r.entries for r in results.values()))
    if crew is not None:
        crew.feed(todo)
    while todo or (crew is not None and crew.busy()):
        if todo:
            span = todo.popleft()
            results[span.index] = walk_span(store, t, span, chunk, between)
        elif crew is not None:  # a worker may still hand its span back
            crew.collect(todo, results, count, block=True)
    return [results[s.index] for s in spans]


class EarlySpans:
    """The spans of the batches copied so far, walked by a worker process while the copy
    goes on: the verification's walk is then mostly done when the copy ends.

    After each committed batch the copy hands over its spans (one, or RocksDB's several,
    ended at marks within the batch): the old keys of each and the new keys from the last
    span's end to its own. Such a span holds its final
    entries once the batch is committed only if the new keys rise in the old order to the
    end of the copy, so what the worker finds is used only then (:meth:`finish`): a
    refusal it met is raised there; with any order change, the verification walks the whole
    store as usual (and the worker's findings are dropped).
    """

    def __init__(self, opener: Opener, t: Transcoder, chunk: int, part: str = "") -> None:
        self.t, self.chunk = t, chunk
        self.crew = _Crew(1, opener, t, chunk)
        self.todo: deque[Span] = deque()  # new spans at the left: the worker takes the oldest
        self.results: dict[int, SpanResult] = {}
        self.errors: list[LexCodecError] = []
        self.spans: list[Span] = []
        self.part = part  # the part being copied, and its last batch's old and new key
        self.after: tuple[bytes | None, bytes | None] = (None, None)

    def copied(self, last_key: bytes, last_new: bytes) -> None:
        """The copy committed a batch ending at *last_key*, whose new key is *last_new*."""
        self._add(Span(len(self.spans), self.part, (self.after[0], last_key),
                       (self.after[1], last_new)))
        self.after = (last_key, last_new)
        self.poll()

    def poll(self) -> None:
        """Take the worker's result if it has one and give it the next span: the copy calls
        this often (a worker waiting for the next commit to be handed a span sat idle most
        of a RocksDB copy)."""
        self.crew.collect(self.todo, self.results, None, block=False, errors=self.errors)

    def start(self, part: str) -> None:
        """The copy goes on to the next part of the store, *part*."""
        self._end_part()
        self.part, self.after = part, (None, None)

    def _add(self, span: Span) -> None:
        self.spans.append(span)
        self.todo.appendleft(span)

    def _end_part(self) -> None:
        """The span after the last batch of the part being copied (the whole part when it
        had none): empty unless a store changed, which its walk then finds."""
        self._add(Span(len(self.spans), self.part, (self.after[0], None), (self.after[1], None)))

    def finish(self, store: SpanStore, report: MigrationReport,
               progress: Callable[[int], None] | None) -> list[SpanResult] | None:
        """Every span's result, the rest walked here (the last span: after the last batch),
        or None when the copy saw the old order change (walk the whole store instead: the
        workers of the early spans are stopped first, not left to hold the store open)."""
        if report.order_changes:
            self.close()
            return None
        if self.errors:
            raise self.errors[0]
        self._end_part()
        return _walk_all(self.crew, store, self.t, self.spans, self.todo, self.results,
                         self.chunk, progress)

    def close(self) -> None:
        self.crew.close()


# -- the worker processes -------------------------------------------------------------------


@attrs.define
class _Member:
    worker: Worker
    span: Span | None = None


class _Crew:
    """Worker processes (:class:`~lexcodecs.migrate.workers.Worker`) walking spans, one span
    at a time each. One that cannot take part (it cannot rebuild the transcoder, e.g. a codec
    registered at run time; or it stopped) hands its span back, and the others, this process
    among them, walk it."""

    def __init__(self, n: int, opener: Opener, t: Transcoder, chunk: int) -> None:
        self.members = [_Member(w) for w in start(n, t, opener, chunk)]

    def busy(self) -> bool:
        return any(m.span is not None for m in self.members)

    def feed(self, todo: deque[Span]) -> None:
        """Give each idle worker the last span left."""
        for m in self.members:
            if m.span is None and todo:
                m.span = todo.pop()
                m.worker.ask(("span", m.span))

    def collect(self, todo: deque[Span], results: dict[int, SpanResult],
                step: Callable[[int], None] | None, *, block: bool,
                errors: list[LexCodecError] | None = None) -> None:
        """Take the results of the workers that finished (waiting for one with *block*),
        and give them the next spans. A refusal is raised, or kept in *errors*."""
        busy: dict[Any, _Member] = {m.worker.conn: m for m in self.members
                                    if m.span is not None}
        for conn in wait(list(busy), timeout=None if block else 0):
            m = busy[conn]
            kind, payload = m.worker.answer()
            if kind == "error":
                if errors is None:
                    raise payload
                errors.append(payload)
                m.span = None
                continue
            if kind != "ok" or not isinstance(payload, SpanResult):
                assert m.span is not None
                todo.append(m.span)
                self.members.remove(m)
                m.worker.stop()
                continue
            results[payload.index] = payload
            m.span = None
            if step is not None:
                step(payload.entries)
        self.feed(todo)

    def close(self) -> None:
        """Stop every worker (killed, when busy: after a failure)."""
        for m in self.members:
            m.worker.stop()
        self.members = []
