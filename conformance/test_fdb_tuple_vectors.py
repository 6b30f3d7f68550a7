"""Every entry of ``vectors/fdb-tuple.json`` run against the ``fdb-tuple`` codec.

The lists and their checks are those of the spec's §12 (``/work/shared/specs/fdb-tuple.md``):

* ``cases``: encode gives ``hex`` (with the case's options and schema); a schemaless case
  decodes back to its values (an input list decodes as a tuple); a schema case decodes back
  with its schema; an ``error`` case is refused with a lexcodecs error, and a case whose
  values lexcodecs already refused while building them (``build_error``) counts as refused;
* ``with_prefix``, ``ranges``, ``with_versionstamp``: the prefix, range and versionstamp APIs;
* ``decode_only``: forms that decode but re-encode differently (or not at all);
* ``decode_errors``: DecodeError at the exact ``offset``;
* ``sorted_order``: the keys are strictly ascending and each is ``encode(values)``.

Floats are compared by their exact bits (``same``), so NaN payloads and -0.0 count.
"""

from __future__ import annotations

import functools
import itertools
import struct
from typing import Any

import pytest

from lexcodecs import (
    DecodeError,
    EncodeError,
    LexCodecError,
    SchemaError,
    UnsupportedTypeError,
    get_codec,
)
from lexcodecs.codecs import fdb_tuple
from lexcodecs.codecs.fdb_tuple import FdbTupleCodec
from lexcodecs.testing.model import identical
from lexcodecs.testing.vectors import (
    VectorCase,
    VectorFile,
    load_vectors,
    schema_from_fields,
    typed_values,
)
from lexcodecs.types import Float32

#: every test runs on the compiled and on the reference implementation (conftest.py)
pytestmark = pytest.mark.usefixtures("impl")

_D = struct.Struct(">d")


@functools.cache
def vectors() -> VectorFile:
    return load_vectors("fdb-tuple")


same = identical  # exact: types, and floats by their bits


def test_same_helper() -> None:
    nan = float("nan")
    assert same(nan, nan)
    assert not same(nan, -nan)
    assert not same(0.0, -0.0)
    assert same(Float32.from_bits(0x7FC00001), Float32.from_bits(0x7FC00001))
    assert not same(Float32.from_bits(0x7FC00001), Float32.from_bits(0x7FC00002))
    assert not same(Float32(1.0), 1.0)
    assert not same(1.0, Float32(1.0))
    assert not same(True, 1)
    assert not same(1, True)
    assert same([1, (None, b"a")], (1, (None, b"a")))
    assert not same((1,), [1])
    assert not same(b"a", bytearray(b"a"))
    assert not same((1, 2), (1,))


CODEC = FdbTupleCodec()


def codec_for(options: dict[str, Any] | None) -> Any:
    return get_codec("fdb-tuple", **options) if options else CODEC


def _short(text: str, limit: int = 40) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _entry_id(section: str, i: int, entry: dict[str, Any]) -> str:
    label = entry.get("note") or entry.get("error") or entry.get("hex") or entry.get(
        "source") or ""
    return f"{section}[{i}] {_short(label)}".strip()


def _section(name: str) -> list[Any]:
    entries = vectors().section(name)
    return [pytest.param(i, e, id=_entry_id(name, i, e)) for i, e in enumerate(entries)]


def _expect_lex_error(call: Any, kinds: tuple[type[LexCodecError], ...] = (LexCodecError,)
                     ) -> Any:
    """Run *call*: it must raise one of *kinds*, all lexcodecs errors. Anything else (a bare
    ValueError, TypeError, struct.error, IndexError ...) escapes and fails the test."""
    with pytest.raises(kinds) as info:
        call()
    return info.value


# -- cases ------------------------------------------------------------------------------------


def _case_id(case: VectorCase) -> str:
    """``cases[12]`` and what the case is about: its note, its error or its source."""
    label = case.note or case.error or case.source or case.raw.get("hex", "")
    return f"cases[{case.index}] {_short(label)}".strip()


def _case_params() -> list[Any]:
    return [pytest.param(c, id=_case_id(c)) for c in vectors().cases]


def test_every_section_is_covered() -> None:
    covered = {"with_prefix", "ranges", "with_versionstamp", "decode_only", "decode_errors",
               "sorted_order"}
    assert set(vectors().sections) == covered
    assert vectors().codec == "fdb-tuple"


@pytest.mark.parametrize("case", _case_params())
def test_case(case: VectorCase) -> None:
    assert case.skip_reason is None, case.skip_reason
    codec = codec_for(case.options)
    if case.expects_error:
        _check_error_case(case, codec)
        return
    assert case.values is not None
    assert case.key is not None
    key = codec.encode(case.values, case.schema)
    assert key.hex() == case.key.hex()
    if case.schema is None:
        back = codec.decode(case.key)
        assert same(case.values, back), f"decoded {back!r}, expected {case.values!r}"
        # the module-level functions are the default codec
        if not case.options:
            assert fdb_tuple.encode(case.values) == case.key
            assert same(case.values, fdb_tuple.decode(case.key))
        # a list at the top level encodes as the tuple does
        assert codec.encode(list(case.values)) == case.key
    else:
        back = codec.decode(case.key, case.schema)
        assert same(_expected_with_schema(case), back), f"decoded {back!r}"
        # a schema key is an ordinary tuple key: it decodes without the schema too
        assert len(codec.decode(case.key)) == len(case.values)


def _expected_with_schema(case: VectorCase) -> tuple[Any, ...]:
    """The values coerced to their fields' types (int -> float64, float -> float32 ...)."""
    assert case.values is not None
    assert case.schema is not None
    out: list[Any] = []
    for f, v in zip(case.schema.fields, case.values):
        if v is None:
            out.append(None)
        elif f.type == "float32":
            out.append(Float32(v))
        elif f.type == "float64":
            out.append(float(v))
        else:
            out.append(v)
    return tuple(out)


def _error_kinds(case: VectorCase) -> tuple[type[BaseException], ...]:
    text = case.error or ""
    if text.startswith("SchemaError"):
        return (SchemaError,)
    if text.startswith("UnsupportedTypeError"):
        return (UnsupportedTypeError,)
    return (EncodeError, SchemaError)  # EncodeError covers UnsupportedTypeError


def _check_error_case(case: VectorCase, codec: Any) -> None:
    if case.values is None:
        # lexcodecs refused a value while it was built (Int8(128)): that is the refusal
        assert case.build_error is not None
        return
    kinds = _error_kinds(case)
    if case.schema is not None and kinds == (SchemaError,):
        # refused when the codec is built, before any value is looked at
        exc = _expect_lex_error(lambda: codec.bind(case.schema), kinds)
        assert exc.codec == "fdb-tuple", str(exc)
    exc = _expect_lex_error(lambda: codec.encode(case.values, case.schema), kinds)
    assert str(exc)
    if case.schema is None and not case.options:
        _expect_lex_error(lambda: fdb_tuple.encode(case.values), kinds)
        _expect_lex_error(lambda: codec.prefix_range(case.values), kinds)


# -- with_prefix ------------------------------------------------------------------------------


@pytest.mark.parametrize(("i", "entry"), _section("with_prefix"))
def test_with_prefix(i: int, entry: dict[str, Any]) -> None:
    values = typed_values(entry["values"])
    prefix = bytes.fromhex(entry["prefix"])
    want = bytes.fromhex(entry["hex"])
    assert CODEC.encode(values, prefix=prefix).hex() == want.hex()
    assert fdb_tuple.encode(values, prefix=prefix) == want
    assert same(values, CODEC.decode(want, prefix=prefix))
    assert same(values, fdb_tuple.decode(want, prefix=prefix))


# -- ranges -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("i", "entry"), _section("ranges"))
def test_ranges(i: int, entry: dict[str, Any]) -> None:
    values = typed_values(entry["values"])
    want = (bytes.fromhex(entry["start_hex"]), bytes.fromhex(entry["stop_hex"]))
    if "prefix" in entry:
        prefix = bytes.fromhex(entry["prefix"])
        got = CODEC.prefix_range(values, prefix=prefix)
        assert fdb_tuple.prefix_range(values, prefix=prefix) == want
    else:
        got = CODEC.prefix_range(values)
        assert fdb_tuple.prefix_range(values) == want
    assert (got[0].hex(), got[1].hex()) == (want[0].hex(), want[1].hex())


# -- with_versionstamp ------------------------------------------------------------------------


@pytest.mark.parametrize(("i", "entry"), _section("with_versionstamp"))
def test_with_versionstamp(i: int, entry: dict[str, Any]) -> None:
    values = typed_values(entry["values"])
    prefix = bytes.fromhex(entry.get("prefix", ""))
    if "error" in entry:
        exc = _expect_lex_error(
            lambda: CODEC.encode_with_versionstamp(values, prefix=prefix), (EncodeError,))
        assert not isinstance(exc, UnsupportedTypeError), str(exc)
        word = "no" if entry["error"].startswith("no ") else "several"
        assert word in str(exc), str(exc)
        _expect_lex_error(lambda: fdb_tuple.encode_with_versionstamp(values, prefix=prefix),
                          (EncodeError,))
        return
    want = bytes.fromhex(entry["hex"])
    assert CODEC.encode_with_versionstamp(values, prefix=prefix).hex() == want.hex()
    assert fdb_tuple.encode_with_versionstamp(values, prefix=prefix) == want
    # the offset points at the first of the ten ff bytes, right after a 33 code
    offset = int.from_bytes(want[-4:], "little")
    assert want[offset - 1] == 0x33
    assert want[offset:offset + 10] == b"\xff" * 10
    # a plain encode refuses the incomplete stamp
    _expect_lex_error(lambda: CODEC.encode(values), (EncodeError,))


# -- decode_only ------------------------------------------------------------------------------


@pytest.mark.parametrize(("i", "entry"), _section("decode_only"))
def test_decode_only(i: int, entry: dict[str, Any]) -> None:
    data = bytes.fromhex(entry["hex"])
    values = typed_values(entry["values"])
    back = CODEC.decode(data)
    assert same(values, back), f"decoded {back!r}, expected {values!r}"
    assert same(values, fdb_tuple.decode(data))
    java = get_codec("fdb-tuple", max_u64_form="java")
    assert same(values, java.decode(data))
    if "reencode_error" in entry:
        _expect_lex_error(lambda: CODEC.encode(back), (EncodeError,))
        _expect_lex_error(lambda: java.encode(back), (EncodeError,))
        return
    assert CODEC.encode(back).hex() == entry["reencode_hex"]
    java_hex = entry.get("reencode_hex_java", entry["reencode_hex"])
    assert java.encode(back).hex() == java_hex


# -- decode_errors ----------------------------------------------------------------------------


@pytest.mark.parametrize(("i", "entry"), _section("decode_errors"))
def test_decode_error(i: int, entry: dict[str, Any]) -> None:
    data = bytes.fromhex(entry["hex"])
    prefix = bytes.fromhex(entry.get("prefix", ""))
    schema = schema_from_fields(entry["fields"]) if "fields" in entry else None
    for codec in (CODEC, get_codec("fdb-tuple", max_u64_form="java")):
        exc = _expect_lex_error(lambda c=codec: c.decode(data, schema, prefix=prefix),
                                (DecodeError,))
        assert isinstance(exc, DecodeError)
        assert exc.offset == entry["offset"], str(exc)
        assert exc.codec == "fdb-tuple", str(exc)
    # the same bytes as bytearray and memoryview fail the same way
    for view in (bytearray(data), memoryview(data)):
        exc = _expect_lex_error(lambda v=view: CODEC.decode(v, schema, prefix=prefix),
                                (DecodeError,))
        assert isinstance(exc, DecodeError)
        assert exc.offset == entry["offset"]
    if schema is None:
        exc = _expect_lex_error(lambda: fdb_tuple.decode(data, prefix=prefix), (DecodeError,))
        assert isinstance(exc, DecodeError)
        assert exc.offset == entry["offset"]


# -- sorted_order -----------------------------------------------------------------------------


def test_sorted_order_is_strictly_ascending() -> None:
    keys = [bytes.fromhex(e["hex"]) for e in vectors().section("sorted_order")]
    assert len(keys) == 46
    for a, b in itertools.pairwise(keys):
        assert a < b, f"{a.hex()} !< {b.hex()}"
    encoded = [CODEC.encode(typed_values(e["values"])) for e in vectors().section("sorted_order")]
    assert encoded == sorted(encoded)


@pytest.mark.parametrize(("i", "entry"), _section("sorted_order"))
def test_sorted_order_entry(i: int, entry: dict[str, Any]) -> None:
    values = typed_values(entry["values"])
    key = bytes.fromhex(entry["hex"])
    assert CODEC.encode(values).hex() == key.hex()
    assert same(values, CODEC.decode(key))
