"""``hbase-orderedbytes``: the compiled module and the reference code give the same answers.

Every operation of a bound schema -- ``encode`` (also with the wrong number of values),
``decode`` and ``prefix_range`` -- runs once under each implementation
(``lexcodecs._impl.use``) on the same input, and any difference fails: in bytes, in decoded
values (types compared, floats by their bits, Decimals by their text), or in the error's
class and message. Schemas are drawn over every field type and encoding, both orders and
both APIs (``types``, ``struct``); values are valid ones and odd ones (subclasses, bool in
number fields, IntEnum, bytearray/memoryview, NaN, huge and tiny numbers, Decimals beyond
HBase's exponent range, text with U+0000 or a lone surrogate, tampered Float32s); keys are
valid, mutated or random bytes. Nothing but a :class:`~lexcodecs.errors.LexCodecError` may
leave either implementation.

The last tests check the compiled path is in use: the bound class is the compiled one, and
valid exact-type values of every type, encoding, order and API never hand over.
"""

from __future__ import annotations

import math
from decimal import Decimal
from functools import partial
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oddities import (
    Colour,
    Liar,
    MyBytes,
    MyDecimal,
    MyFloat,
    MyInt,
    MyStr,
    both,
    mutated,
    same,
    tampered_float32,
    unset_float32,
)

from lexcodecs import KeySchema, LexCodecError, _impl
from lexcodecs.codecs.hbase_orderedbytes import HBaseOrderedBytesCodec
from lexcodecs.codecs.hbase_orderedbytes import format as hb_format
from lexcodecs.types import Float32

CODEC = HBaseOrderedBytesCodec()
STRUCT = HBaseOrderedBytesCodec(api="struct")
PACKAGE = "hbase_orderedbytes"

try:
    from lexcodecs.codecs.hbase_orderedbytes import _compiled
except ImportError:  # not built: the compiled run is the reference run
    _compiled = None  # type: ignore[assignment]

#: every field type with each of its encodings, as written in a schema
FIELDS = ["decimal", "int", "int64 encoding=numeric", "float64 encoding=numeric",
          "float32 encoding=numeric", "int8", "int16", "int32", "int64", "float32", "float64",
          "string", "bytes", "bytes encoding=blobcopy"]
#: the fields that may stand anywhere (a BlobCopy goes last)
ANYWHERE = [f for f in FIELDS if "blobcopy" not in f]

ODD: list[Any] = [
    None, True, False, 0, -1, 1, 127, -129, 2**31, 2**63 - 1, -(2**63), 2**63, 2**64,
    10**31 + 5, 10**32 - 1, -(10**40), 2**200, 10**400, 10**4000, 2**50_000, MyInt(7), Colour.RED,
    Colour.BIG, 0.0, -0.0, 1.5, 0.1, 1e23, math.nan, -math.nan, math.inf, -math.inf,
    5e-324, -5e-324, 1e-320, 2.2250738585072014e-308, 1e308, 0.99999999999999999,
    MyFloat(2.5), Float32(0.1), Float32(-0.0), Float32(math.nan), Float32(3.4e38),
    tampered_float32("x"), tampered_float32(0x7FC00000), unset_float32(),
    Decimal("1.5"), Decimal("-0"), Decimal("0E-9"), Decimal("NaN"), Decimal("sNaN"),
    Decimal("-Infinity"), Decimal("1E+2147483647"), Decimal("1E-2147483648"),
    Decimal("9" * 32), Decimal("0." + "9" * 32), Decimal("-0." + "9" * 40),
    Decimal("1" + "0" * 30 + "5"), Decimal("1E+999999999999999999"), MyDecimal("2"),
    "", "a", "a\x00b", "\ud800", "\U0010ffff", MyStr("hi"),
    b"", b"\x00", b"\xff\x00\x01", MyBytes(b"a"), bytearray(b"x\x00"), memoryview(b"mv"),
    memoryview(b"abcd")[1:3], object(), Liar(), 1j, [], (1,),
]


def _odd(i: int) -> Any:
    return ODD[i]


# by index through a function: the list's repr (which hypothesis may show) holds ints too
# large for str()
ODD_VALUES = st.integers(0, len(ODD) - 1).map(_odd)

_INT_RANGES = {t: (lo, hi) for t, (_, _, lo, hi) in hb_format.FIXED_INTS.items()}


def _decimals() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.decimals(allow_nan=False, allow_infinity=False, places=None),
        st.builds(lambda c, e: Decimal(c).scaleb(e), st.integers(-(10**40), 10**40),
                  st.integers(-3000, 3000)))


def valid_values(field: str) -> st.SearchStrategy[Any]:
    """Values of the field's own exact types (some the reference refuses: NUL in text, ...)."""
    base = field.split()[0]
    if base == "decimal":
        return st.one_of(_decimals(), st.integers(), st.floats())
    if base == "int":
        return st.one_of(st.integers(), st.integers(-(10**80), 10**80))
    if base in _INT_RANGES:
        lo, hi = _INT_RANGES[base]
        return st.integers(lo, hi)
    if base == "float64":
        return st.floats()
    if base == "float32":
        return st.one_of(st.floats(width=32), st.floats(width=32).map(Float32))
    if base == "string":
        return st.text(max_size=8)
    return st.binary(max_size=12)


def field_values(field: str) -> st.SearchStrategy[Any]:
    odd = [ODD_VALUES, st.integers(), st.floats(), st.text(max_size=3).map(MyStr),
           st.binary(max_size=4).map(bytearray)]
    return st.one_of(valid_values(field), valid_values(field), st.none(), *odd)


@st.composite
def schemas(draw: st.DrawFn, subject: str) -> KeySchema:
    """1..3 fields, one of them *subject* (a BlobCopy last), the others any type; each
    field ascending or descending."""
    n = draw(st.integers(1, 3))
    at = n - 1 if "blobcopy" in subject else draw(st.integers(0, n - 1))
    fields = []
    for i in range(n):
        text = subject if i == at else draw(st.sampled_from(ANYWHERE))
        base, *rest = text.split()
        if draw(st.booleans()):
            base += " desc"
        fields.append(f"f{i}:" + " ".join([base, *rest]))
    return KeySchema.parse(", ".join(fields))


def mutations(key: bytes) -> st.SearchStrategy[bytes]:
    return mutated(key, [0x00, 0x01, 0x05, 0x15, 0x22, 0x80, 0xC7, 0xC8, 0xFA, 0xFF], junk=24)


@pytest.mark.parametrize("subject", FIELDS)
@settings(max_examples=8)
@given(data=st.data())
def test_encode_agrees(subject: str, data: st.DataObject) -> None:
    schema = data.draw(schemas(subject), label="schema")
    codec = data.draw(st.sampled_from([CODEC, STRUCT]), label="codec")
    values = tuple(data.draw(field_values(f"{f.type} " + " ".join(
        f"{k}={v}" for k, v in f.options.items())), label=f.name) for f in schema.fields)
    k = data.draw(st.integers(0, len(schema)), label="prefix length")
    as_list = data.draw(st.booleans(), label="as list")
    given_values: Any = list(values) if as_list else values

    def bound() -> Any:
        return codec.bind(schema)

    both(lambda: bound().encode(given_values))
    both(lambda: bound().prefix_range(values[:k]))
    both(lambda: bound().encode(values[:-1]))  # wrong arity


@pytest.mark.parametrize("subject", FIELDS)
@settings(max_examples=8)
@given(data=st.data())
def test_decode_agrees(subject: str, data: st.DataObject) -> None:
    schema = data.draw(schemas(subject), label="schema")
    codec = data.draw(st.sampled_from([CODEC, STRUCT]), label="codec")
    values = tuple(data.draw(st.one_of(st.none(), valid_values(f"{f.type} " + " ".join(
        f"{k}={v}" for k, v in f.options.items()))), label=f.name) for f in schema.fields)
    with _impl.use("reference"):
        try:
            key = codec.bind(schema).encode(values)
        except LexCodecError:  # a refused value the strategy drew
            key = b""
    raw = data.draw(mutations(key), label="key")
    kind = data.draw(st.sampled_from([bytes, bytes, bytearray, memoryview]), label="key type")
    given_key: Any = kind(raw)
    both(lambda: codec.bind(schema).decode(given_key))


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


@settings(max_examples=40)
@given(data=st.binary(max_size=30), field=st.sampled_from(FIELDS), api=st.booleans())
def test_random_keys_agree(data: bytes, field: str, api: bool) -> None:
    codec = STRUCT if api else CODEC
    both(lambda: codec.decode(data, f"x:{field}, y:int32"))
    both(lambda: codec.decode(data, f"x:{field}"))


def test_odd_keys_agree() -> None:
    odd_keys: list[Any] = ["05", 5, None, b"\x05", bytearray(b"\x15"), memoryview(b"\x34a\x00")]
    for key in odd_keys:
        both(partial(CODEC.decode, key, "x:decimal"))
        both(partial(STRUCT.decode, key, "x:string, y:int"))


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


# -- the compiled path is in use ------------------------------------------------------------

needs_compiled = pytest.mark.skipif(_compiled is None, reason="the compiled module is not built")

VALID: dict[str, list[Any]] = {
    "decimal": [Decimal("1.5"), Decimal("-1E+40"), Decimal("1E-1000"), Decimal("0"),
                Decimal("123456789012345678901234567890123"), Decimal("-0.001"), 7, -(2**70),
                0.1, -2.5e-300, math.inf, Float32(0.5), Decimal("0." + "9" * 32),
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


@needs_compiled
@pytest.mark.parametrize("field", FIELDS)
def test_valid_values_never_hand_over(field: str) -> None:
    _impl.HANDOVERS.clear()
    base, *rest = field.split()
    with _impl.use("compiled"):
        for codec in (CODEC, STRUCT):
            for order in ("", " desc"):
                f = " ".join([base + order, *rest])
                bound = codec.bind(f"s:string{order}, n:int64{order}, v:{f}")
                assert type(bound).__module__ == f"lexcodecs.codecs.{PACKAGE}._compiled"
                assert type(bound).__name__ == "CompiledBound"
                nullable = bound.codes[2].nullable
                for v in [*VALID[field], *([None] if nullable else [])]:
                    values = ("acme", -5, v)
                    key = bound.encode(values)
                    assert bound.encode(list(values)) == key
                    back = bound.decode(key)
                    assert back[:2] == ("acme", -5)
                    with _impl.use("reference"):
                        assert codec.bind(bound.schema).encode(values) == key
                        want = codec.bind(bound.schema).decode(key)
                    assert same(back, want), (back, want)
    assert _impl.HANDOVERS[PACKAGE] == 0


@needs_compiled
def test_odd_values_do_hand_over() -> None:
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
