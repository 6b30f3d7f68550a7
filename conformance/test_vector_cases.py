"""Every vector file's ``cases`` and ``decode_errors``: one runner for all codecs.

The parts every vector file shares (``vectors/FORMAT.md``) are checked here, once, on both
implementations:

* a ``cases`` entry with ``hex``: ``encode(values, schema)`` gives those bytes, from a tuple,
  a list and the bound schema alike, and the key decodes to values that encode to the same
  bytes again (where the format can decode that schema at all);
* a ``cases`` entry with ``error``: refused with a lexcodecs error that names the codec;
* a ``decode_errors`` entry: ``DecodeError`` at ``offset`` for ``bytes``, ``bytearray`` and
  ``memoryview`` keys, through the codec and through the bound schema
  (``NotDecodableError`` where the entry says the schema cannot be decoded).

One test per codec and implementation runs every entry and names each one that fails.
What a decoded value must look like (its Python type, how a codec normalises it) and each
file's own sections (ranges, helpers, anomalies, index keys ...) are the codec's tests, in
``conformance/test_<codec>_vectors.py``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from lexcodecs import (
    DecodeError,
    EncodeError,
    LexCodecError,
    NotDecodableError,
    OptionError,
    SchemaError,
    available_codecs,
    get_codec,
)
from lexcodecs.codec import Codec
from lexcodecs.testing import identical
from lexcodecs.testing.vectors import (
    VectorCase,
    VectorFile,
    VectorFormatError,
    load_vectors,
    schema_from_fields,
    typed_value,
)

pytestmark = pytest.mark.usefixtures("impl")

VECTOR_DIR = Path(__file__).resolve().parent / "vectors"
NAMES = sorted(p.stem for p in VECTOR_DIR.glob("*.json") if p.stem in available_codecs())


@functools.cache
def vectors(name: str) -> VectorFile:
    return load_vectors(name)


@functools.cache
def codec_for(name: str, options: tuple[tuple[str, Any], ...]) -> Codec:
    return get_codec(name, **dict(options))


def _codec(name: str, options: dict[str, Any] | None) -> Codec:
    return codec_for(name, tuple(sorted((options or {}).items())))


def _short(text: Any, limit: int = 40) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _decode_errors(name: str) -> list[tuple[int, dict[str, Any]]]:
    return [(i, entry) for i, entry in enumerate(vectors(name).section("decode_errors"))
            # a key behind a prefix is fdb-tuple's own API (its vector tests)
            if "prefix" not in entry]


def _run_all(check: Any, items: list[tuple[str, Any]]) -> None:
    """Run *check* on every item, then fail once, naming each item that failed (one test per
    codec and implementation, not one per case: 5,860 test items cost more in pytest's and
    xdist's bookkeeping than the checks themselves)."""
    failures: list[str] = []
    for label, item in items:
        try:
            check(item)
        except pytest.skip.Exception:
            continue  # a value Python cannot hold; the codec's own vector tests show it
        except (Exception, pytest.fail.Exception) as exc:
            failures.append(f"{label}: {type(exc).__name__}: {_short(exc, 2000)}")
    assert not failures, f"{len(failures)} of {len(items)} failed:\n" + "\n".join(failures[:30])


def test_every_built_in_codec_has_a_vector_file() -> None:
    built_in = {"fdb-tuple", "lexkey", "lexkey-legacy", "orderly", "skv", "sqlite4"}
    assert built_in <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_cases(name: str) -> None:
    _run_all(functools.partial(_check_case, name),
             [(f"cases[{case.index}] {_short(case.error or case.note or case.raw.get('hex', ''))}",
               case) for case in vectors(name).cases])


@pytest.mark.parametrize("name", NAMES)
def test_decode_errors(name: str) -> None:
    entries = _decode_errors(name)
    if not entries:
        pytest.skip(f"{name}.json has no decode_errors")
    _run_all(functools.partial(_check_decode_error, name),
             [(f"decode_errors[{i}] {entry['hex'][:24]}", entry) for i, entry in entries])


def _check_case(name: str, case: VectorCase) -> None:
    if case.skip_reason is not None:  # a value Python cannot hold (nanoseconds)
        pytest.skip(case.skip_reason)
    if case.expects_error:
        if case.values is None:  # lexcodecs refused a value while it was built (Int8(128))
            assert case.build_error is not None
            return
        with pytest.raises((EncodeError, SchemaError, OptionError)) as info:
            # a refused codec option is refused when the codec is built
            _codec(name, case.options).encode(case.values, case.schema)
        assert info.value.codec == name, str(info.value)
        return
    codec = _codec(name, case.options)
    assert case.values is not None
    assert case.key is not None
    assert codec.encode(case.values, case.schema).hex() == case.key.hex()
    assert codec.encode(list(case.values), case.schema) == case.key
    if case.schema is not None:
        assert codec.bind(case.schema).encode(case.values) == case.key
    caps = codec.capabilities
    if caps.decoding == "none" or (case.schema is None and caps.decoding != "self-describing"):
        return
    back: tuple[Any, ...] | None
    try:
        back = codec.decode(case.key, case.schema)
    except NotDecodableError:
        return  # a schema this format cannot decode (LexKey: two variable-length fields)
    except DecodeError:
        back = None  # a valid key that does not decode: only a declared round-trip anomaly
    decoded = case.raw.get("decoded")
    if decoded is not None:
        try:
            want = tuple(typed_value(v) for v in decoded)
        except VectorFormatError:  # a value of the codec's own (a JS Symbol): its own tests
            pytest.skip(f"decoded {decoded!r}: see conformance/test_<codec>_vectors.py")
    if back is not None and decoded is not None and identical(back, want):
        # the reference decoder's own reading, where it differs from the values (ordered-binary's
        # flattened arrays, -0.0 read as two values): the same here, and declared as an anomaly
        if codec.encode(back, case.schema) != case.key:
            assert caps.explained(("round-trip",), case.schema, case.values, back) is not None, \
                f"{case.values!r} decoded to {back!r}, and no declared anomaly explains it"
        return
    if back is not None:
        assert len(back) == len(case.values)
        if case.schema is None or codec.encode(back, case.schema) == case.key:
            return
    # decoding did not give these values back: a declared round-trip anomaly must say why
    assert caps.explained(("round-trip",), case.schema, case.values, back or ()) is not None, \
        f"{case.values!r} decoded to {back!r}, and no declared anomaly explains it"


def _check_decode_error(name: str, entry: dict[str, Any]) -> None:
    codec = _codec(name, entry.get("options"))
    schema = schema_from_fields(entry["fields"]) if entry.get("fields") else None
    data = bytes.fromhex(entry["hex"])
    error = str(entry.get("error", ""))
    kind: type[LexCodecError] = NotDecodableError if (
        error.startswith("NotDecodableError") or "not decodable" in error.lower()) \
        else DecodeError
    for key in (data, bytearray(data), memoryview(data)):
        with pytest.raises(kind) as info:
            codec.decode(key, schema)  # type: ignore[arg-type]
        assert info.value.codec == name, str(info.value)
        if kind is DecodeError:
            assert isinstance(info.value, DecodeError)
            if "offset" in entry:  # (a Go error names no offset: orderedcode's entries)
                assert info.value.offset == entry["offset"], str(info.value)
    if schema is not None:
        with pytest.raises(kind) as info:
            codec.bind(schema).decode(data)
        assert info.value.codec == name, str(info.value)
        if kind is DecodeError:
            assert isinstance(info.value, DecodeError)
            if "offset" in entry:
                assert info.value.offset == entry["offset"], str(info.value)
