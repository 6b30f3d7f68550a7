"""The ``ordered-binary`` codec against ``vectors/ordered-binary.json``.

The bytes are npm ordered-binary 1.6.3's own (``toBufferKey`` on Node.js 20; ``decoded`` and
``decode_error`` are what its ``fromBufferKey`` gives). Every entry is a test:

* ``cases``: ``encode(values)`` (with the case's codec options) gives ``hex``, and the key
  decodes without a schema to ``decoded`` (lmdb-js's lossy reading) or the values; a
  ``decode_error`` case is refused with a ``DecodeError`` at an offset; an ``error`` case is
  refused with an ``EncodeError`` naming field 0;
* the same keys under a schema of the values' types (null as a string field): the same
  bytes, and the values back exactly, or a refusal only where an anomaly says so;
* ``js_only``: the JS inputs a Python ``str`` or :class:`JsSymbol` can still express.

The file is ``conformance/vectors/ordered-binary.json``; until that copy exists, the shared
one. Every test runs twice, on the compiled and on the reference implementation (``impl``).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import pytest

from lexcodecs.codecs.ordered_binary import JsSymbol, OrderedBinaryCodec
from lexcodecs.errors import DecodeError, EncodeError
from lexcodecs.testing.model import identical
from lexcodecs.testing.vectors import VectorCase, VectorFile, load_vectors, typed_value

NAME = "ordered-binary"
CODEC = OrderedBinaryCodec()

# every vector, byte for byte, on the compiled and on the reference implementation
pytestmark = pytest.mark.usefixtures("impl")


@functools.cache
def _file() -> VectorFile:
    return load_vectors(NAME)  # the bundled conformance/vectors/<NAME>.json


def _typed(obj: Mapping[str, Any]) -> Any:
    """A typed vector value; ``symbol`` (a JS Symbol, only in ``decoded``) as JsSymbol."""
    if "symbol" in obj:
        return JsSymbol(obj["symbol"])
    if "tuple" in obj:
        return tuple(_typed(v) for v in obj["tuple"])
    return typed_value(obj)


@functools.cache
def _codec(array: bool) -> OrderedBinaryCodec:
    return OrderedBinaryCodec(array=array)


def _codec_of(case: VectorCase) -> OrderedBinaryCodec:
    return _codec(bool(case.options.get("array", False)))


CASES: list[VectorCase] = list(_file().cases)
ENCODE = [c for c in CASES if c.key is not None]
ERRORS = [c for c in CASES if c.expects_error]
_FIELD_OF: dict[type, str] = {str: "string", bytes: "bytes", bool: "bool", float: "float64",
                              int: "int", type(None): "string"}


def test_vector_file_is_whole() -> None:
    assert _file().codec == NAME
    assert len(CASES) == 282
    assert all(c.runnable for c in CASES)
    assert len(ENCODE) + len(ERRORS) == len(CASES)
    assert all(set(c.options) <= {"array"} for c in CASES)


def test_every_case_encodes_and_decodes() -> None:
    """Each key byte for byte, then lmdb-js's reading of it (or its refusal)."""
    for case in ENCODE:
        assert case.values is not None
        assert case.key is not None
        codec = _codec_of(case)
        assert codec.encode(case.values).hex() == case.key.hex(), case.id
        if "decode_error" in case.raw:
            with pytest.raises(DecodeError) as info:
                codec.decode(case.key)
            assert info.value.codec == NAME, case.id
            assert info.value.offset is not None, case.id
            continue
        raw = case.raw
        expected = (tuple(_typed(v) for v in raw["decoded"]) if "decoded" in raw
                    else case.values)
        got = codec.decode(case.key)
        assert type(got) is tuple, case.id
        assert identical(expected, got), f"{case.id}: {got!r} != {expected!r}"


def test_every_error_case_is_refused() -> None:
    for case in ERRORS:
        assert case.values is not None
        with pytest.raises(EncodeError) as info:
            _codec_of(case).encode(case.values)
        assert info.value.codec == NAME, case.id
        assert info.value.field == 0, case.id
        assert info.value.has_value, case.id


def test_every_case_under_a_schema() -> None:
    """With a schema of the values' types the key is the same, and it decodes to exactly
    the values, or is refused, only where an anomaly says so."""
    bound = [c for c in ENCODE if c.values and all(type(v) in _FIELD_OF for v in c.values)]
    assert len(bound) > 150
    for case in bound:
        assert case.values is not None
        assert case.key is not None
        schema = ", ".join(f"f{i}:{_FIELD_OF[type(v)]}" for i, v in enumerate(case.values))
        codec = _codec_of(case)
        assert codec.encode(case.values, schema) == case.key, case.id
        try:
            back = codec.decode(case.key, schema)
        except DecodeError:
            back = None
        if back is None or not identical(case.values, back):
            assert codec.capabilities.explained(("round-trip",), None, case.values,
                                                back or ()), case.id


def test_js_only_inputs_python_can_hold() -> None:
    """Lone surrogates are a Python str too, and a Symbol is a JsSymbol."""
    entries = [j for j in _file().section("js_only") if "undefined" not in j["values"][0]]
    assert entries
    for entry in entries:
        values = tuple(_typed(v) for v in entry["values"])
        key = bytes.fromhex(entry["hex"])
        assert CODEC.encode(values) == key, entry["hex"]
        expected = tuple(_typed(v) for v in entry.get("decoded", entry["values"]))
        assert identical(expected, CODEC.decode(key)), entry["hex"]
