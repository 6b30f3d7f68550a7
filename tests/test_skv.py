"""The ``skv`` codec: unit tests for refusals, the K2 key helpers, ``prefix_range`` and strict
decoding (spec ``skv.md``), on both implementations. The conformance harness is in
``test_skv_conformance.py``; its ``decode_junk`` check is where "decoding any bytes raises only
DecodeError" is held (on both implementations), so the fuzz tests here check what is skv's
own: where a refusal points, and that what decodes re-encodes to the same bytes."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexcodecs import (
    DecodeError,
    EncodeError,
    KeySchema,
    LexCodecError,
    SchemaError,
    UnsupportedTypeError,
)
from lexcodecs.codecs.skv import EMPTY_PREFIX_STOP, NULL_FIRST, NULL_LAST, SkvCodec
from lexcodecs.schema import Field
from lexcodecs.types import Float32, Int16

CODEC = SkvCodec()

# every test here runs on the compiled and on the reference implementation
pytestmark = pytest.mark.usefixtures("impl")

SCHEMAS = (
    "tenant:string, ts:int64 desc, id:bytes nulls last, flag:bool",
    "a:int16 desc nulls first, b:uint32, c:float64 desc, d:string desc nulls last",
    "s:string, t:string",
    # the brief's "x:float32, y:uint8, z:int8": K2 has no 8-bit integers (spec §3), so the
    # 16-bit types stand in; int8/uint8 are refused (test_refuses_types_k2_lacks)
    "x:float32, y:uint16, z:int16",
    "p:int32 key=partition, q:uint64 desc key=range, r:bytes desc nulls first key=range",
    "u:uint16 nulls last, v:int32 desc nulls last, w:float32 desc nulls first, b:bool desc",
)


def hx(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


# -- the seed's example -----------------------------------------------------------------------


def test_seed_bo_burns_sorts_before_bob_urns() -> None:
    schema = "first:string, last:string"
    bo = CODEC.encode(("Bo", "burns"), schema)
    bob = CODEC.encode(("Bob", "urns"), schema)
    assert bo == hx("01 42 6f 00 01 01 62 75 72 6e 73 00 01")
    assert bob == hx("01 42 6f 62 00 01 01 75 72 6e 73 00 01")
    assert bo < bob
    assert bo != bob
    # they differ at offset 3: the terminator's 00 against "b"
    assert next(i for i, (x, y) in enumerate(zip(bo, bob)) if x != y) == 3
    assert CODEC.decode(bo, schema) == ("Bo", "burns")
    assert CODEC.decode(bob, schema) == ("Bob", "urns")


def test_seed_escaping_example_bytes_fields() -> None:
    # seed: (0x03, 0xFF 0x01) < (0x03 0x00, 0x02) must hold after escaping
    schema = "region:bytes, account:bytes"
    a = CODEC.encode((b"\x03", b"\xff\x01"), schema)
    b = CODEC.encode((b"\x03\x00", b"\x02"), schema)
    assert a < b
    assert CODEC.decode(b, schema) == (b"\x03\x00", b"\x02")


def test_spec_composite_example() -> None:
    schema = "tenant:string, ts:int64 desc, region:string nulls last, flag:bool desc nulls last"
    key = CODEC.encode(("acme", 1700000000, None, True), schema)
    assert key == hx("0161636d650001 fbfcffffffff9aac0efffffe ff0001 f5fefffe")
    assert CODEC.decode(key, schema) == ("acme", 1700000000, None, True)
    assert CODEC.decode(key) == (b"acme", 1700000000, None, True)


# -- encode refusals --------------------------------------------------------------------------


@pytest.mark.parametrize(("field_type", "value"), [
    ("int16", True), ("int32", False), ("uint64", True), ("int64", 1.0), ("int32", "1"),
    ("bool", 1), ("bool", 0), ("bool", "true"),
    ("string", b"a"), ("bytes", "a"), ("string", 1),
    ("float64", True), ("float64", "1.0"), ("float32", False), ("float32", None.__class__),
])
def test_refuses_wrong_python_types(field_type: str, value: object) -> None:
    with pytest.raises(UnsupportedTypeError) as info:
        CODEC.encode((value,), f"x:{field_type}")
    assert info.value.codec == "skv"
    assert info.value.field == 0


@pytest.mark.parametrize(("field_type", "low", "high"), [
    ("int16", -(2**15), 2**15 - 1), ("int32", -(2**31), 2**31 - 1),
    ("int64", -(2**63), 2**63 - 1), ("uint16", 0, 2**16 - 1), ("uint32", 0, 2**32 - 1),
    ("uint64", 0, 2**64 - 1),
])
def test_int_ranges_checked_never_wrapped(field_type: str, low: int, high: int) -> None:
    schema = f"x:{field_type}"
    for v in (low, high):
        assert CODEC.decode(CODEC.encode((v,), schema), schema) == (v,)
    for v in (low - 1, high + 1):
        with pytest.raises(EncodeError, match="out of range"):
            CODEC.encode((v,), schema)


def test_typed_int_wrappers_are_ints() -> None:
    assert CODEC.encode((Int16(-1),), "x:int16") == hx("0202fffe0001")


def test_int_min_and_max_share_payload_but_not_sign() -> None:
    lo = CODEC.encode((-(2**15),), "x:int16")
    hi = CODEC.encode((2**15 - 1,), "x:int16")
    assert lo[2:] == hi[2:]
    assert lo < hi


def test_nan_refused_in_both_float_types() -> None:
    for t in ("float32", "float64"):
        for nan in (math.nan, -math.nan, Float32(math.nan)):
            with pytest.raises(EncodeError, match="NaN"):
                CODEC.encode((nan,), f"x:{t}")
            with pytest.raises(EncodeError, match="NaN"):
                CODEC.encode((nan,), f"x:{t} desc")


def test_negative_zero_is_distinct_and_sorts_just_below_zero() -> None:
    for t in ("float32", "float64"):
        neg = CODEC.encode((-0.0,), f"x:{t}")
        pos = CODEC.encode((0.0,), f"x:{t}")
        tiny = CODEC.encode((-1.401298464324817e-45,), f"x:{t}")
        assert tiny < neg < pos
        back = CODEC.decode(neg, f"x:{t}")[0]
        assert back == 0.0
        assert math.copysign(1.0, back) == -1.0


def test_float32_needs_exact_binary32_values() -> None:
    with pytest.raises(EncodeError, match="binary32"):
        CODEC.encode((0.1,), "x:float32")
    assert CODEC.encode((Float32(0.1),), "x:float32")[:1] == b"\x08"
    assert CODEC.encode((0.5,), "x:float32") == CODEC.encode((Float32(0.5),), "x:float32")
    assert CODEC.encode((3,), "x:float32") == CODEC.encode((3.0,), "x:float32")
    with pytest.raises(EncodeError):
        CODEC.encode((2**24 + 1,), "x:float32")
    assert type(CODEC.decode(CODEC.encode((0.5,), "x:float32"), "x:float32")[0]) is Float32


def test_float64_accepts_exact_ints_only() -> None:
    assert CODEC.encode((1,), "x:float64") == CODEC.encode((1.0,), "x:float64")
    with pytest.raises(EncodeError):
        CODEC.encode((2**53 + 1,), "x:float64")
    with pytest.raises(EncodeError):
        CODEC.encode((10**400,), "x:float64")


def test_lone_surrogate_refused() -> None:
    with pytest.raises(EncodeError, match="surrogate"):
        CODEC.encode(("a\ud800",), "x:string")


def test_schemaless_encode_is_refused() -> None:
    with pytest.raises(SchemaError):
        CODEC.encode(("a", 1))
    with pytest.raises(SchemaError):
        CODEC.prefix_range(("a",))


@pytest.mark.parametrize("field_type", ["int8", "uint8", "int", "decimal", "uuid",
                                        "timestamp", "duration", "tuple"])
def test_refuses_types_k2_lacks(field_type: str) -> None:
    with pytest.raises(SchemaError) as info:
        CODEC.bind(f"x:{field_type}")
    assert info.value.codec == "skv"


def test_wrong_arity_refused() -> None:
    with pytest.raises(EncodeError):
        CODEC.encode(("a",), "a:string, b:string")
    with pytest.raises(EncodeError):
        CODEC.prefix_range(("a", "b", "c"), "a:string, b:string")


# -- descending and NULL markers ---------------------------------------------------------------


def test_descending_is_whole_field_complement_and_nulls_never_inverted() -> None:
    for schema, value in (("x:string", "a\x00b"), ("x:int32", -5), ("x:uint64", 7),
                          ("x:bool", True), ("x:float64", -2.5), ("x:bytes", b"\xff\x00")):
        asc = CODEC.encode((value,), schema)
        desc = CODEC.encode((value,), schema + " desc")
        assert desc == bytes(b ^ 0xFF for b in asc)
        assert CODEC.decode(desc, schema + " desc") == (value,)
    assert CODEC.encode((None,), "x:int32 desc nulls first") == NULL_FIRST
    assert CODEC.encode((None,), "x:int32 desc nulls last") == NULL_LAST
    assert CODEC.encode((None,), "x:int32 desc") == NULL_LAST  # natural: last
    assert CODEC.encode((None,), "x:int32") == NULL_FIRST  # natural: first, K2's default


def test_descending_string_prefix_sorts_after() -> None:
    a = CODEC.encode(("a",), "x:string desc")
    ab = CODEC.encode(("ab",), "x:string desc")
    assert ab < a


def test_null_loses_its_type_schemaless() -> None:
    key = CODEC.encode((None, None), "a:int64, b:string nulls last")
    assert key == NULL_FIRST + NULL_LAST
    assert CODEC.decode(key) == (None, None)


# -- decoding ---------------------------------------------------------------------------------


def test_payload_holding_terminator_bytes_is_read_by_width() -> None:
    key = CODEC.encode((1, "x"), "a:int32, b:string")
    assert key[:8] == hx("0303000000010001")  # 00 01 inside the payload
    assert CODEC.decode(key, "a:int32, b:string") == (1, "x")
    assert CODEC.decode(key) == (1, b"x")


@pytest.mark.parametrize(("schema", "key", "offset"), [
    ("x:int16", "0203800000" "01", 2),             # 03 with a payload above the max
    ("x:int16", "0202 7ffe 0001", 2),              # 02 with a payload below the negative range
    ("x:int16 desc", "fdfd 0001 0001", 4),         # desc terminator must be ff fe
    ("x:string desc", "fe 61 ff 01 fffe", 2),      # desc bad escape
    ("x:string desc", "fe 61", 2),                 # desc unterminated
    ("x:string", "01 61 00", 3),                   # escape byte at the end
    ("x:bool", "0a 01 00", 3),
    ("x:int32", "03 03 00 00", 4),                 # payload cut
    ("x:int32", "03", 1),                          # sign byte missing
    ("x:string", "02 03 00 00 00 01", 0),          # int16 where string declared
    ("x:string", "fe 9e ff fe", 0),                # descending where ascending declared
    ("x:uint16", "05 00 00 00 01 00 00 01", 5),    # trailing
    ("x:float32", "08 ff c0 00 00 00 01", 1),      # NaN
    ("x:float32", "08 80 00 00 00 00 02", 6),
    ("a:int16, b:int16", "02 03 00 01 00 01", 6),  # missing second field
    ("x:int32 nulls last", "ff 00", 2),
])
def test_strict_decode_offsets(schema: str, key: str, offset: int) -> None:
    with pytest.raises(DecodeError) as info:
        CODEC.decode(hx(key), schema)
    assert info.value.offset == offset, str(info.value)
    assert info.value.codec == "skv"


@pytest.mark.parametrize(("key", "offset"), [
    ("", 0), ("0b0001", 0), ("f4 00 01", 0), ("0e", 0), ("000002", 2), ("ff01", 1),
    ("00", 1), ("01 61 00 01 0f", 4), ("0a 01 00 01 0a", 5), ("f5 ff ff", 3),
])
def test_strict_schemaless_decode_offsets(key: str, offset: int) -> None:
    with pytest.raises(DecodeError) as info:
        CODEC.decode(hx(key))
    assert info.value.offset == offset, str(info.value)


def test_schemaless_values_and_types() -> None:
    schema = ("a:string, b:bytes desc, c:int16, d:uint32 desc, e:bool, f:float32, "
              "g:float64 desc, h:int64 nulls last")
    values = ("é", b"\x00", -7, 9, False, Float32(1.5), -0.0, None)
    back = CODEC.decode(CODEC.encode(values, schema))
    assert back[:6] == ("é".encode(), b"\x00", -7, 9, False, 1.5)
    assert type(back[5]) is Float32
    assert type(back[6]) is float
    assert math.copysign(1.0, back[6]) == -1.0
    assert back[7] is None


def test_decode_refuses_non_bytes() -> None:
    with pytest.raises(UnsupportedTypeError):
        CODEC.decode("0a000001")  # type: ignore[arg-type]


@given(st.binary(max_size=40), st.sampled_from([*SCHEMAS, None]))
def test_fuzz_refusals_say_where_and_decodes_re_encode(data: bytes, schema: str | None
                                                       ) -> None:
    """Random bytes: a refusal's offset lies within the key; whatever decodes with a schema
    re-encodes to the same bytes (the decoder is strict), and without one holds a value.
    (That nothing but a DecodeError escapes is the harness's ``decode_junk`` check, on both
    implementations.)"""
    error: DecodeError | None = None
    try:
        back = CODEC.decode(data, schema)
    except DecodeError as exc:
        error = exc
    if error is not None:
        assert error.offset is not None
        assert 0 <= error.offset <= len(data)
        return
    if schema is not None:
        assert CODEC.encode(back, schema) == data
    else:
        assert len(back) >= 1


# -- prefix_range ------------------------------------------------------------------------------


def test_prefix_range_empty_prefix() -> None:
    schema = "a:string nulls last, b:int32"
    start, stop = CODEC.prefix_range((), schema)
    assert (start, stop) == (b"", EMPTY_PREFIX_STOP)
    assert stop == hx("ff0002")
    for values in ((None, None), (None, 2**31 - 1), ("\U0010ffff" * 3, None)):
        assert start <= CODEC.encode(values, schema) < stop


def test_prefix_range_next_field_nulls_last() -> None:
    schema = "tenant:string, region:string nulls last"
    start, stop = CODEC.prefix_range(("acme",), schema)
    assert start == hx("0161636d650001")
    assert stop == hx("0161636d650002")
    key = CODEC.encode(("acme", None), schema)
    assert key == hx("0161636d650001 ff0001")
    assert start <= key < stop
    assert not key < start + b"\xff"  # why appending one ff would be wrong
    assert not start <= CODEC.encode(("acmf", "a"), schema) < stop
    assert not start <= CODEC.encode(("acme\x00", "a"), schema) < stop


def test_prefix_range_descending_and_null_prefixes() -> None:
    assert CODEC.prefix_range(("acme",), "t:string desc, x:int16") == (
        hx("fe9e9c929afffe"), hx("fe9e9c929affff"))
    assert CODEC.prefix_range((None,), "t:string nulls last, x:int16") == (
        hx("ff0001"), hx("ff0002"))
    assert CODEC.prefix_range((None,), "t:string, x:int16") == (hx("000001"), hx("000002"))


def test_prefix_range_full_key() -> None:
    schema = "a:uint16, b:bool"
    key = CODEC.encode((1, True), schema)
    assert CODEC.prefix_range((1, True), schema) == (key, key[:-1] + b"\x02")


# -- partition/range split and storage keys (spec §7) --------------------------------------


SPLIT = "tenant:string, shard:uint16, ts:int64 desc key=range, id:bytes key=range"


def test_partition_and_range_keys() -> None:
    values = ("acme", 3, 42, b"\x00")
    full = CODEC.encode(values, SPLIT)
    p = CODEC.partition_key(values, SPLIT)
    r = CODEC.range_key(values, SPLIT)
    assert p == CODEC.encode(("acme", 3), "tenant:string, shard:uint16")
    assert p + r == full
    assert r == CODEC.encode((42, b"\x00"), "ts:int64 desc, id:bytes")
    assert CODEC.range_key(("a",), "a:string") == b""
    assert CODEC.partition_key(("a",), "a:string") == CODEC.encode(("a",), "a:string")


def test_key_option_validation() -> None:
    with pytest.raises(SchemaError, match="partitionKeyFields"):
        CODEC.bind("a:string key=range")
    with pytest.raises(SchemaError, match="after a range-key"):
        CODEC.bind("a:string, b:int32 key=range, c:int32")
    with pytest.raises(SchemaError, match="not allowed"):
        CODEC.bind("a:string key=sort")
    with pytest.raises(SchemaError, match="unknown field option"):
        CODEC.bind("a:string length=3")
    CODEC.bind("a:string key=partition, b:int32 key=partition, c:bool key=range")


def test_storage_key_layout_and_split() -> None:
    values = ("acme", 3, 42, b"\x00")
    key = CODEC.storage_key("orders", values, SPLIT)
    assert key == b"orders" + b"\x00\x01" + CODEC.encode(values, SPLIT)
    assert CODEC.storage_key(b"orders", values, SPLIT) == key
    name, p, r = CODEC.split_storage_key(key, SPLIT)
    assert name == b"orders"
    assert p == CODEC.partition_key(values, SPLIT)
    assert r == CODEC.range_key(values, SPLIT)
    assert CODEC.decode_storage_key(key, SPLIT) == (b"orders", values)
    # empty name
    assert CODEC.split_storage_key(CODEC.storage_key("", values, SPLIT), SPLIT)[0] == b""


def test_storage_key_orders_by_name_then_key() -> None:
    schema = "a:string"
    keys = [CODEC.storage_key(n, (v,), schema)
            for n, v in (("ab", "z"), ("abc", ""), ("abc", "a"), ("b", ""))]
    assert keys == sorted(keys)


def test_storage_key_refusals() -> None:
    with pytest.raises(EncodeError, match="00"):
        CODEC.storage_key("a\x00b", ("x",), "a:string")
    with pytest.raises(EncodeError, match="00"):
        CODEC.storage_key(b"a\x00", ("x",), "a:string")
    with pytest.raises(UnsupportedTypeError):
        CODEC.storage_key(5, ("x",), "a:string")  # type: ignore[arg-type]


@pytest.mark.parametrize(("key", "offset"), [
    ("6e", 1),                     # no separator
    ("6e00", 2),                   # separator cut
    ("6e0002 01610001", 2),        # 00 not followed by 01
    ("6e0001", 3),                 # no fields
    ("6e0001 01610001 00", 7),     # trailing
    ("6e0001 0161", 5),            # unterminated field, offsets are in the storage key
])
def test_split_storage_key_refusals(key: str, offset: int) -> None:
    with pytest.raises(DecodeError) as info:
        CODEC.split_storage_key(hx(key), "a:string")
    assert info.value.offset == offset, str(info.value)


def test_storage_prefix_range() -> None:
    start, stop = CODEC.storage_prefix_range("n", (), SPLIT)
    assert (start, stop) == (b"n\x00\x01", b"n\x00\x02")
    start, stop = CODEC.storage_prefix_range("n", ("acme",), SPLIT)
    key = CODEC.storage_key("n", ("acme", 1, 2, b""), SPLIT)
    assert start <= key < stop
    assert not start <= CODEC.storage_key("n", ("acmf", 1, 2, b""), SPLIT) < stop


def test_encode_field_literals() -> None:
    assert CODEC.encode_field(1001, "x:uint16 desc") == hx("fafc16fffe")
    assert CODEC.encode_field(None, "x:uint16 desc") == NULL_LAST
    assert CODEC.encode_field(None, Field("x", "string", nulls="last")) == NULL_LAST
    # a key=range field is still one field's encoding
    assert CODEC.encode_field("a", "x:string key=range") == hx("01610001")
    # the literal equals the field's slice of a full key
    values = ("acme", 3, 42, b"\x00")
    full = CODEC.encode(values, SPLIT)
    schema = KeySchema.parse(SPLIT)
    assert b"".join(CODEC.encode_field(v, f) for v, f in zip(values, schema.fields)) == full
    with pytest.raises(SchemaError):
        CODEC.encode_field(1, "x:int16, y:int16")
    with pytest.raises(SchemaError):
        CODEC.encode_field(1, "x:int8")
    with pytest.raises(SchemaError):
        CODEC.encode_field(1, "x:int16 key=nope")
    with pytest.raises(UnsupportedTypeError):
        CODEC.encode_field(True, "x:int16")


# -- capabilities ----------------------------------------------------------------------------


def test_capabilities_as_spec_s8() -> None:
    caps = CODEC.capabilities
    assert caps.decoding == "self-describing"
    assert caps.descending
    assert caps.nulls == "both"
    assert caps.injective
    assert caps.prefix_free
    assert not caps.schemaless
    assert caps.float_policy.nan == "refuse"
    assert caps.float_policy.negative_zero == "distinct"
    assert caps.field_types == {"string", "bytes", "bool", "int16", "int32", "int64",
                                "uint16", "uint32", "uint64", "float32", "float64"}
    assert "K2 cannot read" in caps.notes
    assert {a.name for a in caps.anomalies} == {"k2-cannot-read-floats",
                                                "k2-cannot-read-descending"}
    assert all(a.kind == "interop" for a in caps.anomalies)
    assert CODEC.name == "skv"
    assert CODEC.config() == {"name": "skv"}


def test_errors_are_lexcodec_errors_with_context() -> None:
    with pytest.raises(LexCodecError) as info:
        CODEC.encode(("a", 70000), "s:string, n:int16")
    assert info.value.field == 1
    assert info.value.field_name == "n"
    assert "int16" in str(info.value)
