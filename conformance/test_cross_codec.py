"""Cross-codec comparative tests: several schemas, every available codec that can express each,
the departures from the natural order measured in a real sorted store (SQLite) and matched
against what each codec declares.

For every schema, :func:`lexcodecs.compare.compare` runs every available codec (plugins
included) over a few thousand generated records -- empty strings, NUL bytes, -0.0, NaN,
integer limits, NULLs, values that are prefixes of others, many ties on leading fields. For each
codec that can express the schema:

* every disagreement with the natural order, every collision and every round-trip failure is
  explained by one of the codec's declared anomalies;
* a codec declaring no order anomaly puts no pair in the wrong order, and the anomalies seen
  are ones it declares, of kind ``order``;
* a codec claiming injectivity has no collision; one claiming prefix-freeness writes no key
  that is a proper prefix of another (measured here on the same records);
* a codec declaring no ``prefix-leak`` anomaly has exact prefix scans: the range of every
  sampled prefix holds exactly the records that start with it.

The comparisons run without timing (``repeats=0``): speed is not a claim.

The departures are recorded below (:data:`DEPARTING`) and printed as a table (``pytest -s``).
"""

from __future__ import annotations

import functools
import itertools
from typing import Any, Final

import pytest

from lexcodecs import KeySchema, LexCodecError, available_codecs, get_codec
from lexcodecs.compare import CodecResult, Comparison, compare, generate_records
from lexcodecs.registry import BUILTIN_CODECS

#: the codecs compared: the built-in ones, whatever plugins are installed
BUILTINS: Final = sorted(BUILTIN_CODECS)
N: Final = 2500
SEED: Final = 11

#: schema -> the codecs expected to put pairs in the wrong order (all through declared
#: anomalies); a codec not listed must keep the natural order exactly
SCHEMAS: Final[dict[str, frozenset[str]]] = {
    # every built-in codec with an int64 can express this one (storekey: a string holding
    # U+0000 ends early)
    "name:string, n:int64": frozenset({"lexkey", "lexkey-legacy", "storekey"}),
    # the JS formats' types (ordered-binary's declared -0.0 above NaN departs, and bytewise's
    # and charwise's -0.0 equal to 0.0; storekey's strings with U+0000)
    "name:string, x:float64, ok:bool": frozenset({"lexkey", "lexkey-legacy", "ordered-binary",
                                                  "bytewise", "charwise", "storekey"}),
    # descending and NULLs in the middle (HBase's BlobVar: a value whose 7-bit groups end
    # first sorts first)
    "tenant:string, ts:int64 desc, id:bytes": frozenset({"hbase-orderedbytes"}),
    # NUL-laden bytes, a narrow int, floats with -0.0, NaN and infinities (storekey's bytes
    # sort by their length first)
    "k:bytes, x:int32, f:float64": frozenset({"lexkey", "lexkey-legacy", "hbase-orderedbytes",
                                              "storekey"}),
    # decimals, then a descending string and a descending int with NULLs last
    "amount:decimal, label:string desc, n:int64 desc nulls last": frozenset(),
    # bool and float with the codecs that have bool
    "flag:bool, score:float64, n:int32": frozenset({"lexkey", "lexkey-legacy"}),
    # NULLs against the grain: last when ascending, first when descending
    "score:float64 desc, n:int32 desc nulls first, s:string nulls last": frozenset(),
}


@functools.cache
def comparison(schema: str) -> Comparison:
    return compare(schema, n=N, seed=SEED, store="sqlite", repeats=0, codecs=BUILTINS)


def expressing(schema: str) -> list[CodecResult]:
    return [r for r in comparison(schema).results if r.expressible]


def _binds(name: str, schema: str) -> bool:
    try:
        get_codec(name).bind(schema)
    except LexCodecError:
        return False
    return True


def cases() -> list[Any]:
    """(schema, codec) for every codec that can express the schema."""
    return [pytest.param(schema, name, id=f"{name}-[{schema}]")
            for schema in SCHEMAS for name in BUILTINS if _binds(name, schema)]


def result_of(schema: str, name: str) -> CodecResult:
    (result,) = [r for r in comparison(schema).results if r.codec == name]
    assert result.expressible, f"{name} binds {schema} but compare says: {result.reason}"
    return result


@pytest.mark.parametrize("schema", SCHEMAS)
def test_every_codec_is_compared(schema: str) -> None:
    report = comparison(schema)
    assert report.records == N
    assert report.store == "sqlite"
    assert [r.codec for r in report.results] == BUILTINS
    for r in report.results:
        if not r.expressible:
            assert r.reason, f"{r.codec} cannot express {schema} but gives no reason"
    assert expressing(schema), f"no codec can express {schema}"


def test_every_codec_expresses_some_schema() -> None:
    used = {r.codec for schema in SCHEMAS for r in expressing(schema)}
    assert used == set(BUILTINS)


@pytest.mark.parametrize(("schema", "name"), cases())
def test_every_departure_is_declared(schema: str, name: str) -> None:
    r = result_of(schema, name)
    assert r.records > N // 2, f"{name} refused most records: {r.refused_example}"
    assert r.order_unexplained == 0, r.order_example
    assert r.collisions_unexplained == 0, r.collision_example
    assert r.round_trip_unexplained == 0, r.round_trip_example


@pytest.mark.parametrize(("schema", "name"), cases())
def test_departures_match_the_declared_order_anomalies(schema: str, name: str) -> None:
    r = result_of(schema, name)
    caps = get_codec(name).capabilities
    declared = {a.name for a in caps.anomalies if a.kind == "order"}
    assert set(r.order_explained) <= declared, (
        f"{name} reports anomalies {sorted(set(r.order_explained) - declared)} "
        f"it does not declare as order anomalies ({sorted(declared)})")
    if not declared:
        assert r.order_pairs_wrong == 0, r.order_example
    if r.order_pairs_wrong:
        # some adjacent pair in store order disagrees, and the example shows one
        assert sum(r.order_explained.values()) + r.order_unexplained > 0
        assert r.order_example is not None
    else:
        assert (r.order_explained, r.order_unexplained, r.order_example) == ({}, 0, None)


@pytest.mark.parametrize("schema", SCHEMAS)
def test_which_codecs_depart_where(schema: str) -> None:
    departing = {r.codec for r in expressing(schema) if r.order_pairs_wrong}
    expected = SCHEMAS[schema] & {r.codec for r in expressing(schema)}
    assert departing == expected, table()


def _prefix_pairs(keys: list[bytes]) -> list[tuple[bytes, bytes]]:
    """Keys that are a proper prefix of another: in byte order, a key's extensions follow it
    directly, so comparing neighbours finds them all."""
    ordered = sorted(set(keys))
    return [(a, b) for a, b in itertools.pairwise(ordered) if b.startswith(a)]


@functools.cache
def prefix_pairs(schema: str, name: str) -> tuple[tuple[bytes, bytes], ...]:
    bound = get_codec(name).bind(schema)
    keys = []
    for values in generate_records(schema, N, seed=SEED):
        try:
            keys.append(bound.encode(values))
        except LexCodecError:
            continue
    return tuple(_prefix_pairs(keys))


@pytest.mark.parametrize(("schema", "name"), cases())
def test_claims_match_measurements(schema: str, name: str) -> None:
    r = result_of(schema, name)
    codec = get_codec(name)
    caps = codec.capabilities
    if caps.injective:
        assert r.collisions == 0, r.collision_example
    if caps.prefix_free and getattr(codec.bind(schema), "prefix_free", True):
        found = prefix_pairs(schema, name)
        assert not found, f"{name} claims prefix-free keys, yet " + ", ".join(
            f"{a.hex(' ')} is a prefix of {b.hex(' ')}" for a, b in found[:3])
    if r.round_trip_failures is None:
        assert caps.decoding == "none" or r.records == 0
    if caps.decoding != "none" and r.records:
        assert r.round_trip_failures is not None


@pytest.mark.parametrize(("schema", "name"), cases())
def test_prefix_scans_are_exact_unless_a_leak_is_declared(schema: str, name: str) -> None:
    r = result_of(schema, name)
    assert len(r.prefix_scans) == len(KeySchema.parse(schema)) - 1
    assert all(scan.prefixes > 0 for scan in r.prefix_scans)
    leaks = [a.name for a in get_codec(name).capabilities.anomalies if a.kind == "prefix-leak"]
    if not leaks:
        bad = [scan for scan in r.prefix_scans if not scan.exact]
        assert not bad, f"{name} declares no prefix leak, yet: {bad[0]}"


def test_lexkey_collisions_are_its_declared_ones() -> None:
    """LexKey claims no injectivity, and the comparison shows why."""
    if "lexkey" not in available_codecs():
        pytest.skip("no lexkey codec")
    caps = get_codec("lexkey").capabilities
    assert not caps.injective
    seen = [r for s in SCHEMAS for r in expressing(s) if r.codec == "lexkey"]
    assert any(r.collisions for r in seen)
    assert all(r.collisions_unexplained == 0 for r in seen)


def table() -> str:
    """Which codecs depart where: one line per schema and codec."""
    lines = [f"{'schema':<66} {'codec':<14} {'refused':>7} {'wrong':>7} {'coll':>5} "
             f"{'rt':>5} {'pfree':>5}  declared anomalies seen"]
    for schema in SCHEMAS:
        for r in comparison(schema).results:
            if not r.expressible:
                lines.append(f"{schema:<66} {r.codec:<14} cannot express: {r.reason}")
                continue
            pfree = "no" if prefix_pairs(schema, r.codec) else "yes"
            seen = ", ".join(f"{k} ({v})" for k, v in sorted(r.order_explained.items()))
            lines.append(f"{schema:<66} {r.codec:<14} {r.refused:>7} {r.order_pairs_wrong:>7} "
                         f"{r.collisions:>5} {r.round_trip_failures!s:>5} {pfree:>5}  {seen}")
    return "\n".join(lines)


def test_print_the_departures() -> None:
    text = table()
    print("\n" + text)
    assert text.count("\n") == len(SCHEMAS) * len(BUILTINS)
