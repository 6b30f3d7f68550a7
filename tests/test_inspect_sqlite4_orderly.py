"""``inspect`` for sqlite4 and orderly: views tile the key, parts tile each view, values are
what ``decode`` gives, and the breakdown names what each byte is."""

from __future__ import annotations

import decimal
import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexcodecs import DecodeError, NotDecodableError, get_codec
from lexcodecs.codecs.orderly import OrderlyCodec
from lexcodecs.codecs.sqlite4 import Sqlite4Codec
from lexcodecs.inspection import Inspection, inspect_key
from lexcodecs.schema import KeySchema
from lexcodecs.testing.strategies import junk_keys, keys
from lexcodecs.types import Float32

D = decimal.Decimal


def _same(a: Any, b: Any) -> bool:
    """Equal values of the same type; NaN equals NaN, -0.0 differs from 0.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        if math.isnan(a):
            return math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, D) and a.is_nan():
        return b.is_nan()
    return bool(a == b)


def check(codec: Any, key: bytes, schema: str | KeySchema | None = None) -> Inspection:
    """Tiling, parts and values of ``codec.inspect(key, schema)``; the inspection."""
    found = codec.inspect(key, schema)
    assert isinstance(found, Inspection)
    assert found.codec == codec.name
    assert found.key == key
    pos = 0
    for view in found.fields:
        assert view.start == pos, (view, pos)
        at = view.start
        for part in view.parts:
            assert part.start == at, (view, part)
            assert part.end > part.start, part
            assert part.role
            assert part.text
            at = part.end
        assert at == view.end, view
        if view.start == view.end:
            assert view.parts == ()
        pos = view.end
    assert pos == len(key)
    values = [v for v in found.fields if v.index >= 0]
    assert [v.index for v in values] == list(range(len(values)))
    decoded = codec.decode(key, schema)
    assert len(values) == len(decoded)
    for view, value in zip(values, decoded):
        assert _same(view.value, value), (view, value)
    if schema is not None:
        parsed = KeySchema.coerce(schema)
        assert found.schema == str(parsed)
        assert [v.name for v in values] == list(parsed.names)
        assert [v.kind for v in values] == list(parsed.types)
    text = found.render()
    assert text.startswith(f"{codec.name} key ")
    json.dumps(found.to_dict())
    return found


def roles(found: Inspection) -> list[list[str]]:
    return [[p.role for p in f.parts] for f in found.fields]


# -- sqlite4 --------------------------------------------------------------------------------

SQ = Sqlite4Codec()


@pytest.mark.parametrize(("hexkey", "expected"), [
    ("05", [["null"]]),
    ("fa", [["null"]]),
    ("06 07 15 23", [["header"]] * 4),
    ("18 19 45 64", [["header", "mantissa"]]),                    # 12.345, medium
    ("10 fc d0 a5", [["header", "mantissa"]]),                    # -12345, negative medium
    ("16 fe 19 3c", [["header", "exponent", "mantissa"]]),        # 0.00123, positive small
    ("14 01 e6 c3", [["header", "exponent", "mantissa"]]),        # -0.00123, negative small
    ("22 f1 0b 02", [["header", "exponent", "mantissa"]]),        # 1e500, positive large
    ("08 0e f4 fd", [["header", "exponent", "mantissa"]]),        # -1e500, negative large
    ("e7 fd eb fe 19 3c", [["header", "mantissa"], ["header", "exponent", "mantissa"]]),
    ("24 61 62 63 00 24 00", [["header", "payload", "terminator"], ["header", "terminator"]]),
    ("db 9e 9d 9c ff", [["header", "payload", "terminator"]]),
    ("25 b3 9b ed f0 00 25 00", [["header", "payload", "terminator"],
                                 ["header", "terminator"]]),
    ("da 4c 64 12 0f ff", [["header", "payload", "terminator"]]),
    ("18 02 26 66 6f 6f", [["header", "mantissa"], ["header", "payload"]]),
    ("26", [["header"]]),
    ("21 13 2d 43 91 07 89 6d 9b 75 0e", [["header", "mantissa"]]),
])
def test_sqlite4_schemaless(hexkey: str, expected: list[list[str]]) -> None:
    found = check(SQ, bytes.fromhex(hexkey))
    assert roles(found) == expected
    assert found.schema is None


def test_sqlite4_number_texts() -> None:
    text = check(SQ, bytes.fromhex("18 19 45 64 16 fe 19 3c 08 0e f4 fd")).render()
    assert "positive medium number (E=1)" in text
    assert "centimal digits 12 34 50" in text
    assert "E=-1: varint of 1, complemented" in text
    assert "negative large number" in text
    assert "E=251: varint of 251, complemented" in text
    assert "complemented (negative)" in text


def test_sqlite4_descending_texts() -> None:
    text = check(SQ, bytes.fromhex("eb fe 19 3c fa db 9e 9d 9c ff")).render()
    assert "negative small number, descending (every byte inverted)" in text
    assert "NULL, sorting last" in text
    assert "ff (00 inverted): end of text" in text
    assert "inverted (descending)" in text


def test_sqlite4_special_values() -> None:
    found = check(SQ, bytes.fromhex("06 07 15 23 f9"))
    assert [p.text for f in found.fields for p in f.parts] == [
        "NaN", "-inf", "zero", "+inf", "NaN, descending (every byte inverted)"]


def test_sqlite4_binary_groups() -> None:
    found = check(SQ, bytes.fromhex("25 b3 9b ed f0 00"))
    assert found.fields[0].value == b"foo"
    assert "4 7-bit group(s), high bit set, holding 3 byte(s)" in found.render()


def test_sqlite4_table_prefix_and_schema() -> None:
    codec = Sqlite4Codec(table=10)
    schema = "a:int, s:string desc, b:bytes, d:decimal, f:bytes final=true"
    values = (42, "abc", b"\x01\x02", D("1.5"), b"\xff")
    key = codec.encode(values, schema)
    assert key.hex(" ") == "0a 18 54 db 9e 9d 9c ff 25 80 c0 c0 00 18 03 64 26 ff"
    found = check(codec, key, schema)
    table = found.fields[0]
    assert (table.index, table.start, table.end, table.value) == (-1, 0, 1, 10)
    assert table.parts[0].role == "table"
    assert tuple(f.value for f in found.fields[1:]) == values
    assert roles(found)[1:] == [["header", "mantissa"], ["header", "payload", "terminator"],
                                ["header", "payload", "terminator"], ["header", "mantissa"],
                                ["header", "payload"]]
    text = found.render()
    for word in ("table number 10", "final binary", "raw bytes to the end of the key",
                 "schema a:int"):
        assert word in text
    assert any("index -1" in n for n in found.notes)
    # a long table varint, schemaless
    wide = Sqlite4Codec(table=2**40)
    found = check(wide, wide.encode((None, 1)))
    assert (found.fields[0].end, found.fields[0].value) == (7, 2**40)  # fd + 6 bytes


@pytest.mark.parametrize(("schema", "values"), [
    ("n:int", (None,)),
    ("n:int8 desc, d:float64, x:decimal desc", (-128, 0.1, D("-1E-30"))),
    ("f:float64 desc, g:float64", (math.inf, -0.0)),
    ("a:uint64, b:int64 desc", (2**64 - 1, -(2**63))),
    ("s:string, t:string desc", ("", "é\U0001f600")),
    ("b:bytes desc, c:bytes final=true", (b"", b"")),
])
def test_sqlite4_with_schema(schema: str, values: tuple[Any, ...]) -> None:
    key = SQ.encode(values, schema)
    check(SQ, key, schema)
    check(SQ, key)  # self-describing: the same bytes without the schema


@pytest.mark.parametrize(("hexkey", "schema", "table"), [
    ("", None, None),
    ("18", None, None),
    ("18 c7", None, None),
    ("16 ff 64", None, None),
    ("04", None, None),
    ("d9 9e", None, None),
    ("24 61", None, None),
    ("25 80 00", None, None),
    ("18 02 05", "n:int", None),
    ("18 02", "n:int desc", None),
    ("17 64", "n:int", None),
    ("0b 18 02", "n:int", 10),
    ("0a", None, 10),
])
def test_sqlite4_non_keys_raise(hexkey: str, schema: str | None, table: int | None) -> None:
    codec = Sqlite4Codec(table=table)
    with pytest.raises(DecodeError):
        codec.inspect(bytes.fromhex(hexkey), schema)
    with pytest.raises(DecodeError):
        inspect_key(codec, bytes.fromhex(hexkey), schema)


SQ_SCHEMAS = [
    KeySchema.parse("a:int, b:decimal desc, c:string, d:bytes desc, e:float64"),
    KeySchema.parse("a:int64 desc, s:string desc, x:decimal, f:bytes final=true"),
    KeySchema.parse("n:decimal"),
]


@given(st.data(), st.sampled_from(SQ_SCHEMAS), st.none() | st.integers(0, 2**64 - 1))
def test_sqlite4_property(data: st.DataObject, schema: KeySchema, table: int | None) -> None:
    codec = Sqlite4Codec(table=table)
    values = data.draw(keys(schema, codec.capabilities))
    key = codec.encode(values, schema)
    check(codec, key, schema)
    check(codec, key)


def agrees_with_decode(codec: Any, key: bytes, schema: KeySchema | None) -> None:
    """*key* is inspected exactly when it decodes; a non-key raises decode's DecodeError."""
    offset = None
    try:
        codec.decode(key, schema)
    except DecodeError as exc:
        offset = exc.offset
    if offset is None:
        check(codec, key, schema)
        return
    with pytest.raises(DecodeError) as info:
        codec.inspect(key, schema)
    assert info.value.offset == offset


@given(st.data(), st.sampled_from(SQ_SCHEMAS), st.none() | st.integers(0, 300))
def test_sqlite4_junk(data: st.DataObject, schema: KeySchema, table: int | None) -> None:
    codec = Sqlite4Codec(table=table)
    key = data.draw(junk_keys(schema, codec.capabilities, lambda v: codec.encode(v, schema)))
    agrees_with_decode(codec, key, schema)
    agrees_with_decode(codec, key, None)


# -- orderly --------------------------------------------------------------------------------

OR = OrderlyCodec()
OR_DESC = OrderlyCodec(struct_order="desc")
OR_MUST = OrderlyCodec(struct_termination="MUST")
OR_NOT = OrderlyCodec(struct_termination="SHOULD_NOT")
OR_DESC_NOT = OrderlyCodec(struct_order="desc", struct_termination="SHOULD_NOT")
SIMPLE = "id:int64, name:string, score:float32"


def test_orderly_spec_struct() -> None:
    found = check(OR, bytes.fromhex("81636401bf800001"), SIMPLE)
    assert roles(found) == [["header"], ["payload", "terminator"], ["data"]]
    assert found.fields[2].value == Float32(1.0)
    text = found.render()
    assert "int64 header: non-negative, length 1, 6 data bit(s) 000001" in text
    assert "UTF-8 bytes + 2" in text
    assert "field 0 'id': ascending; termination MUST (a later field is non-empty), so t = " \
           "true" in found.notes
    assert any(n.startswith("field 2 'score': ascending; termination AUTO") and
               n.endswith("t = false") for n in found.notes)


def test_orderly_unterminated_and_empty() -> None:
    found = check(OR, bytes.fromhex("816364"), SIMPLE)
    name, score = found.fields[1], found.fields[2]
    assert "unterminated: ends at the end of the key" in name.parts[0].text
    assert (score.start, score.end, score.value, score.parts) == (3, 3, None, ())
    assert any("'score'" in n and "empty: NULL written as zero bytes" in n
               for n in found.notes)
    # an all-NULL all-ascending struct is the empty key: every view empty
    found = check(OR, b"", SIMPLE)
    assert [(f.start, f.end) for f in found.fields] == [(0, 0)] * 3


def test_orderly_written_under_another_termination() -> None:
    key = OR_MUST.encode((1, "ab", None), SIMPLE)
    assert key.hex() == "81636401" + "00000000"
    found = check(OR, key, SIMPLE)  # read by the AUTO codec: the t = true form
    assert roles(found) == [["header"], ["payload", "terminator"], ["null"]]
    assert any("these bytes are the t = true form" in n for n in found.notes)
    found = check(OR_MUST, key, SIMPLE)
    assert not any("these bytes" in n for n in found.notes)


EVERY = ("a:int32 reserved_bits=2 reserved_value=3, d:decimal, e:decimal desc, "
         "b:bytes prefix_length=2, f:bytes encoding=fixed length=3, x:int64 encoding=fixed, "
         "y:uint64, z:float64 desc, u:uint32 encoding=fixed desc, s:string desc")
EVERY_VALUES = (-93214, D("-1.2"), D("1234"), b"\xab\xcd\x01\x02", b"\x00\x7f\xff", -1,
                2**64 - 1, None, 7, "ab")


def test_orderly_every_type() -> None:
    key = OR.encode(EVERY_VALUES, EVERY)
    found = check(OR, key, EVERY)
    assert roles(found) == [
        ["header", "data"], ["exponent", "digits", "terminator"],
        ["exponent", "digits", "terminator"], ["prefix", "digits", "terminator"],
        ["payload"], ["data"], ["header", "data"], ["null"], ["data"],
        ["payload", "terminator"]]
    text = found.render()
    for words in ("int32 header: negative, length 3, 1 data bit(s) 0, reserved bits 11 "
                  "(never inverted)",
                  "type NEG (top bits 01), adjusted exponent 0",
                  "BCD digits 12 (nibble = digit + 1, complemented (negative))",
                  "type POS (top bits 00, 11 inverted (descending))",
                  "reversed packed BCD, 3 digits per byte: 001002",
                  "3 raw byte(s), fixed length",
                  "fixed int64: 8 bytes big-endian, sign bit flipped",
                  "uint64 header: length 9, header data bits 00",
                  "NULL: all 8 bytes 00 (the transformed value 0), inverted (descending)",
                  "fixed uint32: 4 bytes big-endian, inverted (descending)",
                  "01: end of string, inverted (descending)"):
        assert words in text, words
    assert any(n.startswith("field 9 's': descending, every byte inverted; termination AUTO")
               and n.endswith("t = true") for n in found.notes)


@pytest.mark.parametrize(("schema", "values", "expected"), [
    ("d:decimal", (D(0),), [["type"]]),
    ("d:decimal", (D("-1.2"),), [["exponent", "digits"]]),
    ("d:decimal", (D("1.23"),), [["exponent", "digits"]]),
    ("d:decimal desc", (None,), [["null"]]),
    ("d:decimal, x:int64", (None, 5), [["null"], ["header"]]),
    ("v:bytes", (b"",), [["terminator"]]),
    ("v:bytes", (b"\x80\x7f",), [["digits"]]),
    ("v:bytes, x:int64", (None, 5), [["null"], ["header"]]),
    ("v:bytes desc", (b"\x01",), [["digits"]]),
    ("v:bytes prefix_length=2", (b"ab",), [["prefix", "terminator"]]),
    ("s:string", ("",), [["terminator"]]),
    ("s:string desc", (None,), [["null"]]),
    ("f:float32 desc", (Float32(math.nan),), [["data"]]),
    ("f:float64, x:int64", (None, 1), [["null"], ["header"]]),
    ("n:int64", (-(2**63),), [["header", "data"]]),
    ("n:uint32 reserved_bits=4 reserved_value=5", (2**32 - 1,), [["header", "data"]]),
    ("n:int32 desc", (None,), [["null"]]),
    ("b:bytes encoding=fixed length=0, n:int64", (b"", 1), [[], ["header"]]),
])
def test_orderly_fields(schema: str, values: tuple[Any, ...],
                        expected: list[list[str]]) -> None:
    key = OR.encode(values, schema)
    assert roles(check(OR, key, schema)) == expected


def test_orderly_quirk_texts() -> None:
    text = check(OR, OR.encode((-(2**63),), "n:int64"), "n:int64").render()
    assert "quirk long-9-byte-negative-header" in text
    text = check(OR, OR.encode((D("-1.2"),), "d:decimal"), "d:decimal").render()
    assert "unterminated: ends at the end of the key (quirk decimal-negative-prefix)" in text
    text = check(OR, bytes.fromhex("00 85"), "v:bytes, n:int64").render()
    assert "Java writes it but cannot read it back" in text


def test_orderly_struct_desc_and_should_not() -> None:
    schema = "s:string desc, n:int32, d:decimal, v:bytes"
    key = OR_DESC_NOT.encode(("ab", 5, D("-1.2"), None), schema)
    assert key.hex(" ") == "63 64 01 7a a0 23"
    found = check(OR_DESC_NOT, key, schema)
    assert roles(found) == [["payload", "terminator"], ["header"], ["exponent", "digits"], []]
    notes = "\n".join(found.notes)
    assert "field 0 's': ascending (declared descending; struct_order=desc flips every " \
           "field)" in notes
    assert "field 2 'd': descending, every byte inverted (declared ascending; " in notes
    assert "termination SHOULD_NOT (the struct's, as no non-empty field follows), so " \
           "t = false" in notes
    assert "which cancel" in found.render()
    # the declared SHOULD_NOT on the last field wins
    schema = "n:int64, s:string desc termination=SHOULD_NOT"
    key = OR.encode((1, "a"), schema)
    assert key.hex(" ") == "81 9c"
    found = check(OR, key, schema)
    assert "termination SHOULD_NOT (declared on the field, where it always wins)" in \
        found.notes[1]
    assert "unterminated" in found.render()
    # struct_order=desc with reserved bits
    found = check(OR_DESC, OR_DESC.encode((1,), "n:int32 reserved_bits=2 reserved_value=1"),
                  "n:int32 reserved_bits=2 reserved_value=1")
    assert "descending, every byte inverted but the reserved bits" in found.notes[0]


def test_orderly_inspect_is_the_reference_decode_with_a_sink() -> None:
    """The parts come from the reference readers: a sink given to ``careful_decode`` hears
    each part from the field codec that read it, and the values are decode's."""
    bound = OR.bind(EVERY)
    key = OR.encode(EVERY_VALUES, EVERY)
    heard: list[tuple[int, int, int, str]] = []

    class Recorder:
        def part(self, fc: Any, start: int, end: int, role: str, facts: Any = None) -> None:
            heard.append((bound.codecs.index(fc), start, end, role))

    assert bound.careful_decode(key, Recorder()) == bound.careful_decode(key) == \
        OR.decode(key, EVERY)
    found = OR.inspect(key, EVERY)
    assert heard == [(v.index, p.start, p.end, p.role) for v in found.fields for p in v.parts]


@pytest.mark.parametrize(("hexkey", "schema"), [
    ("81 05", "n:int64"),              # trailing bytes
    ("01", "n:int64"),                 # a length of 10
    ("e0", "n:int64"),                 # truncated
    ("80 00 00", "n:int32 encoding=fixed"),
    ("ff", "s:string"),                # ff - 2 is not UTF-8
    ("e0 20 00", "d:decimal"),         # non-canonical terminator after an odd count
    ("c0 01", "n:int64"),              # non-canonical: 1 fits in one byte
    ("33 32", "v:bytes"),              # nibble 2 is not a digit
])
def test_orderly_non_keys_raise(hexkey: str, schema: str) -> None:
    with pytest.raises(DecodeError):
        OR.inspect(bytes.fromhex(hexkey), schema)
    with pytest.raises(DecodeError):
        inspect_key(OR, bytes.fromhex(hexkey), schema)


def test_orderly_needs_a_schema() -> None:
    with pytest.raises(NotDecodableError):
        OR.inspect(bytes.fromhex("81"))
    with pytest.raises(NotDecodableError):
        inspect_key(OR, bytes.fromhex("81"))


OR_SCHEMAS = [
    KeySchema.parse("a:int64, b:int32 desc, c:uint64, d:uint32 reserved_bits=2 "
                    "reserved_value=1, e:float32, f:float64 desc, g:decimal, h:decimal desc"),
    KeySchema.parse("s:string, t:string desc, v:bytes, w:bytes desc prefix_length=1, "
                    "fb:bytes encoding=fixed length=3, fi:int64 encoding=fixed desc, "
                    "fu:uint32 encoding=fixed"),
    KeySchema.parse("x:int64 desc, d:decimal, s:string termination=SHOULD_NOT"),
    KeySchema.parse("d:decimal, v:bytes, f:float64"),
]
OR_CODECS = [OR, OR_DESC, OR_MUST, OR_NOT, OR_DESC_NOT]
OVERRIDES = {"w": st.binary(min_size=1, max_size=6), "fb": st.binary(min_size=3, max_size=3)}


@given(st.data(), st.sampled_from(OR_SCHEMAS), st.sampled_from(OR_CODECS))
def test_orderly_property(data: st.DataObject, schema: KeySchema, codec: OrderlyCodec
                          ) -> None:
    values = data.draw(keys(schema, codec.capabilities, OVERRIDES,
                            nullable=codec.bind(schema).nullable))
    key = codec.encode(values, schema)
    found = check(codec, key, schema)
    assert len(found.fields) == len(schema)
    assert len([n for n in found.notes if n.startswith("field ")]) == len(schema)


@given(st.data(), st.sampled_from(OR_SCHEMAS), st.sampled_from(OR_CODECS))
def test_orderly_junk(data: st.DataObject, schema: KeySchema, codec: OrderlyCodec) -> None:
    nullable = codec.bind(schema).nullable
    key = data.draw(junk_keys(schema, codec.capabilities, lambda v: codec.encode(v, schema),
                              OVERRIDES, nullable=nullable))
    agrees_with_decode(codec, key, schema)


# -- dispatch -------------------------------------------------------------------------------


@pytest.mark.parametrize(("codec", "key", "schema"), [
    (Sqlite4Codec(), bytes.fromhex("18 19 45 64 24 61 00"), None),
    (Sqlite4Codec(table=3), bytes.fromhex("03 18 02"), "n:int"),
    (OrderlyCodec(), bytes.fromhex("81636401bf800001"), SIMPLE),
])
def test_inspect_key_dispatches(monkeypatch: pytest.MonkeyPatch, codec: Any, key: bytes,
                                schema: str | None) -> None:
    cls = type(codec)
    own = cls.inspect
    calls = []

    def spy(self: Any, data: bytes, parsed: Any = None) -> Inspection:
        calls.append((data, parsed))
        return own(self, data, parsed)

    monkeypatch.setattr(cls, "inspect", spy)
    found = inspect_key(codec, key, schema)
    parsed = None if schema is None else KeySchema.coerce(schema)
    assert calls == [(key, parsed)]
    assert found == own(codec, key, parsed)
    assert not any("has no inspect()" in n for n in found.notes)


def test_registry_codecs_inspect() -> None:
    found = inspect_key(get_codec("sqlite4"), bytes.fromhex("24 61 00"))
    assert found.fields[0].value == "a"
    found = inspect_key(get_codec("orderly"), bytes.fromhex("6301"), "s:string")
    assert roles(found) == [["payload", "terminator"]]
