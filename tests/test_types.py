"""The value model: typed ints, Float32, END, Versionstamp."""

from __future__ import annotations

import copy
import itertools
import math
import pickle
import struct
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from lexcodecs.errors import EncodeError, UnsupportedTypeError
from lexcodecs.types import (
    END,
    INFINITY,
    INT_TYPES,
    UNDEFINED,
    WIDE_INT_TYPES,
    Float32,
    Int8,
    Int16,
    Int32,
    Int64,
    Int128,
    Some,
    TypedInt,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    UInt128,
    Versionstamp,
)

# -- typed ints --------------------------------------------------------------------------------

RANGES = [
    (Int8, -128, 127),
    (Int16, -32768, 32767),
    (Int32, -(2**31), 2**31 - 1),
    (Int64, -(2**63), 2**63 - 1),
    (UInt8, 0, 255),
    (UInt16, 0, 65535),
    (UInt32, 0, 2**32 - 1),
    (UInt64, 0, 2**64 - 1),
    (Int128, -(2**127), 2**127 - 1),
    (UInt128, 0, 2**128 - 1),
]
INT_CLASSES = [cls for cls, _, _ in RANGES]


class Indexable:
    """An integer-like object that is not an int (numpy scalars behave like this)."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


@pytest.mark.parametrize(("cls", "low", "high"), RANGES)
def test_int_range_attributes(cls: type[TypedInt], low: int, high: int) -> None:
    assert (cls.min, cls.max) == (low, high)
    assert cls.bits == int(cls.__name__.lstrip("UInt"))
    assert cls.signed == (low < 0)
    assert cls.type_name == cls.__name__.lower()
    assert {**INT_TYPES, **WIDE_INT_TYPES}[cls.type_name] is cls


def test_int_types_table() -> None:
    # the 128-bit widths are apart: codecs that spread INT_TYPES into what they accept must
    # not take them by accident
    assert sorted(INT_TYPES) == sorted(c.__name__.lower() for c in INT_CLASSES
                                       if c.bits <= 64)
    assert sorted(WIDE_INT_TYPES) == ["int128", "uint128"]


@pytest.mark.parametrize(("cls", "low", "high"), RANGES)
def test_int_bounds_accepted(cls: type[TypedInt], low: int, high: int) -> None:
    for value in (low, high, 0, (low + high) // 2):
        wrapped = cls(value)
        assert wrapped == value
        assert type(wrapped) is cls
        assert isinstance(wrapped, int)


@pytest.mark.parametrize(("cls", "low", "high"), RANGES)
def test_int_out_of_range(cls: type[TypedInt], low: int, high: int) -> None:
    for value in (low - 1, high + 1, high * 4 + 3):
        with pytest.raises(EncodeError) as info:
            cls(value)
        error = info.value
        assert type(error) is EncodeError
        assert error.value == value
        assert error.expected == f"{low}..{high}"
        message = str(error)
        assert str(value) in message
        assert f"{low}..{high}" in message
        assert cls.__name__ in message


@pytest.mark.parametrize("cls", INT_CLASSES)
@pytest.mark.parametrize("value", [True, False, 1.0, 1.5, float("nan"), Float32(1.0),
                                   "1", b"1", None, Decimal(1), Fraction(1), 1j])
def test_int_refuses_non_integers(cls: type[TypedInt], value: object) -> None:
    with pytest.raises(UnsupportedTypeError) as info:
        cls(value)
    assert info.value.expected == "int"
    assert type(value).__name__ in str(info.value)


@pytest.mark.parametrize("cls", INT_CLASSES)
def test_int_accepts_index_objects(cls: type[TypedInt]) -> None:
    wrapped = cls(Indexable(7))
    assert wrapped == 7
    assert type(wrapped) is cls
    with pytest.raises(EncodeError):
        cls(Indexable(cls.max + 1))


def test_int_accepts_other_typed_ints() -> None:
    assert type(Int64(Int8(-5))) is Int64
    assert Int64(Int8(-5)) == -5
    with pytest.raises(EncodeError):
        UInt8(Int8(-1))
    assert Int8() == 0


@pytest.mark.parametrize("cls", INT_CLASSES)
def test_int_equality_hash_repr_pickle(cls: type[TypedInt]) -> None:
    value = cls(cls.max)
    assert value == cls.max
    assert hash(value) == hash(cls.max)
    assert {value: 1}[cls.max] == 1
    assert repr(value) == f"{cls.__name__}({cls.max})"
    assert str(value) == str(cls.max)
    assert f"{value}" == str(cls.max)
    assert f"{value:x}" == f"{cls.max:x}"
    for again in (pickle.loads(pickle.dumps(value)), copy.copy(value), copy.deepcopy(value)):
        assert type(again) is cls
        assert again == value


def test_int_arithmetic_gives_plain_int() -> None:
    a, b = Int8(100), Int8(100)
    for result in (a + b, a - b, a * b, a // b, a % b, -a, abs(a), a << 1, a & 1, a**2):
        assert type(result) is int
    assert a + b == 200  # no wrapping: the result is an int, not an Int8
    assert UInt64(2**64 - 1) + 1 == 2**64


def test_int_no_instance_dict() -> None:
    with pytest.raises(AttributeError):
        Int8(1).extra = 2  # type: ignore[attr-defined]


# -- Float32 ---------------------------------------------------------------------------------


def f64_bits(value: float) -> int:
    return int(struct.unpack(">Q", struct.pack(">d", value))[0])


def f64_from_bits(bits: int) -> float:
    return float(struct.unpack(">d", struct.pack(">Q", bits))[0])


def f32_from_bits(bits: int) -> float:
    return float(struct.unpack(">f", struct.pack(">I", bits))[0])


# (argument, binary32 bits) -- hand-computed patterns
ROUNDING = [
    (0.0, 0x00000000),
    (-0.0, 0x80000000),
    (1.0, 0x3F800000),
    (-2.0, 0xC0000000),
    (0.5, 0x3F000000),
    (0.1, 0x3DCCCCCD),                     # 0.1 rounds up in binary32
    (1 / 3, 0x3EAAAAAB),
    (16777216.0, 0x4B800000),              # 2**24
    (16777217.0, 0x4B800000),              # 2**24 + 1: tie, to even (down)
    (16777219.0, 0x4B800002),              # 2**24 + 3: tie, to even (up)
    (3.4028235e38, 0x7F7FFFFF),            # FLT_MAX
    (3.4028234663852886e38, 0x7F7FFFFF),   # FLT_MAX exactly
    (3.4028235677973366e38, 0x7F800000),   # midpoint above FLT_MAX: ties to even -> inf
    (3.4028235677973362e38, 0x7F7FFFFF),   # just below that midpoint
    (1e39, 0x7F800000),
    (-1e39, 0xFF800000),
    (math.inf, 0x7F800000),
    (-math.inf, 0xFF800000),
    (1e-46, 0x00000000),                   # below half the smallest subnormal
    (-1e-46, 0x80000000),
    (1e-45, 0x00000001),                   # the smallest subnormal, 2**-149
    (2.0**-149, 0x00000001),
    (2.0**-150, 0x00000000),               # exactly half of it: tie, to even (zero)
    (3 * 2.0**-150, 0x00000002),           # 1.5 subnormals: tie, to even (2)
    (1.1754943508222875e-38, 0x00800000),  # FLT_MIN
    (1, 0x3F800000),
    (-7, 0xC0E00000),
    (16777217, 0x4B800000),
    (2**128, 0x7F800000),
    (2**128 - 2**104, 0x7F7FFFFF),        # FLT_MAX as an int
    (2**128 - 2**103, 0x7F800000),        # the midpoint as an int
    (2**128 - 2**103 - 1, 0x7F7FFFFF),
    (10**400, 0x7F800000),                 # too large even for a double
    (-(10**400), 0xFF800000),
    # an int is rounded once: through a double it would land on the midpoint 2**53 + 2**29
    # and then round to even, down to 2**53
    (2**53 + 2**29 + 1, 0x5A000001),
    (-(2**53 + 2**29 + 1), 0xDA000001),
    (Decimal("0.5"), 0x3F000000),
    (Fraction(1, 4), 0x3E800000),
    (Int8(-1), 0xBF800000),
    (Indexable(3), 0x40400000),
]


@pytest.mark.parametrize(("value", "bits"), ROUNDING)
def test_float32_rounding(value: object, bits: int) -> None:
    f = Float32(value)
    assert type(f) is Float32
    assert f.bits == bits
    assert f64_bits(f) == f64_bits(f32_from_bits(bits))  # the float value matches the bits


@pytest.mark.parametrize(("value", "bits"), ROUNDING)
def test_float32_from_bits_table(value: object, bits: int) -> None:
    f = Float32.from_bits(bits)
    assert f.bits == bits
    assert f64_bits(f) == f64_bits(f32_from_bits(bits))
    assert Float32(float(f)).bits == bits  # every binary32 value is its own rounding


NAN_BITS = [
    0x7FC00000,  # the default quiet NaN
    0xFFC00000,
    0x7FA00001,  # signalling, with payload
    0xFFC00001,  # quiet, negative, with payload
    0x7F800001,  # signalling, smallest payload
    0xFF800001,
    0x7FFFFFFF,
]


@pytest.mark.parametrize("bits", NAN_BITS)
def test_float32_nan_from_bits_keeps_bits(bits: int) -> None:
    f = Float32.from_bits(bits)
    assert math.isnan(f)
    assert f.bits == bits
    # the double carries sign and payload: sign, then the 23 fraction bits at the top
    assert f64_bits(f) == ((bits & 0x80000000) << 32) | 0x7FF0000000000000 | \
        ((bits & 0x007FFFFF) << 29)
    assert Float32(f).bits == bits  # Float32 of a Float32 keeps the bits, even signalling
    assert pickle.loads(pickle.dumps(f)).bits == bits
    assert copy.copy(f).bits == bits
    assert copy.deepcopy(f).bits == bits


def c_cast_nan_bits(double_bits: int) -> int:
    sign = (double_bits >> 32) & 0x80000000
    return sign | 0x7FC00000 | ((double_bits >> 29) & 0x3FFFFF)


DOUBLE_NANS = [
    (0x7FF8000000000000, 0x7FC00000),
    (0xFFF8000000000000, 0xFFC00000),
    (0x7FF0000000000001, 0x7FC00000),  # payload below the kept bits: lost, NaN quieted
    (0x7FF8000020000000, 0x7FC00001),  # lowest kept payload bit
    (0xFFF4000000000000, 0xFFE00000),  # signalling: quieted, payload kept
    (0x7FFFFFFFFFFFFFFF, 0x7FFFFFFF),
    (0x7FF0000020000000, 0x7FC00001),
]


@pytest.mark.parametrize(("double_bits", "bits"), DOUBLE_NANS)
def test_float32_of_double_nan(double_bits: int, bits: int) -> None:
    assert c_cast_nan_bits(double_bits) == bits
    f = Float32(f64_from_bits(double_bits))
    assert math.isnan(f)
    assert f.bits == bits


def test_float32_from_bits_range() -> None:
    for bad in (-1, 2**32):
        with pytest.raises(EncodeError) as info:
            Float32.from_bits(bad)
        assert str(bad) in str(info.value)
    assert Float32.from_bits(0xFFFFFFFF).bits == 0xFFFFFFFF


@pytest.mark.parametrize("value", [True, False, "1.5", "nan", b"1", bytearray(b"1"), None,
                                   object(), 1j, [1.0]])
def test_float32_refuses_non_numbers(value: object) -> None:
    with pytest.raises(UnsupportedTypeError) as info:
        Float32(value)
    assert type(value).__name__ in str(info.value)


EXACT = [
    (0.5, True),
    (0.1, False),
    (float(Float32(0.1)), True),
    (16777216.0, True),
    (16777217.0, False),
    (math.inf, True),
    (-math.inf, True),
    (math.nan, True),
    (1e39, False),
    (-0.0, True),
    (2.0**-149, True),
    (2.0**-150, False),
    (3.4028234663852886e38, True),
]


@pytest.mark.parametrize(("value", "exact"), EXACT)
def test_float32_is_exact(value: float, exact: bool) -> None:
    assert Float32.is_exact(value) is exact


def test_float32_equality_hash_repr() -> None:
    f = Float32(0.5)
    assert f == 0.5
    assert hash(f) == hash(0.5)
    assert hash(Float32(2.0)) == hash(2)
    assert {f: "x"}[0.5] == "x"
    assert Float32(0.1) != 0.1
    assert Float32(0.1) == 0.10000000149011612
    assert Float32(-0.0) == 0.0  # like floats
    assert math.copysign(1, Float32(-0.0)) == -1
    nan = Float32(math.nan)
    assert nan != nan
    assert repr(Float32(0.1)) == "Float32(0.10000000149011612)"
    assert repr(Float32(1e39)) == "Float32(inf)"
    assert str(Float32(0.5)) == "0.5"
    assert f"{Float32(0.5)}" == "0.5"
    assert f"{Float32(0.5):.3f}" == "0.500"
    assert type(Float32(0.5) + 1) is float
    assert isinstance(f, float)


def test_float32_pickle_copy() -> None:
    for f in (Float32(0.1), Float32(-0.0), Float32(1e39), Float32.from_bits(0x00000001)):
        for again in (pickle.loads(pickle.dumps(f)), copy.copy(f), copy.deepcopy(f)):
            assert type(again) is Float32
            assert again.bits == f.bits
            assert f64_bits(again) == f64_bits(f)


def test_float32_of_float32_keeps_bits() -> None:
    for bits in (0x80000000, 0x3DCCCCCD, 0x7F800000, 0x00000001, 0x7FA00001):
        f = Float32.from_bits(bits)
        assert Float32(f).bits == bits


@given(st.floats(allow_nan=False))
@example(3.4028235677973366e38)
@example(3.4028235677973362e38)
@example(2.0**-150)
@example(-0.0)
def test_float32_matches_struct(x: float) -> None:
    try:
        packed = struct.pack(">f", x)
    except OverflowError:
        assume(False)
    assert Float32(x).bits == struct.unpack(">I", packed)[0]
    assert Float32(x) == struct.unpack(">f", packed)[0]


@given(st.floats(allow_nan=False))
def test_float32_overflow_is_infinite(x: float) -> None:
    try:
        struct.pack(">f", x)
    except OverflowError:
        assert Float32(x).bits == (0xFF800000 if x < 0 else 0x7F800000)


@given(st.one_of(st.integers(min_value=-(2**130), max_value=2**130),
                 st.integers(min_value=2**52, max_value=2**56)))
@example(2**53 + 2**29 + 1)
@example(2**53 + 2**29)
@example(2**128 - 2**103)
def test_float32_of_int_is_nearest(n: int) -> None:
    f = Float32(n)
    midpoint_above_max = 2**128 - 2**103
    if math.isinf(f):
        assert abs(n) >= midpoint_above_max
        return
    assert abs(n) < midpoint_above_max
    sign, magnitude = f.bits & 0x80000000, f.bits & 0x7FFFFFFF
    distance = abs(Fraction(float(f)) - n)
    for neighbour in (magnitude - 1, magnitude + 1):
        if 0 <= neighbour < 0x7F800000:
            other = abs(Fraction(float(Float32.from_bits(sign | neighbour))) - n)
            assert distance <= other
            if distance == other:  # a tie goes to the even pattern
                assert magnitude % 2 == 0


@given(st.integers(min_value=0, max_value=0xFFFFFFFF))
def test_float32_from_bits_round_trip(bits: int) -> None:
    f = Float32.from_bits(bits)
    assert f.bits == bits
    assert Float32(f).bits == bits
    assert pickle.loads(pickle.dumps(f)).bits == bits
    if not math.isnan(f):
        assert Float32(float(f)).bits == bits


# -- the sentinels: END, INFINITY, UNDEFINED --------------------------------------------------


@pytest.mark.parametrize(("sentinel", "text"), [(END, "END"), (INFINITY, "INFINITY"),
                                                (UNDEFINED, "UNDEFINED")])
def test_a_sentinel_is_a_singleton(sentinel: object, text: str) -> None:
    assert type(sentinel)() is sentinel
    assert repr(sentinel) == text
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(sentinel, protocol=protocol)) is sentinel
    assert copy.copy(sentinel) is sentinel
    assert copy.deepcopy(sentinel) is sentinel
    assert copy.deepcopy([sentinel, (sentinel,)]) == [sentinel, (sentinel,)]
    assert copy.deepcopy([sentinel])[0] is sentinel
    assert sentinel == sentinel
    assert sentinel != 0
    assert hash(sentinel) == hash(sentinel)


# -- Some ------------------------------------------------------------------------------------


def test_some_is_a_value() -> None:
    inner = Some(None)
    assert inner == Some(None)
    assert hash(inner) == hash(Some(None))
    assert inner != None  # noqa: E711 - Some(None) is not the outer None
    assert Some(Some(None)) != inner
    assert Some(False) != Some(0)  # the inner value's type counts, as in the keys
    assert repr(Some(Some(None))) == "Some(Some(None))"
    assert (inner.depth, Some(Some(None)).depth) == (1, 2)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(Some(Some(None)), protocol=protocol)) == Some(
            Some(None))
    with pytest.raises(AttributeError):
        inner.value = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del inner.value


# -- Versionstamp ----------------------------------------------------------------------------

TR = bytes(range(10))


# (stamp, its 12 bytes) -- read both ways
STAMPS = [
    (Versionstamp(TR, 0), TR + b"\x00\x00"),
    (Versionstamp(TR, 0xFFFF), TR + b"\xff\xff"),
    (Versionstamp(b"\x00" * 10, 258), b"\x00" * 10 + b"\x01\x02"),
    (Versionstamp(None, 3), b"\xff" * 10 + b"\x00\x03"),
    (Versionstamp(), b"\xff" * 10 + b"\x00\x00"),
]


@pytest.mark.parametrize(("stamp", "data"), STAMPS)
def test_versionstamp_bytes(stamp: Versionstamp, data: bytes) -> None:
    assert stamp.to_bytes() == data
    assert Versionstamp.from_bytes(data) == stamp
    assert Versionstamp.from_bytes(bytearray(data)) == stamp
    assert Versionstamp.from_bytes(memoryview(data)) == stamp


def test_versionstamp_complete() -> None:
    assert Versionstamp(TR, 5).is_complete()
    assert not Versionstamp(user_version=3).is_complete()
    assert not Versionstamp.from_bytes(b"\xff" * 12).is_complete()
    assert Versionstamp.from_bytes(b"\xff" * 9 + b"\xfe\x00\x00").is_complete()
    assert Versionstamp(bytearray(TR)).tr_version == TR
    assert type(Versionstamp(memoryview(TR)).tr_version) is bytes


@pytest.mark.parametrize(("args", "error"), [
    (("x" * 10,), UnsupportedTypeError),
    ((12345,), UnsupportedTypeError),
    ((b"\x00" * 9,), EncodeError),
    ((b"\x00" * 11,), EncodeError),
    ((TR, -1), EncodeError),
    ((TR, 0x10000), EncodeError),
    ((TR, True), UnsupportedTypeError),
    ((TR, 1.0), UnsupportedTypeError),
    ((TR, "1"), UnsupportedTypeError),
])
def test_versionstamp_validation(args: tuple[object, ...], error: type[Exception]) -> None:
    with pytest.raises(error) as info:
        Versionstamp(*args)  # type: ignore[arg-type]
    assert type(info.value) is error


@pytest.mark.parametrize("data", [b"", b"\x00" * 11, b"\x00" * 13])
def test_versionstamp_from_bytes_length(data: bytes) -> None:
    with pytest.raises(EncodeError, match="12 bytes"):
        Versionstamp.from_bytes(data)


def test_versionstamp_ordering() -> None:
    stamps = [
        Versionstamp(b"\x00" * 10, 0),
        Versionstamp(b"\x00" * 10, 1),
        Versionstamp(b"\x00" * 9 + b"\x01", 0),
        Versionstamp(TR, 7),
        Versionstamp(b"\xfe" + b"\x00" * 9, 0),
        Versionstamp(None, 0),  # incomplete stamps sort last, as their ff bytes do
        Versionstamp(None, 1),
    ]
    assert sorted(reversed(stamps)) == stamps
    for a, b in itertools.pairwise(stamps):
        assert a < b
        assert a <= b
        assert b > a
        assert b >= a
        assert not b < a
        assert a != b
    assert stamps[0] <= Versionstamp(b"\x00" * 10, 0)
    with pytest.raises(TypeError):
        _ = stamps[0] < 5  # type: ignore[operator]


def test_versionstamp_eq_hash() -> None:
    a, b = Versionstamp(TR, 1), Versionstamp(bytes(TR), 1)
    assert a == b
    assert hash(a) == hash(b)
    assert len({a, b, Versionstamp(TR, 2), Versionstamp(None, 1)}) == 3
    assert a != Versionstamp(None, 1)
    assert a != TR + b"\x00\x01"
    assert a != (TR, 1)
    assert repr(a) == f"Versionstamp({TR!r}, 1)"
    assert repr(Versionstamp(None, 2)) == "Versionstamp(None, 2)"


def test_versionstamp_immutable_and_pickles() -> None:
    stamp = Versionstamp(TR, 9)
    with pytest.raises(AttributeError):
        stamp.user_version = 10  # type: ignore[misc]
    with pytest.raises(AttributeError):
        stamp.tr_version = None  # type: ignore[misc]
    with pytest.raises(AttributeError):
        stamp.other = 1  # type: ignore[attr-defined]
    assert stamp.user_version == 9
    for again in (pickle.loads(pickle.dumps(stamp)), copy.copy(stamp), copy.deepcopy(stamp)):
        assert again == stamp
        assert again.tr_version == TR
    incomplete = pickle.loads(pickle.dumps(Versionstamp(None, 4)))
    assert not incomplete.is_complete()
    assert incomplete.user_version == 4
