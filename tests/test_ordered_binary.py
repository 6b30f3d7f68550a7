"""Tests of the ``ordered-binary`` codec (spec ``ordered-binary.md``, npm ordered-binary 1.6.3).

* the spec's own (value, bytes) examples, both ways;
* hypothesis: round trip and byte order against a natural-order model written without the
  codec, skipping exactly the declared anomalies; every declared anomaly real;
* hostile input: random keys, odd objects, the 8 KiB limit, linear time (mutated keys are
  the differential tests').

The vectors are ``conformance/test_ordered_binary_vectors.py``'s, the conformance harness is
``test_ordered_binary_conformance.py``'s and the compiled-vs-reference comparison
``test_ordered_binary_differential.py``'s. Every test here runs on both implementations
(``impl``). The codec is not registered yet: the tests build :class:`OrderedBinaryCodec`
directly.
"""

from __future__ import annotations

import enum
import itertools
import math
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lmdb
import pytest
from hypothesis import given
from hypothesis import strategies as st
from work import assert_linear, measure

from lexcodecs import _impl, get_codec
from lexcodecs.codecs.ordered_binary import JsSymbol, OrderedBinaryCodec
from lexcodecs.codecs.ordered_binary.anomalies import ANOMALIES, NO_CARRY_WITNESS
from lexcodecs.errors import DecodeError, EncodeError, LexCodecError, OptionError, SchemaError
from lexcodecs.migrate import Transcoder, migrate_lmdb
from lexcodecs.testing.checks import check_anomaly
from lexcodecs.testing.model import identical

# every test on the compiled and on the reference implementation
pytestmark = pytest.mark.usefixtures("impl")

CODEC = OrderedBinaryCodec()
ARRAY = OrderedBinaryCodec(array=True)


# -- the spec's examples --------------------------------------------------------------------

#: (values, key, codec): spec §2-§6, both ways (decode gives the values back)
SPEC: list[tuple[tuple[Any, ...], str, OrderedBinaryCodec]] = [
    ((None,), "00", CODEC),
    ((False,), "06", CODEC),
    ((True,), "07", CODEC),
    ((1.0,), "13ff0000", CODEC),
    ((2.0,), "14000000", CODEC),
    ((0.0,), "10000000", CODEC),
    ((-1.0,), "0c00fffffffffffff0", CODEC),
    ((1.0,), "13ff00000000000000", ARRAY),
    ((math.nan,), "17ff8000", CODEC),
    ((math.inf,), "17ff0000", CODEC),
    (("",), "1b", CODEC),
    (("\x00",), "1b0400", CODEC),
    (("\x1b",), "1b1b", CODEC),
    (("\x1c",), "1c", CODEC),
    (("é",), "c3a9", CODEC),
    (("a\x00b",), "61040062", CODEC),
    (("a", None), "610000", CODEC),
    (("a", "b", 3.0), "61006200140080000000000000", CODEC),
    ((2**53 + 1,), "14340000000000000880", CODEC),
    ((JsSymbol("sym"),), "0273796d", CODEC),
]


@pytest.mark.parametrize(("values", "hexkey", "codec"), SPEC,
                         ids=[f"{v!r}-{h}" for v, h, _ in SPEC])
def test_spec_examples(values: tuple[Any, ...], hexkey: str, codec: OrderedBinaryCodec) -> None:
    assert codec.encode(values).hex() == hexkey
    assert identical(values, codec.decode(bytes.fromhex(hexkey)))


#: (key, what the reader gives): spec §7's decoding quirks
SPEC_DECODED: list[tuple[str, tuple[Any, ...]]] = [
    ("18000000", ("\x18", None)),
    ("6100000000", ("a", None, "")),
    ("6100060000", ("a", False, "")),
    ("41", ("A",)),
    ("00", (None,)),
    ("06", (False,)),
    ("01020078", (b"\x01\x02\x00\x78",)),
    ("7979790079", ("yyy", "y")),
    ("10000000", (0.0,)),
    ("", ("",)),
]


@pytest.mark.parametrize(("hexkey", "expected"), SPEC_DECODED, ids=[k for k, _ in SPEC_DECODED])
def test_spec_decoding_quirks(hexkey: str, expected: tuple[Any, ...]) -> None:
    assert identical(expected, CODEC.decode(bytes.fromhex(hexkey)))


def test_negative_zero_sorts_above_nan() -> None:
    assert CODEC.encode((-0.0,)).hex() == "18000000"
    assert CODEC.encode((math.nan,)) < CODEC.encode((-0.0,)) < CODEC.encode(("",))


def test_long_strings_are_not_escaped() -> None:
    assert CODEC.encode(("y" * 63 + "\x00",)).hex() == "79" * 63 + "00"
    assert CODEC.encode(("y" * 62 + "\x00",)).hex() == "79" * 62 + "0400"


def test_bigint_beyond_doubles_is_refused() -> None:
    with pytest.raises(EncodeError, match="Infinity"):
        CODEC.encode((2**1024 - 2**970,))
    limit = CODEC.capabilities.int_range
    assert limit is not None
    assert CODEC.decode(CODEC.encode((limit[1],))) == (limit[1],)


def test_options() -> None:
    with pytest.raises(OptionError):
        OrderedBinaryCodec(array=1)
    with pytest.raises(OptionError):
        OrderedBinaryCodec(arrays=True)
    assert ARRAY.config() == {"name": "ordered-binary", "array": True}


def test_schema_binding() -> None:
    schema = "s:string, n:int, x:float64, b:bool, r:bytes"
    values = ("a", 2**64 + 1, -0.0, False, b"\x01\x02")
    key = CODEC.encode(values, schema)
    assert key == CODEC.encode(values)
    assert identical(values, CODEC.decode(key, schema))  # -0.0 too: exact with a schema
    assert identical((1,), CODEC.decode(CODEC.encode((1,)), "n:int"))
    assert identical(("a", False, None),
                     CODEC.decode(CODEC.encode(("a", False, None)), "s:string, b:bool, t:string"))
    assert ARRAY.encode((1.0,), "x:float64").hex() == "13ff00000000000000"
    assert identical((1.0,), ARRAY.decode(bytes.fromhex("13ff00000000000000"), "x:float64"))
    for bad in ("t:tuple", "s:string desc", "u:uuid", "n:int64", "s:string nulls last"):
        with pytest.raises(SchemaError):
            CODEC.bind(bad)
    refused: list[tuple[tuple[Any, ...], str]] = [
        ((True,), "n:int"), ((1,), "x:float64"), (("a",), "r:bytes"), ((1.5,), "n:int"),
        ((b"a",), "s:string")]
    for wrong, text in refused:
        with pytest.raises(EncodeError) as info:
            CODEC.encode(wrong, text)
        assert info.value.field == 0
        assert info.value.field_type == text.split(":")[1]
    assert CODEC.encode((Colour.RED,), "n:int") == CODEC.encode((1,))
    for hexkey, text in (("13ff8000", "n:int"), ("07", "s:string"), ("6100", "s:string"),
                         ("61", "s:string, t:string"), ("13ff0000", "b:bool"),
                         ("13ff00000000000000", "x:float64")):
        with pytest.raises(DecodeError):
            CODEC.decode(bytes.fromhex(hexkey), text)


def test_prefix_range() -> None:
    start, stop = CODEC.prefix_range(("a", 1.0))
    assert stop is not None
    assert start.hex() == "610013ff0000000000000000"
    assert stop.hex() == start[:-1].hex() + "01"
    assert start <= CODEC.encode(("a", 1.0, None)) < stop
    assert not start <= CODEC.encode(("a", 1.0)) < stop
    assert CODEC.prefix_range(()) == (b"", None)


def test_every_nan_is_the_js_nan() -> None:
    payload = struct.unpack(">d", bytes.fromhex("fff8000000000001"))[0]
    assert CODEC.encode((payload,)) == CODEC.encode((math.nan,)) == bytes.fromhex("17ff8000")


def test_inspect_shows_every_value() -> None:
    key = CODEC.encode(("a", 2**64 + 1, None, True))
    view = CODEC.inspect(key)
    assert [f.value for f in view.fields] == ["a", 2**64 + 1, None, True]
    assert [f.kind for f in view.fields] == ["string", "number", "null", "bool"]
    assert {p.role for f in view.fields for p in f.parts} >= {"separator", "tail", "payload"}
    assert not view.notes
    assert CODEC.inspect(bytes.fromhex("18000000")).notes
    assert "ordered-binary" in view.render()
    bound = CODEC.inspect(key, "s:string, n:int, x:float64, b:bool")
    assert [f.name for f in bound.fields] == ["s", "n", "x", "b"]
    assert [f.value for f in bound.fields] == ["a", 2**64 + 1, None, True]
    assert bound.fields[-1].end == len(key)


# -- every declared anomaly is real ---------------------------------------------------------


@pytest.mark.parametrize("anomaly", ANOMALIES, ids=[a.name for a in ANOMALIES])
def test_declared_anomaly_is_real(anomaly: Any) -> None:
    check_anomaly(CODEC, anomaly)


def test_no_carry_witness_is_what_the_source_does() -> None:
    # Number(n) rounds towards zero to a double with all-ones low bits; ordered-binary's
    # step down adds 1 to the low Int32 (wrapping to 0) and never carries into the high half
    key = CODEC.encode((NO_CARRY_WITNESS,))
    assert key.hex() == "0bcafffffffffffffc80"
    assert CODEC.decode(key) == (-18014398509481981,)


# -- hypothesis: round trip and order against a model ---------------------------------------

_FLOATS = st.floats(allow_nan=True, allow_infinity=True).filter(
    lambda x: not (x == 0 and math.copysign(1.0, x) < 0)).map(
    lambda x: math.nan if math.isnan(x) else x)
_INTS = st.one_of(st.integers(-(2**70), 2**70),
                  st.integers(-(2**1023), 2**1023)).filter(lambda n: not _no_carry(n))
_SHORT_TEXT = st.text(max_size=20)
# a short text repeated past 64 UTF-16 units (cheap to draw; no 00..04, no surrogates)
_LONG_TEXT = st.text(alphabet=st.characters(min_codepoint=5), min_size=1, max_size=6).map(
    lambda t: t * (64 // len(t) + 1))
_SCALARS = st.one_of(st.none(), st.booleans(), _FLOATS, _INTS, _SHORT_TEXT, _LONG_TEXT)


def _no_carry(n: int) -> bool:
    anomaly = next(a for a in ANOMALIES if a.name == "negative-int-step-without-carry")
    return anomaly.applies(None, (n,), ())


def _no_late_nulls(values: tuple[Any, ...]) -> bool:
    """The declared anomaly ``late-nulls-decode-wrong`` aside."""
    return all(v is not None for v in values[2:])




def _expected_back(values: tuple[Any, ...]) -> tuple[Any, ...]:
    """What the reader gives for *values*: an int that is exactly a double as that float; the
    empty key as ('',). Nothing else changes for these values."""
    if not values:
        return ("",)
    return tuple(float(v) if type(v) is int and _is_double(v) else v for v in values)


def _is_double(n: int) -> bool:
    try:
        return int(float(n)) == n
    except OverflowError:
        return False


def _rank(v: Any) -> tuple[Any, ...]:
    """The natural order of one JS value, written without the codec: null < false < true <
    numbers (ints and floats by exact value, NaN last) < strings (by code point)."""
    if v is None:
        return (0,)
    if v is False or v is True:
        return (1, v)
    if type(v) in (int, float):
        return (2, 1, 0) if v != v else (2, 0, v)
    return (3, v)


def _model(values: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(_rank(v) for v in values)


_ORDER_KEYS = st.lists(st.one_of(st.none(), st.booleans(), _FLOATS, _INTS,
                                 st.text(max_size=6)), max_size=3).map(tuple)


@given(st.lists(_ORDER_KEYS, min_size=2, max_size=5), st.booleans())
def test_order_matches_the_model(batch: list[tuple[Any, ...]], array: bool) -> None:
    """Keys sorted by their bytes are sorted by the model, and two keys are equal exactly
    when their values are equal as values (an int and the equal float share a key)."""
    codec = ARRAY if array else CODEC
    ranked = sorted(((codec.encode(v), _model(v)) for v in batch), key=lambda p: p[0])
    for (ka, ma), (kb, mb) in itertools.pairwise(ranked):
        assert ma <= mb
        assert (ka == kb) == (ma == mb)


_ANY_SCALAR = st.one_of(_SCALARS, st.just(-0.0), st.binary(max_size=6),
                       st.text(alphabet="\x00\x01\x04ab", min_size=60, max_size=70))


def _exact(values: tuple[Any, ...]) -> bool:
    """No declared anomaly touches *values*: no raw bytes, no -0.0, no late nulls, no long
    string holding 00..04."""
    return _no_late_nulls(values) and not any(
        type(v) is bytes or (type(v) is float and v == 0 and math.copysign(1.0, v) < 0)
        or (type(v) is str and len(v) >= 64 and min(v) <= "\x04") for v in values)


@given(st.lists(_ANY_SCALAR, max_size=4).map(tuple), st.booleans())
def test_round_trip(values: tuple[Any, ...], array: bool) -> None:
    """Keys decode to their values (ints that are doubles as floats, the empty key as
    ('',)), and differ only where a declared anomaly says so."""
    codec = ARRAY if array else CODEC
    key = codec.encode(values)
    try:
        back = codec.decode(key)
    except DecodeError:
        assert any(type(v) is bytes for v in values)  # raw bytes read as a broken number
        return
    if _exact(values):
        assert identical(_expected_back(values), back)
    elif not identical(_expected_back(values), back):
        assert codec.capabilities.explained(("round-trip",), None, values, back), (values, back)


# -- hostile input ---------------------------------------------------------------------------


def _decodes_or_refuses(data: bytes) -> None:
    refusal: DecodeError | None = None
    try:
        values: tuple[Any, ...] = CODEC.decode(data)
    except DecodeError as exc:
        refusal, values = exc, ("refused",)
    assert refusal is None or refusal.codec == "ordered-binary"
    assert type(values) is tuple
    assert values


@given(st.binary(max_size=64))
def test_random_bytes_decode_to_values_or_a_refusal_naming_the_codec(data: bytes) -> None:
    """(That nothing but a DecodeError escapes is the harness's ``decode_junk`` check.)"""
    _decodes_or_refuses(data)


class Colour(enum.IntEnum):
    RED = 1


class Text(str):
    pass


class Tampered(float):
    def __float__(self) -> float:
        return 99.0


ODD: list[Any] = [
    object(), 1j, {"a": 1}, {1}, Colour.RED, Text("a"), Tampered(1.5), -math.nan,
    struct.unpack(">d", bytes.fromhex("7ff8000000000001"))[0], 10**400, -(10**400),
    bytearray(b"ab"), memoryview(b"ab"), [[[[]]]], float, JsSymbol("x"),
]


@pytest.mark.parametrize("value", ODD, ids=[type(v).__name__ for v in ODD])
def test_encode_odd_objects(value: Any) -> None:
    for values in ((value,), ("k", value)):
        refusal: LexCodecError | None = None
        try:
            key = CODEC.encode(values)
        except (EncodeError, SchemaError) as exc:
            refusal, key = exc, b""
        assert refusal is None or refusal.codec == "ordered-binary"
        assert type(key) is bytes


def test_subclasses_write_their_base_value() -> None:
    assert CODEC.encode((Colour.RED,)) == CODEC.encode((1,))
    assert CODEC.encode((Text("a"),)) == b"a"
    assert CODEC.encode((Tampered(1.5),)) == CODEC.encode((1.5,))
    assert CODEC.encode((True,)) == b"\x07"  # a bool is not an int here


def test_refusals_name_codec_field_and_value() -> None:
    with pytest.raises(EncodeError) as info:
        CODEC.encode(("a", object()))
    assert info.value.field == 1
    assert str(info.value).startswith("ordered-binary: field 1")
    nested: list[Any] = []
    nested.append(nested)
    with pytest.raises(EncodeError, match="nest"):
        CODEC.encode((nested,))
    with pytest.raises(LexCodecError):
        CODEC.encode("ab")
    with pytest.raises(LexCodecError):
        CODEC.decode("ab")  # type: ignore[arg-type]


def test_the_8_kib_buffer() -> None:
    assert len(CODEC.encode(("x" * 8188,))) == 8188
    with pytest.raises(EncodeError, match="String does not fit"):
        CODEC.encode(("x" * 8189,))
    assert len(CODEC.encode((b"x" * 8192,))) == 8192
    with pytest.raises(EncodeError):
        CODEC.encode((b"x" * 8193,))
    assert len(CODEC.encode((b"x" * 8179, 1.0))) == 8189
    with pytest.raises(EncodeError, match="12-byte"):
        CODEC.encode((b"x" * 8180, 1.0))
    with pytest.raises(EncodeError, match="Key is too large"):
        CODEC.encode(("y" * 40,) * 220)


def test_decode_refusals() -> None:
    with pytest.raises(DecodeError, match="RangeError"):
        CODEC.decode(bytes.fromhex("070010"))  # a 4-byte read from byte 2 of a 3-byte key
    with pytest.raises(DecodeError, match="BigInt"):
        CODEC.decode(bytes.fromhex("13ff8000000000000080"))


HOSTILE: list[Callable[[int], bytes]] = [
    lambda n: b"\x14" + b"\x3f" + bytes(7) + b"\x81" * n,  # a BigInt tail as long as the key
    lambda n: b"\x07\x00" + b"\x01" * n,  # raw values, each the rest of the key
    lambda n: b"\x00" * n,  # nulls and separators
    lambda n: b"a\x04" * n,  # escapes in one string
    lambda n: b"\xf0\x9f\x98\x80" * n,  # surrogate pairs read twice
    lambda n: b"\x10" + bytes(8) + b"\x00" + b"\x10\x00\x00\x00\x00\x00\x00\x00\x00\x00" * n,
]


#: the hostile key of the raw repeats needs 10_000 repeats (a result just below the raw
#: limit, quadratic in the repeats by nature) against 40_000 (refused); the others are linear
#: from the start
SIZES = [(500, 2_000), (10_000, 40_000), (500, 2_000), (500, 2_000), (500, 2_000), (500, 2_000)]


@pytest.mark.parametrize(("make", "sizes"), list(zip(HOSTILE, SIZES, strict=True)),
                         ids=[str(i) for i in range(len(HOSTILE))])
def test_decode_is_linear(make: Callable[[int], bytes], sizes: tuple[int, int], impl: str
                          ) -> None:
    """4 times the input costs at most 8 times the work (16 would be quadratic). Counted, not
    timed (``work.py``): the reference's events and bytes copied; the compiled module's
    bytes copied and peak memory (its allocations are traced), and the reference's events
    wherever it hands both keys over."""
    handed = []
    works = []
    for key in (make(sizes[0]), make(sizes[1])):
        before = _impl.HANDOVERS["ordered_binary"]
        works.append(measure(lambda k=key: CODEC.decode(k))[1])
        handed.append(_impl.HANDOVERS["ordered_binary"] > before)
    assert_linear(*works, 4, f"decoding {len(make(sizes[1]))} bytes against "
                             f"{len(make(sizes[0]))}",
                  events=impl == "reference" or handed[0] == handed[1])


def test_raw_repeats_are_bounded() -> None:
    with pytest.raises(DecodeError, match="square"):
        CODEC.decode(b"\x07\x00" + b"\x01" * 20_000)
    assert len(CODEC.decode(b"\x07\x00" + b"\x01" * 1000)) == 1001


def test_tampered_symbol_is_refused() -> None:
    """A JsSymbol whose description was set to a non-str through object.__setattr__: refused
    with EncodeError (it raised TypeError from the string writer)."""
    symbol = JsSymbol("x")
    object.__setattr__(symbol, "description", 5)
    with pytest.raises(EncodeError, match="description is not a str"):
        OrderedBinaryCodec().encode((symbol,))
    assert OrderedBinaryCodec().encode((JsSymbol("x"),)) == bytes.fromhex("0278")


def test_an_lmdb_js_database_migrates_to_fdb_tuple(tmp_path: Path) -> None:
    """The issue's case: the keys of an LMDB environment written the way lmdb-js writes them,
    migrated to fdb-tuple by the existing LMDB path; values kept, every new key decodes to the
    values of its old key, and the new keys are in order."""
    schema = "user:string, score:float64, active:bool"
    rows = [(f"user-{i % 41}", (i * 7919 % 1000) / 8 - 60.0, i % 3 == 0) for i in range(400)]
    old = OrderedBinaryCodec().bind(schema)
    path = tmp_path / "db"
    env = lmdb.open(str(path), map_size=1 << 24)
    with env.begin(write=True) as txn:
        for i, r in enumerate(rows):
            assert txn.put(old.encode(r), str(i).encode())
    env.close()
    report = migrate_lmdb(path, Transcoder("ordered-binary", "fdb-tuple", schema))
    assert report.keys == len(set(rows))
    new = get_codec("fdb-tuple").bind(schema)
    env = lmdb.open(str(path), readonly=True)
    with env.begin() as txn:
        got = [(new.decode(k), int(v)) for k, v in txn.cursor()]
    env.close()
    last = {r: i for i, r in enumerate(rows)}  # a repeated row keeps its last value
    assert got == sorted(((r, i) for r, i in last.items()), key=lambda p: new.encode(p[0]))
