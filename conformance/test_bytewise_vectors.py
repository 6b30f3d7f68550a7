"""The ``bytewise`` codec against ``conformance/vectors/bytewise.json``, section by section.

The bytes are npm bytewise 1.1.0's own (``bytewise.encode`` / ``bytewise.decode`` on Node.js
20). The generic runner (``conformance/test_vector_cases.py``) already checks ``cases`` and
``decode_errors``; here is what is bytewise's own, on both implementations (``impl``):

* ``cases``: each key byte for byte, from a tuple and a list, and its decode: the values, or
  ``decoded`` (``-0`` as ``0``); a top-level array also through the option ``array`` (its
  elements are the values); ``error`` cases (NaN) refused with an EncodeError;
* ``decode_errors``: a DecodeError with an offset, for both values of ``array``;
* ``decode_only``: bytes bytewise's lenient decoder accepts but its encoder never writes:
  refused (strict decoding), and the value bytewise reads from them encodes to
  ``reencode_hex`` where it gives one;
* ``js_only``: lone surrogates (written as U+FFFD), a Symbol refused, Dates beyond Python's
  years refused on decode;
* ``bounds``: the range helpers' bytes are no keys of a value (refused), or the key of the
  value bytewise decodes; ``sorts.array.bound`` is the codec's ``prefix_range``;
* ``sorted_order``: the keys sort as listed, and each is its value's key;
* ``order_anomalies``: the byte order the file gives (the declared interop anomalies).

Under the codec option ``reading="reference"`` (keys read as bytewise's own decode reads
them) the same file says what every key decodes to: ``cases`` to their ``decoded`` or their
values, ``decode_only`` to their ``decoded`` (an Invalid Date, ``{"js": ...}``, is a
DecodeError: Python cannot hold one), ``decode_errors`` and the bounds bytewise cannot decode
to a DecodeError with an offset; floats are compared by their bits (``identical``).
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from lexcodecs.codecs.bytewise import BytewiseCodec
from lexcodecs.codecs.ordered_binary import JsSymbol
from lexcodecs.errors import DecodeError, EncodeError, LexCodecError
from lexcodecs.testing.model import identical
from lexcodecs.testing.vectors import (
    VectorCase,
    VectorFile,
    VectorFormatError,
    load_vectors,
    typed_value,
)

NAME = "bytewise"
CODEC = BytewiseCodec()
ARRAY = BytewiseCodec(array=True)
READ = BytewiseCodec(reading="reference")
READ_ARRAY = BytewiseCodec(reading="reference", array=True)

pytestmark = pytest.mark.usefixtures("impl")


@functools.cache
def _file() -> VectorFile:
    return load_vectors(NAME)  # the bundled conformance/vectors/bytewise.json


def _section(name: str) -> list[dict[str, Any]]:
    return list(_file().section(name))


CASES: list[VectorCase] = list(_file().cases)
ENCODE = [c for c in CASES if c.key is not None]
ERRORS = [c for c in CASES if c.expects_error]


def _typed(values: list[dict[str, Any]]) -> tuple[Any, ...] | None:
    """Typed values, or None where one has no Python counterpart (a JS expression, a Date
    outside Python's years)."""
    try:
        return tuple(typed_value(v) for v in values)
    except (VectorFormatError, ValueError, OverflowError):
        return None


def test_vector_file_is_whole() -> None:
    assert _file().codec == NAME
    assert len(CASES) == 312
    assert all(c.runnable for c in CASES)
    assert len(ENCODE) == 306
    assert len(ERRORS) == 6
    assert all(c.values is not None and len(c.values) == 1 for c in CASES)


def test_every_case_encodes_and_decodes() -> None:
    for case in ENCODE:
        assert case.values is not None
        assert case.key is not None
        assert CODEC.encode(case.values).hex() == case.key.hex(), case.id
        assert CODEC.encode(list(case.values)) == case.key, case.id
        expected = _typed(case.raw["decoded"]) if "decoded" in case.raw else case.values
        got = CODEC.decode(case.key)
        assert type(got) is tuple, case.id
        assert len(got) == 1, case.id
        assert identical(expected, got), f"{case.id}: {got!r} != {expected!r}"
        assert CODEC.encode(got) == case.key, case.id


def test_top_level_arrays_under_the_array_option() -> None:
    arrays = [c for c in ENCODE if c.values is not None and type(c.values[0]) is tuple]
    assert len(arrays) == 107  # and 2 NaN error cases
    for case in arrays:
        assert case.values is not None
        assert case.key is not None
        elements = case.values[0]
        assert ARRAY.encode(elements) == case.key, case.id
        back = ARRAY.decode(case.key)
        expected = (_typed(case.raw["decoded"]) or ((),))[0] if "decoded" in case.raw \
            else elements
        assert identical(tuple(expected), back), case.id


def test_scalars_are_not_arrays_under_the_array_option() -> None:
    for case in ENCODE:
        assert case.key is not None
        if case.key[0] != 0xA0:
            with pytest.raises(DecodeError) as info:
                ARRAY.decode(case.key)
            assert info.value.offset == 0, case.id


def test_every_error_case_is_refused() -> None:
    assert {c.raw["error"] for c in ERRORS} == {"TypeError: Invalid value"}
    for case in ERRORS:
        assert case.values is not None
        for codec in (CODEC, ARRAY):
            with pytest.raises(EncodeError) as info:
                codec.encode(case.values)
            assert info.value.codec == NAME, case.id
            assert "NaN" in str(info.value), case.id


def _refused(key: bytes, codecs: tuple[BytewiseCodec, ...] = (CODEC, ARRAY)) -> DecodeError:
    """The DecodeError of the first of *codecs* (each must refuse the key, in every bytes
    form, naming the codec, an offset within the key and what it expected)."""
    first: list[DecodeError] = []
    for codec in codecs:
        for form in (key, bytearray(key), memoryview(key)):
            with pytest.raises(DecodeError) as info:
                codec.decode(form)  # type: ignore[arg-type]
            assert info.value.codec == NAME, key.hex()
            assert info.value.offset is not None, key.hex()
            assert 0 <= info.value.offset <= len(key), key.hex()
            assert info.value.expected, key.hex()
            first.append(info.value)
    return first[0]


def test_decode_errors_are_refused() -> None:
    entries = _section("decode_errors")
    assert len(entries) == 40
    for entry in entries:
        _refused(bytes.fromhex(entry["hex"]))


def test_arrays_running_past_the_end_are_refused_at_the_end() -> None:
    """bytewise overflows its stack on these (RangeError); here: a DecodeError at the end."""
    overflows = [e for e in _section("decode_errors") if e["error"].startswith("RangeError")]
    assert overflows
    for entry in overflows:
        key = bytes.fromhex(entry["hex"])
        assert _refused(key).offset == len(key)


def test_decode_only_is_refused() -> None:
    """Strict decoding: none of these is a key bytewise writes, so none decodes; the value
    bytewise's decoder reads from each encodes (where it can) to ``reencode_hex``, which
    differs from the bytes."""
    entries = _section("decode_only")
    assert len(entries) == 34
    for entry in entries:
        key = bytes.fromhex(entry["hex"])
        _refused(key)
        decoded = _typed(entry["decoded"])
        if "reencode_hex" not in entry or decoded is None:
            continue
        assert entry["reencode_hex"] != entry["hex"]
        assert CODEC.encode(decoded).hex() == entry["reencode_hex"], entry["hex"]


def test_js_only_inputs_python_can_hold() -> None:
    surrogates = 0
    for entry in _section("js_only"):
        value = entry["values"][0]
        if "symbol" in value:
            with pytest.raises(LexCodecError):
                CODEC.encode((JsSymbol(value["symbol"]),))
            continue
        values = _typed(entry["values"])
        if values is None:
            if "ts_ns" in value:  # a Date beyond Python's years 1-9999: not decodable here
                _refused(bytes.fromhex(entry["hex"]))
            continue
        key = bytes.fromhex(entry["hex"])
        assert CODEC.encode(values) == key, entry
        expected = _typed(entry.get("decoded", entry["values"]))
        assert identical(expected, CODEC.decode(key)), entry
        surrogates += 1
    assert surrogates == 5


def test_bounds() -> None:
    for entry in _section("bounds"):
        key = bytes.fromhex(entry["hex"])
        decoded = _typed(entry["decoded"]) if "decoded" in entry else None
        if decoded is not None and CODEC.encode(decoded) == key:
            assert identical(decoded, CODEC.decode(key)), entry
        else:
            _refused(key)
    by_js = {e["js"]: bytes.fromhex(e["hex"]) for e in _section("bounds")}
    lower = by_js["bytewise.sorts.array.bound.lower([ 'foo', 'bar' ])"]
    upper = by_js["bytewise.sorts.array.bound.upper([ 'foo', 'bar' ])"]
    assert CODEC.prefix_range(("foo", "bar")) == (lower, upper)
    assert ARRAY.bind("a:string, b:string, c:int").prefix_range(("foo", "bar")) == (lower, upper)
    assert CODEC.prefix_range(("a\x00",))[1] == by_js[
        "bytewise.sorts.array.bound.upper([ 'a\\u0000' ])"]


def test_sorted_order() -> None:
    entries = _section("sorted_order")
    assert len(entries) == 41
    keys = []
    for entry in entries:
        values = _typed(entry["values"])
        assert values is not None
        key = bytes.fromhex(entry["hex"])
        assert CODEC.encode(values) == key, entry
        assert identical(values, CODEC.decode(key)), entry
        keys.append(key)
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)


def test_order_anomalies_are_the_bytes_order() -> None:
    entries = _section("order_anomalies")
    assert len(entries) == 14
    names = {a.name for a in CODEC.capabilities.anomalies if a.kind == "interop"}
    assert {"undefined-sorts-last", "strings-by-code-point"} <= names
    for entry in entries:
        a, b = _typed(entry["a"]), _typed(entry["b"])
        assert a is not None
        assert b is not None
        ka, kb = CODEC.encode(a), CODEC.encode(b)
        assert (ka.hex(), kb.hex()) == (entry["a_hex"], entry["b_hex"])
        assert (ka > kb) - (ka < kb) == entry["bytes_sign"]
        assert entry["typewise_sign"] == -entry["bytes_sign"]


# -- reading="reference": what bytewise.decode returns ---------------------------------------


def _js_value(item: dict[str, Any]) -> Any:
    """The typed value of one decoded item; None stands for ``{"js": ...}`` (an Invalid
    Date, which has no Python value)."""
    return None if "js" in item else typed_value(item)


def _read(codec: BytewiseCodec, key: bytes) -> tuple[Any, ...]:
    got = codec.decode(key)
    assert type(got) is tuple
    return got


def _read_refused(key: bytes) -> DecodeError:
    """The DecodeError of ``READ`` (``READ_ARRAY`` must refuse the key too)."""
    return _refused(key, (READ, READ_ARRAY))


def test_reference_reading_of_every_case() -> None:
    for case in ENCODE:
        assert case.values is not None
        assert case.key is not None
        expected = _typed(case.raw["decoded"]) if "decoded" in case.raw else case.values
        got = _read(READ, case.key)
        assert identical(expected, got), f"{case.id}: {got!r} != {expected!r}"
        assert identical(CODEC.decode(case.key), got), case.id
        if case.key[0] == 0xA0:
            assert expected is not None
            assert identical(tuple(expected[0]), _read(READ_ARRAY, case.key)), case.id
        else:
            with pytest.raises(DecodeError) as info:
                READ_ARRAY.decode(case.key)
            assert info.value.offset == 0, case.id


def test_reference_reading_of_decode_only() -> None:
    """Every key bytewise's decoder accepts decodes to what it returns; an Invalid Date is
    a DecodeError saying so."""
    entries = _section("decode_only")
    assert len(entries) == 34
    invalid_dates = 0
    for entry in entries:
        key = bytes.fromhex(entry["hex"])
        (item,) = entry["decoded"]
        expected = _js_value(item)
        if "js" in item:
            assert item["js"] == "new Date(NaN)"
            assert "Invalid Date" in str(_read_refused(key)), entry
            invalid_dates += 1
            continue
        got = _read(READ, key)
        assert identical((expected,), got), f"{entry['hex']}: {got!r} != {expected!r}"
        if key[0] == 0xA0:
            assert identical(tuple(expected), _read(READ_ARRAY, key)), entry["hex"]
    assert invalid_dates == 2


def test_reference_reading_of_decode_errors() -> None:
    entries = _section("decode_errors")
    assert len(entries) == 40
    for entry in entries:
        key = bytes.fromhex(entry["hex"])
        refused = _read_refused(key)
        if entry["error"].startswith("RangeError"):  # bytewise overflows its stack
            assert refused.offset == len(key), entry


def test_reference_reading_of_bounds() -> None:
    for entry in _section("bounds"):
        key = bytes.fromhex(entry["hex"])
        if "decode_error" in entry:
            _read_refused(key)
        else:
            expected = _typed(entry["decoded"])
            assert identical(expected, _read(READ, key)), entry


def test_reference_reading_of_sorted_order_and_js_only() -> None:
    for entry in _section("sorted_order"):
        key = bytes.fromhex(entry["hex"])
        assert identical(_typed(entry["values"]), _read(READ, key)), entry
    for entry in _section("js_only"):
        if "hex" not in entry:
            continue
        key = bytes.fromhex(entry["hex"])
        expected = _typed(entry.get("decoded", entry["values"]))
        if expected is None:  # a Date beyond Python's years: no value to give
            _read_refused(key)
        else:
            assert identical(expected, _read(READ, key)), entry


def _top_level_strings() -> list[tuple[bytes, str]]:
    """(body, the string bytewise decodes) of every top-level string key in the file."""
    out = []
    for case in ENCODE:
        assert case.key is not None
        values = _typed(case.raw["decoded"]) if "decoded" in case.raw else case.values
        if case.key[:1] == b"\x70" and values is not None:
            out.append((case.key[1:], values[0]))
    for name in ("decode_only", "bounds", "js_only"):
        for entry in _section(name):
            decoded = entry.get("decoded", entry.get("values"))
            if entry.get("hex", "")[:2] == "70" and decoded is not None:
                typed = _typed(decoded)
                if typed is not None and type(typed[0]) is str:
                    out.append((bytes.fromhex(entry["hex"])[1:], typed[0]))
    return out


def test_utf8_replacement_is_nodes() -> None:
    """Python's ``decode("utf-8", "replace")`` gives Node's ``toString('utf8')`` on every
    top-level string of the file, ill-formed ones included (as many U+FFFD)."""
    strings = _top_level_strings()
    assert sum(1 for body, _ in strings if "\ufffd" in body.decode("utf-8", "replace")) >= 5
    for body, text in strings:
        assert body.decode("utf-8", "replace") == text, body.hex()
