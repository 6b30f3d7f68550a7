"""The ``memcomparable`` codec against ``conformance/vectors/memcomparable.json``.

The bytes are the crate's own (memcomparable 0.2.0, feature ``decimal``, run by a small Rust
driver). Every entry is a test, on the compiled and on the reference implementation
(``impl``):

* ``cases``: ``encode(values, schema)`` gives ``hex`` (from a tuple, a list and the bound
  schema), and the key decodes to the values, or to ``decoded`` where the crate normalises
  (-0.0, NaN, a decimal's scale): types compared, floats by their bits, Decimals by their
  text; ``bytes``, ``bytearray`` and ``memoryview`` keys alike; ``error`` cases (a variant
  index above 255, decimals beyond rust_decimal) refused with an EncodeError;
* ``decode_errors``: a DecodeError naming the codec, with an offset, also where the crate
  panics (a truncated key);
* ``decode_only``: keys the crate accepts although no value encodes to them: read as the
  file's ``parsed``, and re-encoded to its ``reencoded`` bytes.
"""

from __future__ import annotations

import decimal
import functools
from typing import Any

import pytest

from lexcodecs.codecs.memcomparable import MemcomparableCodec
from lexcodecs.errors import DecodeError, EncodeError
from lexcodecs.testing.model import identical
from lexcodecs.testing.vectors import (
    VectorCase,
    VectorFile,
    check_each,
    load_vectors,
    schema_from_fields,
    typed_values,
)

NAME = "memcomparable"
CODEC = MemcomparableCodec()

pytestmark = pytest.mark.usefixtures("impl")


@functools.cache
def _file() -> VectorFile:
    return load_vectors(NAME)  # the bundled conformance/vectors/memcomparable.json


CASES: list[VectorCase] = list(_file().cases)


def same(got: tuple[Any, ...], want: tuple[Any, ...]) -> bool:
    """The same values and types; floats by their bits, Decimals by their text (so NaN is
    NaN and 1.5 is not 1.50)."""
    return len(got) == len(want) and all(
        type(g) is type(w) and str(g) == str(w) if isinstance(w, decimal.Decimal)
        else identical((w,), (g,)) for g, w in zip(got, want))


def test_the_vector_file_is_whole() -> None:
    vf = _file()
    assert vf.codec == NAME
    assert len(CASES) == 398
    assert sum(c.expects_error for c in CASES) == 3
    assert set(vf.sections) == {"decode_errors", "decode_only"}
    assert len(vf.section("decode_errors")) == 47
    assert len(vf.section("decode_only")) == 12


def _groups() -> list[Any]:
    """The cases, one test per field list (a few dozen tests, not hundreds)."""
    groups: dict[str, list[VectorCase]] = {}
    for c in CASES:
        groups.setdefault(str(c.schema), []).append(c)
    return [pytest.param(cases, id=f"{text} ({len(cases)})") for text, cases in groups.items()]


def check_case(case: VectorCase) -> None:
    assert case.schema is not None
    assert case.values is not None
    if case.expects_error:
        with pytest.raises(EncodeError) as info:
            CODEC.encode(case.values, case.schema)
        assert info.value.codec == NAME
        assert info.value.field is not None
        return
    assert case.key is not None
    bound = CODEC.bind(case.schema)
    assert CODEC.encode(case.values, case.schema).hex() == case.key.hex()
    assert bound.encode(list(case.values)) == case.key
    want = typed_values(case.raw["decoded"]) if "decoded" in case.raw else case.values
    for data in (case.key, bytearray(case.key), memoryview(case.key)):
        got = bound.decode(data)  # type: ignore[arg-type]
        assert same(got, want), (got, want)


@pytest.mark.parametrize("cases", _groups())
def test_cases(cases: list[VectorCase]) -> None:
    check_each(cases, check_case)


@pytest.mark.parametrize("entry", _file().section("decode_errors"),
                         ids=lambda e: f"{e['hex'] or 'empty'}")
def test_decode_errors(entry: dict[str, Any]) -> None:
    schema = schema_from_fields(entry["fields"])
    key = bytes.fromhex(entry["hex"])
    for data in (key, bytearray(key), memoryview(key)):
        with pytest.raises(DecodeError) as info:
            CODEC.decode(data, schema)  # type: ignore[arg-type]
        assert info.value.codec == NAME
        assert info.value.offset is not None
        assert 0 <= info.value.offset <= len(key)
    error = entry["error"]
    if not error.startswith("panic"):  # the crate's own words, where it words the error
        assert error in str(info.value) or "invalid UTF8" in error, str(info.value)


@pytest.mark.parametrize("entry", _file().section("decode_only"), ids=lambda e: e["hex"])
def test_decode_only(entry: dict[str, Any]) -> None:
    schema = schema_from_fields(entry["fields"])
    parsed = typed_values(entry["parsed"])
    got = CODEC.decode(bytes.fromhex(entry["hex"]), schema)
    assert same(got, parsed), got
    assert CODEC.encode(parsed, schema).hex() == entry["reencoded"]
