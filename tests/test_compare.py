"""Unit tests of lexcodecs.compare: generated records, stores, the inversion count, and what a
comparison reports for codecs that cannot express a schema, refuse values, or are broken.

The broken codecs are the toys of tests/toys.py, passed to compare() as instances; their
expected counts are worked out by hand from the toy format.
"""

from __future__ import annotations

import datetime as dt
import decimal
import itertools
import json
import math
import uuid
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st
from toys import CollidingBroken, LossyBroken, NegativesFirstBroken, ToyCodec

from lexcodecs import (
    Anomaly,
    Capabilities,
    Float32,
    FloatPolicy,
    KeySchema,
    LexCodecError,
    available_codecs,
    get_codec,
)
from lexcodecs.compare import (
    DEFAULT_SCHEMA,
    STORES,
    CodecResult,
    Comparison,
    compare,
    generate_records,
    records_from_json,
)
from lexcodecs.compare.report import COLUMNS
from lexcodecs.compare.stores import inversions as _inversions
from lexcodecs.compare.stores import order_lmdb as _order_lmdb
from lexcodecs.compare.stores import order_memory as _order_memory
from lexcodecs.compare.stores import order_sqlite as _order_sqlite
from lexcodecs.registry import BUILTIN_CODECS

AWKWARD = "s:string, b:bytes, f:float64, i:int64, j:int32, u:uint64, d:decimal"


def _same(a: Any, b: Any) -> bool:
    """Equality that sees NaN and -0.0 (repr shows both)."""
    return repr(a) == repr(b)


def _expressible(name: str, schema: str) -> bool:
    try:
        get_codec(name).bind(schema)
    except LexCodecError:
        return False
    return True


# -- generate_records ------------------------------------------------------------------------


def test_generate_records_is_deterministic_per_seed() -> None:
    one = generate_records(AWKWARD, 300, seed=7)
    assert _same(one, generate_records(AWKWARD, 300, seed=7))
    assert not _same(one, generate_records(AWKWARD, 300, seed=8))
    assert _same(generate_records(AWKWARD, 300), generate_records(AWKWARD, 300, seed=0))
    assert len(one) == 300
    assert all(isinstance(r, tuple) and len(r) == 7 for r in one)


def test_generate_records_accepts_schema_objects_and_text() -> None:
    assert _same(generate_records(KeySchema.parse("a:string, n:int64"), 50, seed=3),
                 generate_records("a:string, n:int64", 50, seed=3))
    assert generate_records("a:string", 0) == []


def test_generate_records_has_the_awkward_values() -> None:
    records = generate_records(AWKWARD, 3000, seed=0)
    s, b, f, i, j, u, d = (list(column) for column in zip(*records))
    for column in (s, b, f, i, j, u, d):
        assert None in column  # NULLs in every field
    strings = [v for v in s if v is not None]
    assert "" in strings
    assert any("\x00" in v for v in strings)
    assert any(x != y and x and y.startswith(x) for x, y in itertools.product(
        set(strings), repeat=2)), "no string is a prefix of another"
    blobs = [v for v in b if v is not None]
    assert b"" in blobs
    assert any(b"\x00" in v for v in blobs)
    floats = [v for v in f if v is not None]
    assert any(v == 0.0 and math.copysign(1.0, v) < 0 for v in floats), "no -0.0"
    assert any(math.isnan(v) for v in floats)
    assert math.inf in floats
    assert -math.inf in floats
    assert -(2**63) in i
    assert 2**63 - 1 in i
    assert -(2**31) in j
    assert 2**31 - 1 in j
    assert 0 in u
    assert 2**64 - 1 in u
    # the values have the field's type and range
    assert all(type(v) is str for v in strings)
    assert all(type(v) is bytes for v in blobs)
    assert all(type(v) is float for v in floats)
    assert all(-(2**63) <= v < 2**63 for v in i if v is not None)
    assert all(-(2**31) <= v < 2**31 for v in j if v is not None)
    assert all(0 <= v < 2**64 for v in u if v is not None)
    assert all(isinstance(v, decimal.Decimal) for v in d if v is not None)
    # small pools: many records share their first field, so later fields get compared
    assert len(set(map(repr, s))) < len(s) // 4


@pytest.mark.parametrize(("field_type", "kind"), [
    ("bool", bool), ("uuid", uuid.UUID), ("timestamp", dt.datetime),
    ("duration", dt.timedelta), ("float32", Float32), ("int", int),
])
def test_generate_records_other_types(field_type: str, kind: type) -> None:
    values = [r[0] for r in generate_records(f"x:{field_type}", 200, seed=1)]
    assert all(v is None or type(v) is kind for v in values)
    assert sum(v is not None for v in values) > 100


def test_generate_records_null_share() -> None:
    assert all(None not in r for r in generate_records("a:string, b:int64", 200,
                                                        null_share=0.0))
    assert all(r == (None, None) for r in generate_records("a:string, b:int64", 50,
                                                            null_share=1.0))


def test_generate_records_refuses_a_type_it_cannot_make() -> None:
    with pytest.raises(ValueError, match="no record generator for field type 'tuple'"):
        generate_records("t:tuple", 5)


# -- records_from_json -----------------------------------------------------------------------


def test_records_from_json_plain_and_typed_values() -> None:
    schema = ("s:string, b:bytes, f:float64, g:float32, d:decimal, u:uuid, t:timestamp, "
              "w:duration, n:int64, ok:bool")
    lines = [
        '["a", {"bytes": "00ff"}, {"float": "nan"}, 1.5, {"decimal": "1.50"}, '
        '{"uuid": "12345678-1234-5678-1234-567812345678"}, '
        '{"timestamp": "2024-01-01T00:00:00+00:00"}, {"duration_us": 5}, -7, true]',
        "",
        '[null, {"bytes": ""}, {"float": "-0.0"}, 2, 3, null, null, null, 9223372036854775807,'
        " false]",
        '["", null, 5, null, 0.25, null, null, null, null, null]\n',
    ]
    first, second, third = records_from_json(lines, schema)
    assert first[0] == "a"
    assert first[1] == b"\x00\xff"
    assert math.isnan(first[2])
    assert first[3] == Float32(1.5)
    assert type(first[3]) is Float32
    assert str(first[4]) == "1.50"
    assert first[5] == uuid.UUID("12345678-1234-5678-1234-567812345678")
    assert first[6] == dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    assert first[7] == dt.timedelta(microseconds=5)
    assert first[8:] == (-7, True)
    assert second[0] is None
    assert second[1] == b""
    assert _same(second[2], -0.0)
    assert second[3] == Float32(2.0)
    assert second[4] == decimal.Decimal(3)
    assert type(second[4]) is decimal.Decimal
    assert second[8] == 2**63 - 1
    assert second[9] is False
    # a number follows its field: 5 in a float64 field is 5.0
    assert _same(third[2], 5.0)
    assert third[4] == decimal.Decimal("0.25")
    assert third[3] is None


@pytest.mark.parametrize(("lines", "where", "why"), [
    (['["a", 1]', '["b"]'], 2, "expected a JSON array of 2 values"),
    (['["a", 1, 2]'], 1, "expected a JSON array of 2 values"),
    (['["a", 1]', "", '{"s": "a", "n": 1}'], 3, "expected a JSON array of 2 values"),
    (['"a"'], 1, "expected a JSON array of 2 values"),
    (['["a", 1]', "not json"], 2, "Expecting value"),
    (['["a", {"bytes": "zz"}]'], 1, "non-hexadecimal"),
    (['["a", {"bytes": 5}]'], 1, ""),
    (['["a", {"blob": "00"}]'], 1, "a typed value is one of"),
    (['["a", {"bytes": "00", "float": "1"}]'], 1, "a typed value is one of"),
    (['["a", {"decimal": "abc"}]'], 1, ""),
    (['["a", {"float": "abc"}]'], 1, "could not convert string to float"),
    (['["a", {"duration_us": "x"}]'], 1, "a whole number of microseconds"),
    (['["a", {"timestamp": 5}]'], 1, ""),
])
def test_records_from_json_errors_name_the_line(lines: list[str], where: int, why: str) -> None:
    with pytest.raises(LexCodecError) as info:
        records_from_json(lines, "s:string, n:int64")
    text = str(info.value)
    assert f"records line {where}: " in text
    assert why in text


def test_records_from_json_skips_blank_lines() -> None:
    assert records_from_json(["", '["a", 1]', "  \n", '["b", null]'], "s:string, n:int64") == [
        ("a", 1), ("b", None)]


# -- stores and the inversion count ----------------------------------------------------------


def _inversions_brute(ranks: list[int]) -> int:
    return sum(ranks[i] > ranks[j] for i in range(len(ranks)) for j in range(i + 1, len(ranks)))


@given(st.lists(st.integers(min_value=0, max_value=30), max_size=80))
def test_inversions_matches_brute_force(ranks: list[int]) -> None:
    assert _inversions(list(ranks)) == _inversions_brute(ranks)


@pytest.mark.parametrize(("ranks", "expected"), [
    ([], 0), ([5], 0), ([1, 1, 1], 0), ([0, 1, 2, 3], 0), ([3, 2, 1, 0], 6),
    ([2, 3, 4, 0, 1], 6), ([1, 0, 0], 2),
])
def test_inversions_examples(ranks: list[int], expected: int) -> None:
    assert _inversions(ranks) == expected


STORE_SCHEMA = "tenant:string, ts:int64, id:bytes"


@pytest.mark.parametrize("name", sorted(BUILTIN_CODECS))
def test_the_three_stores_give_the_same_order(name: str) -> None:
    if not _expressible(name, STORE_SCHEMA):
        pytest.skip(f"{name} cannot express {STORE_SCHEMA}")
    bound = get_codec(name).bind(STORE_SCHEMA)
    keys = []
    for values in generate_records(STORE_SCHEMA, 400, seed=5):
        try:
            key = bound.encode(values)
        except LexCodecError:
            continue
        if key:  # LMDB holds keys of at least one byte
            keys.append(key)
    assert len(keys) > 200
    by_sqlite = _order_sqlite(keys)
    assert by_sqlite == _order_lmdb(keys) == _order_memory(keys)
    # equal keys keep the records' order; otherwise the order is the bytes' order
    assert by_sqlite == sorted(range(len(keys)), key=lambda i: (keys[i], i))


def test_the_three_stores_give_the_same_report() -> None:
    # the default schema: no built-in codec writes an empty key for it
    fields = ("codec", "expressible", "records", "refused", "collisions", "order_pairs_wrong",
              "order_explained", "order_unexplained", "order_example")
    reports = {store: compare(DEFAULT_SCHEMA, n=300, store=store, seed=2) for store in STORES}
    assert {r.store for r in reports.values()} == set(STORES)
    seen = {store: [tuple(getattr(r, f) for f in fields) for r in report.results]
            for store, report in reports.items()}
    assert seen["sqlite"] == seen["lmdb"] == seen["memory"]
    assert [r.codec for r in reports["sqlite"].results] == list(available_codecs())


def test_compare_with_lmdb_handles_or_names_a_codec_writing_an_empty_key() -> None:
    """BUG: orderly writes an empty key for an all-NULL record; compare(store="lmdb") then
    aborts the whole comparison with "LMDB holds keys of 1..511 bytes; this codec wrote one of
    0" -- a message that does not say which codec (README: every refusal names the codec).
    The comparison should go on (counting the record as refused for that codec), or at least
    the error should name orderly. Same from the command line:
    ``lexcodecs compare -s 'name:string, n:int64' --store lmdb`` exits 2 with that message."""
    records = [("a", 1), (None, None), ("b", 2)]
    assert get_codec("orderly").encode((None, None), "name:string, n:int64") == b""
    error = None
    try:
        report = compare("name:string, n:int64", records, codecs=["orderly", "skv"],
                         store="lmdb")
    except LexCodecError as exc:
        error = str(exc)
    if error is not None:
        assert "orderly" in error, f"the error does not name the codec: {error}"
    else:
        assert [r.codec for r in report.results] == ["orderly", "skv"]
        assert report.results[1].records == 3


def test_unknown_store_is_refused() -> None:
    with pytest.raises(LexCodecError, match="unknown store 'nope'"):
        compare("a:string", [("x",)], codecs=["skv"], store="nope")


# -- what a comparison reports ---------------------------------------------------------------


def test_a_codec_that_cannot_express_the_schema_says_why() -> None:
    report = compare("a:string desc, b:decimal", [("x", decimal.Decimal(1))],
                     codecs=["fdb-tuple", "sqlite4"], store="memory")
    fdb, sqlite4 = report.results
    assert not fdb.expressible
    assert fdb.reason
    assert "descending" in fdb.reason
    assert (fdb.records, fdb.refused, fdb.order_pairs_wrong, fdb.round_trip_failures) == (
        0, 0, 0, None)
    assert not fdb.agrees
    assert sqlite4.expressible
    assert sqlite4.reason is None
    assert sqlite4.agrees
    # every blocker, by field, each on its own line with its workaround below it
    assert fdb.reason == ("field 0 'a': descending fields are not supported; "
                          "field 1 'b': type 'decimal' is not supported")
    lines = report.table().splitlines()
    assert "fdb-tuple: cannot express the schema: field 0 'a': descending fields are not " \
        "supported" in lines
    assert "fdb-tuple: cannot express the schema: field 1 'b': type 'decimal' is not " \
        "supported" in lines


def test_refused_values_are_counted_with_an_example() -> None:
    records = [("a", 1.0), ("b", math.nan), ("c", 2.0), ("d", -math.nan)]
    (skv,) = compare("s:string, f:float64", records, codecs=["skv"], store="memory").results
    assert (skv.refused, skv.records) == (2, 2)
    assert skv.refused_example is not None
    assert skv.refused_example.startswith("('b', nan): skv: field 1 'f' (float64): nan")
    assert skv.order_pairs_wrong == 0
    assert skv.agrees  # refusing is not disagreeing
    table = compare("s:string, f:float64", records, codecs=["skv"], store="memory").table()
    assert "skv: refused 2 record(s), e.g. ('b', nan)" in table


def test_every_record_refused() -> None:
    (skv,) = compare("f:float64", [(math.nan,)], codecs=["skv"], store="memory").results
    assert (skv.expressible, skv.refused, skv.records) == (True, 1, 0)
    assert skv.key_bytes_mean is None
    assert skv.order_pairs_wrong == 0


def test_a_correct_codec_agrees() -> None:
    records = [(x, s) for x in (-2, -1, 0, 1, 2, None) for s in ("", "a", "a\x00", None)]
    (toy,) = compare("x:int64, s:string", records, codecs=[ToyCodec()], store="sqlite").results
    assert toy.agrees
    assert (toy.codec, toy.records, toy.refused) == ("toy", 24, 0)
    assert (toy.order_pairs_wrong, toy.order_unexplained, toy.collisions,
            toy.round_trip_failures) == (0, 0, 0, 0)
    assert toy.order_example is None
    assert toy.key_bytes_max == 1 + 8 + 6  # 02 <int64>, 02 61 00 ff 00 01 ('a\x00')
    assert toy.encode_ns is not None
    assert toy.decode_ns is not None


NEGATIVES = [(2,), (-2,), (0,), (1,), (-1,)]


def test_a_broken_codec_is_reported() -> None:
    # two's complement: 0, 1, 2 sort before -2, -1; each of 3 non-negatives is above each of
    # 2 negatives (6 pairs), and one adjacent pair in store order, (2,) then (-2,), disagrees
    report = compare("x:int64", NEGATIVES, codecs=[NegativesFirstBroken()], store="sqlite")
    (broken,) = report.results
    assert broken.codec == "toy-negatives"
    assert broken.order_pairs_wrong == 6
    assert broken.order_unexplained == 1
    assert broken.order_explained == {}
    assert broken.order_example == (
        "(-2,) < (2,) but the keys sort the other way: "
        "02 00 00 00 00 00 00 00 02 < 02 ff ff ff ff ff ff ff fe")
    assert not broken.agrees
    # the rest of the format is sound
    assert (broken.collisions, broken.round_trip_failures) == (0, 0)
    table = report.table()
    row = next(line for line in table.splitlines() if line.startswith("toy-negatives "))
    cells = row.split()
    assert cells[1] == "DIFF"
    assert cells[COLUMNS.index("wrong\npairs")] == "6"
    # a plugin: not the compiled class of a built-in package
    assert "(not compiled: toy-negatives)" in table.splitlines()[1]
    assert "1 adjacent pair(s) NOT explained by a declared anomaly" in table


def test_ties_are_not_wrong_pairs_nor_collisions() -> None:
    (broken,) = compare("x:int64", [(-1,), (1,), (-1,)], codecs=[NegativesFirstBroken()],
                        store="memory").results
    assert (broken.order_pairs_wrong, broken.order_unexplained, broken.collisions) == (2, 1, 0)


def _negative_before(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return a[0] is not None and b[0] is not None and a[0] < 0 <= b[0]


class DeclaredNegatives(NegativesFirstBroken):
    """The two's-complement toy, honest about it."""

    name = "toy-declared-negatives"
    CAPABILITIES: ClassVar = Capabilities(
        field_types=ToyCodec.CAPABILITIES.field_types, decoding="schema", descending=True,
        nulls="both", float_policy=FloatPolicy(nan="total", negative_zero="distinct"),
        anomalies=[Anomaly("negatives-last", "order", "negative ints sort after the others",
                           witness=((-1,), (0,)), schema="x:int64",
                           explains=_negative_before)])


def test_a_declared_anomaly_is_reported_by_name() -> None:
    report = compare("x:int64", NEGATIVES, codecs=[DeclaredNegatives()], store="memory")
    (result,) = report.results
    assert result.order_pairs_wrong == 6
    assert result.order_explained == {"negatives-last": 1}
    assert result.order_unexplained == 0
    assert result.order_example is not None
    assert result.order_example.endswith("(declared anomaly 'negatives-last')")
    assert "declared anomalies seen: negatives-last (1)" in report.table()
    assert "NOT explained" not in report.table()


def test_a_colliding_codec_is_reported() -> None:
    records = [(0.0,), (-0.0,), (1.0,), (1.0,)]
    (result,) = compare("f:float64", records, codecs=[CollidingBroken()],
                        store="memory").results
    assert (result.collisions, result.collisions_unexplained) == (1, 1)
    assert result.collision_example == (
        "(0.0,) and (-0.0,) both have the key 02 80 00 00 00 00 00 00 00")
    assert not result.agrees


def test_a_lossy_codec_is_reported() -> None:
    records = [("a ",), ("a",), ("b",)]
    (result,) = compare("s:string", records, codecs=[LossyBroken()], store="memory").results
    assert (result.round_trip_failures, result.round_trip_unexplained) == (1, 1)
    assert result.round_trip_example == "('a ',) -> ('a',)"
    assert "toy-lossy: round trip: ('a ',) -> ('a',)" in compare(
        "s:string", records, codecs=[LossyBroken()], store="memory").table()


def test_compare_defaults_and_n() -> None:
    report = compare(n=40, codecs=["skv"], store="memory", seed=4)
    assert report.schema == str(KeySchema.parse(DEFAULT_SCHEMA))
    assert report.records == 40
    assert report.store == "memory"
    seen: list[int] = []
    compare("a:string", n=10, codecs=["skv", "fdb-tuple"], store="memory",
            progress=seen.append)
    assert seen == [1, 2]


def test_to_dict_is_json() -> None:
    report = compare("x:int64", NEGATIVES, codecs=[NegativesFirstBroken(), "fdb-tuple",
                                                   "lexkey"], store="memory")
    data = json.loads(json.dumps(report.to_dict()))
    assert (data["schema"], data["records"], data["store"]) == ("x:int64", 5, "memory")
    assert [r["codec"] for r in data["results"]] == ["toy-negatives", "fdb-tuple", "lexkey"]
    assert set(data["results"][0]) == set(CodecResult("x", True).to_dict())
    assert data["results"][0]["order_pairs_wrong"] == 6
    assert data["results"][1]["order_pairs_wrong"] == 0
    assert isinstance(report, Comparison)


# -- bounded work and output (issue 30, items 10 and 11) -----------------------------------------


class _Counted(tuple):  # type: ignore[type-arg]
    """A model tuple that counts the values read from it (a slice counts its length)."""

    touched: ClassVar[int] = 0

    def __getitem__(self, index: Any) -> Any:
        got = super().__getitem__(index)
        _Counted.touched += len(got) if isinstance(index, slice) else 1
        return got


def _prefix_work(width: int) -> tuple[int, int, list[Any]]:
    """Values handed to prefix_range, and model values read, by the prefix scans of 40
    records of *width* int64 fields; and the scans."""
    from lexcodecs.compare import measure
    from lexcodecs.model import key_function

    schema = KeySchema.parse(", ".join(f"f{i}:int64" for i in range(width)))
    rows = [tuple((i * 7 + j) % 5 for j in range(width)) for i in range(40)]
    bound = get_codec("fdb-tuple").bind(schema)
    keys = [bound.encode(r) for r in rows]
    natural = key_function(schema, get_codec("fdb-tuple").capabilities.float_policy)
    models = [_Counted(natural(r)) for r in rows]
    order = sorted(range(len(rows)), key=lambda i: keys[i])
    handed = 0

    class Counting:
        def prefix_range(self, prefix: tuple[Any, ...]) -> tuple[bytes, bytes | None]:
            nonlocal handed
            handed += len(prefix)
            return bound.prefix_range(prefix)

    _Counted.touched = 0
    scans = measure._prefix_scans(Counting(), rows, keys, models, order, 0)  # type: ignore[arg-type]
    return handed, _Counted.touched, scans


def test_prefix_scans_grow_linearly_with_the_field_count() -> None:
    """Four times the fields is about four times the work, not sixteen (3,200 fields took
    80 s): every leading count up to 32 is scanned, then doubling counts and the longest."""
    small_handed, small_touched, small = _prefix_work(200)
    big_handed, big_touched, big = _prefix_work(800)
    assert big_handed < 4.5 * small_handed, (small_handed, big_handed)
    assert big_touched < 4.5 * small_touched, (small_touched, big_touched)
    assert [s.fields for s in big] == [*range(1, 33), 64, 128, 256, 512, 799]
    assert all(s.exact for s in small + big)
    # a narrow schema keeps every count
    assert [s.fields for s in _prefix_work(5)[2]] == [1, 2, 3, 4]


def test_the_verdict_says_which_prefix_counts_were_scanned() -> None:
    schema = ", ".join(f"f{i}:int64" for i in range(70))
    report = compare(schema, n=20, codecs=["fdb-tuple"], repeats=0)
    (result,) = report.results
    assert [s.fields for s in result.prefix_scans][-3:] == [32, 64, 69]
    assert any("exact prefix scans on the first 1 to 32 fields and on the first 64 and 69 "
               "(longer prefixes are scanned at these counts only)" in why
               for why in report.verdict.why)


def test_sample_keys_of_a_huge_value_are_cut() -> None:
    """A 1 MiB string showed its key in full, three times per codec (53 MB of JSON, 78 MB
    of HTML); every text of a sample key is bounded, and says it was cut."""
    records = [("x" * 2**20, 1), *((f"k{i}", i) for i in range(20))]
    report = compare("s:string, n:int64", records, repeats=0)
    data = json.dumps(report.to_dict())
    assert len(data) < 200_000, len(data)
    cut = [s for r in report.results for s in r.sample_keys if "cut)" in s.hex]
    assert cut
    assert all(len(s.hex) < 1000 for r in report.results for s in r.sample_keys)
    assert any("bytes, cut)" in p.hex for s in cut for p in s.parts)
    assert all(len(p.text) < 1000 for r in report.results for s in r.sample_keys
               for p in s.parts)
    assert len(report.to_text()) < 50_000
    assert len(report.to_markdown()) < 50_000
