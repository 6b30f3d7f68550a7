"""``hbase-orderedbytes``: the compiled module and the reference code give the same answers.

:class:`~lexcodecs.testing.DifferentialConformance` runs every operation of a bound schema
under both implementations, for both APIs (``types``, ``struct``), on valid and hostile values
and keys, and checks the compiled path is in use. What is HBase's own is here: every field
type with each of its encodings as the subjects, numbers of every size and exponent as valid
values, hand-picked number keys (each header class, every varint width), a BlobCopy where
HBase allows it but cannot read what follows, and the values that must be read for what they
are or must hand over (Java's 4.9E-324 among them).
"""

from __future__ import annotations

import math
from decimal import Decimal
from functools import partial
from typing import Any

import pytest
from hypothesis import strategies as st

from lexcodecs import EncodeError, KeySchema, LexCodecError, _impl
from lexcodecs.codec import Codec
from lexcodecs.codecs.hbase_orderedbytes import HBaseOrderedBytesCodec
from lexcodecs.codecs.hbase_orderedbytes import format as hb_format
from lexcodecs.schema import Field
from lexcodecs.testing import DifferentialConformance
from lexcodecs.testing.differential import both
from lexcodecs.testing.hostile import Colour, Liar, MyBytes, MyFloat, MyInt, MyStr, unset_float32
from lexcodecs.types import Float32

CODEC = HBaseOrderedBytesCodec()
STRUCT = HBaseOrderedBytesCodec(api="struct")
PACKAGE = "hbase_orderedbytes"

#: every field type with each of its encodings, as written in a schema
FIELDS = ["decimal", "int", "int64 encoding=numeric", "float64 encoding=numeric",
          "float32 encoding=numeric", "int8", "int16", "int32", "int64", "float32", "float64",
          "string", "bytes", "bytes encoding=blobcopy"]

_INT_RANGES = {t: (lo, hi) for t, (_, _, lo, hi) in hb_format.FIXED_INTS.items()}


def _decimals() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.decimals(allow_nan=False, allow_infinity=False, places=None),
        st.builds(lambda c, e: Decimal(c).scaleb(e), st.integers(-(10**40), 10**40),
                  st.integers(-3000, 3000)))


def valid_values(field: Field) -> st.SearchStrategy[Any]:
    """Values of the field's own exact types (some the reference refuses: NUL in text, ...),
    or NULL."""
    base = field.type
    own: st.SearchStrategy[Any]
    if base == "decimal":
        own = st.one_of(_decimals(), st.integers(), st.floats())
    elif base == "int":
        own = st.one_of(st.integers(), st.integers(-(10**80), 10**80))
    elif base in _INT_RANGES:
        own = st.integers(*_INT_RANGES[base])
    elif base == "float64":
        own = st.floats()
    elif base == "float32":
        own = st.one_of(st.floats(width=32), st.floats(width=32).map(Float32))
    elif base == "string":
        own = st.text(max_size=8)
    else:
        own = st.binary(max_size=12)
    return st.one_of(st.none(), own)


#: field spec -> valid exact-type values, which must stay on the compiled path
VALID: dict[str, list[Any]] = {
    "decimal": [Decimal("1.5"), Decimal("-1E+40"), Decimal("1E-1000"), Decimal("0"),
                Decimal("123456789012345678901234567890123"), Decimal("-0.001"), 7,
                -(2**70), 0.1, -2.5e-300, math.inf, Float32(0.5), Decimal("0." + "9" * 32),
                Decimal("-0." + "9" * 31 + "5")],
    "int": [0, 1, -1, 10**31 + 1, -(2**63), 2**64, -(10**100), 99, 100],
    "int64 encoding=numeric": [0, 1, -1, 2**63 - 1, -(2**63), 10**18, 12345],
    "float64 encoding=numeric": [0.0, -0.0, 0.1, -1e23, 1e300, 2.5e-310, math.nan,
                                 -math.inf, 123456.789, 1.0, 1e22],
    "float32 encoding=numeric": [Float32(0.1), Float32(-3.5), 0.5, -0.0, math.inf,
                                 Float32(math.nan)],
    **{t: [lo, hi, 0, -1, 1, hi // 3] for t, (lo, hi) in _INT_RANGES.items()},
    "float32": [Float32(0.1), Float32(-0.0), Float32(math.nan), 1.5, -math.inf, 0.0],
    "float64": [0.1, -0.0, math.nan, -math.inf, 5e-324, 1e308, -2.5],
    "string": ["", "acme", "\u00e9t\u00e9", "\U0010ffff" * 3],
    "bytes": [b"", b"\x00", b"\xff\x00\x01", bytearray(b"ba\x00"), bytes(range(256))],
    "bytes encoding=blobcopy": [b"", b"\x01\xff", bytearray(b"abc"), bytes(range(1, 256))],
}


class TestHBaseOrderedBytesDifferential(DifferentialConformance):
    codec = CODEC
    variants = (STRUCT,)
    example_share = 0.15
    fields = FIELDS
    max_fields = 3
    odd_keys = ("05", b"\x05", bytearray(b"\x15"), memoryview(b"\x34a\x00"))
    odd_key_schemas = ("x:string, y:int",)
    notable_bytes = (0x00, 0x01, 0x05, 0x15, 0x22, 0x80, 0xC7, 0xC8, 0xFA, 0xFF)
    context = (("s:string", "acme"), ("n:int64", -5))
    valid_values = VALID

    def valid_keys(self, codec: Codec, schema: KeySchema) -> st.SearchStrategy[tuple[Any, ...]]:
        return st.tuples(*(valid_values(f) for f in schema.fields))

    def hands_over(self, field: Field, value: Any) -> bool:
        """The numeric encoding writes a double below Java's 4.9E-324 as HBase does, on the
        reference path."""
        return field.options.get("encoding") == "numeric" and type(value) is float and \
            value != 0 and abs(value) < 1e-300

    def test_odd_values_do_hand_over(self) -> None:
        self.require_compiled()
        _impl.HANDOVERS.clear()
        with _impl.use("compiled"):
            bound = CODEC.bind("n:int32, x:float64 encoding=numeric")
            assert bound.encode((MyInt(1), 1.0)) == bound.encode((1, 1.0))  # handed over
            with _impl.use("reference"):
                tiny = CODEC.bind(bound.schema).encode((1, 5e-324))
            assert bound.encode((1, 5e-324)) == tiny  # Java's 4.9E-324: handed over
            for values in ((True, 1.0), (2**40, 1.0), (None, 1.0)):
                with pytest.raises(LexCodecError):
                    bound.encode(values)
            with pytest.raises(LexCodecError):
                bound.decode(b"\x2b\x80\x00\x00\x01\x18\x00")  # a last centimal digit 0
        assert _impl.HANDOVERS[PACKAGE] == 6


@pytest.mark.parametrize("schema", ["x:float32", "x:float32 desc"])
def test_an_unfinished_float32_past_binary32_is_refused(schema: str) -> None:
    """A Float32 never given its bits (``float.__new__(Float32, 1e300)``) holds a float no
    binary32 holds: refused as such a float is, on both implementations (struct's ``'f'``
    raised OverflowError)."""
    result = both(lambda: CODEC.encode((unset_float32(1e300),), schema))
    assert result[0] == "error"
    assert result[1] is EncodeError
    assert "not exactly representable in binary32" in result[2]


NUMBER_KEYS = ["1802", "1902", "16ff64", "220b02", "08f3fd", "160dfc02", "1604c000000014",
               "221014", "220c14", "2205", "22f00102", "22f10002", "22f9000002", "22fa01000002",
               "22fb0100000002", "22fc010000000002", "1617ff02", "14e802", "2602", "1603",
               "18c8", "1800", "1801", "180302", "1c" + "03" * 16 + "02", "1c" + "ff" * 20,
               # HBase's key of a value below 1 rounded up to 1 (E = -1: the varint of
               # 2**64 - 1), and near misses: another M, another 9-byte varint, a large class
               "16" + "00" * 9 + "02", "14" + "ff" * 9 + "fd", "16" + "00" * 9 + "0302",
               "16" + "00" * 9 + "04", "16" + "00" * 9, "16" + "00" * 8 + "0102",
               "14" + "ff" * 9 + "02", "22" + "ff" * 9 + "02", "08" + "00" * 9 + "fd"]


@pytest.mark.parametrize("field", ["decimal", "int", "int64 encoding=numeric",
                                   "float64 encoding=numeric", "float32 encoding=numeric"])
def test_numbers_decode_alike(field: str) -> None:
    """Hand-picked number keys: each header class, every varint width, canonical and not."""
    for codec in (CODEC, STRUCT):
        for order in ("", " desc"):
            base, *rest = field.split()
            bound = codec.bind(f"x:{' '.join([base + order, *rest])}")
            for text in NUMBER_KEYS:
                key = bytes.fromhex(text)
                if order:
                    key = bytes(b ^ 0xFF for b in key)
                both(partial(bound.decode, key), text)


BLOBCOPY_SCHEMAS = [(CODEC, "a:bytes desc encoding=blobcopy, b:int8"),
                    (STRUCT, "a:bytes encoding=blobcopy, b:string"),
                    (STRUCT, "a:bytes desc encoding=blobcopy, b:string"),
                    (STRUCT, "a:string, b:bytes desc encoding=blobcopy")]


@pytest.mark.parametrize(("codec", "schema"), BLOBCOPY_SCHEMAS,
                         ids=[f"{c.options['api']} {s}" for c, s in BLOBCOPY_SCHEMAS])
def test_blobcopy_placements_agree(codec: HBaseOrderedBytesCodec, schema: str) -> None:
    """A BlobCopy where HBase allows it but cannot read what follows: same bytes, same
    values or the same refusal."""
    for values in ((b"ab", 1), (None, 1), (b"a", "x"), (b"a", None), (None, None),
                   ("q", None), ("q", b"z"), ("q", b""), (b"a\x00", "x")):
        outcome = both(partial(codec.encode, values, schema))
        if outcome[0] == "ok":
            both(partial(codec.decode, outcome[1], schema))


def test_subclasses_are_read_for_what_they_are() -> None:
    assert both(lambda: CODEC.encode((MyStr("hi"),), "x:string")) == \
        ("ok", CODEC.encode(("hi",), "x:string"))
    assert both(lambda: CODEC.encode((MyBytes(b"a"),), "x:bytes")) == \
        ("ok", CODEC.encode((b"a",), "x:bytes"))
    assert both(lambda: CODEC.encode((MyFloat(2.5),), "x:float64")) == \
        ("ok", CODEC.encode((2.5,), "x:float64"))
    assert both(lambda: CODEC.encode((Colour.RED,), "x:int32")) == \
        ("ok", CODEC.encode((1,), "x:int32"))
    assert both(lambda: CODEC.encode((MyInt(5),), "x:int")) == \
        ("ok", CODEC.encode((5,), "x:int"))
    liar = Liar()
    assert both(lambda: CODEC.encode((liar,), "x:int32"))[1].__name__ == \
        "UnsupportedTypeError"
