"""The ``storekey`` codec against ``conformance/vectors/storekey.json``.

The bytes are the crate's own (storekey v0.5.0, ``serialize`` / ``deserialize``, the version
every SurrealDB 2.x writes). The generic runner (``conformance/test_vector_cases.py``) checks
that every case encodes and that what does not decode back is a declared anomaly; here is
what is storekey's own, every entry on the compiled and on the reference implementation
(``impl``):

* ``cases``: ``encode(values, schema)`` gives ``hex`` (from a tuple, a list and the bound
  schema); ``parse`` of the key gives the values back, of their Python types, floats by their
  bits (``decoded`` where the crate cuts a string at its ``00`` or a sequence at its ``01``),
  with nothing left over, and ``decode`` the same; where ``decoded`` leaves bytes over,
  ``decode`` refuses them; a ``decode_error`` case (the crate cannot read its own key) is
  refused by both; ``error`` cases are refused naming the codec and the field;
* ``decode_errors``: a :class:`~lexcodecs.errors.DecodeError` with an offset and the crate's
  words, by ``parse`` and ``decode``, for ``bytes``, ``bytearray`` and ``memoryview`` keys;
* ``decode_only``: read as the crate reads them (``parsed``), the bytes after the fields
  returned by ``parse`` and refused by ``decode``; ``parsed`` encodes to ``reencoded``.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from lexcodecs import DecodeError, EncodeError, SchemaError
from lexcodecs.codecs.storekey import StorekeyCodec
from lexcodecs.testing.differential import same
from lexcodecs.testing.vectors import (
    VectorCase,
    VectorFile,
    check_each,
    hex_to_bytes,
    load_vectors,
    schema_from_fields,
    typed_values,
)

CODEC = StorekeyCodec()
NAME = "storekey"

# every vector, byte for byte, on the compiled and on the reference implementation
pytestmark = pytest.mark.usefixtures("impl")


@functools.cache
def _file() -> VectorFile:
    return load_vectors(NAME)  # the bundled conformance/vectors/storekey.json


def _schema_text(fields: list[dict[str, Any]]) -> str:
    return str(schema_from_fields(fields))


def test_the_vector_file_is_whole() -> None:
    vf = _file()
    assert vf.codec == NAME
    assert len(vf.cases) == 297
    assert sum(c.expects_error for c in vf.cases) == 7
    assert set(vf.sections) == {"decode_errors", "decode_only"}
    assert len(vf.section("decode_errors")) == 33
    assert len(vf.section("decode_only")) == 22
    assert sum("decoded" in c.raw for c in vf.cases) == 11
    assert sum("decode_error" in c.raw for c in vf.cases) == 2


# -- cases --------------------------------------------------------------------------------------


def _case_groups() -> list[Any]:
    """The cases with bytes, one test per field list of one field, the rest together."""
    groups: dict[str, list[VectorCase]] = {}
    for c in _file().cases:
        if c.key is not None:
            text = _schema_text(c.raw["fields"]) if len(c.raw["fields"]) == 1 else "several"
            groups.setdefault(text, []).append(c)
    return [pytest.param(cases, id=f"{text} ({len(cases)} cases)")
            for text, cases in groups.items()]


def check_case(case: VectorCase) -> None:
    assert case.values is not None
    assert case.key is not None
    assert case.schema is not None
    bound = CODEC.bind(case.schema)
    assert CODEC.encode(case.values, case.schema).hex() == case.key.hex()
    assert bound.encode(list(case.values)) == case.key
    if "decode_error" in case.raw:  # the crate fails on its own key: so does this reader
        with pytest.raises(DecodeError, match="option tag") as info:
            bound.parse(case.key)
        assert info.value.offset is not None
        with pytest.raises(DecodeError):
            bound.decode(case.key)
        return
    want = typed_values(case.raw["decoded"]) if "decoded" in case.raw else case.values
    values, rest = bound.parse(case.key)
    assert same(tuple(values), tuple(want)), (values, want)
    if "decoded" not in case.raw:
        assert rest == b""
    for data in (case.key, bytearray(case.key), memoryview(case.key)):
        if rest:
            with pytest.raises(DecodeError, match="bytes left after the last field"):
                bound.decode(data)  # type: ignore[arg-type]
        else:
            assert same(bound.decode(data), tuple(want))  # type: ignore[arg-type]


@pytest.mark.parametrize("cases", _case_groups())
def test_cases(cases: list[VectorCase]) -> None:
    check_each(cases, check_case)


def test_decoded_strings_and_sequences_are_cut_where_the_crate_cuts_them() -> None:
    """The 11 ``decoded`` cases: a string at its first 00, a sequence at its first 01; the
    rest of the key is the next fields or bytes left over."""
    cut = [c for c in _file().cases if "decoded" in c.raw]
    for case in cut:
        assert case.values is not None
        assert any(("\x00" in v if isinstance(v, str) else b"\x01" in v)
                   for v in case.values if isinstance(v, (str, bytes))), case.index


def test_refused_cases_name_codec_field_and_reason() -> None:
    for case in (c for c in _file().cases if c.expects_error):
        assert case.values is not None
        assert case.schema is not None
        error = case.raw["error"]
        kind = SchemaError if "not supported" in error else EncodeError
        with pytest.raises(kind) as info:
            CODEC.encode(case.values, case.schema)
        assert info.value.codec == NAME
        assert info.value.field is not None
        assert error in str(info.value), str(info.value)


# -- decode_errors ------------------------------------------------------------------------------


def _error_params() -> list[Any]:
    return [pytest.param(e, id=f"decode_errors[{i}] {_schema_text(e['fields'])} {e['hex']}")
            for i, e in enumerate(_file().section("decode_errors"))]


@pytest.mark.parametrize("entry", _error_params())
def test_decode_error(entry: dict[str, Any]) -> None:
    bound = CODEC.bind(schema_from_fields(entry["fields"]))
    key = hex_to_bytes(entry["hex"])
    for data in (key, bytearray(key), memoryview(key)):
        for read in (bound.parse, bound.decode):
            with pytest.raises(DecodeError) as info:
                read(data)  # type: ignore[arg-type]
            assert info.value.codec == NAME
            assert info.value.field is not None
            assert info.value.offset is not None
            assert 0 <= info.value.offset <= len(key)
            assert entry["error"] in str(info.value), str(info.value)


# -- decode_only --------------------------------------------------------------------------------


def _only_params() -> list[Any]:
    return [pytest.param(e, id=f"decode_only[{i}] {_schema_text(e['fields'])} {e['hex']}")
            for i, e in enumerate(_file().section("decode_only"))]


@pytest.mark.parametrize("entry", _only_params())
def test_decode_only(entry: dict[str, Any]) -> None:
    schema = schema_from_fields(entry["fields"])
    bound = CODEC.bind(schema)
    key = hex_to_bytes(entry["hex"])
    parsed = typed_values(entry["parsed"])
    reencoded = hex_to_bytes(entry["reencoded"])
    values, rest = bound.parse(key)
    assert same(tuple(values), parsed)
    assert CODEC.encode(values, schema) == reencoded
    if rest:
        assert key == reencoded + rest  # bytes after the fields, which the crate ignores
        with pytest.raises(DecodeError, match="bytes left after the last field"):
            bound.decode(key)
    else:  # a lenient reading: a bool byte 02, a sequence ended by the end of the key
        assert key != reencoded
        assert same(bound.decode(key), parsed)
