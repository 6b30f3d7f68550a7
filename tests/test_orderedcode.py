"""The ``orderedcode`` codec (Google's github.com/google/orderedcode): the spec's own tables
both ways, the INFINITY sentinel (and the vectors' tag for it), a natural-order model written
without the codec, the declared anomalies, and hostile input. Every case of the Go-made
vectors is ``conformance/test_orderedcode_vectors.py``'s.

The codec is built directly (:class:`OrderedCodeCodec`, whether or not it is registered), and
every test runs twice, on the compiled and on the reference implementation (``impl``).
"""

from __future__ import annotations

import copy
import enum
import math
import pickle
import random
import struct
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from work import assert_linear, measure

from lexcodecs.codecs.orderedcode import CAPABILITIES, OrderedCodeCodec
from lexcodecs.errors import (
    DecodeError,
    EncodeError,
    LexCodecError,
    SchemaError,
    UnsupportedTypeError,
)
from lexcodecs.schema import KeySchema
from lexcodecs.testing.vectors import load_vectors, typed_value, typed_values
from lexcodecs.types import INFINITY, Float32, InfinitySentinel, Int64

CODEC = OrderedCodeCodec()
I64_MIN, I64_MAX, U64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1
_D, _Q = struct.Struct(">d"), struct.Struct(">Q")

# every test on the compiled and on the reference implementation
pytestmark = pytest.mark.usefixtures("impl")


def hx(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def f64(bits: int) -> float:
    return float(_D.unpack(_Q.pack(bits))[0])


def bits(x: float) -> int:
    return int(_Q.unpack(_D.pack(x))[0])


def same(got: Sequence[Any], want: Sequence[Any]) -> bool:
    """Equal values of the same types; floats compared by their bits (NaN payloads, -0.0)."""
    if len(got) != len(want):
        return False
    for g, w in zip(got, want):
        if type(g) is not type(w):
            return False
        if type(g) is float:
            if bits(g) != bits(w):
                return False
        elif g != w:
            return False
    return True


# -- the spec's own tables (orderedcode.md §2-§5), both ways --------------------------------

SPEC_TABLE: list[tuple[str, Any, str]] = [
    # §3 int64 oracle
    ("n:int64", 0, "80"),
    ("n:int64", 63, "bf"),
    ("n:int64", 64, "c0 40"),
    ("n:int64", -1, "7f"),
    ("n:int64", -64, "40"),
    ("n:int64", -65, "3f bf"),
    ("n:int64", 8192, "e0 20 00"),
    ("n:int64", 1 << 55, "ff 80 80 00 00 00 00 00 00"),
    ("n:int64", 1 << 62, "ff c0 40 00 00 00 00 00 00 00"),
    ("n:int64", I64_MAX, "ff c0 7f ff ff ff ff ff ff ff"),
    ("n:int64", I64_MIN, "00 3f 80 00 00 00 00 00 00 00"),
    # §2 uint64
    ("u:uint64", 0, "00"),
    ("u:uint64", 1, "01 01"),
    ("u:uint64", 256, "02 01 00"),
    ("u:uint64", U64_MAX, "08 ff ff ff ff ff ff ff ff"),
    # §2 strings and INFINITY; §5 descending
    ("s:string", "", "00 01"),
    ("s:string", "a\x00b", "61 00 ff 62 00 01"),
    ("b:bytes", b"\xff", "ff 00 00 01"),
    ("b:bytes", b"\x00\xff", "00 ff ff 00 00 01"),
    ("s:string", INFINITY, "ff ff"),
    ("b:bytes", INFINITY, "ff ff"),
    ("s:string desc", INFINITY, "00 00"),
    ("s:string desc", "", "ff fe"),
    ("t:string trailing=true", "ab", "61 62"),
    ("t:bytes trailing=true", b"\x00\xff", "00 ff"),
    ("t:string desc trailing=true", "ab", "9e 9d"),
    # §4 float64: +0.0 -> 80; NaN is not special
    ("f:float64", 0.0, "80"),
    ("f:float64 desc", 0.0, "7f"),
    ("n:int64 desc", 0, "7f"),
    ("u:uint64 desc", 1, "fe fe"),
]


@pytest.mark.parametrize(("schema", "value", "key"), SPEC_TABLE)
def test_spec_table(schema: str, value: Any, key: str) -> None:
    assert CODEC.encode((value,), schema) == hx(key)
    assert same(CODEC.decode(hx(key), schema), (value,))


def test_package_doc_example_reads_as_two_schemas() -> None:
    key = hx("00 01 04 03 02 00 01")
    assert CODEC.decode(key, "a:bytes, b:bytes") == (b"", b"\x04\x03\x02")
    assert CODEC.decode(key, "a:uint64, b:uint64, c:uint64") == (0, 4, 0x20001)
    assert CODEC.encode(("foo", "bar", INFINITY, 42), "a:string, b:string, c:string, d:uint64"
                        ) == hx("666f6f0001 6261720001 ffff 012a")


def test_negative_zero_is_written_and_read_as_zero() -> None:
    assert CODEC.encode((-0.0,), "f:float64") == hx("80")
    (back,) = CODEC.decode(hx("80"), "f:float64")
    assert bits(back) == 0


def test_nan_payloads_round_trip_and_sort_outside_the_infinities() -> None:
    schema = "f:float64"
    for b in (0x7FF0000000000001, 0x7FF8000000000000, 0x7FFFFFFFFFFFFFFF,
              0xFFF0000000000001, 0xFFF8000000000000, 0xFFFFFFFFFFFFFFFF):
        key = CODEC.encode((f64(b),), schema)
        assert bits(CODEC.decode(key, schema)[0]) == b
    inf, ninf = (CODEC.encode((x,), schema) for x in (math.inf, -math.inf))
    assert CODEC.encode((f64(0x7FF0000000000001),), schema) > inf
    assert CODEC.encode((f64(0xFFF0000000000001),), schema) < ninf


def test_int64_all_sizes_are_the_shortest() -> None:
    # each k-byte size holds [-2**(7k-1), 2**(7k-1)), the next value takes k+1 bytes
    for k in range(1, 10):
        top = (1 << (7 * k - 1)) - 1
        assert len(CODEC.encode((top,), "n:int64")) == k
        assert len(CODEC.encode((-top - 1,), "n:int64")) == k
        assert len(CODEC.encode((top + 1,), "n:int64")) == k + 1
        assert len(CODEC.encode((-top - 2,), "n:int64")) == k + 1


def test_parse_reads_non_minimal_numbers_as_go_does() -> None:
    assert CODEC.decode(hx("c0 00"), "n:int64") == (0,)
    assert CODEC.decode(hx("01 00"), "u:uint64") == (0,)
    # a 10-byte int64 wraps modulo 2**64, as Go's int64 arithmetic does
    assert CODEC.decode(hx("ff c0 ff ff ff ff ff ff ff ff"), "n:int64") == (-1,)
    assert CODEC.decode(hx("ff c0 80 00 00 00 00 00 00 00"), "n:int64") == (I64_MIN,)
    with pytest.raises(DecodeError, match="longer than 10 bytes"):
        CODEC.decode(hx("ff c1 00 00 00 00 00 00 00 00 00"), "n:int64")
    with pytest.raises(DecodeError, match="length 9"):
        CODEC.decode(hx("09" + "00" * 9), "u:uint64")


# -- INFINITY and the vectors' new typed value -------------------------------------------------


def test_infinity_is_one_frozen_value() -> None:
    assert InfinitySentinel() is INFINITY
    assert repr(INFINITY) == "INFINITY"
    assert pickle.loads(pickle.dumps(INFINITY)) is INFINITY
    assert copy.copy(INFINITY) is INFINITY
    assert copy.deepcopy(INFINITY) is INFINITY
    with pytest.raises(AttributeError):
        setattr(INFINITY, "x", 1)  # noqa: B010
    import lexcodecs.types

    assert "INFINITY" in lexcodecs.types.__all__
    assert "InfinitySentinel" in lexcodecs.types.__all__


def test_vectors_loader_reads_infinity() -> None:
    from lexcodecs.testing.vectors import VectorFormatError

    assert typed_value({"infinity": None}) is INFINITY
    assert typed_values([{"str": "a"}, {"infinity": None}]) == ("a", INFINITY)
    with pytest.raises(VectorFormatError, match="'infinity' needs null"):
        typed_value({"infinity": 1})
    cases = load_vectors("orderedcode").cases  # the Go-made cases hold six INFINITYs
    assert sum(v is INFINITY for c in cases for v in c.values or ()) == 6


def test_infinity_sorts_after_every_string() -> None:
    inf = CODEC.encode((INFINITY,), "s:bytes")
    for s in (b"", b"\xff", b"\xff\xff", b"\xff\xff\xff\xff", b"\xfe\xff"):
        assert CODEC.encode((s,), "s:bytes") < inf
        assert CODEC.encode((s,), "s:bytes desc") > CODEC.encode((INFINITY,), "s:bytes desc")


def test_infinity_is_refused_where_go_has_none() -> None:
    for schema in ("t:string trailing=true", "t:bytes desc trailing=true", "n:int64",
                   "u:uint64", "f:float64"):
        with pytest.raises(EncodeError) as info:
            CODEC.encode((INFINITY,), schema)
        assert "INFINITY" in str(info.value)


# -- schemas and refusals -------------------------------------------------------------------


@pytest.mark.parametrize(("schema", "reason"), [
    ("a:int32", "not supported"),
    ("a:bool", "not supported"),
    ("a:int", "not supported"),
    ("a:string nulls first", "NULL"),
    ("a:int64 desc nulls first", "NULL"),
    ("a:string trailing=true, b:int64", "must be the last field"),
    ("a:int64 trailing=true", "string or bytes"),
    ("a:string trailing=1", "not allowed"),
    ("a:string trail=true", "unknown field option"),
])
def test_schema_refusals(schema: str, reason: str) -> None:
    with pytest.raises(SchemaError, match=reason) as info:
        CODEC.bind(schema)
    assert info.value.codec == "orderedcode"


def test_no_codec_options_and_capabilities() -> None:
    with pytest.raises(LexCodecError, match="unknown option"):
        OrderedCodeCodec(api="struct")
    assert OrderedCodeCodec().config() == {"name": "orderedcode"}
    caps = CODEC.capabilities
    assert caps is CAPABILITIES
    assert caps.decoding == "schema"
    assert not caps.schemaless
    assert caps.nulls == "none"
    assert caps.field_types == {"string", "bytes", "int64", "uint64", "float64"}
    assert caps.float_policy.nan == "total"
    assert caps.float_policy.negative_zero == "equal"
    assert any("orderedcode" in r for r in caps.readers)
    with pytest.raises(LexCodecError, match="schema"):
        CODEC.encode(("a",))
    with pytest.raises(LexCodecError, match="schema"):
        CODEC.decode(b"a\x00\x01")


def test_errors_name_codec_field_value_and_reason() -> None:
    with pytest.raises(EncodeError) as info:
        CODEC.encode(("ok", 1 << 63), "name:string, count:int64")
    text = str(info.value)
    assert text.startswith("orderedcode: field 1 'count' (int64): 9223372036854775808: ")
    assert "out of range" in text
    assert "expected -9223372036854775808..9223372036854775807" in text
    with pytest.raises(UnsupportedTypeError) as info2:
        CODEC.encode((True,), "n:int64")
    assert "bool" in str(info2.value)
    with pytest.raises(EncodeError) as info3:
        CODEC.encode(("x" * 1000 + "\ud800",), "s:string")
    assert len(str(info3.value)) < 300
    with pytest.raises(DecodeError) as info4:
        CODEC.decode(hx("61 00 02"), "s:string")
    assert str(info4.value).startswith("orderedcode: field 0 's' (string): at byte 1 "
                                       "(found 00 02): corrupt input: bad escape")


def test_arity_and_none() -> None:
    with pytest.raises(EncodeError, match="2 field"):
        CODEC.encode((1,), "a:int64, b:int64")
    with pytest.raises(UnsupportedTypeError, match="no NULL"):
        CODEC.encode((None,), "a:string")
    with pytest.raises(DecodeError, match="bytes left"):
        CODEC.decode(hx("80 80"), "a:int64")


def test_prefix_ranges() -> None:
    schema = "a:string, b:int64, t:string trailing=true"
    bound = CODEC.bind(schema)
    assert not bound.prefix_free
    assert CODEC.bind("a:string, b:int64").prefix_free
    start, stop = CODEC.prefix_range(("ab",), schema)
    assert (start, stop) == (hx("6162 0001"), hx("6162 0002"))
    assert stop is not None
    for values in (("ab", 5, ""), ("ab", -5, "zz")):
        assert start <= CODEC.encode(values, schema) < stop
    assert not start <= CODEC.encode(("ab\x00", 5, ""), schema) < stop
    # a prefix holding the trailing string is a whole key
    full = CODEC.encode(("a", 1, "x"), schema)
    assert CODEC.prefix_range(("a", 1, "x"), schema) == (full, full + b"\x00")
    assert CODEC.prefix_range((), schema) == (b"", None)
    assert CODEC.prefix_range((INFINITY,), schema) == (hx("ffff"), None)


def test_inspect_annotates_each_item() -> None:
    schema = "s:string, n:int64 desc, u:uint64, f:float64, t:bytes trailing=true"
    values = ("a\x00", -65, 256, 1.5, b"zz")
    key = CODEC.encode(values, schema)
    view = CODEC.inspect(key, schema)
    assert [f.value for f in view.fields] == list(values)
    assert view.fields[0].parts[-1].role == "terminator"
    assert [p.role for p in view.fields[0].parts] == ["payload", "escape", "terminator"]
    assert view.fields[1].kind == "int64 (Decr(int64))"
    assert [p.role for p in view.fields[2].parts] == ["length", "payload"]
    assert view.fields[-1].end == len(key)
    assert "orderedcode key" in view.render()
    with pytest.raises(DecodeError, match="bytes left"):
        CODEC.inspect(hx("61 00 01 00"), "s:string")
    with pytest.raises(LexCodecError, match="not self-describing"):
        CODEC.inspect(key)


# -- the natural order, written without the codec ----------------------------------------------


class Rev:
    """Reverses the comparison of what it wraps (a descending field)."""

    __slots__ = ("k",)

    def __init__(self, k: Any) -> None:
        self.k = k

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rev) and self.k == other.k

    def __lt__(self, other: Rev) -> bool:
        return bool(other.k < self.k)


def _float_key(x: float) -> tuple[Any, ...]:
    b = bits(x)
    if x != x:  # IEEE total order: -NaN below -inf, +NaN above +inf, by payload
        magnitude = b & 0x7FFFFFFFFFFFFFFF
        return (0, -magnitude) if b >> 63 else (4, magnitude)
    if math.isinf(x):
        return (1,) if x < 0 else (3,)
    return (2, x + 0.0)  # -0.0 is zero


def _text_key(v: Any) -> tuple[Any, ...]:
    if v is INFINITY:
        return (1,)
    return (0, v.encode("utf-8") if isinstance(v, str) else bytes(v))


MODEL = {"string": _text_key, "bytes": _text_key, "int64": lambda v: v,
         "uint64": lambda v: v, "float64": _float_key}


def model_key(values: Sequence[Any], schema: KeySchema) -> tuple[Any, ...]:
    return tuple(Rev(MODEL[f.type](v)) if f.descending else MODEL[f.type](v)
                 for v, f in zip(values, schema.fields))


FLOATS = st.one_of(st.floats(), st.integers(0, U64_MAX).map(f64),
                   st.sampled_from([0.0, -0.0, math.inf, -math.inf, 5e-324, -5e-324]))
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=6)
BYTES = st.binary(max_size=6).map(lambda b: b.replace(b"\x01", b"\xff"))


def _values_of(schema: KeySchema) -> st.SearchStrategy[tuple[Any, ...]]:
    parts = []
    for f in schema.fields:
        trailing = bool(f.options.get("trailing", False))
        base = {"string": TEXT, "bytes": BYTES, "int64": st.integers(I64_MIN, I64_MAX),
                "uint64": st.integers(0, U64_MAX), "float64": FLOATS}[f.type]
        if f.type in ("string", "bytes") and not trailing:
            base = st.one_of(base, st.just(INFINITY))
        parts.append(base)
    return st.tuples(*parts)


SCHEMAS = [KeySchema.parse(s) for s in (
    "s:string, n:int64 desc, u:uint64, f:float64 desc, b:bytes desc",
    "b:bytes, f:float64, t:string trailing=true",
    "n:int64, t:bytes desc trailing=true",
    "s:string desc, u:uint64 desc, i:int64, g:float64",
)]


def _normalised(values: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(v + 0.0 if type(v) is float and v == 0 else v for v in values)


@pytest.mark.parametrize("schema", SCHEMAS, ids=str)
@settings(max_examples=12)
@given(data=st.data())
def test_round_trip(schema: KeySchema, data: st.DataObject) -> None:
    values = data.draw(_values_of(schema))
    key = CODEC.encode(values, schema)
    assert same(CODEC.decode(key, schema), _normalised(values))


def _explained(schema: KeySchema, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return CAPABILITIES.explained(("order",), schema, a, b) is not None


@pytest.mark.parametrize("schema", SCHEMAS, ids=str)
@settings(max_examples=10)
@given(data=st.data())
def test_byte_order_is_the_natural_order(schema: KeySchema, data: st.DataObject) -> None:
    batch = data.draw(st.lists(_values_of(schema), min_size=2, max_size=12))
    keyed = [(CODEC.encode(v, schema), model_key(v, schema), v) for v in batch]
    for ka, ma, va in keyed:
        for kb, mb, vb in keyed:
            if ma < mb and not ka < kb:
                assert _explained(schema, va, vb), (va, vb, ka.hex(), kb.hex())
            if ma == mb:
                assert ka == kb  # injective up to the model's equality (-0.0 is zero)
            elif ka == kb:
                pytest.fail(f"{va!r} and {vb!r} share the key {ka.hex()}")


@pytest.mark.parametrize("schema", SCHEMAS[:1] + SCHEMAS[3:], ids=str)
@settings(max_examples=10)
@given(data=st.data())
def test_prefix_free_and_prefix_ranges(schema: KeySchema, data: st.DataObject) -> None:
    batch = data.draw(st.lists(_values_of(schema), min_size=2, max_size=8))
    keys = [CODEC.encode(v, schema) for v in batch]
    for a in keys:
        for b in keys:
            assert a == b or not b.startswith(a)
    n = data.draw(st.integers(0, len(schema.fields)))
    start, stop = CODEC.prefix_range(batch[0][:n], schema)
    for v, k in zip(batch, keys):
        inside = start <= k and (stop is None or k < stop)
        assert inside == (model_key(v[:n], schema) == model_key(batch[0][:n], schema))


def test_every_declared_anomaly_is_real() -> None:
    names = [a.name for a in CAPABILITIES.anomalies]
    assert len(set(names)) == len(names)
    order = [a for a in CAPABILITIES.anomalies if a.kind == "order"]
    assert [a.name for a in order] == ["descending-trailing-string-sorts-before-extensions"]
    for anomaly in order:
        assert anomaly.schema is not None
        schema = KeySchema.parse(anomaly.schema)
        a, b = anomaly.witness
        assert model_key(a, schema) < model_key(b, schema)
        assert not CODEC.encode(a, schema) < CODEC.encode(b, schema)
        assert anomaly.applies(schema, a, b)
        # narrow: not a descending trailing field, or not a prefix, is not explained
        assert not anomaly.applies(KeySchema.parse("s:string desc"), a, b)
        assert not anomaly.applies(schema, ("abc",), ("abd",))
    # the interop facts, each shown by bytes
    assert CODEC.encode((-0.0,), "f:float64") == CODEC.encode((0.0,), "f:float64")
    assert bits(CODEC.decode(CODEC.encode((-0.0,), "f:float64"), "f:float64")[0]) == 0
    assert CODEC.decode(hx("c0 00"), "n:int64") == CODEC.decode(hx("80"), "n:int64")
    assert CODEC.decode(hx("fe 61 00 01"), "s:bytes") == (b"\xfea",)
    with pytest.raises(DecodeError, match="invalid UTF-8"):
        CODEC.decode(hx("fe 61 00 01"), "s:string")
    assert {a.kind for a in CAPABILITIES.anomalies} == {"order", "interop"}


# -- hostile input --------------------------------------------------------------------------

HOSTILE_SCHEMAS = SCHEMAS + [KeySchema.parse(s) for s in (
    "a:bytes", "a:string desc", "a:int64", "a:uint64 desc", "a:float64 desc",
    "a:string desc trailing=true")]


@pytest.mark.parametrize("schema", HOSTILE_SCHEMAS, ids=str)
@settings(max_examples=6)
@given(data=st.data())
def test_decode_of_junk_refuses_or_reads(schema: KeySchema, data: st.DataObject) -> None:
    if data.draw(st.booleans()):
        key = data.draw(st.binary(max_size=40))
    else:  # a real key, mutated
        buf = bytearray(CODEC.encode(data.draw(_values_of(schema)), schema))
        for _ in range(data.draw(st.integers(1, 3))):
            op = data.draw(st.sampled_from(["flip", "cut", "insert"]))
            i = data.draw(st.integers(0, len(buf)))
            if op == "flip" and i < len(buf):
                buf[i] = data.draw(st.sampled_from([0x00, 0x01, 0xFE, 0xFF, 0x80, 0xC0]))
            elif op == "cut":
                del buf[i:]
            else:
                buf[i:i] = data.draw(st.sampled_from([b"\x00", b"\xff", b"\x01", b"\xc1"]))
        key = bytes(buf)
    try:
        values = CODEC.decode(key, schema)
    except DecodeError as exc:
        error: DecodeError | None = exc
    else:
        error = None
        assert len(values) == len(schema.fields)
        values2, rest = CODEC.parse(key, schema)
        assert rest == b""
        assert same(values2, values)
    if error is not None:
        assert error.codec == "orderedcode"


class Color(enum.IntEnum):
    RED = 1


class MyStr(str):
    pass


class MyBytes(bytes):
    pass


class MyFloat(float):
    pass


ODD_VALUES: list[Any] = [
    True, False, 0, -1, 1 << 63, -(1 << 63) - 1, 1 << 64, 1 << 2000, -(1 << 5000), Color.RED,
    Int64(5), 1.5, math.nan, f64(0xFFF0000000000123), -0.0, math.inf, Float32(0.1),
    MyFloat(2.5), "x", MyStr("y"), "\ud800", b"\x00", MyBytes(b"\xff"), bytearray(b"ab"),
    memoryview(b"cd"), INFINITY, None, object(), [1], (1,), {"a": 1}, 1 + 2j,
    (1 << 53) + 1, 1 << 53, 2 ** 1024,
]


@pytest.mark.parametrize("field", ["string", "bytes", "int64", "uint64", "float64",
                                   "string desc trailing=true", "bytes trailing=true"])
def test_encode_of_odd_objects_refuses_or_writes(field: str) -> None:
    schema = f"a:{field}"
    refused: list[LexCodecError] = []
    for v in ODD_VALUES:
        try:
            key = CODEC.encode((v,), schema)
        except (EncodeError, SchemaError) as exc:
            refused.append(exc)
            continue
        back = CODEC.decode(key, schema)[0]
        if type(v) is not bool:
            assert back == v or (v != v and back != back) or bytes(back) == bytes(v)
        else:
            pytest.fail(f"bool {v!r} was written in a {field} field")
    assert refused
    for err in refused:
        assert err.codec == "orderedcode", err
        assert err.field == 0, err
        assert type(err) in (EncodeError, UnsupportedTypeError, SchemaError)


def test_released_buffer_and_non_bytes_keys() -> None:
    view = memoryview(b"ab")
    view.release()
    with pytest.raises(EncodeError, match="released"):
        CODEC.encode((view,), "b:bytes")
    with pytest.raises(UnsupportedTypeError):
        CODEC.decode("80", "a:int64")  # type: ignore[arg-type]
    assert CODEC.decode(bytearray(b"\x80"), "a:int64") == (0,)  # type: ignore[arg-type]
    assert CODEC.decode(memoryview(b"\x80"), "a:int64") == (0,)  # type: ignore[arg-type]


@pytest.mark.parametrize("schema", ["b:bytes", "b:bytes desc"])
@pytest.mark.parametrize("ok", [True, False], ids=["whole", "malformed-at-the-end"])
def test_decode_is_linear(schema: str, ok: bool) -> None:
    """Every other byte escaped; malformed at the very end: the string reader's worst cases.
    4 times the bytes cost at most 8 times the work (quadratic would be 16). Counted, not
    timed (``work.py``): events and bytes copied, compiled allocations included."""
    keys = [CODEC.encode((b"\x00\xffa" * n,), schema) for n in (500, 2_000)]
    if not ok:
        keys = [k[:-1] for k in keys]
    results = [measure(lambda k=k: CODEC.decode(k, schema)) for k in keys]
    for result, _ in results:
        assert result[0] == ("ok" if ok else "error"), result
        if not ok:
            assert result[1] is DecodeError, result
    assert_linear(results[0][1], results[1][1], 4, f"decoding {len(keys[1])} bytes against "
                                                   f"{len(keys[0])}")


def test_many_fields_and_long_keys_decode_with_linear_work() -> None:
    """1,000 fields cost at most twice ten times the work of 100 (counted, ``work.py``)."""
    rng = random.Random(7)
    works = []
    for n in (100, 1000):
        schema = KeySchema.parse(", ".join(f"f{i}:int64" for i in range(n)))
        values = tuple(rng.randrange(I64_MIN, I64_MAX) for _ in range(n))
        key = CODEC.encode(values, schema)
        result, work = measure(lambda k=key, s=schema: CODEC.decode(k, s))
        assert result == ("ok", values)
        works.append(work)
    assert_linear(*works, 10, "decoding 1,000 int64 fields against 100")
