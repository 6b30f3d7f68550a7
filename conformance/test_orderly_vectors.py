"""The ``orderly`` codec against ``vectors/orderly.json``.

The bytes come from the Orderly Java library (github.com/ndimiduk/orderly @ d26d690, with the
NGDATA fork's byte arrays and ``Termination``), each the output of ``RowKey.serialize()`` on a
freshly built key object (spec ``orderly.md`` §1, §15); the 13 ``error`` cases are lexcodecs
refusals (spec §14). Every case is its own test:

* a case with ``hex``: ``OrderlyCodec(**options).encode(values, schema)`` gives exactly those
  bytes (codec and bound forms); ``decode`` gives the values back (ints exactly, floats by
  bits with every NaN read as the canonical NaN, ``Float32`` for float32 fields, decimals
  normalized as spec §14.3 says, strings, bytes, ``None``); ``serialized_length`` is the key
  length, ``field_lengths`` sum to it and ``field_offsets`` are their cumulative sums;
* the same key, read by codecs with the same ``struct_order`` and each *other*
  ``struct_termination``, decodes to the same values and field offsets: decoding does not
  depend on termination (spec §11.4, §14.6). That holds for every case of the file: each
  field decoder takes the terminated form, and the unterminated one at the end of the key,
  whatever the setting; the only placement that would break it (a declared ``SHOULD_NOT``
  before another field) is refused at bind. A key is never read with the other
  ``struct_order``: that flips every field, so it is a different key format;
* an ``error`` case: refused with a lexcodecs error (``SchemaError`` at bind for a schema the
  codec cannot express, else ``EncodeError``/``UnsupportedTypeError``) naming the codec and,
  for a value, the field index.

Every test runs on both implementations (the ``impl`` fixture): the compiled module and the
reference Python must each pass every case byte for byte.
"""

from __future__ import annotations

import decimal
import functools
import itertools
import math
import struct
from typing import Any

import pytest

from lexcodecs import EncodeError, SchemaError
from lexcodecs.codecs.orderly import TERMINATIONS, OrderlyCodec
from lexcodecs.schema import Field, KeySchema
from lexcodecs.testing.vectors import VectorCase, VectorFile, load_vectors
from lexcodecs.types import Float32

pytestmark = pytest.mark.usefixtures("impl")

#: the canonical NaNs every NaN is written as (spec §7) and read back as
CANONICAL_NAN64 = 0x7FF8000000000000
CANONICAL_NAN32 = 0x7FC00000


@functools.cache
def vectors() -> VectorFile:
    return load_vectors("orderly")


@functools.cache
def codec(struct_order: str = "asc", struct_termination: str = "AUTO") -> OrderlyCodec:
    """One codec per options combination, shared by every case that uses it."""
    return OrderlyCodec(struct_order=struct_order, struct_termination=struct_termination)


def case_codec(case: VectorCase) -> OrderlyCodec:
    return codec(**case.options)


# -- ids ------------------------------------------------------------------------------------


def _field_text(f: dict[str, Any]) -> str:
    """``int64 var desc MUST``, ``bytes fixed/3``, ``int32 var asc AUTO r2=3`` ..."""
    parts = [f["type"]]
    if "encoding" in f:
        enc = f["encoding"]
        if "length" in f:
            enc += f"/{f['length']}"
        parts.append(enc)
    if f.get("prefix_length"):
        parts.append(f"prefix{f['prefix_length']}")
    parts.append(f.get("order", "asc"))
    parts.append(f.get("termination", "AUTO"))
    if f.get("reserved_bits"):
        parts.append(f"r{f['reserved_bits']}={f.get('reserved_value', 0)}")
    if "nulls" in f:
        parts.append(f"nulls-{f['nulls']}")
    return " ".join(parts)


def _value_text(v: dict[str, Any]) -> str:
    (kind, payload), *_ = ((k, x) for k, x in v.items() if k != "width")
    if kind == "null":
        return "NULL"
    if kind in ("f32", "f64", "bytes"):
        return f"{kind}:{payload}" if payload else f"{kind}:(empty)"
    if kind == "str":
        return repr(payload) if len(payload) <= 12 else repr(payload[:10]) + "…"
    text = str(payload)
    return text if len(text) <= 24 else text[:22] + "…"


def _case_id(case: VectorCase) -> str:
    fields = case.raw["fields"]
    opts = case.options
    if len(fields) == 1:
        # a bare Java row key: the field's termination is the struct's (spec §15)
        group = _field_text(fields[0])
        if opts.get("struct_order", "asc") != "asc":
            group += f" struct-{opts['struct_order']}"
    else:
        group = ("struct[" + ", ".join(_field_text(f) for f in fields) + "] "
                 f"{opts.get('struct_order', 'asc')} {opts.get('struct_termination', 'AUTO')}")
    values = ", ".join(_value_text(v) for v in case.value_json)
    outcome = "refused" if case.expects_error else (case.raw["hex"] or "(empty)")
    return f"{group}: ({values}) -> {outcome} #{case.index}"


def _each(check: Any, cases: list[VectorCase]) -> None:
    """*check* on every case, then one failure naming each case that failed (one test, not
    one per case: 2,130 test items cost more in pytest's and xdist's bookkeeping than the
    checks themselves)."""
    failures = []
    for case in cases:
        try:
            check(case)
        except (Exception, pytest.fail.Exception) as exc:
            failures.append(f"{_case_id(case)}: {type(exc).__name__}: {exc}")
    assert not failures, f"{len(failures)} of {len(cases)} failed:\n" + "\n".join(
        failures[:30])


# -- value comparison -----------------------------------------------------------------------


def _f64_bits(x: float) -> int:
    return int(struct.unpack(">Q", struct.pack(">d", x))[0])


def normalized_decimal(d: decimal.Decimal) -> tuple[int, tuple[int, ...], int]:
    """The ``as_tuple()`` a decoded decimal must have (spec §14.3): coefficient without
    leading or trailing zeros, exponent moved to match; zero as ``Decimal("0")``. Done by
    hand: ``Decimal.normalize`` would round to the context precision."""
    sign, digits, exponent = d.as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits)).lstrip("0")
    if not text:
        return (0, (0,), 0)
    stripped = text.rstrip("0")
    return (sign, tuple(int(c) for c in stripped), exponent + len(text) - len(stripped))


def check_value(field: Field, got: Any, want: Any) -> None:
    """*got* is what decoding must give for the written value *want* in *field*."""
    where = f"{field.type} field {field.name!r}"
    if want is None:
        assert got is None, f"{where}: got {got!r}, want None"
        return
    t = field.type
    if t == "float64":
        assert type(got) is float, f"{where}: got {type(got).__name__}"
        want_bits = CANONICAL_NAN64 if math.isnan(want) else _f64_bits(want)
        assert _f64_bits(got) == want_bits, f"{where}: got {_f64_bits(got):016x}, " \
                                            f"want {want_bits:016x}"
    elif t == "float32":
        assert isinstance(got, Float32), f"{where}: got {type(got).__name__}, want Float32"
        want32 = want if isinstance(want, Float32) else Float32(want)
        want_bits = CANONICAL_NAN32 if math.isnan(want32) else want32.bits
        assert got.bits == want_bits, f"{where}: got {got.bits:08x}, want {want_bits:08x}"
        # the float value agrees with the bits
        assert _f64_bits(float(got)) == _f64_bits(float(Float32.from_bits(want_bits)))
    elif t == "decimal":
        assert type(got) is decimal.Decimal, f"{where}: got {type(got).__name__}"
        assert got.as_tuple() == normalized_decimal(want), f"{where}: got {got!r}"
        assert got == want, f"{where}: got {got!r}, want the value {want!r}"
    elif t == "string":
        assert type(got) is str, f"{where}: got {got!r}"
        assert got == want, f"{where}: got {got!r}, want {want!r}"
    elif t == "bytes":
        assert type(got) is bytes, f"{where}: got {got!r}"
        assert got == want, f"{where}: got {got!r}, want {want!r}"
    else:
        assert type(got) is int, f"{where}: got {got!r}"
        assert got == want, f"{where}: got {got!r}, want {want!r}"


def check_values(schema: KeySchema, got: tuple[Any, ...], want: tuple[Any, ...]) -> None:
    assert type(got) is tuple
    assert len(got) == len(want)
    for f, g, w in zip(schema.fields, got, want):
        check_value(f, g, w)


# -- cases ----------------------------------------------------------------------------------


def test_every_case() -> None:
    _each(check_case, [c for c in vectors().cases if not c.expects_error])


def test_every_refusal() -> None:
    _each(check_refused, [c for c in vectors().cases if c.expects_error])


def check_case(case: VectorCase) -> None:
    assert case.schema is not None
    assert case.values is not None
    assert case.key is not None
    schema, values, key = case.schema, case.values, case.key
    c = case_codec(case)
    # encode: exactly the Java bytes
    assert c.encode(values, schema).hex() == key.hex()
    assert c.bind(schema).encode(list(values)) == key
    # decode: the values back, from any bytes-like key
    for data in (key, bytearray(key), memoryview(key)):
        check_values(schema, c.decode(data, schema), values)  # type: ignore[arg-type]
    # lengths and offsets, computed without encoding
    assert c.serialized_length(values, schema) == len(key)
    lengths = c.field_lengths(values, schema)
    assert len(lengths) == len(schema)
    assert sum(lengths) == len(key)
    offsets = tuple(itertools.accumulate(lengths, initial=0))
    assert c.field_offsets(key, schema) == offsets
    assert c.bind(schema).field_offsets(key) == offsets
    for i in range(len(schema)):
        assert c.skip(key, schema, i, offsets[i]) == offsets[i + 1]
    # the same key read under the other terminations (spec §11.4, §14.6), same struct_order
    order, term = case.options["struct_order"], case.options["struct_termination"]
    others = [t for t in TERMINATIONS if t != term]
    assert len(others) == 2
    for other in others:
        reader = codec(order, other)
        check_values(schema, reader.decode(key, schema), values)
        assert reader.field_offsets(key, schema) == offsets


def _binds(c: OrderlyCodec, schema: KeySchema) -> bool:
    try:
        c.bind(schema)
    except SchemaError:
        return False
    return True


def check_refused(case: VectorCase) -> None:
    if case.values is None:  # refused while the value was built
        assert case.build_error is not None
        return
    assert case.schema is not None
    c = case_codec(case)
    if not _binds(c, case.schema):  # a schema the codec cannot express (nulls last, ...)
        with pytest.raises(SchemaError) as refused:
            c.bind(case.schema)
        assert refused.value.codec == "orderly", str(refused.value)
        assert refused.value.field in range(len(case.schema)), str(refused.value)
        with pytest.raises(SchemaError):
            c.encode(case.values, case.schema)
        return
    bound = c.bind(case.schema)
    with pytest.raises(EncodeError) as info:  # UnsupportedTypeError is an EncodeError
        c.encode(case.values, case.schema)
    exc = info.value
    assert exc.codec == "orderly", str(exc)
    assert exc.field is not None, str(exc)
    if len(case.schema) == 1:
        assert exc.field == 0, str(exc)
    assert exc.has_value, str(exc)
    assert str(exc)
    # every entry point refuses it the same way
    for call in (bound.encode, bound.serialized_length, bound.field_lengths):
        with pytest.raises(EncodeError) as again:
            call(case.values)
        assert again.value.codec == "orderly"
        assert again.value.field == exc.field


# -- the file as a whole --------------------------------------------------------------------


def test_file_shape() -> None:
    vf = vectors()
    assert vf.codec == "orderly"
    assert len(vf.cases) == 1063
    assert sum(c.expects_error for c in vf.cases) == 13
    for c in vf.cases:
        assert c.schema is not None
        assert set(c.options) == {"struct_order", "struct_termination"}
        if len(c.schema) == 1 and not c.expects_error:
            # a bare row key: the field's termination is the struct's (spec §15)
            assert c.raw["fields"][0]["termination"] == c.options["struct_termination"]


def test_every_anomaly_named_in_the_file_is_declared() -> None:
    """The layout and interop anomalies are shown by vectors (spec §14.8): each one a note
    names is declared by the codec, and the two of those kinds do occur."""
    declared = {a.name for a in OrderlyCodec().capabilities.anomalies}
    named = set()
    for c in vectors().cases:
        for part in (c.note or "").split(";"):
            part = part.strip()
            if part.startswith("anomaly "):
                named.add(part.split()[1].rstrip(":"))
    assert named <= declared, named - declared
    assert {"long-9-byte-negative-header", "decimal-negative-prefix",
            "decimal-scale-overflow", "should-not-descending"} <= named
    notes = " ".join(c.note or "" for c in vectors().cases)
    assert "lexcodecs decodes it as None" in notes  # varbytes-null-java-undecodable
    assert "varbytes-null-java-undecodable" in declared

