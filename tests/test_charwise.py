"""``charwise``: the spec's tables both ways, the order of JS values against a model written
without the codec, strict decoding, deep nesting, and the declared anomalies; then the option
``reading="reference"`` (charwise's own reading): its JS ``Number``, its arrays, its errors,
the bound decode, and linear work on hostile keys (counted in lines run, not in time).

The model (:func:`js_key`) is charwise's claimed order of JS values: null < false < true <
numbers (by value) < strings (by code point, which is the UTF-8 byte order) < arrays
(element by element, a prefix first) < undefined. Every test runs on the compiled and on
the reference implementation (``impl``); hypothesis runs under the repository's profiles.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexcodecs import DecodeError, EncodeError, OptionError, _impl
from lexcodecs.codecs.charwise import CharwiseCodec, lenient_decode
from lexcodecs.codecs.charwise.lenient_decode import js_number, js_number_text
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
    assert CODEC.config() == {"name": "charwise", "array": False, "reading": "strict"}


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


#: junk: any bytes, or text of the characters charwise's keys are made of
JUNK = st.binary(max_size=40) | st.text(alphabet='ABCDFJKLM"!?@%E .0123456789\x00\x01\t-x',
                                        max_size=24).map(lambda s: s.encode())


@pytest.mark.parametrize("reading", ["strict", "reference"])
@given(data=JUNK)
def test_junk_decodes_or_is_refused(reading: str, data: bytes) -> None:
    """Any bytes: a DecodeError at an offset, or values (a tuple, with the option array
    too); under the strict reading, values that write those very bytes again."""
    for array in (False, True):
        codec = CharwiseCodec(reading=reading, array=array)
        refused: DecodeError | None = None
        try:
            values = codec.decode(data)
        except DecodeError as exc:
            refused = exc
        if refused is not None:
            assert refused.offset is not None
            assert refused.codec == "charwise"
        elif reading == "strict":
            assert codec.encode(values) == data
        else:
            assert type(values) is tuple


# -- reading="reference": what charwise's own decode returns --------------------------------

REFERENCE = CharwiseCodec(reading="reference")
REFERENCE_ARRAY = CharwiseCodec(reading="reference", array=True)

#: text -> charwise 3.0.1's decode (each checked on Node.js 20): numbers through JS Number()
READ_AS_CHARWISE: list[tuple[str, Any]] = [
    ("FE500M0x10", 4320.0), ("DE500M\t1", -9.8), ("FE\xa0500M1", 1.0), ("F 1", math.nan),
    ("DE  0M0", -0.0), ("FE500M1.5e1", math.nan), ("FE501M1.5", 15.0), ("FE5e2M1", 1.0),
    ("FE0x1F4M2", 2.0), ("FEInfinityM1", math.nan), ("FE500M1M2", 1.0), ("FE500M 1", 1.0),
    ("DE500M 1", math.nan), ("FE500M", math.nan), ("FE   M7", 0.0), ("FE1000M1", math.inf),
    ("DE499M8.99999999999999999999", -1.0), ("FE500M1.", 1.0), ("FE500M.5", 0.5),
    ("FE-1M1", 0.0), ("F\U0001f600500M1", math.nan),
    ("", ""), ("J", ""), ("Ja\x01b", "a\x01b"), ("J\x01\x01", "\x01\x01"), ("Bxyz", False),
    ("C", True), ("CC", False), ("Lxyz", UNDEFINED), ("A", None),
    ("K!", ()), ("K", ()), ('KJa"', ("a",)), ('K""!', ()), ("K!!", UNDEFINED), ("K!!!!", ()),
    ('KA"L"C"CC!', (None, UNDEFINED, True, False)), ('KJa?%?@?x!', ('a"??x',)),
    ("KKJa", (("a",),)), ('K!"KJa!', ()), ("KJa!JUNK", ("a!JUNK",)),
    ('KDaN"FF"DD!', (math.nan, math.inf, -math.inf)),
]


@pytest.mark.parametrize(("text", "value"), READ_AS_CHARWISE,
                         ids=[repr(t) for t, _ in READ_AS_CHARWISE])
def test_reference_reads_as_charwise(text: str, value: Any) -> None:
    back = REFERENCE.decode(text.encode("utf-8"))
    assert identical((value,), back), back


#: bytes -> the byte offset where charwise gives up (Node's errors in the comments)
REFERENCE_ERRORS: list[tuple[bytes, int]] = [
    (b"A!", 0), (b"AA", 0), (b"KA!x", 1),      # TypeError: an item with no array to push to
    (b'K!!"KJa', 4), (b'K!!"Ja', 4), (b'KK!!!"Ja', 6),
    (b"KZ!", 1), (b"K?x!", 1), (b"Z", 0),       # Error: no decoder for
    ("\U0001f600".encode(), 0),
    (b'KJ\xff"Z!', 4), (b'KJ\xe2\x82"Z!', 5),  # after U+FFFD of 1 and of 2 bytes
    (b'KJ\xf0\x9f\x98\x80"Z', 7), (b'KJ\xef\xbf\xbd"Z', 6),
]


@pytest.mark.parametrize(("data", "offset"), REFERENCE_ERRORS,
                         ids=[d.hex() for d, _ in REFERENCE_ERRORS])
def test_reference_errors_name_their_offset(data: bytes, offset: int) -> None:
    with pytest.raises(DecodeError) as info:
        REFERENCE.decode(data)
    assert info.value.codec == "charwise"
    assert info.value.offset == offset
    found = info.value.found
    assert isinstance(found, bytes)
    assert found
    assert data.startswith(found, offset)  # the bytes at the offset
    assert info.value.expected


def test_js_number_and_string() -> None:
    """JS's Number(string) and String(number), on what number.js builds."""
    assert js_number("\ufeff\u3000 12 \n") == 12.0
    assert js_number("+.5e-1") == 0.05
    assert js_number("0b101") == 5.0
    assert js_number("0o17") == 15.0
    assert js_number("0x" + "f" * 300) == math.inf
    assert js_number("-0") == 0.0
    assert math.copysign(1, js_number("-0")) < 0
    for junk in ("1_000", "0x", "1e", "e5", "1 2", "١", "Infinityx", "\x1c1", "--1", "0x-1"):
        assert math.isnan(js_number(junk)), junk
    assert js_number("1" + "0" * 400 + "e-400") == 1.0
    assert [js_number_text(x) for x in (math.nan, math.inf, -math.inf, 1e20, 1e-6, 1e-7,
                                         2.0**66, -498.5)] == \
        ["NaN", "Infinity", "-Infinity", "100000000000000000000", "0.000001", "1e-7",
         "73786976294838210000", "-498.5"]


def test_reference_option() -> None:
    """The option's values, its config, its capabilities: the strict reader's own anomalies
    give way to what charwise's reading loses, each of them real."""
    assert CharwiseCodec.OPTIONS["reading"].default == "strict"
    assert REFERENCE.config() == {"name": "charwise", "array": False, "reading": "reference"}
    assert CharwiseCodec(reading="strict").capabilities == CODEC.capabilities
    with pytest.raises(OptionError):
        CharwiseCodec(reading="lenient")
    names = {a.name for a in REFERENCE.capabilities.anomalies}
    assert {"reference-decoding", "reference-string-escapes-kept",
            "reference-array-items-unescaped"} <= names
    assert not names & {"lenient-reference-decoder", "string-escape-round-trip",
                        "array-string-escape-round-trip"}
    assert "several-values-decode-as-one-array" not in {
        a.name for a in REFERENCE_ARRAY.capabilities.anomalies}
    check_anomalies(REFERENCE)
    check_anomalies(REFERENCE_ARRAY)


def test_reference_array_option() -> None:
    assert REFERENCE_ARRAY.decode(b'KJa"FE500M1') == ("a", 1.0)
    assert REFERENCE_ARRAY.decode(b"K") == ()
    for data in (b"Ja", b"K!!", b""):
        with pytest.raises(DecodeError) as info:
            REFERENCE_ARRAY.decode(data)
        assert info.value.offset == 0


def test_reference_bound_decode() -> None:
    """A schema reads the key as charwise does, then takes each value into its field: an int
    field's number is an int when it is an integral double within +-2**53, None is null in
    every field, anything else is refused; no write-back check."""
    schema = "s:string, n:int"
    assert REFERENCE.decode(b'KJab"FE500M3', schema) == ("ab", 3)  # no closing !
    assert type(REFERENCE.decode(b'KJab"FE500M3', schema)[1]) is int
    assert REFERENCE.bind(schema).decode(b'KJa\x01"FE5e2M3!') == ("a\x01", 3)
    assert REFERENCE.decode(b'KA"A!', schema) == (None, None)
    assert REFERENCE.decode(b'KJ"' + CODEC.encode((2.0**53,)) + b"!", schema) == ("", 2**53)
    assert REFERENCE.decode(b"CC", "b:bool") == (False,)
    assert REFERENCE.decode(b"Ja\x01", "s:string") == ("a\x01",)
    assert REFERENCE.decode(b"FE500M3.0", "n:int") == (3,)
    nan = REFERENCE.decode(b"FE500Mxyz", "x:float64")[0]
    assert math.isnan(nan)
    assert REFERENCE_ARRAY.decode(b"KJa", "s:string") == ("a",)
    refused = [(b'KJa"FE500M3.5!', schema), (b'KJa"' + CODEC.encode((2.0**53 + 2,)) + b"!",
                                                    schema),
               (b'KJa"FF!', schema), (b'KJa"DaN!', schema), (b'KJa"L!', schema),
               (b'KJa"C!', schema), (b'KFE500M1"FE500M1!', schema), (b'KJa!', schema),
               (b'KJa"A"A!', schema), (b"Ja", schema), (b"K!!", "s:string"),
               (b"KJa!", "s:string"), (b"Ja", "b:bool"), (b"A!", "s:string"),
               (b"Ja", "s:string")]
    for data, text in refused[:-1]:
        with pytest.raises(DecodeError) as info:
            REFERENCE.decode(data, text)
        assert info.value.codec == "charwise", data
        assert info.value.offset is not None, data
    assert REFERENCE.decode(*refused[-1]) == ("a",)
    # what strict reading refuses, the reference reading takes
    with pytest.raises(DecodeError):
        CODEC.decode(b'KJab"FE500M3', schema)


def test_reference_reading_never_runs_the_compiled_decoder(monkeypatch: pytest.MonkeyPatch,
                                                          impl: str) -> None:
    """Both implementations read the same way: the compiled module is asked for nothing on a
    decode under the reference reading, with or without a schema."""
    asked: list[str] = []
    real = _impl.compiled

    def compiled(package: str) -> Any:
        asked.append(package)
        return real(package)

    monkeypatch.setattr(_impl, "compiled", compiled)
    codec = CharwiseCodec(reading="reference")  # a fresh bind cache
    assert codec.decode(b'KJa"FE500M3!') == (("a", 3.0),)
    assert codec.decode(b'KJa"FE500M3!', "s:string, n:int") == ("a", 3)
    assert codec.bind("s:string").decode(b"Ja") == ("a",)
    assert asked == []


def _lines_run(work: Callable[[], Any]) -> int:
    """How many lines of ``lenient_decode`` *work* runs: the reader's work, counted."""
    code_file = lenient_decode.__file__
    count = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if frame.f_code.co_filename != code_file:
            return None
        if event == "line":
            count += 1
        return trace

    old = sys.gettrace()
    sys.settrace(trace)
    try:
        work()
    except DecodeError:
        pass
    finally:
        sys.settrace(old)
    return count


#: hostile keys of n units: deep arrays, many items, long numbers, escapes, bad UTF-8
HOSTILE: list[tuple[str, Callable[[int], bytes]]] = [
    ("K", lambda n: b"K" * n), ("quotes", lambda n: b"K" + b'"' * n),
    ("K then !", lambda n: b"K" * n + b"!" * n), ("!", lambda n: b"K" + b"!" * n),
    ("K and quote", lambda n: b'K"' * n), ("quote and K", lambda n: b"K" + b'"K' * n),
    ("closing under zero", lambda n: b"K" + b'!!"' * n + b"Ja"),
    ("items", lambda n: b"K" + b'A"' * n),
    ("escapes", lambda n: b"KJ" + b"?@?%??" * n + b"!"), ("string", lambda n: b"J" + b"x" * n),
    ("spaces", lambda n: b"FE" + b" " * n + b"500M1"), ("digits", lambda n: b"FE500M" + b"1" * n),
    ("flip", lambda n: b"DE499M" + b"\t" * n), ("hex", lambda n: b"FE500M0x" + b"f" * n),
    ("bad utf-8 then error", lambda n: b"KJ" + b"\xff" * n + b'"Z'),
]


@pytest.mark.parametrize(("name", "make"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_reference_work_is_linear(name: str, make: Callable[[int], bytes]) -> None:
    """Twice the key, at most about twice the work: no step rebuilds the text per item, nothing
    recurses (a key of 100,000 K is an array 100,000 deep, as in JS)."""
    small = _lines_run(lambda: REFERENCE.decode(make(2_000)))
    large = _lines_run(lambda: REFERENCE.decode(make(4_000)))
    assert large <= 2 * small + 50, (small, large)


def _depth(value: Any) -> int:
    """How deep *value* nests one-item tuples down to ``()`` (without recursion)."""
    depth = 0
    while value != ():
        assert type(value) is tuple
        assert len(value) == 1
        value, depth = value[0], depth + 1
    return depth


def test_reference_hostile_keys_decode() -> None:
    """What charwise returns for them, however deep: 100,000 K (closed or not) are arrays
    nested 100,000 deep."""
    assert _depth(REFERENCE.decode(b"K" * 100_000)[0]) == 99_999
    assert _depth(REFERENCE.decode(b"K" * 100_000 + b"!" * 100_000)[0]) == 99_999
    assert REFERENCE.decode(b"K" + b'"' * 100_000) == ((),)
    assert REFERENCE.decode(b"K" + b"!" * 100_000) == ((),)
    with pytest.raises(DecodeError) as info:
        REFERENCE.decode(b'"' * 100_000)  # no decoder for "
    assert info.value.offset == 0
    items = REFERENCE.decode(b"K" + b'A"' * 100_000)[0]
    assert items == (None,) * 100_000
    with pytest.raises(DecodeError) as info:
        REFERENCE.decode(b"KJ" + b"\xff" * 100_000 + b'"Z')
    assert info.value.offset == 100_003
    with pytest.raises(DecodeError) as info:
        REFERENCE.decode(b'K!!"' * 100_000)
    assert info.value.offset == 4


