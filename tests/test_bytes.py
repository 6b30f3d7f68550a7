"""The shared byte primitives of lexcodecs._bytes."""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from lexcodecs._bytes import (
    escape_nul,
    float_to_ordered,
    invert,
    order_bits,
    ordered_to_float,
    strinc,
    unescape_nul,
    unorder_bits,
)

# -- invert ------------------------------------------------------------------------------------

INVERTED = [
    (b"", b""),
    (b"\x00", b"\xff"),
    (b"\x00\x01", b"\xff\xfe"),
    (b"\x7f\x80", b"\x80\x7f"),
    (bytes(range(256)), bytes(range(255, -1, -1))),
]


@pytest.mark.parametrize(("data", "inverted"), INVERTED)
def test_invert(data: bytes, inverted: bytes) -> None:
    assert invert(data) == inverted
    assert invert(inverted) == data


@given(st.binary(min_size=3, max_size=3), st.binary(min_size=3, max_size=3))
def test_invert_reverses_order(a: bytes, b: bytes) -> None:
    # for values of one length (or that differ before either ends) the order is reversed
    assert invert(invert(a)) == a
    assert (a < b) == (invert(a) > invert(b))


# -- 00 escaping -------------------------------------------------------------------------------

ESCAPED = [
    (b"", b""),
    (b"abc", b"abc"),
    (b"\x00", b"\x00\xff"),
    (b"a\x00b", b"a\x00\xffb"),
    (b"\x00\x00", b"\x00\xff\x00\xff"),
    (b"\xff\x00\xff", b"\xff\x00\xff\xff"),
    (b"\x00\xff", b"\x00\xff\xff"),
]


@pytest.mark.parametrize(("data", "escaped"), ESCAPED)
def test_escape(data: bytes, escaped: bytes) -> None:
    assert escape_nul(data) == escaped
    assert unescape_nul(escaped) == data


@given(st.binary())
@example(b"\x00\xff\x00")
def test_escape_round_trip(data: bytes) -> None:
    escaped = escape_nul(data)
    assert unescape_nul(escaped) == data
    # every 00 in the output is followed by ff: a lone 00 can terminate
    assert escaped.count(b"\x00") == escaped.count(b"\x00\xff") == data.count(b"\x00")


@given(st.binary(), st.binary())
def test_escaped_terminated_order(a: bytes, b: bytes) -> None:
    # escaped + 00 01 terminator keeps byte order and is prefix-free
    ka, kb = escape_nul(a) + b"\x00\x01", escape_nul(b) + b"\x00\x01"
    assert (a < b) == (ka < kb)
    if a != b:
        assert not ka.startswith(kb)
        assert not kb.startswith(ka)


# -- strinc --------------------------------------------------------------------------------------

STRINC = [
    (b"a", b"b"),
    (b"ab", b"ac"),
    (b"ab\xff", b"ac"),
    (b"a\xff\xff", b"b"),
    (b"\x00", b"\x01"),
    (b"\xfe", b"\xff"),
    (b"\xfe\xff", b"\xff"),
    (b"\x01\x00\xff", b"\x01\x01"),
    (b"", None),
    (b"\xff", None),
    (b"\xff\xff\xff", None),
]


@pytest.mark.parametrize(("prefix", "stop"), STRINC)
def test_strinc(prefix: bytes, stop: bytes | None) -> None:
    assert strinc(prefix) == stop


@given(st.binary(max_size=6), st.binary(max_size=6))
@example(b"a\xff", b"a\xff\xff\xff")
@example(b"a", b"b")
def test_strinc_bounds_extensions(prefix: bytes, other: bytes) -> None:
    stop = strinc(prefix)
    extended = prefix + other
    assert extended >= prefix
    if stop is None:
        assert prefix.strip(b"\xff") == b""
        return
    assert extended < stop  # every extension is below the stop
    assert stop > prefix
    # and nothing outside the prefix lies in [prefix, stop)
    if not other.startswith(prefix) and prefix <= other < stop:
        pytest.fail(f"{other!r} is in [{prefix!r}, {stop!r}) without extending the prefix")


# -- IEEE order transform ----------------------------------------------------------------------


def f64_bits(value: float) -> int:
    return int(struct.unpack(">Q", struct.pack(">d", value))[0])


def f32_bits(value: float) -> int:
    return int(struct.unpack(">I", struct.pack(">f", value))[0])


def total_order_key(bits: int, width: int) -> tuple[int, int]:
    """IEEE 754 totalOrder, written from the definition, independent of order_bits.

    Negative values (sign set, -NaN included) come first, larger magnitude first; then
    positive values, smaller magnitude first. The magnitude bits order |x| (NaN above inf).
    """
    sign = bits >> (8 * width - 1)
    magnitude = bits & ((1 << (8 * width - 1)) - 1)
    return (0, -magnitude) if sign else (1, magnitude)


def test_total_order_key_matches_definition() -> None:
    ordered = [-math.nan, -math.inf, -1e300, -1.0, -5e-324, -0.0, 0.0, 5e-324, 1.0, 1e300,
               math.inf, math.nan]
    keys = [total_order_key(f64_bits(x), 8) for x in ordered]
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)


ORDER_BITS_64 = [
    (0x0000000000000000, 0x8000000000000000),  # +0.0
    (0x8000000000000000, 0x7FFFFFFFFFFFFFFF),  # -0.0
    (0x3FF0000000000000, 0xBFF0000000000000),  # 1.0
    (0xBFF0000000000000, 0x400FFFFFFFFFFFFF),  # -1.0
    (0x7FF0000000000000, 0xFFF0000000000000),  # +inf
    (0xFFF0000000000000, 0x000FFFFFFFFFFFFF),  # -inf
    (0x7FF8000000000000, 0xFFF8000000000000),  # +NaN
    (0xFFFFFFFFFFFFFFFF, 0x0000000000000000),  # the lowest -NaN
    (0x7FFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF),  # the highest +NaN
]

ORDER_BITS_32 = [
    (0x00000000, 0x80000000),
    (0x80000000, 0x7FFFFFFF),
    (0x3F800000, 0xBF800000),
    (0xBF800000, 0x407FFFFF),
    (0x7FA00001, 0xFFA00001),  # signalling NaN payload passes through
    (0xFFC00001, 0x003FFFFE),
]


@pytest.mark.parametrize(("width", "bits", "ordered"),
                         [(8, b, o) for b, o in ORDER_BITS_64] +
                         [(4, b, o) for b, o in ORDER_BITS_32])
def test_order_bits_table(width: int, bits: int, ordered: int) -> None:
    assert order_bits(bits, width) == ordered
    assert unorder_bits(ordered, width) == bits


@pytest.mark.parametrize("width", [1, 2])
def test_order_bits_all_patterns_small(width: int) -> None:
    patterns = range(1 << (8 * width))
    ordered = sorted(patterns, key=lambda b: total_order_key(b, width))
    assert [order_bits(b, width) for b in ordered] == list(patterns)
    assert all(unorder_bits(order_bits(b, width), width) == b for b in patterns)


_BITS64 = st.integers(min_value=0, max_value=2**64 - 1)
_BITS32 = st.integers(min_value=0, max_value=2**32 - 1)
_SPECIAL64 = st.sampled_from([b for b, _ in ORDER_BITS_64])


@given(st.one_of(_BITS64, _SPECIAL64), st.one_of(_BITS64, _SPECIAL64))
def test_order_bits_64_is_total_order(a: int, b: int) -> None:
    oa, ob = order_bits(a, 8), order_bits(b, 8)
    assert 0 <= oa < 2**64
    assert (oa < ob) == (total_order_key(a, 8) < total_order_key(b, 8))
    assert (oa == ob) == (a == b)
    assert unorder_bits(oa, 8) == a


@given(_BITS32, _BITS32)
def test_order_bits_32_is_total_order(a: int, b: int) -> None:
    oa, ob = order_bits(a, 4), order_bits(b, 4)
    assert 0 <= oa < 2**32
    assert (oa < ob) == (total_order_key(a, 4) < total_order_key(b, 4))
    assert unorder_bits(oa, 4) == a


@given(st.floats(), st.floats())
@example(-0.0, 0.0)
@example(-math.inf, -math.nan)
@example(math.inf, math.nan)
@example(-5e-324, -0.0)
def test_float_to_ordered_is_total_order(x: float, y: float) -> None:
    kx, ky = float_to_ordered(x), float_to_ordered(y)
    assert len(kx) == 8
    assert (kx < ky) == (total_order_key(f64_bits(x), 8) < total_order_key(f64_bits(y), 8))
    if not (math.isnan(x) or math.isnan(y)) and x != y:
        assert (kx < ky) == (x < y)  # agrees with < where < is defined and strict
    assert f64_bits(ordered_to_float(kx)) == f64_bits(x)


@given(st.floats(width=32), st.floats(width=32))
def test_order_bits_binary32_floats(x: float, y: float) -> None:
    bx, by = f32_bits(x), f32_bits(y)
    assert (order_bits(bx, 4) < order_bits(by, 4)) == \
        (total_order_key(bx, 4) < total_order_key(by, 4))
