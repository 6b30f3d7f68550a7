"""The exception hierarchy: classes, messages, context, pickling."""

from __future__ import annotations

import copy
import datetime
import decimal
import pickle
import re
import uuid
from collections.abc import Iterator

import pytest

from lexcodecs import get_codec
from lexcodecs.errors import (
    MAX_VALUE_REPR,
    DecodeError,
    EncodeError,
    LexCodecError,
    NotDecodableError,
    OptionError,
    RegistryError,
    SchemaError,
    UnknownCodecError,
    UnsupportedTypeError,
    describe_value,
)
from lexcodecs.registry import BUILTIN_CODECS

# -- hierarchy ---------------------------------------------------------------------------------

HIERARCHY = [
    (EncodeError, (LexCodecError, ValueError)),
    (UnsupportedTypeError, (LexCodecError, EncodeError, ValueError, TypeError)),
    (DecodeError, (LexCodecError, ValueError)),
    (NotDecodableError, (LexCodecError, ValueError)),
    (SchemaError, (LexCodecError, ValueError)),
    (OptionError, (LexCodecError, ValueError)),
    (UnknownCodecError, (LexCodecError, LookupError)),
    (RegistryError, (LexCodecError, ValueError)),
]


@pytest.mark.parametrize(("cls", "bases"), HIERARCHY)
def test_hierarchy(cls: type, bases: tuple[type, ...]) -> None:
    for base in bases:
        assert issubclass(cls, base)
    assert issubclass(cls, Exception)


def test_hierarchy_exclusions() -> None:
    assert not issubclass(EncodeError, TypeError)
    assert not issubclass(DecodeError, EncodeError)
    assert not issubclass(UnknownCodecError, ValueError)
    assert not issubclass(DecodeError, LookupError)


def test_catching_as_builtin() -> None:
    with pytest.raises(TypeError):
        raise UnsupportedTypeError("nope", value=object())
    with pytest.raises(ValueError, match="out of range"):
        raise EncodeError("out of range")
    with pytest.raises(LookupError):
        raise UnknownCodecError("x")


# -- messages ----------------------------------------------------------------------------------

MESSAGES = [
    (EncodeError("out of range", codec="skv", field=1, field_name="ts", field_type="int16",
                 value=70000, expected="-32768..32767"),
     "skv: field 1 'ts' (int16): 70000: out of range; expected -32768..32767"),
    (EncodeError("out of range", value=70000),
     "70000: out of range"),
    (EncodeError("bad shape"),
     "bad shape"),
    (EncodeError("bad", codec="c"),
     "c: bad"),
    (EncodeError("bad", field=0),
     "field 0: bad"),
    (EncodeError("bad", field=2, field_type="int8"),
     "field 2 (int8): bad"),
    (UnsupportedTypeError("not an int", codec="toy", field=0, field_name="a",
                          field_type="int64", value="x", expected="int"),
     "toy: field 0 'a' (int64): 'x': not an int; expected int"),
    (SchemaError("unknown field type", field_name="ts", value="strng"),
     "field 'ts': 'strng': unknown field type"),
    (EncodeError("bad", field_name="x", field_type="int8"),
     "field 'x' (int8): bad"),
    (EncodeError("none here", value=None),
     "None: none here"),
    (NotDecodableError("keys of this format cannot be decoded", codec="hash"),
     "hash: keys of this format cannot be decoded"),
    (RegistryError("codec name 'x' is already registered"),
     "codec name 'x' is already registered"),
    (DecodeError("unknown type code", codec="fdb-tuple", offset=3, found=b"\x99"),
     "fdb-tuple: at byte 3 (found 99): unknown type code"),
    (DecodeError("key ends inside a field", offset=7, found=b"", expected="2 more byte(s)"),
     "at byte 7 (found end of key): key ends inside a field; expected 2 more byte(s)"),
    (DecodeError("bad escape", codec="toy", field=1, field_name="s", field_type="string",
                 offset=4, found=b"\x00\x07"),
     "toy: field 1 's' (string): at byte 4 (found 00 07): bad escape"),
    (DecodeError("junk", found=bytes(range(20))),
     "(found 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f …): junk"),
    (DecodeError("junk"),
     "junk"),
    (OptionError("not an allowed value", codec="lexkey", option="nan", value="go!",
                 expected="one of 'go', 'refuse'"),
     "lexkey: option 'nan': 'go!': not an allowed value; expected one of 'go', 'refuse'"),
    (OptionError("unknown option", option="x"),
     "option 'x': unknown option"),
    (UnknownCodecError("toyy", available=("fdb", "toy"), close_matches=("toy",)),
     "unknown codec 'toyy'; did you mean 'toy'? (available: fdb, toy)"),
    (UnknownCodecError("zz", available=("a",), close_matches=("a", "b")),
     "unknown codec 'zz'; did you mean 'a' or 'b'? (available: a)"),
    (UnknownCodecError("zz"),
     "unknown codec 'zz' (no codecs are registered)"),
]


@pytest.mark.parametrize(("error", "message"), MESSAGES)
def test_message(error: LexCodecError, message: str) -> None:
    assert str(error) == message


@pytest.mark.parametrize(("error", "message"), MESSAGES)
def test_pickle_round_trip(error: LexCodecError, message: str) -> None:
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is type(error)
    assert str(again) == message
    assert again.args == error.args
    for attr in ("reason", "codec", "field", "field_name", "field_type", "expected",
                 "has_value", "offset", "found", "option", "name", "available",
                 "close_matches", "text", "position"):
        assert getattr(again, attr, "-") == getattr(error, attr, "-"), attr
    if error.has_value:
        assert again.value == error.value


def test_pickle_keeps_missing_value_missing() -> None:
    error = SchemaError("bad", text="a:foo", position=2)
    assert not error.has_value
    again = pickle.loads(pickle.dumps(error))
    assert not again.has_value
    assert str(again) == str(error)
    assert not copy.copy(error).has_value
    assert not copy.deepcopy(error).has_value


def test_pickle_schema_error_with_caret() -> None:
    error = SchemaError("unknown field type", text="a:foo", position=2, codec="x",
                        expected="a type")
    again = pickle.loads(pickle.dumps(error, protocol=pickle.HIGHEST_PROTOCOL))
    assert str(again) == str(error)
    assert (again.text, again.position) == ("a:foo", 2)


def test_attributes() -> None:
    error = EncodeError("out of range", codec="c", field=1, field_name="b", field_type="int8",
                        value=300, expected="-128..127")
    assert error.reason == "out of range"
    assert (error.codec, error.field, error.field_name, error.field_type) == ("c", 1, "b", "int8")
    assert error.value == 300
    assert error.has_value
    assert error.expected == "-128..127"
    assert error.args == ("out of range",)
    assert not EncodeError("x").has_value
    assert EncodeError("x", value=None).has_value


def test_decode_error_attributes() -> None:
    error = DecodeError("bad", offset=5, found=b"\x01\x02")
    assert error.offset == 5
    assert error.found == b"\x01\x02"
    assert not error.has_value


def test_unknown_codec_attributes() -> None:
    error = UnknownCodecError("toyy", available=("toy",), close_matches=("toy",))
    assert error.name == "toyy"
    assert error.available == ("toy",)
    assert error.close_matches == ("toy",)
    assert error.expected == "one of toy"
    assert UnknownCodecError("x").expected is None


# -- add_context ---------------------------------------------------------------------------------


def test_add_context_fills_missing_parts() -> None:
    error = EncodeError("out of range", value=300, expected="0..255")
    assert error.add_context(codec="c", field=2, field_name="n", field_type="uint8") is error
    assert str(error) == "c: field 2 'n' (uint8): 300: out of range; expected 0..255"


def test_add_context_keeps_known_parts() -> None:
    error = EncodeError("bad", codec="inner", field=0, field_name="x", field_type="int8")
    error.add_context(codec="outer", field=3, field_name="y", field_type="string")
    assert (error.codec, error.field, error.field_name, error.field_type) == \
        ("inner", 0, "x", "int8")


def test_add_context_codec_only_leaves_field_open() -> None:
    error = EncodeError("bad")
    error.add_context(codec="c")
    assert (error.codec, error.field) == ("c", None)
    error.add_context(codec="other", field=1, field_name="b")
    assert (error.codec, error.field, error.field_name) == ("c", 1, "b")
    assert str(error) == "c: field 1 'b': bad"


def test_add_context_keeps_name_given_with_no_index() -> None:
    # a low layer that knows the field's name but not its index keeps the name
    error = SchemaError("bad nulls placement", field_name="ts")
    error.add_context(codec="c", field=4, field_name="other", field_type="int64")
    assert (error.field, error.field_name, error.field_type) == (4, "ts", "int64")


def test_add_context_does_not_set_field_parts_without_index() -> None:
    error = EncodeError("bad")
    error.add_context(field_name="x", field_type="int8")
    assert (error.field, error.field_name, error.field_type) == (None, None, None)


# -- describe_value ------------------------------------------------------------------------------

DESCRIBED = [
    (5, "5"),
    ("abc", "'abc'"),
    (b"\x00", "b'\\x00'"),
    (None, "None"),
    (b"ab" * 100, "b'" + "ab" * 38 + "a… (200 bytes)"),
    (bytearray(200), repr(bytearray(200))[:79] + "… (200 bytes)"),
    ("x" * 100, "'" + "x" * 78 + "… (100 chars)"),
    (tuple(range(50)), repr(tuple(range(50)))[:79] + "… (50 items)"),
    ([0] * 40, repr([0] * 40)[:79] + "… (40 items)"),
    (10**100, str(10**100)[:79] + "…"),
]


@pytest.mark.parametrize(("value", "text"), DESCRIBED)
def test_describe_value(value: object, text: str) -> None:
    assert describe_value(value) == text


def test_describe_value_limit() -> None:
    assert describe_value(b"ab" * 100, limit=20) == "b'ababababababababa… (200 bytes)"
    text = describe_value("y" * 1000)
    assert len(text) <= MAX_VALUE_REPR + len(" (1000 chars)")
    assert describe_value("abc", limit=5) == "'abc'"
    assert describe_value("abcd", limit=5) == "'abc… (4 chars)"


def test_describe_value_broken_repr() -> None:
    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("boom")

    assert describe_value(Broken()) == "<Broken object>"


def test_long_value_is_truncated_in_message() -> None:
    message = str(EncodeError("too long", codec="c", value=b"\x01" * 1_000_000))
    assert len(message) < 200
    assert "(1000000 bytes)" in message


def test_long_found_is_truncated_in_message() -> None:
    message = str(DecodeError("junk", offset=0, found=b"\xab" * 1_000_000))
    assert len(message) < 100
    assert message.count("ab") == 16
    assert "…" in message


# -- SchemaError caret -------------------------------------------------------------------------

CARETS = [
    ("a:foo", 2),
    ("a:int64 sideways", 8),
    ("x", 0),
    ("a:int64,", 8),  # at the end of the text
]


@pytest.mark.parametrize(("text", "position"), CARETS)
def test_schema_error_caret(text: str, position: int) -> None:
    error = SchemaError("bad", text=text, position=position, expected="something")
    head, shown, caret = str(error).split("\n")
    assert head == f"bad; expected something (at column {position + 1})"
    assert shown == "  " + text
    assert caret == "  " + " " * position + "^"
    assert caret.index("^") == shown.index(text) + position


def test_schema_error_without_position_has_no_caret() -> None:
    assert str(SchemaError("bad", text="a:b")) == "bad"
    assert str(SchemaError("bad", position=3)) == "bad"
    error = SchemaError("duplicate field name", codec="c", field=1, field_name="a",
                        field_type="int8", value="a", expected="unique names")
    assert str(error) == "c: field 1 'a' (int8): 'a': duplicate field name; expected unique names"


# -- issue 15: big ints, bounded messages, linear time ------------------------------------


def test_describe_value_of_an_int_beyond_the_str_limit() -> None:
    text = describe_value(10**5000)  # str() would raise ValueError (4300-digit limit)
    assert text == "<int of 16610 bits, about 1e5000>"
    assert describe_value(-(10**5000)) == "<int of 16610 bits, about -1e5000>"
    assert describe_value((1, 10**5000)) == "(1, <int of 16610 bits, about 1e5000>)"


def test_describe_value_of_a_huge_int_is_linear_without_the_str_limit() -> None:
    """Counted, not timed (``work.py``): with no digit limit, describing an int of 1.2 million
    digits (``str()`` would take many seconds) never turns it into decimal text -- under
    Python's smallest limit no conversion is even attempted -- and ten times the bits cost at
    most twice linear work (events, bytes copied, peak memory)."""
    from work import assert_linear, huge_int_conversions, int_digits_limit, measure

    def describe(n: int) -> tuple[str, str]:
        return describe_value(n), str(EncodeError("too big", value=[n, n], expected="small"))

    small, big = 7 << 400_000, 7 << 4_000_000
    with int_digits_limit(0):
        (_, _), w_small = measure(lambda: describe(small))
        (_, (text, message)), w_big = measure(lambda: describe(big))
    assert_linear(w_small, w_big, 10, "describing 7 << 4_000_000 against 7 << 400_000")
    assert not huge_int_conversions(lambda: describe(big))
    assert text.startswith("<int of 4000003 bits, about ")
    assert len(message) < 200


def test_describe_value_of_int_subclasses_and_nesting() -> None:
    class Big(int):
        pass

    assert describe_value(Big(10**5000)) == "<int of 16610 bits, about 1e5000>"
    deep: object = ()
    for _ in range(100_000):
        deep = (deep,)
    assert len(describe_value(deep)) <= MAX_VALUE_REPR + 20


def test_long_expected_is_cut() -> None:
    message = str(EncodeError("out of range", value=1, expected="9" * 10_000))
    assert len(message) < 400


@pytest.mark.usefixtures("impl")
def test_sqlite4_non_integer_decimal_in_int_field_message_is_cut() -> None:
    """Issue 15 item 4: a 50 KB decimal in an int64 field made a 100,000-character message."""
    import decimal

    from lexcodecs import DecodeError, get_codec

    codec = get_codec("sqlite4")
    key = codec.encode((decimal.Decimal("1." + "3" * 100_000),), "a:decimal")
    assert len(key) > 50_000
    with pytest.raises(DecodeError) as info:
        codec.decode(key, "a:int64")
    assert "is not an integer" in str(info.value)
    assert len(str(info.value)) < 400


@pytest.mark.usefixtures("impl")
def test_sqlite4_int_far_out_of_range_message_is_cut() -> None:
    from lexcodecs import DecodeError, get_codec

    codec = get_codec("sqlite4")
    for n in (10**5000, -(10**200)):
        key = codec.encode((n,), "a:int")
        with pytest.raises(DecodeError) as info:
            codec.decode(key, "a:int64")
        assert "out of range for int64" in str(info.value)
        assert len(str(info.value)) < 300


# -- issue 32: "expected an float64 value" -----------------------------------------------------

#: the words an article stands before in messages: the field types, and the names of the
#: Python types of values (``a str is not a value of ...``)
ARTICLE_WORDS = {"string", "bytes", "bool", "int8", "int16", "int32", "int64", "uint8",
                 "uint16", "uint32", "uint64", "int", "float32", "float64", "decimal", "uuid",
                 "timestamp", "duration", "tuple", "integer", "str", "float", "object",
                 "Decimal", "UUID", "datetime", "list", "dict"}
_ARTICLE = re.compile(r"\b([Aa]n?) (\w+)")


def wrong_articles(message: str) -> list[str]:
    """The "a"/"an" of *message* that do not match the sound of the type name after them:
    "an" before a vowel sound (int64, object), "a" before the others (uint8, uuid,
    float64, string)."""
    return [f"{article} {word}" for article, word in _ARTICLE.findall(message)
            if word in ARTICLE_WORDS
            and (article.lower() == "an") != word.startswith(("int", "object"))]


def test_wrong_articles_are_found() -> None:
    assert wrong_articles("expected an float64 value, a int16 or an uuid") == [
        "an float64", "a int16", "an uuid"]
    assert wrong_articles("expected an int64, a uint8, a float64, a string or an integer") == []


#: values that each field type refuses in some codec, and keys that fail to decode
_REFUSED = (None, "x", True, b"x", 1.5, object(), 2**70, -1, uuid.UUID(int=1),
            decimal.Decimal("1.5"), datetime.datetime(2000, 1, 1))
_BAD_KEYS = (b"", b"\x00", b"\x01", b"\x05\x00", b"\x14", b"\x20", b"\x29\x00", b"\x2b\x00",
             b"\x80", b"\xff\xff\xff")


def refusals() -> Iterator[str]:
    """The messages of every built-in codec refusing a value or a key in a one-field schema
    of each type it supports."""
    for name in sorted(BUILTIN_CODECS):
        codec = get_codec(name)
        for field_type in sorted(codec.capabilities.field_types - {"tuple"}):
            schema = f"a:{field_type}"
            for value in _REFUSED:
                try:
                    codec.encode((value,), schema)
                except LexCodecError as exc:
                    yield str(exc)
            for key in _BAD_KEYS:
                try:
                    codec.decode(key, schema)
                except LexCodecError as exc:
                    yield str(exc)


def test_every_refusal_has_the_right_article() -> None:
    wrong = sorted({m for m in refusals() if wrong_articles(m)})
    assert wrong == [], f"{len(wrong)} messages, e.g. {wrong[:3]}"
