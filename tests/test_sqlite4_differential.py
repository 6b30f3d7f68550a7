"""The compiled ``sqlite4`` module never answers differently from the reference Python.

:class:`~lexcodecs.testing.DifferentialConformance` runs every operation, with a schema and
without, under both implementations, with and without a table prefix, on valid and hostile
values and keys, and checks the compiled path is in use. What is SQLite4's own is here: the
final binary field (ascending, last), numbers of every size (ints past 64 bits up to and past
10,000 digits, Decimals with any exponent, NaN payloads) as the values a field meets, and the
values that must hand over.
"""

from __future__ import annotations

import decimal
import math
import struct
from typing import Any

import pytest
from hypothesis import strategies as st

from lexcodecs import DecodeError, EncodeError, KeySchema, LexCodecError, _impl
from lexcodecs.codec import Codec
from lexcodecs.codecs.sqlite4 import Sqlite4Codec
from lexcodecs.testing import DifferentialConformance
from lexcodecs.testing.differential import both
from lexcodecs.types import INT_TYPES, Int8

D = decimal.Decimal
_F64 = struct.Struct(">d")
FIELD_TYPES = sorted({*INT_TYPES, "int", "float64", "decimal", "string", "bytes"})
CODECS = {table: Sqlite4Codec(table=table) for table in (None, 0, 300, 2**64 - 1)}

HUGE_INTS = st.sampled_from([
    2**63 - 1, -(2**63), 2**63, 2**64 - 1, 2**64, -(2**63) - 1, 10**19, 10**20, -(10**20) + 1,
    10**40, -(10**40) - 7, 2**200 + 1, 10**4000 + 3, 10**4300, 10**9999, -(10**9999) - 1,
    10**10000, 2**14000, 2**14001, 2**34000, -(2**34001),
])
DECIMALS = st.one_of(
    st.decimals(allow_nan=True, allow_infinity=True),
    st.sampled_from([D("NaN"), D("-NaN"), D("NaN5"), D("sNaN"), D("-sNaN"), D("Infinity"),
                     D("-Infinity"), D("-0"), D("0E-7"), D("0E+7"), D("123.4500"),
                     D("1E+999999999999999999"), D("-9E+999999999999999999"),
                     D("1E-1999999999999999997"), D("1.5E-500"), D("-1" + "0" * 120),
                     D("0." + "9" * 90), D("1234567.89")]),
)
FLOATS = st.one_of(st.floats(), st.sampled_from([
    0.0, -0.0, 5e-324, -5e-324, 1e23, 1e-5, 0.0001, 1e16, 123456789.12345678, 2.0**53,
    1.7976931348623157e308, math.nan, -math.nan, math.inf, -math.inf,
    _F64.unpack(bytes.fromhex("7ff0000000000001"))[0]]))
TEXTS = st.one_of(st.text(max_size=10), st.text(min_size=251, max_size=300),
                  st.sampled_from(["é\U0001f600", "\x00", "a\udfff"]))
BINARIES = st.one_of(st.binary(max_size=20), st.binary(min_size=250, max_size=300),
                     st.binary(max_size=8).map(bytearray))

#: field type -> the values a field of that type meets (its own and its neighbours')
TYPED: dict[str, st.SearchStrategy[Any]] = {
    **{t: st.one_of(st.integers(INT_TYPES[t].min - 2, INT_TYPES[t].max + 2), st.integers())
       for t in INT_TYPES},
    "int": st.one_of(st.integers(), HUGE_INTS),
    "float64": st.one_of(FLOATS, st.integers(-(2**60), 2**60), HUGE_INTS),
    "decimal": st.one_of(DECIMALS, FLOATS, st.integers(), HUGE_INTS),
    "string": TEXTS,
    "bytes": BINARIES,
}

#: field type -> valid values of its exact Python type, edges included
VALID: dict[str, list[Any]] = {
    **{t: [0, 1, INT_TYPES[t].min, INT_TYPES[t].min // 3, INT_TYPES[t].max,
           INT_TYPES[t].max // 3, None] for t in INT_TYPES},
    "int": [0, 7, -100, 2**63 - 1, -(2**63), 2**64 - 1, 2**64, -(2**64), 10**20 - 1, 10**20,
            -(10**40), 2**200, 10**4000 + 7, 10**9999, -(10**9999) - 1, 10**10000 - 1, None],
    "float64": [0.0, -0.0, 0.1, -2.5, 1e23, 5e-324, -1.7976931348623157e308, 1e16, 1e-5,
                123456789.12345678, math.nan, math.inf, -math.inf, 0, 2**53, -(2**60),
                2**1000, None],
    "decimal": [D("1234567.89"), D("-0.001"), D("0"), D("-0"), D("0E-9"), D("NaN"),
                D("-NaN"), D("Infinity"), D("-Infinity"), D("1E+999999999999999999"),
                D("-1E-1999999999999999997"), D("123.4500"), D("9" * 200), 12, -10**30,
                10**9999, 0.1, -math.inf, math.nan, None],
    "string": ["", "abc", "é\U0001f600", "x" * 1000, None],
    "bytes": [b"", b"\x00\xff", bytes(range(256)) * 3, bytearray(b"ba"), None],
}
VALID["bytes final=true"] = VALID["bytes"]


class TestSqlite4Differential(DifferentialConformance):
    codec = CODECS[None]
    variants = tuple(CODECS[t] for t in (0, 300, 2**64 - 1))
    example_share = 0.5
    fields = (*FIELD_TYPES, "bytes final=true")
    odd_key_schemas = ("a:decimal desc, b:float64", "a:int, b:bytes desc, c:string",
                       "a:uint64 desc, b:int8, c:bytes final=true")
    context = (("s:string", "user-1"), ("n:int64", 42))
    valid_values = VALID
    schemaless_values = tuple(v for t in ("int", "float64", "decimal", "string", "bytes")
                              for v in VALID[t])

    def valid_keys(self, codec: Codec, schema: KeySchema) -> st.SearchStrategy[tuple[Any, ...]]:
        return st.tuples(*(st.none() | TYPED[f.type] for f in schema.fields))

    def test_hand_overs_are_counted(self) -> None:
        """A subclass goes to the reference, which takes it; a refusal is the reference's."""
        self.require_compiled()
        with _impl.use("compiled"):
            bound = CODECS[None].bind("x:int8")
            _impl.HANDOVERS.clear()
            assert bound.encode((Int8(1),)) == bound.encode((1,))
            for bad in ((128,), (True,), (D(1),)):
                with pytest.raises(LexCodecError):
                    bound.encode(bad)
            with pytest.raises(DecodeError):
                bound.decode(b"\x18\x02\x00")
            assert _impl.HANDOVERS["sqlite4"] == 5


@pytest.mark.parametrize("value", [2**1024 - 1, 2**1024 - 2**970, -(2**1024) + 2**969],
                         ids=["2**1024-1", "2**1024-2**970", "-(2**1024-2**969)"])
def test_an_int_rounding_past_the_largest_double_is_refused(value: int) -> None:
    """An int of 1024 bits that rounds past the largest double (``float()`` overflows) is
    refused as any int a float64 does not hold, on both implementations."""
    for schema in ("x:float64", "x:float64 desc"):
        result = both(lambda s=schema: CODECS[None].encode((value,), s))
        assert result[0] == "error"
        assert result[1] is EncodeError
        assert "does not convert to float64 exactly" in result[2]


@pytest.mark.parametrize("schema", [None, "a:int"])
def test_decode_errors_keep_their_offsets(schema: str | None, impl: str) -> None:
    with pytest.raises(DecodeError) as info:
        CODECS[None].decode(bytes.fromhex("18 01 02"), schema)
    assert info.value.offset == 1
