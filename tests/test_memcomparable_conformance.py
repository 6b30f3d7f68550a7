"""The ``memcomparable`` codec under the conformance harness (``lexcodecs.testing``).

Schemas that hold every field type, both orders and every Option nesting (``nullable`` false,
true and 2, where ``Some(None)`` sits between NULL and the values): order against the
natural-order model, round trip, prefix ranges, injectivity, NULL placement, descending
fields, junk keys, the columnar writer, and every declared anomaly. Every test runs on the
compiled and on the reference implementation (``impl``), under a tenth of the profile's
examples (the harness is slow; the differential tests draw more).

Decimals are drawn within rust_decimal's range (the harness's own reach 40 digits, which the
codec refuses by design), and NaN and the infinities among them. ``char``, ``variant`` and
the 128-bit types have strategies of their own here only so that the harness does not step
to "neighbours" outside their domain (a char plus "\\x00", 2**127 next to 2**127 - 1: a
shared strategy's gap, reported).
"""

from __future__ import annotations

import decimal

import pytest
from hypothesis import settings
from hypothesis import strategies as st

from lexcodecs.codecs.memcomparable import MemcomparableCodec
from lexcodecs.testing import CodecConformance

pytestmark = pytest.mark.usefixtures("impl")

#: decimals a rust_decimal holds: at most 20 digits, a scale of at most 20, |v| < 10**28
RUST_DECIMALS = st.one_of(
    st.builds(lambda s, d, e: decimal.Decimal((s, d, e)), st.integers(0, 1),
              st.lists(st.integers(0, 9), min_size=1, max_size=20).map(tuple),
              st.integers(-20, 8)),
    st.sampled_from([decimal.Decimal(x) for x in ("NaN", "Infinity", "-Infinity", "0",
                                                 "-0", "1.0", "1.00", "0.01", "-0.01")]))


def _edges(lo: int, hi: int) -> st.SearchStrategy[int]:
    return st.one_of(st.integers(lo, hi), st.sampled_from([lo, hi, 0, min(1, hi)]))


VALUES = {"decimal": RUST_DECIMALS}


def few_examples() -> settings:
    """The harness under a tenth of the loaded profile's examples."""
    active = settings()  # the loaded profile
    return settings(active, max_examples=max(6, active.max_examples // 10))


class TestMemcomparableConformance(CodecConformance):
    codec = MemcomparableCodec()
    schemas = (
        "a:int32, s:string, b:bytes, f:float64, d:decimal",
        "n:int64 nullable=true, s:string desc nullable=true, x:float32 desc",
        "c:char, v:variant, w:int128, u:uint128 desc",
        "o:int16 nullable=2, q:bytes repr=seq desc, t:bool",
        "d:decimal desc nullable=true, b:bool desc, i8:int8 desc, u8:uint8",
        "c:char desc nullable=2, w:int128 nullable=true, u:uint64, g:uint16 desc",
        # the columnar kernel's alone: floats (-0.0 as +0.0), chunked strings, Option tags
        "x:float64 desc nullable=true, s:string nullable=2, b:bytes desc, f:float32",
    )
    value_strategies = VALUES

    def property_settings(self) -> settings:
        return few_examples()
