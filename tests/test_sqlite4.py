"""The ``sqlite4`` codec (spec ``specs/sqlite4.md``; §16 holds the binding decisions).

* the conformance harness on mixed schemas, with ints, floats and Decimals of every size in
  ONE decimal field (the model compares a float as ``Decimal(repr(x))``, §11), and again
  with a table number;
* the issue's own ordering example, exact numbers up to 40 digits and exponents of ±400,
  ints up to ``MAX_INT_DIGITS`` digits;
* the spec's worked examples (§3, §5, §6-§10) as one (value, hex) table, both directions;
* floats (§11), refusals with typed errors, strict decoding with offsets (§5.7, §7, §12),
  fuzzing, ``prefix_range`` (§13), the compiled encoder against the careful one, config.

The vector file ``conformance/vectors/sqlite4.json`` repeats many of the bytes below; the table
here is the spec's own. The real sorted store is in ``test_sqlite4_store.py``.
"""

from __future__ import annotations

import decimal
import math
import pickle
import struct
from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st
from work import huge_int_conversions, measure

import lexcodecs
from lexcodecs import (
    DecodeError,
    EncodeError,
    KeySchema,
    LexCodecError,
    OptionError,
    SchemaError,
    UnsupportedTypeError,
    get_codec,
)
from lexcodecs.codecs.sqlite4 import (
    EMPTY_PREFIX_STOP,
    MAX_INT_DIGITS,
    Sqlite4Codec,
    decode_varint,
    encode_varint,
)
from lexcodecs.errors import with_article
from lexcodecs.testing import CodecConformance, identical, keys
from lexcodecs.testing.strategies import Overrides, junk_keys
from lexcodecs.types import INT_TYPES, Float32, Int8, Int32, UInt64

D = decimal.Decimal
CODEC = Sqlite4Codec()
TABLE10 = Sqlite4Codec(table=10)
_D64 = struct.Struct(">d")


def hx(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def bits(x: float) -> bytes:
    return _D64.pack(x)


# -- strategies ------------------------------------------------------------------------------

#: floats of every kind: plain, the edges, subnormals (and NaN with any payload)
FLOATS = st.one_of(
    st.floats(),
    st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan, 5e-324, -5e-324,
                     2.2250738585072014e-308, 1.7976931348623157e308, 0.1, -0.1, 1e23,
                     -1e23, 12.345, 0.5]),
    st.floats(min_value=-2.2250738585072014e-308, max_value=2.2250738585072014e-308),
)
INTS = st.one_of(
    st.integers(-1000, 1000),
    st.integers(-(10**40), 10**40),
    st.integers(-(10**80), 10**80),
    st.sampled_from([10**40, -(10**40), 10**40 + 1, 2**64 - 1, 2**64, -(2**63),
                     99999999999999991611392, 10**23, 10**18, 10**20]),
)
#: Decimal((sign, digits, exponent)): up to 40 significant digits, exponents -400..400
DECIMALS = st.builds(lambda s, d, e: D((s, tuple(d), e)), st.integers(0, 1),
                     st.lists(st.integers(0, 9), min_size=1, max_size=40), st.integers(-400, 400))
SPECIAL_DECIMALS = st.sampled_from([
    D("NaN"), D("Infinity"), D("-Infinity"), D(0), D("-0"), D("0E+7"), D("0.1"), D("1E+23"),
    D("99999999999999991611392.5"), D("1.000"), D("-12.3450"),
])
#: one decimal field holding ints, floats and Decimals together
MIXED_NUMBERS = st.one_of(INTS, FLOATS, DECIMALS, SPECIAL_DECIMALS)


# -- 1. the conformance harness --------------------------------------------------------------


class TestSqlite4Conformance(CodecConformance):
    codec = CODEC
    schemas = (
        "id:int, name:string desc, blob:bytes",
        "a:int8 desc, b:uint64, c:int64",
        "x:float64, d:decimal desc",
        "tag:string, n:int desc, blob:bytes final=true",
        "num:decimal, s:string",
    )
    value_strategies: ClassVar[Overrides] = {"decimal": MIXED_NUMBERS}


class TestSqlite4TableConformance(CodecConformance):
    codec = TABLE10
    schemas = ("num:decimal desc, name:string, blob:bytes final=true",)
    value_strategies: ClassVar[Overrides] = {"decimal": MIXED_NUMBERS}


# -- 2. the issue's ordering example ---------------------------------------------------------


@pytest.mark.parametrize("schema", ["x:decimal", None])
def test_issue_ordering_example(schema: str | None) -> None:
    values = [1, D("1.5"), 2.0, 10**30]
    got = [CODEC.encode((v,), schema) for v in values]
    assert [k.hex(" ") for k in got] == ["18 02", "18 03 64", "18 04", "22 10 02"]
    assert got[0] < got[1] < got[2] < got[3]
    assert CODEC.decode(got[1], schema) == (D("1.5"),)


@pytest.mark.parametrize("schema", ["x:decimal", None])
def test_float_and_decimal_point_one_share_a_key(schema: str | None) -> None:
    assert CODEC.encode((0.1,), schema) == hx("17 14")
    assert CODEC.encode((D("0.1"),), schema) == hx("17 14")
    assert CODEC.decode(hx("17 14"), schema) == (D("0.1"),)


def test_float_1e23_sorts_as_its_repr_not_its_exact_value() -> None:
    # spec §11: 1e23 == 99999999999999991611392 in Python, yet the int sorts first
    assert 1e23 == 99999999999999991611392
    f = CODEC.encode((1e23,), "x:decimal")
    i = CODEC.encode((99999999999999991611392,), "x:decimal")
    assert f == hx("22 0c 14")
    assert i == hx("22 0c 13 c7 c7 c7 c7 c7 c7 c7 b7 7b 1b b8")
    assert i < CODEC.encode((D("99999999999999991611392.5"),), "x:decimal") < f
    assert CODEC.encode((D("1E+23"),), "x:decimal") == f


# -- 3. exact numbers -----------------------------------------------------------------------


def _stripped(d: D) -> tuple[int, tuple[int, ...], int]:
    """as_tuple() of a finite non-zero Decimal without leading or trailing zero digits,
    by hand (normalize() would round to the context's 28 digits)."""
    sign, digits, exponent = d.as_tuple()
    assert isinstance(exponent, int)
    ds = list(digits)
    while ds and ds[0] == 0:
        ds.pop(0)
    while ds and ds[-1] == 0:
        ds.pop()
        exponent += 1
    return sign, tuple(ds), exponent


@st.composite
def decimal_pairs(draw: st.DrawFn) -> tuple[D, D]:
    """Two Decimals: independent, or the second a near variant of the first (a digit more,
    a digit changed, the sign flipped, the exponent moved by one)."""
    a = draw(DECIMALS)
    how = draw(st.sampled_from(["independent", "append", "change", "negate", "shift"]))
    sign, digits, exponent = a.as_tuple()
    assert isinstance(exponent, int)
    if how == "independent":
        return a, draw(DECIMALS)
    if how == "append":
        return a, D((sign, (*digits, draw(st.integers(0, 9))), exponent - 1))
    if how == "change":
        i = draw(st.integers(0, len(digits) - 1))
        changed = (*digits[:i], draw(st.integers(0, 9)), *digits[i + 1:])
        return a, D((sign, changed, exponent))
    if how == "negate":
        return a, -a
    return a, D((sign, digits, exponent + draw(st.sampled_from([-1, 1]))))


@given(DECIMALS)
def test_decimals_round_trip_exactly(d: D) -> None:
    for schema in ("x:decimal", "x:decimal desc"):
        key = CODEC.encode((d,), schema)
        (back,) = CODEC.decode(key, schema)
        assert type(back) is D
        assert back == d
        if d.is_zero():
            assert key == (hx("15") if schema == "x:decimal" else hx("ea"))
            assert back.as_tuple() == (0, (0,), 0)
        else:
            assert back.as_tuple() == _stripped(d), (d, back)
    # without a schema: integral -> int, anything else -> the Decimal
    (back,) = CODEC.decode(CODEC.encode((d,)))
    assert back == d
    assert type(back) is (int if d == d.to_integral_value() else D)


@given(decimal_pairs())
def test_decimal_key_order_is_numeric_order(pair: tuple[D, D]) -> None:
    a, b = pair
    ka, kb = CODEC.encode((a,), "x:decimal"), CODEC.encode((b,), "x:decimal")
    assert (ka < kb) == (a < b), (a, b, ka.hex(" "), kb.hex(" "))
    assert (ka == kb) == (a == b), (a, b)
    da, db = CODEC.encode((a,), "x:decimal desc"), CODEC.encode((b,), "x:decimal desc")
    assert (da > db) == (a < b)


def _with_digits(k: int, low: int, negative: bool) -> int:
    """An int of exactly k decimal digits."""
    top: int = 10 ** (k - 1)
    n = top + low % (9 * top)
    return -n if negative else n


#: ints of any size up to MAX_INT_DIGITS digits
BIG_INTS = st.one_of(
    st.integers(),
    st.builds(_with_digits, st.integers(1, MAX_INT_DIGITS), st.integers(0, 10**40),
              st.booleans()),
    st.sampled_from([10**MAX_INT_DIGITS - 1, -(10**MAX_INT_DIGITS - 1), 10**(MAX_INT_DIGITS - 1),
                     10**4300, 2**14000, -(2**33000)]),
)


@given(BIG_INTS)
def test_ints_up_to_max_digits_round_trip(n: int) -> None:
    for schema in ("x:int", "x:int desc", "x:decimal", None):
        key = CODEC.encode((n,), schema)
        (back,) = CODEC.decode(key, schema)
        assert back == n
        assert type(back) is (D if schema == "x:decimal" else int)
    # an int and the Decimal of the same value are one number
    assert CODEC.encode((n,)) == CODEC.encode((D(n),))


@given(BIG_INTS, st.sampled_from([-1, 1, "negate", "other"]), BIG_INTS)
def test_int_key_order_is_numeric_order(a: int, how: int | str, other: int) -> None:
    b = other if how == "other" else -a if how == "negate" else a + int(how)
    if len(str(decimal.Decimal(b)).lstrip("-")) > MAX_INT_DIGITS:
        return
    ka, kb = CODEC.encode((a,), "x:int"), CODEC.encode((b,), "x:int")
    assert (ka < kb) == (a < b)
    assert (ka == kb) == (a == b)


def test_max_int_digits_boundary() -> None:
    biggest = 10**MAX_INT_DIGITS - 1
    for n in (biggest, -biggest):
        assert CODEC.decode(CODEC.encode((n,), "x:int"), "x:int") == (n,)
        assert CODEC.decode(CODEC.encode((n,))) == (n,)
    for n in (10**MAX_INT_DIGITS, -(10**MAX_INT_DIGITS), 1 << 200_000):
        for schema in ("x:int", "x:int desc", "x:decimal", None):
            with pytest.raises(EncodeError) as info:
                CODEC.encode((n,), schema)
            assert info.value.codec == "sqlite4"
            assert info.value.field == 0
            assert info.value.has_value
            assert f"more than {MAX_INT_DIGITS}" in info.value.reason
    # the same magnitude as a Decimal is fine: it is held compactly
    key = CODEC.encode((D(10) ** MAX_INT_DIGITS,), "x:decimal")
    assert CODEC.decode(key, "x:decimal") == (D("1E+10000"),)


def test_too_long_int_error_names_the_value() -> None:
    """BUG: encoding -(10**MAX_INT_DIGITS) raises EncodeError whose ``value`` is
    10**MAX_INT_DIGITS, the magnitude, not the value given (``_write_int`` passes ``-n`` to
    ``_int_digits``, which raises with it). A refusal must name the refused value."""
    for n in (10**MAX_INT_DIGITS, -(10**MAX_INT_DIGITS)):
        for schema in ("x:int", "x:decimal", None):
            with pytest.raises(EncodeError) as info:
                CODEC.encode((n,), schema)
            assert info.value.value == n, (
                f"schema {schema}: the error names {'-' if info.value.value < 0 else '+'}"
                f"10**{MAX_INT_DIGITS}, the value was {'-' if n < 0 else '+'}10**{MAX_INT_DIGITS}")


def test_trailing_zeros_are_not_representable() -> None:
    # spec §11: Decimal('1.0'), '1.00' and '1' share 18 02 and decode as Decimal('1')
    for text in ("1", "1.0", "1.00", "100E-2"):
        assert CODEC.encode((D(text),), "x:decimal") == hx("18 02")
    (one,) = CODEC.decode(hx("18 02"), "x:decimal")
    assert one.as_tuple() == (0, (1,), 0)
    (ten,) = CODEC.decode(CODEC.encode((D("10.0"),), "x:decimal"), "x:decimal")
    assert str(ten) == "1E+1"


def test_forty_digit_values_never_round_to_the_context() -> None:
    # a 40-digit Decimal would lose 12 digits to normalize(), and an int to a float
    d = D("1234567890123456789012345678901234567891E-20")
    key = CODEC.encode((d,), "x:decimal")
    assert CODEC.decode(key, "x:decimal")[0].as_tuple() == d.as_tuple()
    n = 10**40 + 1
    assert CODEC.encode((n,)) == hx("22 15 03" + " 01" * 19 + " 02")
    assert CODEC.decode(CODEC.encode((n,))) == (n,)
    assert CODEC.encode((n,)) > CODEC.encode((10**40,))


def test_subnormal_range_decimal_round_trips_or_is_refused() -> None:
    """BUG: Decimal('1E-1000000000000000001') is a valid Decimal (its exponent is above
    decimal.MIN_ETINY) and encodes to 16 00 f9 0f a4 a6 2c 4d ff ff 14, but that key does
    not decode: 'number beyond the exponent range of Python's Decimal'. Spec §16 Q2 says a
    Decimal is encoded exactly, so the codec must either refuse it when encoding
    (EncodeError) or give it back when decoding."""
    for d in (D("1E-1000000000000000001"), D("-1.5E-1000000000000000001"),
              D((0, (1,), decimal.MIN_ETINY))):
        try:
            key = CODEC.encode((d,), "x:decimal")
        except EncodeError:
            continue
        try:
            back = CODEC.decode(key, "x:decimal")
        except DecodeError as exc:
            pytest.fail(f"{d!r} encodes to {key.hex(' ')}, which does not decode: {exc}")
        assert back == (d,)


# -- 4. the spec's worked examples, both directions ------------------------------------------

EXAMPLES: list[tuple[str, Any, str]] = [
    # §5.4 worked examples
    ("x:decimal", D("12.345"), "18 19 45 64"),
    ("x:int", 1234, "19 19 44"),
    ("x:int", -12345, "10 fc d0 a5"),
    ("x:decimal", D("0.00123"), "16 fe 19 3c"),
    ("x:decimal", D("-0.00123"), "14 01 e6 c3"),
    ("x:decimal", D("1e22"), "22 0c 02"),
    ("x:decimal", D("-1e22"), "08 f3 fd"),
    ("x:decimal", D("1.5e-30"), "16 f1 03 64"),
    ("x:int", 9223372036854775807, "21 13 2d 43 91 07 89 6d 9b 75 0e"),
    ("x:decimal", D("1e500"), "22 f1 0b 02"),
    ("x:decimal", D("-1e500"), "08 0e f4 fd"),
    ("x:decimal", D("1e-500"), "16 0e f6 02"),
    ("x:decimal", D("-1e-500"), "14 f1 09 fd"),
    # §5.5 the wiki's table (with its errata)
    ("x:decimal", D("1.0"), "18 02"),
    ("x:decimal", D("10.0"), "18 14"),
    ("x:decimal", D("99.0"), "18 c6"),
    ("x:decimal", D("99.01"), "18 c7 02"),
    ("x:decimal", D("99.0001"), "18 c7 01 02"),
    ("x:decimal", D("100.0"), "19 02"),
    ("x:decimal", D("100.01"), "19 03 01 02"),
    ("x:decimal", D("100.1"), "19 03 01 14"),
    ("x:int", 9999, "19 c7 c6"),
    ("x:decimal", D("9999.000001"), "19 c7 c7 01 01 02"),
    ("x:decimal", D("9999.000009"), "19 c7 c7 01 01 12"),
    ("x:decimal", D("9999.00001"), "19 c7 c7 01 01 14"),
    ("x:decimal", D("9999.00009"), "19 c7 c7 01 01 b4"),
    ("x:decimal", D("9999.000099"), "19 c7 c7 01 01 c6"),
    ("x:decimal", D("9999.0001"), "19 c7 c7 01 02"),
    ("x:decimal", D("9999.001"), "19 c7 c7 01 14"),
    ("x:decimal", D("9999.01"), "19 c7 c7 02"),
    ("x:decimal", D("9999.1"), "19 c7 c7 14"),
    ("x:int", 10000, "1a 02"),
    ("x:int", 10001, "1a 03 01 02"),
    ("x:int", 12345, "1a 03 2f 5a"),
    ("x:int", 123450, "1a 19 45 64"),
    ("x:decimal", D("1234.5"), "19 19 45 64"),
    ("x:decimal", D("0.123"), "17 19 3c"),
    ("x:decimal", D("0.0123"), "17 03 2e"),
    # §5.5 more trunk outputs at the class boundaries
    ("x:decimal", D("0.5"), "17 64"),
    ("x:decimal", D("-0.5"), "13 9b"),
    ("x:decimal", D("0.1"), "17 14"),
    ("x:decimal", D("-0.1"), "13 eb"),
    ("x:int", 1, "18 02"),
    ("x:int", -1, "12 fd"),
    ("x:decimal", D("1.01"), "18 03 02"),
    ("x:decimal", D("-1.01"), "12 fc fd"),
    ("x:int", 255, "19 05 6e"),
    ("x:int", 256, "19 05 70"),
    ("x:int", 10**18, "21 02"),
    ("x:uint64", 2**64 - 1, "21 25 59 87 59 0f 4b 13 6f 21 1e"),
    ("x:int", 10**20, "22 0b 02"),
    ("x:int", 10**30, "22 10 02"),
    ("x:int64", -(2**63), "09 ec d2 bc 6e f8 76 92 64 8a ef"),
    ("x:decimal", D("1e-30"), "16 f1 02"),
    ("x:decimal", D("7e-300"), "16 6a 0e"),
    # §5.1 special values, ascending and descending
    ("x:decimal", D("NaN"), "06"),
    ("x:decimal", D("-Infinity"), "07"),
    ("x:decimal", D(0), "15"),
    ("x:decimal", D("Infinity"), "23"),
    ("x:decimal desc", D("NaN"), "f9"),
    ("x:decimal desc", D("-Infinity"), "f8"),
    ("x:decimal desc", D(0), "ea"),
    ("x:decimal desc", D("Infinity"), "dc"),
    ("x:float64", math.nan, "06"),
    ("x:float64", -math.inf, "07"),
    ("x:float64", 0.0, "15"),
    ("x:float64", math.inf, "23"),
    # §9 descending
    ("x:int desc", 1, "e7 fd"),
    ("x:decimal desc", D("-0.00123"), "eb fe 19 3c"),
    ("x:string desc", "abc", "db 9e 9d 9c ff"),
    ("x:int desc", None, "fa"),
    ("x:int", None, "05"),
    # §6 text
    ("x:string", "abc", "24 61 62 63 00"),
    ("x:string", "", "24 00"),
    ("x:string", "é", "24 c3 a9 00"),
    ("x:string", "\U0001f600", "24 f0 9f 98 80 00"),
    # §7 binary
    ("x:bytes", b"", "25 00"),
    ("x:bytes", b"\x00", "25 80 80 00"),
    ("x:bytes", b"\x00\x00", "25 80 80 80 00"),
    ("x:bytes", b"\x01\x02", "25 80 c0 c0 00"),
    ("x:bytes", b"\x31", "25 98 c0 00"),
    ("x:bytes", b"\x32\x32", "25 99 8c c0 00"),
    ("x:bytes", b"foo", "25 b3 9b ed f0 00"),
    ("x:bytes desc", b"foo", "da 4c 64 12 0f ff"),
    ("x:bytes", b"\xff" * 7, "25" + " ff" * 8 + " 00"),
    ("x:bytes", b"\xff" * 8, "25" + " ff" * 9 + " c0 00"),
    ("x:bytes", b"\xaa" * 7, "25 d5 aa d5 aa d5 aa d5 aa 00"),
    # §8 final binary
    ("x:bytes final=true", b"foo", "26 66 6f 6f"),
    ("x:bytes final=true", b"", "26"),
    # §11 floats as their repr decimal
    ("x:float64", 0.5, "17 64"),
    ("x:float64", -0.5, "13 9b"),
    ("x:float64", 12.345, "18 19 45 64"),
    ("x:float64", 0.1, "17 14"),
    ("x:float64", 1e23, "22 0c 14"),
    ("x:int", 99999999999999991611392, "22 0c 13 c7 c7 c7 c7 c7 c7 c7 b7 7b 1b b8"),
]


def _same(want: Any, got: Any) -> bool:
    if isinstance(want, float) and math.isnan(want):
        return type(got) is float and math.isnan(got)
    if isinstance(want, D) and want.is_nan():
        return type(got) is D and got.is_nan()
    return type(got) is type(want) and bool(got == want)


@pytest.mark.parametrize(("schema", "value", "key"), EXAMPLES,
                         ids=[f"{s}={v!r}" for s, v, _ in EXAMPLES])
def test_spec_examples_both_directions(schema: str, value: Any, key: str) -> None:
    data = hx(key)
    assert CODEC.encode((value,), schema).hex(" ") == data.hex(" ")
    (back,) = CODEC.decode(data, schema)
    assert _same(value, back), (value, back)
    if isinstance(value, (int, D)) and value is not None and not D(value).is_nan():
        # without a schema the number is the same: int when integral, else Decimal
        (free,) = CODEC.decode(data)
        assert free == value
        if D(value).is_finite():
            assert type(free) is (int if D(value) == D(value).to_integral_value() else D)


def test_spec_compound_key_with_table() -> None:
    # §10: table 10; 42 ASC, 'abc' DESC, x'0102' ASC, 1.5 ASC, x'ff' as a final binary
    schema = "a:int, b:string desc, c:bytes, d:decimal, e:bytes final=true"
    want = hx("0a 18 54 db 9e 9d 9c ff 25 80 c0 c0 00 18 03 64 26 ff")
    for one_and_a_half in (1.5, D("1.5")):
        values = (42, "abc", b"\x01\x02", one_and_a_half, b"\xff")
        assert TABLE10.encode(values, schema) == want
    assert TABLE10.decode(want, schema) == (42, "abc", b"\x01\x02", D("1.5"), b"\xff")
    assert TABLE10.decode(want) == (42, "abc", b"\x01\x02", D("1.5"), b"\xff")


VARINTS = [
    (0, "00"), (240, "f0"), (241, "f1 01"), (2287, "f8 ff"), (2288, "f9 00 00"),
    (67823, "f9 ff ff"), (67824, "fa 01 08 f0"), (16777215, "fa ff ff ff"),
    (4294967295, "fb ff ff ff ff"), (1099511627775, "fc ff ff ff ff ff"),
    (281474976710655, "fd ff ff ff ff ff ff"), (72057594037927935, "fe ff ff ff ff ff ff ff"),
    (9223372036854775807, "ff 7f ff ff ff ff ff ff ff"),
    (18446744073709551615, "ff ff ff ff ff ff ff ff ff"),
]


@pytest.mark.parametrize(("value", "text"), VARINTS, ids=[str(v) for v, _ in VARINTS])
def test_spec_varints_and_table_prefix(value: int, text: str) -> None:
    data = hx(text)
    assert encode_varint(value) == data
    assert decode_varint(data) == (value, len(data))
    codec = Sqlite4Codec(table=value)
    assert codec.encode((None,)) == data + b"\x05"
    assert codec.decode(data + b"\x05", "x:int") == (None,)


# -- 5. floats --------------------------------------------------------------------------------


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_encodes_as_its_repr_decimal(x: float) -> None:
    want = CODEC.encode((D(repr(x)),), "x:decimal")
    assert CODEC.encode((x,), "x:decimal") == want
    assert CODEC.encode((x,)) == want
    assert CODEC.encode((x,), "x:float64") == want
    assert CODEC.decode(want, "x:decimal") == (D(repr(x)),)


@given(FLOATS)
def test_float64_round_trip_is_exact(x: float) -> None:
    for schema in ("x:float64", "x:float64 desc"):
        (back,) = CODEC.decode(CODEC.encode((x,), schema), schema)
        assert type(back) is float
        if math.isnan(x):
            assert math.isnan(back)
        elif x == 0.0:
            assert bits(back) == bits(0.0)  # -0.0 is zero (15)
        else:
            assert bits(back) == bits(x)


@given(FLOATS, FLOATS)
def test_float64_key_order_is_float_order(a: float, b: float) -> None:
    # NaN is one value below -inf; -0.0 == 0.0
    def rank(x: float) -> tuple[int, float]:
        return (0, 0.0) if math.isnan(x) else (1, x)

    ka, kb = CODEC.encode((a,), "x:float64"), CODEC.encode((b,), "x:float64")
    assert (ka < kb) == (rank(a) < rank(b))
    assert (ka == kb) == (rank(a) == rank(b))


@pytest.mark.parametrize("n", [0, 1, -1, 3, 2**53, -(2**53), 2**53 + 2, 10**22, -(10**22),
                               2**1023, int(1.7976931348623157e308)])
def test_float64_field_writes_an_exact_int_as_its_float(n: int) -> None:
    key = CODEC.encode((n,), "x:float64")
    assert key == CODEC.encode((float(n),), "x:float64")
    (back,) = CODEC.decode(key, "x:float64")
    assert type(back) is float
    assert back == n


@pytest.mark.parametrize("n", [2**53 + 1, -(2**53 + 1), 10**23, 99999999999999991611393,
                               10**400, 2**1024, -(2**1024)])
def test_float64_field_refuses_an_int_no_float_holds(n: int) -> None:
    with pytest.raises(EncodeError) as info:
        CODEC.encode((n,), "x:float64")
    assert not isinstance(info.value, UnsupportedTypeError)
    assert info.value.codec == "sqlite4"
    assert info.value.field == 0
    assert info.value.value == n
    assert "float64" in info.value.reason


@pytest.mark.parametrize("value", [D("1.5"), D("0.1"), D("NaN"), "1.5", b"1"])
def test_float64_field_refuses_other_types(value: Any) -> None:
    # spec §11: a float64 field takes a float, or an int that converts exactly
    with pytest.raises(UnsupportedTypeError) as info:
        CODEC.encode((value,), "x:float64")
    assert info.value.field_name == "x"
    assert info.value.field_type == "float64"


def test_float64_field_reads_any_number_rounded() -> None:
    # spec §11/§16 Q3: a float64 field rounds any number to the nearest float
    def read(value: Any) -> float:
        (back,) = CODEC.decode(CODEC.encode((value,), "x:decimal"), "x:float64")
        assert type(back) is float
        return float(back)

    assert read(D("0.1")) == 0.1
    assert read(99999999999999991611392) == 1e23
    assert read(D("1.00000000000000000000000000000000000001")) == 1.0
    assert read(D("1e500")) == math.inf
    assert read(D("-1e500")) == -math.inf
    assert read(D("1e-500")) == 0.0
    assert read(10**30) == 1e30
    assert math.isnan(read(D("NaN")))


def test_float_nan_payloads_and_negative_zero() -> None:
    nans = [math.nan, -math.nan, struct.unpack(">d", hx("7ff0000000000001"))[0],
            struct.unpack(">d", hx("fff8000000000abc"))[0]]
    for schema in ("x:float64", "x:decimal", None):
        for nan in nans:
            assert CODEC.encode((nan,), schema) == hx("06")
        assert CODEC.encode((-0.0,), schema) == hx("15")
    assert CODEC.decode(hx("15"), "x:float64") == (0.0,)
    assert CODEC.decode(hx("15")) == (0,)
    (nan,) = CODEC.decode(hx("06"))
    assert type(nan) is float
    assert math.isnan(nan)
    assert CODEC.decode(hx("23 07")) == (math.inf, -math.inf)


# -- 6. refusals: typed errors naming codec, field, value and reason -----------------------


def _refused(kind: type[LexCodecError], call: Callable[[], Any], *, field: int | None,
             reason: str) -> LexCodecError:
    with pytest.raises(kind) as info:
        call()
    err = info.value
    assert err.codec == "sqlite4", str(err)
    assert err.field == field, str(err)
    assert reason in err.reason, str(err)
    assert "sqlite4" in str(err)
    return err


@pytest.mark.parametrize("schema", [None, "a:int, x:int", "a:int, x:decimal",
                                    "a:int, x:float64", "a:int, x:int8 desc",
                                    "a:int, x:uint64", "a:int, x:string", "a:int, x:bytes"])
@pytest.mark.parametrize("flag", [True, False])
def test_bool_is_refused_everywhere(schema: str | None, flag: bool) -> None:
    err = _refused(UnsupportedTypeError, lambda: CODEC.encode((1, flag), schema), field=1,
                   reason="bool")
    assert err.value is flag
    if schema is not None:
        assert err.field_name == "x"
    assert repr(flag) in str(err)


def test_bool_refused_in_schemaless_prefix_range() -> None:
    _refused(UnsupportedTypeError, lambda: CODEC.prefix_range((True,)), field=0, reason="bool")


@pytest.mark.parametrize("field_type", ["float32", "uuid", "bool", "timestamp", "duration",
                                        "tuple"])
def test_bind_refuses_field_types(field_type: str) -> None:
    err = _refused(SchemaError, lambda: CODEC.bind(f"a:int, x:{field_type}"), field=1,
                   reason=f"type {field_type!r} is not supported")
    assert err.field_name == "x"
    assert err.field_type == field_type


@pytest.mark.parametrize("schema", ["a:int, x:int nulls last", "a:int, x:string nulls last",
                                    "a:int, x:int desc nulls first",
                                    "a:int, x:bytes desc nulls first"])
def test_bind_refuses_null_placement_sqlite4_cannot_write(schema: str) -> None:
    err = _refused(SchemaError, lambda: CODEC.bind(schema), field=1, reason="NULL cannot sort")
    assert err.field_name == "x"


def test_null_placement_that_agrees_is_accepted() -> None:
    # spec §4: nulls=None, first on ascending and last on descending are the same placement
    assert CODEC.encode((None,), "x:int nulls first") == hx("05")
    assert CODEC.encode((None,), "x:int desc nulls last") == hx("fa")
    assert CODEC.encode((None,), "x:int desc") == hx("fa")
    assert CODEC.encode((None, None)) == hx("05 05")


@pytest.mark.parametrize(("schema", "field", "reason"), [
    ("x:bytes final=true, y:int", 0, "only on the last field"),
    ("a:int, x:bytes final=true, y:bytes", 1, "only on the last field"),
    ("a:int, x:bytes desc final=true", 1, "cannot be descending"),
    ("a:int, x:string final=true", 1, "bytes form"),
    ("a:int, x:int final=true", 1, "bytes form"),
    ("a:int, x:decimal final=true", 1, "bytes form"),
    ("a:int, x:bytes final=1", 1, "final=1 is not allowed"),
    ("a:int, x:bytes finale=true", 1, "unknown field option"),
])
def test_bind_refuses_bad_final(schema: str, field: int, reason: str) -> None:
    _refused(SchemaError, lambda: CODEC.bind(schema), field=field, reason=reason)


def test_final_false_is_the_ordinary_binary() -> None:
    assert CODEC.encode((b"foo", 1), "b:bytes final=false, n:int") == hx(
        "25 b3 9b ed f0 00 18 02")
    assert CODEC.bind("a:int, b:bytes final=true").prefix_free is False
    assert CODEC.bind("a:int, b:bytes").prefix_free is True


@pytest.mark.parametrize("field_type", ["int", "int8", "int16", "int32", "int64", "uint8",
                                        "uint16", "uint32", "uint64"])
@pytest.mark.parametrize("value", [D(1), D("1.5"), 1.0, "1", b"\x01"])
def test_int_fields_refuse_non_ints(field_type: str, value: Any) -> None:
    err = _refused(UnsupportedTypeError, lambda: CODEC.encode((0, value), f"a:int, x:{field_type}"),
                   field=1, reason=f"value in {with_article(field_type)} field")
    assert err.value is value
    assert err.field_type == field_type


@pytest.mark.parametrize("field_type", sorted(INT_TYPES))
def test_int_ranges_checked(field_type: str) -> None:
    cls = INT_TYPES[field_type]
    schema = f"x:{field_type}"
    for v in (cls.min, cls.max):
        assert CODEC.decode(CODEC.encode((v,), schema), schema) == (v,)
    for v in (cls.min - 1, cls.max + 1):
        def refused(v: int = v) -> bytes:
            return CODEC.encode((v,), schema)

        err = _refused(EncodeError, refused, field=0, reason=f"out of range for {field_type}")
        assert err.value == v
        assert err.expected == f"{cls.min}..{cls.max}"


@pytest.mark.parametrize("schema", [None, "x:string", "x:string desc"])
@pytest.mark.parametrize(("text", "reason"), [
    ("a\x00b", "U+0000"), ("\x00", "U+0000"), ("a\ud800", "lone surrogate"),
    ("\udfff", "lone surrogate"),
])
def test_text_refusals(schema: str | None, text: str, reason: str) -> None:
    err = _refused(EncodeError, lambda: CODEC.encode((text,), schema), field=0, reason=reason)
    assert err.has_value
    assert isinstance(err.value, str)
    assert err.value in text


@pytest.mark.parametrize("schema", [None, "x:decimal", "x:decimal desc"])
@pytest.mark.parametrize(("text", "reason"), [
    ("sNaN", "signalling NaN"), ("-sNaN", "signalling NaN"), ("sNaN12", "signalling NaN"),
    ("NaN123", "NaN payload"), ("-NaN7", "NaN payload"),
])
def test_decimal_nan_refusals(schema: str | None, text: str, reason: str) -> None:
    err = _refused(EncodeError, lambda: CODEC.encode((D(text),), schema), field=0,
                   reason=reason)
    assert repr(err.value) == repr(D(text))


@pytest.mark.parametrize("table", [-1, 2**64, 2**70, True, False, 1.0, "10", D(10)])
def test_table_option_refused(table: Any) -> None:
    makers: list[Callable[[], Any]] = [lambda: Sqlite4Codec(table=table),
                                       lambda: get_codec("sqlite4", table=table)]
    for make in makers:
        with pytest.raises(OptionError) as info:
            make()
        assert info.value.codec == "sqlite4"
        assert info.value.option == "table"
        assert info.value.value is table
        assert "0..2^64-1" in (info.value.expected or "")


def test_unknown_option_refused() -> None:
    with pytest.raises(OptionError, match="did you mean 'table'"):
        Sqlite4Codec(tabel=1)


@pytest.mark.parametrize("codec", [CODEC, TABLE10], ids=["plain", "table"])
def test_empty_schemaless_key_refused(codec: Sqlite4Codec) -> None:
    empties: list[tuple[()] | list[Any]] = [(), []]
    for empty in empties:
        def refused(e: Any = empty) -> bytes:
            return codec.encode(e)

        err = _refused(EncodeError, refused, field=None, reason="one or more values")
        assert err.value == empty
    with pytest.raises(DecodeError) as info:
        codec.decode(codec.table_prefix)
    assert info.value.offset == len(codec.table_prefix)
    assert "empty key" in info.value.reason


@pytest.mark.parametrize("value", [object(), [1], (1,), {1: 2}, 1j, Float32, b"".join])
def test_schemaless_refuses_other_types(value: Any) -> None:
    err = _refused(UnsupportedTypeError, lambda: CODEC.encode(("a", value)), field=1,
                   reason="not an SQLite4 type")
    assert err.value is value


def test_wrong_arity_refused() -> None:
    with pytest.raises(EncodeError):
        CODEC.encode((1,), "a:int, b:int")
    with pytest.raises(EncodeError):
        CODEC.prefix_range((1, 2, 3), "a:int, b:int")
    with pytest.raises(UnsupportedTypeError):
        CODEC.encode(1, "a:int")  # type: ignore[arg-type]


# -- 7. strict decoding ------------------------------------------------------------------------

#: (codec, schema, key, offset): non-canonical and broken forms of §5.7, §7 and §12
STRICT: list[tuple[Sqlite4Codec, str | None, str, int]] = [
    # M bytes above c7 (digit > 99), at that byte; negatives and DESC after the complement
    (CODEC, None, "18 19 c8 02", 2),
    (CODEC, None, "12 37", 1),
    (CODEC, None, "e7 37", 1),
    (CODEC, "x:decimal", "22 0c 03 c9 02", 3),
    # the first digit 0
    (CODEC, None, "12 fe fd", 1),
    (CODEC, None, "e7 fe fd", 1),
    (CODEC, "x:decimal desc", "e7 fe fd", 1),
    (CODEC, None, "16 fe 01 3c", 2),
    # the last mantissa byte 00 (after the complement)
    (CODEC, None, "18 03 00", 2),
    (CODEC, None, "12 fc ff", 2),
    (CODEC, None, "e7 fc ff", 2),
    # the large form with E <= 10, the small form with E = 0 (2013 and HBase forms)
    (CODEC, None, "22 00 02", 1),
    (CODEC, None, "08 f5 fd", 1),
    (CODEC, None, "dd f5 fd", 1),
    (CODEC, None, "14 00 9b", 1),
    (CODEC, None, "16 ff 19 64", 1),
    (CODEC, None, "16 ff 03 2e", 1),
    (CODEC, None, "e9 00 9b", 1),
    (CODEC, "x:int", "22 0a 02", 1),
    # exponent varints not in their shortest form (plain and complemented)
    (CODEC, None, "14 f1 00 fd", 1),
    (CODEC, None, "16 0e ff 02", 1),
    (CODEC, None, "08 0e ff fd", 1),
    (CODEC, None, "22 fa 00 ff ff 02", 1),
    (CODEC, None, "22 fa 01 08 ef 02", 1),
    (CODEC, None, "22 ff 00 ff ff ff ff ff ff ff 02", 1),
    # the key ends inside the header, the exponent or M: the end offset
    (CODEC, None, "22", 1),
    (CODEC, None, "22 f1", 2),
    (CODEC, None, "22 fa 00", 3),
    (CODEC, None, "16 0e", 2),
    (CODEC, None, "14", 1),
    (CODEC, None, "dd", 1),
    (CODEC, None, "22 0c", 2),
    (CODEC, None, "22 0c 03", 3),
    (CODEC, None, "08 f3 fc", 3),
    (CODEC, None, "e7", 1),
    (CODEC, None, "e7 fe", 2),
    (CODEC, "a:int, b:int", "18 02 1a 03", 4),
    # binary (§7): terminator, high bits, group count, padding; ascending and descending
    (CODEC, None, "25 ff", 2),
    (CODEC, None, "da 7f", 2),
    (CODEC, None, "da 80 ff", 1),
    (CODEC, None, "da 7f ff", 1),
    (CODEC, None, "da 7f 7e ff", 2),
    (CODEC, None, "25 ff ff ff ff ff ff ff ff 80 00", 9),
    (CODEC, "x:bytes", "25 80 81 00", 2),
    (CODEC, "x:bytes desc", "da 7f 7e ff", 2),
    # text (§6): invalid UTF-8 at its byte, unterminated at the end
    (CODEC, None, "24 61 c3 00", 2),
    (CODEC, None, "24 ed a0 80 00", 1),
    (CODEC, None, "24 c0 80 00", 1),
    (CODEC, None, "24 61 62", 3),
    (CODEC, None, "db 9e", 2),
    (CODEC, None, "db 00 ff", 1),
    (CODEC, "x:string desc", "db 9e 3c ff", 2),
    # bytes that are no type byte (§2), and DESC final binary
    (CODEC, None, "05 04", 1),
    (CODEC, None, "fa fb", 1),
    (CODEC, None, "00", 0),
    (CODEC, None, "ff", 0),
    (CODEC, None, "28", 0),
    (CODEC, None, "d8", 0),
    (CODEC, None, "18 02 d9 9e", 2),
    (CODEC, "x:bytes", "d9 9e", 0),
    # §12 with a schema: types, directions, NULL, field count
    (CODEC, "x:int", "e7 fd", 0),
    (CODEC, "x:int", "fa", 0),
    (CODEC, "x:int desc", "05", 0),
    (CODEC, "x:string", "db 9e ff", 0),
    (CODEC, "x:string desc", "24 61 00", 0),
    (CODEC, "a:string, b:int desc", "24 61 00 18 02", 3),
    (CODEC, "x:string", "18 02", 0),
    (CODEC, "x:int", "24 00", 0),
    (CODEC, "x:decimal", "25 00", 0),
    (CODEC, "x:float64", "24 00", 0),
    (CODEC, "x:bytes", "26 00", 0),
    (CODEC, "x:bytes final=true", "25 00", 0),
    (CODEC, "a:int, b:bytes final=true", "18 02 da ff", 2),
    (CODEC, "x:int", "", 0),
    (CODEC, "a:int, b:int", "18 02", 2),
    (CODEC, "x:int", "05 05", 1),
    (CODEC, "x:string", "24 00 24 00", 2),
    # ints that are not integers, or not finite
    (CODEC, "x:int", "06", 0),
    (CODEC, "x:int", "07", 0),
    (CODEC, "x:int", "23", 0),
    (CODEC, "x:int64", "16 f1 02", 0),
    (CODEC, "x:uint8", "19 03 01 02", 0),
    (CODEC, "a:int, b:int desc", "18 02 e8 9b", 2),
    # the table number: another table at 0, truncated at the end, offsets of the whole key
    (TABLE10, "x:int", "0a", 1),
    (TABLE10, None, "0b 05", 0),
    (TABLE10, None, "fa 00 00 0a 05", 0),
    (TABLE10, None, "0a 18", 2),
    (TABLE10, "x:int", "0a 17 64", 1),
    (TABLE10, "x:int", "0a 18 02 05", 3),
    (TABLE10, "x:int desc", "0a 18 02", 1),
    (Sqlite4Codec(table=300), None, "f1 3d 05", 0),
    (Sqlite4Codec(table=300), None, "f1", 1),
    (Sqlite4Codec(table=300), "x:int", "f1 3c", 2),
    (Sqlite4Codec(table=241), None, "fa 00 00 f1 05", 0),
    (Sqlite4Codec(table=2**64 - 1), None, "ff ff ff", 3),
]


@pytest.mark.parametrize(("codec", "schema", "key", "offset"), STRICT,
                         ids=[f"{c.options['table']}-{s}-{k}" for c, s, k, _ in STRICT])
def test_strict_decode_offsets(codec: Sqlite4Codec, schema: str | None, key: str,
                               offset: int) -> None:
    with pytest.raises(DecodeError) as info:
        codec.decode(hx(key), schema)
    assert info.value.offset == offset, str(info.value)
    assert info.value.codec == "sqlite4"


@pytest.mark.parametrize("field_type", sorted(INT_TYPES))
@pytest.mark.parametrize("codec", [CODEC, TABLE10], ids=["plain", "table"])
def test_decode_int_out_of_range(field_type: str, codec: Sqlite4Codec) -> None:
    cls = INT_TYPES[field_type]
    at = len(codec.table_prefix)
    for v in (cls.min - 1, cls.max + 1):
        for desc in ("", " desc"):
            key = codec.encode((v,), f"x:int{desc}")
            with pytest.raises(DecodeError) as info:
                codec.decode(key, f"x:{field_type}{desc}")
            assert info.value.offset == at
            assert "out of range" in info.value.reason
            assert info.value.field_type == field_type


@pytest.mark.parametrize("value", [D("1.5"), D("-0.5"), D("1E-30"), D("100.01"), D("NaN"),
                                   D("Infinity"), D("-Infinity"), D("1E+10000"), 0.1])
@pytest.mark.parametrize("desc", ["", " desc"])
def test_decimal_key_read_by_an_int_field(value: Any, desc: str) -> None:
    key = CODEC.encode((7, value), f"a:int, x:decimal{desc}")
    with pytest.raises(DecodeError) as info:
        CODEC.decode(key, f"a:int, x:int{desc}")
    assert info.value.offset == 2
    assert info.value.field == 1
    assert "integer" in info.value.reason


def test_integral_decimal_keys_read_by_an_int_field() -> None:
    # trailing zeros are not stored: Decimal('12.00') and 12 are one key, an int
    for value in (D("12.00"), D("1.2E+5"), D("-3E+40")):
        key = CODEC.encode((value,), "x:decimal")
        assert CODEC.decode(key, "x:int") == (int(value),)


#: numbers whose exponent varint is huge: each must decode or raise DecodeError, fast
HUGE_EXPONENTS = [
    "22 ff ff ff ff ff ff ff ff ff 02",       # positive large, E = 2^64 - 1
    "08 00 00 00 00 00 00 00 00 00 fd",       # negative large, E = 2^64 - 1
    "16 00 00 00 00 00 00 00 00 00 02",       # positive small, E = -(2^64 - 1)
    "14 ff ff ff ff ff ff ff ff ff fd",       # negative small, E = -(2^64 - 1)
    "22 ff 7f ff ff ff ff ff ff ff c7 c7 02",  # E = 2^63 - 1, three digits
    "22 fe 01 00 00 00 00 00 00 02",          # E = 2^48: past MAX_INT_DIGITS, a Decimal
    "22 fa ff ff ff 02",                      # E = 2^24 - 1: a 33-million-digit integer
    "16 05 00 00 00 02",                      # E = -(2^24 - 1): ~varint = 05 00 00 00
    "22 f9 0a 98 02",                         # E = 5000: 10^9998, an int of 9999 digits
    "22 f9 0a 99 02",                         # E = 5001: 10^10000, past MAX_INT_DIGITS
]


#: the most work decoding one number may take, whatever its exponent: a decoder that built
#: 10**E would hold E * 0.415 bytes (7 MB for E = 2^24); these are some 4 to 5 times what the
#: reference and the compiled module take today (at most 263 events, 47 KB copied, a 20 KB
#: peak)
MAX_EVENTS, MAX_COPIED, MAX_PEAK = 1_200, 256 * 1024, 96 * 1024


@pytest.mark.parametrize("key", HUGE_EXPONENTS)
def test_huge_exponents_decode_with_bounded_work_or_raise_decode_error(key: str, impl: str
                                                                       ) -> None:
    """Counted, not timed (``work.py``): each decode's events, bytes copied and peak memory
    (compiled allocations included) stay under a bound that no decoder building the number
    could meet, and no int of more than 640 digits is turned into decimal text or back (the
    quadratic primitive), on both implementations."""
    data = hx(key)
    inverted = bytes(b ^ 0xFF for b in data)
    for raw, schemas in ((data, [None, "x:int", "x:int8", "x:uint64", "x:decimal",
                                 "x:float64"]),
                         (inverted, [None, "x:int desc", "x:decimal desc",
                                     "x:float64 desc"])):
        for schema in schemas:
            back = _only_decode_error(CODEC, raw, schema)
            if back is not None:
                (value,) = back
                assert isinstance(value, (int, float, D))
                if schema is not None and "float64" in schema:
                    assert type(value) is float
            _, work = measure(lambda r=raw, s=schema: CODEC.decode(r, s))
            what = (raw.hex(" "), schema, str(work))
            assert work.events <= MAX_EVENTS, what
            assert work.copied <= MAX_COPIED, what
            assert work.peak <= MAX_PEAK, what
            assert not huge_int_conversions(lambda r=raw, s=schema: CODEC.decode(r, s)), what


def test_huge_int_out_of_range_is_a_decode_error() -> None:
    """BUG: the key of 10**4300 (``22 f8 77 02``, written by an int field) read by an int64
    field (or any sized int field) raises ValueError("Exceeds the limit (4300 digits) for
    integer string conversion") instead of DecodeError: the out-of-range message formats
    the int with f"{n}". Spec §16 Q3: every byte string decodes or raises DecodeError."""
    assert CODEC.encode((10**4300,), "x:int") == hx("22 f8 77 02")
    for n in (10**4300, -(10**4300), 10**9999):
        key = CODEC.encode((n,), "x:int")
        for field_type in sorted(INT_TYPES):
            outcome: BaseException | None = None
            try:
                CODEC.decode(key, f"x:{field_type}")
            except Exception as exc:
                outcome = exc
            assert isinstance(outcome, DecodeError), (
                f"decode({key[:4].hex(' ')}..., 'x:{field_type}') raised {outcome!r}")
            assert outcome.offset == 0


def test_huge_exponent_values() -> None:
    assert CODEC.decode(hx("22 ff ff ff ff ff ff ff ff ff 02"), "x:float64") == (math.inf,)
    assert CODEC.decode(hx("08 00 00 00 00 00 00 00 00 00 fd"), "x:float64") == (-math.inf,)
    assert CODEC.decode(hx("16 00 00 00 00 00 00 00 00 00 02"), "x:float64") == (0.0,)
    assert CODEC.decode(hx("22 f9 0a 98 02")) == (10**9998,)
    with pytest.raises(DecodeError, match="more than"):
        CODEC.decode(hx("22 f9 0a 99 02"), "x:int")
    (big,) = CODEC.decode(hx("22 fe 01 00 00 00 00 00 00 02"))
    assert big == D("1E+" + str(2 * 2**48 - 2))
    with pytest.raises(DecodeError):
        CODEC.decode(hx("22 fe 01 00 00 00 00 00 00 02"), "x:int")


FUZZ_SCHEMAS = [KeySchema.parse(t) for t in (
    "id:int, name:string desc, blob:bytes",
    "a:int8 desc, b:uint64, c:decimal desc",
    "tag:string, n:int desc, blob:bytes final=true",
    "x:decimal, y:float64 desc",
    "a:int16, b:bytes desc, c:string",
)]
FUZZ_CODECS = [CODEC, TABLE10, Sqlite4Codec(table=2**64 - 1)]
_JUNK = {
    (ci, si): junk_keys(schema, codec.capabilities,
                        lambda v, c=codec, s=schema: c.encode(v, s),
                        {"decimal": MIXED_NUMBERS})
    for ci, codec in enumerate(FUZZ_CODECS) for si, schema in enumerate(FUZZ_SCHEMAS)
}


def _only_decode_error(codec: Sqlite4Codec, data: bytes, schema: KeySchema | str | None
                       ) -> tuple[Any, ...] | None:
    """The decoded values, or None after a DecodeError with a sound offset; any other
    exception propagates and fails the test."""
    error: DecodeError | None = None
    try:
        return codec.decode(data, schema)
    except DecodeError as exc:
        error = exc
    assert error is not None
    assert error.codec == "sqlite4"
    assert error.offset is not None
    assert 0 <= error.offset <= len(data), (data.hex(" "), error)
    return None


@given(st.data())
def test_fuzz_junk_refusals_say_where_and_decodes_are_canonical(data: st.DataObject) -> None:
    """Junk near valid keys: a refusal names the codec and an offset within the key; what
    decodes is exactly what the encoder writes for its values, and decodes without the schema
    too. (That nothing but a DecodeError escapes is the harness's ``decode_junk`` check, on
    both implementations.)"""
    ci = data.draw(st.integers(0, len(FUZZ_CODECS) - 1), label="codec")
    si = data.draw(st.integers(0, len(FUZZ_SCHEMAS) - 1), label="schema")
    codec, schema = FUZZ_CODECS[ci], FUZZ_SCHEMAS[si]
    raw = data.draw(st.one_of(_JUNK[ci, si], st.binary(max_size=40),
                              st.binary(max_size=12).map(lambda b: codec.table_prefix + b)),
                    label="key")
    back = _only_decode_error(codec, raw, schema)
    if back is not None and not any(f.type == "float64" for f in schema.fields):
        # spec §16 Q3: what decodes is exactly what the encoder writes for that value
        assert codec.encode(back, schema) == raw
    free = _only_decode_error(codec, raw, None)
    if back is not None and not any(f.type == "float64" for f in schema.fields):
        # self-describing: the same bytes decode without the schema, to as many values (a
        # float64 field also reads numbers too large for a Decimal, as infinities)
        assert free is not None
        assert len(free) == len(schema)


@given(st.binary(max_size=40))
def test_fuzz_schemaless_refusals_say_where(raw: bytes) -> None:
    """Random bytes without a schema: a refusal names the codec and an offset within the
    key; what decodes holds a value."""
    for codec in FUZZ_CODECS:
        back = _only_decode_error(codec, raw, None)
        if back is not None:
            assert len(back) >= 1


# -- 8. prefix_range (§13) ----------------------------------------------------------------------


def test_prefix_range_empty_prefix_without_table() -> None:
    assert EMPTY_PREFIX_STOP == b"\xfb"
    assert CODEC.prefix_range(()) == (b"", b"\xfb")
    assert CODEC.prefix_range((), "a:int desc, b:string") == (b"", b"\xfb")
    # every value starts within 05..26 or d9..fa
    for values, schema in (((None,), "x:int desc"), (("\U0010ffff",), None),
                           ((b"\xff" * 9,), "x:bytes final=true"), ((math.nan,), "x:float64"),
                           (("",), "x:string desc"), ((b"",), "x:bytes desc")):
        assert b"" <= CODEC.encode(values, schema) < b"\xfb"


@pytest.mark.parametrize(("table", "start", "stop"), [
    (0, "00", "01"), (10, "0a", "0b"), (240, "f0", "f1"), (241, "f1 01", "f1 02"),
    (2287, "f8 ff", "f9"), (67823, "f9 ff ff", "fa"),
    (2**64 - 2, "ff ff ff ff ff ff ff ff fe", "ff ff ff ff ff ff ff ff ff"),
])
def test_prefix_range_empty_prefix_with_table(table: int, start: str, stop: str) -> None:
    codec = Sqlite4Codec(table=table)
    want = (hx(start), hx(stop))
    assert codec.prefix_range(()) == want
    assert codec.prefix_range((), "a:int, b:bytes final=true") == want
    for values in ((None,), (math.inf,), (b"\xff" * 20,)):
        assert hx(start) <= codec.encode(values) < hx(stop)
    assert not hx(start) <= Sqlite4Codec(table=table + 1).encode((None,)) < hx(stop)


def test_prefix_range_last_table_has_no_stop() -> None:
    codec = Sqlite4Codec(table=2**64 - 1)
    assert codec.prefix_range(()) == (b"\xff" * 9, None)
    assert codec.prefix_range((), "x:int") == (b"\xff" * 9, None)
    start, stop = codec.prefix_range(("a",), "x:string, y:int")
    assert start == b"\xff" * 9 + hx("24 61 00")
    assert stop == b"\xff" * 9 + hx("24 61 01")


def test_prefix_range_descending_text() -> None:
    start, stop = CODEC.prefix_range(("abc",), "s:string desc, n:int")
    assert start == hx("db 9e 9d 9c ff")
    assert stop == hx("db 9e 9d 9d")
    inside = [("abc", None), ("abc", 10**40), ("abc", -(10**40))]
    outside = [("abcd", 1), ("abb", 1), ("ab", 1), ("abd", 1), ("abc\x01", None)]
    for values in inside:
        assert start <= CODEC.encode(values, "s:string desc, n:int") < stop
    for values in outside:
        assert not start <= CODEC.encode(values, "s:string desc, n:int") < stop


@pytest.mark.parametrize("codec", [CODEC, TABLE10], ids=["plain", "table"])
def test_prefix_range_through_the_final_binary(codec: Sqlite4Codec) -> None:
    schema = "t:string, b:bytes final=true"
    p = codec.table_prefix
    start, stop = codec.prefix_range(("a", b"xy"), schema)
    assert start == p + hx("24 61 00 26 78 79")
    assert stop == start + b"\x00"
    assert codec.encode(("a", b"xy"), schema) == start
    for longer in (b"xy\x00", b"xy\x00\x00", b"xy\x01", b"xyz", b"xz", b"y"):
        assert not start <= codec.encode(("a", longer), schema) < stop
    # a NULL final field is a whole key too
    assert codec.prefix_range(("a", None), schema) == (p + hx("24 61 00 05"),
                                                       p + hx("24 61 00 05 00"))
    # a prefix short of the final field is the usual strinc range, and holds every blob
    start, stop = codec.prefix_range(("a",), schema)
    assert (start, stop) == (p + hx("24 61 00"), p + hx("24 61 01"))
    assert stop is not None
    for blob in (b"", b"\xff" * 10, None):
        assert start <= codec.encode(("a", blob), schema) < stop


def test_prefix_range_schemaless() -> None:
    assert CODEC.prefix_range(("abc",)) == (hx("24 61 62 63 00"), hx("24 61 62 63 01"))
    assert CODEC.prefix_range((1, b"")) == (hx("18 02 25 00"), hx("18 02 25 01"))
    assert CODEC.prefix_range((None,)) == (hx("05"), hx("06"))
    assert TABLE10.prefix_range((1.5,)) == (hx("0a 18 03 64"), hx("0a 18 03 65"))
    start, stop = CODEC.prefix_range((D("12.345"),))
    assert (start, stop) == (hx("18 19 45 64"), hx("18 19 45 65"))
    assert stop is not None
    for tail in ((None,), (1,), ("z",), (b"\xff",)):
        assert start <= CODEC.encode((D("12.345"), *tail)) < stop
    assert not start <= CODEC.encode((D("12.3451"),)) < stop


def test_prefix_range_of_a_whole_key_without_final() -> None:
    schema = "a:int, b:string desc"
    key = CODEC.encode((1, "x"), schema)
    assert CODEC.prefix_range((1, "x"), schema) == (key, hx("18 02 db 88"))


# -- 9. the compiled encoder agrees with the careful one ----------------------------------------


class _Dec(D):
    pass


class _Str(str):
    def __str__(self) -> str:
        return "not me"


class _Bytes(bytes):
    pass


class _Float(float):
    def __repr__(self) -> str:
        return "1.0"


TRICKY = st.sampled_from([
    Int32(5), Int8(-3), UInt64(2**64 - 1), _Dec("1.5"), _Dec("NaN"), D("sNaN"), D("NaN5"),
    D("-0"), bytearray(b"ab"), memoryview(b"x"), "a\x00", "\ud800", _Str("abc"), _Bytes(b"q"),
    _Float(2.5), Float32(0.1), 1 << 40_000, 10**9999, 2**64, -(2**63) - 1, 128, -129, 256,
    D("1e-500"), math.nan, -0.0, True, False, None, object(), [1],
])
ANY_VALUE = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=3),
                      st.binary(max_size=3), DECIMALS, TRICKY)
COMPILED_SCHEMAS = [KeySchema.parse(t) for t in (
    "a:int, b:string, c:bytes",
    "a:int8 desc, b:uint64, c:int64",
    "x:float64 desc, d:decimal",
    "t:string desc, n:int, blob:bytes final=true",
    "a:uint8, b:int16 desc, c:int32, d:uint16, e:uint32 desc",
)]
_KEYS = {s: keys(s, CODEC.capabilities, {"decimal": MIXED_NUMBERS}) for s in COMPILED_SCHEMAS}


def _identical(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """``identical``, with Decimals compared by their text (Decimal('NaN') != itself)."""
    return len(a) == len(b) and all(
        (type(x) is D and type(y) is D and str(x) == str(y)) if isinstance(x, D)
        else identical(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("codec", [CODEC, TABLE10], ids=["plain", "table"])
@pytest.mark.parametrize("schema", COMPILED_SCHEMAS, ids=str)
@given(data=st.data())
def test_compiled_encode_agrees_with_careful(codec: Sqlite4Codec, schema: KeySchema,
                                             data: st.DataObject) -> None:
    bound = codec.bind(schema)
    n = len(schema)
    values = data.draw(st.one_of(
        _KEYS[schema],
        st.tuples(*[ANY_VALUE] * n),
        st.lists(ANY_VALUE, min_size=n, max_size=n),
        st.lists(ANY_VALUE, max_size=n + 1),
    ))
    refused: type[LexCodecError] | None = None
    try:
        want = bound.careful_encode(values)
    except LexCodecError as exc:
        refused = type(exc)
    if refused is not None:
        with pytest.raises(refused) as info:
            bound.encode(values)
        assert type(info.value) is refused
        return
    assert bound.encode(values) == want
    assert codec.encode(values, schema) == want
    # and the fast decoders read the key, and keys one byte away, as the careful one does
    at = data.draw(st.integers(0, len(want)))
    byte = data.draw(st.integers(0, 255))
    for raw in (want, want[:at], want[:at] + bytes((byte,)) + want[at:],
                want[:at] + bytes((byte,)) + want[at + 1:]):
        try:
            back = bound.careful_decode(raw)
        except DecodeError:
            with pytest.raises(DecodeError):
                bound.decode(raw)
        else:
            assert _identical(back, bound.decode(raw))


def test_compiled_encode_examples() -> None:
    bound = CODEC.bind("a:int, b:decimal, c:string desc, d:bytes final=true")
    for values in ((Int32(5), _Dec("1.5"), _Str("x"), _Bytes(b"q")),
                   (5, D("1.5"), "x", b"q"), [5, 1.5, "x", bytearray(b"q")]):
        assert bound.encode(values) == bound.careful_encode(values) == hx(
            "18 0a 18 03 64 db 87 ff 26 71")
    for bad in ((1, 1, "a\x00", b""), (1, True, "", b""), (D(1), 1, "", b""),
                (1, D("sNaN"), "", b""), (1, 1, "\ud800", b""), (1, 1, "", "s")):
        with pytest.raises(EncodeError):
            bound.encode(bad)
        with pytest.raises(EncodeError):
            bound.careful_encode(bad)


# -- 10. registry, config, pickling, capabilities --------------------------------------------


def test_registered() -> None:
    assert "sqlite4" in lexcodecs.available_codecs()
    codec = get_codec("sqlite4")
    assert type(codec) is Sqlite4Codec
    assert codec == CODEC
    assert codec.name == "sqlite4"


@pytest.mark.parametrize("table", [None, 0, 10, 241, 2**64 - 1])
def test_config_rebuilds_and_pickles(table: int | None) -> None:
    codec = Sqlite4Codec(table=table)
    assert codec.config() == {"name": "sqlite4", "table": table}
    rebuilt = get_codec(**codec.config())
    assert type(rebuilt) is Sqlite4Codec
    assert rebuilt == codec
    assert hash(rebuilt) == hash(codec)
    codec.bind("a:int, b:string")  # a bind cache must not get in the way of pickling
    again = pickle.loads(pickle.dumps(codec))
    assert again == codec
    values = (42, "abc")
    assert again.encode(values, "a:int, b:string") == codec.encode(values, "a:int, b:string")
    assert again.table_prefix == codec.table_prefix
    if table is not None:
        assert codec != CODEC
        assert f"table={table}" in repr(codec)


def test_errors_pickle() -> None:
    with pytest.raises(DecodeError) as info:
        CODEC.decode(hx("18 c8"), "x:decimal")
    err = pickle.loads(pickle.dumps(info.value))
    assert (type(err), err.offset, err.codec, err.field) == (DecodeError, 1, "sqlite4", 0)


def test_capabilities() -> None:
    caps = Sqlite4Codec().capabilities
    assert caps.summary() == (
        "self-describing; desc; nulls fixed; injective; prefix-free; NaN lowest; "
        "anomalies: float-orders-as-repr, float-shares-its-repr-decimal-key")
    assert caps.decoding == "self-describing"
    assert caps.descending
    assert caps.nulls == "fixed"
    assert caps.injective
    assert caps.prefix_free
    assert caps.schemaless
    assert caps.int_range is None
    assert not caps.text_nul
    assert caps.float_policy.nan == "lowest"
    assert caps.float_policy.negative_zero == "equal"
    assert caps.float_policy.compare == "repr"
    assert caps.field_types == {"int", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "decimal", "float64", "string", "bytes"}
    assert {a.name: a.kind for a in caps.anomalies} == {
        "float-orders-as-repr": "order", "float-shares-its-repr-decimal-key": "collision"}
    assert TABLE10.capabilities == caps
