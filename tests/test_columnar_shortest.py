"""The shortest round-trip digits (Ryu, ``lexcodecs/_shortest.pxi``, which the columnar kernel
and hbase-orderedbytes include) are exactly repr's.

sqlite4 encodes a float as the decimal of its shortest repr, and the columnar kernel computes
those digits with Ulf Adams' Ryu instead of CPython's ``PyOS_double_to_string`` (David Gay's
dtoa). Both return the shortest decimal that reads back as the float, and among those the one
nearest to it, ties to even; these tests hold ``shortest_digits(x)`` (the digits and the point
``p`` with ``|x| = 0.d1d2...dn * 10**p``) to what ``repr`` says, on the edges of the format
(subnormals, the largest float, powers of 2 and 10, integers around 2**53, exact ties), on
hypothesis' floats and bit patterns, and on 200,000 seeded random bit patterns.
"""

from __future__ import annotations

import math
import random
import struct
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

kernel = pytest.importorskip("lexcodecs.columnar._kernel")
shortest_digits: Callable[[float], tuple[str, int]] = kernel.shortest_digits


def repr_digits(x: float) -> tuple[str, int]:
    """The digits and the point of ``repr(abs(x))``, in ``shortest_digits``' form."""
    mantissa, _, exponent = repr(abs(x)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exponent) if exponent else 0)
    significant = digits.lstrip("0")
    point -= len(digits) - len(significant)
    return significant.rstrip("0"), point


def from_bits(bits: int) -> float:
    value: float = struct.unpack("<d", struct.pack("<Q", bits))[0]
    return value


def _edges() -> list[float]:
    values = [
        5e-324,  # the smallest subnormal
        from_bits(0x000FFFFFFFFFFFFF),  # the largest subnormal
        2.2250738585072014e-308,  # the smallest normal
        1.7976931348623157e308,  # the largest float
        0.3,
        0.1,
        1e23,  # halfway between two doubles in decimal: repr must not say 9.999999999999999e22
        9007199254740993.0,  # 2**53 + 1 rounds to 2**53
        9007199254740991.0,
        123.45,
        0.001,
        1125899906842624.25,  # an exact tie at 17 digits: rounds to the even ...2
        1125899906842624.75,  # ... and to the even ...8
        562949953421312.125,
        123456789012345.0,  # 15, 16 and 17 digits
        1234567890123456.0,
        0.12345678901234567,
        -2.5,
    ]
    values += [math.ldexp(1.0, k) for k in range(-1074, 1024)]
    values += [float(f"1e{k}") for k in range(-323, 309)]
    values += [float(2**53 + d) for d in range(-100, 101)]
    values += [float(n) for n in range(1, 1001)]
    for value in list(values):
        values += [math.nextafter(value, math.inf), math.nextafter(value, 0.0)]
    return [v for v in values if math.isfinite(v) and v != 0.0]


@pytest.mark.parametrize("x", _edges()[:40])
def test_named_edges(x: float) -> None:
    assert shortest_digits(x) == repr_digits(x)


def test_all_edges() -> None:
    mismatches = [x for x in _edges() if shortest_digits(x) != repr_digits(x)]
    assert mismatches == []


def test_examples() -> None:
    assert shortest_digits(123.45) == ("12345", 3)
    assert shortest_digits(0.001) == ("1", -2)
    assert shortest_digits(1e23) == ("1", 24)
    assert shortest_digits(5e-324) == ("5", -323)


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False).filter(bool))
def test_floats(x: float) -> None:
    assert shortest_digits(x) == repr_digits(x)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**64 - 1))
def test_bit_patterns(bits: int) -> None:
    x = from_bits(bits)
    if math.isfinite(x) and x != 0.0:
        assert shortest_digits(x) == repr_digits(x)


def test_random_bit_patterns() -> None:
    patterns = random.Random(20261125).randbytes(8 * 200_000)
    values = [x for (x,) in struct.iter_unpack("<d", patterns) if math.isfinite(x) and x != 0.0]
    assert len(values) > 199_000
    assert [x for x in values if shortest_digits(x) != repr_digits(x)] == []
