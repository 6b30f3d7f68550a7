"""Key schemas: the text form, the dict form, validation, hashing."""

from __future__ import annotations

import json
import operator
import string
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexcodecs.errors import SchemaError
from lexcodecs.schema import FIELD_TYPES, Field, KeySchema, Options

F = Field

# -- text form -----------------------------------------------------------------------------------

# (canonical text, schema): parse(text) == schema and str(schema) == text
TEXT_FORMS: list[tuple[str, KeySchema]] = [
    ("a:int64", KeySchema.of(F("a", "int64"))),
    ("tenant:string, ts:int64 desc, score:float64 nulls last",
     KeySchema.of(F("tenant", "string"), F("ts", "int64", True),
                  F("score", "float64", nulls="last"))),
    ("a:bytes desc nulls first", KeySchema.of(F("a", "bytes", True, "first"))),
    ("a:bytes desc nulls last", KeySchema.of(F("a", "bytes", True, "last"))),
    ("a:bytes nulls first", KeySchema.of(F("a", "bytes", nulls="first"))),
    ("a:bytes length=8", KeySchema.of(F("a", "bytes", options={"length": 8}))),
    ("a:bytes length=-8", KeySchema.of(F("a", "bytes", options={"length": -8}))),
    ("a:bytes length=12345678901234567890",
     KeySchema.of(F("a", "bytes", options={"length": 12345678901234567890}))),
    ("a:bytes final=true", KeySchema.of(F("a", "bytes", options={"final": True}))),
    ("a:bytes final=false", KeySchema.of(F("a", "bytes", options={"final": False}))),
    ("a:string term=nul", KeySchema.of(F("a", "string", options={"term": "nul"}))),
    ('a:string sep="a b, c"', KeySchema.of(F("a", "string", options={"sep": "a b, c"}))),
    ('a:string x="true"', KeySchema.of(F("a", "string", options={"x": "true"}))),
    ('a:string x="12"', KeySchema.of(F("a", "string", options={"x": "12"}))),
    ('a:string x="+12"', KeySchema.of(F("a", "string", options={"x": "+12"}))),
    ('a:string x=""', KeySchema.of(F("a", "string", options={"x": ""}))),
    ('a:string x="say \\"hi\\""', KeySchema.of(F("a", "string", options={"x": 'say "hi"'}))),
    ('a:string x="\\u00e9"', KeySchema.of(F("a", "string", options={"x": "é"}))),
    ("a:string x=1.5", KeySchema.of(F("a", "string", options={"x": "1.5"}))),
    ("a:string x=a/b+c-d", KeySchema.of(F("a", "string", options={"x": "a/b+c-d"}))),
    # options are kept sorted by name
    ("a:int desc nulls first a=1 b=x c=true",
     KeySchema.of(F("a", "int", True, "first", {"c": True, "b": "x", "a": 1}))),
    ("_x.y-z:uuid, b2:timestamp, c:duration, d:decimal, e:tuple, f:bool",
     KeySchema.of(F("_x.y-z", "uuid"), F("b2", "timestamp"), F("c", "duration"),
                  F("d", "decimal"), F("e", "tuple"), F("f", "bool"))),
]


@pytest.mark.parametrize(("text", "schema"), TEXT_FORMS)
def test_text_form_parse(text: str, schema: KeySchema) -> None:
    assert KeySchema.parse(text) == schema


@pytest.mark.parametrize(("text", "schema"), TEXT_FORMS)
def test_text_form_write(text: str, schema: KeySchema) -> None:
    assert str(schema) == text
    assert schema.to_text() == text
    assert ", ".join(f.to_text() for f in schema) == text


# (input, canonical text): other spellings of the same schema
EQUIVALENT_TEXT = [
    ("a:int64 asc", "a:int64"),
    ("a:int64 nulls last desc", "a:int64 desc nulls last"),
    ("a:int64 desc nulls last", "a:int64 desc nulls last"),
    ("a:int64 nulls first asc", "a:int64 nulls first"),
    ("  a : int64  desc ,b:string  ", "a:int64 desc, b:string"),
    ("a:int64\tdesc,\nb:string", "a:int64 desc, b:string"),
    ("a:bytes z=1 desc y=2 nulls first", "a:bytes desc nulls first y=2 z=1"),
    ('a:bytes k="plain"', "a:bytes k=plain"),
    ("a:bytes k = 5", "a:bytes k=5"),
    ("a:bytes k=+5", "a:bytes k=5"),
    ("a:bytes k=007", "a:bytes k=7"),
]


@pytest.mark.parametrize(("text", "canonical"), EQUIVALENT_TEXT)
def test_equivalent_text(text: str, canonical: str) -> None:
    schema = KeySchema.parse(text)
    assert str(schema) == canonical
    assert KeySchema.parse(canonical) == schema


def test_parsed_option_types() -> None:
    options = KeySchema.parse('a:bytes i=3 t=true f=false s=x q="3"')[0].options
    assert dict(options) == {"i": 3, "t": True, "f": False, "s": "x", "q": "3"}
    assert type(options["i"]) is int
    assert options["t"] is True
    assert options["f"] is False
    assert type(options["q"]) is str


# (text, position, fragment of expected, fragment of reason)
PARSE_ERRORS = [
    ("", 0, "a field name", "ends early"),
    ("   ", 3, "a field name", "ends early"),
    ("a", 1, "':' after the field name 'a'", "ends early"),
    ("a:", 2, "a field type", "ends early"),
    ("a:foo", 2, "one of string, bytes", "unknown field type 'foo'"),
    ("a:strng", 2, "one of string", "did you mean string?"),
    ("a:int64,", 8, "a field name", "ends early"),
    ("a:int64,,b:int8", 8, "a field name", "unexpected ','"),
    (",a:int64", 0, "a field name", "unexpected ','"),
    ("1a:int64", 0, "a letter or '_'", "bad field name '1a'"),
    ("a int64", 2, "':' after the field name", "unexpected 'int64'"),
    ("a::int64", 2, "a field type", "unexpected ':'"),
    ("a:int64 sideways", 8, "asc, desc, nulls first, nulls last or key=value",
     "unknown modifier 'sideways'"),
    ("a:int64 dsc", 8, "asc, desc", "did you mean 'desc'?"),
    ("a:int64 b:string", 8, "',' between fields", "missing a comma before 'b'?"),
    ("a:int64 desc b:string", 13, "',' between fields", "missing a comma before 'b'?"),
    ("a:int64 k=1 b :string", 12, "',' between fields", "missing a comma before 'b'?"),
    ("a:INT64", 2, "one of string", "did you mean int64?"),
    ("a:Uuid", 2, "one of string", "did you mean uuid?"),
    ("a:int64 DESC", 8, "asc, desc", "did you mean 'desc'?"),
    ("a:int64 Asc", 8, "asc, desc", "did you mean 'asc'?"),
    ("a:int64 NULLS first", 8, "asc, desc", "did you mean 'nulls'?"),
    ("a:int64 nulls LAST", 14, "'first' or 'last'", "did you mean 'last'?"),
    ("a:int64 desc desc", 13, "one of asc, desc", "order given twice"),
    ("a:int64 asc desc", 12, "one of asc, desc", "order given twice"),
    ("a:int64 nulls", 13, "'first' or 'last'", "'nulls' needs a placement"),
    ("a:int64 nulls middle", 14, "'first' or 'last'", "'nulls' needs a placement"),
    ("a:int64 nulls ,", 14, "'first' or 'last'", "'nulls' needs a placement"),
    ("a:int64 nulls first nulls last", 20, "one nulls placement", "nulls given twice"),
    ("a:int64 k=", 10, "a value after '='", "option has no value"),
    ("a:int64 k=,", 10, "a value after '='", "option has no value"),
    ("a:int64 k=@", 10, "a value after '='", "option has no value"),
    ("a:int64 k=1 k=2", 12, "each option once", "option 'k' given twice"),
    ("a:int64 name=x", 8, "an option name", "bad option name 'name'"),
    ("a:int64 nulls=1", 8, "an option name", "bad option name 'nulls'"),
    ("a:int64 1k=1", 8, "an option name", "bad option name '1k'"),
    ('a:int64 k="\\x"', 10, "a JSON string", "bad quoted string"),
    ("a:int64 :", 8, "a modifier or ','", "unexpected ':'"),
    ("a:int64 = 5", 8, "a modifier or ','", "unexpected '='"),
    ("a:int64 k=1=2", 11, "a modifier or ','", "unexpected '='"),
    ("a:int64 @", 8, "a modifier or ','", "unexpected '@'"),
    ("a:int64;b:int8", 7, "a modifier or ','", "unexpected ';'"),
]


@pytest.mark.parametrize(("text", "position", "expected", "reason"), PARSE_ERRORS)
def test_parse_error(text: str, position: int, expected: str, reason: str) -> None:
    with pytest.raises(SchemaError) as info:
        KeySchema.parse(text)
    error = info.value
    assert error.position == position
    assert error.text == text
    assert expected in (error.expected or "")
    assert reason in error.reason
    lines = str(error).split("\n")
    assert lines[0].endswith(f"(at column {position + 1})")
    assert lines[2].index("^") == 2 + position


def test_parse_refuses_non_text() -> None:
    with pytest.raises(SchemaError, match="must be a str"):
        KeySchema.parse(b"a:int64")  # type: ignore[arg-type]


def test_parse_duplicate_names() -> None:
    with pytest.raises(SchemaError) as info:
        KeySchema.parse("a:int64, b:string, a:string")
    error = info.value
    assert (error.field, error.field_name) == (2, "a")
    assert "duplicate field name" in str(error)


# -- Field ---------------------------------------------------------------------------------------

BAD_FIELDS: list[tuple[dict[str, Any], str]] = [
    ({"name": "1a", "type": "int64"}, "bad field name"),
    ({"name": "", "type": "int64"}, "bad field name"),
    ({"name": "a b", "type": "int64"}, "bad field name"),
    ({"name": "a,b", "type": "int64"}, "bad field name"),
    ({"name": 5, "type": "int64"}, "bad field name"),
    ({"name": "a", "type": "strng"}, "did you mean string"),
    ({"name": "a", "type": "int65"}, "did you mean int64"),
    ({"name": "a", "type": "zzzzzz"}, "unknown field type"),
    ({"name": "a", "type": None}, "unknown field type"),
    ({"name": "a", "type": "int64", "nulls": "middle"}, "bad nulls placement"),
    ({"name": "a", "type": "int64", "nulls": "First"}, "bad nulls placement"),
    ({"name": "a", "type": "int64", "nulls": True}, "bad nulls placement"),
    ({"name": "a", "type": "int64", "descending": 1}, "descending must be a bool"),
    ({"name": "a", "type": "int64", "descending": "yes"}, "descending must be a bool"),
    ({"name": "a", "type": "int64", "descending": None}, "descending must be a bool"),
    ({"name": "a", "type": "int64", "options": {"1x": 1}}, "bad option name"),
    ({"name": "a", "type": "int64", "options": {"order": 1}}, "reserved word"),
    ({"name": "a", "type": "int64", "options": {"x": 1.5}}, "value of type float"),
    ({"name": "a", "type": "int64", "options": {"x": None}}, "value of type NoneType"),
    ({"name": "a", "type": "int64", "options": {"x": [1]}}, "value of type list"),
]


@pytest.mark.parametrize(("kwargs", "message"), BAD_FIELDS)
def test_field_validation(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        Field(**kwargs)


def test_field_errors_name_the_field() -> None:
    with pytest.raises(SchemaError) as info:
        Field("ts", "strng")
    assert info.value.field_name == "ts"
    assert info.value.value == "strng"
    assert "ts" in str(info.value)
    with pytest.raises(SchemaError) as info:
        Field("ts", "int64", nulls="middle")
    assert info.value.field_name == "ts"


# (descending, nulls, effective_nulls, natural_nulls)
NULLS = [
    (False, None, "first", True),
    (False, "first", "first", True),
    (False, "last", "last", False),
    (True, None, "last", True),
    (True, "first", "first", False),
    (True, "last", "last", True),
]


@pytest.mark.parametrize(("descending", "nulls", "effective", "natural"), NULLS)
def test_effective_nulls(descending: bool, nulls: Any, effective: str, natural: bool) -> None:
    f = Field("a", "int64", descending, nulls)
    assert f.effective_nulls == effective
    assert f.natural_nulls is natural


def test_field_defaults_and_repr() -> None:
    f = Field("ts", "int64")
    assert (f.descending, f.nulls, f.options) == (False, None, Options())
    assert repr(Field("ts", "int64", descending=True)) == "Field('ts', 'int64', descending=True)"
    assert repr(Field("ts", "int64")) == "Field('ts', 'int64')"
    every = Field("id", "bytes", True, "first", {"length": 16})
    assert repr(every) == \
        "Field('id', 'bytes', descending=True, nulls='first', options={'length': 16})"
    assert eval(repr(every)) == every  # the call that builds it


def test_field_is_frozen() -> None:
    f = Field("a", "int64")
    with pytest.raises(AttributeError):
        f.name = "b"  # type: ignore[misc]


# -- KeySchema -----------------------------------------------------------------------------------


def test_empty_schema_refused() -> None:
    for empty in ((), []):
        with pytest.raises(SchemaError, match="at least one field"):
            KeySchema(empty)  # type: ignore[arg-type]
    with pytest.raises(SchemaError, match="at least one field"):
        KeySchema.of()
    with pytest.raises(SchemaError, match="at least one field"):
        KeySchema.from_dict({"fields": []})


def test_schema_needs_fields() -> None:
    with pytest.raises(SchemaError, match="not a Field") as info:
        KeySchema((Field("a", "int8"), "b:int8"))  # type: ignore[arg-type]
    assert info.value.field == 1


def test_duplicate_names_refused() -> None:
    with pytest.raises(SchemaError) as info:
        KeySchema.of(Field("a", "int8"), Field("b", "int8"), Field("b", "string"))
    assert (info.value.field, info.value.field_name) == (2, "b")
    assert info.value.expected == "unique names"


def test_schema_access() -> None:
    s = KeySchema.parse("tenant:string, ts:int64 desc, score:float64 nulls last")
    assert s.names == ("tenant", "ts", "score")
    assert s.types == ("string", "int64", "float64")
    assert len(s) == 3
    assert [f.name for f in s] == list(s.names)
    assert s[1] == Field("ts", "int64", True)
    assert s[-1].name == "score"
    assert s.field("score").nulls == "last"
    assert s.index("score") == 2
    with pytest.raises(KeyError):
        s.field("nope")
    with pytest.raises(ValueError):  # noqa: PT011 -- tuple.index raises a bare ValueError
        s.index("nope")


def test_slicing_gives_schemas() -> None:
    s = KeySchema.parse("a:int8, b:int16, c:int32")
    head = s[:2]
    assert isinstance(head, KeySchema)
    assert head == KeySchema.parse("a:int8, b:int16")
    assert s[1:] == KeySchema.parse("b:int16, c:int32")
    assert s[::2].names == ("a", "c")
    with pytest.raises(SchemaError):
        s[3:]


def test_hashable() -> None:
    a = KeySchema.parse("a:int64 desc, b:bytes length=8")
    b = KeySchema.parse("a : int64 desc , b:bytes  length=8")
    assert a == b
    assert a is not b
    assert hash(a) == hash(b)
    cache = {a: "bound"}
    assert cache[b] == "bound"
    assert KeySchema.parse("a:int64") != KeySchema.parse("a:int64 desc")
    assert KeySchema.parse("a:int64") != KeySchema.parse("a:int32")
    assert KeySchema.parse("a:int64") != KeySchema.parse("b:int64")
    assert KeySchema.parse("a:int64") != KeySchema.parse("a:int64 nulls first")


def test_option_one_and_true_differ() -> None:
    one = KeySchema.parse("a:bytes final=1")
    true = KeySchema.parse("a:bytes final=true")
    assert one != true
    assert len({one, true}) == 2
    assert hash(Options({"final": 1})) != hash(Options({"final": True}))
    assert Options({"final": 1}) != Options({"final": True})
    assert Options({"final": 0}) != Options({"final": False})
    assert Options({"x": "1"}) != Options({"x": 1})


def test_options_mapping() -> None:
    o = Options({"b": 2, "a": "x"})
    assert list(o) == ["a", "b"]
    assert len(o) == 2
    assert o["a"] == "x"
    assert o.get("zz") is None
    assert "b" in o
    assert o == {"a": "x", "b": 2}
    assert o != {"a": "x"}
    assert o != {"a": "x", "b": True}
    assert o != {1: 2}  # not valid options: unequal, no error
    assert o != {"name": "x"}
    assert o != [("a", "x"), ("b", 2)]
    assert Options([("a", 1)]) == Options({"a": 1})
    assert Options(Options({"a": 1})) == Options({"a": 1})
    assert repr(o) == "Options({'a': 'x', 'b': 2})"
    with pytest.raises(KeyError):
        o["zz"]


def test_options_immutable() -> None:
    o = Options({"a": 1})
    before = hash(o)
    with pytest.raises(TypeError):
        o["a"] = 2  # type: ignore[index]
    with pytest.raises(TypeError):
        del o["a"]  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        o.extra = 1  # type: ignore[attr-defined]
    assert not hasattr(o, "__dict__")
    assert hash(o) == before
    source = {"a": 1}
    o2 = Options(source)
    source["a"] = 2
    assert o2["a"] == 1
    f = Field("x", "bytes", options=source)
    source["a"] = 3
    assert f.options["a"] == 2


# -- dict and JSON form --------------------------------------------------------------------------

# (schema, dict form): to_dict(schema) == dict and from_dict(dict) == schema
DICT_FORMS: list[tuple[KeySchema, dict[str, Any]]] = [
    (KeySchema.parse("a:int64"), {"fields": [{"name": "a", "type": "int64"}]}),
    (KeySchema.parse("a:int64 desc nulls first, b:bytes length=8 final=true"),
     {"fields": [{"name": "a", "type": "int64", "order": "desc", "nulls": "first"},
                 {"name": "b", "type": "bytes", "final": True, "length": 8}]}),
    (KeySchema.parse('s:string nulls last sep="a, b"'),
     {"fields": [{"name": "s", "type": "string", "nulls": "last", "sep": "a, b"}]}),
]


@pytest.mark.parametrize(("schema", "data"), DICT_FORMS)
def test_dict_form(schema: KeySchema, data: dict[str, Any]) -> None:
    assert schema.to_dict() == data
    assert KeySchema.from_dict(data) == schema
    assert KeySchema.from_json(json.dumps(data)) == schema
    assert json.loads(schema.to_json()) == data
    assert KeySchema.from_json(schema.to_json(indent=2)) == schema


# other dict spellings, and the schema they mean
DICT_INPUTS: list[tuple[dict[str, Any], KeySchema]] = [
    ({"fields": [{"type": "int64"}, {"type": "string", "order": "desc"}]},
     KeySchema.parse("f0:int64, f1:string desc")),
    ({"fields": [{"name": "x", "type": "int64"}, {"type": "string"}]},
     KeySchema.parse("x:int64, f1:string")),
    ({"fields": [{"type": "bytes", "encoding": "fixed", "length": 8, "order": "desc",
                  "nulls": "last"}]},
     KeySchema.of(Field("f0", "bytes", True, "last", {"encoding": "fixed", "length": 8}))),
    ({"fields": [{"name": "a", "type": "int64", "order": "asc"}]},
     KeySchema.parse("a:int64")),
    ({"fields": [{"name": "a", "type": "int64", "descending": True}]},
     KeySchema.parse("a:int64 desc")),
    ({"fields": [{"name": "a", "type": "bytes", "options": {"length": 4}, "final": False}]},
     KeySchema.parse("a:bytes final=false length=4")),
    ({"fields": ({"name": "a", "type": "int8"},)}, KeySchema.parse("a:int8")),
]


@pytest.mark.parametrize(("data", "schema"), DICT_INPUTS)
def test_dict_inputs(data: dict[str, Any], schema: KeySchema) -> None:
    assert KeySchema.from_dict(data) == schema
    assert KeySchema.from_dict(schema.to_dict()) == schema


def test_vector_style_field_round_trip() -> None:
    data = {"type": "bytes", "encoding": "fixed", "length": 8, "order": "desc", "nulls": "last"}
    schema = KeySchema.from_dict({"fields": [data]})
    assert schema.to_dict() == {"fields": [{"name": "f0", **data}]}
    assert str(schema) == "f0:bytes desc nulls last encoding=fixed length=8"
    assert KeySchema.parse(str(schema)) == schema


DICT_ERRORS: list[tuple[Any, str]] = [
    ({}, "needs a 'fields' list"),
    ([], "needs a 'fields' list"),
    ({"fields": "a:int64"}, "'fields' must be a list"),
    ({"fields": b"x"}, "'fields' must be a list"),
    ({"fields": 5}, "'fields' must be a list"),
    ({"fields": ["a:int64"]}, "a field must be a mapping"),
    ({"fields": [{"name": "a"}]}, "field has no type"),
    ({"fields": [{"name": "a", "type": "int64", "order": "up"}]}, "bad order"),
    ({"fields": [{"name": "a", "type": "int64", "nulls": "middle"}]}, "bad nulls"),
    ({"fields": [{"name": "a", "type": "int64"}, {"name": "a", "type": "int8"}]},
     "duplicate field name"),
    ({"fields": [{"name": "a", "type": "int64", "x": 1.5}]}, "value of type float"),
]


@pytest.mark.parametrize(("data", "message"), DICT_ERRORS)
def test_dict_errors(data: Any, message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        KeySchema.from_dict(data)


def test_field_from_dict_needs_a_name() -> None:
    with pytest.raises(SchemaError, match="field has no name"):
        Field.from_dict({"type": "int64"})
    assert Field.from_dict({"type": "int64"}, default_name="k").name == "k"
    assert Field.from_dict({"name": "n", "type": "int64"}, default_name="k").name == "n"


def test_from_json_errors() -> None:
    with pytest.raises(SchemaError) as info:
        KeySchema.from_json('{"fields": [}')
    assert info.value.position == 12
    assert info.value.text == '{"fields": [}'
    assert "not JSON" in str(info.value)
    with pytest.raises(SchemaError, match="needs a 'fields' list"):
        KeySchema.from_json("[]")


# -- coerce --------------------------------------------------------------------------------------

COERCE_EXPECTED = KeySchema.parse("a:int64 desc, b:string")
COERCE_INPUTS: list[Any] = [
    "a:int64 desc, b:string",
    {"fields": [{"name": "a", "type": "int64", "order": "desc"},
                {"name": "b", "type": "string"}]},
    [{"name": "a", "type": "int64", "order": "desc"}, {"name": "b", "type": "string"}],
    ({"name": "a", "type": "int64", "descending": True}, {"name": "b", "type": "string"}),
    (f for f in [{"name": "a", "type": "int64", "order": "desc"},
                 {"name": "b", "type": "string"}]),
]


@pytest.mark.parametrize("value", COERCE_INPUTS)
def test_coerce(value: Any) -> None:
    assert KeySchema.coerce(value) == COERCE_EXPECTED


def test_coerce_identity_and_errors() -> None:
    assert KeySchema.coerce(COERCE_EXPECTED) is COERCE_EXPECTED
    assert KeySchema.coerce([{"type": "int8"}]).names == ("f0",)
    with pytest.raises(SchemaError):
        KeySchema.coerce("a:nope")
    with pytest.raises(SchemaError):
        KeySchema.coerce({"nofields": 1})


# -- properties ----------------------------------------------------------------------------------

_FIRST = string.ascii_letters + "_"
_NAMES = st.builds(operator.add, st.sampled_from(_FIRST),
                   st.text(_FIRST + string.digits + ".-", max_size=8))
_OPTION_NAMES = _NAMES.filter(
    lambda n: n not in {"name", "type", "order", "nulls", "options", "descending"})
_OPTION_VALUES = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.text(max_size=12),
    st.sampled_from(["true", "false", "12", "-3", "+4", "a b", "a,b", 'q"q', "=", "x=y", "é",
                     "\\", "nul", "a/b", "\x00", "\n"]),
)
_FIELD_DATA = st.tuples(
    st.sampled_from(FIELD_TYPES),
    st.booleans(),
    st.sampled_from([None, "first", "last"]),
    st.dictionaries(_OPTION_NAMES, _OPTION_VALUES, max_size=3),
)


@st.composite
def schemas(draw: st.DrawFn) -> KeySchema:
    names = draw(st.lists(_NAMES, min_size=1, max_size=5, unique=True))
    fields = [Field(name, *draw(_FIELD_DATA)) for name in names]
    return KeySchema(tuple(fields))


@given(schemas())
def test_text_round_trip(schema: KeySchema) -> None:
    text = str(schema)
    again = KeySchema.parse(text)
    assert again == schema
    assert hash(again) == hash(schema)
    assert str(again) == text


@given(schemas())
def test_dict_round_trip(schema: KeySchema) -> None:
    assert KeySchema.from_dict(schema.to_dict()) == schema
    assert KeySchema.from_json(schema.to_json()) == schema
    assert KeySchema.coerce(schema.to_dict()["fields"]) == schema
