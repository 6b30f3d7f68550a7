"""The ``sqlite4`` codec and its secondary-index keys against ``vectors/sqlite4.json``.

Where the bytes come from (the file's ``oracle`` and each entry's ``source``): the number, text,
binary and varint bytes were produced by SQLite4's own code (fossil trunk 2019-05-29, git mirror
jy6424/sqlite4 ``7ebd7c9``: ``encodeNumericKey()``, the ``encodeOneKeyValue()`` blob loop and
``sqlite4PutVarint64()``, compiled verbatim and run) or copied from ``key_encoding.wiki`` and
``varint.wiki``. The float cases are a lexcodecs decision on top of those bytes (a float is the
number ``Decimal(repr(x))``, spec §11). Cases marked *derived* (table prefixes, integers beyond
u64, every secondary-index key of seed 003, spec §15) were computed from ``specs/sqlite4.md``
and checked by script; the ``error`` cases are lexcodecs refusals. Every entry of every list
is its own test:

* ``cases``: ``Sqlite4Codec(**options).encode(values, schema)`` gives ``hex`` (the bound and
  the careful bound encoders too); ``decode(hex, schema)`` gives the values back with the
  Python types of spec §11 "Decoding to Python" (``decimal`` -> ``Decimal`` with trailing zeros
  stripped, ``float64`` -> ``float`` with -0.0 read as 0.0 and any NaN as a NaN, ``int`` ->
  ``int``); the key also decodes without a schema to as many values (integral -> ``int``,
  other finite -> ``Decimal``, NaN/±inf -> ``float``). An ``error`` case is refused with a
  lexcodecs error naming the codec (a bad ``table`` option when the codec is built);
* ``varints``: ``encode_varint`` / ``decode_varint`` (spec §3);
* ``secondary_index``: whole index keys, their index names, and :func:`parse_index_key`;
* ``secondary_index_columns``: one column's bytes, written and read back;
* ``other_formats``: NOT sqlite4 output. sqlite4 writes ``sqlite4_hex`` for the same value,
  and the foreign bytes are refused with ``DecodeError`` or decode to another value;
* ``decode_errors``: ``DecodeError`` at ``offset`` for ``bytes``, ``bytearray`` and
  ``memoryview`` keys alike.

That the file is byte-identical to the shared copy is checked, for every vector file, by
``test_vector_files.py``.
"""

from __future__ import annotations

import functools
import math
import struct
from decimal import Decimal
from typing import Any

import pytest

from lexcodecs import DecodeError, EncodeError, OptionError, SchemaError
from lexcodecs.codecs.sqlite4 import Sqlite4Codec, decode_varint, encode_varint
from lexcodecs.codecs.sqlite4.index import (
    INDEX_PREFIX,
    IndexColumn,
    SecondaryIndex,
    parse_index_key,
)
from lexcodecs.schema import KeySchema
from lexcodecs.testing.vectors import (
    VectorCase,
    VectorFile,
    load_vectors,
    typed_value,
    typed_values,
)

#: every vector on both implementations, the compiled modules and the reference Python
pytestmark = pytest.mark.usefixtures("impl")

NAME = "sqlite4"
SECTIONS = {"varints", "secondary_index", "secondary_index_columns", "other_formats",
            "decode_errors"}
INT_FIELD_TYPES = {"int", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                   "uint64"}
U64_MAX = 2**64 - 1
_F64 = struct.Struct(">d")


@functools.cache
def vectors() -> VectorFile:
    return load_vectors(NAME)


def _short(text: Any, limit: int = 40) -> str:
    text = " ".join(str(text).split())
    assert isinstance(text, str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _fields_text(fields: list[dict[str, Any]] | None) -> str:
    if not fields:
        return "schemaless"
    out = []
    for f in fields:
        part = f["type"]
        if f.get("final"):
            part += " final"
        if f.get("order") == "desc":
            part += " desc"
        if "nulls" in f:
            part += f" nulls {f['nulls']}"
        out.append(part)
    return ",".join(out)


def _value_text(obj: dict[str, Any]) -> str:
    """A typed JSON value, short: ``1.5``, ``f64:3fe0...``, ``'abc'``, ``b'foo'``, ``x'00'``."""
    (kind, raw), = ((k, v) for k, v in obj.items() if k != "width")
    if kind == "null":
        return "NULL"
    if kind == "str":
        return repr(raw)
    if kind == "bytes":
        data = bytes.fromhex(raw)
        return repr(data) if data and all(0x20 < b < 0x7F for b in data) else f"x'{raw}'"
    if kind == "f64":
        return f"f64:{raw}"
    return str(raw)


# -- the Python values a decode must give (spec §11 "Decoding to Python") -----------------------


def _stripped(d: Decimal) -> Decimal:
    """*d* with its trailing zero digits removed, by hand: ``normalize()`` rounds to the
    context precision (spec §5.4). Zero of either sign is ``Decimal(0)``."""
    if not d.is_finite():
        return d
    sign, digits, exponent = d.as_tuple()
    assert isinstance(exponent, int)
    kept = list(digits)
    while len(kept) > 1 and kept[-1] == 0:
        kept.pop()
        exponent += 1
    if kept == [0]:
        return Decimal(0)
    return Decimal((sign, tuple(kept), exponent))


def _as_decimal(value: Any) -> Decimal:
    """The decimal a number is written as: a float counts as ``Decimal(repr(x))`` (§11)."""
    if isinstance(value, float):
        return Decimal(repr(value))
    return Decimal(value)


def _typed_expected(field_type: str, value: Any) -> Any:
    """What ``decode(key, schema)`` gives for *value* in a field of *field_type*."""
    if value is None or field_type in ("string", "bytes"):
        return value
    if field_type == "decimal":
        return _stripped(_as_decimal(value))
    if field_type == "float64":
        number = float(value)
        return 0.0 if number == 0 else number  # -0.0 is zero, which decodes as 0.0
    assert field_type in INT_FIELD_TYPES, field_type
    return int(value)


def _schemaless_expected(value: Any) -> Any:
    """What a schemaless decode gives: integral finite -> int, other finite -> Decimal (no
    trailing zeros), NaN/±inf -> float; str, bytes and None as they are."""
    if value is None or isinstance(value, (str, bytes)):
        return value
    d = _as_decimal(value)
    if d.is_nan():
        return math.nan
    if d.is_infinite():
        return -math.inf if d.is_signed() else math.inf
    d = _stripped(d)
    exponent = d.as_tuple().exponent
    assert isinstance(exponent, int)
    return int(d) if exponent >= 0 else d


def _same(got: Any, want: Any) -> bool:
    """*got* is *want* with *want*'s exact Python type: a Decimal with the same digits, a float
    with the same bits (any NaN matches any NaN), an int that is not a bool."""
    if want is None:
        return got is None
    if type(got) is not type(want):
        return False
    if isinstance(want, Decimal):
        if want.is_nan():
            return bool(got.is_qnan())
        return bool(got == want) and got.as_tuple() == want.as_tuple()
    if isinstance(want, float):
        if math.isnan(want):
            return math.isnan(got)
        return _F64.pack(got) == _F64.pack(want)
    return bool(got == want)


def _table_is_valid(options: dict[str, Any]) -> bool:
    """Spec §10/§16 Q1: the ``table`` option is None or an int 0..2^64-1."""
    table = options.get("table")
    return table is None or (type(table) is int and 0 <= table <= U64_MAX)


# -- cases --------------------------------------------------------------------------------------


def _case_id(case: VectorCase) -> str:
    values = " ".join(_value_text(v) for v in case.value_json) or "()"
    opts = "".join(f" {k}={v}" for k, v in sorted(case.options.items()))
    outcome = "refused" if case.expects_error else case.raw["hex"]
    return _short(f"cases[{case.index}] {_fields_text(case.raw.get('fields'))}{opts}: "
                  f"{values} -> {outcome}", 90)


def _case_params() -> list[Any]:
    return [pytest.param(case, id=_case_id(case)) for case in vectors().cases]


def _check_refused(case: VectorCase) -> None:
    if case.values is None:  # refused while the value was built: the refusal has happened
        assert case.build_error is not None, case.id
        return
    if not _table_is_valid(case.options):
        with pytest.raises(OptionError) as refused:
            Sqlite4Codec(**case.options)
        assert refused.value.codec == NAME, str(refused.value)
        assert refused.value.option == "table", str(refused.value)
        return
    codec = Sqlite4Codec(**case.options)
    with pytest.raises((EncodeError, SchemaError)) as info:
        codec.encode(case.values, case.schema)
    exc = info.value
    assert exc.codec == NAME, str(exc)
    assert str(exc)
    if case.schema is None:
        return
    if len(case.values) == len(case.schema):
        assert exc.field is not None, f"the refusal names no field: {exc}"
    # the bound form refuses it the same way (at bind for a schema refusal)
    with pytest.raises(type(exc)) as bound_info:
        codec.bind(case.schema).encode(case.values)
    assert bound_info.value.codec == NAME, str(bound_info.value)


@pytest.mark.parametrize("case", _case_params())
def test_case(case: VectorCase) -> None:
    if case.expects_error:
        _check_refused(case)
        return
    assert case.values is not None
    assert case.key is not None
    codec = Sqlite4Codec(**case.options)
    schema: KeySchema | None = case.schema
    key = codec.encode(case.values, schema)
    assert key.hex() == case.key.hex()
    assert codec.encode(list(case.values), schema) == case.key
    if schema is not None:
        bound = codec.bind(schema)
        assert bound.encode(case.values) == case.key
        # the field-by-field writer the compiled encoder falls back to
        assert bound.careful_encode(case.values) == case.key
        # decode with the schema: the values, of the types spec §11 gives
        wants = [_typed_expected(f.type, v) for f, v in zip(schema.fields, case.values)]
        for data in (case.key, bytearray(case.key), memoryview(case.key)):
            for back in (codec.decode(data, schema), bound.decode(data)):  # type: ignore[arg-type]
                assert len(back) == len(case.values)
                for f, got, want in zip(schema.fields, back, wants):
                    assert _same(got, want), f"{f.type}: got {got!r}, want {want!r}"
    # without a schema: as many values, typed from the bytes alone
    loose = codec.decode(case.key)
    assert len(loose) == len(case.values)
    for got, value in zip(loose, case.values):
        want = _schemaless_expected(value)
        assert _same(got, want), f"schemaless: got {got!r}, want {want!r} (from {value!r})"


def test_file_has_the_known_lists() -> None:
    vf = vectors()
    assert vf.codec == NAME
    assert set(vf.sections) == SECTIONS, "a new list in sqlite4.json needs its own tests"
    assert all(vf.section(name) for name in SECTIONS)
    trunk = [c for c in vf.cases if (c.source or "").startswith("SQLite4")]
    assert len(trunk) >= 50


# -- varints ------------------------------------------------------------------------------------


def _varint_params() -> list[Any]:
    return [pytest.param(e, id=f"varints[{i}] {e['value']} -> {e['hex']}")
            for i, e in enumerate(vectors().section("varints"))]


@pytest.mark.parametrize("entry", _varint_params())
def test_varint(entry: dict[str, Any]) -> None:
    value = int(entry["value"])
    data = bytes.fromhex(entry["hex"])
    assert encode_varint(value).hex() == entry["hex"]
    for form in (data, bytearray(data), memoryview(data)):
        assert decode_varint(form) == (value, len(data))  # type: ignore[arg-type]
    # in the middle of other bytes it reads exactly its own
    assert decode_varint(b"\x07" + data + b"\x05", 1) == (value, 1 + len(data))


# -- secondary_index ----------------------------------------------------------------------------


def _column(raw: dict[str, Any]) -> IndexColumn:
    return IndexColumn(raw["type"], raw.get("order", "asc") == "desc")


def _index_params() -> list[Any]:
    out = []
    for i, e in enumerate(vectors().section("secondary_index")):
        values = "/".join(_value_text(v) for v in e["values"])
        out.append(pytest.param(e, id=f"secondary_index[{i}] {e['index_name']} {values} "
                                      f"{_value_text(e['data_key'])}"))
    return out


@pytest.mark.parametrize("entry", _index_params())
def test_secondary_index(entry: dict[str, Any]) -> None:
    columns = [_column(c) for c in entry["columns"]]
    index = SecondaryIndex(entry["name"], columns)
    assert index.index_name == entry["index_name"]
    assert SecondaryIndex(entry["name"], [c.token for c in columns]) == index
    assert SecondaryIndex.from_index_name(entry["index_name"]) == index
    values = typed_values(entry["values"])
    data_key = typed_value(entry["data_key"])
    key = index.key(values, data_key)
    assert key.hex() == entry["hex"]
    assert key.startswith(INDEX_PREFIX + entry["index_name"].encode("utf-8") + b"/")
    for parsed in (parse_index_key(key), parse_index_key(bytearray(key)), index.parse(key)):
        assert parsed.index == index
        assert type(parsed.data_key) is bytes
        assert parsed.data_key == data_key
        assert len(parsed.values) == len(values)
        for column, got, value in zip(columns, parsed.values, values):
            # bin -> bytes; int -> int when integral (spec §15.1 "Parsing")
            want = value if column.type == "bin" else _schemaless_expected(value)
            assert _same(got, want), f"{column.token}: got {got!r}, want {want!r}"
    for leading in (values, values[:1], ()):
        start, stop = index.range(leading)
        assert start <= key < stop, leading


# -- secondary_index_columns --------------------------------------------------------------------


def _column_params() -> list[Any]:
    return [pytest.param(e, id=f"secondary_index_columns[{i}] {_column(e['column']).token} "
                               f"{_value_text(e['value'])} -> {e['hex']}")
            for i, e in enumerate(vectors().section("secondary_index_columns"))]


@pytest.mark.parametrize("entry", _column_params())
def test_secondary_index_column(entry: dict[str, Any]) -> None:
    column = _column(entry["column"])
    value = typed_value(entry["value"])
    data = column.encode(value)
    assert data.hex() == entry["hex"]
    got, end = column.read(data, 0)
    assert end == len(data)
    assert got == value  # numerically equal: Decimal('1.0') reads back as 1
    want = value if column.type == "bin" else _schemaless_expected(value)
    assert _same(got, want), f"got {got!r}, want {want!r}"
    # inside a key: it reads exactly its own bytes
    assert column.read(b"/x" + data + b"/p/1", 2) == (got, 2 + len(data))


# -- other_formats ------------------------------------------------------------------------------

#: each other_formats entry's free-text ``value``, mapped by hand to the Python value it names.
#: "REAL" (SQLite4 2013) and HBase ``encodeNumeric(double)`` are doubles, written as float;
#: the seed's "number" examples, HBase ``BigDecimal`` and CockroachDB ``apd`` decimals are
#: decimals, written as Decimal (apd.New(c, e) is c x 10^e); strings and blobs as str/bytes.
OTHER_FORMAT_VALUES: dict[str, Any] = {
    "REAL 0.5": 0.5,
    "REAL -0.5": -0.5,
    "REAL 0.00123": 0.00123,
    "REAL 0.125": 0.125,
    "number 1.0 -> E=1 M": Decimal("1.0"),
    "number 10.0 -> E=1 M": Decimal("10.0"),
    "number 100.0 -> E=2 M": Decimal("100.0"),
    "number 99.0001 -> E=1 M": Decimal("99.0001"),
    "number 99.00001 -> E=1 M": Decimal("99.00001"),
    "encodeNumeric(double) 0.0123": 0.0123,
    "encodeNumeric(double) 0.123": 0.123,
    "encodeNumeric(double) NaN": math.nan,
    # Ambiguous: Java prints Double.MIN_VALUE as "4.9E-324", so the value HBase encoded here
    # is the decimal 4.9E-324 (what the entry names), not the double itself (Python's repr is
    # 5e-324, written 16 5e 0a: cases[69]). As the decimal it names, SQLite4 writes the very
    # same bytes 16 5e 09 b4 (the entry has no sqlite4_hex); only that, and that the double
    # differs, is tested (see BYTES_SHARED_WITH_SQLITE4).
    "encodeNumeric(BigDecimal) 4.9E-324": Decimal("4.9E-324"),
    "encodeString foo": "foo",
    "encodeBlobVar x'666f6f' ('foo')": b"foo",
    "decimal apd.New(1,0) = 1": Decimal("1"),
    "decimal apd.New(1,-1) = 0.1": Decimal("0.1"),
    "decimal apd.New(-1,0) = -1": Decimal("-1"),
    "decimal math.MaxFloat64 (1.7976931348623157e308)": Decimal("1.7976931348623157E+308"),
}
#: entries whose foreign bytes are also exactly sqlite4's bytes for the value they name
BYTES_SHARED_WITH_SQLITE4 = {"encodeNumeric(BigDecimal) 4.9E-324": 5e-324}


def _refusal(codec: Sqlite4Codec, key: bytes) -> DecodeError | None:
    """The DecodeError a schemaless decode of *key* raises, or None when it decodes."""
    try:
        codec.decode(key)
    except DecodeError as exc:
        return exc
    return None


def _other_params() -> list[Any]:
    return [pytest.param(e, id=f"other_formats[{i}] {e['format']}: {_short(e['value'], 50)}")
            for i, e in enumerate(vectors().section("other_formats"))]


@pytest.mark.parametrize("entry", _other_params())
def test_other_format(entry: dict[str, Any]) -> None:
    text = entry["value"]
    if text not in OTHER_FORMAT_VALUES:
        pytest.fail(f"other_formats value {text!r} has no Python value in OTHER_FORMAT_VALUES")
    value = OTHER_FORMAT_VALUES[text]
    codec = Sqlite4Codec()
    ours = codec.encode([value])
    foreign = bytes.fromhex(entry["hex"])
    if "sqlite4_hex" in entry:
        assert ours.hex() == entry["sqlite4_hex"]
        assert foreign != ours
    assert _same(codec.decode(ours)[0], _schemaless_expected(value))
    if text in BYTES_SHARED_WITH_SQLITE4:
        assert foreign == ours
        assert _same(codec.decode(foreign)[0], _schemaless_expected(value))
        as_float = BYTES_SHARED_WITH_SQLITE4[text]
        assert as_float == float(value)
        assert codec.encode([as_float]) != foreign
        return
    refusal = _refusal(codec, foreign)
    if refusal is not None:
        assert refusal.codec == NAME, str(refusal)
        assert refusal.offset is not None, str(refusal)
        return
    back = codec.decode(foreign)
    want = _schemaless_expected(value)
    assert not (len(back) == 1 and _same(back[0], want)), (
        f"the {entry['format']} bytes {entry['hex']} decode as sqlite4 to the same value")


# -- decode_errors ------------------------------------------------------------------------------

# conformance/test_vector_cases.py: DecodeError at the offset, for bytes, bytearray and
# memoryview keys, through the codec and the bound schema
