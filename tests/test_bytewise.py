"""Tests of the ``bytewise`` codec (spec ``bytewise.md``, npm bytewise 1.1.0).

* the spec's own (value, bytes) examples, both ways, and its refusals;
* hypothesis: byte order and round trip of any JS value (nested arrays of every type)
  against a natural-order model of the JS types written without the codec (the per-type
  keys of ``lexcodecs.model``, the type order of spec §10); every declared anomaly real;
* hostile input: deep and self-containing arrays, unterminated arrays (never a
  RecursionError), odd objects, linear-time decoding (counted, not timed);
* the registry entry, the option ``array``, schemas, ``inspect``;
* the option ``reading="reference"`` (keys read as bytewise's own decode reads them): its
  capabilities, the bound decode, agreement with the strict reader on every key the encoder
  writes, no compiled code, hostile input refused in linear work.

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
from lexcodecs.codecs.bytewise import codec as codec_module
from lexcodecs.codecs.bytewise.anomalies import ANOMALIES
from lexcodecs.codecs.bytewise.codec import BoundBytewiseLenient
from lexcodecs.codecs.bytewise.format import MAX_DEPTH
from lexcodecs.errors import DecodeError, EncodeError, LexCodecError, OptionError, SchemaError
from lexcodecs.model import value_key
from lexcodecs.testing.checks import check_anomalies, check_anomaly
from lexcodecs.testing.model import identical
from lexcodecs.types import UNDEFINED, Int32

pytestmark = pytest.mark.usefixtures("impl")

CODEC = BytewiseCodec()
ARRAY = BytewiseCodec(array=True)
READ = BytewiseCodec(reading="reference")
READ_ARRAY = BytewiseCodec(reading="reference", array=True)
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


# -- the option reading="reference" ---------------------------------------------------------


def test_reading_option() -> None:
    assert CODEC.options["reading"] == "strict"
    assert READ.config() == {"name": "bytewise", "array": False, "reading": "reference"}
    assert BytewiseCodec(**{k: v for k, v in READ.config().items() if k != "name"}) == READ
    with pytest.raises(OptionError):
        BytewiseCodec(reading="lenient")
    strict = {a.name for a in CODEC.capabilities.anomalies}
    lenient = {a.name for a in READ.capabilities.anomalies}
    assert strict - lenient == {"strict-decoding"}
    assert lenient - strict == {"reference-decoding"}
    assert READ.capabilities.notes != CODEC.capabilities.notes
    assert BytewiseCodec(reading="strict").capabilities == CODEC.capabilities
    check_anomalies(READ)
    # only reading changes: what is written, and its columnar declaration, stay
    assert READ.columnar() is CODEC.columnar()
    assert READ_ARRAY.columnar() is ARRAY.columnar()
    row = ("a\x00", 1.5, None)
    assert READ.encode(row) == CODEC.encode(row)
    assert READ.prefix_range(("a",)) == CODEC.prefix_range(("a",))
    assert READ.encode(row, "s:string, x:float64, n:int") == CODEC.encode(row)


@pytest.mark.parametrize(("hexkey", "value"), [
    ("10ff", None), ("2100", True), ("f0f0", UNDEFINED), ("4300", math.inf),
    ("42bff0000000000000", -1.0), ("41ffffffffffffffff", -0.0),
    ("523ff8000000000000", date(1)), ("51c007ffffffffffff", date(-1)),
    ("52bff0000000000000", date(-1)), ("70ff", "\ufffd"),
    ("a0050000", ((),)), ("a0ff0000", ((),)), ("a07061010000", ("a\x00",)),
    ("a060fe0000", (b"\x00",)), ("a060feff0000", (b"\x00",)), ("a06001fe0000", (b"\xfd",)),
    ("a070fe0000", ("\ufffd",)), ("a070010101030000", ("\x00\x02",)),
])
def test_reference_reading_spec_examples(hexkey: str, value: Any) -> None:
    """Spec §7 and the JS source: a trailing byte ignored, the sign bit unchecked, new
    Date() truncating toward zero, unchecked escapes (a lone escape is 00; fe ff wraps to
    00), an unknown tag inside an array read as an array."""
    got = READ.decode(bytes.fromhex(hexkey))
    assert identical((value,), got), got
    with pytest.raises(DecodeError):
        CODEC.decode(bytes.fromhex(hexkey))
    nan = READ.decode(bytes.fromhex("427ff8000000000000"))[0]
    assert math.isnan(nan)


@pytest.mark.parametrize(("hexkey", "offset", "says"), [
    ("", 0, "Invalid encoding"), ("05", 0, "Invalid encoding"),
    ("520000000000000000ff", 0, "Invalid float encoding length"),
    ("a0", 1, "Maximum call stack"), ("a0a005", 3, "Maximum call stack"),
    ("a010", 2, "nested sequence"), ("a0706100", 4, "nested sequence"),
    ("a060ff", 1, "No closing byte found for sequence"), ("a00000", 2, "Invalid encoding"),
    ("527ff0000000000000", 0, "Invalid Date"), ("52c2d0000000000000", 0, "years 1-9999"),
    ("a0520000000000000000", 10, "nested sequence"),
])
def test_reference_reading_refusals(hexkey: str, offset: int, says: str) -> None:
    with pytest.raises(DecodeError) as info:
        READ.decode(bytes.fromhex(hexkey))
    exc = info.value
    assert (exc.codec, exc.offset) == ("bytewise", offset)
    assert exc.expected
    assert says in str(exc)


@given(js_values)
def test_reference_reading_agrees_with_strict_on_written_keys(value: Any) -> None:
    key = CODEC.encode((value,))
    assert identical(CODEC.decode(key), READ.decode(key))
    if type(value) is tuple:
        assert identical(ARRAY.decode(key), READ_ARRAY.decode(key))


@given(st.binary(max_size=40) | st.lists(st.sampled_from(
    [b"\x00", b"\x01", b"\x10", b"\x42", b"\x52", b"\x60", b"\x70", b"\xa0", b"\xfe", b"\xff",
     b"\x05", bytes(8), b"\x7f\xf8" + bytes(6)]), max_size=12).map(b"".join))
def test_reference_reading_accepts_what_strict_accepts(data: bytes) -> None:
    """Whatever the strict reader takes, bytewise reads the same; anything else is a value
    or a DecodeError with an offset (never another exception)."""
    for strict, lenient in ((CODEC, READ), (ARRAY, READ_ARRAY)):
        offset: int | None = 0
        try:
            got = lenient.decode(data)
        except DecodeError as exc:
            offset, got = exc.offset, None
        assert offset is not None
        try:
            want = strict.decode(data)
        except DecodeError:
            continue
        assert got is not None
        assert identical(want, got), data.hex()


def test_reference_reading_bound_decode() -> None:
    schema = "s:string, n:int, b:bool, x:float64, r:bytes, z:string"
    row = ("acme", 42, True, -0.5, b"\x00\xff", None)
    bound = READ.bind(schema)
    assert type(bound) is BoundBytewiseLenient
    key = bound.encode(row)
    assert key == CODEC.encode(row, schema)
    back = READ.decode(key, schema)
    assert identical(row, back)
    assert type(back[1]) is int
    # non-canonical bytes, read as bytewise reads them, then typed by field
    lenient = bytes.fromhex("a0 70610101 00 42bff0000000000000 2100ff".replace(" ", ""))
    with pytest.raises(DecodeError):
        CODEC.decode(lenient, "s:string, n:int")
    with pytest.raises(DecodeError):  # the trailing ff is read as an array: three values
        READ.decode(lenient, "s:string, n:int")
    lenient = bytes.fromhex("a0 7061010100 42bff0000000000000 00".replace(" ", ""))
    assert identical(READ.decode(lenient, "s:string, n:int"), ("a\x00", -1))
    assert identical(READ.decode(lenient, "s:string, x:float64"), ("a\x00", -1.0))
    # one field, bare: trailing bytes after null ignored, -0 from a negative tag
    assert READ.decode(bytes.fromhex("10ffff"), "n:int") == (None,)
    assert identical(READ.decode(bytes.fromhex("41ffffffffffffffff"), "x:float64"), (-0.0,))
    assert identical(READ.decode(bytes.fromhex("41ffffffffffffffff"), "n:int"), (0,))
    assert identical(READ_ARRAY.decode(bytes.fromhex("a041ffffffffffffffff00"), "n:int"), (0,))


def test_reference_reading_bound_decode_refusals() -> None:
    """A number becomes an int only when it is an integral double within +-2**53; a value
    of another type than its field's, or an array of another length, is refused."""
    def number(x: float) -> bytes:
        return CODEC.encode((x,))

    assert READ.decode(number(2.0**53), "n:int") == (2**53,)
    assert READ.decode(number(-(2.0**53)), "n:int") == (-(2**53),)
    for x in (2.0**53 + 2, 2.0**60, 0.5, math.inf):
        with pytest.raises(DecodeError) as info:
            READ.decode(number(x), "n:int")
        assert info.value.offset == 0
        assert info.value.field == 0
    with pytest.raises(DecodeError):
        READ.decode(bytes.fromhex("427ff8000000000000"), "n:int")  # NaN
    assert math.isnan(READ.decode(bytes.fromhex("427ff8000000000000"), "x:float64")[0])
    for key, schema in (("70ff", "r:bytes"), ("60ff", "s:string"), ("f0", "b:bool"),
                        ("523ff0000000000000", "x:float64"), ("a0050000", "s:string"),
                        ("a01000", "a:int, b:int"), ("a010101000", "a:int, b:int")):
        with pytest.raises(DecodeError) as info:
            READ.decode(bytes.fromhex(key), schema)
        assert (info.value.codec, info.value.offset) == ("bytewise", 0), key
    assert READ.decode(bytes.fromhex("70ff"), "s:string") == ("\ufffd",)
    assert READ.decode(bytes.fromhex("60ff"), "r:bytes") == (b"\xff",)
    assert READ_ARRAY.decode(bytes.fromhex("a060fe050000"), "r:bytes") == (b"\x06",)
    with pytest.raises(DecodeError) as info:
        READ_ARRAY.decode(bytes.fromhex("60ff"), "r:bytes")
    assert info.value.offset == 0


def test_reference_reading_never_runs_compiled_decoding(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """Both implementations read alike because the compiled reader (strict) is never
    asked: a compiled module that refuses to decode changes nothing."""
    class NoDecoding:
        def decode(self, *args: Any) -> Any:
            raise AssertionError("the compiled decoder ran under reading='reference'")

        def encode(self, values: Any, array: bool, fallback: Any) -> bytes:
            return fallback(values, array)  # type: ignore[no-any-return]

        CompiledBound = None

    monkeypatch.setattr(codec_module._impl, "compiled", lambda package: NoDecoding())
    codec = BytewiseCodec(reading="reference")
    assert codec.decode(bytes.fromhex("10ff")) == (None,)
    assert codec.decode(bytes.fromhex("7061"), "s:string") == ("a",)
    assert BytewiseCodec(reading="reference", array=True).decode(
        bytes.fromhex("a070610000")) == ("a",)


@pytest.mark.parametrize("key", [
    b"\xa0" * 100_000, b"\xa0" * 100_000 + b"\x00" * 100_000, b"\xa0" + b"\x05" * 100_000,
    b"\xa0\x70a" * 50_000, b"\xa0\x60" + b"\x01" * 100_000, b"\xa0" + b"\xff" * 99_999,
])
def test_reference_reading_of_unterminated_or_deep_arrays(key: bytes) -> None:
    """JS recurses here (and overflows its stack); this reader nests at most MAX_DEPTH
    arrays, with an explicit stack: a DecodeError, never a RecursionError."""
    for codec in (READ, READ_ARRAY):
        with pytest.raises(DecodeError) as info:
            codec.decode(key)
        assert info.value.offset is not None
    deep = b"\xa0" * MAX_DEPTH + b"\x00" * MAX_DEPTH
    assert READ.decode(deep) == (nested(MAX_DEPTH),)
    with pytest.raises(DecodeError) as info:  # unknown tags open arrays too
        READ.decode(b"\xa0" + b"\x05" * MAX_DEPTH + b"\x00" * (MAX_DEPTH + 1))
    assert info.value.offset == MAX_DEPTH


READ_HOSTILE: list[Callable[[int], bytes]] = [
    *HOSTILE,
    lambda n: b"\xa0" + b"\x70" + b"\x01" * n + b"\x00\x00",
    lambda n: b"\xa0" + b"\x60" + b"\xfe\x05" * n + b"\x00\x00",
    lambda n: b"\xa0" + b"\x05\x00" * n + b"\x00",
    lambda n: b"\xa0" + b"\x10" * n + b"\x00",
    lambda n: b"\xa0" + b"\x10" * n,
    lambda n: b"\x70" + b"\xff\xc0\xed\xa0" * n,
    lambda n: b"\x10" + b"\xff" * n,
    lambda n: b"\xa0" + b"\x52\x3f\xf8" + bytes(6) + b"\x70\x61\x00" * n + b"\x00",
]


@pytest.mark.parametrize("make", READ_HOSTILE, ids=[str(i) for i in range(len(READ_HOSTILE))])
def test_reference_reading_is_linear(make: Callable[[int], bytes]) -> None:
    """4 times the input costs at most 8 times the work, counted (``work.py``); this
    reader is pure Python under both implementations, so every event counts."""
    works = [measure(lambda k=key: _read_outcome(k))[1] for key in (make(2_000), make(8_000))]
    assert_linear(*works, 4, f"reading {len(make(8_000))} bytes as bytewise does")


def _read_outcome(key: bytes) -> Any:
    try:
        return READ.decode(key)
    except LexCodecError as exc:
        return exc
