"""The ``lexkey`` and ``lexkey-legacy`` codecs against their vector files.

The bytes in ``vectors/lexkey.json`` come from the Go reference v0.1.1 (canonical 64-bit
widths) and those in ``vectors/lexkey-legacy.json`` from v0.1.0-alpha.32 (native widths); the
two legacy ``int8`` values come from the Rust port (spec §3.2). Every entry of every list of
both files is a test:

* ``cases``: ``encode(values[, schema])`` with the case's options gives ``hex``, or the case is
  refused with a lexcodecs error (a value lexcodecs refuses while building it counts as
  refused; a nanosecond ``ts_ns``/``dur_ns`` is skipped, as spec §10 says);
* ``helpers``: the spec §4 helpers, on the codec of the file, on its class (they are static)
  and, for the helpers that work on bytes, as module functions;
* ``decode``: ``decode(hex, schema)`` gives ``values`` (any NaN matches any NaN);
* ``decode_errors``: DecodeError at ``offset``, or NotDecodableError;
* ``anomalies``: each declared byte fact holds (spec §5); they are properties of the format,
  reported, not failures.

Every test runs on both implementations (the compiled module and the reference Python, the
``impl`` fixture of the root ``conftest.py``), byte for byte.
"""

from __future__ import annotations

import ast
import datetime
import functools
import itertools
import math
import uuid
from typing import Any

import pytest

from lexcodecs import (
    DecodeError,
    EncodeError,
    LexCodecError,
    NotDecodableError,
    SchemaError,
    UnsupportedTypeError,
    get_codec,
)
from lexcodecs.codecs import lexkey
from lexcodecs.codecs.lexkey import LexKeyCodec, LexKeyLegacyCodec
from lexcodecs.schema import KeySchema
from lexcodecs.testing.vectors import (
    VectorCase,
    VectorFile,
    load_vectors,
    schema_from_fields,
    typed_value,
    typed_values,
)
from lexcodecs.types import END, Float32

pytestmark = pytest.mark.usefixtures("impl")

FILES = ("lexkey", "lexkey-legacy")
CLASSES: dict[str, type[Any]] = {"lexkey": LexKeyCodec, "lexkey-legacy": LexKeyLegacyCodec}
SECTIONS = {"helpers", "decode", "decode_errors", "anomalies"}
BYTE_HELPERS = {"primary_key", "decode_primary_key", "range_key", "to_hex", "from_hex",
                "to_json", "from_json"}
ANOMALY_KINDS = {"not_injective", "prefix_leak", "order", "cross_kind_order",
                 "cross_width_order"}


@functools.cache
def vectors(name: str) -> VectorFile:
    return load_vectors(name)


@functools.cache
def _codec(name: str, options: tuple[tuple[str, Any], ...]) -> Any:
    return get_codec(name, **dict(options))


def codec_for(name: str, options: dict[str, Any] | None = None) -> Any:
    return _codec(name, tuple(sorted((options or {}).items())))


def _short(text: Any, limit: int = 40) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _expect_lex_error(call: Any, kinds: tuple[type[BaseException], ...] = (LexCodecError,)
                      ) -> Any:
    """*call* must raise one of *kinds* (lexcodecs errors); a bare ValueError, TypeError,
    struct.error ... escapes and fails the test."""
    with pytest.raises(kinds) as info:
        call()
    return info.value


def _hex(data: Any) -> str:
    return bytes(data).hex()


def _b(obj: dict[str, Any]) -> bytes:
    value = typed_value(obj)
    assert isinstance(value, bytes)
    return value


# -- value comparison ---------------------------------------------------------------------------


def _same_float(got: float, want: float) -> bool:
    """By value (NaN matches any NaN); the sign of a zero counts (-0.0 has its own key)."""
    if math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1.0, got) == math.copysign(1.0, want)


def _expected_type(field_type: str) -> type | tuple[type, ...]:
    return {
        "string": str, "bytes": bytes, "bool": bool, "uuid": uuid.UUID,
        "float32": Float32, "float64": float,
        "timestamp": datetime.datetime, "duration": datetime.timedelta,
    }.get(field_type, int)


def _check_decoded(schema: KeySchema, got: tuple[Any, ...], want: tuple[Any, ...]) -> None:
    assert len(got) == len(want), f"decoded {got!r}, expected {want!r}"
    for f, g, w in zip(schema.fields, got, want):
        kind = _expected_type(f.type)
        assert isinstance(g, kind), f"field {f.name} ({f.type}): got {g!r} of {type(g)}"
        if kind is int:
            assert type(g) is int, f"field {f.name}: got {type(g)}, expected int"
            assert g == w, f"field {f.name}: got {g!r}, expected {w!r}"
        elif f.type == "float64":
            assert type(g) is float, f"field {f.name}: got {type(g)}"
            assert _same_float(g, w), f"field {f.name}: got {g!r}, expected {w!r}"
        elif f.type == "float32":
            assert _same_float(float(g), float(w)), f"field {f.name}: got {g!r}, expected {w!r}"
        elif f.type == "timestamp":
            assert g.utcoffset() == datetime.timedelta(0), f"not UTC: {g!r}"
            assert g == w, f"field {f.name}: got {g!r}, expected {w!r}"
        else:
            assert g == w, f"field {f.name}: got {g!r}, expected {w!r}"


def _coerced(schema: KeySchema, values: tuple[Any, ...]) -> tuple[Any, ...]:
    """The values as the schema's fields hold them (int -> float64, float -> Float32 ...)."""
    out: list[Any] = []
    for f, v in zip(schema.fields, values):
        if f.type == "float32":
            out.append(Float32(v))
        elif f.type == "float64":
            out.append(float(v))
        else:
            out.append(v)
    return tuple(out)


# -- the files ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", FILES)
def test_every_section_is_covered(name: str) -> None:
    vf = vectors(name)
    assert vf.codec == name
    assert set(vf.sections) == SECTIONS
    assert {e["anomaly"] for e in vf.section("anomalies")} <= ANOMALY_KINDS
    assert isinstance(get_codec(name), CLASSES[name])
    assert get_codec(name).name == name


# -- cases --------------------------------------------------------------------------------------


def _case_id(name: str, case: VectorCase) -> str:
    label = case.note or case.error or case.source or case.raw.get("hex", "")
    opts = "".join(f" {k}={v}" for k, v in case.options.items())
    return f"{name} cases[{case.index}]{opts} {_short(label)}".strip()


def _case_params() -> list[Any]:
    return [pytest.param(name, case, id=_case_id(name, case))
            for name in FILES for case in vectors(name).cases]


def _error_kinds(case: VectorCase) -> tuple[type[BaseException], ...]:
    text = case.error or ""
    if text.startswith("SchemaError"):
        return (SchemaError,)
    if text.startswith("UnsupportedTypeError"):
        return (UnsupportedTypeError,)
    return (EncodeError, SchemaError)  # EncodeError covers UnsupportedTypeError


@pytest.mark.parametrize(("name", "case"), _case_params())
def test_case(name: str, case: VectorCase) -> None:
    if case.skip_reason is not None:
        pytest.skip(case.skip_reason)
    codec = codec_for(name, case.options)
    if case.expects_error:
        _check_error_case(name, case, codec)
        return
    assert case.values is not None
    assert case.key is not None
    key = codec.encode(case.values, case.schema)
    assert key.hex() == case.key.hex()
    # a list of values encodes as the tuple does
    assert codec.encode(list(case.values), case.schema) == case.key
    if case.schema is None:
        # the class built directly is the registered codec
        assert CLASSES[name](**case.options).encode(case.values) == case.key
        if case.values:
            first, last = codec.prefix_range(case.values)
            assert (first, last) == (case.key + b"\x00", case.key + b"\xff")
        return
    # schema cases decode back to the coerced values (unless a None was written as 00)
    variable = [f for f in case.schema.fields if f.type in ("string", "bytes")]
    if len(variable) <= 1 and all(v is not None for v in case.values):
        back = codec.decode(case.key, case.schema)
        _check_decoded(case.schema, back, _coerced(case.schema, case.values))


def _check_error_case(name: str, case: VectorCase, codec: Any) -> None:
    if case.values is None:
        # lexcodecs refused a value while it was built (Int8(128)): that is the refusal
        assert case.build_error is not None
        assert case.build_error.split(":")[0] in {"EncodeError", "UnsupportedTypeError",
                                                  "SchemaError"}, case.build_error
        return
    kinds = _error_kinds(case)
    if case.schema is not None and kinds == (SchemaError,):
        # refused when the codec is built, before any value is looked at
        exc = _expect_lex_error(lambda: codec.bind(case.schema), kinds)
        assert exc.codec == name, str(exc)
        assert exc.field == 0, str(exc)
    exc = _expect_lex_error(lambda: codec.encode(case.values, case.schema), kinds)
    assert str(exc)
    if case.schema is None:
        assert exc.codec == name, str(exc)
        _expect_lex_error(lambda: CLASSES[name](**case.options).encode(case.values), kinds)
        _expect_lex_error(lambda: codec.encode_first(case.values), kinds)
        _expect_lex_error(lambda: codec.encode_last(case.values), kinds)
        if case.values:
            _expect_lex_error(lambda: codec.prefix_range(case.values), kinds)


# -- helpers ------------------------------------------------------------------------------------


def _entry_id(name: str, section: str, i: int, entry: dict[str, Any]) -> str:
    head = entry.get("helper") or entry.get("anomaly") or ""
    label = entry.get("note") or entry.get("error") or entry.get("hex") or entry.get(
        "lower_hex") or entry.get("result") or ""
    if isinstance(label, dict):
        label = ""
    return _short(f"{name} {section}[{i}] {head} {label}", 70)


def _section_params(section: str) -> list[Any]:
    return [pytest.param(name, i, e, id=_entry_id(name, section, i, e))
            for name in FILES for i, e in enumerate(vectors(name).section(section))]


def _helper_callers(name: str, helper: str) -> list[Any]:
    """The codec's method, the class's static method, and the module function where the
    module one means the same thing (byte helpers; encode_first/last are canonical)."""
    callers = [getattr(codec_for(name), helper), getattr(CLASSES[name], helper)
               if helper in BYTE_HELPERS else getattr(CLASSES[name](), helper)]
    if helper in BYTE_HELPERS or name == "lexkey":
        callers.append(getattr(lexkey, helper))
    return callers


def _helper_args(helper: str, args: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if helper in ("encode_first", "encode_last"):
        return (typed_values(args["values"]),), {}
    if helper == "primary_key":
        return (_b(args["partition"]), _b(args["row"])), {}
    if helper == "range_key":
        return ((_b(args["partition"]), _b(args["start"]), _b(args["end"])),
                {"with_partition": args["with_partition"]})
    if helper in ("decode_primary_key", "to_hex", "to_json"):
        return (bytes.fromhex(args["bytes"]),), {}
    if helper in ("from_hex", "from_json"):
        return (args["text"],), {}
    raise AssertionError(f"unknown helper {helper!r}")


def _helper_error_kind(helper: str) -> type[LexCodecError]:
    return EncodeError if helper in ("encode_first", "encode_last") else DecodeError


@pytest.mark.parametrize(("name", "i", "entry"), _section_params("helpers"))
def test_helper(name: str, i: int, entry: dict[str, Any]) -> None:
    helper = entry["helper"]
    args, kwargs = _helper_args(helper, entry["args"])
    for call in _helper_callers(name, helper):
        if "error" in entry:
            exc = _expect_lex_error(lambda c=call: c(*args, **kwargs),
                                    (_helper_error_kind(helper),))
            assert str(exc)
            continue
        got = call(*args, **kwargs)
        if "hex" in entry:
            assert isinstance(got, bytes), f"{helper} returned {type(got)}"
            assert got.hex() == entry["hex"]
        elif "lower_hex" in entry:
            lower, upper = got
            assert (_hex(lower), _hex(upper)) == (entry["lower_hex"], entry["upper_hex"])
        elif helper == "decode_primary_key":
            partition, row = got
            want = entry["result"]
            assert (_hex(partition), _hex(row)) == (want["partition"]["bytes"],
                                                    want["row"]["bytes"])
            assert type(partition) is bytes
            assert type(row) is bytes
        else:
            assert type(got) is str
            assert got == entry["result"]
    # encode_first/encode_last of a prefix are the two ends of prefix_range
    if helper in ("encode_first", "encode_last") and "hex" in entry:
        first, last = codec_for(name).prefix_range(*args)
        assert (first if helper == "encode_first" else last).hex() == entry["hex"]


# -- decode -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "i", "entry"), _section_params("decode"))
def test_decode(name: str, i: int, entry: dict[str, Any]) -> None:
    codec = codec_for(name, entry.get("options"))
    schema = schema_from_fields(entry["fields"])
    data = bytes.fromhex(entry["hex"])
    want = typed_values(entry["values"])
    for key in (data, bytearray(data), memoryview(data)):
        _check_decoded(schema, codec.decode(key, schema), want)
    # the bound form decodes the same
    _check_decoded(schema, codec.bind(schema).decode(data), want)
    # and what decodes re-encodes to the same bytes
    assert codec.encode(codec.decode(data, schema), schema).hex() == data.hex()


# -- decode_errors ------------------------------------------------------------------------------


def _not_decodable(entry: dict[str, Any]) -> bool:
    return "not decodable" in entry["error"].lower() or entry["error"].startswith(
        "NotDecodableError")


@pytest.mark.parametrize(("name", "i", "entry"), [
    p for p in _section_params("decode_errors") if _not_decodable(p.values[2])])
def test_not_decodable_names_the_variable_fields(name: str, i: int, entry: dict[str, Any]
                                                 ) -> None:
    # every decode_errors entry (offsets; bytes, bytearray and memoryview keys; codec named):
    # conformance/test_vector_cases.py
    codec = codec_for(name, entry.get("options"))
    schema = schema_from_fields(entry["fields"])
    data = bytes.fromhex(entry["hex"])
    variable = [f for f in schema.fields if f.type in ("string", "bytes")]
    assert len(variable) >= 2
    for key in (data, b""):  # refused before the data is looked at
        exc = _expect_lex_error(lambda k=key: codec.decode(k, schema), (NotDecodableError,))
        assert exc.codec == name, str(exc)
        for f in variable:
            assert f.name in str(exc), f"{f.name!r} not named in: {exc}"


# -- anomalies ----------------------------------------------------------------------------------


def _parse_call(text: str) -> tuple[str, list[Any], dict[str, Any]]:
    """``range_key(b'p', b'r', b'r', with_partition=True)`` -> name, args, kwargs (literals)."""
    node = ast.parse(text.strip(), mode="eval").body
    assert isinstance(node, ast.Call)
    assert isinstance(node.func, ast.Name)
    args = [ast.literal_eval(a) for a in node.args]
    kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    return node.func.id, args, kwargs


def _range_from(name: str, text: str) -> tuple[bytes, bytes]:
    """The range a ``range_from`` text describes, computed with the codec's helpers."""
    codec = codec_for(name)
    if ".." in text and text.startswith("encode_first"):
        low_text, high_text = (part.strip() for part in text.split(".."))
        low_name, low_args, _ = _parse_call(low_text)
        high_name, high_args, _ = _parse_call(high_text)
        assert (low_name, high_name) == ("encode_first", "encode_last")
        assert low_args == high_args
        values = tuple(low_args)
        first, last = codec.prefix_range(values)
        assert (first, last) == (codec.encode_first(values), codec.encode_last(values))
        return first, last
    helper, args, kwargs = _parse_call(text)
    assert helper == "range_key", text
    lower, upper = codec.range_key(*args, **kwargs)
    return lower, upper


@pytest.mark.parametrize(("name", "i", "entry"), _section_params("anomalies"))
def test_anomaly(name: str, i: int, entry: dict[str, Any], record_property: Any) -> None:
    kind = entry["anomaly"]
    codec = codec_for(name, entry.get("options"))
    record_property("declared_anomaly", f"{name}: {kind}: {entry.get('note', '')}")
    if kind == "not_injective":
        want = entry["hex"]
        assert len(entry["keys"]) >= 1
        for values_json in entry["keys"]:
            values = typed_values(values_json)
            assert codec.encode(values).hex() == want, f"{values!r}"
        same_as = entry.get("same_as_helper")
        if same_as is not None:
            helper = same_as["helper"]
            args, kwargs = _helper_args(helper, same_as["args"])
            assert getattr(codec, helper)(*args, **kwargs).hex() == want
        distinct = {repr(typed_values(k)) for k in entry["keys"]}
        if same_as is None:  # different values, one key
            assert len(distinct) == len(entry["keys"]) >= 2
    elif kind == "prefix_leak":
        lower = bytes.fromhex(entry["range"]["lower_hex"])
        upper = bytes.fromhex(entry["range"]["upper_hex"])
        if "range_from" in entry:
            got = _range_from(name, entry["range_from"])
            assert (got[0].hex(), got[1].hex()) == (lower.hex(), upper.hex())
        assert entry["inside"]
        for item in entry["inside"]:
            key = bytes.fromhex(item["hex"])
            if "values" in item:
                assert codec.encode(typed_values(item["values"])).hex() == item["hex"]
            assert lower <= key < upper, f"{key.hex()} not in [{lower.hex()}, {upper.hex()})"
    elif kind in ("order", "cross_kind_order", "cross_width_order"):
        keys = []
        for item in entry["ascending"]:
            c = codec_for(name, item.get("options"))
            key = c.encode(typed_values(item["values"]))
            assert key.hex() == item["hex"], f"{item['values']}"
            keys.append(key)
        assert len(keys) >= 2
        for a, b in itertools.pairwise(keys):
            assert a < b, f"{a.hex()} !< {b.hex()}"
    else:
        raise AssertionError(f"unknown anomaly {kind!r}")


def test_end_sentinel_is_the_vector_end() -> None:
    # the loader's {"end": null} is the codec's END: ff in both files
    assert typed_value({"end": None}) is END
    for name in FILES:
        assert codec_for(name).encode((END,)) == b"\xff"
