"""Tests of the ``bytewise`` codec (spec ``bytewise.md``, npm bytewise 1.1.0).

* the spec's own (value, bytes) examples, both ways, and its refusals;
* hypothesis: byte order and round trip of any JS value (nested arrays of every type)
  against a natural-order model of the JS types written without the codec (the per-type
  keys of ``lexcodecs.model``, the type order of spec §10); every declared anomaly real;
* hostile input: deep and self-containing arrays, unterminated arrays (never a
  RecursionError), odd objects, linear-time decoding (counted, not timed);
* the registry entry, the option ``array``, schemas, ``inspect``.

The vectors are ``test_bytewise_vectors.py``'s (and the generic runner's), the conformance
harness ``test_bytewise_conformance.py``'s and the compiled-vs-reference comparison
``test_bytewise_differential.py``'s. Every test here runs on both implementations (``impl``).
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from work import assert_linear, measure

from lexcodecs import _impl, available_codecs, get_codec
from lexcodecs.codec import FloatPolicy
from lexcodecs.codecs.bytewise import BytewiseCodec
from lexcodecs.codecs.bytewise.anomalies import ANOMALIES
from lexcodecs.codecs.bytewise.format import MAX_DEPTH
from lexcodecs.errors import DecodeError, EncodeError, LexCodecError, OptionError, SchemaError
from lexcodecs.model import value_key
from lexcodecs.testing.checks import check_anomaly
from lexcodecs.testing.model import identical
from lexcodecs.types import UNDEFINED, Int32

pytestmark = pytest.mark.usefixtures("impl")

CODEC = BytewiseCodec()
ARRAY = BytewiseCodec(array=True)
UTC = _dt.UTC


def date(ms: int) -> _dt.datetime:
    return _dt.datetime(1970, 1, 1, tzinfo=UTC) + _dt.timedelta(milliseconds=ms)


# -- the spec's examples --------------------------------------------------------------------

#: (value, key): spec §2-§6, both ways (decode gives the value back)
SPEC: list[tuple[Any, str]] = [
    (None, "10"), (True, "21"), (False, "20"), (UNDEFINED, "f0"),
    (math.inf, "43"), (-math.inf, "40"),
    (12345.0, "4240c81c8000000000"), (-12345.0, "41bf37e37fffffffff"),
    (1.0, "423ff0000000000000"), (-1.0, "41c00fffffffffffff"), (-2.0, "41bfffffffffffffff"),
    (1.2345, "423ff3c083126e978d"), (-1.2345, "41c00c3f7ced916872"),
    (0.0, "420000000000000000"), (5e-324, "420000000000000001"),
    (-5e-324, "41fffffffffffffffe"), (1.7976931348623157e308, "427fefffffffffffff"),
    (-1.7976931348623157e308, "418010000000000000"), (2.0**53, "424340000000000000"),
    (2.0**64, "4243f0000000000000"),
    (date(12345), "5240c81c8000000000"), (date(-12345), "51bf37e37fffffffff"),
    (_dt.datetime(2000, 1, 1, tzinfo=UTC), "52426b8d59f5800000"),
    (date(-1), "51c00fffffffffffff"), (_dt.datetime(1, 1, 1, tzinfo=UTC), "51bd33be76e993ffff"),
    (date(0), "520000000000000000"),
    ("foo", "70666f6f"), ("föo", "7066c3b66f"), ("", "70"), ("a\x00b", "70610062"),
    ("\U0001f4a9 foo", "70f09f92a920666f6f"), (b"\xff\x00\xfe\x01", "60ff00fe01"), (b"", "60"),
    (("foo",), "a070666f6f0000"), (("\x00",), "a07001010000"), (("\x01",), "a07001020000"),
    (("\x02",), "a070020000"), (("\xff",), "a070c3bf0000"),
    ((b"\xff\x00\xfe\x01",), "a060fefe0101fefd01020000"), ((b"\xfe",), "a060fefd0000"),
    (("",), "a0700000"), ((b"",), "a0600000"),
    ((), "a000"), (((),), "a0a00000"), ((None,), "a01000"), ((UNDEFINED,), "a0f000"),
    ((True, -1.2345), "a02141c00c3f7ced91687200"),
    ((("foo", True), "bar"), "a0a070666f6f002100706261720000"),
    ((0.0, "foo"), "a042000000000000000070666f6f0000"),
    ((1.0,), "a0423ff000000000000000"),
]


@pytest.mark.parametrize(("value", "hexkey"), SPEC, ids=[h for _, h in SPEC])
def test_spec_examples(value: Any, hexkey: str) -> None:
    assert CODEC.encode((value,)).hex() == hexkey
    assert identical((value,), CODEC.decode(bytes.fromhex(hexkey)))


def test_spec_normalisations() -> None:
    """-0 is written as 0; ints as the number they equal; lone surrogates as U+FFFD; an
    aware datetime in another zone as its instant; lists as arrays."""
    assert CODEC.encode((-0.0,)) == CODEC.encode((0.0,))
    assert CODEC.encode(((-0.0,),)).hex() == "a042000000000000000000"
    assert CODEC.decode(CODEC.encode((-0.0,))) == (0.0,)
    assert CODEC.encode((1,)) == CODEC.encode((1.0,))
    assert CODEC.encode((2**60,)) == CODEC.encode((2.0**60,))
    assert CODEC.encode((-(2**53),)) == CODEC.encode((-(2.0**53),))
    assert CODEC.encode((Int32(7),)) == CODEC.encode((7.0,))
    for lone in ("\ud800", "\udc00", "\ufffd"):
        assert CODEC.encode((lone,)).hex() == "70efbfbd"
    assert CODEC.encode(("\ud83d\ude00",)) == CODEC.encode(("\U0001f600",))
    east = _dt.timezone(_dt.timedelta(hours=5))
    assert CODEC.encode((_dt.datetime(2000, 1, 1, 5, tzinfo=east),)) == \
        CODEC.encode((_dt.datetime(2000, 1, 1, tzinfo=UTC),))
    assert CODEC.encode(([1.0, ["a"]],)) == CODEC.encode(((1.0, ("a",)),))
    assert CODEC.encode((bytearray(b"ab"),)) == CODEC.encode((memoryview(b"ab"),)) == \
        CODEC.encode((b"ab",))


@pytest.mark.parametrize("value", [
    math.nan, -math.nan, (1.0, (math.nan,)), 2**53 + 1, -(2**53) - 1, 2**1024, 10**400,
    _dt.datetime(2000, 1, 1), _dt.datetime(2000, 1, 1, 0, 0, 0, 500, tzinfo=UTC),
    _dt.date(2000, 1, 1), {"a": 1}, {1}, object(), 1j, _dt.timedelta(1),
])
def test_refused_values(value: Any) -> None:
    with pytest.raises((EncodeError, SchemaError)) as info:
        CODEC.encode((value,))
    assert info.value.codec == "bytewise"


def test_several_values_are_an_array() -> None:
    assert CODEC.encode(("a", "b")) == CODEC.encode((("a", "b"),)) == ARRAY.encode(("a", "b"))
    assert CODEC.encode(()) == ARRAY.encode(()) == bytes.fromhex("a000")
    assert CODEC.decode(CODEC.encode(("a", "b"))) == (("a", "b"),)
    assert ARRAY.decode(CODEC.encode(("a", "b"))) == ("a", "b")
    assert ARRAY.encode(("foo",)).hex() == "a070666f6f0000"
    assert ARRAY.decode(bytes.fromhex("a000")) == ()
    with pytest.raises(DecodeError):
        ARRAY.decode(bytes.fromhex("70666f6f"))
    with pytest.raises(OptionError):
        BytewiseCodec(array="yes")


def test_registry() -> None:
    if "bytewise" not in available_codecs():
        pytest.skip("bytewise is not registered (yet): the tests build BytewiseCodec directly")
    codec = get_codec("bytewise")
    assert isinstance(codec, BytewiseCodec)
    assert get_codec("bytewise", array=True) == ARRAY
    assert codec.capabilities.decoding == "self-describing"


# -- schemas --------------------------------------------------------------------------------


def test_schemas() -> None:
    row = ("acme", 42, True, -0.5, b"\x00\xff", None)
    schema = "s:string, n:int, b:bool, x:float64, r:bytes, z:string"
    key = CODEC.encode(row, schema)
    assert key == CODEC.encode(row)
    back = CODEC.decode(key, schema)
    assert identical(row, back)
    assert type(back[1]) is int
    assert CODEC.encode((5,), "n:int").hex() == "424014000000000000"
    assert CODEC.decode(bytes.fromhex("424014000000000000"), "n:int") == (5,)
    assert ARRAY.encode((5,), "n:int").hex() == "a042401400000000000000"
    with pytest.raises(DecodeError):
        CODEC.decode(CODEC.encode((0.5,)), "n:int")
    with pytest.raises(DecodeError):
        CODEC.decode(CODEC.encode(("a",)), "n:int")
    with pytest.raises(DecodeError):
        CODEC.decode(CODEC.encode(("a", 1)), "s:string, n:int, b:bool")
    with pytest.raises(EncodeError):
        CODEC.encode((True,), "n:int")
    with pytest.raises(SchemaError):
        CODEC.bind("t:timestamp")
    with pytest.raises(SchemaError):
        CODEC.bind("s:string desc")


def test_prefix_ranges() -> None:
    schema = "s:string, n:int"
    start, stop = CODEC.prefix_range(("a",), schema)
    assert stop is not None
    inside = [("a", 1), ("a", -5), ("a", None)]
    outside = [("a\x00", 1), ("ab", 1), ("", 3), ("b", 0)]
    for row in inside:
        assert start <= CODEC.encode(row, schema) < stop
    for row in outside:
        key = CODEC.encode(row, schema)
        assert not start <= key < stop
    one_start, one_stop = CODEC.prefix_range(("a",), "s:string")
    assert (one_start, one_stop) == (b"pa", b"pa\x00")
    assert not one_start <= CODEC.encode(("ab",), "s:string") < one_stop
    assert CODEC.prefix_range((), schema) == (b"", None)


def test_inspect() -> None:
    view = CODEC.inspect(bytes.fromhex("a070666f6f002100"))
    assert [f.value for f in view.fields] == ["foo", True]
    assert CODEC.inspect(bytes.fromhex("423ff0000000000000")).fields[0].value == 1.0
    with pytest.raises(DecodeError):
        CODEC.inspect(bytes.fromhex("a0"))


# -- a natural-order model of the JS types, written without the codec -----------------------

_POLICY = FloatPolicy(nan="refuse", negative_zero="equal")


def js_key(value: Any) -> tuple[Any, ...]:
    """The natural order of JS values in bytewise (spec §10): by type, null < false < true <
    numbers < Dates < Buffers < strings < arrays < undefined; within a type by value (numbers
    by value, -0 equal to 0; Dates by instant; Buffers by bytes; strings by code point;
    arrays element by element, a shorter array first)."""
    if value is None:
        return (0,)
    if type(value) is bool:
        return (1, value)
    if type(value) in (int, float):
        return (2, value_key(value, "float64", _POLICY))
    if type(value) is _dt.datetime:
        return (3, value_key(value, "timestamp", _POLICY))
    if type(value) is bytes:
        return (4, value_key(value, "bytes", _POLICY))
    if type(value) is str:
        return (5, value_key(value, "string", _POLICY))
    if type(value) is tuple:
        return (6, tuple(js_key(v) for v in value))
    assert value is UNDEFINED
    return (7,)


def js_normal(value: Any) -> Any:
    """What a decode gives for *value*: numbers as floats (+0 for -0), dates in UTC."""
    if type(value) in (int, float):
        return float(value) + 0.0
    if type(value) is _dt.datetime:
        return value.astimezone(UTC)
    if type(value) is tuple:
        return tuple(js_normal(v) for v in value)
    return value


_dates = st.integers(min_value=-62135596800000, max_value=253402300799999).map(date)
_scalars = st.one_of(
    st.none(), st.booleans(), st.just(UNDEFINED),
    st.floats(allow_nan=False), st.integers(min_value=-(2**53), max_value=2**53),
    st.sampled_from([0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, 5e-324]),
    _dates, st.binary(max_size=12), st.text(max_size=12),
    st.text(alphabet="\x00\x01\x02a\xff\ue000\U0001f600", max_size=6),
    st.binary(max_size=6).map(lambda b: b.replace(b"\x02", b"\xfe")),
)
js_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4).map(tuple),
                         max_leaves=12)


@given(js_values, js_values)
def test_byte_order_is_the_js_order(a: Any, b: Any) -> None:
    ka, kb = CODEC.encode((a,)), CODEC.encode((b,))
    ma, mb = js_key(a), js_key(b)
    assert (ka > kb) - (ka < kb) == (ma > mb) - (ma < mb), (a, b, ka.hex(), kb.hex())


@given(js_values)
def test_round_trip(value: Any) -> None:
    key = CODEC.encode((value,))
    (back,) = CODEC.decode(key)
    assert identical(js_normal(value), back)
    assert CODEC.encode((back,)) == key
    if type(value) is tuple:
        assert identical(js_normal(value), ARRAY.decode(key))


@given(st.lists(js_values, max_size=4).map(tuple), st.lists(js_values, max_size=4).map(tuple))
def test_prefix_range_holds_the_arrays_that_extend_it(prefix: tuple[Any, ...],
                                                      rest: tuple[Any, ...]) -> None:
    start, stop = ARRAY.prefix_range(prefix)
    key = ARRAY.encode(prefix + rest)
    assert start <= key
    assert stop is None or key < stop


@given(st.binary(max_size=40))
def test_any_bytes_decode_to_their_value_or_are_refused(data: bytes) -> None:
    for codec in (CODEC, ARRAY):
        try:
            values = codec.decode(data)
        except DecodeError as exc:
            offset = exc.offset
            values = None
        if values is None:
            assert offset is not None
        else:
            assert codec.encode(values) == data


@pytest.mark.parametrize("anomaly", ANOMALIES, ids=[a.name for a in ANOMALIES])
def test_declared_anomalies_are_real(anomaly: Any) -> None:
    check_anomaly(CODEC, anomaly)


# -- hostile input --------------------------------------------------------------------------


def nested(depth: int, inner: Any = ()) -> Any:
    value = inner
    for _ in range(depth - 1):
        value = (value,)
    return value


def test_nesting_up_to_the_limit() -> None:
    deep = nested(MAX_DEPTH)
    key = CODEC.encode((deep,))
    assert key == b"\xa0" * MAX_DEPTH + b"\x00" * MAX_DEPTH
    assert CODEC.decode(key) == (deep,)
    with pytest.raises(EncodeError):
        CODEC.encode((nested(MAX_DEPTH + 1),))
    with pytest.raises(DecodeError) as info:
        CODEC.decode(b"\xa0" * (MAX_DEPTH + 1) + b"\x00" * (MAX_DEPTH + 1))
    assert info.value.offset == MAX_DEPTH


def test_self_containing_list_is_refused() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(EncodeError):
        CODEC.encode((loop,))


@pytest.mark.parametrize("key", [b"\xa0" * 100_000, b"\xa0" * 100_000 + b"\x00" * 99_999,
                                 b"\xa0\x70a" * 50_000, b"\xa0\x60" + b"\x01" * 100_000])
def test_unterminated_arrays_are_decode_errors(key: bytes) -> None:
    with pytest.raises(DecodeError) as info:
        CODEC.decode(key)
    assert info.value.offset is not None


HOSTILE: list[Callable[[int], bytes]] = [
    lambda n: b"\xa0" + b"\x70\x61\x01\x01\x00" * n + b"\x00",
    lambda n: b"\xa0" + b"\x60" + b"\xfe\xfd" * n + b"\x00\x00",
    lambda n: b"\xa0" + (b"\x42\x3f\xf0" + bytes(6)) * n + b"\x00",
    lambda n: b"\x70" + "é".encode() * n,
    lambda n: b"\xa0" + (b"\xa0\x00") * n + b"\x00",
    lambda n: b"\xa0" + b"\x70\x61" * n,
]


@pytest.mark.parametrize("make", HOSTILE, ids=[str(i) for i in range(len(HOSTILE))])
def test_decode_is_linear(make: Callable[[int], bytes], impl: str) -> None:
    """4 times the input costs at most 8 times the work (16 would be quadratic). Counted, not
    timed (``work.py``)."""
    handed = []
    works = []
    for key in (make(2_000), make(8_000)):
        before = _impl.HANDOVERS["bytewise"]
        works.append(measure(lambda k=key: _outcome(k))[1])
        handed.append(_impl.HANDOVERS["bytewise"] > before)
    assert_linear(*works, 4, f"decoding {len(make(8_000))} bytes",
                  events=impl == "reference" or handed[0] == handed[1])


def _outcome(key: bytes) -> Any:
    try:
        return CODEC.decode(key)
    except LexCodecError as exc:
        return exc
