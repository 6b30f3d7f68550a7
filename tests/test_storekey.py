"""``storekey``: the spec's tables (``specs/storekey.md`` §2-§4, §6) as (value, bytes) cases,
each tested both ways on both implementations, and the refusals, each naming the codec, the
field, the value and the reason.

The vectors (``conformance/test_storekey_vectors.py``) hold the crate's own bytes; these are the
spec's examples, one per rule, so that a rule that breaks is named.
"""

from __future__ import annotations

import math
import struct
from typing import Any

import pytest

from lexcodecs import (
    DecodeError,
    EncodeError,
    LexCodecError,
    NotDecodableError,
    SchemaError,
    Some,
    UnsupportedTypeError,
    get_codec,
)
from lexcodecs.codecs.storekey import StorekeyCodec
from lexcodecs.errors import describe_value
from lexcodecs.testing.differential import same
from lexcodecs.types import Float32

CODEC = StorekeyCodec()
NAME = "storekey"
_D, _Q = struct.Struct(">d"), struct.Struct(">Q")

pytestmark = pytest.mark.usefixtures("impl")


def f64(bits: int) -> float:
    return float(_D.unpack(_Q.pack(bits))[0])


#: (field, value, key hex): the spec's tables, one field each
TABLE: list[tuple[str, Any, str]] = [
    # §2 fixed-width
    ("bool", False, "00"),
    ("bool", True, "01"),
    ("uint64", 5, "0000000000000005"),
    ("uint8", 255, "ff"),
    ("int8", -128, "00"),
    ("int8", 127, "ff"),
    ("int16", -2, "7ffe"),
    ("int32", 0, "80000000"),
    ("int64", -1, "7fffffffffffffff"),
    ("float64", 0.0, "8000000000000000"),
    ("float64", -0.0, "7fffffffffffffff"),
    ("float64", 1.0, "bff0000000000000"),
    ("float64", -math.inf, "000fffffffffffff"),
    ("float64", math.inf, "fff0000000000000"),
    ("float64", f64(0x7FF8000000000000), "fff8000000000000"),
    ("float64", f64(0xFFF8000000000000), "0007ffffffffffff"),
    ("float32", Float32(1.0), "bf800000"),
    ("float32", Float32.from_bits(0x7FA00001), "ffa00001"),
    ("variant", 2, "00000002"),
    ("variant", 4294967295, "ffffffff"),
    # §3 strings, chars, bytes, sequences
    ("string", "a", "6100"),
    ("string", "adiós", "616469c3b37300"),
    ("string", "", "00"),
    ("char", "a", "6100"),
    ("char", "€", "e282ac00"),
    ("bytes", b"\x01\x02\x03", "0000000000000003010203"),
    ("bytes", b"", "0000000000000000"),
    ("bytes repr=seq", b"\x05" * 9, "05" * 9 + "01"),
    ("bytes repr=seq", b"", "01"),
    ("bytes repr=seq", b"\x00", "0001"),
    ("bytes repr=seq", b"\x05\x00", "050001"),
    # §3 Option
    ("uint8 nullable=true", 5, "0105"),
    ("uint8 nullable=true", None, "00"),
    ("int32 nullable=2", Some(None), "0100"),
    ("int32 nullable=2", 7, "010180000007"),
    ("int32 nullable=2", None, "00"),
    ("string nullable=true", "a", "016100"),
    ("bytes repr=seq nullable=true", b"", "0101"),
]


@pytest.mark.parametrize(("field", "value", "hex_key"), TABLE,
                         ids=[f"{f}={v!r}" for f, v, _ in TABLE])
def test_table_both_ways(field: str, value: Any, hex_key: str) -> None:
    schema = f"x:{field}"
    key = bytes.fromhex(hex_key)
    assert CODEC.encode((value,), schema).hex() == hex_key
    assert same(CODEC.decode(key, schema), (value,))


def test_a_key_is_its_fields_back_to_back() -> None:
    """§3: a tuple or struct is its fields' bytes, one after the other."""
    schema = "a:string, b:string"
    assert CODEC.encode(("a", "b"), schema).hex() == "61006200"
    assert CODEC.encode(("a", 5, b"\xff"), "s:string nullable=true, n:int32, b:bytes") \
        == bytes.fromhex("01 6100 80000005 0000000000000001 ff")
    assert CODEC.decode(bytes.fromhex("61006200"), schema) == ("a", "b")


def test_what_the_crate_reads_although_it_never_writes_it() -> None:
    """§6 decode_only: a non-zero bool byte is true, a char takes a longer string's first
    character, a sequence may end at the end of the key; bytes after the last field are
    ``parse``'s remainder and ``decode``'s refusal."""
    assert CODEC.decode(b"\xff", "b:bool") == (True,)
    assert CODEC.decode(bytes.fromhex("616200"), "c:char") == ("a",)
    assert CODEC.decode(bytes.fromhex("0505"), "s:bytes repr=seq") == (b"\x05\x05",)
    assert CODEC.parse(bytes.fromhex("8000000000"), "n:int32") == ((0,), b"\x00")
    with pytest.raises(DecodeError, match="bytes left after the last field") as info:
        CODEC.decode(bytes.fromhex("8000000000"), "n:int32")
    assert info.value.offset == 4


def test_nul_in_strings_is_written_raw() -> None:
    """§3: no escaping; the reader stops at the first 00 (the declared string anomalies)."""
    schema = "s:string, n:int32"
    key = CODEC.encode(("a\x00b", 5), schema)
    assert key.hex() == "6100620080000005"
    assert CODEC.parse(key, schema) == (("a", -503283712), b"\x00\x05")
    assert CODEC.encode(("a\x00b", ""), "s:string, t:string") == \
        CODEC.encode(("a", "b\x00"), "s:string, t:string") == bytes.fromhex("6100620000")


def test_bytes_sort_by_length_first() -> None:
    assert CODEC.encode((b"\xff",), "b:bytes") < CODEC.encode((b"\x00\x00",), "b:bytes")


# -- refusals: each names the codec, the field, the value and the reason ----------------------


#: (schema, values, error class, words of the reason)
REFUSALS: list[tuple[str, tuple[Any, ...], type[LexCodecError], str]] = [
    ("c:char", ("\x00",), EncodeError, "cannot serialize NUL char"),
    ("c:char", ("ab",), EncodeError, "one character, not 2"),
    ("c:char", ("\ud800",), EncodeError, "surrogate"),
    ("n:int8", (128,), EncodeError, "out of range for int8"),
    ("n:uint16", (-1,), EncodeError, "out of range for uint16"),
    ("n:variant", (2**32,), EncodeError, "out of range for variant"),
    ("n:int64", (True,), UnsupportedTypeError, "bool is refused"),
    ("b:bool", (1,), UnsupportedTypeError, "int is not a bool value"),
    ("f:float32", (0.1,), EncodeError, "not exactly representable in binary32"),
    ("f:float32", (f64(0x7FF8000000000001),), EncodeError, "NaN payload"),
    ("f:float64", (2**53 + 1,), EncodeError, "does not convert to float64 exactly"),
    ("s:string", (b"a",), UnsupportedTypeError, "bytes value in a string field"),
    ("s:string", ("\udc00",), EncodeError, "lone surrogate"),
    ("b:bytes", ("a",), UnsupportedTypeError, "str value in a bytes field"),
    ("n:int32", (None,), EncodeError, "NULL in a field that is not nullable"),
    ("n:int32 nullable=true", (Some(None),), EncodeError, "needs 2 Option layers"),
    ("n:int32 nullable=2", (Some(7),), UnsupportedTypeError, "Some wraps only None"),
]


@pytest.mark.parametrize(("schema", "values", "error", "reason"), REFUSALS,
                         ids=[f"{s} {v!r}" for s, v, _, _ in REFUSALS])
def test_refusals_name_codec_field_value_and_reason(
        schema: str, values: tuple[Any, ...], error: type[LexCodecError], reason: str) -> None:
    with pytest.raises(error, match=reason) as info:
        CODEC.encode(values, schema)
    assert info.value.codec == NAME
    assert info.value.field == 0
    assert info.value.field_name == schema.split(":")[0]
    assert f"{describe_value(info.value.value)}: " in str(info.value)  # the value, shown


@pytest.mark.parametrize("field_type", ["int128", "uint128"])
def test_128_bit_integers_are_refused_at_bind(field_type: str) -> None:
    rust = "i128" if field_type == "int128" else "u128"
    with pytest.raises(SchemaError, match=f"no 128-bit integers \\({rust} is not supported\\)"
                       ) as info:
        CODEC.bind(f"a:int64, big:{field_type} nullable=true")
    assert info.value.codec == NAME
    assert info.value.field == 1
    assert info.value.field_name == "big"
    assert field_type not in CODEC.capabilities.field_types


@pytest.mark.parametrize(("schema", "reason"), [
    ("n:int32 desc", "descending fields are not supported"),
    ("n:int32 nullable=true nulls last", "NULL cannot sort last"),
    ("n:int32 repr=seq", "repr is an option of bytes fields"),
    ("n:int32 nullable=3", "field option nullable=3 is not allowed"),
    ("b:bytes repr=list", "field option repr='list' is not allowed"),
    ("d:decimal", "type 'decimal' is not supported"),
])
def test_schemas_it_cannot_express_are_refused(schema: str, reason: str) -> None:
    with pytest.raises(SchemaError, match=reason) as info:
        CODEC.bind(schema)
    assert info.value.codec == NAME
    assert info.value.field == 0


def test_decoding_needs_a_schema() -> None:
    with pytest.raises(NotDecodableError, match="only with a schema") as info:
        CODEC.decode(b"\x00")
    assert info.value.codec == NAME


def test_registered_and_bound_shape() -> None:
    assert type(get_codec(NAME)) is StorekeyCodec
    bound = CODEC.bind("a:int32, b:string nullable=true, c:bytes repr=seq nullable=2")
    assert bound.nullable == (False, True, True)
    assert not bound.prefix_free
    assert CODEC.bind("a:int32, c:bytes, d:char").prefix_free
    assert bound.prefix_range(()) == (b"", None)
    assert bound.prefix_range((7,)) == (bytes.fromhex("80000007"), bytes.fromhex("80000008"))
