"""``inspect`` for ``fdb-tuple``, ``lexkey`` and ``lexkey-legacy``: spans that tile the key,
parts that tile each field, values equal to ``decode``, the roles and notes (LexKey's
ambiguities), refusals of non-keys, and dispatch through :func:`inspect_key`."""

from __future__ import annotations

import datetime as dt
import json
import re
import struct
import uuid
from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexcodecs import DecodeError, KeySchema, NotDecodableError
from lexcodecs.codecs.fdb_tuple import FdbTupleCodec
from lexcodecs.codecs.lexkey import LexKeyCodec, LexKeyLegacyCodec
from lexcodecs.inspection import Inspection, inspect_key
from lexcodecs.testing.strategies import junk_keys, keys
from lexcodecs.types import Float32, Int16, UInt16, Versionstamp

FDB = FdbTupleCodec()
LEX = LexKeyCodec()
LEGACY = LexKeyLegacyCodec()


def same(a: Any, b: Any) -> bool:
    """Equal values, NaN and -0.0 compared by their bits."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, Float32):
        return bool(a.bits == b.bits)
    if isinstance(a, float):
        return struct.pack(">d", a) == struct.pack(">d", b)
    return bool(a == b)


def check(ins: Inspection, key: bytes, values: tuple[Any, ...] | None = None,
          render: bool = True) -> None:
    """Fields tile the key; each field's parts tile the field, in order; the values match."""
    assert ins.key == key
    pos = 0
    for i, f in enumerate(ins.fields):
        assert f.index == i
        assert f.start == pos, f"field {i} starts at {f.start}, not {pos}"
        assert f.start <= f.end
        assert f.parts, f"field {i} has no parts"
        at = f.start
        for p in f.parts:
            assert p.start == at, f"field {i}: part {p} does not start at {at}"
            assert p.start <= p.end
            assert p.role
            assert p.text
            at = p.end
        assert at == f.end, f"field {i}: parts end at {at}, the field at {f.end}"
        pos = f.end
    assert pos == len(key)
    if values is not None:
        got = tuple(f.value for f in ins.fields)
        assert same(got, values), (got, values)
    if render:
        ins.render()
        json.dumps(ins.to_dict())


def has_row(text: str, *cells: str) -> bool:
    """Whether a line of the rendered table holds *cells* in this order, each the whole of
    a cell (the columns are separated by two or more spaces)."""
    pattern = r"(?:^|\s{2,})" + r"\s{2,}".join(re.escape(c) for c in cells) + r"(?:\s{2,}|$)"
    return any(re.search(pattern, line) for line in text.splitlines())


def spans(ins: Inspection, field: int) -> list[tuple[int, int, str]]:
    return [(p.start, p.end, p.role) for p in ins.fields[field].parts]


# -- fdb-tuple --------------------------------------------------------------------------------

FDB_MIXED = ("user", 12345, -5551212, b"a\x00\xffb", None, 3.5, -1.0, -0.0, Float32(-42.0),
             True, False, uuid.UUID(int=5), Versionstamp(b"\x01" * 10, 7),
             (1, (None, "a\x00"), ()), 2**70, -(2**70), 0, "", b"")


def test_fdb_mixed_key() -> None:
    key = FDB.encode(FDB_MIXED)
    ins = FDB.inspect(key)
    check(ins, key, FDB.decode(key))
    assert ins.schema is None
    assert not ins.notes  # every element is in the form this codec writes
    text = ins.render()
    for word in ("type", "payload", "escape", "terminator", "null", "length", "nested type",
                 "nested payload", "nested null", "nested escape", "nested terminator",
                 "unicode string", "byte string", "int, 2 bytes, positive",
                 "negative int, 3 bytes", "double (binary64)", "float (binary32)",
                 "IEEE order transform", "true", "false", "UUID", "versionstamp",
                 "nested tuple", "int zero", "arbitrary precision", "user version 7"):
        assert word in text, word
    assert [f.kind for f in ins.fields] == [
        "string", "int", "int", "bytes", "null", "float64", "float64", "float64", "float32",
        "bool", "bool", "uuid", "versionstamp", "tuple", "int", "int", "int", "string",
        "bytes"]


def test_fdb_escapes_and_null() -> None:
    key = FDB.encode((b"a\x00b", None, "\x00"))
    assert key.hex() == "016100ff6200" "00" "0200ff00"
    ins = FDB.inspect(key)
    check(ins, key, (b"a\x00b", None, "\x00"))
    assert spans(ins, 0) == [(0, 1, "type"), (1, 2, "payload"), (2, 4, "escape"),
                             (4, 5, "payload"), (5, 6, "terminator")]
    assert spans(ins, 1) == [(6, 7, "null")]
    assert spans(ins, 2) == [(7, 8, "type"), (8, 10, "escape"), (10, 11, "terminator")]
    assert ins.fields[0].parts[2].text == "a 00 byte of the value, escaped as 00 ff"


def test_fdb_ff_is_not_escaped() -> None:
    key = FDB.encode((b"\x00\xff", b"\xff"))
    assert key.hex() == "0100ffff00" "01ff00"
    ins = FDB.inspect(key)
    check(ins, key, (b"\x00\xff", b"\xff"))
    assert spans(ins, 0) == [(0, 1, "type"), (1, 3, "escape"), (3, 4, "payload"),
                             (4, 5, "terminator")]


def test_fdb_nested_tuples() -> None:
    key = bytes.fromhex("05 1501 05 00ff 026100 00 00")
    ins = FDB.inspect(key)
    check(ins, key, ((1, (None, "a")),))
    assert [(p.start, p.end, p.role, p.text) for p in ins.fields[0].parts] == [
        (0, 1, "type", "nested tuple"),
        (1, 2, "nested type", "[0] int, 1 byte, positive"),
        (2, 3, "nested payload", "[0] 1, big-endian"),
        (3, 4, "nested type", "[1] nested tuple"),
        (4, 6, "nested null", "[1][0] NULL (00 ff in a nested tuple)"),
        (6, 7, "nested type", "[1][1] unicode string (UTF-8)"),
        (7, 8, "nested payload", "[1][1] UTF-8 'a'"),
        (8, 9, "nested terminator", "[1][1] end of string"),
        (9, 10, "nested terminator", "[1] end of nested tuple"),
        (10, 11, "terminator", "end of nested tuple"),
    ]


def test_fdb_empty_nested_and_empty_key() -> None:
    key = bytes.fromhex("0500 050500 00")
    ins = FDB.inspect(key)
    check(ins, key, ((), ((),)))
    assert spans(ins, 1) == [(2, 3, "type"), (3, 4, "nested type"),
                             (4, 5, "nested terminator"), (5, 6, "terminator")]
    empty = FDB.inspect(b"")
    check(empty, b"", ())
    assert empty.fields == ()


def test_fdb_deep_nesting_is_not_recursive() -> None:
    # the deepest nesting the codec allows (max_depth=256: 256 tuples inside the key) is read
    # without recursion
    deep = FdbTupleCodec(max_depth=256)
    key = b"\x05" * 256 + b"\x00" * 256
    ins = deep.inspect(key)
    check(ins, key, render=False)
    assert len(ins.fields) == 1
    assert len(ins.fields[0].parts) == 512
    assert ins.fields[0].parts[8].text == "[0]" * 8 + " nested tuple"
    assert ins.fields[0].parts[255].text == "[0][0][0]…[0][0][0] (depth 255) nested tuple"
    assert not ins.notes  # encode writes this nesting too


def test_fdb_nesting_beyond_the_limit_is_refused_early() -> None:
    key = b"\x05" * 2000 + b"\x00" * 2000
    with pytest.raises(DecodeError) as info:
        FDB.inspect(key)
    # at the 05 that opens one tuple more than max_depth allows
    assert info.value.offset == FDB.options["max_depth"], str(info.value)


@pytest.mark.parametrize(("value", "hex_", "type_text", "payload_text"), [
    (-1, "13fe", "negative int, 1 byte", "-1 + 2**8 - 1 (one's complement of 1), big-endian"),
    (-256, "12feff", "negative int, 2 bytes", "-256 + 2**16 - 1"),
    (255, "15ff", "int, 1 byte, positive", "255, big-endian"),
    (2**64, "1d09010000000000000000", "positive int, arbitrary precision", "18446744073709551616"),
    (-(2**64), "0bf6feffffffffffffffff", "negative int, arbitrary precision",
     "one's complement of 18446744073709551616"),
])
def test_fdb_ints(value: int, hex_: str, type_text: str, payload_text: str) -> None:
    key = FDB.encode((value,))
    assert key.hex() == hex_
    ins = FDB.inspect(key)
    check(ins, key, (value,))
    parts = ins.fields[0].parts
    assert parts[0].text == type_text
    assert payload_text in parts[-1].text
    if abs(value) >= 2**64:
        assert parts[1].role == "length"
        assert parts[1].text.startswith("9 bytes follow")


@pytest.mark.parametrize(("value", "how"), [
    (0.0, "sign bit flipped"), (-0.0, "every bit inverted"), (float("inf"), "sign bit flipped"),
    (float("-inf"), "every bit inverted"), (float("nan"), "sign bit flipped"),
    (-float("nan"), "every bit inverted"), (Float32(-3.14), "every bit inverted"),
    (Float32(float("nan")), "sign bit flipped"),
])
def test_fdb_floats(value: Any, how: str) -> None:
    key = FDB.encode((value,))
    ins = FDB.inspect(key)
    check(ins, key, FDB.decode(key))
    assert how in ins.fields[0].parts[1].text
    assert not ins.notes  # NaN payloads and -0.0 are written back bit for bit


@pytest.mark.usefixtures("impl")
def test_fdb_with_schema_names_and_types() -> None:
    schema = "name:string, n:int16, x:float64, flag:bool, id:uuid, t:tuple, b:bytes, g:float32"
    values = ("acme", -7, None, True, uuid.UUID(int=1), (None, 2), None, Float32(1.5))
    key = FDB.encode(values, schema)
    ins = inspect_key(FDB, key, schema)
    check(ins, key, FDB.decode(key, schema))
    assert ins.schema == str(KeySchema.parse(schema))
    assert [f.name for f in ins.fields] == ["name", "n", "x", "flag", "id", "t", "b", "g"]
    assert [f.kind for f in ins.fields] == ["string", "int16", "float64", "bool", "uuid",
                                            "tuple", "bytes", "float32"]
    text = ins.render()
    assert has_row(text, "[6:8]", "field 1 'n'", "int16 = -7")
    assert has_row(text, "field 2 'x'", "float64 = None")


@pytest.mark.usefixtures("impl")
def test_fdb_notes_for_forms_this_codec_does_not_write() -> None:
    key = bytes.fromhex("1cffffffffffffffff" "160001" "33ffffffffffffffffffff0005" "05160002 00")
    ins = FDB.inspect(key)
    check(ins, key, FDB.decode(key))
    assert len(ins.notes) == 4
    assert "max_u64_form='python'" in ins.notes[0]
    assert "1d 08 ff ff ff ff ff ff ff ff" in ins.notes[0]
    assert "non-minimal" in ins.notes[1]
    assert "(15 01)" in ins.notes[1]
    assert "incomplete versionstamp" in ins.notes[2]
    assert "non-minimal" in ins.notes[3]
    assert "transaction version ff × 10: incomplete" in ins.render()
    java = FdbTupleCodec(max_u64_form="java")
    assert java.inspect(bytes.fromhex("1cffffffffffffffff")).notes == ()
    assert "max_u64_form='java'" in java.inspect(bytes.fromhex("1d08ffffffffffffffff")).notes[0]


@pytest.mark.parametrize(("hex_", "schema"), [
    ("15", None), ("1c01", None), ("0261", None), ("0100ff", None), ("05", None),
    ("0500ff", None), ("0502", None), ("05ff00", None), ("00ff", None), ("0261006200", None),
    ("03", None), ("ff", None), ("02c300", None), ("1d090102", None),
    ("026100", "n:int"), ("1501", "n:int, m:int"), ("15011502", "n:int"),
    ("1dff" + "ff" * 255, "n:int64"), ("16ffff", "n:int8"), ("2100", "x:float64"),
])
@pytest.mark.usefixtures("impl")
def test_fdb_non_keys_raise(hex_: str, schema: str | None) -> None:
    with pytest.raises(DecodeError):
        FDB.inspect(bytes.fromhex(hex_), schema)
    with pytest.raises(DecodeError):
        inspect_key(FDB, bytes.fromhex(hex_), schema)


# -- lexkey -----------------------------------------------------------------------------------


def test_lexkey_seed_key_with_schema() -> None:
    schema = "s:string, n:int64, b:bool"
    key = LEX.encode(("foo", 42, True))
    ins = LEX.inspect(key, schema)
    check(ins, key, LEX.decode(key, schema))
    assert spans(ins, 0) == [(0, 3, "payload"), (3, 4, "separator")]
    assert spans(ins, 1) == [(4, 12, "payload"), (12, 13, "separator")]
    assert spans(ins, 2) == [(13, 14, "payload")]
    assert ins.fields[1].parts[0].text == "42: int64, sign bit flipped"
    text = ins.render()
    assert has_row(text, "[3:4]", "00", "separator", "00 between parts")
    assert "note: field 0 's' (string) is 3 bytes: what is left" in text
    assert ("field 1 'n' (int64): no tag says its type is int64; as another type its 8 bytes read "
            "as uint64 9223372036854775850, float64 2.08e-322; read without the schema, its "
            "00 at bytes 5-10 could be taken for separators") in ins.notes


def test_lexkey_nul_inside_a_string() -> None:
    schema = "s:string, n:int64"
    key = bytes.fromhex("610062 00 800000000000002a")
    ins = LEX.inspect(key, schema)
    check(ins, key, ("a\x00b", 42))
    assert spans(ins, 0) == [(0, 1, "payload"), (1, 2, "nul"), (2, 3, "payload"),
                             (3, 4, "separator")]
    note = next(n for n in ins.notes if "holds 00" in n)
    assert "holds 00 at byte 1" in note
    assert "nul-sorts-as-separator" in note
    assert "('a', 'b')" in note
    assert LEX.encode(("a", "b")) == key[:3]  # the note's claim


def test_lexkey_string_last_and_empty() -> None:
    schema = "n:int64, s:string"
    key = LEX.encode((1, ""), schema)
    ins = LEX.inspect(key, schema)
    check(ins, key, (1, ""))
    assert spans(ins, 1) == [(9, 9, "payload")]
    assert "(none)" in ins.render()
    key = LEX.encode((1, "\x00"), schema)
    ins = LEX.inspect(key, schema)
    check(ins, key, (1, "\x00"))
    assert any("also how None (NULL) and False are written" in n for n in ins.notes)
    assert any("('', '')" in n for n in ins.notes)


def test_lexkey_bytes_field_with_nuls() -> None:
    schema = "b:bytes, f:bool"
    key = LEX.encode((b"\x00\x00x\x00", False), schema)
    ins = LEX.inspect(key, schema)
    check(ins, key, (b"\x00\x00x\x00", False))
    assert [r for _, _, r in spans(ins, 0)] == ["nul", "nul", "payload", "nul", "separator"]
    assert any("bytes 0-1, 3" in n for n in ins.notes)
    assert any("(b'', b'', b'x', b'')" in n for n in ins.notes)
    assert any("null-does-not-round-trip" in n for n in ins.notes)  # the False part


def test_lexkey_fixed_width_could_be_another_type() -> None:
    ins = LEGACY.inspect(LEGACY.encode((Int16(123),)), "a:int16")
    assert any("uint16 32891" in n for n in ins.notes)
    ins = LEX.inspect(LEX.encode((UInt16(7),)), "a:uint16")
    check(ins, LEX.encode((UInt16(7),)), (7,))
    assert "(canonical width; must fit uint16)" in ins.fields[0].parts[0].text
    key = bytes.fromhex("97979cfe362a0000")
    ins = LEX.inspect(key, "t:timestamp")
    check(ins, key, LEX.decode(key, "t:timestamp"))
    note = next(n for n in ins.notes if "no tag" in n)
    assert "int64 1700000000000000000" in note
    assert "duration timedelta(19675 days, 22:13:20)" in note


def test_lexkey_negative_zero_and_null_like() -> None:
    schema = "x:float64, b:bool"
    key = LEX.encode((-0.0, False), schema)
    ins = LEX.inspect(key, schema)
    check(ins, key, (-0.0, False))
    assert "only the sign bit flipped" in ins.fields[0].parts[0].text
    assert any("negative-zero-below-inf" in n for n in ins.notes)
    assert any("int64 -9223372036854775808, uint64 0" in n for n in ins.notes)
    assert ins.fields[1].parts[0].text == "false (None is also written 00)"


def test_lexkey_go_nan() -> None:
    key = bytes.fromhex("7ff8000000000001")
    go = LexKeyCodec(nan="go")
    ins = go.inspect(key, "x:float64")
    assert ins.fields[0].value != ins.fields[0].value  # NaN
    assert any("go-nan-collides" in n and "read as NaN" in n for n in ins.notes)
    ins = LEX.inspect(key, "x:float64")
    check(ins, key, (-1.1125369292535997e-308,))
    assert any("read as that number" in n for n in ins.notes)
    legacy_go = LexKeyLegacyCodec(nan="go")
    ins = legacy_go.inspect(bytes.fromhex("7fc00001"), "x:float32")
    assert any("803ffffe" in n for n in ins.notes)


def test_lexkey_legacy_widths() -> None:
    schema = "a:int8, b:uint16, c:float32, d:int32, s:string"
    values = (-123, 65535, Float32(3.14), -1, "z")
    key = LEGACY.encode(values, schema)
    ins = LEGACY.inspect(key, schema)
    check(ins, key, values)
    assert [f.end - f.start for f in ins.fields] == [2, 3, 5, 5, 1]
    assert ins.fields[0].parts[0].text == "-123: int8, sign bit flipped"
    assert "IEEE binary32" in ins.fields[2].parts[0].text


def test_lexkey_without_schema() -> None:
    key = LEX.encode(("foo", 42, True))
    ins = LEX.inspect(key)
    check(ins, key, (key,))
    assert ins.schema is None
    assert spans(ins, 0) == [(0, 3, "data"), (3, 4, "separator?"), (4, 5, "data"),
                             (5, 11, "separator?"), (11, 12, "data"), (12, 13, "separator?"),
                             (13, 14, "data")]
    assert "do not decode" in ins.notes[0]
    assert "at most 9 parts" in ins.notes[1]
    with pytest.raises(NotDecodableError):
        LEX.decode(key)  # inspect explains; decode still refuses


def test_lexkey_without_schema_edges() -> None:
    ins = LEX.inspect(b"")
    check(ins, b"", (b"",))
    assert spans(ins, 0) == [(0, 0, "data")]
    ins = LEX.inspect(b"abc")
    assert any("the key is a single part" in n for n in ins.notes)
    ins = LEGACY.inspect(b"\x00")
    check(ins, b"\x00", (b"\x00",))
    assert spans(ins, 0) == [(0, 1, "nul")]  # the last byte is never a separator
    assert any("the key is a single part" in n for n in ins.notes)
    assert any("ends with 00" in n for n in ins.notes)
    assert any("bool False, int8 -128, uint8 0" in n for n in ins.notes)
    ins = LEX.inspect(b"\x00a\x00\x00")
    assert spans(ins, 0) == [(0, 1, "separator?"), (1, 2, "data"), (2, 3, "separator?"),
                             (3, 4, "nul")]
    assert any("starts with 00" in n for n in ins.notes)
    assert any("at most 3 parts" in n for n in ins.notes)
    ins = LEX.inspect(LEX.encode((42,)))
    assert any("int64 42" in n and "float64 2.08e-322" in n for n in ins.notes)


@pytest.mark.parametrize(("hex_", "schema"), [
    ("80000000000000", "n:int64"), ("61", "s:string, n:int64"),
    ("61008000000000002a", "s:string, n:int64"), ("800000000000002a0002", "n:int64, b:bool"),
    ("8000000000000100", "n:int8"), ("0000000000000001", "x:float64"),
    ("800000000000002a", "d:duration"), ("ff", "s:string"),
])
def test_lexkey_non_keys_raise(hex_: str, schema: str) -> None:
    with pytest.raises(DecodeError):
        LEX.inspect(bytes.fromhex(hex_), schema)
    with pytest.raises(DecodeError):
        inspect_key(LEX, bytes.fromhex(hex_), schema)


def test_lexkey_two_variable_fields_do_not_decode() -> None:
    with pytest.raises(NotDecodableError):
        LEX.inspect(bytes.fromhex("610062"), "s:string, t:string")


@pytest.mark.usefixtures("impl")
def test_lexkey_inspect_is_a_decode_with_annotations() -> None:
    """inspect runs the bound schema's own reader (the one decode runs) with a sink, under
    either implementation, and shows exactly what decode gives."""
    from lexcodecs.codecs.lexkey.bound import BoundLexKey

    schema = "s:string, n:int64"
    key = LEX.encode(("a\x00b", 1), schema)
    with mock.patch.object(BoundLexKey, "read", autospec=True,
                           side_effect=BoundLexKey.read) as spy:
        ins = LEX.inspect(key, schema)
    spy.assert_called_once()
    assert spy.call_args.args[1] == key
    assert spy.call_args.args[2] is not None  # the annotating sink
    check(ins, key, LEX.decode(key, schema))


# -- dispatch ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("codec", "key", "schema"), [
    (FDB, bytes.fromhex("0261001505"), None),
    (FDB, bytes.fromhex("0261001505"), "s:string, n:int8"),
    (LEX, bytes.fromhex("6100800000000000002a"), "s:string, n:int64"),
    (LEX, bytes.fromhex("6100"), None),
    (LEGACY, bytes.fromhex("807b"), "n:int16"),
])
def test_inspect_key_dispatches(codec: Any, key: bytes, schema: str | None) -> None:
    cls = type(codec)
    with mock.patch.object(cls, "inspect", autospec=True, side_effect=cls.inspect) as spy:
        ins = inspect_key(codec, bytearray(key), schema)
    spy.assert_called_once()
    _, data, parsed = spy.call_args.args
    assert type(data) is bytes
    assert data == key
    assert parsed == (None if schema is None else KeySchema.parse(schema))
    assert ins == codec.inspect(key, schema)
    assert not any("has no inspect()" in n for n in ins.notes)


# -- properties -------------------------------------------------------------------------------

FDB_SCHEMA = KeySchema.parse("s:string, b:bytes, i:int, j:int16, u:uint64, f:float64, "
                             "g:float32, o:bool, id:uuid, t:tuple")
_SCALARS = (st.none() | st.booleans() | st.integers(-(2**80), 2**80) | st.text(max_size=4)
            | st.binary(max_size=4) | st.floats() | st.uuids()
            | st.builds(Versionstamp, st.binary(min_size=10, max_size=10),
                        st.integers(0, 65535)))
_NESTED = st.recursive(st.lists(_SCALARS, max_size=3).map(tuple),
                       lambda inner: st.lists(_SCALARS | inner, max_size=3).map(tuple),
                       max_leaves=8)
FDB_OVERRIDES = {"tuple": _NESTED}


@pytest.mark.usefixtures("impl")
@given(keys(FDB_SCHEMA, FDB.capabilities, FDB_OVERRIDES))
def test_fdb_property_schema(values: tuple[Any, ...]) -> None:
    key = FDB.encode(values, FDB_SCHEMA)
    check(FDB.inspect(key, FDB_SCHEMA), key, FDB.decode(key, FDB_SCHEMA))
    ins = FDB.inspect(key)
    check(ins, key, FDB.decode(key))
    assert not ins.notes


@given(st.lists(_SCALARS | _NESTED, max_size=6).map(tuple))
def test_fdb_property_schemaless(values: tuple[Any, ...]) -> None:
    key = FDB.encode(values)
    check(FDB.inspect(key), key, FDB.decode(key))


@given(junk_keys(FDB_SCHEMA, FDB.capabilities, FDB.encode, FDB_OVERRIDES)
       | st.binary(max_size=30))
@pytest.mark.usefixtures("impl")
def test_fdb_property_junk(data: bytes) -> None:
    """Anything decode reads is explained, tiled; anything it refuses, inspect refuses."""
    try:
        values = FDB.decode(data)
    except DecodeError:
        with pytest.raises(DecodeError):
            FDB.inspect(data)
        return
    check(FDB.inspect(data), data, values)


LEX_SCHEMAS = [
    "s:string, n:int64, b:bool",
    "n:int32, f:float64, x:bytes, u:uint8",
    "t:timestamp, d:duration, id:uuid, g:float32",
    "a:int8, b:uint16, c:int16, s:string",
    "x:bytes",
]


@pytest.mark.parametrize("codec", [LEX, LEGACY], ids=["lexkey", "lexkey-legacy"])
@pytest.mark.parametrize("schema", LEX_SCHEMAS)
def test_lexkey_property(codec: Any, schema: str) -> None:
    parsed = KeySchema.parse(schema)

    @given(keys(parsed, codec.capabilities) | junk_keys(parsed, codec.capabilities,
                                                    codec.encode))
    def run(drawn: Any) -> None:
        data = drawn if isinstance(drawn, bytes) else codec.encode(drawn, parsed)
        try:
            values = codec.decode(data, parsed)
        except DecodeError:  # a NULL in a fixed-width field, or junk
            with pytest.raises(DecodeError):
                codec.inspect(data, parsed)
            return
        ins = codec.inspect(data, parsed)
        check(ins, data, values)
        for f in ins.fields[:-1]:
            assert f.parts[-1].role == "separator"
            assert data[f.parts[-1].start] == 0
        for f in ins.fields:
            nuls = [p.start for p in f.parts if p.role == "nul"]
            if f.kind in ("string", "bytes"):
                end = f.end - (f.index < len(ins.fields) - 1)
                assert nuls == [i for i in range(f.start, end) if data[i] == 0]
        plain = codec.inspect(data)
        check(plain, data, (data,))
        for p in plain.fields[0].parts:
            assert (p.role == "data") == all(data[p.start:p.end]), p
            if p.role == "separator?":
                assert p.end < len(data)  # the last byte is never a separator

    run()


def test_to_dict_roundtrips_through_json() -> None:
    key = LEX.encode((dt.timedelta(seconds=1), "x"), "d:duration, s:string")
    out = json.loads(json.dumps(LEX.inspect(key, "d:duration, s:string").to_dict()))
    assert out["codec"] == "lexkey"
    assert [f["name"] for f in out["fields"]] == ["d", "s"]
    assert out["fields"][0]["parts"][1]["role"] == "separator"
