"""``skv``: the compiled engine and the reference code give the same answers (issue 14).

Every operation of a bound schema -- ``encode``, ``decode``, ``prefix_range``, the K2 helpers
(``partition_key``, ``range_key``, ``storage_key``, ``storage_prefix_range``,
``decode_storage_key``, ``split_storage_key``, ``encode_field``) and the schemaless decode --
runs once under each implementation (``lexcodecs._impl.use``) on the same input, and any
difference fails: in bytes, in decoded values (types compared, floats by their bits), or in
the error's class and message. Schemas are drawn over every field type, both orders, NULLs
first and last and the partition/range split; values are valid ones and odd ones (subclasses,
bool in int fields, IntEnum, bytearray/memoryview, NaN, huge and tiny numbers, arbitrary
objects, tampered Float32s); keys are valid, mutated or random bytes. Nothing but a
:class:`~lexcodecs.errors.LexCodecError` may leave either implementation.

The last tests check the compiled path is in use: the bound class is the compiled one, and
valid exact-type values of every type, order and NULL placement never hand over.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from oddities import (
    Colour,
    Liar,
    MyBytes,
    MyFloat,
    MyInt,
    MyStr,
    both,
    mutated,
    pick,
    tampered_float32,
    unset_float32,
)

from lexcodecs import KeySchema, LexCodecError, _impl
from lexcodecs.codecs.skv import SkvCodec
from lexcodecs.codecs.skv import format as skv_format
from lexcodecs.schema import Field
from lexcodecs.testing import keys
from lexcodecs.types import Float32, Int16

CODEC = SkvCodec()
CAPS = CODEC.capabilities
TYPES = sorted(CAPS.field_types)
INT_TYPES = [t for t in TYPES if "int" in t]

try:
    from lexcodecs.codecs.skv import _compiled
except ImportError:  # not built: the compiled run is the reference run
    _compiled = None  # type: ignore[assignment]


ODD: list[Any] = [
    None, True, False, 0, -1, 1, 2**15, -(2**15) - 1, 2**31, 2**63, -(2**63) - 1, 2**64,
    2**53 + 1, 2**200, -(2**200), 10**400, 2**1024 - 1, -(2**1024) + 2**971, 2**128 - 2**104,
    MyInt(7), MyInt(-7), MyInt(2**70), Colour.RED, Colour.BIG, Int16(-3),
    0.0, -0.0, 1.5, 0.1, math.nan, -math.nan, math.inf, -math.inf, 5e-324, -5e-324, 1e300,
    3.4028234663852886e38, 3.4028235677973366e38, MyFloat(2.5), MyFloat(math.nan),
    Float32(0.1), Float32(-0.0), Float32(math.nan), Float32(math.inf),
    tampered_float32("x"), tampered_float32(2**200), tampered_float32(-1),
    tampered_float32(0x7FC00000), unset_float32(), "", "a\x00b", "\ud800", MyStr("hi"),
    b"", b"\x00\xff", MyBytes(b"a\x00"), bytearray(b"x\x00"), memoryview(b"mv\x00"),
    memoryview(b"abcd")[1:3], object(), Liar(), Decimal("1.5"), 1j, [], (1,), {}, {1},
]
ODD_VALUES = pick(ODD)


def field_values(field_type: str) -> st.SearchStrategy[Any]:
    """Valid values of *field_type* (exact types), and odd ones of every kind."""
    valid = keys(KeySchema((Field("x", field_type),)), CAPS).map(lambda t: t[0])
    odd: list[st.SearchStrategy[Any]] = [ODD_VALUES]
    if field_type in INT_TYPES:
        odd += [st.integers(), st.integers().map(MyInt), st.floats()]
    elif field_type in ("float32", "float64"):
        odd += [st.floats(), st.floats(width=32).map(Float32), st.floats().map(MyFloat),
                st.integers(-(2**60), 2**60), st.integers(0, 2**32 - 1).map(tampered_float32),
                st.tuples(st.integers(-(2**60), 2**60), st.integers(0, 1100)).map(
                    lambda p: p[0] << p[1])]
    elif field_type == "string":
        odd += [st.text(max_size=6).map(MyStr), st.binary(max_size=4)]
    elif field_type == "bytes":
        odd += [st.binary(max_size=6).map(bytearray), st.binary(max_size=6).map(memoryview),
                st.binary(max_size=6).map(MyBytes), st.text(max_size=3)]
    return st.one_of(valid, valid, *odd)


@st.composite
def schemas(draw: st.DrawFn, subject: str) -> KeySchema:
    """1..4 fields, one of them of type *subject*, the others of any type; every order and
    NULL placement; a partition/range split."""
    n = draw(st.integers(1, 4))
    at = draw(st.integers(0, n - 1))
    split = draw(st.integers(1, n))
    fields = []
    for i in range(n):
        text = f"f{i}:{subject if i == at else draw(st.sampled_from(TYPES))}"
        if draw(st.booleans()):
            text += " desc"
        text += draw(st.sampled_from(["", " nulls first", " nulls last"]))
        if i >= split:
            text += " key=range"
        fields.append(text)
    return KeySchema.parse(", ".join(fields))


NAMES = st.one_of(st.sampled_from(["orders", "", b"t", "a\x00", b"\x00", "\ud800", 7]),
                  st.text(max_size=4), st.binary(max_size=4))


@pytest.mark.parametrize("subject", TYPES)
@given(data=st.data())
def test_encode_and_helpers_agree(subject: str, data: st.DataObject) -> None:
    schema = data.draw(schemas(subject), label="schema")
    values = tuple(data.draw(field_values(f.type), label=f.name) for f in schema.fields)
    k = data.draw(st.integers(0, len(schema)), label="prefix length")
    name = data.draw(NAMES, label="schema name")
    as_list = data.draw(st.booleans(), label="as list")
    given_values: Any = list(values) if as_list else values

    def bound() -> Any:
        return CODEC.bind(schema)

    both(lambda: bound().encode(given_values))
    both(lambda: bound().prefix_range(values[:k]))
    both(lambda: bound().partition_key(given_values))
    both(lambda: bound().range_key(given_values))
    both(lambda: bound().storage_key(name, given_values))
    both(lambda: bound().storage_prefix_range(name, values[:k]))
    both(lambda: CODEC.encode_field(values[0], schema.fields[0]))
    both(lambda: bound().encode(values[:-1]))  # wrong arity


def mutations(key: bytes) -> st.SearchStrategy[bytes]:
    return mutated(key, [0x00, 0x01, 0x02, 0x03, 0xFC, 0xFD, 0xFE, 0xFF], junk=30)


@pytest.mark.parametrize("subject", TYPES)
@given(data=st.data())
def test_decode_and_helpers_agree(subject: str, data: st.DataObject) -> None:
    schema = data.draw(schemas(subject), label="schema")
    values = data.draw(keys(schema, CAPS), label="values")
    with _impl.use("reference"):
        try:
            key = CODEC.bind(schema).encode(values)
        except LexCodecError:  # a NaN or an inexact float the strategy drew
            key = b""
    raw = data.draw(mutations(key), label="key")
    kind = data.draw(st.sampled_from([bytes, bytearray, memoryview]), label="key type")
    given_key: Any = kind(raw)

    def bound() -> Any:
        return CODEC.bind(schema)

    both(lambda: bound().decode(given_key))
    both(lambda: CODEC.decode(given_key))
    storage = b"name\x00\x01" + raw
    both(lambda: bound().decode_storage_key(storage))
    both(lambda: bound().split_storage_key(storage))


@given(st.binary(max_size=40))
def test_schemaless_decode_agrees_on_junk(data: bytes) -> None:
    both(lambda: CODEC.decode(data))


def test_odd_keys_agree() -> None:
    for key in ("0a000001", 5, None, b"\x0a\x01\x00\x01"):
        both(lambda key=key: CODEC.decode(key))
        both(lambda key=key: CODEC.bind("b:bool").decode(key))


def test_tampered_float32_is_read_by_its_value() -> None:
    good = CODEC.encode((Float32(1.5),), "x:float32")
    for bits in ("x", 2**200, -1, 0x7FC00000, 0):
        assert both(lambda bits=bits: CODEC.encode((tampered_float32(bits),), "x:float32")) \
            == ("ok", good)
    refused = both(lambda: CODEC.encode((unset_float32(),), "x:float32"))
    assert refused[0] == "error"
    assert "binary32" in refused[2]


def test_subclasses_are_read_for_what_they_are() -> None:
    assert both(lambda: CODEC.encode((MyStr("hi"),), "x:string")) == \
        ("ok", CODEC.encode(("hi",), "x:string"))
    assert both(lambda: CODEC.encode((MyBytes(b"a"),), "x:bytes")) == \
        ("ok", CODEC.encode((b"a",), "x:bytes"))
    assert both(lambda: CODEC.encode((MyFloat(2.5),), "x:float64")) == \
        ("ok", CODEC.encode((2.5,), "x:float64"))
    assert both(lambda: CODEC.encode((Colour.RED,), "x:int32")) == \
        ("ok", CODEC.encode((1,), "x:int32"))
    liar = Liar()
    assert both(lambda: CODEC.encode((liar,), "x:int32"))[1].__name__ == \
        "UnsupportedTypeError"


# -- the compiled path is in use ------------------------------------------------------------

needs_compiled = pytest.mark.skipif(_compiled is None, reason="the compiled module is not built")

VALID: dict[str, list[Any]] = {
    "string": ["", "acme", "a\x00b\x00", "\U0010ffff" * 3],
    "bytes": [b"", b"\x00", b"\xff\x00\x01", bytearray(b"ba\x00")],
    "bool": [True, False],
    "float32": [Float32(0.1), Float32(-0.0), Float32(math.inf), -2.5, 0.0, 3, -(2**24)],
    "float64": [0.1, -0.0, -math.inf, 5e-324, 1e308, 7, -(2**53)],
    **{t: [skv_format.FORMATS[t].lo, skv_format.FORMATS[t].hi, 0, 1, skv_format.FORMATS[t].hi // 3]
       for t in INT_TYPES},
}


@needs_compiled
@pytest.mark.parametrize("field_type", TYPES)
def test_valid_values_never_hand_over(field_type: str) -> None:
    _impl.HANDOVERS.clear()
    with _impl.use("compiled"):
        for order in ("", " desc"):
            for nulls in ("", " nulls first", " nulls last"):
                text = (f"s:string{order}, v:{field_type}{order}{nulls}, "
                        f"n:int64{order} key=range")
                bound = CODEC.bind(text)
                assert type(bound).__module__ == "lexcodecs.codecs.skv._compiled"
                assert type(bound).__name__ == "CompiledBoundSkv"
                for v in [*VALID[field_type], None]:
                    values = ("acme\x00", v, -5)
                    key = bound.encode(values)
                    back = bound.decode(key)
                    assert back[1] == v or (v is None and back[1] is None)
                    assert bound.encode(list(values)) == key
                    assert key.startswith(bound.prefix_range(values[:2])[0])
                    assert bound.partition_key(values) + bound.range_key(values) == key
                    storage = bound.storage_key("t", values)
                    assert bound.decode_storage_key(storage) == (b"t", back)
                    assert bound.split_storage_key(storage)[0] == b"t"
                    assert CODEC.decode(key)[2] == -5
                    assert CODEC.encode_field(v, f"v:{field_type}{order}{nulls}")
    assert _impl.HANDOVERS["skv"] == 0


@needs_compiled
def test_odd_values_do_hand_over() -> None:
    _impl.HANDOVERS.clear()
    with _impl.use("compiled"):
        bound = CODEC.bind("n:int32")
        assert bound.encode((MyInt(1),)) == bound.encode((1,))  # handed over: the same bytes
        for v in (True, 2**40):
            with pytest.raises(LexCodecError):
                bound.encode((v,))
        with pytest.raises(LexCodecError):
            bound.decode(b"\x03\x03\x00")
    assert _impl.HANDOVERS["skv"] == 4
