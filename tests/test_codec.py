"""Capabilities, options, BaseCodec behaviour and the generic bound codec (through the toy)."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Sequence
from typing import Any

import pytest
from toys import ToyCodec

from lexcodecs import (
    Anomaly,
    BaseCodec,
    BoundCodec,
    BoundKey,
    Capabilities,
    Codec,
    DecodeError,
    EncodeError,
    Field,
    FieldPlan,
    FloatPolicy,
    KeySchema,
    NotDecodableError,
    Option,
    OptionError,
    SchemaError,
    UnsupportedTypeError,
    _impl,
)
from lexcodecs.schema import FIELD_TYPES

# -- small codecs ------------------------------------------------------------------------------


def _enc_int8(v: Any) -> bytes:
    if type(v) is not int:
        raise UnsupportedTypeError("not an int", value=v, expected="int")
    if not -128 <= v <= 127:
        raise EncodeError("out of range", value=v, expected="-128..127")
    return bytes((v + 128,))


def _dec_int8(key: bytes, offset: int) -> tuple[int, int]:
    if offset >= len(key):
        raise DecodeError("key ends inside a field", offset=offset, found=b"")
    return key[offset] - 128, offset + 1


def _non_negative(value: Any) -> str | None:
    return None if type(value) is int and value >= 0 else "a non-negative int"


class MiniCodec(BaseCodec):
    """int8 fields, one byte each; options to exercise validation."""

    name = "mini"
    CAPABILITIES = Capabilities(field_types={"int8"}, decoding="schema")
    OPTIONS = {  # noqa: RUF012 -- a read-only class table, as in real codecs
        "nan": Option("refuse", "how NaN is written", choices=("refuse", "total")),
        "width": Option(1, "bytes per value", choices=(1, 2)),
        "pad": Option(0, "padding bytes", check=_non_negative),
    }

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        return FieldPlan(index, field, _enc_int8, _dec_int8)


class OtherMiniCodec(MiniCodec):
    name = "mini2"


class SmallCacheCodec(MiniCodec):
    BIND_CACHE_SIZE = 3


class EncodeOnlyCodec(BaseCodec):
    name = "encode-only"
    CAPABILITIES = Capabilities(field_types={"int8"}, decoding="none")

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        return FieldPlan(index, field, _enc_int8)


class NoPlanCodec(BaseCodec):
    name = "no-plan"
    CAPABILITIES = Capabilities(field_types={"int8"}, decoding="schema")


def codec_with(nulls: str = "both", descending: bool = True,
               types: Sequence[str] = ("int8",)) -> BaseCodec:
    caps = Capabilities(field_types=frozenset(types), decoding="schema", descending=descending,
                        nulls=nulls)  # type: ignore[arg-type]
    cls = type("Custom", (MiniCodec,), {"name": "custom", "CAPABILITIES": caps})
    return cls()


# -- Capabilities ------------------------------------------------------------------------------


def test_capabilities_defaults() -> None:
    caps = Capabilities(field_types={"int8", "string"}, decoding="schema")
    assert caps.field_types == frozenset({"int8", "string"})
    assert (caps.descending, caps.nulls, caps.injective, caps.prefix_free) == \
        (False, "fixed", True, True)
    assert caps.float_policy == FloatPolicy()
    assert caps.anomalies == ()


@pytest.mark.parametrize("kwargs", [
    {"field_types": {"int8", "int256"}, "decoding": "schema"},
    {"field_types": {"varchar"}, "decoding": "schema"},
    {"field_types": {"int8"}, "decoding": "sometimes"},
    {"field_types": {"int8"}, "decoding": "schema", "nulls": "middle"},
    {"field_types": {"int8"}, "decoding": "schema", "nulls": None},
])
def test_capabilities_validation(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 -- attrs' validators raise plain ValueError
        Capabilities(**kwargs)


def test_capabilities_unknown_type_message() -> None:
    with pytest.raises(ValueError, match="int256"):
        Capabilities(field_types={"int8", "int256"}, decoding="schema")


ANOMALY = Anomaly("unescaped", "order", "strings with 00 sort wrong", (("a",), ("a\x00",)),
                  schema="s:string", explains=lambda schema, a, b: b[0].startswith(a[0]))
FULL_CAPS = Capabilities(
    field_types=set(FIELD_TYPES), decoding="self-describing", descending=True, nulls="both",
    injective=False, prefix_free=False, schemaless=True,
    float_policy=FloatPolicy(nan="total", negative_zero="equal", compare="repr"),
    anomalies=[ANOMALY, Anomaly("layout", "interop", "not readable elsewhere")],
    int_range=(-(2**63), 2**64 - 1), text_nul=False, notes="a note")


@pytest.mark.parametrize("caps", [FULL_CAPS, Capabilities(field_types={"int8"}, decoding="none"),
                                  ToyCodec.CAPABILITIES])
def test_capabilities_to_dict_is_json(caps: Capabilities) -> None:
    data = caps.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["field_types"] == [t for t in FIELD_TYPES if t in caps.field_types]
    assert data["nulls"] == caps.nulls
    assert isinstance(caps.summary(), str)
    json.dumps(caps.summary())


def test_capabilities_to_dict_content() -> None:
    data = FULL_CAPS.to_dict()
    assert data["float_policy"] == {"nan": "total", "negative_zero": "equal", "compare": "repr"}
    assert data["anomalies"] == [
        {"name": "unescaped", "kind": "order", "description": "strings with 00 sort wrong"},
        {"name": "layout", "kind": "interop", "description": "not readable elsewhere"}]
    assert data["int_range"] == [-(2**63), 2**64 - 1]
    assert data["decoding"] == "self-describing"
    assert (data["schemaless"], data["text_nul"], data["notes"]) == (True, False, "a note")
    assert Capabilities(field_types={"int8"}, decoding="none").to_dict()["int_range"] is None


def test_capabilities_summary() -> None:
    assert FULL_CAPS.summary() == ("self-describing; desc; nulls both; NOT injective; "
                                   "not prefix-free; NaN total; anomalies: unescaped, layout")
    assert Capabilities(field_types={"int8"}, decoding="none").summary() == \
        "encode only; no desc; nulls fixed; injective; prefix-free; NaN refuse"
    assert ToyCodec.CAPABILITIES.summary().startswith("decodes with schema; desc; nulls both")


def test_capabilities_anomaly_lookup() -> None:
    assert FULL_CAPS.anomaly("unescaped") is ANOMALY
    with pytest.raises(KeyError):
        FULL_CAPS.anomaly("nope")
    assert FULL_CAPS.explained(["order"], None, ("a",), ("a\x00b",)) is ANOMALY
    assert FULL_CAPS.explained(["collision"], None, ("a\x00b",), ("a",)) is None
    assert FULL_CAPS.explained(["order"], None, ("b",), ("a",)) is None
    assert FULL_CAPS.explained(["interop"], None, (), ()) is None  # no explainer: explains nothing


def test_capabilities_hashable_and_frozen() -> None:
    a = Capabilities(field_types={"int8"}, decoding="schema")
    b = Capabilities(field_types=["int8"], decoding="schema")
    assert a == b
    assert hash(a) == hash(b)
    with pytest.raises(AttributeError):
        a.nulls = "both"  # type: ignore[misc]


# -- Anomaly -------------------------------------------------------------------------------------

ARITY = [("order", 2), ("collision", 2), ("prefix-leak", 2), ("round-trip", 1), ("interop", 0)]


@pytest.mark.parametrize(("kind", "n"), ARITY)
def test_anomaly_witness_arity(kind: str, n: int) -> None:
    witness = tuple((i,) for i in range(n))
    assert Anomaly("x", kind, "d", witness).witness == witness  # type: ignore[arg-type]
    for wrong in {0, 1, 2, 3} - {n}:
        with pytest.raises(ValueError, match=f"needs a witness of {n} item"):
            Anomaly("x", kind, "d", tuple((i,) for i in range(wrong)))  # type: ignore[arg-type]


def test_anomaly_kind_and_applies() -> None:
    with pytest.raises(ValueError):  # noqa: PT011
        Anomaly("x", "chaos", "d")  # type: ignore[arg-type]
    assert Anomaly("x", "order", "d", [(1,), (2,)]).witness == ((1,), (2,))
    plain = Anomaly("x", "order", "d", ((1,), (2,)))
    assert not plain.applies(None, (1,), (2,))
    assert ANOMALY.applies(None, ("a",), ("ab",))
    assert not ANOMALY.applies(None, ("b",), ("a",))
    # explains does not take part in equality
    assert plain == Anomaly("x", "order", "d", ((1,), (2,)), explains=lambda *a: True)


# -- FloatPolicy ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [
    {"nan": "go"}, {"nan": None}, {"negative_zero": "same"}, {"compare": "approx"},
])
def test_float_policy_validation(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):  # noqa: PT011
        FloatPolicy(**kwargs)


@pytest.mark.parametrize("nan", ["refuse", "total", "lowest", "highest"])
def test_float_policy_describe(nan: str) -> None:
    policy = FloatPolicy(nan=nan)  # type: ignore[arg-type]
    assert policy.describe().endswith("; -0.0 < +0.0")
    assert FloatPolicy(nan=nan, negative_zero="equal").describe().endswith(  # type: ignore[arg-type]
        "; -0.0 == +0.0")


# -- Option --------------------------------------------------------------------------------------

# (option, value, accepted)
OPTION_VALUES = [
    (Option(1, choices=(1, 2)), 1, True),
    (Option(1, choices=(1, 2)), 2, True),
    (Option(1, choices=(1, 2)), True, False),  # True == 1, but it is not the choice 1
    (Option(1, choices=(1, 2)), 1.0, False),
    (Option(1, choices=(1, 2)), 3, False),
    (Option(True, choices=(True, False)), 1, False),
    (Option(True, choices=(True, False)), False, True),
    (Option("go", choices=("go", "stop")), "go", True),
    (Option("go", choices=("go", "stop")), "Go", False),
    (Option(0, check=_non_negative), 5, True),
    (Option(0, check=_non_negative), -1, False),
    (Option(0, check=_non_negative), True, False),
    (Option(0), object(), True),
    (Option(1, choices=(1, 2), check=lambda v: "odd" if v % 2 else None), 2, True),
    (Option(1, choices=(1, 2), check=lambda v: "even, please" if v % 2 else None), 1, False),
]


@pytest.mark.parametrize(("option", "value", "accepted"), OPTION_VALUES)
def test_option_validate(option: Option, value: Any, accepted: bool) -> None:
    if accepted:
        option.validate("c", "opt", value)
        return
    with pytest.raises(OptionError) as info:
        option.validate("c", "opt", value)
    error = info.value
    assert (error.codec, error.option, error.value) == ("c", "opt", value)
    assert str(error).startswith("c: option 'opt': ")


def test_option_messages() -> None:
    with pytest.raises(OptionError) as info:
        Option(1, choices=(1, 2)).validate("c", "width", True)
    assert str(info.value) == \
        "c: option 'width': True: not an allowed value; expected one of 1, 2"
    with pytest.raises(OptionError) as info:
        Option(0, check=_non_negative).validate("c", "pad", -3)
    assert str(info.value) == "c: option 'pad': -3: bad value; expected a non-negative int"


# -- BaseCodec: options, config, identity -----------------------------------------------------


def test_options_defaults_and_given() -> None:
    assert MiniCodec().options == {"nan": "refuse", "width": 1, "pad": 0}
    assert MiniCodec(nan="total", pad=3).options == {"nan": "total", "width": 1, "pad": 3}


def test_unknown_option() -> None:
    with pytest.raises(OptionError) as info:
        MiniCodec(nann="total")
    error = info.value
    assert (error.codec, error.option, error.value) == ("mini", "nann", "total")
    assert "did you mean 'nan'?" in str(error)
    assert error.expected == "one of nan, width, pad"
    with pytest.raises(OptionError) as info:
        EncodeOnlyCodec(x=1)
    assert info.value.expected == "no options"
    assert "did you mean" not in str(info.value)


@pytest.mark.parametrize("kwargs", [{"nan": "go"}, {"width": True}, {"width": 3},
                                    {"pad": -1}, {"pad": "1"}])
def test_bad_option_value(kwargs: dict[str, Any]) -> None:
    with pytest.raises(OptionError) as info:
        MiniCodec(**kwargs)
    assert info.value.option == next(iter(kwargs))


@pytest.mark.parametrize("kwargs", [{}, {"nan": "total"}, {"width": 2, "pad": 7}])
def test_config_round_trip(kwargs: dict[str, Any]) -> None:
    codec = MiniCodec(**kwargs)
    config = codec.config()
    assert config["name"] == "mini"
    assert json.loads(json.dumps(config)) == config
    options = {k: v for k, v in config.items() if k != "name"}
    again = type(codec)(**options)
    assert again == codec
    assert again.config() == config


def test_codec_equality_hash_repr() -> None:
    assert MiniCodec() == MiniCodec()
    assert MiniCodec(nan="refuse") == MiniCodec()  # the default, given explicitly
    assert hash(MiniCodec(nan="refuse")) == hash(MiniCodec())
    assert MiniCodec(nan="total") != MiniCodec()
    assert MiniCodec() != OtherMiniCodec()
    assert MiniCodec() != "mini"
    assert len({MiniCodec(), MiniCodec(), MiniCodec(pad=1)}) == 2
    assert repr(MiniCodec()) == "<MiniCodec 'mini'>"
    assert repr(MiniCodec(nan="total", width=1)) == "<MiniCodec 'mini' nan='total'>"


def test_codec_pickle_and_copy() -> None:
    codec = MiniCodec(pad=2)
    codec.bind("a:int8")  # the bind cache holds closures; pickling must not need it
    for again in (pickle.loads(pickle.dumps(codec)), copy.copy(codec), copy.deepcopy(codec)):
        assert type(again) is MiniCodec
        assert again == codec
        assert again.options == codec.options
        assert again.encode((5,), "a:int8") == codec.encode((5,), "a:int8")
    toy = ToyCodec()
    assert pickle.loads(pickle.dumps(toy)) == toy


def test_capabilities_property() -> None:
    assert MiniCodec().capabilities is MiniCodec.CAPABILITIES


# -- BaseCodec: bind ---------------------------------------------------------------------------


def test_bind_cache_same_object_for_equal_schemas() -> None:
    codec = MiniCodec()
    bound = codec.bind(KeySchema.parse("a:int8, b:int8"))
    assert isinstance(bound, BoundKey)
    assert codec.bind(KeySchema.parse("a:int8,  b:int8")) is bound
    assert codec.bind("a:int8, b:int8") is bound
    assert codec.bind({"fields": [{"name": "a", "type": "int8"},
                                  {"name": "b", "type": "int8"}]}) is bound  # type: ignore[arg-type]
    assert codec.bind("a:int8, c:int8") is not bound
    assert bound.schema == KeySchema.parse("a:int8, b:int8")
    assert bound.codec is codec
    assert repr(bound) == "<BoundKey mini [a:int8, b:int8]>"
    assert MiniCodec().bind("a:int8, b:int8") is not bound  # caches are per instance


def test_bind_cache_eviction() -> None:
    codec = SmallCacheCodec()
    schemas = [KeySchema.parse(f"f{i}:int8") for i in range(4)]
    bound = [codec.bind(s) for s in schemas]
    assert len(codec._bound_by_impl[_impl.current]) == SmallCacheCodec.BIND_CACHE_SIZE
    assert schemas[0] not in codec._bound_by_impl[_impl.current]  # the first bound went first
    for s, b in zip(schemas[1:], bound[1:], strict=True):
        assert codec.bind(s) is b
    again = codec.bind(schemas[0])
    assert again is not bound[0]
    assert again.schema == schemas[0]
    assert len(codec._bound_by_impl[_impl.current]) == SmallCacheCodec.BIND_CACHE_SIZE
    assert schemas[1] not in codec._bound_by_impl[_impl.current]


def test_default_bind_cache_size() -> None:
    codec = MiniCodec()
    for i in range(BaseCodec.BIND_CACHE_SIZE + 5):
        codec.bind(f"f{i}:int8")
    assert len(codec._bound_by_impl[_impl.current]) == BaseCodec.BIND_CACHE_SIZE


def test_bind_refuses_bad_schema_text() -> None:
    with pytest.raises(SchemaError, match="unknown field type"):
        MiniCodec().bind("a:int9")


def test_plan_field_must_be_implemented() -> None:
    with pytest.raises(NotImplementedError, match="NoPlanCodec must implement plan_field"):
        NoPlanCodec().bind("a:int8")


# (codec nulls mode, descending, nulls, accepted)
_COMBINATIONS = [(False, None), (False, "first"), (False, "last"),
                 (True, None), (True, "first"), (True, "last")]
_ACCEPTS = {
    "both": set(_COMBINATIONS),
    "first": {(False, None), (False, "first"), (True, "first")},
    "last": {(False, "last"), (True, None), (True, "last")},
    "fixed": {(False, None), (False, "first"), (True, None), (True, "last")},
    "none": {(False, None), (True, None)},
}
NULL_MODES = [(mode, desc, nulls, (desc, nulls) in accepted)
              for mode, accepted in _ACCEPTS.items() for desc, nulls in _COMBINATIONS]


@pytest.mark.parametrize(("mode", "descending", "nulls", "accepted"), NULL_MODES)
def test_check_field_nulls(mode: str, descending: bool, nulls: Any, accepted: bool) -> None:
    codec = codec_with(nulls=mode)
    # a first field every mode accepts, so the refusal is about field 1
    schema = KeySchema.of(Field("first", "int8", descending=mode != "first"),
                          Field("ts", "int8", descending, nulls))
    if accepted:
        codec.bind(schema)
        return
    with pytest.raises(SchemaError) as info:
        codec.bind(schema)
    error = info.value
    placement = schema[1].effective_nulls
    assert (error.codec, error.field, error.field_name, error.field_type) == \
        ("custom", 1, "ts", "int8")
    assert error.reason.startswith(f"NULL cannot sort {placement} here")
    assert str(error).startswith(f"custom: field 1 'ts' (int8): NULL cannot sort {placement}")
    assert error.expected == ("nulls left out" if mode in ("fixed", "none") else f"nulls {mode}")


def test_check_field_descending_unsupported() -> None:
    codec = codec_with(descending=False)
    codec.bind("a:int8")
    with pytest.raises(SchemaError) as info:
        codec.bind("a:int8, b:int8 desc")
    error = info.value
    assert (error.codec, error.field, error.field_name) == ("custom", 1, "b")
    assert str(error) == ("custom: field 1 'b' (int8): descending fields are not supported; "
                          "expected an ascending field")


def test_check_field_unsupported_type() -> None:
    codec = codec_with(types=("int8", "string", "bool"))
    with pytest.raises(SchemaError) as info:
        codec.bind("a:int8, b:string, c:float64")
    error = info.value
    assert (error.codec, error.field, error.field_name, error.field_type) == \
        ("custom", 2, "c", "float64")
    assert str(error) == ("custom: field 2 'c' (float64): type 'float64' is not supported; "
                          "expected one of string, bool, int8")


def test_refuse_helper() -> None:
    error = MiniCodec().refuse(3, Field("x", "int8"), "too odd", "something even")
    assert isinstance(error, SchemaError)
    assert str(error) == "mini: field 3 'x' (int8): too odd; expected something even"


# -- schemaless hooks and encode-only codecs ---------------------------------------------------


def test_schemaless_defaults() -> None:
    codec = MiniCodec()
    with pytest.raises(SchemaError, match="needs a schema to encode") as info:
        codec.encode((1,))
    assert info.value.codec == "mini"
    with pytest.raises(SchemaError):
        codec.prefix_range((1,))
    with pytest.raises(NotDecodableError, match="decode only with a schema"):
        codec.decode(b"\x81")
    with pytest.raises(NotDecodableError, match="cannot be decoded"):
        EncodeOnlyCodec().decode(b"\x81")


def test_encode_only_codec() -> None:
    codec = EncodeOnlyCodec()
    assert codec.encode((1, -1), "a:int8, b:int8") == b"\x81\x7f"
    assert codec.prefix_range((1,), "a:int8, b:int8") == (b"\x81", b"\x82")
    with pytest.raises(NotDecodableError) as info:
        codec.decode(b"\x81\x7f", "a:int8, b:int8")
    assert info.value.codec == "encode-only"


# -- the toy codec -----------------------------------------------------------------------------

TOY_SCHEMA = KeySchema.parse("a:string, b:int64 desc, c:float64 nulls last, d:bytes, e:bool")

# (values, key) -- both directions
TOY_KEYS = [
    (("x", 5, None, b"\x00", True),
     bytes.fromhex("02 78 00 01 fd 7f ff ff ff ff ff ff fa fe 02 00 ff 00 01 02 01")),
    ((None, None, 1.5, b"", False),
     bytes.fromhex("01 fe 02 bf f8 00 00 00 00 00 00 02 00 01 02 00")),
    (("", -1, -0.0, None, None),
     bytes.fromhex("02 00 01 fd 80 00 00 00 00 00 00 00 02 7f ff ff ff ff ff ff ff 01 01")),
]


@pytest.mark.parametrize(("values", "key"), TOY_KEYS)
def test_toy_keys(values: tuple[Any, ...], key: bytes) -> None:
    toy = ToyCodec()
    assert toy.encode(values, TOY_SCHEMA) == key
    assert toy.decode(key, TOY_SCHEMA) == values
    bound = toy.bind(TOY_SCHEMA)
    assert bound.encode(values) == key
    assert bound.encode(list(values)) == key
    assert bound.decode(key) == values


def test_toy_round_trip_and_order() -> None:
    toy = ToyCodec()
    schema = KeySchema.parse("name:string, n:int64, x:float64 desc nulls first")
    records = [
        (None, None, None), ("", -(2**63), -1.0), ("", 0, None), ("", 0, 2.0), ("", 0, 1.0),
        ("", 0, -0.0), ("a", 2**63 - 1, 0.0), ("a\x00", 0, 1.0), ("a\x00b", 1, 1.0),
        ("ab", -5, float("inf")), ("é", 7, -float("inf")), ("é", 8, None),
    ]
    keys = [toy.encode(r, schema) for r in records]
    for record, key in zip(records, keys, strict=True):
        assert toy.decode(key, schema) == record
    assert sorted(keys) == keys  # the records are listed in value order


@pytest.mark.parametrize("values", [(), ("x",), ("x", 1, None, b"", True, 6)])
def test_toy_arity(values: tuple[Any, ...]) -> None:
    with pytest.raises(EncodeError) as info:
        ToyCodec().encode(values, TOY_SCHEMA)
    error = info.value
    assert error.codec == "toy"
    assert f"the schema has 5 field(s), got {len(values)} value(s)" in str(error)
    assert str(TOY_SCHEMA) in str(error)


def test_toy_values_must_be_a_sequence() -> None:
    with pytest.raises(UnsupportedTypeError, match="must be a tuple or a list"):
        ToyCodec().encode("x5", TOY_SCHEMA)  # type: ignore[arg-type]


def test_toy_error_context() -> None:
    toy = ToyCodec()
    with pytest.raises(EncodeError) as info:
        toy.encode(("x", 2**63, None, b"", True), TOY_SCHEMA)
    error = info.value
    assert type(error) is EncodeError
    assert str(error).startswith("toy: field 1 'b' (int64): 9223372036854775808: out of range")
    assert (error.codec, error.field, error.field_name, error.field_type) == \
        ("toy", 1, "b", "int64")
    with pytest.raises(UnsupportedTypeError) as info2:
        toy.encode(("x", 1, None, "not bytes", True), TOY_SCHEMA)
    assert str(info2.value).startswith("toy: field 3 'd' (bytes): 'not bytes': not bytes")
    with pytest.raises(UnsupportedTypeError) as info3:
        toy.encode(("x", 1, None, b"", 1), TOY_SCHEMA)
    assert info3.value.field == 4


# (key, offset, field, fragment of the message)
TOY_BAD_KEYS = [
    (TOY_KEYS[0][1][:-1], 20, 4, "toy: field 4 'e' (bool): at byte 20 (found end of key)"),
    (TOY_KEYS[0][1][:3], 3, 0, "toy: field 0 'a' (string): at byte 3 (found end of key)"),
    (b"\x03", 0, 0, "toy: field 0 'a' (string): at byte 0 (found 03): bad field header"),
    (b"", 0, 0, "toy: field 0 'a' (string)"),
    (bytes.fromhex("02 78 00 07"), 2, 0, "at byte 2 (found 00 07): bad escape"),
    (bytes.fromhex("01 fe 02 bf f8 00 00 00 00 00 00 02 00 01 02 05"), 15, 4,
     "toy: field 4 'e' (bool): (found 05): bad bool"),
]


@pytest.mark.parametrize(("key", "offset", "field", "message"), TOY_BAD_KEYS)
def test_toy_decode_errors(key: bytes, offset: int, field: int, message: str) -> None:
    with pytest.raises(DecodeError) as info:
        ToyCodec().decode(key, TOY_SCHEMA)
    error = info.value
    assert error.codec == "toy"
    assert error.field == field
    assert error.field_name == TOY_SCHEMA[field].name
    if "bad bool" not in message:  # the toy's bool decoder does not know its offset
        assert error.offset == offset
    assert message in str(error)


def test_toy_trailing_bytes() -> None:
    key = TOY_KEYS[0][1]
    with pytest.raises(DecodeError) as info:
        ToyCodec().decode(key + b"\x00\x01", TOY_SCHEMA)
    error = info.value
    assert (error.offset, error.found, error.field) == (len(key), b"\x00\x01", None)
    assert str(error) == ("toy: at byte 21 (found 00 01): bytes left after the last field; "
                          "expected end of key")


@pytest.mark.parametrize("wrap", [bytes, bytearray, memoryview])
def test_toy_key_types_accepted(wrap: Any) -> None:
    values, key = TOY_KEYS[0]
    assert ToyCodec().decode(wrap(key), TOY_SCHEMA) == values
    assert ToyCodec().bind(TOY_SCHEMA).decode(wrap(key)) == values


@pytest.mark.parametrize("key", ["02 78", 1234, None, [2, 120]])
def test_toy_key_must_be_bytes(key: Any) -> None:
    with pytest.raises(UnsupportedTypeError, match="a key must be bytes") as info:
        ToyCodec().decode(key, TOY_SCHEMA)
    assert info.value.codec == "toy"


def test_toy_prefix_range() -> None:
    toy = ToyCodec()
    schema = KeySchema.parse("a:string, b:int64, c:bool")
    start, stop = toy.prefix_range(("ab",), schema)
    assert start == toy.encode(("ab",), "a:string")
    assert stop == b"\x02ab\x00\x02"
    inside = [("ab", 0, True), ("ab", None, None), ("ab", -(2**63), False), ("ab", 2**63 - 1, True)]
    outside = [("a", 0, True), ("ab\x00", 0, True), ("abc", 0, True), ("b", 0, True),
               (None, 0, True), ("aa", 2**63 - 1, True)]
    for values in inside:
        assert start <= toy.encode(values, schema) < stop  # type: ignore[operator]
    for values in outside:
        key = toy.encode(values, schema)
        assert not start <= key < stop  # type: ignore[operator]
    start2, stop2 = toy.prefix_range(["ab", 5], schema)
    assert start <= start2 < stop2 <= stop  # type: ignore[operator]
    assert toy.prefix_range((), schema) == (b"", None)
    assert toy.bind(schema).prefix_range(("ab",)) == (start, stop)
    full = ("ab", 1, True)
    assert toy.prefix_range(full, schema)[0] == toy.encode(full, schema)


def test_toy_prefix_range_errors() -> None:
    toy = ToyCodec()
    schema = KeySchema.parse("a:string, b:int64")
    with pytest.raises(EncodeError, match="expected at most 2 value"):
        toy.prefix_range(("a", 1, 2), schema)
    with pytest.raises(EncodeError) as info:
        toy.prefix_range(("a", 2**64), schema)
    assert (info.value.field, info.value.field_name) == (1, "b")


def test_toy_schema_refusals() -> None:
    with pytest.raises(SchemaError) as info:
        ToyCodec().bind("a:string, b:int32")
    assert (info.value.codec, info.value.field, info.value.field_name) == ("toy", 1, "b")


# -- the protocol --------------------------------------------------------------------------------


class PlainCodec:
    """Implements the protocol without inheriting anything."""

    name = "plain"
    capabilities = Capabilities(field_types={"bytes"}, decoding="self-describing")

    def encode(self, values: Sequence[Any], schema: Any = None) -> bytes:
        return b"".join(values)

    def decode(self, key: bytes, schema: Any = None) -> tuple[Any, ...]:
        return (key,)

    def prefix_range(self, values: Sequence[Any], schema: Any = None
                     ) -> tuple[bytes, bytes | None]:
        return b"", None

    def bind(self, schema: Any) -> Any:
        return self

    def config(self) -> dict[str, Any]:
        return {"name": self.name}


class AlmostCodec(PlainCodec):
    bind = None  # type: ignore[assignment]


class NoConfig:
    name = "x"
    capabilities = PlainCodec.capabilities
    encode = PlainCodec.encode
    decode = PlainCodec.decode
    prefix_range = PlainCodec.prefix_range
    bind = PlainCodec.bind


def test_protocol_isinstance() -> None:
    assert isinstance(ToyCodec(), Codec)
    assert isinstance(MiniCodec(), Codec)
    assert isinstance(PlainCodec(), Codec)
    assert not isinstance(NoConfig(), Codec)
    assert not isinstance(object(), Codec)
    assert isinstance(ToyCodec().bind(TOY_SCHEMA), BoundCodec)
    assert not isinstance(ToyCodec(), BoundCodec)  # no .schema


def test_bind_as_checks_the_bound_class() -> None:
    class NarrowBound(BoundKey):
        pass

    codec = ToyCodec()
    bound = codec.bind_as("a:int64", BoundKey)
    assert bound is codec.bind("a:int64")
    with pytest.raises(TypeError, match="not NarrowBound"):
        codec.bind_as("a:int64", NarrowBound)
