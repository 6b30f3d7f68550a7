"""The compiled ``sqlite4`` module never answers differently from the reference Python.

Every test runs the same call under ``_impl.use("compiled")`` and ``_impl.use("reference")``:
the bytes, the decoded values (type for type, NaN by its bits, a Decimal by its text) and any
error (class and message) must be the same. The values are those a hostile or careless caller
passes too: subclasses of int, str, bytes and float, bool and IntEnum in int fields,
bytearray and memoryview, NaN, infinities, huge and tiny numbers, arbitrary objects. Keys are
valid, mutated and random. Nothing but a :class:`~lexcodecs.errors.LexCodecError` may leave
either implementation (the shared check, ``oddities.both``). Then valid exact-type values of
every type and order must run with no hand-over to the reference at all.
"""

from __future__ import annotations

import decimal
import math
import os
import struct
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from oddities import (
    Colour,
    MyBytes,
    MyDecimal,
    MyFloat,
    MyInt,
    MyStr,
    both,
    pick,
    same,
    tampered_float32,
)

from lexcodecs import DecodeError, KeySchema, LexCodecError, _impl
from lexcodecs.codecs.sqlite4 import Sqlite4Codec
from lexcodecs.testing.strategies import junk_keys, keys
from lexcodecs.types import INT_TYPES, Float32, Int8, UInt64

D = decimal.Decimal
_F64 = struct.Struct(">d")
FIELD_TYPES = sorted({*INT_TYPES, "int", "float64", "decimal", "string", "bytes"})
CODECS = {table: Sqlite4Codec(table=table) for table in (None, 0, 300, 2**64 - 1)}


def compiled_module() -> Any:
    """The built module, or skip (fail when ``LEXCODECS_REQUIRE_COMPILED`` is set)."""
    with _impl.use("compiled"):
        module = _impl.compiled("sqlite4")
    if module is None:
        if os.environ.get(_impl.ENV_REQUIRE):
            pytest.fail("lexcodecs.codecs.sqlite4._compiled is not built")
        pytest.skip("lexcodecs.codecs.sqlite4._compiled is not built")
    return module


def agree_on_keys(decode: Callable[[bytes], Any], keys: list[bytes]) -> None:
    for key in keys:
        both(partial(decode, key), key)


def mutations(key: bytes, at: int, byte: int) -> list[bytes]:
    at = at % (len(key) + 1)
    out = [key, key[:at], key + bytes((byte,)), key[:at] + bytes((byte,)) + key[at:],
           key[:at] + bytes((byte,)) + key[at + 1:], bytes(b ^ 0xFF for b in key)]
    return out


# -- odd values -----------------------------------------------------------------------------


ODD = pick([
    True, False, Colour.RED, Colour.HUGE, MyInt(5), Int8(-3), UInt64(2**64 - 1), MyStr("abc"),
    MyBytes(b"q"), MyFloat(2.5), Float32(0.1), tampered_float32(0x7FC00000), MyDecimal("1.5"),
    MyDecimal("NaN"), bytearray(b"ab\x00"), memoryview(b"xy"), object(), [1], (1,), {1: 2}, 1j,
    "a\x00b", "\ud800", "", b"", None,
])
HUGE_INTS = st.sampled_from([
    2**63 - 1, -(2**63), 2**63, 2**64 - 1, 2**64, -(2**63) - 1, 10**19, 10**20, -(10**20) + 1,
    10**40, -(10**40) - 7, 2**200 + 1, 10**4000 + 3, 10**4300, 10**9999, -(10**9999) - 1,
    10**10000, 2**14000, 2**14001, 2**34000, -(2**34001),
])
DECIMALS = st.one_of(
    st.decimals(allow_nan=True, allow_infinity=True),
    st.sampled_from([D("NaN"), D("-NaN"), D("NaN5"), D("sNaN"), D("-sNaN"), D("Infinity"),
                     D("-Infinity"), D("-0"), D("0E-7"), D("0E+7"), D("123.4500"),
                     D("1E+999999999999999999"), D("-9E+999999999999999999"),
                     D("1E-1999999999999999997"), D("1.5E-500"), D("-1" + "0" * 120),
                     D("0." + "9" * 90), D("1234567.89")]),
)
FLOATS = st.one_of(st.floats(), st.sampled_from([
    0.0, -0.0, 5e-324, -5e-324, 1e23, 1e-5, 0.0001, 1e16, 123456789.12345678, 2.0**53,
    1.7976931348623157e308, math.nan, -math.nan, math.inf, -math.inf,
    _F64.unpack(bytes.fromhex("7ff0000000000001"))[0]]))
TEXTS = st.one_of(st.text(max_size=10), st.text(min_size=251, max_size=300),
                  st.sampled_from(["é\U0001f600", "\x00", "a\udfff"]))
BINARIES = st.one_of(st.binary(max_size=20), st.binary(min_size=250, max_size=300),
                     st.binary(max_size=8).map(bytearray))

#: field type -> the values a field of that type meets (its own and its neighbours')
TYPED: dict[str, st.SearchStrategy[Any]] = {
    **{t: st.one_of(st.integers(INT_TYPES[t].min - 2, INT_TYPES[t].max + 2), st.integers())
       for t in INT_TYPES},
    "int": st.one_of(st.integers(), HUGE_INTS),
    "float64": st.one_of(FLOATS, st.integers(-(2**60), 2**60), HUGE_INTS),
    "decimal": st.one_of(DECIMALS, FLOATS, st.integers(), HUGE_INTS),
    "string": TEXTS,
    "bytes": BINARIES,
}
ANY_VALUE = st.one_of(st.none(), ODD, *TYPED.values())


def field_value(field_type: str) -> st.SearchStrategy[Any]:
    return st.one_of(TYPED[field_type], TYPED[field_type], st.none(), ODD)


# -- with a schema --------------------------------------------------------------------------


@pytest.mark.parametrize("field_type", [*FIELD_TYPES, "final"])
@given(data=st.data())
def test_bound_paths_agree(field_type: str, data: st.DataObject) -> None:
    compiled_module()
    codec = CODECS[data.draw(st.sampled_from(list(CODECS)), label="table")]
    if field_type == "final":
        schema, value_type = "s:string desc, x:bytes final=true", "bytes"
        desc = ""
    else:
        desc = data.draw(st.sampled_from(["", " desc"]), label="order")
        schema = data.draw(st.sampled_from([
            f"x:{field_type}{desc}", f"s:string desc, x:{field_type}{desc}, n:int64"]),
            label="schema")
        value_type = field_type
    arity = schema.count(":")
    value = data.draw(field_value(value_type), label="value")
    values = ("ab", value) if arity == 2 else (value,) if arity == 1 else ("ab", value, -7)
    shape = data.draw(st.sampled_from(["tuple", "list", "short", "long", "dict", "str"]))
    sent: Any = {"tuple": values, "list": list(values), "short": values[:-1],
                 "long": (*values, 1), "dict": {"x": value}, "str": "abc"}[shape]
    result = both(lambda: codec.bind(schema).encode(sent), (schema, sent))
    keys = [data.draw(st.binary(max_size=30), label="junk")]
    if result[0] == "ok":
        keys += mutations(result[1], data.draw(st.integers(0, 300)), data.draw(
            st.integers(0, 255)))
    agree_on_keys(lambda key: codec.bind(schema).decode(key), keys)
    # the same keys read by the other types of field: cross-type keys
    other = data.draw(st.sampled_from(FIELD_TYPES), label="other type")
    agree_on_keys(lambda key: codec.bind(f"x:{other}{desc}").decode(key), keys)


MIXED = [KeySchema.parse(text) for text in (
    "a:int, b:string desc, c:bytes",
    "i:int8 desc, j:uint64, k:int32",
    "d:decimal desc, f:float64 desc, s:string",
    "t:string, y:bytes desc, z:bytes final=true",
    "a:uint8, b:int16 desc, c:int32, d:uint16, e:uint32 desc, f:int desc",
)]


@pytest.mark.parametrize("schema", MIXED, ids=str)
@given(data=st.data())
def test_mixed_schemas_agree(schema: KeySchema, data: st.DataObject) -> None:
    """Typed keys of several fields (and values of any type), and junk near them."""
    compiled_module()
    codec = CODECS[data.draw(st.sampled_from(list(CODECS)), label="table")]
    caps = codec.capabilities
    numbers = st.one_of(DECIMALS, FLOATS, st.integers(), HUGE_INTS)
    values = data.draw(st.one_of(keys(schema, caps, {"decimal": numbers}),
                                 st.lists(ANY_VALUE, min_size=len(schema),
                                          max_size=len(schema)).map(tuple)))
    with _impl.use("reference"):
        reference = codec.bind(schema)
    both(lambda: codec.bind(schema).encode(values), values)
    junk = data.draw(junk_keys(schema, caps, reference.careful_encode, {"decimal": numbers}))
    agree_on_keys(lambda key: codec.bind(schema).decode(key), [junk])


@pytest.mark.parametrize("schema", [None, "a:int"])
def test_decode_errors_keep_their_offsets(schema: str | None, impl: str) -> None:
    with pytest.raises(DecodeError) as info:
        CODECS[None].decode(bytes.fromhex("18 01 02"), schema)
    assert info.value.offset == 1


@given(data=st.data())
def test_decode_accepts_bytes_like_keys_alike(data: st.DataObject) -> None:
    compiled_module()
    codec = CODECS[None]
    key = data.draw(st.binary(max_size=12))
    wrappers: tuple[Callable[[bytes], Any], ...] = (bytearray, memoryview, list)
    for wrap in wrappers:
        both(partial(codec.decode, wrap(key), "x:int, y:string"), (wrap, key))
        both(partial(codec.decode, wrap(key)), (wrap, key))


# -- without a schema -----------------------------------------------------------------------


@given(values=st.lists(ANY_VALUE, max_size=4), junk=st.binary(max_size=30),
       table=st.sampled_from(list(CODECS)), at=st.integers(0, 300), byte=st.integers(0, 255))
def test_schemaless_paths_agree(values: list[Any], junk: bytes, table: int | None, at: int,
                                byte: int) -> None:
    compiled_module()
    codec = CODECS[table]
    result = both(lambda: codec.encode(tuple(values)), values)
    both(lambda: codec.encode(values), values)
    keys = [junk, codec.table_prefix + junk]
    if result[0] == "ok":
        keys += mutations(result[1], at, byte)
    agree_on_keys(codec.decode, keys)


@given(key=st.binary(max_size=40))
def test_random_keys_agree(key: bytes) -> None:
    compiled_module()
    codec = CODECS[None]
    both(lambda: codec.decode(key), key)
    for schema in ("a:decimal desc, b:float64", "a:int, b:bytes desc, c:string",
                   "a:uint64 desc, b:int8, c:bytes final=true"):
        both(partial(codec.decode, key, schema), (key, schema))


# -- the compiled path is in use and takes every valid value --------------------------------

#: field type -> valid values of its exact Python type, edges included
VALID: dict[str, list[Any]] = {
    **{t: [0, 1, INT_TYPES[t].min, INT_TYPES[t].min // 3, INT_TYPES[t].max,
           INT_TYPES[t].max // 3, None] for t in INT_TYPES},
    "int": [0, 7, -100, 2**63 - 1, -(2**63), 2**64 - 1, 2**64, -(2**64), 10**20 - 1, 10**20,
            -(10**40), 2**200, 10**4000 + 7, 10**9999, -(10**9999) - 1, 10**10000 - 1, None],
    "float64": [0.0, -0.0, 0.1, -2.5, 1e23, 5e-324, -1.7976931348623157e308, 1e16, 1e-5,
                123456789.12345678, math.nan, math.inf, -math.inf, 0, 2**53, -(2**60),
                2**1000, None],
    "decimal": [D("1234567.89"), D("-0.001"), D("0"), D("-0"), D("0E-9"), D("NaN"),
                D("-NaN"), D("Infinity"), D("-Infinity"), D("1E+999999999999999999"),
                D("-1E-1999999999999999997"), D("123.4500"), D("9" * 200), 12, -10**30,
                10**9999, 0.1, -math.inf, math.nan, None],
    "string": ["", "abc", "é\U0001f600", "x" * 1000, None],
    "bytes": [b"", b"\x00\xff", bytes(range(256)) * 3, bytearray(b"ba"), None],
}


@pytest.mark.parametrize("table", [None, 300])
@pytest.mark.parametrize("order", ["", " desc"])
@pytest.mark.parametrize("field_type", [*FIELD_TYPES, "final"])
def test_valid_values_never_hand_over(field_type: str, order: str, table: int | None) -> None:
    module = compiled_module()
    if field_type == "final":
        if order:
            pytest.skip("a final binary is ascending only")
        schema, values = "x:bytes final=true", VALID["bytes"]
    else:
        schema, values = f"s:string{order}, x:{field_type}{order}, n:int64{order}", \
            VALID[field_type]
    codec = Sqlite4Codec(table=table)
    with _impl.use("reference"):
        reference = codec.bind(schema)
        want = [reference.encode(r) for r in _records(schema, values)]
        back = [reference.decode(k) for k in want]
    with _impl.use("compiled"):
        bound = codec.bind(schema)
        assert type(bound) is module.CompiledBound
        assert type(bound).__module__ == "lexcodecs.codecs.sqlite4._compiled"
        _impl.HANDOVERS.clear()
        got = [bound.encode(r) for r in _records(schema, values)]
        read = [bound.decode(k) for k in got]
        assert _impl.HANDOVERS["sqlite4"] == 0
    assert got == want
    assert all(same(a, b) for a, b in zip(read, back))


def _records(schema: str, values: list[Any]) -> list[Any]:
    if schema.count(":") == 1:
        return [(v,) for v in values] + [[v] for v in values]
    return [("user-1", v, 42) for v in values] + [[None, v, None] for v in values]


@pytest.mark.parametrize("table", [None, 0, 2**64 - 1])
def test_valid_schemaless_values_never_hand_over(table: int | None) -> None:
    compiled_module()
    codec = Sqlite4Codec(table=table)
    everything = [v for t in ("int", "float64", "decimal", "string", "bytes") for v in VALID[t]]
    records: list[Any] = [tuple(everything[i:i + 3]) for i in range(len(everything))]
    records += [[v] for v in everything]
    with _impl.use("reference"):
        want = [codec.encode(r) for r in records]
        back = [codec.decode(k) for k in want]
    with _impl.use("compiled"):
        _impl.HANDOVERS.clear()
        got = [codec.encode(r) for r in records]
        # descending values too: a bound key with every field descending, read schemaless
        desc = codec.bind("a:decimal desc, b:string desc, c:bytes desc")
        desc_keys = [desc.encode((v, "é", b"x")) for v in VALID["decimal"]]
        read = [codec.decode(k) for k in got + desc_keys]
        assert _impl.HANDOVERS["sqlite4"] == 0
    assert got == want
    assert all(same(a, b) for a, b in zip(read, back))
    with _impl.use("reference"):
        assert all(same(a, codec.decode(k)) for a, k in zip(read[len(got):], desc_keys))


def test_hand_overs_are_counted() -> None:
    """A subclass goes to the reference, which takes it; a refusal is the reference's."""
    compiled_module()
    with _impl.use("compiled"):
        bound = CODECS[None].bind("x:int8")
        _impl.HANDOVERS.clear()
        assert bound.encode((Int8(1),)) == bound.encode((1,))
        for bad in ((128,), (True,), (D(1),)):
            with pytest.raises(LexCodecError):
                bound.encode(bad)
        with pytest.raises(DecodeError):
            bound.decode(b"\x18\x02\x00")
        assert _impl.HANDOVERS["sqlite4"] == 5


