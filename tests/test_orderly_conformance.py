"""``orderly`` under the conformance harness, and the properties that tie its public
``RowKey`` operations together (spec ``orderly.md`` §11-§14).

* the harness over deterministic mixed schemas, for the default codec and for
  ``struct_termination`` MUST / SHOULD_NOT and ``struct_order=desc``;
* ``serialized_length`` / ``field_lengths`` / ``field_offsets`` / ``skip`` agree (§12, §14.7);
* ``struct_order=desc`` is the same as flipping every field (§11.2);
* decoding does not depend on the termination the key was written with (§11.4, §14.6);
* every declared anomaly happens, and the harness reports it once it is no longer declared;
* ``prefix_range`` examples (§14.9).
"""

from __future__ import annotations

import decimal
import itertools
import random
from collections.abc import Iterable, Sequence
from typing import Any

import attrs
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from lexcodecs import KeySchema
from lexcodecs.codecs.orderly import OrderlyCodec
from lexcodecs.schema import Field
from lexcodecs.testing import (
    CodecConformance,
    ConformanceError,
    identical,
    keys,
    model_equal,
    run_property,
)
from lexcodecs.testing.checks import check_anomalies, check_order, check_prefix_range
from lexcodecs.types import Float32

D = decimal.Decimal
ORDERS = ("asc", "desc")
STRUCT_TERMINATIONS = ("AUTO", "MUST", "SHOULD_NOT")


def hx(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


# -- schemas ----------------------------------------------------------------------------------
#
# A field kind is (name tag, type text). Fields whose values are narrower than their type (fixed
# byte arrays of N bytes, variable ones with a raw prefix of P bytes) carry the constraint in
# their name tag, so one value strategy per name serves every schema of a class.

VAR_INTS = ("int32", "int64", "uint32", "uint64")
#: the most reserved bits each var-int type allows (spec §14.2)
RESERVED_MAX = {"int64": 2, "int32": 3, "uint64": 3, "uint32": 4}

BASE_KINDS: tuple[tuple[str, str], ...] = (
    *((t, t) for t in VAR_INTS),
    *((f"fx{t}", f"{t} encoding=fixed") for t in VAR_INTS),
    ("f32", "float32"),
    ("f64", "float64"),
    ("dec", "decimal"),
    ("str", "string"),
    ("vb", "bytes"),
    ("pre1", "bytes prefix_length=1"),
    ("pre3", "bytes encoding=var prefix_length=3"),
    ("fix0", "bytes encoding=fixed length=0"),
    ("fix1", "bytes encoding=fixed length=1"),
    ("fix4", "bytes encoding=fixed length=4"),
)


def _field_text(name: str, kind: str, desc: bool, termination: str) -> str:
    text = f"{name}:{kind}"
    if desc:
        text += " desc"
    if termination != "AUTO":
        text += f" termination={termination}"
    return text


#: the kinds whose bytes depend on termination (and one of each fixed-width sort)
TERMINATION_KINDS: tuple[tuple[str, str], ...] = tuple(
    k for k in BASE_KINDS if k[0] in ("str", "dec", "vb", "pre1", "int64", "fxint32", "f32",
                                      "fix1"))


def make_schemas(seed: int, sizes: Sequence[int],
                 kinds: Sequence[tuple[str, str]] = BASE_KINDS) -> list[str]:
    """Deterministic schemas of the given sizes: kinds dealt from shuffled copies of *kinds*
    (so every kind appears once the sizes add up to it), random orders, terminations
    AUTO/MUST, and SHOULD_NOT sometimes on the last field."""
    rng = random.Random(seed)
    pool: list[tuple[str, str]] = []
    out = []
    for n in sizes:
        fields = []
        for i in range(n):
            if not pool:
                pool = list(kinds)
                rng.shuffle(pool)
            tag, kind = pool.pop()
            last = i == n - 1
            term = rng.choice(("AUTO", "MUST", "SHOULD_NOT") if last else ("AUTO", "MUST"))
            fields.append(_field_text(f"{tag}_{i}", kind, rng.random() < 0.5, term))
        out.append(", ".join(fields))
    return out


def _bytes_values() -> st.SearchStrategy[bytes]:
    tricky = st.lists(st.sampled_from([b"\x00", b"\x01", b"\xfe", b"\xff", b"a"]),
                      max_size=3).map(b"".join)
    return st.one_of(tricky, st.binary(max_size=6))


def narrow_strategy(field: Field) -> st.SearchStrategy[Any] | None:
    """Values of a bytes field narrower than its type: exactly N bytes, or at least P."""
    if field.type != "bytes":
        return None
    if "length" in field.options:
        n = int(field.options["length"])
        return st.binary(min_size=n, max_size=n)
    p = int(field.options.get("prefix_length", 0))
    if p:
        return st.tuples(st.binary(min_size=p, max_size=p), _bytes_values()).map(b"".join)
    return None


def overrides_for(schemas: Iterable[KeySchema | str]) -> dict[str, st.SearchStrategy[Any]]:
    """The value strategies, per field name, of every narrow field of *schemas*."""
    out: dict[str, st.SearchStrategy[Any]] = {}
    seen: dict[str, Field] = {}
    for schema in schemas:
        for f in KeySchema.coerce(schema).fields:
            strategy = narrow_strategy(f)
            if strategy is None:
                continue
            if f.name in seen:
                assert seen[f.name].options.get("length") == f.options.get("length")
                assert seen[f.name].options.get("prefix_length") == \
                    f.options.get("prefix_length")
                continue
            seen[f.name] = f
            out[f.name] = strategy
    return out


DEFAULT_SCHEMAS = make_schemas(2024, (4, 1, 3, 5, 2, 5))
MUST_SCHEMAS = make_schemas(7, (3, 2), TERMINATION_KINDS)
SHOULD_NOT_SCHEMAS = make_schemas(11, (3, 2), TERMINATION_KINDS)
DESC_SCHEMAS = make_schemas(13, (3, 2), TERMINATION_KINDS)


def test_generated_schemas_cover_every_kind_order_and_termination() -> None:
    schemas = [KeySchema.parse(s) for s in DEFAULT_SCHEMAS]
    fields = [f for s in schemas for f in s.fields]
    assert {f.name.rsplit("_", 1)[0] for f in fields} == {tag for tag, _ in BASE_KINDS}
    assert {f.descending for f in fields} == {False, True}
    assert {f.options.get("termination", "AUTO") for f in fields} == set(STRUCT_TERMINATIONS)
    assert {len(s) for s in schemas} == {1, 2, 3, 4, 5}
    for group in (DEFAULT_SCHEMAS, MUST_SCHEMAS, SHOULD_NOT_SCHEMAS, DESC_SCHEMAS):
        for s in map(KeySchema.parse, group):
            # SHOULD_NOT only as the last field, and every schema binds
            assert all(f.options.get("termination") != "SHOULD_NOT" for f in s.fields[:-1])
            OrderlyCodec().bind(s)


#: the active profile without shrinking: a ConformanceError already names the offending keys,
#: and shrinking a failing batch of wide schemas takes minutes
NO_SHRINK = [p for p in Phase if p not in (Phase.shrink, Phase.explain)]


class _OrderlyConformance(CodecConformance):
    """The harness, minus shrinking (see NO_SHRINK)."""

    def property_settings(self) -> settings:
        return settings(phases=NO_SHRINK)


class TestOrderlyConformance(_OrderlyConformance):
    codec = OrderlyCodec()
    schemas = DEFAULT_SCHEMAS
    value_strategies = overrides_for(DEFAULT_SCHEMAS)


class TestOrderlyMustConformance(_OrderlyConformance):
    codec = OrderlyCodec(struct_termination="MUST")
    schemas = MUST_SCHEMAS
    value_strategies = overrides_for(MUST_SCHEMAS)


class TestOrderlyShouldNotConformance(_OrderlyConformance):
    codec = OrderlyCodec(struct_termination="SHOULD_NOT")
    schemas = SHOULD_NOT_SCHEMAS
    value_strategies = overrides_for(SHOULD_NOT_SCHEMAS)


class TestOrderlyDescConformance(_OrderlyConformance):
    codec = OrderlyCodec(struct_order="desc")
    schemas = DESC_SCHEMAS
    value_strategies = overrides_for(DESC_SCHEMAS)


# -- random schemas and values ----------------------------------------------------------------

CODECS = {(o, t): OrderlyCodec(struct_order=o, struct_termination=t)
          for o in ORDERS for t in STRUCT_TERMINATIONS}
CODEC_IDS = [f"{o}-{t}" for o, t in CODECS]


def _reserved_kind(t: str) -> st.SearchStrategy[str]:
    return st.integers(1, RESERVED_MAX[t]).flatmap(lambda r: st.integers(0, 2**r - 1).map(
        lambda v: f"{t} reserved_bits={r} reserved_value={v}"))


FIELD_KINDS = st.one_of(
    st.sampled_from([kind for _, kind in BASE_KINDS]),
    st.integers(0, 4).map(lambda p: f"bytes prefix_length={p}"),
    st.integers(0, 6).map(lambda n: f"bytes encoding=fixed length={n}"),
    st.sampled_from(VAR_INTS).flatmap(_reserved_kind),
)


@st.composite
def schemas(draw: st.DrawFn, *, should_not: bool = True) -> KeySchema:
    """Schemas of 1-5 fields of every kind, order and termination (SHOULD_NOT last only)."""
    n = draw(st.integers(1, 5))
    fields = []
    for i in range(n):
        last = i == n - 1
        terms = STRUCT_TERMINATIONS if should_not and last else ("AUTO", "MUST")
        fields.append(_field_text(f"f{i}", draw(FIELD_KINDS), draw(st.booleans()),
                                  draw(st.sampled_from(terms))))
    return KeySchema.parse(", ".join(fields))


def draw_values(data: st.DataObject, codec: OrderlyCodec, schema: KeySchema) -> tuple[Any, ...]:
    strategy = keys(schema, codec.capabilities, overrides_for([schema]),
                    nullable=codec.bind(schema).nullable)
    return tuple(data.draw(strategy, label="values"))


def flip(schema: KeySchema) -> KeySchema:
    """Every field's order toggled, its options kept."""
    return KeySchema(tuple(Field(f.name, f.type, not f.descending, f.nulls, f.options)
                           for f in schema.fields))


def successor(key: bytes) -> bytes | None:
    """The first byte string after every string that starts with *key* (None: none)."""
    stripped = key.rstrip(b"\xff")
    return stripped[:-1] + bytes((stripped[-1] + 1,)) if stripped else None


# -- 2. serialized_length, field_lengths, field_offsets and skip agree (§12, §14.7) -------------


@pytest.mark.parametrize(("order", "termination"), list(CODECS), ids=CODEC_IDS)
@given(schema=schemas(), data=st.data())
def test_lengths_offsets_and_skip_agree(order: str, termination: str, schema: KeySchema,
                                        data: st.DataObject) -> None:
    codec = CODECS[order, termination]
    values = draw_values(data, codec, schema)
    key = codec.encode(values, schema)
    assert codec.serialized_length(values, schema) == len(key)
    lengths = codec.field_lengths(values, schema)
    assert len(lengths) == len(schema)
    assert sum(lengths) == len(key)
    # from the values (lengths) and from the bytes (offsets): two independent computations
    ends = tuple(itertools.accumulate(lengths, initial=0))
    assert codec.field_offsets(key, schema) == ends
    for i in range(len(schema)):
        assert codec.skip(key, schema, i, ends[i]) == ends[i + 1], f"skip field {i}"


def test_skip_walk_through_spec_11_5() -> None:
    codec = OrderlyCodec()
    schema = "id:int64, name:string, score:float32"
    key = hx("81636401bf800001")
    assert codec.encode((1, "ab", 1.0), schema) == key
    assert codec.field_offsets(key, schema) == (0, 1, 4, 8)
    assert [codec.skip(key, schema, i, at) for i, at in enumerate((0, 1, 4))] == [1, 4, 8]
    assert codec.field_lengths((1, "ab", None), schema) == (1, 2, 0)
    assert codec.serialized_length((1, "ab", None), schema) == 3


# -- 3. struct_order=desc is every field flipped (§11.2) ----------------------------------------


@pytest.mark.parametrize("termination", STRUCT_TERMINATIONS)
@given(schema=schemas(), data=st.data())
def test_desc_struct_is_every_field_flipped(termination: str, schema: KeySchema,
                                            data: st.DataObject) -> None:
    desc = CODECS["desc", termination]
    asc = CODECS["asc", termination]
    flipped = flip(schema)
    values = draw_values(data, desc, schema)
    assert desc.bind(schema).nullable == asc.bind(flipped).nullable
    key = desc.encode(values, schema)
    assert key == asc.encode(values, flipped)
    assert desc.field_lengths(values, schema) == asc.field_lengths(values, flipped)
    k = data.draw(st.integers(0, len(schema)), label="prefix length")
    assert desc.prefix_range(values[:k], schema) == asc.prefix_range(values[:k], flipped)
    assert identical(desc.decode(key, schema), asc.decode(key, flipped))


# -- 4. decoding does not depend on the termination a key was written with (§11.4) -------------


@pytest.mark.parametrize("order", ORDERS)
@given(schema=schemas(should_not=False), data=st.data(),
       written=st.sampled_from(STRUCT_TERMINATIONS), read=st.sampled_from(STRUCT_TERMINATIONS))
def test_decoding_ignores_struct_termination(order: str, schema: KeySchema, data: st.DataObject,
                                             written: str, read: str) -> None:
    writer, reader = CODECS[order, written], CODECS[order, read]
    values = draw_values(data, writer, schema)
    key = writer.encode(values, schema)
    back = reader.decode(key, schema)
    assert identical(back, writer.decode(key, schema))
    policy = writer.capabilities.float_policy
    assert model_equal(values, back, writer.bind(schema).order_schema, policy)
    assert reader.field_offsets(key, schema) == writer.field_offsets(key, schema)


def test_decoding_ignores_struct_termination_spec_11_5() -> None:
    schema = "id:int64, name:string, score:float32"
    rows = {  # value -> the keys of struct asc AUTO, MUST and SHOULD_NOT (spec §11.5)
        (1, "ab", None): ("816364", "81636401 00000000", "816364"),
        (1, None, None): ("81", "81 00 00000000", "81"),
        (None, None, None): ("", "00 00 00000000", ""),
        (-1, "", None): ("7f01", "7f01 00000000", "7f01"),
        (None, "ab", None): ("006364", "00636401 00000000", "006364"),
    }
    for values, hexes in rows.items():
        for written, text in zip(STRUCT_TERMINATIONS, hexes):
            assert CODECS["asc", written].encode(values, schema) == hx(text)
            for read in STRUCT_TERMINATIONS:
                assert CODECS["asc", read].decode(hx(text), schema) == values
    desc_rows = {  # struct desc AUTO/MUST, and SHOULD_NOT
        (1, "ab", None): ("7e 9c9bfe ffffffff", "7e 9c9b"),
        (None, None, None): ("ff ff ffffffff", ""),
        (-1, "", None): ("80 fe ffffffff", "80 fe"),
    }
    for values, (terminated, bare) in desc_rows.items():
        assert CODECS["desc", "AUTO"].encode(values, schema) == hx(terminated)
        assert CODECS["desc", "MUST"].encode(values, schema) == hx(terminated)
        assert CODECS["desc", "SHOULD_NOT"].encode(values, schema) == hx(bare)
        for read in STRUCT_TERMINATIONS:
            for text in (terminated, bare):
                assert CODECS["desc", read].decode(hx(text), schema) == values


# -- 5. every declared anomaly happens, and the harness sees it once undeclared ----------------

ANOMALIES = ("decimal-negative-prefix", "decimal-negative-prefix-range", "decimal-scale-overflow",
             "should-not-descending", "long-9-byte-negative-header",
             "varbytes-null-java-undecodable")


@pytest.mark.parametrize(("order", "termination"), list(CODECS), ids=CODEC_IDS)
def test_declared_anomalies_occur(order: str, termination: str) -> None:
    codec = OrderlyCodec(struct_order=order, struct_termination=termination)
    check_anomalies(codec)
    names = {a.name for a in codec.capabilities.anomalies}
    expected = set(ANOMALIES)
    if termination == "MUST":
        expected.discard("decimal-negative-prefix-range")
    if termination == "SHOULD_NOT":
        expected.add("should-not-descending-range")
    assert names == expected


def without(name: str, **options: str) -> OrderlyCodec:
    """A fresh codec whose capabilities no longer declare anomaly *name*."""
    codec = OrderlyCodec(**options)
    anomalies = codec.capabilities.anomalies
    assert name in {a.name for a in anomalies}
    codec._capabilities = attrs.evolve(
        codec.capabilities, anomalies=tuple(a for a in anomalies if a.name != name))
    return codec


# (anomaly, check, codec options, schema text with {asc} / {desc} standing for the direction
# that is *effective* under the codec's struct_order)
UNDECLARED = [
    ("decimal-negative-prefix", "order", {}, "d:decimal{asc}"),
    ("decimal-negative-prefix", "order", {"struct_termination": "SHOULD_NOT"},
     "x:int32{desc}, d:decimal{asc}"),
    ("should-not-descending", "order", {}, "s:string{desc} termination=SHOULD_NOT"),
    ("should-not-descending", "order", {"struct_termination": "SHOULD_NOT"},
     "x:int32{asc}, s:string{desc}"),
    ("decimal-negative-prefix-range", "prefix_range", {}, "d:decimal{asc}, x:int64{asc}"),
]


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize(("name", "check", "options", "text"), UNDECLARED,
                         ids=[f"{n}-{c}-{t}" for n, c, _, t in UNDECLARED])
def test_harness_reports_an_undeclared_anomaly(order: str, name: str, check: str,
                                               options: dict[str, str], text: str) -> None:
    asc, desc = ("", " desc") if order == "asc" else (" desc", "")
    schema = KeySchema.parse(text.format(asc=asc, desc=desc))
    declared = OrderlyCodec(struct_order=order, **options)
    run_property(check, declared, schema)  # declared: forgiven
    with pytest.raises(ConformanceError) as info:
        run_property(check, without(name, struct_order=order, **options), schema,
                     settings_=settings(phases=NO_SHRINK))
    assert info.value.check == check


# -- 6. prefix_range (§14.9) --------------------------------------------------------------------

STRUCT = "id:int64, name:string, score:float32"
DESC_FIRST = "s:string desc, n:int32"

PREFIX_RANGES = [
    # (order, termination, schema, prefix, start, stop)
    ("asc", "AUTO", STRUCT, (), "", None),
    ("asc", "AUTO", STRUCT, (1,), "81", "82"),
    ("asc", "AUTO", STRUCT, (1, "ab"), "81 6364", "81 636402"),
    ("asc", "AUTO", STRUCT, (None,), "", "01"),
    ("asc", "AUTO", STRUCT, (1, None), "81", "81 01"),
    ("asc", "AUTO", STRUCT, (None, "ab"), "00 6364", "00 636402"),
    ("asc", "AUTO", STRUCT, (1, "ab", 1.0), "81 636401 bf800001", "81 636401 bf800002"),
    ("asc", "MUST", STRUCT, (), "", None),
    ("asc", "MUST", STRUCT, (1, "ab"), "81 636401", "81 636402"),
    ("asc", "MUST", STRUCT, (None,), "00", "01"),
    ("asc", "SHOULD_NOT", STRUCT, (1, "ab"), "81 6364", "81 636402"),
    ("desc", "AUTO", STRUCT, (), "", None),
    ("desc", "AUTO", STRUCT, (1,), "7e", "7f"),
    ("desc", "AUTO", STRUCT, (1, "ab"), "7e 9c9bfe", "7e 9c9bff"),
    ("desc", "AUTO", STRUCT, (None,), "ff", None),  # NULL, the last of a desc field
    ("desc", "AUTO", STRUCT, (1, None), "7e ff", "7f"),
    ("desc", "SHOULD_NOT", STRUCT, (1, "ab"), "7e 9c9b", "7e 9c9bff"),
    ("asc", "AUTO", DESC_FIRST, ("ab",), "9c9bfe", "9c9bff"),
    ("asc", "AUTO", DESC_FIRST, ("",), "fe", "ff"),
    ("asc", "AUTO", DESC_FIRST, (None,), "ff", None),
    ("asc", "AUTO", DESC_FIRST, ("ab", 5), "9c9bfe 85", "9c9bfe 86"),
    ("asc", "MUST", DESC_FIRST, ("ab",), "9c9bfe", "9c9bff"),
    ("asc", "SHOULD_NOT", DESC_FIRST, ("ab",), "9c9b", "9c9bff"),
    ("desc", "AUTO", DESC_FIRST, ("ab",), "6364", "636402"),
    ("desc", "MUST", DESC_FIRST, ("ab",), "636401", "636402"),
]


@pytest.mark.parametrize(("order", "termination", "schema", "prefix", "start", "stop"),
                         PREFIX_RANGES, ids=[f"{o}-{t}-{p!r}" for o, t, _, p, _, _ in
                                             PREFIX_RANGES])
def test_prefix_range_examples(order: str, termination: str, schema: str,
                               prefix: tuple[Any, ...], start: str, stop: str | None) -> None:
    got = CODECS[order, termination].prefix_range(prefix, schema)
    assert got == (hx(start), None if stop is None else hx(stop))


@pytest.mark.parametrize(("termination", "inside", "outside"), [
    ("AUTO", [(1, "ab", None), (1, "ab", 1.0), (1, "ab", float("nan"))],
     [(1, "abc", None), (1, "a", None), (1, "ab\x00", None), (1, None, None), (2, "ab", None),
      (0, "ab", 1.0)]),
    ("MUST", [(1, "ab", None), (1, "ab", -1.0)],
     [(1, "abc", None), (1, "a", None), (1, "", None), (None, "ab", None)]),
])
def test_prefix_range_holds_the_keys_that_extend_the_prefix(
        termination: str, inside: list[tuple[Any, ...]], outside: list[tuple[Any, ...]]) -> None:
    codec = CODECS["asc", termination]
    start, stop = codec.prefix_range((1, "ab"), STRUCT)
    assert stop is not None
    for values in inside:
        assert start <= codec.encode(values, STRUCT) < stop, values
    for values in outside:
        key = codec.encode(values, STRUCT)
        assert not start <= key < stop, values


def test_prefix_range_of_a_null_prefix_holds_every_null_key() -> None:
    codec = OrderlyCodec()
    start, stop = codec.prefix_range((None,), STRUCT)
    assert (start, stop) == (b"", b"\x01")
    for values in [(None, None, None), (None, "", None), (None, "zz", 2.0), (None, None, -1.0)]:
        assert start <= codec.encode(values, STRUCT) < stop
    for values in [(0, None, None), (-(2**63), None, None)]:
        assert not codec.encode(values, STRUCT) < stop


@pytest.mark.parametrize(("order", "termination"), list(CODECS), ids=CODEC_IDS)
@given(schema=schemas(), data=st.data())
def test_prefix_range_start_is_a_prefix_of_the_all_must_encoding(
        order: str, termination: str, schema: KeySchema, data: st.DataObject) -> None:
    codec = CODECS[order, termination]
    values = draw_values(data, codec, schema)
    k = data.draw(st.integers(0, len(schema) - 1), label="prefix length")
    prefix = values[:k]
    start, stop = codec.prefix_range(prefix, schema)
    if not prefix:
        assert (start, stop) == (b"", None)
        return
    head = KeySchema(schema.fields[:k])
    # start: the k values as a k-field struct, under the codec's own termination
    assert start == codec.encode(prefix, head)
    # stop: the successor of the k values all terminated
    terminated = CODECS[order, "MUST"].encode(prefix, head)
    assert terminated.startswith(start)
    assert stop == successor(terminated)
    # the whole key starts with the terminated prefix (the fields after it are there)
    full = codec.encode(values, schema)
    if any(codec.field_lengths(values, schema)[k:]):
        assert full.startswith(terminated)
        assert start <= full
        assert stop is None or full < stop


# -- bugs found by the tests above, pinned down ---------------------------------------------------


@pytest.mark.parametrize(("schema", "values", "key", "offsets"), [
    ("s:string, b:bytes encoding=fixed length=0, n:int32", ("x", b"", 5), "7a01 85", (0, 2, 2, 3)),
    ("b:bytes encoding=fixed length=0", (b"",), "", (0, 0)),
    ("s:string, b:bytes encoding=fixed length=0", ("x", b""), "7a", (0, 1, 1)),
    ("s:string, b:bytes encoding=fixed length=0, n:int32", ("x", b"", None), "7a", (0, 1, 1, 1)),
    ("n:int32, b:bytes desc encoding=fixed length=0", (None, b""), "", (0, 0, 0)),
])
def test_fixed_bytes_of_length_zero_decode_at_the_end_of_a_key(
        schema: str, values: tuple[Any, ...], key: str, offsets: tuple[int, ...]) -> None:
    """§14.2 allows length=N with N >= 0, and §14.6 decodes a fixed byte array when its N
    bytes are present: zero bytes are present at the end of a key as anywhere else."""
    codec = OrderlyCodec()
    assert codec.encode(values, schema) == hx(key)
    assert codec.field_lengths(values, schema) == tuple(
        b - a for a, b in itertools.pairwise(offsets))
    assert codec.field_offsets(hx(key), schema) == offsets
    assert codec.decode(hx(key), schema) == values


NAN_PAIRS = [
    # (codec options, schema, lo, hi): lo < hi as values, but not as keys, because of a declared
    # order anomaly in the *second* field; the first field holds the same NaN in both
    ({"struct_termination": "SHOULD_NOT"}, "x:float64, s:string desc", "ab", "a"),
    ({"struct_termination": "SHOULD_NOT"}, "x:float64, n:uint64 desc", 0, None),
    ({}, "x:float64, d:decimal", D("-1.23"), D("-1.2")),
    ({"struct_order": "desc"}, "x:float32, d:decimal desc", D("-1.23"), D("-1.2")),
]


@pytest.mark.parametrize("first", [1.0, float("nan")], ids=["one", "nan"])
@pytest.mark.parametrize(("options", "schema", "lo", "hi"), NAN_PAIRS,
                         ids=[s for _, s, _, _ in NAN_PAIRS])
def test_anomalies_are_explained_after_an_equal_nan(first: float, options: dict[str, str],
                                                    schema: str, lo: Any, hi: Any) -> None:
    """The explainers of ``decimal-negative-prefix`` and ``should-not-descending`` look for the
    first field where the two values differ with ``!=``, so an equal NaN in an earlier field
    (the model's NaN is one value: FloatPolicy nan='highest') counts as the difference and the
    declared quirk in the later field is reported as a failure."""
    codec = OrderlyCodec(**options)
    bound = KeySchema.parse(schema)
    nan_or_one = Float32(first) if bound.fields[0].type == "float32" else first
    a, b = (nan_or_one, lo), (nan_or_one, hi)
    assert codec.encode(a, bound) > codec.encode(b, bound)  # the quirk happens
    assert codec.capabilities.explained(("order",), bound, a, b) is not None
    check_order(codec, bound, [a, b])


def test_should_not_descending_range_explains_a_null_prefix_field() -> None:
    """Under struct_termination=SHOULD_NOT a descending NULL is written as nothing (§13
    ``should-not-descending``), so the range of a prefix that ends in it holds every value of
    that field. As the first field this leak is forgiven (``should-not-descending-range``); as
    a later field it is not: the explainer backs up over NULL prefix fields to the last
    non-empty one (field 0 here, ascending), and the harness reports the declared quirk."""
    codec = OrderlyCodec(struct_termination="SHOULD_NOT")
    first = KeySchema.parse("b:int32 desc, c:int32")
    assert codec.prefix_range((None,), first) == (b"", None)  # strinc(ff): no bound
    assert codec.encode((5, None), first) == hx("7a")  # inside [, end): leaks, forgiven
    check_prefix_range(codec, first, (None,), [(5, None)])
    later = KeySchema.parse("a:int32, b:int32 desc, c:int32")
    assert codec.prefix_range((1, None), later) == (hx("81"), hx("82"))
    assert codec.encode((1, 5, None), later) == hx("817a")  # inside [81, 82): leaks
    check_prefix_range(codec, later, (1, None), [(1, 5, None)])
