"""The ``tidb`` codec against ``conformance/vectors/tidb.json``, section by section.

The bytes are TiDB's own (``util/codec`` and ``tablecodec`` at commit 012cb6da9443, run; see
``notes`` in the file). The generic runner (``conformance/test_vector_case.py``) already checks
``cases`` and ``decode_errors`` through ``get_codec``; here is what is tidb's own, on both
implementations (``impl``):

* ``cases``: each key byte for byte from a tuple and a list, with the codec options of the case
  (31 framed keys), and its decode with the schema: the values, or ``decoded`` (-0.0 as 0.0,
  positive-sign NaNs as the subnormal they collide with, decimals at the header's scale); the
  key decodes without a schema to as many values; ``error`` cases refused naming the codec;
* ``decode_errors``: a DecodeError with an offset inside the key, through the codec and the
  bound schema, the two decimal bodies TiDB panics on included;
* ``decode_only``: the value encodings and other headers TiDB's decoder accepts decode to
  ``parsed``, with nothing remaining.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from lexcodecs.codecs.tidb import TidbCodec
from lexcodecs.errors import DecodeError, LexCodecError
from lexcodecs.testing.model import identical
from lexcodecs.testing.vectors import (
    VectorCase,
    VectorFile,
    load_vectors,
    schema_from_fields,
    typed_value,
)

NAME = "tidb"

pytestmark = pytest.mark.usefixtures("impl")


@functools.cache
def _file() -> VectorFile:
    return load_vectors(NAME)  # the bundled conformance/vectors/tidb.json


@functools.cache
def _codec(options: tuple[tuple[str, Any], ...]) -> TidbCodec:
    return TidbCodec(**dict(options))


def codec_of(options: dict[str, Any] | None) -> TidbCodec:
    return _codec(tuple(sorted((options or {}).items())))


CASES: list[VectorCase] = list(_file().cases)
RUNNABLE = [c for c in CASES if c.skip_reason is None]
ENCODE = [c for c in RUNNABLE if c.key is not None]
ERRORS = [c for c in CASES if c.expects_error]


def test_vector_file_is_whole() -> None:
    assert _file().codec == NAME
    assert len(CASES) == 330
    assert len(RUNNABLE) == 326  # 4 durations of nanoseconds no timedelta holds
    assert {c.raw["values"][0]["dur_ns"] for c in CASES if c.skip_reason is not None} == {
        "1", "-1", "9223372036854775807", "-9223372036854775808"}
    assert len(ENCODE) == 315
    assert len(ERRORS) == 11
    assert sum(1 for c in CASES if c.options) == 31
    assert len(_file().section("decode_errors")) == 47
    assert len(_file().section("decode_only")) == 13


def test_every_case_encodes_and_decodes() -> None:
    for case in ENCODE:
        assert case.values is not None
        assert case.key is not None
        assert case.schema is not None
        codec = codec_of(case.options)
        assert codec.encode(case.values, case.schema).hex() == case.key.hex(), case.id
        assert codec.encode(list(case.values), case.schema) == case.key, case.id
        expected = (tuple(typed_value(v) for v in case.raw["decoded"])
                    if "decoded" in case.raw else case.values)
        got = codec.decode(case.key, case.schema)
        assert identical(expected, got), f"{case.id}: {got!r} != {expected!r}"
        assert codec.encode(got, case.schema) == case.key, case.id
        assert len(codec.decode(case.key)) == len(case.values), case.id


def test_every_error_case_is_refused() -> None:
    for case in ERRORS:
        assert case.values is not None
        assert case.schema is not None
        with pytest.raises(LexCodecError) as info:
            codec_of(case.options).encode(case.values, case.schema)
        assert info.value.codec == NAME, case.id


def test_decode_errors_are_refused() -> None:
    for entry in _file().section("decode_errors"):
        data = bytes.fromhex(entry["hex"])
        codec = codec_of(entry.get("options"))
        schema = schema_from_fields(entry["fields"])
        for form in (data, bytearray(data), memoryview(data)):
            for use in (schema, None):  # the datums' flags say what they are: refused alike
                with pytest.raises(DecodeError) as info:
                    codec.decode(form, use)  # type: ignore[arg-type]
                assert info.value.codec == NAME, entry
                assert info.value.offset is not None
                assert 0 <= info.value.offset <= len(data)
        with pytest.raises(DecodeError):
            codec.bind(schema).decode(data)


def test_decimal_bodies_tidb_panics_on_are_decode_errors() -> None:
    panics = [e for e in _file().section("decode_errors") if e["error"].startswith("panic")]
    assert len(panics) == 2
    for entry in panics:
        data = bytes.fromhex(entry["hex"])
        with pytest.raises(DecodeError, match="shorter than its header") as info:
            TidbCodec().decode(data, schema_from_fields(entry["fields"]))
        assert info.value.offset == len(data)


def test_decode_only_entries_decode_to_parsed() -> None:
    for entry in _file().section("decode_only"):
        assert entry["remaining"] == ""
        data = bytes.fromhex(entry["hex"])
        codec = codec_of(entry.get("options"))
        want = tuple(typed_value(v) for v in entry["parsed"])
        got = codec.decode(data, schema_from_fields(entry["fields"]))
        assert identical(want, got), f"{entry['hex']}: {got!r} != {want!r}"
