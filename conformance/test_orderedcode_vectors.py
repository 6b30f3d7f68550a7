"""The ``orderedcode`` codec against ``vectors/orderedcode.json``.

The bytes are Go's own (``github.com/google/orderedcode`` v0.0.1, ``Append`` and ``Parse``,
on Go 1.19). Every entry of the file is a test, on the compiled and on the reference
implementation (``impl``):

* ``cases``: ``encode(values, schema)`` gives ``hex`` (from a tuple, a list and the bound
  schema), and ``decode`` / ``parse`` of the key give the values back, of their Python types,
  floats by their bits (``decoded`` where Go's ``Parse`` normalises: -0.0 reads as +0.0), for
  ``bytes``, ``bytearray`` and ``memoryview`` keys alike;
* ``decode_errors``: refused with a :class:`~lexcodecs.errors.DecodeError` naming the codec,
  as Go's ``corrupt input`` (by ``parse``, which leaves no bytes over to blame) and by
  ``decode``;
* ``decode_only``: keys ``Parse`` accepts although they are not one case's encoding (other
  types, non-minimal numbers, a remainder): read as the file says (strings as bytes), with
  the same remainder; ``decode`` refuses a remainder.

The file is ``conformance/vectors/orderedcode.json``; until that copy exists, the shared one.
"""

from __future__ import annotations

import functools
import struct
from typing import Any

import pytest

from lexcodecs import DecodeError
from lexcodecs.codecs.orderedcode import OrderedCodeCodec
from lexcodecs.schema import KeySchema
from lexcodecs.testing.vectors import (
    VectorCase,
    VectorFile,
    check_each,
    hex_to_bytes,
    load_vectors,
    schema_from_fields,
    typed_values,
)

CODEC = OrderedCodeCodec()
NAME = "orderedcode"
_D = struct.Struct(">d")

# every vector, byte for byte, on the compiled and on the reference implementation
pytestmark = pytest.mark.usefixtures("impl")


@functools.cache
def _file() -> VectorFile:
    return load_vectors(NAME)  # the bundled conformance/vectors/<NAME>.json


def same(got: tuple[Any, ...], want: tuple[Any, ...]) -> bool:
    """Equal values of the same types, floats by their bits."""
    return len(got) == len(want) and all(
        type(g) is type(w) and (_D.pack(g) == _D.pack(w) if type(g) is float else g == w)
        for g, w in zip(got, want))


def _schema_text(fields: list[dict[str, Any]]) -> str:
    return ",".join(f["type"] + (" desc" if f.get("order") == "desc" else "")
                    + (" trailing" if f.get("trailing") else "") for f in fields)


# -- cases --------------------------------------------------------------------------------------


def _case_groups() -> list[Any]:
    """The cases, one test per field list (a few dozen tests, not hundreds)."""
    groups: dict[str, list[VectorCase]] = {}
    for c in _file().cases:
        groups.setdefault(_schema_text(c.raw["fields"]), []).append(c)
    return [pytest.param(cases, id=f"{text} ({len(cases)} cases)")
            for text, cases in groups.items()]


def check_case(case: VectorCase) -> None:
    assert case.values is not None
    assert case.key is not None
    assert case.schema is not None
    schema: KeySchema = case.schema
    bound = CODEC.bind(schema)
    assert CODEC.encode(case.values, schema).hex() == case.key.hex()
    assert bound.encode(list(case.values)) == case.key
    want = typed_values(case.raw["decoded"]) if "decoded" in case.raw else case.values
    for data in (case.key, bytearray(case.key), memoryview(case.key)):
        got = bound.decode(data)  # type: ignore[arg-type]
        assert same(got, want), (got, want)
    values, rest = bound.parse(case.key)
    assert rest == b""
    assert same(values, want)


@pytest.mark.parametrize("cases", _case_groups())
def test_cases(cases: list[VectorCase]) -> None:
    check_each(cases, check_case)


def test_the_vector_file_is_whole() -> None:
    vf = _file()
    assert vf.codec == NAME
    assert len(vf.cases) == 324
    assert all(c.key is not None and c.values is not None for c in vf.cases)
    assert set(vf.sections) == {"decode_errors", "decode_only"}
    assert len(vf.section("decode_errors")) == 30
    assert len(vf.section("decode_only")) == 11
    assert sum("decoded" in c.raw for c in vf.cases) >= 1  # -0.0 parses as +0.0


# -- decode_errors ------------------------------------------------------------------------------


def _error_params() -> list[Any]:
    return [pytest.param(e, id=f"decode_errors[{i}] {_schema_text(e['fields'])} {e['hex']}")
            for i, e in enumerate(_file().section("decode_errors"))]


@pytest.mark.parametrize("entry", _error_params())
def test_decode_error(entry: dict[str, Any]) -> None:
    assert entry["error"] == "orderedcode: corrupt input"
    bound = CODEC.bind(schema_from_fields(entry["fields"]))
    key = hex_to_bytes(entry["hex"])
    for data in (key, bytearray(key)):
        # Parse refuses it (not merely for bytes left over), as Go's Parse does
        with pytest.raises(DecodeError, match="corrupt input") as info:
            bound.parse(data)  # type: ignore[arg-type]
        assert info.value.codec == NAME
        assert info.value.field is not None
        with pytest.raises(DecodeError):
            bound.decode(data)  # type: ignore[arg-type]


# -- decode_only --------------------------------------------------------------------------------


def _as_bytes(fields: list[dict[str, Any]]) -> KeySchema:
    return schema_from_fields([{**f, "type": "bytes"} if f["type"] == "string" else f
                               for f in fields])


def _only_params() -> list[Any]:
    return [pytest.param(e, id=f"decode_only[{i}] {_schema_text(e['fields'])} {e['hex']}")
            for i, e in enumerate(_file().section("decode_only"))]


@pytest.mark.parametrize("entry", _only_params())
def test_decode_only(entry: dict[str, Any]) -> None:
    bound = CODEC.bind(_as_bytes(entry["fields"]))
    key = hex_to_bytes(entry["hex"])
    parsed = typed_values(entry["parsed"])  # strings as their bytes
    rest = hex_to_bytes(entry["remaining"])
    values, remaining = bound.parse(key)
    assert same(values, parsed)
    assert remaining == rest
    if rest:
        with pytest.raises(DecodeError, match="bytes left after the last field"):
            bound.decode(key)
    else:
        assert same(bound.decode(key), parsed)
