"""The ``charwise`` codec against ``vectors/charwise.json`` (npm charwise 3.0.1's own bytes).

The file is ``conformance/vectors/charwise.json``; until that copy exists, the shared one.

Every entry is a test, on the compiled and on the reference implementation (``impl``):

* ``cases``: ``encode(values)`` gives ``hex``, and the key decodes back to the values, or,
  where charwise's own reading differs (``decoded``), to a value that encodes to exactly the
  key (strict decoding: never the lenient reading when it would not); an ``error`` case is
  refused with an ``EncodeError`` naming field 0; the same keys as the one-element array
  under ``array=True`` and under a schema of the value's type;
* ``decode_errors``: a ``DecodeError`` with an offset;
* ``decode_only`` (text charwise's decoder accepts and its encoder never writes): refused,
  unless the bytes are also a key charwise writes for another value (``J 01``, the key of
  ``"\\x00"``), which then decodes to that value;
* ``js_only``: the JS inputs Python can hold (lone surrogates: stored as U+FFFD);
* ``order_vs_bytewise``: the keys of both values and the sign of their comparison.

Under the option ``reading="reference"`` (charwise's own reading, ``lenient_decode``) every
key reads as the oracle read it: a ``cases`` key as its ``decoded`` (else its values), also as
the items of an array under ``array=True``; a ``decode_only`` key as its ``decoded``; a
``js_only`` key as its ``decoded_from_bytes``; a ``decode_errors`` key is a ``DecodeError`` with
an offset. Floats are compared by their bits.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

import pytest

from lexcodecs.codecs.charwise import CharwiseCodec
from lexcodecs.errors import DecodeError, EncodeError
from lexcodecs.testing.model import identical
from lexcodecs.testing.vectors import VectorCase, VectorFile, load_vectors, typed_value

NAME = "charwise"
CODEC = CharwiseCodec()
ARRAY = CharwiseCodec(array=True)
REFERENCE = CharwiseCodec(reading="reference")
REFERENCE_ARRAY = CharwiseCodec(reading="reference", array=True)

pytestmark = pytest.mark.usefixtures("impl")


@functools.cache
def _file() -> VectorFile:
    return load_vectors(NAME)  # the bundled conformance/vectors/charwise.json


def _typed(obj: Mapping[str, Any]) -> Any:
    if "tuple" in obj:
        return tuple(_typed(v) for v in obj["tuple"])
    return typed_value(obj)


CASES: list[VectorCase] = list(_file().cases)
ENCODE = [c for c in CASES if c.key is not None]
ERRORS = [c for c in CASES if c.expects_error]
_FIELD_OF: dict[type, str] = {str: "string", bool: "bool", float: "float64",
                              type(None): "string"}


def test_vector_file_is_whole() -> None:
    assert _file().codec == NAME
    assert len(CASES) == 148
    assert len(ENCODE) == 144
    assert len(ERRORS) == 4
    assert all(c.runnable for c in CASES)
    assert all(c.values is not None and len(c.values) == 1 for c in CASES)
    sections = _file().raw
    assert [len(sections[k]) for k in ("js_only", "decode_errors", "decode_only",
                                       "order_vs_bytewise")] == [8, 7, 19, 28]


def test_every_case_encodes_and_decodes() -> None:
    for case in ENCODE:
        assert case.values is not None
        assert case.key is not None
        assert CODEC.encode(case.values).hex() == case.key.hex(), case.id
        back = CODEC.decode(case.key)
        assert type(back) is tuple, case.id
        assert len(back) == 1, case.id
        if "decoded" not in case.raw:
            assert identical(case.values, back), f"{case.id}: {back!r}"
        # strict: whatever it reads encodes to exactly the key
        assert CODEC.encode(back) == case.key, case.id


def test_decoded_differs_only_where_an_anomaly_says() -> None:
    """Where charwise reads a key as another value (``decoded``), a declared round-trip
    anomaly explains the values that do not come back."""
    caps = CODEC.capabilities
    for case in ENCODE:
        if "decoded" not in case.raw:
            continue
        assert case.values is not None
        assert case.key is not None
        back = CODEC.decode(case.key)
        if type(back[0]) is float and math.isnan(back[0]):
            continue  # every NaN is one value (the float policy): the one DaN reads as
        if not identical(case.values, back):
            assert caps.explained(("round-trip",), None, case.values, back), case.id


def test_every_case_as_an_array_and_under_a_schema() -> None:
    for case in ENCODE:
        assert case.values is not None
        assert case.key is not None
        value = case.values[0]
        wrapped = ARRAY.encode(case.values)
        text = case.key.decode("utf-8")
        if text.startswith("K") or (text.startswith("J") and ("!" in text or '"' in text)):
            continue  # a nested array, or an item that is escaped: not the same text
        assert wrapped == b"K" + case.key + b"!", case.id
        if type(value) in _FIELD_OF:
            schema = f"v:{_FIELD_OF[type(value)]}"
            assert CODEC.encode(case.values, schema) == case.key, case.id
            back = CODEC.decode(case.key, schema)
            assert CODEC.encode(back, schema) == case.key, case.id


def test_every_error_case_is_refused() -> None:
    for case in ERRORS:
        assert case.values is not None
        for codec in (CODEC, ARRAY):
            with pytest.raises(EncodeError) as info:
                codec.encode(case.values)
            assert info.value.codec == NAME, case.id
            assert info.value.field == 0, case.id


def test_decode_errors() -> None:
    for entry in _file().section("decode_errors"):
        data = bytes.fromhex(entry["hex"])
        for key in (data, bytearray(data), memoryview(data)):
            with pytest.raises(DecodeError) as info:
                CODEC.decode(key)  # type: ignore[arg-type]
            assert info.value.codec == NAME
            assert info.value.offset is not None


def test_decode_only_is_refused_or_exact() -> None:
    """charwise's lenient readings are never given: each such key is refused, or (the two
    ``J 01`` keys, which are the keys of ``"\\x00"`` and ``"\\x01"``) read as the value whose
    key it is."""
    offsets: list[int | None] = []
    for entry in _file().section("decode_only"):
        data = bytes.fromhex(entry["hex"])
        try:
            back = CODEC.decode(data)
        except DecodeError as exc:
            offsets.append(exc.offset)
            continue
        assert CODEC.encode(back) == data, entry["hex"]
        lenient = tuple(_typed(v) for v in entry["decoded"])
        assert not identical(lenient, back), entry["hex"]
    assert len(offsets) == 17
    assert None not in offsets


def test_js_only_inputs_python_can_hold() -> None:
    """Lone surrogates: stored as U+FFFD, read back as U+FFFD; the rest are JS values."""
    held = [e for e in _file().section("js_only") if "hex" in e]
    assert len(held) == 2
    for entry in held:
        values = tuple(_typed(v) for v in entry["values"])
        key = bytes.fromhex(entry["hex"])
        assert CODEC.encode(values) == key
        expected = tuple(_typed(v) for v in entry["decoded_from_bytes"])
        assert identical(expected, CODEC.decode(key))


def _sign(a: bytes, b: bytes) -> int:
    return (a > b) - (a < b)


def test_order_vs_bytewise() -> None:
    """The keys of both values, and charwise's sign: where it differs from bytewise's, an
    order anomaly or a collision is declared."""
    caps = CODEC.capabilities
    for entry in _file().section("order_vs_bytewise"):
        a = tuple(_typed(v) for v in entry["a"])
        b = tuple(_typed(v) for v in entry["b"])
        ka, kb = CODEC.encode(a), CODEC.encode(b)
        assert ka.hex() == entry["a_hex"]
        assert kb.hex() == entry["b_hex"]
        assert _sign(ka, kb) == entry["charwise_sign"]
        kinds = ("order", "collision")
        assert caps.explained(kinds, None, a, b) or caps.explained(kinds, None, b, a), entry


# -- reading="reference": charwise's own reading ---------------------------------------------


def _decoded(case: VectorCase) -> tuple[Any, ...]:
    """What charwise's decode returned for the case's key: ``decoded``, else the values."""
    if "decoded" in case.raw:
        return tuple(_typed(v) for v in case.raw["decoded"])
    assert case.values is not None
    return tuple(case.values)


def test_reference_reads_every_case_as_charwise() -> None:
    """Every key decodes to what charwise's decode returned (strings unescaped nowhere,
    array items unescaped everywhere, -0 as 0, NaN as the one NaN), bit for bit; a key
    holding an array gives its items under ``array=True``, any other key is refused there."""
    for case in ENCODE:
        assert case.key is not None
        expected = _decoded(case)
        back = REFERENCE.decode(case.key)
        assert identical(expected, back), f"{case.id}: {back!r}, charwise: {expected!r}"
        if type(expected[0]) is tuple:
            assert identical(expected[0], REFERENCE_ARRAY.decode(case.key)), case.id
        else:
            with pytest.raises(DecodeError):
                REFERENCE_ARRAY.decode(case.key)


def test_reference_reads_decode_only_as_charwise() -> None:
    """Text charwise's encoder never writes reads as its decoder read it: ``""`` as ``""``,
    ``K`` as ``[]``, ``CC`` as false, junk numbers as NaN, ``K!!`` as undefined..."""
    entries = _file().section("decode_only")
    assert len(entries) == 19
    for entry in entries:
        data = bytes.fromhex(entry["hex"])
        expected = tuple(_typed(v) for v in entry["decoded"])
        for key in (data, bytearray(data), memoryview(data)):
            back = REFERENCE.decode(key)  # type: ignore[arg-type]
            assert identical(expected, back), f"{entry['hex']}: {back!r}, charwise: {expected!r}"
        # what charwise re-encodes the value it read as (reencode_hex)
        assert REFERENCE.encode(expected).hex() == entry["reencode_hex"], entry["hex"]


def test_reference_decode_errors() -> None:
    """Where charwise's decode throws (an unknown first character, ``A!``'s TypeError), a
    DecodeError naming the codec, with an offset, the bytes found and what was expected."""
    entries = _file().section("decode_errors")
    assert len(entries) == 7
    for entry in entries:
        data = bytes.fromhex(entry["hex"])
        for codec in (REFERENCE, REFERENCE_ARRAY):
            for key in (data, bytearray(data), memoryview(data)):
                with pytest.raises(DecodeError) as info:
                    codec.decode(key)  # type: ignore[arg-type]
                assert info.value.codec == NAME, entry["hex"]
                assert info.value.offset is not None, entry["hex"]
                assert info.value.found, entry["hex"]
                assert info.value.expected, entry["hex"]


def test_reference_error_offsets() -> None:
    """The offset is the byte where charwise gives up: the unknown first character of the
    key or of an array item, the item pushed with no array open."""
    offsets = {entry["hex"]: 0 for entry in _file().section("decode_errors")}
    offsets["4b4a61225a21"] = 4  # K Ja " Z!: the item Z
    for text, offset in offsets.items():
        with pytest.raises(DecodeError) as info:
            REFERENCE.decode(bytes.fromhex(text))
        assert info.value.offset == offset, text


def test_reference_reads_js_only_bytes() -> None:
    """Lone surrogates are stored as U+FFFD: the bytes read as ``decoded_from_bytes``."""
    held = [e for e in _file().section("js_only") if "hex" in e]
    assert len(held) == 2
    for entry in held:
        expected = tuple(_typed(v) for v in entry["decoded_from_bytes"])
        assert identical(expected, REFERENCE.decode(bytes.fromhex(entry["hex"])))


def test_reference_reading_changes_no_key() -> None:
    """The option changes how keys are read, never the keys written nor the prefix ranges."""
    for case in ENCODE:
        assert case.values is not None
        assert case.key is not None
        assert REFERENCE.encode(case.values) == case.key, case.id
        assert REFERENCE_ARRAY.encode(case.values) == ARRAY.encode(case.values), case.id
        assert REFERENCE.prefix_range(case.values) == CODEC.prefix_range(case.values)
    for case in ERRORS:
        assert case.values is not None
        with pytest.raises(EncodeError):
            REFERENCE.encode(case.values)
