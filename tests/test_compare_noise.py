"""The verdict of ``lexcodecs compare`` is the same on every run of the same input, on a busy
machine too (issue 32: six identical runs recommended sqlite4 four times and orderly twice,
as orderly's measured encode time moved between 440 and 877 ns across the speed tie).

No test here reads a real clock. The timer of :mod:`lexcodecs.compare.measure` is replaced by
a simulated busy machine (:class:`BusyClock`): the toy codecs charge it a fixed cost per key,
and each timed interval takes that work times a load factor of 1 to 2, drawn from a seeded
generator. Many seeds are many runs on a machine whose load comes and goes; the verdict must
not change with the seed. Speed may still decide, when the difference is beyond the noise.
"""

from __future__ import annotations

import random
import types
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from toys import ToyCodec

import lexcodecs.compare.measure as measure_module
from lexcodecs.compare import CodecResult, Comparison, KeySize, Timing, compare, generate_records
from lexcodecs.compare.verdict import SPEED_MARGIN, Candidate, decide, speed_groups

SCHEMA = "x:int64, s:string"
RECORDS = generate_records(SCHEMA, 40, seed=1)
#: runs of the same comparison, each on a machine loaded differently
RUNS = 40


class BusyClock:
    """A nanosecond clock on a busy machine: the work charged between two reads takes from
    one to two times its cost, a factor drawn per interval from a seeded generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.now = 0
        self.work = 0.0

    def charge(self, ns: float) -> None:
        self.work += ns

    def __call__(self) -> int:
        self.now += round(self.work * self.rng.uniform(1.0, 2.0))
        self.work = 0.0
        return self.now


class Charged:
    """A bound toy codec whose every encode and decode costs *ns* on *clock*."""

    def __init__(self, bound: Any, clock: BusyClock, ns: float) -> None:
        self.bound, self.clock, self.ns = bound, clock, ns

    def encode(self, values: Any) -> bytes:
        self.clock.charge(self.ns)
        key: bytes = self.bound.encode(values)
        return key

    def decode(self, key: bytes) -> Any:
        self.clock.charge(self.ns)
        return self.bound.decode(key)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.bound, name)


def costly(name: str, ns: float, clock: BusyClock, *, self_describing: bool = False
           ) -> ToyCodec:
    """The toy codec under another *name*, costing *ns* per key each way: toys with the same
    keys, so that every criterion but speed (and self-describing) ties."""
    caps = ToyCodec.CAPABILITIES
    if self_describing:
        caps = attrs.evolve(caps, decoding="self-describing")

    class Costly(ToyCodec):
        CAPABILITIES = caps

        def bind(self, schema: Any) -> Any:
            return Charged(super().bind(schema), clock, ns)

    Costly.name = name
    return Costly()


def simulate(monkeypatch: pytest.MonkeyPatch, clock: BusyClock) -> None:
    """Time on *clock*, a loop being one pass over the records (each toy key costs the same
    simulated time however often it is encoded, so longer loops would only take longer)."""
    monkeypatch.setattr(measure_module, "time", types.SimpleNamespace(perf_counter_ns=clock))
    monkeypatch.setattr(measure_module, "LOOP_NS", 0, raising=False)


def run(seed: int, a_ns: float, b_ns: float, monkeypatch: pytest.MonkeyPatch) -> Comparison:
    """One comparison of ``toy-a`` (keys decode with the schema only) and ``toy-b``
    (self-describing) on a busy machine loaded as *seed* says."""
    clock = BusyClock(seed)
    simulate(monkeypatch, clock)
    codecs = [costly("toy-a", a_ns, clock), costly("toy-b", b_ns, clock, self_describing=True)]
    return compare(SCHEMA, RECORDS, codecs=codecs, store="memory", repeats=5)


def test_close_speeds_are_a_tie_on_every_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """toy-a is 10% faster, well within the 2x noise: speed ties on every run, the next
    criterion decides (toy-b's keys decode without the schema), and the verdict says so."""
    verdicts = {seed: run(seed, 100, 110, monkeypatch).verdict for seed in range(RUNS)}
    assert {v.recommended for v in verdicts.values()} == {"toy-b"}
    for v in verdicts.values():
        assert v.speed_tie == ("toy-a",)
        assert "Speed was a tie with toy-a, within the timing noise; the next criterion, " \
            "self-describing, decided." in v.headline
        assert any(line.startswith("speed was a tie with toy-a (their timed loops are not "
                                   f"{SPEED_MARGIN}x apart: toy-b ") for line in v.why)
        (runner,) = v.runners_up
        assert (runner.codec, runner.decided_by) == ("toy-a", "self-describing")


def test_a_clear_speed_difference_still_decides_on_every_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """toy-a is 3.5x faster: beyond 2x noise and the margin, on every run, so speed decides
    before self-describing does."""
    verdicts = [run(seed, 100, 350, monkeypatch).verdict for seed in range(RUNS)]
    assert {v.recommended for v in verdicts} == {"toy-a"}
    for v in verdicts:
        assert v.speed_tie == ()
        (runner,) = v.runners_up
        assert (runner.codec, runner.decided_by) == ("toy-b", "speed")
        assert runner.versus.startswith("clearly slower: ")


def test_the_codecs_loops_alternate_and_each_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every codec gets its five loops each way, each kept; the codecs' loops alternate, the
    other codec first every other round, so that a load that comes and goes hits both alike."""
    loops: list[str] = []

    class Watching(BusyClock):
        """Notes which codec each timed loop (a run of one codec's keys) was."""

        def __init__(self) -> None:
            super().__init__(0)
            self.since: list[str] = []

        def charge(self, ns: float) -> None:
            self.since.append("a" if ns == 100 else "b")
            super().charge(ns)

        def __call__(self) -> int:
            if len(self.since) == len(RECORDS) and len(set(self.since)) == 1:
                loops.append(self.since[0])
            self.since = []
            return super().__call__()

    watch = Watching()
    simulate(monkeypatch, watch)
    report = compare(SCHEMA, RECORDS, codecs=[costly("toy-a", 100, watch),
                                              costly("toy-b", 110, watch)],
                     store="memory", repeats=5)
    for r in report.results:
        for timing in (r.encode_ns, r.decode_ns):
            assert timing is not None
            assert len(timing.loops) == 5
            assert timing.batch == min(timing.loops)
            assert timing.slowest == max(timing.loops)
    # a first pass of each codec each way (which says how long a loop should be), then each
    # round: one codec's encode and decode loops, then the other's
    assert "".join(loops) == "aabb" + "aabb" "bbaa" "aabb" "bbaa" "aabb"


# -- the rule, on results ---------------------------------------------------------------------


def result(name: str, encode: tuple[float, ...], *, self_describing: bool = False
           ) -> CodecResult:
    """A sound measured codec with keys of 10 bytes, timed in *encode* (ns per key per loop);
    decode not timed."""
    return CodecResult(name, True, records=10, key_size=KeySize.of([10] * 10),
                       round_trip_failures=0, self_describing=self_describing,
                       encode_ns=Timing(min(encode), 0.0, 0.0, encode))


def test_speed_decides_only_beyond_the_spread_and_the_margin() -> None:
    fast = result("fast", (100, 110, 130))
    near = result("near", (180, 190, 200), self_describing=True)  # 130 * 1.5 > 180: a tie
    far = result("far", (195, 300, 400), self_describing=True)  # 130 * 1.5 <= 195: clear
    assert decide([fast, near], 10).recommended == "near"
    assert decide([fast, far], 10).recommended == "fast"
    # a chain of ties is one tie: near ties with fast and with far, so all three tie
    groups = speed_groups([Candidate(r) for r in (fast, near, far)])
    assert [[c.codec for c in g] for g in groups] == [["fast", "near", "far"]]
    # too few loops to show a spread: speed cannot rank at all, however far apart
    once = result("once", (1000, 1000), self_describing=True)
    verdict = decide([fast, once], 10)
    assert verdict.recommended == "once"
    assert verdict.speed_tie == ("fast",)
    assert "fewer than 3 timed loops: too few to tell" in " ".join(verdict.why)


@given(st.lists(st.tuples(st.sampled_from([100, 120, 160, 250, 400, 900]),
                          st.lists(st.floats(1.0, 2.0), min_size=3, max_size=6)),
                min_size=2, max_size=6))
def test_each_speed_group_is_clearly_apart_from_the_next(
        codecs: list[tuple[int, list[float]]]) -> None:
    """Whatever the loops, a codec in a later speed group is clearly slower than every codec
    in an earlier one: its fastest loop at least the margin times their slowest. So speed
    never separates two codecs closer than that, in either order."""
    results = [result(f"c{i}", tuple(base * f for f in factors))
               for i, (base, factors) in enumerate(codecs)]
    groups = speed_groups([Candidate(r) for r in results])
    assert sorted(c.codec for g in groups for c in g) == sorted(r.codec for r in results)
    for g, group in enumerate(groups):
        for later in groups[g + 1:]:
            for a in group:
                for b in later:
                    ta, tb = a.result.encode_ns, b.result.encode_ns
                    assert ta is not None
                    assert tb is not None
                    assert ta.slowest * SPEED_MARGIN <= tb.batch
