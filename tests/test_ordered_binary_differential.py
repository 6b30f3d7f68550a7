"""``ordered-binary``: the compiled module and the reference code give the same answers.

Every operation -- the schemaless ``encode`` and ``decode`` (with and without the codec
option ``array``) and a bound schema's ``encode``, ``decode`` and ``prefix_range`` -- runs once
under each implementation (``oddities.both``, which switches ``lexcodecs._impl`` itself) on
the same input, and any difference fails: in bytes, in decoded values (types compared, floats
by their bits), or in the error's class and message. Values are valid ones and odd ones
(subclasses, ``bool`` in int fields, IntEnum, bytearray/memoryview, NaN, huge and tiny
numbers, lone surrogates, arbitrary objects, nested arrays); keys are valid, mutated or
random bytes. Nothing but a :class:`~lexcodecs.errors.LexCodecError` may leave either
implementation.

The last tests check the compiled path is in use: the bound class is the compiled one, and
valid exact-type values of every type (schemaless and bound, both ``array`` settings) never
hand over; odd ones do, and are counted.
"""

from __future__ import annotations

import functools
import math
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from oddities import Colour, Liar, MyBytes, MyFloat, MyInt, MyStr, both, pick

from lexcodecs import DecodeError, _impl
from lexcodecs.codecs.ordered_binary import JsSymbol, OrderedBinaryCodec
from lexcodecs.codecs.ordered_binary.reference_encode import FIELD_PY_TYPES

CODECS = (OrderedBinaryCodec(), OrderedBinaryCodec(array=True))
TYPES = sorted(FIELD_PY_TYPES)
PACKAGE = "ordered_binary"

try:
    from lexcodecs.codecs.ordered_binary import _compiled
except ImportError:  # not built: the compiled run is the reference run
    _compiled = None  # type: ignore[assignment]

ODD: list[Any] = [
    None, True, False, 0, -1, 2**53 + 1, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63),
    -(2**63) - 1, -(2**54) - 1, -18014398509481981, 2**200, -(2**1000), 2**1024 - 2**970,
    10**400, MyInt(7), Colour.RED, 0.0, -0.0, 1.5, math.nan, -math.nan, math.inf,
    -math.inf, 5e-324, MyFloat(2.5), "", "a\x00b", "\x1b", "\ud800", "\ud800\udc00x",
    "\U0001f600", "y" * 63 + "\x00", "é" * 64, "\ud800" * 70, MyStr("hi"), b"", b"\x00\x01",
    MyBytes(b"a"), bytearray(b"x\x00"), memoryview(b"mv"), JsSymbol("s"), JsSymbol("é"),
    object(), Liar(), Decimal("1.5"), 1j, [], (1, (2.0, "a")), [None, [True]], {}, {1},
]
ODD_VALUES = pick(ODD)
INTS = st.one_of(st.integers(-(2**64), 2**64), st.integers(-(2**70), 2**70))
FLOATS = st.floats()
SCALARS = st.one_of(st.none(), st.booleans(), INTS, FLOATS, st.text(max_size=8),
                    st.binary(max_size=6), ODD_VALUES)
VALUES = st.lists(st.one_of(SCALARS, st.lists(SCALARS, max_size=2)), max_size=4)


def _mutated(key: bytes, data: st.DataObject) -> bytes:
    out = bytearray(key)
    at = data.draw(st.integers(0, len(out)), label="at")
    op = data.draw(st.sampled_from(("flip", "cut", "insert")), label="op")
    if op == "flip" and at < len(out):
        out[at] = data.draw(st.integers(0, 255), label="byte")
    elif op == "cut":
        del out[at:]
    else:
        out.insert(at, data.draw(st.integers(0, 255), label="byte"))
    return bytes(out)


@given(VALUES, st.booleans(), st.data())
def test_schemaless_agrees(values: list[Any], array: bool, data: st.DataObject) -> None:
    codec = CODECS[array]
    result = both(lambda: codec.encode(tuple(values)), values)
    if result[0] == "ok":
        key = result[1]
        both(lambda: codec.decode(key), key)
        bad = _mutated(key, data)
        both(lambda: codec.decode(bad), bad)


FIELD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "string": st.text(max_size=8),
    "bytes": st.one_of(st.binary(max_size=6), st.binary(max_size=4).map(bytearray)),
    "bool": st.booleans(),
    "float64": FLOATS,
    "int": INTS,
}


@given(st.lists(st.sampled_from(TYPES), min_size=1, max_size=3), st.booleans(), st.data())
def test_bound_agrees(types: list[str], array: bool, data: st.DataObject) -> None:
    codec = CODECS[array]
    schema = ", ".join(f"f{i}:{t}" for i, t in enumerate(types))
    values = tuple(data.draw(st.one_of(FIELD_VALUES[t], FIELD_VALUES[t], ODD_VALUES),
                             label=f"f{i}") for i, t in enumerate(types))
    result = both(lambda: codec.encode(values, schema), values)
    both(lambda: codec.prefix_range(values[:1], schema), values)
    if result[0] == "ok":
        key = result[1]
        both(lambda: codec.decode(key, schema), key)
        bad = _mutated(key, data)
        both(lambda: codec.decode(bad, schema), bad)


@given(st.binary(max_size=24), st.sampled_from(["s:string", "n:int", "x:float64, r:bytes",
                                                "b:bool, s:string, n:int"]))
def test_random_keys_agree(key: bytes, schema: str) -> None:
    for codec in CODECS:
        both(functools.partial(codec.decode, key), key)
        both(functools.partial(codec.decode, key, schema), key)


def test_odd_keys_agree() -> None:
    odd_keys: list[Any] = [bytearray(b"a"), memoryview(b"a"), "a", b"\x07\x00" + b"\x01" * 3,
                            b"\x14\x3f" + bytes(7) + b"\x81" * 40,
                            bytes.fromhex("13ff8000000000000080"), bytes.fromhex("070010"),
                            b"\xf0\x9f\x98\x80" * 3, b"\xf0", b"a\x04",
                            bytes.fromhex("147fefffffffffffff8f"),
                            bytes.fromhex("0800000000000000008f")]
    for codec in CODECS:
        for key in odd_keys:
            both(functools.partial(codec.decode, key), key)
            for schema in ("s:string", "n:int", "r:bytes", "x:float64, n:int"):
                both(functools.partial(codec.decode, key, schema), key)


# -- the compiled path is the one in use ----------------------------------------------------

needs_compiled = pytest.mark.skipif(_compiled is None, reason="the compiled module is not built")

#: valid exact-type values of every type the compiled module takes as its own
VALID: dict[str, list[Any]] = {
    "string": ["", "a", "\x00\x1b", "user-42", "é", "\u20ac\U0001f600", "y" * 70,
               "é" * 70, "a\x04b" * 10],
    "bytes": [b"", b"\x01\x02", b"abc", bytearray(b"xy")],
    "bool": [False, True],
    "float64": [0.0, -0.0, 1.0, -1.0, 0.1, -1e300, 5e-324, 2.0**60, math.inf, -math.inf,
                math.nan],
    "int": [0, 1, -1, 2**53, 2**53 + 1, -(2**53) - 1, 2**62 + 7, -(2**62) - 7, 2**63 - 1,
            -(2**63), 2**63 + 5, 2**64 - 1, 123456789012345678],
}


@needs_compiled
@pytest.mark.parametrize("field_type", TYPES)
def test_valid_values_never_hand_over(field_type: str) -> None:
    _impl.HANDOVERS.clear()
    with _impl.use("compiled"):
        for codec in CODECS:
            bound = codec.bind(f"s:string, v:{field_type}, n:int")
            assert type(bound).__module__ == "lexcodecs.codecs.ordered_binary._compiled"
            single = codec.bind(f"v:{field_type}")
            for v in [*VALID[field_type], None]:
                values = ("acme", v, -5)
                key = bound.encode(values)
                assert bound.encode(list(values)) == key
                assert codec.encode(values) == key
                back = bound.decode(key)
                assert back[0] == "acme"
                assert back[2] == -5
                assert type(back[1]) is (bytes if field_type == "bytes" and v is not None
                                          else type(v))
                codec.decode(key)
                one = single.encode((v,))
                single.decode(one)
                codec.decode(codec.encode((v,)))
            codec.decode(codec.encode(((1, ("a", None)), JsSymbol("s"), [b"r"])))
    assert _impl.HANDOVERS[PACKAGE] == 0


@needs_compiled
def test_odd_values_do_hand_over() -> None:
    codec = CODECS[0]
    _impl.HANDOVERS.clear()
    with _impl.use("compiled"):
        assert codec.encode((MyInt(1),)) == codec.encode((1,))  # 1 handed over, same bytes
        assert codec.encode(("\ud800\udc00",)) == codec.encode(("\U00010000",))  # 1
        assert codec.bind("n:int").encode((Colour.RED,)) == codec.encode((1,))  # 1
        with pytest.raises(DecodeError):
            codec.decode(bytes.fromhex("070010"))  # 1: lmdb-js's 4-byte read fails
    assert _impl.HANDOVERS[PACKAGE] == 4
