"""``charwise``: the spec's tables both ways, the order of JS values against a model written
without the codec, strict decoding, deep nesting, and the declared anomalies.

The model (:func:`js_key`) is charwise's claimed order of JS values: null < false < true <
numbers (by value) < strings (by code point, which is the UTF-8 byte order) < arrays
(element by element, a prefix first) < undefined. Every test runs on the compiled and on
the reference implementation (``impl``); hypothesis runs under the repository's profiles.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexcodecs import DecodeError, EncodeError
from lexcodecs.codecs.charwise import CharwiseCodec
from lexcodecs.testing.checks import check_anomalies
from lexcodecs.testing.model import identical
from lexcodecs.types import UNDEFINED, Int32

pytestmark = pytest.mark.usefixtures("impl")

CODEC = CharwiseCodec()
ARRAY = CharwiseCodec(array=True)

# -- the spec's tables (spec charwise.md §2-§4) --------------------------------------------

TABLE: list[tuple[Any, str]] = [
    (None, "A"), (False, "B"), (True, "C"), (UNDEFINED, "L"),
    (1.0, "FE500M1.00000000000000000000"), (0.5, "FE499M5.00000000000000000000"),
    (949939434.0, "FE508M9.4993943400000000000000000000"),
    (-1.0, "DE499M8.99999999999999999999"), (-0.72, "DE500M2.799999999999999999999"),
    (-0.00001, "DE504M8.99999999999999999999"), (5e-324, "FE176M5.00000000000000000000"),
    (1.7976931348623157e308, "FE808M1.797693134862315700000000000000000000"),
    (0.0, "FE  0M0"), (math.inf, "FF"), (-math.inf, "DD"), (math.nan, "DaN"),
    (7, "FE500M7.00000000000000000000"), (-(2**53), "DE484M0.99280074525900799999999999999999999"),
    ("", "J"), ("foo", "Jfoo"), ("a\x00b", "Ja\x01b"), ("\x01", "J\x01\x01"),
    ("é😀", "Jé😀"), ((), "K!"), ((None, UNDEFINED, 1.5, "foo"),
                                'KA"L"FE500M1.500000000000000000000"Jfoo!'),
    ((("a",),), "KKJa!!"), (("a!",), "KJa??!"), (("a?!",), "KJa?@??!"), (('"',), "KJ?%!"),
    (((), ()), 'KK!"K!!'), (("a", ("b", ("c",))), 'KJa"KJb"KJc!!!'),
]


@pytest.mark.parametrize(("value", "text"), TABLE, ids=[t for _, t in TABLE])
def test_table_both_ways(value: Any, text: str) -> None:
    key = text.encode("utf-8")
    assert CODEC.encode((value,)) == key
    back = CODEC.decode(key)
    if type(value) is int:
        assert back == (float(value),)
        assert type(back[0]) is float
    elif not (type(value) is str and "\x00" in value):
        assert identical((value,), back)
    assert CODEC.encode(back) == key


def test_keys_of_several_values_are_arrays() -> None:
    assert CODEC.encode(("a", None)) == b'KJa"A!' == CODEC.encode((("a", None),))
    assert CODEC.encode(()) == b"K!"
    assert ARRAY.encode(("a",)) == b"KJa!"
    assert ARRAY.decode(b'KJa"A!') == ("a", None)
    with pytest.raises(DecodeError):
        ARRAY.decode(b"Ja")


def test_bound_schemas() -> None:
    bound = CODEC.bind("s:string, n:int, b:bool, x:float64")
    row = ("acme", -5, True, 0.25)
    key = bound.encode(row)
    assert key == (b'KJacme"DE499M4.' + b"9" * 20 + b'"C"FE499M2.5' + b"0" * 20 + b"!")
    assert bound.decode(key) == row
    assert type(bound.decode(key)[1]) is int
    assert bound.encode((None, None, None, None)) == b'KA"A"A"A!'
    one = CODEC.bind("n:int")
    assert one.encode((3,)) == CODEC.encode((3.0,))
    assert one.decode(one.encode((3,))) == (3,)
    with pytest.raises(DecodeError):
        one.decode(CODEC.encode((0.5,)))
    with pytest.raises(DecodeError):
        bound.decode(b'KJa"A"A!')  # 3 items for 4 fields
    with pytest.raises(EncodeError):
        bound.encode((1.0, 1, True, 0.5))
    assert CODEC.prefix_range(("acme",)) == (b'KJacme"', b"KJacme#")
    assert bound.prefix_range(("acme", -5)) == (key[:key.index(b'"C')] + b'"',
                                                key[:key.index(b'"C')] + b"#")
    assert CODEC.prefix_range(()) == (b"", None)


def test_ints() -> None:
    """An int is the JS number it equals, up to 2**53; beyond, refused (charwise has no
    BigInt); typed ints and subclasses by their value."""
    assert CODEC.encode((2**53,)) == CODEC.encode((float(2**53),))
    assert CODEC.encode((Int32(-3),)) == CODEC.encode((-3.0,))
    for n in (2**53 + 1, -(2**53) - 1, 2**64, 10**400):
        with pytest.raises(EncodeError) as info:
            CODEC.encode((n,))
        assert info.value.codec == "charwise"


@pytest.mark.parametrize("value", [b"x", bytearray(b"x"), {"a": 1}, object(), 1j,
                                   [b"x"], ("a", {"b"})])
def test_refused_values(value: Any) -> None:
    with pytest.raises(EncodeError) as info:
        CODEC.encode((value,))
    assert info.value.codec == "charwise"


def test_deep_nesting() -> None:
    """Arrays nest up to 256 levels both ways; deeper keys are a DecodeError however deep
    (the reader is iterative), deeper values an EncodeError, a list holding itself too."""
    value: Any = ()
    for _ in range(255):
        value = (value,)
    key = CODEC.encode((value,))
    assert key == b"K" * 256 + b"!" * 256
    assert CODEC.decode(key) == (value,)
    with pytest.raises(EncodeError):
        CODEC.encode(((value,),))
    for data in (b"K" * 257 + b"!" * 257, b"K" * 200_000, b"K" * 100_000 + b"!" * 100_000):
        with pytest.raises(DecodeError) as info:
            CODEC.decode(data)
        assert info.value.offset == 256
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(EncodeError):
        CODEC.encode((loop,))


@pytest.mark.parametrize("text", [
    "", "K", "KJa", 'KJa"', "FE500Mxyz", "K!!", 'K""!', "CC", "BBB", "LL", "KJa?@!?", "KKJa",
    "K!!!!", 'KJa"KJb!', "FE  00", "DE", "FE5", "Z", "A!", "M", " ", "J\x00",
    "FE500M1.0000000000000000000", "FE500M1.000000000000000000000", "FE500M01.0",
    "FE501M10.00000000000000000000", "FE809M1.00000000000000000000", "DaN!", "KJa\x00!",
    "K\"A!", "KA\"!", "FE  0M0 ", "DE500M9.99999999999999999999"])
def test_strict_decoding(text: str) -> None:
    """charwise's lenient readings (spec §5, the vectors' decode_only) and other text its
    encoder never writes are refused, with an offset."""
    with pytest.raises(DecodeError) as info:
        CODEC.decode(text.encode("utf-8"))
    assert info.value.codec == "charwise"
    assert info.value.offset is not None


def test_invalid_utf8_is_refused_at_its_offset() -> None:
    with pytest.raises(DecodeError) as info:
        CODEC.decode(b"Jab\xff")
    assert info.value.offset == 3


def test_declared_anomalies_are_real() -> None:
    check_anomalies(CODEC)
    check_anomalies(ARRAY)
    assert CODEC.config() == {"name": "charwise", "array": False}


# -- the order of JS values: a model written without the codec -----------------------------


def js_key(value: Any) -> tuple[Any, ...]:
    """charwise's claimed order: null < false < true < numbers < strings < arrays <
    undefined; arrays element by element."""
    if value is None:
        return (0,)
    if value is False:
        return (1,)
    if value is True:
        return (2,)
    if type(value) is float:
        return (3, value)
    if type(value) is str:
        return (4, value)
    if type(value) is tuple:
        return (5, tuple(js_key(v) for v in value))
    assert value is UNDEFINED
    return (6,)


#: characters of a string that no anomaly touches: not 00-22 (an array item's end sorts
#: above them, 00/01 are escaped), not ? (the item escape), no surrogates
SAFE_TEXT = st.text(st.characters(min_codepoint=0x23, blacklist_characters="?",
                                  blacklist_categories=("Cs",)), max_size=6)
ANY_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=6)
SAFE_FLOATS = st.floats(allow_nan=False).filter(lambda x: not (x == 0 and
                                                               math.copysign(1, x) < 0))


def js_values(text: st.SearchStrategy[str], floats: st.SearchStrategy[float]
              ) -> st.SearchStrategy[Any]:
    scalars = st.one_of(st.none(), st.booleans(), floats, text, st.just(UNDEFINED))
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4).map(tuple),
                        max_leaves=12)


SAFE = js_values(SAFE_TEXT, SAFE_FLOATS)
ANY = js_values(ANY_TEXT, st.floats())


@given(st.lists(SAFE, min_size=2, max_size=12))
def test_order_matches_the_model(values: list[Any]) -> None:
    keys = {CODEC.encode((v,)): v for v in values}
    by_key = [keys[k] for k in sorted(keys)]
    assert [js_key(v) for v in by_key] == sorted(js_key(v) for v in by_key)
    assert len(keys) == len({js_key(v) for v in values})  # distinct values, distinct keys


@given(SAFE)
def test_round_trip(value: Any) -> None:
    assert identical((value,), CODEC.decode(CODEC.encode((value,))))
    assert identical((value, value), ARRAY.decode(ARRAY.encode((value, value))))


def _negative_zero(value: Any) -> bool:
    if type(value) is tuple:
        return any(_negative_zero(v) for v in value)
    return type(value) is float and value == 0 and math.copysign(1, value) < 0


def _nan(value: Any) -> bool:
    if type(value) is tuple:
        return any(_nan(v) for v in value)
    return type(value) is float and math.isnan(value)


@given(ANY, ANY)
def test_every_disagreement_is_declared(a: Any, b: Any) -> None:
    """Over all values: keys out of the model's order, or one key for values the model tells
    apart, are explained by a declared anomaly (-0.0 and NaN, which the model leaves to the
    float policy, by theirs); every key decodes to a value that encodes to it."""
    ka, kb = CODEC.encode((a,)), CODEC.encode((b,))
    assert CODEC.encode(CODEC.decode(ka)) == ka
    assert CODEC.encode(CODEC.decode(kb)) == kb
    caps = CODEC.capabilities
    if _nan((a, b)) or _negative_zero((a, b)):
        if not _nan((a, b)) and ka != kb and (ka < kb) != (js_key(a) < js_key(b)):
            assert caps.explained(("order",), None, (a,), (b,))
        return
    ma, mb = js_key(a), js_key(b)
    if ka == kb and ma != mb:
        assert caps.explained(("collision",), None, (a,), (b,))
    elif ka != kb and (ma == mb or (ka < kb) != (ma < mb)):
        assert caps.explained(("order", "collision"), None, (a,), (b,))


@given(st.binary(max_size=40) | st.text(alphabet='ABCDFJKLM"!?@%E .0123456789\x00\x01',
                                         max_size=24).map(lambda s: s.encode()))
def test_junk_decodes_exactly_or_is_refused(data: bytes) -> None:
    for codec in (CODEC, ARRAY):
        refused: DecodeError | None = None
        try:
            values = codec.decode(data)
        except DecodeError as exc:
            refused = exc
        if refused is not None:
            assert refused.offset is not None
            assert refused.codec == "charwise"
        else:
            assert codec.encode(values) == data
