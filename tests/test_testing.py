"""The harness has teeth: a correct codec passes every check, each broken one is caught by
the check that matches its defect, and the natural-order model is right on its own terms."""

from __future__ import annotations

import decimal
import math
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

import pytest
from broken_codecs import RefusesADeclaredType, SchemalessMisordered
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from toys import (
    CollidingBroken,
    ColumnarBroken,
    IndexErrorBroken,
    LossyBroken,
    NegativesFirstBroken,
    ToyCodec,
    WideRangeBroken,
)

from lexcodecs import Anomaly, Capabilities, Float32, FloatPolicy, KeySchema, Some, get_codec
from lexcodecs.testing import checks
from lexcodecs.testing.checks import ConformanceError
from lexcodecs.testing.conformance import PROPERTIES, CodecConformance, applicable, run_property
from lexcodecs.testing.matrix import ALL_KEPT, Matrix, run_matrix
from lexcodecs.testing.model import ModelError, model_equal, natural_key, value_key
from lexcodecs.testing.strategies import batches, neighbour_pairs

FULL = "a:string, b:int64 desc nulls first, c:float64 nulls last, d:bytes desc, e:bool"


class TestToyConformance(CodecConformance):
    """The correct toy codec passes the whole suite on several schemas."""

    codec = ToyCodec()
    schemas = (
        FULL,
        "x:int64",
        "s:string, t:string",
        "s:string desc, n:int64 desc nulls last",
        "f:float64 desc nulls first, b:bytes nulls last, x:bool desc",
    )


# -- each broken codec is caught by its own check -----------------------------------------

BROKEN_CASES = [
    # (codec, the check that must catch it, what the message must show)
    (NegativesFirstBroken, "order", "in the natural order, but their keys sort the other way"),
    (CollidingBroken, "injective", "are different values with the same key"),
    (LossyBroken, "round_trip", "not the same values"),
    (IndexErrorBroken, "decode_junk", "raised IndexError"),
    (WideRangeBroken, "prefix_range", "does not extend the prefix but its key falls inside"),
]


@pytest.mark.parametrize(("cls", "check", "shows"), BROKEN_CASES,
                         ids=[c[0].__name__ for c in BROKEN_CASES])
@pytest.mark.parametrize("schema", [FULL, "k:int64, v:float64, s:string"])
def test_broken_codec_is_caught_by_its_check(cls: type, check: str, shows: str,
                                             schema: str) -> None:
    with pytest.raises(ConformanceError, match=rf"^\[{check}\] {cls.name}") as info:
        # no shrinking here: test_counterexamples_are_shrunk covers it, and it is the slow part
        run_property(check, cls(), schema,
                     settings_=settings(max_examples=60, derandomize=True, deadline=None,
                                        print_blob=False, database=None,
                                        phases=[Phase.explicit, Phase.reuse, Phase.generate]))
    message = str(info.value)
    assert shows in message
    assert "(" in message.split(":", 1)[1]  # the counterexample's values are quoted


def test_a_columnar_declaration_that_writes_other_keys_is_caught() -> None:
    """The columnar check compares encode_arrow with the row API: a declaration is checked,
    not trusted (a plugin's too)."""
    codec = ColumnarBroken()
    reason = applicable("columnar", codec, KeySchema.parse(FULL))
    if reason is not None:
        pytest.skip(reason)
    with pytest.raises(ConformanceError, match=r"^\[columnar\] toy-columnar") as info:
        run_property("columnar", codec, FULL,
                     settings_=settings(max_examples=60, derandomize=True, deadline=None,
                                        print_blob=False, database=None,
                                        phases=[Phase.explicit, Phase.reuse, Phase.generate]))
    assert "encode_arrow wrote" in str(info.value)
    assert "the row API" in str(info.value)


@pytest.mark.parametrize("check", sorted(PROPERTIES))
def test_correct_toy_passes_each_check_the_broken_ones_fail(check: str) -> None:
    codec = ToyCodec()
    schema = KeySchema.parse(FULL)
    if applicable(check, codec, schema) is None:
        run_property(check, codec, schema)


def test_counterexamples_are_shrunk() -> None:
    with pytest.raises(ConformanceError) as info:
        run_property("order", NegativesFirstBroken(), "x:int64",
                     settings_=settings(max_examples=60, derandomize=True, database=None))
    # shrinking leaves the simplest pair that shows the fault: 0 against -1 (or the minimum)
    assert "(0,)" in str(info.value) or "(-1,)" in str(info.value)


# -- CodecConformance: the batch checks share their batches ----------------------------------


def _shared_case(codec: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[str]]:
    """A CodecConformance subclass of *codec* made here (so nothing is cached for it yet),
    and the list that records each hypothesis run its tests start: ``batch`` for the shared
    run, else the check's name."""
    from lexcodecs.testing import conformance

    runs: list[str] = []
    run_batch, run_one = conformance.run_batch_checks, conformance.run_property

    def batch(names: Any, *args: Any, **kwargs: Any) -> None:
        runs.append("batch")
        run_batch(names, *args, **kwargs)

    def one(name: str, *args: Any, **kwargs: Any) -> None:
        runs.append(name)
        run_one(name, *args, **kwargs)

    monkeypatch.setattr(conformance, "run_batch_checks", batch)
    monkeypatch.setattr(conformance, "run_property", one)

    class Case(CodecConformance):
        schemas = ("k:int64, v:float64, s:string",)

        def property_settings(self) -> settings:
            return settings(max_examples=60, derandomize=True, database=None,
                            print_blob=False)

    Case.codec = codec
    return Case(), runs


def test_batch_checks_draw_their_batches_once(monkeypatch: pytest.MonkeyPatch) -> None:
    case, runs = _shared_case(ToyCodec(), monkeypatch)
    schema = KeySchema.parse(case.schemas[0])
    case.test_order(schema)
    case.test_injective(schema)
    case.test_prefix_free(schema)
    case.test_round_trip(schema)
    assert runs == ["batch", "round_trip"]


def test_a_shared_batch_failure_fails_its_own_check_only(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    # CollidingBroken writes -0.0 as +0.0: the shared run finds the collision; the injectivity
    # test raises it, the order test runs on batches of its own (and holds), as it would alone
    case, runs = _shared_case(CollidingBroken(), monkeypatch)
    schema = KeySchema.parse(case.schemas[0])
    with pytest.raises(ConformanceError, match=r"^\[injective\] toy-colliding") as info:
        case.test_injective(schema)
    assert "are different values with the same key" in str(info.value)
    case.test_order(schema)
    case.test_prefix_free(schema)
    assert runs == ["batch", "order", "prefix_free"]


# -- concrete checks ----------------------------------------------------------------------


class NullsWrongWay(ToyCodec):
    name = "toy-nulls-wrong"

    def plan_field(self, index: int, field: Any, schema: KeySchema) -> Any:
        # swap the placement the schema asked for
        flipped = field.__class__(field.name, field.type, field.descending,
                                  "last" if field.effective_nulls == "first" else "first")
        return super().plan_field(index, flipped, schema)


class DescendingIgnored(ToyCodec):
    name = "toy-no-desc"

    def plan_field(self, index: int, field: Any, schema: KeySchema) -> Any:
        asc = field.__class__(field.name, field.type, False, field.effective_nulls)
        return super().plan_field(index, asc, schema)


class Unterminated(ToyCodec):
    """Strings without a terminator: not prefix-free, while claiming to be."""

    name = "toy-unterminated"

    def encode_text(self, v: Any) -> bytes:
        return v.encode()


def test_null_placement_check() -> None:
    schema = KeySchema.parse("a:int64 nulls last")
    checks.check_null_placement(ToyCodec(), schema, (5,), 0)
    with pytest.raises(ConformanceError, match=r"\[null_placement\].*says nulls last"):
        checks.check_null_placement(NullsWrongWay(), schema, (5,), 0)
    run_property("null_placement", ToyCodec(), "a:int64 nulls last, b:string desc")
    with pytest.raises(ConformanceError, match=r"\[null_placement\]"):
        run_property("null_placement", NullsWrongWay(), "a:int64, b:string desc",
                     settings_=settings(database=None))


def test_descending_check() -> None:
    schema = KeySchema.parse("a:int64 desc")
    checks.check_descending(ToyCodec(), schema, (1,), 0, 2)
    with pytest.raises(ConformanceError, match=r"\[descending\].*is descending"):
        checks.check_descending(DescendingIgnored(), schema, (1,), 0, 2)


def test_prefix_free_check() -> None:
    schema = KeySchema.parse("s:string")
    checks.check_prefix_free(ToyCodec(), schema, [("a",), ("ab",)])
    with pytest.raises(ConformanceError, match=r"is a proper prefix of the key"):
        checks.check_prefix_free(Unterminated(), schema, [("a",), ("ab",)])


def test_order_check_reports_equal_values_with_different_keys() -> None:
    class TwoZeros(ToyCodec):
        name = "toy-two-zeros"
        CAPABILITIES = Capabilities(
            field_types={"float64"}, decoding="schema", nulls="both",
            float_policy=FloatPolicy(nan="total", negative_zero="equal"))

    with pytest.raises(ConformanceError, match="are equal values but have different keys"):
        checks.check_order(TwoZeros(), KeySchema.parse("f:float64"), [(0.0,), (-0.0,)])


def test_decode_junk_accepts_decode_error_only() -> None:
    schema = KeySchema.parse("a:int64")
    checks.check_decode_junk(ToyCodec(), schema, b"\x02\x00")
    with pytest.raises(ConformanceError, match="only DecodeError may escape"):
        checks.check_decode_junk(IndexErrorBroken(), schema, b"")


def test_neighbour_pairs_reach_the_tricky_neighbours() -> None:
    schema = KeySchema.parse("f:float64, s:string, i:int64")
    caps = ToyCodec().capabilities
    pairs = neighbour_pairs([(0.0, "a", 2**63 - 1)], schema, caps)
    seconds = {b for _, b in pairs}
    assert (-0.0, "a", 2**63 - 1) in seconds
    assert (0.0, "a\x00", 2**63 - 1) in seconds
    assert (0.0, "a", 2**63 - 2) in seconds
    assert all(b[2] <= 2**63 - 1 for b in seconds)  # never outside the type's range


def test_batches_are_built_once_and_tie_on_leading_fields() -> None:
    schema = KeySchema.parse("a:bool, b:int64")
    strategy = batches(schema, ToyCodec().capabilities)
    seen_ties = False

    @given(strategy)
    @settings(max_examples=30, derandomize=True, database=None)
    def prop(batch: list[tuple[Any, ...]]) -> None:
        nonlocal seen_ties
        firsts = [row[0] for row in batch]
        if len(firsts) != len(set(map(repr, firsts))):
            seen_ties = True

    prop()
    assert seen_ties


# -- declared anomalies -------------------------------------------------------------------


def _zero_pair(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return any(isinstance(x, float) and x == 0.0 and isinstance(y, float) and y == 0.0
               for x, y in zip(a, b))


class DeclaredCollision(CollidingBroken):
    """The colliding codec, honest about it: the injectivity check forgives only ±0.0."""

    name = "toy-declared-collision"
    CAPABILITIES = Capabilities(
        field_types=ToyCodec.CAPABILITIES.field_types, decoding="schema", descending=True,
        nulls="both", injective=False,
        float_policy=FloatPolicy(nan="total"),
        anomalies=[Anomaly("signed-zero", "collision", "-0.0 is written as +0.0",
                           witness=((-0.0,), (0.0,)), schema="f:float64",
                           explains=_zero_pair),
                   Anomaly("zero-loses-sign", "round-trip", "-0.0 decodes as +0.0",
                           witness=((-0.0,),), schema="f:float64", explains=_zero_pair),
                   # the collision's consequence: with ±0.0 written alike, the next field
                   # orders the two keys (drawn rarely: NULL against a value after ±0.0)
                   Anomaly("signed-zero-order", "order",
                           "-0.0 and +0.0 are written alike, so the next field orders them",
                           witness=((-0.0, ""), (0.0, None)), schema="f:float64, s:string",
                           explains=_zero_pair)])


class TestDeclaredCollisionConformance(CodecConformance):
    codec = DeclaredCollision()
    schemas = ("f:float64, s:string",)


def test_declared_anomaly_does_not_hide_other_faults() -> None:
    class AlsoNegatives(DeclaredCollision):
        name = "toy-collision-and-negatives"
        FIXED: ClassVar = {**CollidingBroken.FIXED, "int64": NegativesFirstBroken.FIXED["int64"]}

    # the collision is forgiven, the misordered negatives are not
    checks.check_injective(AlsoNegatives(), KeySchema.parse("f:float64"), [(0.0,), (-0.0,)])
    with pytest.raises(ConformanceError, match=r"\[order\]"):
        checks.check_order(AlsoNegatives(), KeySchema.parse("x:int64"), [(-1,), (1,)])


def test_anomaly_that_does_not_happen_is_reported() -> None:
    class Boasting(ToyCodec):
        name = "toy-boasting"
        CAPABILITIES = Capabilities(
            field_types={"float64"}, decoding="schema", nulls="both",
            float_policy=FloatPolicy(nan="total"),
            anomalies=[Anomaly("signed-zero", "collision", "claimed, but not so",
                               witness=((-0.0,), (0.0,)), schema="f:float64")])

    with pytest.raises(ConformanceError, match=r"signed-zero.*does not happen"):
        checks.check_anomalies(Boasting())


def test_anomaly_whose_explains_rejects_its_witness_is_reported() -> None:
    class Inconsistent(CollidingBroken):
        name = "toy-inconsistent"
        CAPABILITIES = Capabilities(
            field_types={"float64"}, decoding="schema", nulls="both",
            float_policy=FloatPolicy(nan="total"),
            anomalies=[Anomaly("signed-zero", "collision", "x", witness=((-0.0,), (0.0,)),
                               schema="f:float64", explains=lambda s, a, b: False)])

    with pytest.raises(ConformanceError, match="explains"):
        checks.check_anomalies(Inconsistent())


def test_not_injective_without_a_collision_anomaly_is_reported() -> None:
    class Vague(ToyCodec):
        name = "toy-vague"
        CAPABILITIES = Capabilities(field_types={"float64"}, decoding="schema",
                                    nulls="both", injective=False)

    with pytest.raises(ConformanceError, match="not injective but no 'collision'"):
        checks.check_anomalies(Vague())


@pytest.mark.parametrize("kind", ["order", "prefix-leak"])
def test_order_and_prefix_leak_witnesses(kind: str) -> None:
    if kind == "order":
        anomaly = Anomaly("negatives-last", "order", "negatives sort after positives",
                          witness=((-1,), (1,)), schema="x:int64")
        codec_cls: type = NegativesFirstBroken
    else:
        anomaly = Anomaly("wide", "prefix-leak", "siblings leak in",
                          witness=((1, 2), (1, 3, 0)), schema="a:int64, b:int64, c:int64")
        codec_cls = WideRangeBroken
    honest = type("Honest", (codec_cls,), {"CAPABILITIES": Capabilities(
        field_types={"int64"}, decoding="schema", nulls="both", anomalies=[anomaly])})
    checks.check_anomalies(honest())
    boasting = type("Boasting", (ToyCodec,), {"CAPABILITIES": honest.CAPABILITIES})
    with pytest.raises(ConformanceError, match="does not happen"):
        checks.check_anomalies(boasting())


def test_applicable_reasons() -> None:
    codec = ToyCodec()
    plain = KeySchema.parse("a:int64")
    assert applicable("descending", codec, plain) == "the schema has no descending field"
    assert applicable("descending", codec, KeySchema.parse("a:int64 desc")) is None
    assert applicable("self_describing", codec, plain) == "keys are not self-describing"
    assert set(PROPERTIES) >= {"round_trip", "order", "injective", "prefix_free",
                               "prefix_range", "null_placement", "descending", "decode_junk"}


def test_schemaless_check() -> None:
    fdb = get_codec("fdb-tuple")
    schema = KeySchema.parse("s:string, n:int, f:float64")
    assert applicable("schemaless", fdb, schema) is None
    checks.check_schemaless(fdb, schema, [("a", -1, 0.5), ("a", 1, None), (None, 2**70, -0.0)])
    assert "ascending" in (applicable("schemaless", fdb, KeySchema.parse("n:int desc")) or "")
    assert applicable("schemaless", ToyCodec(), KeySchema.parse("n:int64")) == (
        "the codec does not claim schemaless encoding")
    with pytest.raises(ConformanceError, match=r"^\[schemaless\] broken-schemaless .*without a "
                       r"schema, \(-1,\) < \(1,\) in the natural order"):
        checks.check_schemaless(SchemalessMisordered(), KeySchema.parse("n:int64"),
                                [(-1,), (1,)])


def test_schemaless_check_looks_inside_the_pairs() -> None:
    schema = KeySchema.parse("n:int64")
    codec = SchemalessMisordered()  # its ints little-endian: 358 and -358 sort the wrong way
    checks.check_schemaless(codec, schema, [(358,)])  # one key: nothing to compare
    with pytest.raises(ConformanceError, match=r"without a schema, \(-358,\) < \(358,\)"):
        checks.check_schemaless(codec, schema, [(358,)], [((358,), (-358,))])


def test_prefix_free_check_looks_inside_the_pairs() -> None:
    schema = KeySchema.parse("s:string")
    checks.check_prefix_free(Unterminated(), schema, [("a",)])  # one key: nothing to compare
    with pytest.raises(ConformanceError, match="is a proper prefix of the key"):
        checks.check_prefix_free(Unterminated(), schema, [("a",)], [(("a",), ("ab",))])


def _matrix(claims: dict[str, str]) -> Matrix:
    return Matrix(cells={"c": {"f0:int64": {"order": "ok", "descending": "skip: no desc"}}},
                  claims={"c": claims}, anomalies={"c": {}})


def test_matrix_shows_untested_claims_and_never_counts_them_kept() -> None:
    kept = _matrix({"type int64": "kept"})
    assert (kept.ok, kept.complete) == (True, True)
    assert kept.render().splitlines()[-1] == ALL_KEPT
    open_ = _matrix({"type int64": "kept", "type tuple": "untested: no values of type 'tuple'"})
    assert (open_.ok, open_.complete) == (True, False)
    text = open_.render()
    assert ALL_KEPT not in text
    assert "  c: type tuple: no values of type 'tuple'" in text.splitlines()
    assert text.splitlines()[-1] == ("no failure; 1 declared claim(s) untested: not every claim "
                                     "is shown to hold")
    data = open_.to_dict()
    assert data["untested"] == {"c": {"type tuple": "no values of type 'tuple'"}}
    assert (data["ok"], data["complete"]) == (True, False)
    assert data["claims"]["c"]["type int64"] == "kept"


def test_a_schema_the_codec_refuses_to_bind_is_a_failure() -> None:
    matrix = run_matrix([RefusesADeclaredType()], examples=1, shrink=False)
    row = matrix.cells["broken-bind"]["f0:uint16"]
    assert list(row) == ["bind"]
    assert row["bind"].startswith("FAIL: the codec refuses a schema its declarations allow: "
                                  "SchemaError: ")
    claims = matrix.claims["broken-bind"]
    assert claims["type uint16"] == "FAIL: bind on (f0:uint16)"
    assert claims["type string"] == "kept"  # its three-field schemas failed for uint16's sake
    assert "FAIL (bind)" in matrix.render()


# -- the model ----------------------------------------------------------------------------

UTC = UTC
# ascending runs of distinct values per type, written by hand
ORDERED: dict[str, list[Any]] = {
    "string": ["", "\x00", "\x00\x00", "a", "a\x00", "ab", "b", "é", "\uffff", "\U0001f600"],
    "bytes": [b"", b"\x00", b"\x00\x00", b"\x00\xff", b"\x01", b"\xff", b"\xff\x00"],
    "bool": [False, True],
    "int64": [-(2**63), -1, 0, 1, 2**63 - 1],
    "int": [-(10**40), -1, 0, 10**40],
    "float64": [-math.inf, -1e308, -1.0, -5e-324, -0.0, 0.0, 5e-324, 1.0, math.inf],
    "float32": [Float32(-math.inf), Float32(-1.5), Float32(-0.0), Float32(0.0),
                Float32(1.5), Float32(math.inf)],
    "decimal": [decimal.Decimal("-1e100"), decimal.Decimal("-1.5"), decimal.Decimal("0"),
                decimal.Decimal("0.001"), decimal.Decimal("1e100")],
    "uuid": [uuid.UUID(int=0), uuid.UUID(int=1), uuid.UUID(int=2**127),
             uuid.UUID(int=2**128 - 1)],
    "timestamp": [datetime(1677, 9, 22, tzinfo=UTC), datetime(1970, 1, 1, tzinfo=UTC),
                  datetime(1970, 1, 1, 0, 0, 0, 1, tzinfo=UTC),
                  datetime(2262, 4, 11, tzinfo=UTC)],
    "duration": [timedelta(days=-1), timedelta(microseconds=-1), timedelta(0),
                 timedelta(microseconds=1), timedelta(days=10**5)],
    "int128": [-(2**127), -(2**64), -1, 0, 2**127 - 1],
    "uint128": [0, 2**64, 2**128 - 1],
    "char": ["\x00", "a", "é", "\uffff", "\U0010ffff"],
    "variant": [0, 1, 255, 2**32 - 1],
}


@pytest.mark.parametrize("field_type", sorted(ORDERED))
@pytest.mark.parametrize("direction", ["", " desc"])
@pytest.mark.parametrize("nulls", ["", " nulls first", " nulls last"])
def test_model_orders_each_type(field_type: str, direction: str, nulls: str) -> None:
    schema = KeySchema.parse(f"v:{field_type}{direction}{nulls}")
    values = [(v,) for v in ORDERED[field_type]]
    expected = values[::-1] if direction else values
    null_first = (nulls == " nulls first") or (nulls == "" and not direction)
    expected = [(None,), *expected] if null_first else [*expected, (None,)]
    shuffled = expected[1::2] + expected[0::2]
    assert sorted(shuffled, key=lambda v: natural_key(v, schema)) == expected


@pytest.mark.parametrize(("direction", "ordered"), [
    ("", [None, Some(None), Some(Some(None)), -3, 7]),
    (" desc", [7, -3, Some(Some(None)), Some(None), None]),
])
def test_model_orders_option_layers(direction: str, ordered: list[Any]) -> None:
    # Rust's Option<Option<Option<T>>>: each layer's None between the outer ones and the values
    schema = KeySchema.parse(f"v:int32{direction} nullable=3")
    rows = [(v,) for v in ordered]
    shuffled = rows[1::2] + rows[0::2]
    assert sorted(shuffled, key=lambda v: natural_key(v, schema)) == rows


def test_model_refuses_some_around_a_value() -> None:
    with pytest.raises(ModelError, match="Some wraps only None"):
        natural_key((Some(7),), KeySchema.parse("v:int32 nullable=true"))


def test_model_orders_by_first_differing_field() -> None:
    schema = KeySchema.parse("a:string, b:int64 desc")
    rows = [("b", 1), ("a", 1), ("a", 2), ("a", None), (None, 5)]
    assert sorted(rows, key=lambda v: natural_key(v, schema)) == [
        (None, 5), ("a", 2), ("a", 1), ("a", None), ("b", 1)]


NAN = float("nan")
NEG_NAN = -NAN


@pytest.mark.parametrize(("policy", "ordered"), [
    (FloatPolicy(nan="total"), [NEG_NAN, -math.inf, -0.0, 0.0, math.inf, NAN]),
    (FloatPolicy(nan="lowest"), [NAN, -math.inf, -0.0, 0.0, math.inf]),
    (FloatPolicy(nan="highest"), [-math.inf, -0.0, 0.0, math.inf, NAN]),
])
def test_model_float_policies(policy: FloatPolicy, ordered: list[float]) -> None:
    keys = [value_key(v, "float64", policy) for v in ordered]
    assert keys == sorted(keys)
    assert len(set(map(repr, keys))) == len(keys)


def test_model_nan_payloads_in_total_order() -> None:
    policy = FloatPolicy(nan="total")
    small = Float32.from_bits(0x7F800001)  # signalling, smallest payload
    quiet = Float32.from_bits(0x7FC00000)
    assert value_key(small, "float32", policy) < value_key(quiet, "float32", policy)
    neg = Float32.from_bits(0xFFC00000)
    assert value_key(neg, "float32", policy) < value_key(Float32(-math.inf), "float32", policy)


def test_model_refuses_nan_when_the_codec_does() -> None:
    with pytest.raises(ModelError):
        value_key(NAN, "float64", FloatPolicy(nan="refuse"))


def test_model_negative_zero_equal_policy() -> None:
    schema = KeySchema.parse("f:float64")
    assert model_equal((0.0,), (-0.0,), schema, FloatPolicy(negative_zero="equal"))
    assert not model_equal((0.0,), (-0.0,), schema, FloatPolicy(negative_zero="distinct"))


def test_model_mixed_numbers() -> None:
    exact, by_repr = FloatPolicy(compare="exact"), FloatPolicy(compare="repr")
    mixed = [1, decimal.Decimal("1.5"), 2.0, 10**30]
    for policy in (exact, by_repr):
        keys = [value_key(v, "decimal", policy) for v in mixed]
        assert keys == sorted(keys)
    assert value_key(0.1, "decimal", by_repr) == value_key(decimal.Decimal("0.1"), "decimal",
                                                           by_repr)
    assert value_key(0.1, "decimal", exact) > value_key(decimal.Decimal("0.1"), "decimal",
                                                        exact)


# -- key_function: natural_key, compiled per schema -----------------------------------------

_KEY_FUNCTION_SCHEMAS = [
    "s:string, b:bytes desc, n:int64 nulls last, f:float64 desc nulls first",
    "i:int, d:decimal desc, t:timestamp, u:uuid, x:bool desc",
    "a:uint8 desc, g:float32, h:duration nulls last",
]


@pytest.mark.parametrize("text", _KEY_FUNCTION_SCHEMAS)
@given(data=st.data())
def test_key_function_gives_natural_key(text: str, data: st.DataObject) -> None:
    from lexcodecs.codec import FloatPolicy
    from lexcodecs.model import key_function
    from lexcodecs.testing.strategies import keys

    schema = KeySchema.parse(text)
    caps = Capabilities(field_types=set(schema.types), decoding="schema", nulls="both",
                        descending=True, float_policy=FloatPolicy(nan="total"))
    policy = data.draw(st.sampled_from([FloatPolicy(nan="total"), FloatPolicy(
        nan="lowest", negative_zero="equal", compare="repr")]))
    values = data.draw(keys(schema, caps))
    assert key_function(schema, policy)(values) == natural_key(values, schema, policy)
