"""The ``orderly`` codec: the spec's byte tables in both directions, refusals at bind and at
encode, strict decoding, ``skip`` and the lengths, and fuzzing (spec ``orderly.md``).

Where the bytes come from: every hex string in the tables below is copied from the spec
(§5.6, §5.9, §6, §7, §8.3, §9, §10, §11.5, §12), whose examples are the output of the Orderly
Java library (ndimiduk/orderly @ d26d690, NGDATA fork byte arrays, §1). The keys in the
decoding-strictness tests are built by hand from the layouts of §5-§10 (each one's derivation
is in its comment); what must be refused, and at which offset, is spec §14.6.
"""

from __future__ import annotations

import decimal
import functools
import itertools
import math
import struct
import sys
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexcodecs import DecodeError, EncodeError, SchemaError, UnsupportedTypeError
from lexcodecs.codecs import orderly
from lexcodecs.codecs.orderly import (
    TERMINATIONS,
    BoundOrderly,
    OrderlyCodec,
    reference_field,
    reference_numbers,
)
from lexcodecs.errors import OptionError
from lexcodecs.schema import Field, KeySchema
from lexcodecs.testing.strategies import junk_keys, keys
from lexcodecs.types import Float32, Int32, UInt64

D = decimal.Decimal
AUTO, MUST, SHOULD_NOT = "AUTO", "MUST", "SHOULD_NOT"


@functools.cache
def codec(struct_order: str = "asc", struct_termination: str = AUTO) -> OrderlyCodec:
    return OrderlyCodec(struct_order=struct_order, struct_termination=struct_termination)


CODEC = codec()


def hx(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def schema_text(ftype: str, desc: bool, opts: str = "", name: str = "x") -> str:
    """``x:int32 desc reserved_bits=2``: the order word goes before the options."""
    return f"{name}:{ftype}{' desc' if desc else ''}{' ' + opts if opts else ''}"


# -- value comparison -----------------------------------------------------------------------


def f64_bits(x: float) -> int:
    return int(struct.unpack(">Q", struct.pack(">d", x))[0])


def f64(bits: int) -> float:
    return float(struct.unpack(">d", struct.pack(">Q", bits))[0])


def normalized(d: decimal.Decimal) -> tuple[int, tuple[int, ...], int]:
    """The ``as_tuple()`` of a decoded decimal (spec §14.3), computed by hand
    (``Decimal.normalize`` rounds to the context precision)."""
    sign, digits, exponent = d.as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits)).lstrip("0")
    if not text:
        return (0, (0,), 0)
    stripped = text.rstrip("0")
    return (sign, tuple(map(int, stripped)), exponent + len(text) - len(stripped))


def assert_same(ftype: str, got: Any, want: Any) -> None:
    """*got* is what decoding must give back for the written *want* (spec §14.3)."""
    if want is None:
        assert got is None, f"got {got!r}, want None"
    elif ftype == "float64":
        assert type(got) is float
        want_bits = 0x7FF8000000000000 if math.isnan(want) else f64_bits(want)
        assert f64_bits(got) == want_bits, f"got {f64_bits(got):016x}, want {want_bits:016x}"
    elif ftype == "float32":
        assert isinstance(got, Float32), f"got {type(got).__name__}"
        want32 = want if isinstance(want, Float32) else Float32(want)
        want_bits = 0x7FC00000 if math.isnan(want32) else want32.bits
        assert got.bits == want_bits, f"got {got.bits:08x}, want {want_bits:08x}"
    elif ftype == "decimal":
        assert type(got) is decimal.Decimal
        assert got.as_tuple() == normalized(D(want)), f"got {got!r}, want {want!r}"
    elif ftype in ("string", "bytes"):
        assert type(got) is (str if ftype == "string" else bytes)
        assert got == want
    else:
        assert type(got) is int, f"got {got!r}"
        assert got == want, f"got {got!r}, want {want!r}"


# -- the two directions of one table row ----------------------------------------------------

#: (struct_order, field declared descending) pairs giving each effective order (spec §11.2)
VARIANTS = {"asc": (("asc", False), ("desc", True)), "desc": (("asc", True), ("desc", False))}


def check_row(ftype: str, opts: str, value: Any, want: str, order: str,
              terms: tuple[str, ...] = TERMINATIONS) -> None:
    """Encode *value* in a one-field key of effective *order* under each of *terms*: exactly
    *want*; decode *want*: *value* back; serialized_length is its length."""
    key = hx(want)
    for (struct_order, field_desc), term in itertools.product(VARIANTS[order], terms):
        c = codec(struct_order, term)
        schema = schema_text(ftype, field_desc, opts)
        where = f"{schema} struct {struct_order} {term}"
        assert c.encode((value,), schema).hex() == want, where
        (got,) = c.decode(key, schema)
        assert_same(ftype, got, value)
        assert c.serialized_length((value,), schema) == len(key), where


def check_termination_row(ftype: str, opts: str, value: Any, row: tuple[str, str, str, str]
                          ) -> None:
    """A row of the spec's termination tables: asc AUTO/SHOULD_NOT, asc MUST,
    desc AUTO/MUST, desc SHOULD_NOT."""
    asc_open, asc_must, desc_closed, desc_open = row
    check_row(ftype, opts, value, asc_open, "asc", (AUTO, SHOULD_NOT))
    check_row(ftype, opts, value, asc_must, "asc", (MUST,))
    check_row(ftype, opts, value, desc_closed, "desc", (AUTO, MUST))
    check_row(ftype, opts, value, desc_open, "desc", (SHOULD_NOT,))


def row_id(value: Any) -> str:
    if isinstance(value, float) and not isinstance(value, Float32):
        return f"{value!r}/{f64_bits(value):016x}"
    if isinstance(value, Float32):
        return f"f32:{value.bits:08x}"
    text = repr(value)
    return text if len(text) <= 30 else text[:28] + "…"


def rows(table: list[tuple[Any, ...]]) -> list[Any]:
    return [pytest.param(*r, id=row_id(r[0])) for r in table]


# -- §5.9 var-ints ---------------------------------------------------------------------------

INT64 = [
    (0, "80", "7f"), (1, "81", "7e"), (-1, "7f", "80"), (17, "91", "6e"), (-17, "6f", "90"),
    (63, "bf", "40"), (-64, "40", "bf"), (64, "c040", "3fbf"), (-65, "3fbf", "c040"),
    (127, "c07f", "3f80"), (128, "c080", "3f7f"), (-128, "3f80", "c07f"),
    (8191, "dfff", "2000"), (-8192, "2000", "dfff"), (8192, "e02000", "1fdfff"),
    (-8193, "1fdfff", "e02000"), (65536, "e10000", "1effff"),
    (2**28, "e810000000", "17efffffff"), (2**31 - 1, "e87fffffff", "1780000000"),
    (-(2**31), "1780000000", "e87fffffff"),
    (2**58 - 1, "f7ffffffffffffff", "0800000000000000"),
    (-(2**58), "0800000000000000", "f7ffffffffffffff"),
    (2**58, "f80400000000000000", "07fbffffffffffffff"),
    # the 9-byte negative quirk (§5.5): header 04 / fb, not 07 / f8
    (-(2**58) - 1, "04fbffffffffffffff", "fb0400000000000000"),
    (2**63 - 1, "f87fffffffffffffff", "078000000000000000"),
    (-(2**63), "048000000000000000", "fb7fffffffffffffff"),
]

INT32 = [
    # equal to int64 for -2**13 <= x < 2**13
    *[r for r in INT64 if -(2**13) <= r[0] < 2**13],
    (8192, "e02000", "1fdfff"), (-8193, "1fdfff", "e02000"), (65536, "e10000", "1effff"),
    (2**28, "f010000000", "0fefffffff"), (2**31 - 1, "f07fffffff", "0f80000000"),
    (-(2**31), "0f80000000", "f07fffffff"),
]

UINT64 = [
    (0, "01", "fe"), (1, "02", "fd"), (127, "80", "7f"), (128, "8180", "7e7f"),
    (16383, "c0ff", "3f00"), (16384, "c14000", "3ebfff"), (65536, "c20000", "3dffff"),
    (2**19 - 1, "c8ffff", "370000"), (2**19, "c9080000", "36f7ffff"),
    (2**28, "d110000000", "2eefffffff"), (2**59 - 1, "f0ffffffffffffff", "0f00000000000000"),
    (2**59, "f10800000000000000", "0ef7ffffffffffffff"),
    (2**63 - 1, "f17fffffffffffffff", "0e8000000000000000"),
    (2**64 - 1, "f1ffffffffffffffff", "0e0000000000000000"),
]

UINT32 = [
    (0, "01", "fe"), (127, "80", "7f"), (128, "8180", "7e7f"), (16384, "c14000", "3ebfff"),
    (2**20 - 1, "d0ffff", "2f0000"), (2**20, "d1100000", "2eefffff"),
    (2**28 - 1, "e0ffffff", "1f000000"), (2**28, "e110000000", "1eefffffff"),
    (2**31 - 1, "e17fffffff", "1e80000000"), (2**32 - 1, "e1ffffffff", "1e00000000"),
]


@pytest.mark.parametrize(("value", "asc", "desc"), rows(INT64))
def test_int64_var(value: int, asc: str, desc: str) -> None:
    # termination has no effect on a non-NULL var-int
    check_row("int64", "", value, asc, "asc")
    check_row("int64", "", value, desc, "desc")


@pytest.mark.parametrize(("value", "asc", "desc"), rows(INT32))
def test_int32_var(value: int, asc: str, desc: str) -> None:
    check_row("int32", "", value, asc, "asc")
    check_row("int32", "encoding=var", value, desc, "desc")


@pytest.mark.parametrize(("value", "asc", "desc"), rows(UINT64))
def test_uint64_var(value: int, asc: str, desc: str) -> None:
    check_row("uint64", "", value, asc, "asc")
    check_row("uint64", "", value, desc, "desc")


@pytest.mark.parametrize(("value", "asc", "desc"), rows(UINT32))
def test_uint32_var(value: int, asc: str, desc: str) -> None:
    check_row("uint32", "", value, asc, "asc")
    check_row("uint32", "", value, desc, "desc")


@pytest.mark.parametrize("ftype", ["int64", "int32", "uint64", "uint32"])
def test_var_int_null(ftype: str) -> None:
    # §5.9: NULL is 00 (masked) when terminated, else nothing
    check_termination_row(ftype, "", None, ("", "00", "ff", ""))


def test_spec_worked_examples() -> None:
    # §5.4: int64 -65 -> 3fbf / c040; uint32 16384 -> c14000
    assert CODEC.encode((-65,), "x:int64") == hx("3fbf")
    assert CODEC.encode((-65,), "x:int64 desc") == hx("c040")
    assert CODEC.encode((16384,), "x:uint32") == hx("c14000")
    # §5.8 decodes
    assert CODEC.decode(hx("3fbf"), "x:int64") == (-65,)
    assert CODEC.decode(hx("048000000000000000"), "x:int64") == (-(2**63),)


def test_int_wrappers_are_ints() -> None:
    assert CODEC.encode((Int32(5),), "x:int32") == hx("85")
    assert CODEC.encode((UInt64(2**64 - 1),), "x:uint64") == hx("f1ffffffffffffffff")
    (back,) = CODEC.decode(hx("85"), "x:int32")
    assert type(back) is int
    assert back == 5


# -- §5.6 reserved bits -----------------------------------------------------------------------

RESERVED = "reserved_bits=2 reserved_value=3"
INT32_RESERVED = [
    (0, "e0", "df"), (1, "e1", "de"), (-1, "df", "e0"), (15, "ef", "d0"), (16, "f010", "cfef"),
    (-93214, "c693e2", "f96c1d"),
]


@pytest.mark.parametrize(("value", "asc", "desc"), rows(INT32_RESERVED))
def test_int32_reserved_bits(value: int, asc: str, desc: str) -> None:
    # the top two header bits hold 3 in both orders: never inverted
    check_row("int32", RESERVED, value, asc, "asc")
    check_row("int32", RESERVED, value, desc, "desc")


def test_int32_reserved_bits_null() -> None:
    check_termination_row("int32", RESERVED, None, ("", "c0", "ff", ""))


def test_reserved_bits_at_each_types_maximum() -> None:
    # R = E (§5.6): int64 2, int32 3, uint64 3, uint32 4; values still round trip
    for ftype, r in (("int64", 2), ("int32", 3), ("uint64", 3), ("uint32", 4)):
        schema = f"x:{ftype} reserved_bits={r} reserved_value={(1 << r) - 1}"
        lo, hi = orderly.VARINTS[ftype].lo, orderly.VARINTS[ftype].hi
        for v in (lo, hi, 0, 1, 1000):
            key = CODEC.encode((v,), schema)
            assert key[0] >> (8 - r) == (1 << r) - 1
            assert CODEC.decode(key, schema) == (v,)
            assert codec("desc").decode(codec("desc").encode((v,), schema), schema) == (v,)


# -- §6 fixed-width ints ---------------------------------------------------------------------

FIXED_INTS = [
    ("int32", 0, "80000000", "7fffffff"), ("int32", 1, "80000001", "7ffffffe"),
    ("int32", -1, "7fffffff", "80000000"), ("int32", 2**31 - 1, "ffffffff", "00000000"),
    ("int32", -(2**31), "00000000", "ffffffff"),
    ("int64", 0, "8000000000000000", "7fffffffffffffff"),
    ("int64", -1, "7fffffffffffffff", "8000000000000000"),
    ("int64", -(2**63), "0000000000000000", "ffffffffffffffff"),
    ("uint32", 1, "00000001", "fffffffe"), ("uint32", 2**32 - 1, "ffffffff", "00000000"),
    ("uint64", 1, "0000000000000001", "fffffffffffffffe"),
    ("uint64", 2**64 - 1, "ffffffffffffffff", "0000000000000000"),
]


@pytest.mark.parametrize(("ftype", "value", "asc", "desc"),
                         [pytest.param(*r, id=f"{r[0]} {r[1]}") for r in FIXED_INTS])
def test_fixed_ints(ftype: str, value: int, asc: str, desc: str) -> None:
    check_row(ftype, "encoding=fixed", value, asc, "asc")
    check_row(ftype, "encoding=fixed", value, desc, "desc")


# -- §7 floats -------------------------------------------------------------------------------

SMALLEST_F32 = Float32.from_bits(1)
LARGEST_F32 = Float32.from_bits(0x7F7FFFFF)

FLOATS: list[tuple[Any, Any, str, str, str, str]] = [
    # (float64 value, float32 value, f64 asc, f64 desc, f32 asc, f32 desc); "" = not in spec
    (-math.inf, Float32(-math.inf), "0010000000000000", "ffefffffffffffff", "00800000",
     "ff7fffff"),
    (-1.0, Float32(-1.0), "4010000000000000", "bfefffffffffffff", "40800000", "bf7fffff"),
    (-0.0, Float32(-0.0), "8000000000000000", "7fffffffffffffff", "80000000", "7fffffff"),
    (0.0, Float32(0.0), "8000000000000001", "7ffffffffffffffe", "80000001", "7ffffffe"),
    (5e-324, SMALLEST_F32, "8000000000000002", "7ffffffffffffffd", "80000002", "7ffffffd"),
    (0.5, None, "bfe0000000000001", "401ffffffffffffe", "", ""),
    (1.0, Float32(1.0), "bff0000000000001", "400ffffffffffffe", "bf800001", "407ffffe"),
    (2.0, None, "c000000000000001", "3ffffffffffffffe", "", ""),
    (sys.float_info.max, LARGEST_F32, "fff0000000000000", "000fffffffffffff", "ff800000",
     "007fffff"),
    (math.inf, Float32(math.inf), "fff0000000000001", "000ffffffffffffe", "ff800001",
     "007ffffe"),
    # every NaN is written as the canonical one (any sign, any payload)
    (f64(0x7FF0000000000001), Float32.from_bits(0x7F800001), "fff8000000000001",
     "0007fffffffffffe", "ffc00001", "003ffffe"),
    (math.nan, Float32.from_bits(0x7FC00000), "fff8000000000001", "0007fffffffffffe",
     "ffc00001", "003ffffe"),
    (f64(0xFFF8000000000000), Float32.from_bits(0xFFC00000), "fff8000000000001",
     "0007fffffffffffe", "ffc00001", "003ffffe"),
    (f64(0x7FFFFFFFFFFFFFFF), Float32.from_bits(0xFFFFFFFF), "fff8000000000001",
     "0007fffffffffffe", "ffc00001", "003ffffe"),
]


@pytest.mark.parametrize(("v64", "v32", "a64", "d64", "a32", "d32"), rows(FLOATS))
def test_floats(v64: float, v32: Float32 | None, a64: str, d64: str, a32: str, d32: str
                ) -> None:
    check_row("float64", "", v64, a64, "asc")
    check_row("float64", "", v64, d64, "desc")
    if v32 is not None:
        check_row("float32", "", v32, a32, "asc")
        check_row("float32", "", v32, d32, "desc")


def test_float_null_with_and_without_termination() -> None:
    check_termination_row("float64", "", None, ("", "00" * 8, "ff" * 8, ""))
    check_termination_row("float32", "", None, ("", "00" * 4, "ff" * 4, ""))


def test_float_zero_signs_distinct() -> None:
    for schema in ("x:float64", "x:float64 desc", "x:float32", "x:float32 desc"):
        neg = CODEC.encode((-0.0,), schema)
        pos = CODEC.encode((0.0,), schema)
        assert neg != pos
        assert (neg < pos) == ("desc" not in schema)
        (back_neg,) = CODEC.decode(neg, schema)
        (back_pos,) = CODEC.decode(pos, schema)
        assert math.copysign(1.0, back_neg) == -1.0
        assert math.copysign(1.0, back_pos) == 1.0


def test_float_nan_decodes_as_the_canonical_nan() -> None:
    (n64,) = CODEC.decode(hx("fff8000000000001"), "x:float64")
    assert type(n64) is float
    assert f64_bits(n64) == 0x7FF8000000000000
    (n32,) = CODEC.decode(hx("ffc00001"), "x:float32")
    assert isinstance(n32, Float32)
    assert n32.bits == 0x7FC00000
    # NaN sorts above +inf; NULL below -inf
    assert CODEC.encode((math.inf,), "x:float64") < CODEC.encode((math.nan,), "x:float64")


def test_float_decode_examples() -> None:
    # §7: bff0000000000001 -> 1.0; desc ffffffffffffffff -> NULL
    assert CODEC.decode(hx("bff0000000000001"), "x:float64") == (1.0,)
    assert CODEC.decode(hx("ffffffffffffffff"), "x:float64 desc") == (None,)


def test_float32_plain_floats() -> None:
    # a plain float exactly representable in binary32 is taken, decoded as Float32
    for v in (0.5, -0.0, math.inf, 1.401298464324817e-45, 3.4028234663852886e38):
        key = CODEC.encode((v,), "x:float32")
        assert key == CODEC.encode((Float32(v),), "x:float32")
        (back,) = CODEC.decode(key, "x:float32")
        assert isinstance(back, Float32)
        assert back == v
    # a Float32 is a float: float64 fields take it as its value
    assert CODEC.encode((Float32(1.0),), "x:float64") == hx("bff0000000000001")


# -- §8.3 decimals ---------------------------------------------------------------------------

DECIMALS: list[tuple[Any, tuple[str, str, str, str]]] = [
    # (value, (asc AUTO/SHOULD_NOT, asc MUST, desc AUTO/MUST, desc SHOULD_NOT))
    (None, ("", "00", "ff", "")),
    (D("0"), ("80", "80", "7f", "7f")), (D("0.000"), ("80", "80", "7f", "7f")),
    (D("-0"), ("80", "80", "7f", "7f")),
    (D("1"), ("e020", "e020", "1fdf", "1fdf")), (D("1.000"), ("e020", "e020", "1fdf", "1fdf")),
    (D("-1"), ("5fdf", "5fdf", "a020", "a020")), (D("10"), ("e120", "e120", "1edf", "1edf")),
    (D("100"), ("e220", "e220", "1ddf", "1ddf")), (D("0.5"), ("df60", "df60", "209f", "209f")),
    (D("-0.5"), ("609f", "609f", "9f60", "9f60")),
    (D("1.2"), ("e023", "e02300", "1fdcff", "1fdc")),
    # decimal-negative-prefix: asc unterminated -1.2 has no terminator
    (D("-1.2"), ("5fdc", "5fdcff", "a02300", "a023")),
    (D("1.23"), ("e02340", "e02340", "1fdcbf", "1fdcbf")),
    (D("-1.23"), ("5fdcbf", "5fdcbf", "a02340", "a02340")),
    (D("12"), ("e123", "e12300", "1edcff", "1edc")),
    (12, ("e123", "e12300", "1edcff", "1edc")),  # an int is converted exactly
    (D("123"), ("e22340", "e22340", "1ddcbf", "1ddcbf")),
    (D("1234"), ("e32345", "e3234500", "1cdcbaff", "1cdcba")),
    (D("-1234"), ("5cdcba", "5cdcbaff", "a3234500", "a32345")),
    (D("3.14159"), ("e042526a", "e042526a00", "1fbdad95ff", "1fbdad95")),
    (D("1E+100"), ("f06420", "f06420", "0f9bdf", "0f9bdf")),
    (D("1E-100"), ("cf9c20", "cf9c20", "3063df", "3063df")),
    (D("-1E+20"), ("4febdf", "4febdf", "b01420", "b01420")),
    (D("123456789012345678901234567890"),
     ("f01d23456789a123456789a123456789a0",) * 2 + ("0fe2dcba98765edcba98765edcba98765f",) * 2),
    (D("1E+2147483647"), ("fc7fffffff20", "fc7fffffff20", "0380000000df", "0380000000df")),
    (D("1E-2147483647"), ("c38000000120", "c38000000120", "3c7ffffffedf", "3c7ffffffedf")),
    (D("-7E-2147483647"), ("7c7ffffffe7f", "7c7ffffffe7f", "838000000180", "838000000180")),
    # decimal-scale-overflow: written as exp -2**31, still decodes to the value
    (D("1E+2147483648"), ("c38000000020", "c38000000020", "3c7fffffffdf", "3c7fffffffdf")),
]


@pytest.mark.parametrize(("value", "row"), rows(DECIMALS))
def test_decimals(value: Any, row: tuple[str, str, str, str]) -> None:
    check_termination_row("decimal", "", value, row)


def test_decimal_normalization() -> None:
    # §14.3: Decimal("1.000") -> e020 -> Decimal("1"); Decimal("-0") -> 80 -> Decimal("0")
    (one,) = CODEC.decode(CODEC.encode((D("1.000"),), "x:decimal"), "x:decimal")
    assert one.as_tuple() == D("1").as_tuple()
    (zero,) = CODEC.decode(CODEC.encode((D("-0.00"),), "x:decimal"), "x:decimal")
    assert zero.as_tuple() == D("0").as_tuple()
    # trailing zeros are stripped before the exponent range check: 10E-2147483648 is
    # 1E-2147483647
    assert CODEC.encode((D("10E-2147483648"),), "x:decimal") == hx("c38000000120")
    # and the 2**31 exponent may come with trailing zeros in the coefficient
    assert CODEC.encode((D("100E+2147483646"),), "x:decimal") == hx("c38000000020")
    (big,) = CODEC.decode(hx("c38000000020"), "x:decimal")
    assert big.as_tuple() == D("1E+2147483648").as_tuple()


def test_decimal_decode_examples() -> None:
    # §8.2: e02340 -> 1.23 (3 bytes), 5fdf -> -1
    assert CODEC.decode(hx("e02340"), "x:decimal") == (D("1.23"),)
    assert CODEC.decode(hx("5fdf"), "x:decimal") == (D("-1"),)
    assert CODEC.skip(hx("e02340"), "x:decimal", 0, 0) == 3


# -- §9 strings ------------------------------------------------------------------------------

STRINGS: list[tuple[Any, tuple[str, str, str, str]]] = [
    (None, ("", "00", "ff", "")),
    ("", ("01", "01", "fe", "fe")),
    ("a", ("63", "6301", "9cfe", "9c")),
    ("ab", ("6364", "636401", "9c9bfe", "9c9b")),
    ("abc", ("636465", "63646501", "9c9b9afe", "9c9b9a")),
    ("\x00", ("02", "0201", "fdfe", "fd")),
    ("é", ("c5ab", "c5ab01", "3a54fe", "3a54")),
    ("€", ("e484ae", "e484ae01", "1b7b51fe", "1b7b51")),
    ("\U0001f600", ("f2a19a82", "f2a19a8201", "0d5e657dfe", "0d5e657d")),
]


@pytest.mark.parametrize(("value", "row"), rows(STRINGS))
def test_strings(value: Any, row: tuple[str, str, str, str]) -> None:
    check_termination_row("string", "", value, row)


def test_string_decode_examples() -> None:
    # §9: 636401 -> "ab" (3 bytes); 6364 at the end of the input -> "ab" (2 bytes)
    assert CODEC.skip(hx("636401"), "x:string", 0, 0) == 3
    assert CODEC.skip(hx("6364"), "x:string", 0, 0) == 2
    assert CODEC.decode(hx("636401"), "x:string") == ("ab",)


def test_declared_termination_inside_a_struct() -> None:
    # §11.3 / §14.2: a declared MUST has no effect, a declared SHOULD_NOT always wins
    assert codec("asc", AUTO).encode(("a",), "x:string termination=MUST") == hx("63")
    assert codec("asc", MUST).encode(("a",), "x:string termination=SHOULD_NOT") == hx("63")
    assert codec("asc", AUTO).encode(("a",), "x:string desc termination=SHOULD_NOT") == hx("9c")
    assert codec("asc", SHOULD_NOT).encode(("a",), "x:string termination=MUST") == hx("63")
    schema = "x:string termination=MUST, y:string termination=SHOULD_NOT"
    assert codec("asc", MUST).encode(("a", "b"), schema) == hx("6301 64")


# -- §10 bytes -------------------------------------------------------------------------------


def test_fixed_bytes() -> None:
    # §10.1: FixedByteArrayRowKey(3) of 00 7f ff
    check_row("bytes", "encoding=fixed length=3", b"\x00\x7f\xff", "007fff", "asc")
    check_row("bytes", "encoding=fixed length=3", b"\x00\x7f\xff", "ff8000", "desc")
    # bytearray and memoryview are taken too
    schema = "x:bytes encoding=fixed length=3"
    assert CODEC.encode((bytearray(b"\x00\x7f\xff"),), schema) == hx("007fff")
    assert CODEC.encode((memoryview(b"\x00\x7f\xff"),), schema) == hx("007fff")


def test_fixed_bytes_of_length_zero() -> None:
    # N >= 0 (§14.2): zero bytes, also as a middle field and as the last one
    for order, term in itertools.product(("asc", "desc"), TERMINATIONS):
        c = codec(order, term)
        assert c.encode((b"",), "x:bytes encoding=fixed length=0") == b""
        assert c.decode(b"", "x:bytes encoding=fixed length=0") == (b"",)
    schema = "a:int64, x:bytes encoding=fixed length=0, b:int64"
    assert CODEC.encode((5, b"", 6), schema) == hx("8586")
    assert CODEC.decode(hx("8586"), schema) == (5, b"", 6)
    assert CODEC.decode(hx("85"), schema) == (5, b"", None)
    assert CODEC.field_offsets(hx("85"), schema) == (0, 1, 1, 1)


VARBYTES: list[tuple[Any, tuple[str, str, str, str]]] = [
    (None, ("", "00", "ff", "")),
    (b"", ("11", "11", "ee", "ee")),
    (b"\x00", ("3331", "3331", "ccce", "ccce")),
    (b"\x01", ("3341", "3341", "ccbe", "ccbe")),
    (b"\x3a", ("39e1", "39e1", "c61e", "c61e")),
    (b"\xff", ("5991", "5991", "a66e", "a66e")),
    (b"\x01\x00", ("334333", "33433311", "ccbcccee", "ccbccc")),
    (b"\x01\x02\x03", ("3343353361", "3343353361", "ccbccacc9e", "ccbccacc9e")),
    (b"\x80\x7f", ("45e45c", "45e45c11", "ba1ba3ee", "ba1ba3")),
]


@pytest.mark.parametrize(("value", "row"), rows(VARBYTES))
def test_variable_bytes(value: Any, row: tuple[str, str, str, str]) -> None:
    check_termination_row("bytes", "", value, row)


def test_variable_bytes_with_raw_prefix() -> None:
    row = ("abcd334335", "abcd33433511", "5432ccbccaee", "5432ccbcca")
    check_termination_row("bytes", "prefix_length=2", b"\xab\xcd\x01\x02", row)
    # the prefix alone: an empty array after it, always 11
    check_termination_row("bytes", "prefix_length=2", b"\xab\xcd",
                          ("abcd11", "abcd11", "5432ee", "5432ee"))


def test_variable_bytes_decode_example() -> None:
    # §10.2: asc 45e45c11 -> 80 7f, 4 bytes consumed
    assert CODEC.decode(hx("45e45c11"), "x:bytes") == (b"\x80\x7f",)
    assert CODEC.skip(hx("45e45c11"), "x:bytes", 0, 0) == 4


def test_variable_bytes_explicit_null_decodes_as_none() -> None:
    # varbytes-null-java-undecodable: Java writes 00 / ff and then cannot read it
    schema = "a:bytes, b:int64"
    assert CODEC.encode((None, 5), schema) == hx("0085")
    assert CODEC.decode(hx("0085"), schema) == (None, 5)
    assert CODEC.field_offsets(hx("0085"), schema) == (0, 1, 2)
    assert CODEC.encode((None, 5), "a:bytes desc, b:int64") == hx("ff85")
    assert CODEC.decode(hx("ff85"), "a:bytes desc, b:int64") == (None, 5)
    assert codec("desc").decode(hx("ff7a"), schema) == (None, 5)
    assert codec("asc", MUST).decode(hx("00"), "a:bytes") == (None,)
    assert CODEC.decode(hx("00"), "a:bytes") == (None,)


# -- §11.5 structs ---------------------------------------------------------------------------

STRUCT1 = "a:int64, b:string, c:float32"
STRUCT1_ROWS: list[tuple[tuple[Any, ...], tuple[str, str, str, str]]] = [
    # (values, (asc AUTO/SHOULD_NOT, asc MUST, desc AUTO/MUST, desc SHOULD_NOT))
    ((1, "ab", Float32(1.0)), ("81 636401 bf800001", "81 636401 bf800001",
                               "7e 9c9bfe 407ffffe", "7e 9c9bfe 407ffffe")),
    ((1, "ab", None), ("81 6364", "81 636401 00000000", "7e 9c9bfe ffffffff", "7e 9c9b")),
    ((1, None, None), ("81", "81 00 00000000", "7e ff ffffffff", "7e")),
    ((None, None, None), ("", "00 00 00000000", "ff ff ffffffff", "")),
    ((-1, "", None), ("7f 01", "7f 01 00000000", "80 fe ffffffff", "80 fe")),
    ((None, "ab", None), ("00 6364", "00 636401 00000000", "ff 9c9bfe ffffffff", "ff 9c9b")),
]

STRUCT2 = "s:string desc, i:int32"
STRUCT2_ROWS: list[tuple[tuple[Any, ...], dict[tuple[str, str], str]]] = [
    (("ab", 5), {("asc", AUTO): "9c9bfe 85", ("asc", MUST): "9c9bfe 85",
                 ("asc", SHOULD_NOT): "9c9bfe 85", ("desc", AUTO): "636401 7a",
                 ("desc", MUST): "636401 7a", ("desc", SHOULD_NOT): "636401 7a"}),
    (("ab", None), {("asc", AUTO): "9c9bfe", ("asc", MUST): "9c9bfe 00",
                    ("asc", SHOULD_NOT): "9c9b", ("desc", AUTO): "636401 ff",
                    ("desc", MUST): "636401 ff", ("desc", SHOULD_NOT): "6364"}),
]


def check_struct(schema: str, values: tuple[Any, ...], by_setting: dict[tuple[str, str], str]
                 ) -> None:
    types = KeySchema.parse(schema).types
    for (order, term), want in by_setting.items():
        c = codec(order, term)
        key = hx(want)
        assert c.encode(values, schema) == key, f"struct {order} {term}"
        for reader_term in TERMINATIONS:  # decoding does not depend on termination
            got = codec(order, reader_term).decode(key, schema)
            for t, g, w in zip(types, got, values):
                assert_same(t, g, w)
        lengths = c.field_lengths(values, schema)
        assert sum(lengths) == len(key) == c.serialized_length(values, schema)
        assert c.field_offsets(key, schema) == tuple(itertools.accumulate(lengths, initial=0))


@pytest.mark.parametrize(("values", "row"),
                         [pytest.param(v, r, id=repr(v)) for v, r in STRUCT1_ROWS])
def test_struct_examples(values: tuple[Any, ...], row: tuple[str, str, str, str]) -> None:
    asc_open, asc_must, desc_closed, desc_open = row
    check_struct(STRUCT1, values, {
        ("asc", AUTO): asc_open, ("asc", SHOULD_NOT): asc_open, ("asc", MUST): asc_must,
        ("desc", AUTO): desc_closed, ("desc", MUST): desc_closed,
        ("desc", SHOULD_NOT): desc_open})


@pytest.mark.parametrize(("values", "row"),
                         [pytest.param(v, r, id=repr(v)) for v, r in STRUCT2_ROWS])
def test_struct_with_a_descending_field(values: tuple[Any, ...],
                                        row: dict[tuple[str, str], str]) -> None:
    check_struct(STRUCT2, values, row)


# -- §12 lengths and skip --------------------------------------------------------------------


@pytest.mark.parametrize(("schema", "value", "auto_len", "must_len"), [
    ("x:string", "ab", 2, 3),
    ("x:decimal", D("1234"), 3, 4),
    ("x:bytes", b"\x01\x00", 3, 4),
    ("x:float32", None, 0, 4),
])
def test_serialized_length_examples(schema: str, value: Any, auto_len: int, must_len: int
                                    ) -> None:
    assert codec("asc", AUTO).serialized_length((value,), schema) == auto_len
    assert codec("asc", MUST).serialized_length((value,), schema) == must_len
    assert codec("asc", AUTO).field_lengths((value,), schema) == (auto_len,)


def test_struct_length_example() -> None:
    # [1, "ab", NULL] asc AUTO -> 3 bytes (1 + 2 + 0)
    assert CODEC.field_lengths((1, "ab", None), STRUCT1) == (1, 2, 0)
    assert CODEC.serialized_length((1, "ab", None), STRUCT1) == 3
    assert CODEC.bind(STRUCT1).serialized_length((1, "ab", None)) == 3


def test_skip_walk_through() -> None:
    # §11.5: field offsets 0, 1, 4, end 8 in 81636401bf800001
    key = hx("81636401bf800001")
    assert CODEC.skip(key, STRUCT1, 0, 0) == 1
    assert CODEC.skip(key, STRUCT1, 1, 1) == 4
    assert CODEC.skip(key, STRUCT1, 2, 4) == 8
    assert CODEC.field_offsets(key, STRUCT1) == (0, 1, 4, 8)
    bound = CODEC.bind(STRUCT1)
    assert isinstance(bound, BoundOrderly)
    assert bound.field_offsets(key) == (0, 1, 4, 8)
    assert [bound.skip(key, i, o) for i, o in enumerate((0, 1, 4))] == [1, 4, 8]
    # bytes-like keys
    assert CODEC.skip(bytearray(key), STRUCT1, 1, 1) == 4  # type: ignore[arg-type]
    assert CODEC.skip(memoryview(key), STRUCT1, 1, 1) == 4  # type: ignore[arg-type]


NULLABLE_FIELDS = ["int64", "int32", "uint32", "uint64", "float32", "float64", "decimal",
                   "string", "bytes", "int32 reserved_bits=2 reserved_value=1"]
NOT_NULLABLE_FIELDS = ["int32 encoding=fixed", "int64 encoding=fixed", "uint32 encoding=fixed",
                       "uint64 encoding=fixed", "bytes encoding=fixed length=2",
                       "bytes prefix_length=1"]


@pytest.mark.parametrize("field", NULLABLE_FIELDS)
@pytest.mark.parametrize("desc", [False, True], ids=["asc", "desc"])
def test_skip_at_the_end_of_the_key_for_nullable_fields(field: str, desc: bool) -> None:
    ftype, _, opts = field.partition(" ")
    schema = f"a:int64, {schema_text(ftype, desc, opts)}"
    for c in (codec("asc"), codec("desc"), codec("asc", MUST)):
        key = c.encode((1, None), schema)
        assert c.skip(key, schema, 1, len(key)) == len(key)
        assert c.skip(b"", schema, 1, 0) == 0
        assert c.skip(b"", schema, 0, 0) == 0


@pytest.mark.parametrize("field", NOT_NULLABLE_FIELDS)
def test_skip_at_the_end_of_the_key_for_fields_without_null(field: str) -> None:
    ftype, _, opts = field.partition(" ")
    schema = f"a:int64, {schema_text(ftype, False, opts)}"
    with pytest.raises(DecodeError) as info:
        CODEC.skip(hx("81"), schema, 1, 1)
    assert info.value.codec == "orderly"
    assert info.value.offset == 1
    assert info.value.field == 1
    with pytest.raises(DecodeError):
        CODEC.decode(hx("81"), schema)


@pytest.mark.parametrize(("schema", "key", "field", "offset", "error_at"), [
    pytest.param("x:int64", "c0", 0, 0, 1, id="int64 truncated"),
    pytest.param("x:int64", "01", 0, 0, 0, id="int64 length 10 header"),
    pytest.param("x:int32", "f8 0000000000", 0, 0, 0, id="int32 length 6 header"),
    pytest.param("a:string, x:uint32", "6301 e1000000", 1, 2, 6, id="uint32 truncated"),
    pytest.param("x:int32 encoding=fixed", "8000", 0, 0, 2, id="fixed int32 truncated"),
    pytest.param("x:float64", "bff0", 0, 0, 2, id="float64 truncated"),
    pytest.param("x:float32 desc", "40", 0, 0, 1, id="float32 truncated"),
    pytest.param("x:bytes encoding=fixed length=3", "0011", 0, 0, 2, id="fixed bytes short"),
    pytest.param("x:bytes prefix_length=2", "ab", 0, 0, 1, id="raw prefix truncated"),
    pytest.param("x:bytes prefix_length=2", "abcd", 0, 0, 2, id="nothing after the prefix"),
    pytest.param("x:decimal", "fc7fff", 0, 0, 3, id="decimal exponent truncated"),
    pytest.param("x:decimal", "fe 0000000000 20", 0, 0, 0, id="decimal exponent of 6 bytes"),
])
def test_skip_refuses_structural_problems(schema: str, key: str, field: int, offset: int,
                                          error_at: int) -> None:
    with pytest.raises(DecodeError) as info:
        CODEC.skip(hx(key), schema, field, offset)
    assert info.value.codec == "orderly"
    assert info.value.field == field
    assert info.value.offset == error_at
    with pytest.raises(DecodeError):
        CODEC.field_offsets(hx(key), schema)


@pytest.mark.parametrize(("schema", "key", "end"), [
    pytest.param("x:int32", "f100000000", 5, id="int32 out of range"),
    pytest.param("x:int64", "c005", 2, id="non-minimal int64"),
    pytest.param("x:int64", "07 8000000000000000", 9, id="9-byte header bits 11"),
    pytest.param("x:string", "63ff01", 3, id="invalid UTF-8"),
    pytest.param("x:float64", "fff0000000000002", 8, id="non-canonical NaN"),
    pytest.param("x:decimal", "e012", 2, id="decimal leading zero digit"),
    pytest.param("x:bytes", "59a1", 2, id="bytes group above 255"),
])
def test_skip_leaves_content_checks_to_decode(schema: str, key: str, end: int) -> None:
    assert CODEC.skip(hx(key), schema, 0, 0) == end
    with pytest.raises(DecodeError):
        CODEC.decode(hx(key), schema)


def test_skip_never_builds_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """With every field reader disabled, skip and field_offsets still walk the key."""
    def no_read(self: Any, key: bytes, pos: int) -> Any:
        raise AssertionError("skip built a value")

    classes = [reference_field.FieldCodec, *reference_field.FieldCodec.__subclasses__()]
    for cls in classes:
        monkeypatch.setattr(cls, "read", no_read)
    monkeypatch.setattr(reference_numbers, "read_varint", no_read)
    schema = ("a:int64, b:string, c:float32, d:decimal desc, e:bytes, f:bytes prefix_length=1, "
              "g:int32 encoding=fixed, h:bytes encoding=fixed length=2, i:uint32 desc")
    key = hx("81 636401 bf800001 1fdcff 3341 ab11 80000001 0102 fe")
    c = OrderlyCodec()  # built before Decimal goes: its anomaly witnesses are decimals
    monkeypatch.setattr(decimal, "Decimal", None)  # no decimal is ever built
    assert c.field_offsets(key, schema) == (0, 1, 4, 8, 11, 13, 15, 19, 21, 22)


# -- refusals at bind ------------------------------------------------------------------------


def check_schema_refused(schema: str, field: int, match: str | None = None,
                         c: OrderlyCodec = CODEC) -> None:
    with pytest.raises(SchemaError, match=match) as info:
        c.bind(schema)
    assert info.value.codec == "orderly", str(info.value)
    assert info.value.field == field, str(info.value)
    assert info.value.field_name == KeySchema.parse(schema).fields[field].name
    assert str(info.value).startswith("orderly: field ")
    with pytest.raises(SchemaError):
        c.encode((None,) * len(KeySchema.parse(schema)), schema)


@pytest.mark.parametrize("ftype", ["bool", "int8", "int16", "uint8", "uint16", "int", "uuid",
                                   "timestamp", "duration", "tuple"])
def test_refuses_types_orderly_lacks(ftype: str) -> None:
    check_schema_refused(f"x:{ftype}", 0, "not supported")
    check_schema_refused(f"a:int64, x:{ftype}", 1, "not supported")


@pytest.mark.parametrize(("schema", "field"), [
    # SHOULD_NOT only on the last field
    ("x:string termination=SHOULD_NOT, y:int64", 0),
    ("x:int64, y:string termination=SHOULD_NOT, z:int64", 1),
    # encoding only on ints and bytes
    ("x:string encoding=var", 0), ("x:float64 encoding=fixed", 0),
    ("x:float32 encoding=var", 0), ("a:int64, x:decimal encoding=fixed", 1),
    # fixed bytes need a length; length only with fixed; prefix_length only with var
    ("x:bytes encoding=fixed", 0), ("x:bytes length=3", 0),
    ("x:bytes encoding=var length=3", 0),
    ("x:bytes encoding=fixed length=3 prefix_length=1", 0),
    # length / prefix_length on other types
    ("x:int64 length=8", 0), ("x:int32 encoding=fixed length=4", 0),
    ("x:string prefix_length=1", 0), ("x:decimal length=2", 0),
    # reserved bits only on var ints
    ("x:int64 encoding=fixed reserved_bits=1", 0), ("x:uint32 encoding=fixed reserved_value=0", 0),
    ("x:string reserved_bits=1", 0), ("x:decimal reserved_bits=2", 0),
    ("x:bytes reserved_value=0", 0), ("x:float64 reserved_bits=0", 0),
    # reserved_bits above the type's maximum (§5.6)
    ("x:int64 reserved_bits=3", 0), ("x:int32 reserved_bits=4", 0),
    ("x:uint64 reserved_bits=4", 0), ("a:int64, x:uint32 reserved_bits=5", 1),
    # reserved_value must fit in reserved_bits
    ("x:int32 reserved_bits=2 reserved_value=4", 0), ("x:int64 reserved_value=1", 0),
    ("x:uint32 reserved_bits=4 reserved_value=16", 0),
    # unknown field options
    ("x:int64 foo=1", 0), ("x:int64 terminaton=MUST", 0), ("x:string length_=1", 0),
    # bad option values
    ("x:int64 termination=NEVER", 0), ("x:int64 termination=must", 0),
    ("x:int64 encoding=packed", 0), ("x:bytes encoding=FIXED length=2", 0),
    ("x:bytes encoding=fixed length=-1", 0), ("x:bytes encoding=fixed length=two", 0),
    ("x:bytes prefix_length=-2", 0), ("x:bytes prefix_length=true", 0),
    ("x:int32 reserved_bits=-1", 0), ("x:int32 reserved_bits=true", 0),
    ("x:int32 reserved_bits=1 reserved_value=-1", 0), ("x:int32 termination=1", 0),
])
def test_refused_at_bind(schema: str, field: int) -> None:
    check_schema_refused(schema, field)
    check_schema_refused(schema, field, c=codec("desc", MUST))


@pytest.mark.parametrize(("schema", "field", "struct_order"), [
    # NULL is the lowest value (§14.4): first in an ascending field, last in a descending
    # one; struct_order=desc flips the field, so the place flips too
    ("x:string nulls last", 0, "asc"), ("x:int64 desc nulls first", 0, "asc"),
    ("a:int64, x:decimal nulls last", 1, "asc"), ("x:bytes nulls first", 0, "desc"),
    ("a:int64, x:float32 desc nulls last", 1, "desc"),
])
def test_nulls_placement_refused(schema: str, field: int, struct_order: str) -> None:
    for term in TERMINATIONS:
        check_schema_refused(schema, field, "NULL cannot sort", c=codec(struct_order, term))


def test_nulls_placement_accepted() -> None:
    for schema in ("x:string nulls first", "x:string desc nulls last", "x:string"):
        CODEC.bind(schema)
    for schema in ("x:string nulls last", "x:string desc nulls first", "x:string desc"):
        codec("desc").bind(schema)
    # the natural place is the byte order's: NULL first ascending, last descending
    assert CODEC.encode((None,), "x:string nulls first") < CODEC.encode(("",), "x:string")
    assert codec("desc").encode((None,), "x:string nulls last") > \
        codec("desc").encode(("",), "x:string")


def test_accepted_at_bind() -> None:
    # the counterparts of the refusals: each is fine
    for schema in ("x:int64, y:string termination=SHOULD_NOT", "x:int64 termination=MUST",
                   "x:bytes encoding=fixed length=0", "x:bytes encoding=var prefix_length=0",
                   "x:bytes prefix_length=3", "x:int32 encoding=var reserved_bits=3",
                   "x:uint32 reserved_bits=4 reserved_value=15", "x:int64 reserved_bits=0",
                   "x:uint64 encoding=fixed", "x:decimal desc termination=AUTO"):
        CODEC.bind(schema)


@pytest.mark.parametrize("options", [
    {"struct_order": "descending"}, {"struct_order": "DESC"}, {"struct_order": 1},
    {"struct_termination": "must"}, {"struct_termination": "NONE"},
    {"struct_termination": True}, {"termination": "MUST"}, {"order": "asc"},
])
def test_codec_options_refused(options: dict[str, Any]) -> None:
    with pytest.raises(OptionError) as info:
        OrderlyCodec(**options)
    assert info.value.codec == "orderly"


def test_codec_options_accepted() -> None:
    for order, term in itertools.product(("asc", "desc"), TERMINATIONS):
        c = OrderlyCodec(struct_order=order, struct_termination=term)
        assert c.options == {"struct_order": order, "struct_termination": term}
    assert OrderlyCodec().options == {"struct_order": "asc", "struct_termination": AUTO}


# -- value refusals --------------------------------------------------------------------------

INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1),
              "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1)}


def check_value_refused(schema: str, values: tuple[Any, ...], field: int,
                        kind: type[EncodeError] = EncodeError, value: Any = None,
                        expected: str | None = None, c: OrderlyCodec = CODEC) -> EncodeError:
    with pytest.raises(kind) as info:
        c.encode(values, schema)
    exc = info.value
    assert exc.codec == "orderly", str(exc)
    assert exc.field == field, str(exc)
    assert exc.has_value, str(exc)
    want = values[field] if value is None else value
    assert exc.value is want or exc.value == want, str(exc)
    if expected is not None:
        assert expected in (exc.expected or ""), str(exc)
    # the lengths refuse it the same way
    with pytest.raises(kind):
        c.serialized_length(values, schema)
    return exc


@pytest.mark.parametrize("encoding", ["var", "fixed"])
@pytest.mark.parametrize("ftype", sorted(INT_RANGES))
def test_int_ranges(ftype: str, encoding: str) -> None:
    lo, hi = INT_RANGES[ftype]
    schema = f"a:string, x:{ftype} encoding={encoding}"
    for v in (lo, hi):
        for c in (codec("asc"), codec("desc")):
            assert c.decode(c.encode(("k", v), schema), schema) == ("k", v)
    for v in (lo - 1, hi + 1, lo - 2**70, hi + 2**70):
        exc = check_value_refused(schema, ("k", v), 1, expected=f"{lo}..{hi}")
        assert "out of range" in str(exc)
        assert str(exc).startswith("orderly: field 1 'x' ")


@pytest.mark.parametrize("schema", ["x:int32", "x:int64", "x:uint32 encoding=fixed",
                                    "x:uint64 reserved_bits=1"])
@pytest.mark.parametrize("value", [True, False, 1.0, "1", D(1), b"\x01"],
                         ids=["True", "False", "float", "str", "Decimal", "bytes"])
def test_int_fields_take_only_ints(schema: str, value: Any) -> None:
    check_value_refused(f"a:int64, {schema}", (0, value), 1, UnsupportedTypeError)


@pytest.mark.parametrize(("schema", "value"), [
    ("x:float64", 1), ("x:float64", D("1.5")), ("x:float64", "1.0"), ("x:float64", True),
    ("x:float32", 1), ("x:float32", False), ("x:decimal", 1.5), ("x:decimal", True),
    ("x:decimal", "1"), ("x:string", b"a"), ("x:string", 1), ("x:bytes", "a"),
    ("x:bytes encoding=fixed length=1", "a"), ("x:bytes prefix_length=1", 7),
])
def test_wrong_python_types(schema: str, value: Any) -> None:
    check_value_refused(f"a:int64, {schema}", (0, value), 1, UnsupportedTypeError)


@pytest.mark.parametrize("schema", [
    "x:int32 encoding=fixed", "x:int64 encoding=fixed", "x:uint32 encoding=fixed",
    "x:uint64 encoding=fixed", "x:bytes encoding=fixed length=3",
    "x:bytes encoding=fixed length=0", "x:bytes prefix_length=2", "x:bytes prefix_length=1",
])
def test_none_where_there_is_no_null(schema: str) -> None:
    for c in (codec("asc"), codec("desc", MUST)):
        check_value_refused(f"a:int64, {schema}", (0, None), 1, c=c)
        check_value_refused(schema, (None,), 0, c=c)


@pytest.mark.parametrize(("schema", "value", "expected"), [
    ("x:bytes encoding=fixed length=3", b"ab", "exactly 3 bytes"),
    ("x:bytes encoding=fixed length=3", b"abcd", "exactly 3 bytes"),
    ("x:bytes encoding=fixed length=0", b"a", "exactly 0 bytes"),
    ("x:bytes prefix_length=2", b"a", "at least 2 bytes"),
    ("x:bytes prefix_length=2", b"", "at least 2 bytes"),
])
def test_bytes_length_refusals(schema: str, value: bytes, expected: str) -> None:
    check_value_refused(f"a:int64, {schema}", (0, value), 1, expected=expected)


@pytest.mark.parametrize("value", ["NaN", "-NaN", "sNaN", "Infinity", "-Infinity"])
def test_decimal_nan_and_infinity_refused(value: str) -> None:
    exc = check_value_refused("a:int64, x:decimal", (0, D(value)), 1)
    assert type(exc) is EncodeError


@pytest.mark.parametrize("value", ["1E+2147483649", "-1E+2147483649", "1E-2147483648",
                                   "12E-2147483649", "1E+999999999999", "1E-999999999999"])
def test_decimal_exponent_out_of_range(value: str) -> None:
    check_value_refused("a:int64, x:decimal", (0, D(value)), 1, value=D(value))


def test_decimal_exponent_two_to_the_31_accepted_with_the_quirk() -> None:
    value = D("1E+2147483648")
    assert CODEC.encode((value,), "x:decimal") == hx("c38000000020")
    assert codec("asc", MUST).encode((value,), "x:decimal desc") == hx("3c7fffffffdf")
    (back,) = CODEC.decode(hx("c38000000020"), "x:decimal")
    assert back.as_tuple() == value.as_tuple()
    # the anomaly: it sorts among tiny numbers, below 1
    assert CODEC.encode((value,), "x:decimal") < CODEC.encode((D(1),), "x:decimal")
    # the edges on either side are fine too
    assert CODEC.encode((D("1E-2147483647"),), "x:decimal") == hx("c38000000120")
    assert CODEC.encode((D("1E+2147483647"),), "x:decimal") == hx("fc7fffffff20")


@pytest.mark.parametrize("value", [0.1, 1 / 3, 1e39, -1e39, 1e-46, 16777217.0, 5e-324])
def test_float32_value_not_exactly_representable(value: float) -> None:
    check_value_refused("a:int64, x:float32", (0, value), 1)
    check_value_refused("x:float32 desc", (value,), 0)


@pytest.mark.parametrize(("value", "bad"), [("\ud800", "\ud800"), ("a\udfffb", "\udfff"),
                                            ("\udc00\ud800", "\udc00\ud800")])
def test_lone_surrogates_refused(value: str, bad: str) -> None:
    exc = check_value_refused("a:int64, x:string", (0, value), 1, value=bad)
    assert type(exc) is EncodeError


def test_arity_refused() -> None:
    with pytest.raises(EncodeError) as info:
        CODEC.encode((1,), STRUCT1)
    assert info.value.codec == "orderly"


# -- decoding strictness (§14.6) -------------------------------------------------------------

# (schema, key hex, offset of the DecodeError, field index or None for trailing bytes)
DECODE_ERRORS = [
    # var-int with an illegal length for its type
    ("int64 header 01: length 10", "x:int64", "01 000000000000000000", 0, 0),
    ("int64 header fc: length 10", "x:int64", "fc 000000000000000000", 0, 0),
    ("int64 desc header fe: length 10", "x:int64 desc", "fe", 0, 0),
    ("int32 header 01: length 6", "x:int32", "01 0000000000", 0, 0),
    ("int32 header f8: length 6", "a:string, x:int32", "6301 f8 0000000000", 2, 1),
    ("uint32 header f1: length 6", "x:uint32", "f1 0000000000", 0, 0),
    ("uint64 header f9: length 10", "x:uint64", "f9 000000000000000000", 0, 0),
    # truncated var-int: the offset is the input length
    ("int64 of 2 bytes, 1 given", "x:int64", "c0", 1, 0),
    ("int64 of 9 bytes, 8 given", "x:int64", "f8 00000000000000", 8, 0),
    ("uint32 of 5 bytes, 4 given", "x:uint32", "e1 000000", 4, 0),
    ("int64 truncated in field 1", "a:int64, x:int64", "81 e0", 2, 1),
    # non-minimal var-ints: the field's first byte
    ("int64 5 in 2 bytes", "x:int64", "c005", 0, 0),
    ("int64 0 in 3 bytes", "x:int64", "e00000", 0, 0),
    ("int64 -1 in 2 bytes", "x:int64", "3fff", 0, 0),
    ("int64 0 in 9 bytes", "x:int64", "f8 0000000000000000", 0, 0),
    ("int32 0 in 5 bytes", "x:int32", "f0 00000000", 0, 0),
    ("uint64 0 in 2 bytes", "x:uint64", "8100", 0, 0),
    ("uint32 127 in 2 bytes", "a:string, x:uint32", "6301 817f", 2, 1),
    ("int64 desc 1 in 2 bytes", "x:int64 desc", "3ffe", 0, 0),
    # 9-byte int64: header data bits must be 00 (§5.5)
    ("int64 -2**63 with header bits 11", "x:int64", "07 8000000000000000", 0, 0),
    ("int64 desc -2**63 with header bits 11", "x:int64 desc", "f8 7fffffffffffffff", 0, 0),
    ("int64 2**58 with header bits 01", "x:int64", "f9 0400000000000000", 0, 0),
    # wrong reserved bits
    ("reserved bits 10, field reserves 11", "x:int32 reserved_bits=2 reserved_value=3",
     "a0", 0, 0),
    ("reserved bits 00 on a NULL header", "x:int32 reserved_bits=2 reserved_value=3",
     "00", 0, 0),
    ("desc reserved bits 00", "x:int32 desc reserved_bits=2 reserved_value=3", "1f", 0, 0),
    ("uint32 reserved bits 0000, field reserves 0101",
     "a:int64, x:uint32 reserved_bits=4 reserved_value=5", "81 01", 1, 1),
    # out-of-range int32 / uint32 in the 5-byte form
    ("int32 2**32", "x:int32", "f1 00000000", 0, 0),
    ("int32 2**31", "x:int32", "f0 80000000", 0, 0),
    ("int32 -2**31-1", "x:int32", "0f 7fffffff", 0, 0),
    ("int32 desc 2**31", "x:int32 desc", "0f 7fffffff", 0, 0),
    ("uint32 2**32", "a:int64, x:uint32", "81 e2 00000000", 1, 1),
    # non-canonical NaN bit patterns
    ("float64 NaN 7ff0000000000001", "x:float64", "fff0000000000002", 0, 0),
    ("float64 NaN fff8000000000000", "x:float64", "0008000000000000", 0, 0),
    ("float64 NaN 7ffffffffffffffe", "x:float64", "ffffffffffffffff", 0, 0),
    ("float64 desc NaN 7ff0000000000001", "x:float64 desc", "000ffffffffffffd", 0, 0),
    ("float32 NaN 7fa00000", "a:int64, x:float32", "81 ffa00001", 1, 1),
    ("float32 NaN ffc00000", "x:float32", "00400000", 0, 0),
    ("float32 NaN 7ffffffe", "x:float32", "ffffffff", 0, 0),
    # decimal: type and exponent disagree
    ("decimal NULL type with an exponent", "x:decimal", "2020", 0, 0),
    ("decimal ZERO type with an exponent", "x:decimal", "a020", 0, 0),
    ("decimal POS type with the NULL header", "x:decimal", "c0", 0, 0),
    ("decimal NEG type with the NULL header", "x:decimal", "7f", 0, 0),
    ("decimal desc POS type with the NULL header", "x:decimal desc", "3f", 0, 0),
    ("decimal desc ZERO type with an exponent", "a:int64, x:decimal desc", "81 5fdf", 1, 1),
    # decimal: leading / trailing zero digits are a non-canonical form: the field's first byte
    ("decimal leading zero digit", "x:decimal", "e012", 0, 0),
    ("decimal trailing zero digit in field 1", "a:int64, x:decimal", "81 e02310", 1, 1),
    # decimal: a nibble above 10 (the offending byte)
    ("decimal high nibble b", "x:decimal", "e0b0", 1, 0),
    ("decimal low nibble c", "x:decimal", "e02c", 1, 0),
    ("decimal nibble f in the third byte", "a:int64, x:decimal", "81 e023f0", 3, 1),
    # decimal: no digits
    ("decimal terminator first", "x:decimal", "e000", 1, 0),
    ("decimal digits missing", "x:decimal", "e0", 1, 0),
    # decimal: a digit nibble after a terminator
    ("decimal digit after the terminator", "x:decimal", "e002", 1, 0),
    ("decimal digit after the terminator, later", "a:int64, x:decimal", "81 e02302", 3, 1),
    # decimal exponent: more than 5 bytes, or exp - n + 1 outside -2**31 .. 2**31 - 1
    ("decimal exponent header of 6 bytes", "x:decimal", "fe 0000000000 20", 0, 0),
    ("decimal exponent -2**31-1", "x:decimal", "c3 7fffffff 20", 0, 0),
    ("decimal exp - n + 1 = 2**31 (never written)", "x:decimal", "fc 80000000 20", 0, 0),
    ("decimal exp - n + 1 = 2**31 with 2 digits", "a:int64, x:decimal",
     "81 fc 80000001 23", 1, 1),
    # variable bytes: bad nibbles (the byte holding it)
    ("bytes nibble 8", "a:int64, b:bytes", "81 3831", 1, 1),
    ("bytes nibble 2 (filler)", "a:int64, b:bytes", "81 3321", 2, 1),
    ("bytes nibble b", "x:bytes", "33b1", 1, 0),
    ("bytes nibble d", "x:bytes", "d331", 0, 0),
    ("bytes nibble 0", "x:bytes", "3031", 0, 0),
    # variable bytes: digit counts not a multiple of 3, groups above 255
    ("bytes 2 digits, unterminated", "a:int64, b:bytes", "81 33", 1, 1),
    ("bytes 2 digits, terminated", "a:int64, b:bytes", "81 3311", 1, 1),
    ("bytes 5 digits", "x:bytes", "333341", 0, 0),
    ("bytes group 256", "a:int64, b:bytes", "81 59a1", 1, 1),
    ("bytes group 999", "x:bytes", "fff1", 0, 0),
    # variable bytes: digits after the terminator nibble
    ("bytes digit after terminator in a high nibble", "x:bytes", "13", 0, 0),
    ("bytes digit after terminator, later", "a:int64, b:bytes", "81 3313", 2, 1),
    # invalid UTF-8 is a value-level problem: the field's first byte
    ("string ff", "x:string", "ff", 0, 0),
    ("string lone lead byte", "a:int64, s:string", "81 c5", 1, 1),
    ("string bad byte after a good one", "a:int64, s:string", "81 63ff01", 1, 1),
    ("string masked 00 inside", "x:string", "6300", 0, 0),
    ("string desc invalid", "x:string desc", "02fe", 0, 0),
    # bytes left after the last field: the first unused byte, no field
    ("int64 then a byte", "x:int64", "8080", 1, None),
    ("string terminated then more", "x:string", "630163", 2, None),
    ("decimal then a byte", "x:decimal", "e02000", 2, None),
    ("float32 then a byte", "x:float32", "bf80000100", 4, None),
    ("empty bytes then more", "x:bytes", "113331", 1, None),
    ("fixed bytes then more", "x:bytes encoding=fixed length=1", "0102", 1, None),
    ("struct then a byte", STRUCT1, "81636401bf80000100", 8, None),
    # truncated fixed-width fields: the input length
    ("fixed int32 of 3 bytes", "x:int32 encoding=fixed", "800000", 3, 0),
    ("fixed uint64 empty", "x:uint64 encoding=fixed", "", 0, 0),
    ("fixed int32 after a string", "a:string, b:int32 encoding=fixed", "6301", 2, 1),
    ("fixed bytes 2 of 3", "x:bytes encoding=fixed length=3", "0011", 2, 0),
    ("fixed bytes missing", "a:int64, b:bytes encoding=fixed length=2", "81", 1, 1),
    ("float64 of 2 bytes", "x:float64", "bff0", 2, 0),
    ("float32 of 3 bytes", "x:float32", "bf8000", 3, 0),
    ("raw prefix truncated", "x:bytes prefix_length=2", "ab", 1, 0),
    ("nothing after the raw prefix", "x:bytes prefix_length=2", "abcd", 2, 0),
]


@pytest.mark.parametrize(("schema", "key", "offset", "field"),
                         [pytest.param(*r[1:], id=r[0]) for r in DECODE_ERRORS])
def test_decode_refuses(schema: str, key: str, offset: int, field: int | None) -> None:
    data = hx(key)
    for c in (codec("asc", AUTO), codec("asc", MUST), codec("asc", SHOULD_NOT)):
        with pytest.raises(DecodeError) as info:
            c.decode(data, schema)
        exc = info.value
        assert exc.codec == "orderly", str(exc)
        assert exc.field == field, str(exc)
        assert exc.offset == offset, str(exc)
    # every field flipped, in a descending struct: the same effective orders, the same error
    flipped = KeySchema(tuple(Field(f.name, f.type, not f.descending, None, f.options)
                              for f in KeySchema.parse(schema).fields))
    with pytest.raises(DecodeError) as info:
        codec("desc").decode(data, flipped)
    assert info.value.offset == offset
    assert info.value.field == field


def test_decode_takes_only_bytes_like_keys() -> None:
    with pytest.raises(UnsupportedTypeError):
        CODEC.decode("81", "x:int64")  # type: ignore[arg-type]
    assert CODEC.decode(bytearray(b"\x81"), "x:int64") == (1,)  # type: ignore[arg-type]
    assert CODEC.decode(memoryview(b"\x81"), "x:int64") == (1,)  # type: ignore[arg-type]


# -- fuzzing ---------------------------------------------------------------------------------

FUZZ_SCHEMAS = [
    STRUCT1,
    STRUCT2,
    "d:decimal, x:uint64",
    "d:decimal desc, s:string desc",
    "b:bytes, n:int64 desc",
    "p:bytes prefix_length=2, f:float64 desc",
    "i:int32 encoding=fixed, u:uint32 reserved_bits=2 reserved_value=1, "
    "y:bytes encoding=fixed length=2",
    "x:int64 encoding=fixed, y:float64, z:string desc, w:bytes encoding=fixed length=3",
    "u:uint32, l:uint64 encoding=fixed desc, s:string termination=SHOULD_NOT",
    "a:int32 desc, b:int64 reserved_bits=2 reserved_value=2, c:bytes desc",
]
OPTION_SETS = [(o, t) for o in ("asc", "desc") for t in TERMINATIONS]


def _overrides(schema: KeySchema) -> dict[str, st.SearchStrategy[Any]]:
    """Values narrower than the field's type: fixed and raw-prefix byte arrays."""
    out = {}
    for f in schema.fields:
        if f.type == "bytes" and "length" in f.options:
            n = int(f.options["length"])
            out[f.name] = st.binary(min_size=n, max_size=n)
        elif f.type == "bytes" and "prefix_length" in f.options:
            out[f.name] = st.binary(min_size=int(f.options["prefix_length"]), max_size=10)
    return out


def check_acceptance(c: OrderlyCodec, schema: KeySchema, key: bytes, values: tuple[Any, ...]
                     ) -> None:
    """§14.6's acceptance rule: each field's bytes are what the encoder writes for the
    decoded value, terminated, or unterminated when the field ends the key."""
    offsets = c.field_offsets(key, schema)
    assert offsets[0] == 0
    assert offsets[-1] == len(key)
    order = c.options["struct_order"]
    for i, f in enumerate(schema.fields):
        alone = KeySchema((Field(f.name, f.type, f.descending, None,
                                 {k: v for k, v in f.options.items() if k != "termination"}),))
        seg = key[offsets[i]:offsets[i + 1]]
        closed = codec(order, MUST).encode((values[i],), alone)
        opened = codec(order, SHOULD_NOT).encode((values[i],), alone)
        assert seg == closed or (offsets[i + 1] == len(key) and seg == opened), \
            f"field {i}: {seg.hex()} read as {values[i]!r}, written {closed.hex()} / " \
            f"{opened.hex()}"


def attempt(call: Callable[[], Any]) -> tuple[Any, DecodeError | None]:
    """(result, None) or (None, the DecodeError); any other exception propagates."""
    try:
        return call(), None
    except DecodeError as exc:
        return None, exc


def check_decodes_or_refuses(c: OrderlyCodec, schema: KeySchema, key: bytes) -> None:
    values, error = attempt(lambda: c.decode(key, schema))
    if error is not None:
        assert error.codec == "orderly", str(error)
        assert error.offset is not None, str(error)
        assert 0 <= error.offset <= len(key), str(error)
    else:
        assert len(values) == len(schema)
        check_acceptance(c, schema, key, values)
    offsets, error = attempt(lambda: c.field_offsets(key, schema))
    if error is not None:
        assert error.codec == "orderly", str(error)
    else:
        assert list(offsets) == sorted(offsets)
        assert offsets[-1] <= len(key)


@pytest.mark.parametrize("text", FUZZ_SCHEMAS)
@given(data=st.data())
def test_fuzz_arbitrary_and_mutated_keys(text: str, data: st.DataObject) -> None:
    """Arbitrary bytes, and valid keys truncated / flipped / spliced: a refusal names the
    codec and an offset within the key, and what decodes obeys the acceptance rule, under
    both struct orders. (That nothing but a DecodeError escapes, §14.6, is the harness's
    ``decode_junk`` check, on both implementations.)"""
    schema = KeySchema.parse(text)
    order, term = data.draw(st.sampled_from(OPTION_SETS), label="options")
    c = codec(order, term)
    bound = c.bind(schema)
    key = data.draw(junk_keys(schema, c.capabilities, bound.encode, _overrides(schema),
                              nullable=bound.nullable), label="key")
    check_decodes_or_refuses(c, schema, key)
    # the same bytes under the other struct order
    check_decodes_or_refuses(codec("desc" if order == "asc" else "asc", term), schema, key)


@pytest.mark.parametrize("text", FUZZ_SCHEMAS)
@given(data=st.data())
def test_fuzz_round_trip(text: str, data: st.DataObject) -> None:
    """Random values: decode(encode(v)) == v under every termination, the lengths agree,
    and the key obeys the acceptance rule field by field."""
    schema = KeySchema.parse(text)
    order, term = data.draw(st.sampled_from(OPTION_SETS), label="options")
    c = codec(order, term)
    bound = c.bind(schema)
    values = data.draw(keys(schema, c.capabilities, _overrides(schema),
                            nullable=bound.nullable), label="values")
    key = c.encode(values, schema)
    assert c.serialized_length(values, schema) == len(key)
    lengths = c.field_lengths(values, schema)
    assert c.field_offsets(key, schema) == tuple(itertools.accumulate(lengths, initial=0))
    for reader in TERMINATIONS:
        got = codec(order, reader).decode(key, schema)
        for f, g, w in zip(schema.fields, got, values):
            assert_same(f.type, g, w)
    check_acceptance(c, schema, key, values)

