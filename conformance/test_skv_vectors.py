"""The ``skv`` codec against ``vectors/skv.json``.

The K2 cases' bytes come from K2's encoder (chogori-platform ``FieldTypes.cpp`` @ 30291e58,
compiled and run); the float and descending cases are derived (lexcodecs extensions), and the
``error`` cases are lexcodecs refusals. Every entry of both lists is a test:

* ``cases``: ``encode(values, schema)`` gives ``hex`` and ``decode(hex, schema)`` gives the
  values back (of the declared Python types, -0.0 kept); the key also decodes without a
  schema to as many values; an ``error`` case is refused with a lexcodecs error;
* ``decode_errors``: ``DecodeError`` at ``offset`` (schemaless when the entry has no
  ``fields``), for ``bytes``, ``bytearray`` and ``memoryview`` keys alike.

Every test runs twice, on the compiled and on the reference implementation (``impl``).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import pytest

from lexcodecs import DecodeError, EncodeError, LexCodecError, SchemaError
from lexcodecs.codecs.skv import SkvCodec
from lexcodecs.schema import KeySchema
from lexcodecs.testing.vectors import VectorCase, VectorFile, load_vectors, schema_from_fields
from lexcodecs.types import Float32

CODEC = SkvCodec()

# every vector, byte for byte, on the compiled and on the reference implementation
pytestmark = pytest.mark.usefixtures("impl")


@functools.cache
def vectors() -> VectorFile:
    return load_vectors("skv")


def _short(text: Any, limit: int = 50) -> str:
    text = " ".join(str(text).split())
    assert isinstance(text, str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _schema_text(fields: list[dict[str, Any]] | None) -> str:
    if not fields:
        return "schemaless"
    out = []
    for f in fields:
        part = f["type"]
        if f.get("order") == "desc":
            part += " desc"
        if "nulls" in f:
            part += f" nulls {f['nulls']}"
        out.append(part)
    return ",".join(out)


# -- value comparison ---------------------------------------------------------------------------


def _same(field_type: str, got: Any, want: Any) -> bool:
    if want is None:
        return got is None
    if field_type in ("float32", "float64"):
        if not isinstance(got, float):
            return False
        if field_type == "float32" and not isinstance(got, Float32):
            return False
        return got == want and math.copysign(1.0, got) == math.copysign(1.0, float(want))
    if field_type == "bool":
        return type(got) is bool and got == want
    if field_type == "string":
        return type(got) is str and got == want
    if field_type == "bytes":
        return type(got) is bytes and got == want
    return type(got) is int and got == want


def _schemaless_form(field_type: str, value: Any) -> Any:
    """What a schemaless decode gives for *value*: STRING as bytes, the rest as is."""
    if value is None:
        return None
    if field_type == "string":
        return value.encode("utf-8")
    return value


# -- cases --------------------------------------------------------------------------------------


def _case_id(case: VectorCase) -> str:
    fields = case.raw.get("fields")
    label = case.error or case.note or case.raw.get("hex", "")
    kind = "refused" if case.expects_error else "k2" if (case.source or "").startswith(
        "K2") else "derived"
    return f"cases[{case.index}] {kind} {_schema_text(fields)}: {_short(label)}"


def _case_params() -> list[Any]:
    return [pytest.param(case, id=_case_id(case)) for case in vectors().cases]


@pytest.mark.parametrize("case", _case_params())
def test_case(case: VectorCase) -> None:
    assert case.schema is not None, "every skv case has fields"
    schema: KeySchema = case.schema
    if case.expects_error:
        if case.values is None:  # refused while the value was built
            assert case.build_error is not None
            return
        with pytest.raises((EncodeError, SchemaError)) as info:
            CODEC.encode(case.values, schema)
        assert info.value.codec == "skv", str(info.value)
        assert str(info.value)
        # the bound form refuses it the same way
        with pytest.raises(LexCodecError):
            CODEC.bind(schema).encode(case.values)
        return
    assert case.values is not None
    assert case.key is not None
    key = CODEC.encode(case.values, schema)
    assert key.hex() == case.key.hex()
    assert CODEC.encode(list(case.values), schema) == case.key
    assert CODEC.bind(schema).encode(case.values) == case.key
    # decode with the schema: the values, of the declared types
    for data in (case.key, bytearray(case.key), memoryview(case.key)):
        back = CODEC.decode(data, schema)  # type: ignore[arg-type]
        assert len(back) == len(case.values)
        for f, got, want in zip(schema.fields, back, case.values):
            assert _same(f.type, got, want), f"{f.type}: got {got!r}, want {want!r}"
    # and without it: as many values, STRING as bytes, NULL as None
    loose = CODEC.decode(case.key)
    assert len(loose) == len(case.values)
    for f, got, want in zip(schema.fields, loose, case.values):
        expected = _schemaless_form(f.type, want)
        kind = "bytes" if f.type == "string" else f.type
        assert _same(kind, got, expected), f"schemaless {f.type}: {got!r} != {expected!r}"
    # every single-field key is also its own encode_field literal
    if len(schema) == 1:
        assert CODEC.encode_field(case.values[0], schema.fields[0]) == case.key


def test_every_k2_case_is_present() -> None:
    cases = vectors().cases
    k2 = [c for c in cases if (c.source or "").startswith("K2")]
    assert len(k2) >= 50
    assert vectors().codec == "skv"
    assert set(vectors().sections) == {"decode_errors"}


# -- decode_errors ------------------------------------------------------------------------------


def _error_id(i: int, entry: dict[str, Any]) -> str:
    return (f"decode_errors[{i}] {_schema_text(entry.get('fields'))} "
            f"{entry['hex'] or '(empty)'} @{entry['offset']}: {_short(entry['error'], 40)}")


def _error_params() -> list[Any]:
    return [pytest.param(i, e, id=_error_id(i, e))
            for i, e in enumerate(vectors().section("decode_errors"))]


@pytest.mark.parametrize(("i", "entry"), [
    p for p in _error_params()
    if p.values[1].get("fields") and "trailing" not in p.values[1]["error"]])
def test_decode_error_names_the_field(i: int, entry: dict[str, Any]) -> None:
    # the offset, the codec and bytes/bytearray/memoryview keys: conformance/test_vector_cases.py
    with pytest.raises(DecodeError) as info:
        CODEC.decode(bytes.fromhex(entry["hex"]), schema_from_fields(entry["fields"]))
    assert info.value.field is not None, str(info.value)  # the field the bytes were read as
