"""Tests of the ``memcomparable`` codec (spec ``memcomparable.md``, crate 0.2.0).

* the spec's tables (§2-§6) as (schema, values, bytes) cases, both ways, and what decoding
  gives where it normalises (-0.0, NaN, a decimal's scale);
* refusals: each a typed error naming the codec, the field, the value and the reason;
* decoding: the crate's errors and panics as DecodeError with an offset, the lenient
  readings the crate takes, linear work on long keys (counted, not timed);
* the schema rules (field options, no schemaless decode), ``inspect``, the columnar pieces.

The vectors are ``test_memcomparable_vectors.py``'s, the conformance harness
``test_memcomparable_conformance.py``'s and the compiled-vs-reference comparison
``test_memcomparable_differential.py``'s. Every test here runs on both implementations.
"""

from __future__ import annotations

import decimal
import math
import struct
from typing import Any

import pytest
from work import assert_linear, measure

from lexcodecs import get_codec
from lexcodecs.codecs.memcomparable import MemcomparableCodec
from lexcodecs.errors import (
    DecodeError,
    EncodeError,
    NotDecodableError,
    SchemaError,
    UnsupportedTypeError,
)
from lexcodecs.testing.model import identical
from lexcodecs.types import Float32, Some

pytestmark = pytest.mark.usefixtures("impl")

CODEC = MemcomparableCodec()
D = decimal.Decimal

# -- the spec's tables -------------------------------------------------------------------------

#: (schema, value, key): spec §2-§6, both ways (decode gives the value back)
SPEC: list[tuple[str, Any, str]] = [
    ("bool", False, "00"), ("bool", True, "01"),
    ("uint16", 1, "0001"), ("int8", -128, "00"), ("int8", -1, "7f"), ("int8", 0, "80"),
    ("int8", 127, "ff"), ("int64", 0, "8000000000000000"),
    ("int128", -1, "7f" + "ff" * 15), ("uint128", 2**128 - 1, "ff" * 16),
    ("float64", 0.0, "8000000000000000"), ("float64", 1.0, "bff0000000000000"),
    ("float64", -1.0, "400fffffffffffff"), ("float64", math.inf, "fff0000000000000"),
    ("float64", -math.inf, "000fffffffffffff"), ("float64", 5e-324, "8000000000000001"),
    ("float32", Float32(-math.inf), "007fffff"), ("float32", Float32(math.inf), "ff800000"),
    ("char", "G", "00000047"), ("char", "\u20ac", "000020ac"), ("variant", 1, "01"),
    ("string", "", "00"), ("string", "123", "01313233000000000003"),
    ("string", "12345678", "01313233343536373808"),
    ("string", "1234567890", "01313233343536373809393000000000000002"),
    ("bytes", b"\x00", "01000000000000000001"),
    ("bytes", b"\xff" * 9, "01ffffffffffffffff09ff0000000000000001"),
    ("bytes repr=seq", b"\x01\x02\x03", "01010102010300"),
    ("uint8 nullable=true", None, "00"), ("uint8 nullable=true", 0x12, "0112"),
    ("int32 nullable=2", None, "00"), ("int32 nullable=2", Some(None), "0100"),
    ("int32 nullable=2", 7, "010180000007"),
    ("decimal", D("1"), "1802"), ("decimal", D("10"), "1814"),
    ("decimal", D("99.01"), "18c702"), ("decimal", D("100"), "1902"),
    ("decimal", D("111.11"), "19031716"), ("decimal", D("12.345"), "18194564"),
    ("decimal", D("0.05"), "170a"), ("decimal", D("0.00123"), "16fe193c"),
    ("decimal", D("-12.345"), "12e6ba9b"), ("decimal", D("-0.001"), "1401eb"),
    ("decimal", D(10**20), "220b02"), ("decimal", D(-(10**20)), "08f4fd"),
    ("decimal", D("1E-28"), "16f202"), ("decimal", D("-1E-28"), "140dfd"),
    ("decimal", D("NaN"), "24"), ("decimal", D("Infinity"), "23"),
    ("decimal", D("-Infinity"), "07"), ("decimal", D(0), "15"),
    # §6: descending, every byte inverted (tags too)
    ("int32 desc", 1, "7ffffffe"), ("string desc", "abc", "fe9e9d9cfffffffffffc"),
    ("int64 desc nullable=true", None, "ff"), ("string desc nullable=true", "", "feff"),
    ("decimal desc", D(1), "e7fd"),
]

#: (schema, value written, key, value read back): the crate's normalisations
NORMALISED: list[tuple[str, Any, str, Any]] = [
    ("float64", -0.0, "8000000000000000", 0.0),
    ("float32", Float32(-0.0), "80000000", Float32(0.0)),
    ("decimal", D("1.0"), "1802", D("1")), ("decimal", D("1.50"), "180364", D("1.5")),
    ("decimal", D("100.00"), "1902", D("100")), ("decimal", D("0.000"), "15", D("0")),
    ("decimal", D("-0"), "15", D("0")),
]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, decimal.Decimal):
        return type(b) is decimal.Decimal and str(a) == str(b)
    return identical((a,), (b,))


@pytest.mark.parametrize(("schema", "value", "key"), SPEC,
                         ids=[f"{s}={v!r}" for s, v, _ in SPEC])
def test_spec_table_both_ways(schema: str, value: Any, key: str) -> None:
    text = f"v:{schema}"
    assert CODEC.encode((value,), text).hex() == key
    back = CODEC.decode(bytes.fromhex(key), text)
    assert _same(value, back[0]), back


@pytest.mark.parametrize(("schema", "value", "key", "back"), NORMALISED,
                         ids=[f"{s}={v!r}" for s, v, _, _ in NORMALISED])
def test_normalised_values(schema: str, value: Any, key: str, back: Any) -> None:
    assert CODEC.encode((value,), f"v:{schema}").hex() == key
    assert _same(back, CODEC.decode(bytes.fromhex(key), f"v:{schema}")[0])


@pytest.mark.parametrize("bits", [0x7FF8000000000000, 0x7FF0000000000001, 0xFFFFFFFFFFFFFFFF])
def test_every_nan_is_the_canonical_nan(bits: int) -> None:
    nan = struct.unpack(">d", bits.to_bytes(8, "big"))[0]
    assert CODEC.encode((nan,), "v:float64").hex() == "fff8000000000000"
    back = CODEC.decode(bytes.fromhex("fff8000000000000"), "v:float64")[0]
    assert math.isnan(back)
    assert back.hex() == "nan"
    assert CODEC.encode((Float32.from_bits(0x7FA00000),), "v:float32").hex() == "ffc00000"


def test_a_key_is_its_fields_back_to_back() -> None:
    # the crate's test_tuple: (i8, i16, i32, i64, i128)
    schema = "a:int8, b:int16, c:int32, d:int64, e:int128"
    values = (0x12, 0x1234, 0x12345678, 0x1234567887654321,
              0x0123456789ABCDEFFEDCBA9876543210)
    key = ("92" "9234" "92345678" "9234567887654321" "8123456789abcdeffedcba9876543210")
    assert CODEC.encode(values, schema).hex() == key
    assert CODEC.decode(bytes.fromhex(key), schema) == values


# -- refusals -----------------------------------------------------------------------------------

#: (schema, value, error class, words in the reason)
REFUSED: list[tuple[str, Any, type[Exception], str]] = [
    ("int8", 128, EncodeError, "out of range"), ("uint64", -1, EncodeError, "out of range"),
    ("int128", 2**127, EncodeError, "out of range"), ("int32", True, UnsupportedTypeError,
                                                       "bool"),
    ("int32", 1.0, UnsupportedTypeError, "float"), ("bool", 1, UnsupportedTypeError, "bool"),
    ("variant", 256, EncodeError, "too many variants"),
    ("variant", -1, EncodeError, "not negative"),
    ("char", "ab", EncodeError, "Rust char"), ("char", "\ud800", EncodeError, "Rust char"),
    ("string", "\ud800", EncodeError, "surrogate"), ("string", b"x", UnsupportedTypeError,
                                                     "string field"),
    ("float32", 0.1, EncodeError, "binary32"), ("float64", 1, UnsupportedTypeError, "float"),
    ("decimal", D("79228162514264337593543950336"), EncodeError, "rust_decimal"),
    ("decimal", D("1.00000000000000000000000000001"), EncodeError, "rust_decimal"),
    ("decimal", D("1E+30"), EncodeError, "rust_decimal"),
    ("decimal", D("sNaN"), EncodeError, "NaN"), ("decimal", D("NaN5"), EncodeError, "NaN"),
    ("decimal", 1.5, UnsupportedTypeError, "decimal"),
    ("int32", None, EncodeError, "NULL"), ("int32 nullable=true", Some(None), EncodeError,
                                           "Option layers"),
    ("int32 nullable=2", Some(5), UnsupportedTypeError, "Some wraps only None"),
]


@pytest.mark.parametrize(("schema", "value", "error", "words"), REFUSED,
                         ids=[f"{s}={v!r}" for s, v, _, _ in REFUSED])
def test_refusals_name_codec_field_value_reason(schema: str, value: Any,
                                                error: type[Exception], words: str) -> None:
    with pytest.raises(error) as info:
        CODEC.encode(("ok", value), f"s:string, v:{schema}")
    exc = info.value
    assert exc.codec == "memcomparable"  # type: ignore[attr-defined]
    assert exc.field == 1
    assert exc.field_name == "v"
    assert exc.has_value  # type: ignore[attr-defined]
    assert words in str(exc), str(exc)


def test_the_largest_rust_decimals_are_written() -> None:
    top = D(2**96 - 1)
    key = CODEC.encode((top,), "v:decimal")
    assert key.hex().startswith("220f0fb9")
    assert CODEC.decode(key, "v:decimal") == (top,)
    tiny = D("-0.0000000000000000000000000001")
    assert CODEC.decode(CODEC.encode((tiny,), "v:decimal"), "v:decimal") == (tiny,)


def test_schema_rules() -> None:
    with pytest.raises(NotDecodableError):
        CODEC.decode(b"\x00")
    with pytest.raises(SchemaError):
        CODEC.encode((1,))
    with pytest.raises(SchemaError, match="repr"):
        CODEC.bind("v:string repr=seq")
    with pytest.raises(SchemaError, match="nullable"):
        CODEC.bind("v:int32 nullable=3")
    with pytest.raises(SchemaError):
        CODEC.bind("v:uuid")
    assert CODEC.bind("a:int32 nullable=true, b:int32, c:string nullable=2").nullable == \
        (True, False, True)
    assert get_codec("memcomparable") == CODEC


# -- decoding -----------------------------------------------------------------------------------

#: (schema, key, offset, words): the crate's errors, and its panics on truncated keys
BAD_KEYS: list[tuple[str, str, int, str]] = [
    ("bool", "02", 0, "invalid bool encoding: 2"),
    ("string", "02", 0, "invalid bytes encoding: 2"),
    ("string", "01000000000000000a", 9, "truncated"),
    ("string", "0100000000000000000a", 9, "invalid bytes encoding: 10"),
    ("bytes repr=seq", "010102", 2, "invalid sequence encoding: 2"),
    ("int32 nullable=true", "0200000000", 0, "invalid tag encoding: 2"),
    ("uint32 desc nullable=true", "0a", 0, "invalid tag encoding: 245"),
    ("char", "0000d800", 0, "invalid char encoding: 55296"),
    ("decimal", "25", 0, "invalid decimal encoding: 37"),
    ("decimal", "18", 1, "truncated"), ("int64", "", 0, "truncated"),
    ("uint8", "0000", 1, "trailing characters"),
    ("string", "01c328000000000000000002", 9, "invalid bytes encoding: 0"),
    ("string", "01c32800000000000002", 0, "invalid UTF8"),
]


@pytest.mark.parametrize(("schema", "key", "offset", "words"), BAD_KEYS,
                         ids=[f"{s}:{k}" for s, k, _, _ in BAD_KEYS])
def test_bad_keys_are_decode_errors(schema: str, key: str, offset: int, words: str) -> None:
    with pytest.raises(DecodeError) as info:
        CODEC.decode(bytes.fromhex(key), f"v:{schema}")
    assert info.value.codec == "memcomparable"
    assert info.value.offset == offset, str(info.value)
    assert words in str(info.value)


def test_lenient_readings_follow_the_crate() -> None:
    # the crate's deserialize_decimal: a "digit" up to 127, non-minimal digits, and the
    # wrapping arithmetic of a long mantissa
    assert CODEC.decode(bytes.fromhex("1201"), "v:decimal") == (D(-127),)
    assert CODEC.decode(bytes.fromhex("210114"), "v:decimal") == (D(10**17),)
    assert str(CODEC.decode(bytes.fromhex("1700"), "v:decimal")[0]) == "0.0"
    with pytest.raises(DecodeError, match="rust_decimal"):
        CODEC.decode(bytes.fromhex("22" "7f" + "c7" * 20 + "c6"), "v:decimal")
    # padding after the last real byte is not looked at
    assert CODEC.decode(bytes.fromhex("0161626364656667e107"), "v:string") == ("abcdefg",)


#: schema -> (head, repeated body, tail) of a long key
LONG_KEYS: dict[str, tuple[str, str, str]] = {
    "string": ("01", "616161616161616109", "616100000000000002"),
    "bytes repr=seq": ("", "0161", "00"),
    "decimal": ("227f", "c7", "c6"),  # a mantissa far past rust_decimal: refused
}


@pytest.mark.parametrize("schema", list(LONG_KEYS))
def test_decoding_is_linear(schema: str) -> None:
    head, body, tail = LONG_KEYS[schema]
    small = bytes.fromhex(head + body * 2000 + tail)
    big = bytes.fromhex(head + body * 20000 + tail)
    _, w_small = measure(lambda: CODEC.decode(small, f"v:{schema}"))
    _, w_big = measure(lambda: CODEC.decode(big, f"v:{schema}"))
    assert_linear(w_small, w_big, 10, schema, events=False)


# -- inspect, columnar --------------------------------------------------------------------------


def test_inspect_names_every_span() -> None:
    key = CODEC.encode((Some(None), "ab", D("-12.345")),
                       "a:int8 nullable=2, s:string desc, d:decimal")
    view = CODEC.inspect(key, "a:int8 nullable=2, s:string desc, d:decimal")
    roles = [[p.role for p in f.parts] for f in view.fields]
    assert roles == [["tag", "null"], ["flag", "group", "marker"], ["class", "digits"]]
    assert view.fields[-1].end == len(key)
    with pytest.raises(NotDecodableError):
        CODEC.inspect(key)
