"""Tests of the ``fdb-tuple`` codec (spec ``fdb-tuple.md``; the vectors run in
``conformance/test_fdb_tuple_vectors.py``).

* differential tests against the official binding ``fdb.tuple`` (FDB-10): encode, decode and
  byte order agree with ``fdb.tuple.pack`` / ``unpack`` / ``compare`` on generated nested
  tuples of every type;
* the ``max_u64_form="java"`` option (FDB-3);
* fuzzing of ``decode`` with random bytes and mutated keys (FDB-7);
* the generic conformance harness on several schemas;
* schema coercion and refusals (§9), and the API details of §1, §5, §6 and §8.

``fdb.api_version()`` is never called: ``fdb.tuple`` works without ``libfdb_c`` as long as no
API version is selected. Packing an ``fdb.tuple.Versionstamp`` needs ``fdb.impl.Value``, which
exists only after ``api_version()``; the module fixture ``fdb_impl_stub`` puts a stub there for
the tests of this module and restores what was there afterwards (spec FDB-10).
"""

from __future__ import annotations

import collections
import ctypes
import datetime
import decimal
import enum
import re
import struct
import sys
import uuid
from typing import Any, NamedTuple

import fdb.tuple as ft
import pytest
from hypothesis import example, given, note
from hypothesis import strategies as st

from lexcodecs import (
    END,
    DecodeError,
    EncodeError,
    KeySchema,
    LexCodecError,
    OptionError,
    SchemaError,
    UnsupportedTypeError,
    _impl,
    get_codec,
)
from lexcodecs.codecs import fdb_tuple
from lexcodecs.codecs.fdb_tuple import FdbTupleCodec
from lexcodecs.testing.conformance import CodecConformance
from lexcodecs.testing.model import identical
from lexcodecs.types import Float32, Int8, Versionstamp

#: every test runs on the compiled and on the reference implementation (conftest.py)
pytestmark = pytest.mark.usefixtures("impl", "fdb_impl_stub")

CODEC = FdbTupleCodec()
JAVA = FdbTupleCodec(max_u64_form="java")
U64_MAX = 2**64 - 1
INT_LIMIT = 2**2040 - 1

_D = struct.Struct(">d")
_Q = struct.Struct(">Q")


# -- helpers ----------------------------------------------------------------------------------


same = identical  # exact: types, and floats by their bits


def to_fdb(v: Any) -> Any:
    """The value fdb.tuple takes for *v*: Float32 -> SingleFloat, Versionstamp -> its own."""
    if isinstance(v, Float32):
        return ft.SingleFloat(v)
    if isinstance(v, Versionstamp):
        return ft.Versionstamp(v.tr_version, v.user_version)
    if isinstance(v, tuple):
        return tuple(to_fdb(x) for x in v)
    if isinstance(v, list):
        return [to_fdb(x) for x in v]
    return v


def f64(bits: int) -> float:
    return float(_D.unpack(_Q.pack(bits))[0])


def f64_bits(x: float) -> int:
    return int(_Q.unpack(_D.pack(x))[0])


def is_snan32(bits: int) -> bool:
    """A binary32 signalling NaN: exponent all ones, payload set, quiet bit clear."""
    return bits & 0x7F800000 == 0x7F800000 and bits & 0x007FFFFF != 0 and not bits & 0x00400000


def spec_float_bytes(bits: int, width: int) -> bytes:
    """§3.4 written out: sign set -> XOR every byte with ff; else XOR the first with 80."""
    raw = bits.to_bytes(width, "big")
    if raw[0] & 0x80:
        return bytes(b ^ 0xFF for b in raw)
    return bytes((raw[0] ^ 0x80,)) + raw[1:]


def contains(v: Any, pred: Any) -> bool:
    if isinstance(v, (tuple, list)):
        return any(contains(x, pred) for x in v)
    return bool(pred(v))


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def expect_lex_error(call: Any, kinds: tuple[type[LexCodecError], ...] = (LexCodecError,)
                    ) -> Any:
    """Run *call*: it must raise one of *kinds*, all lexcodecs errors. Anything else (a bare
    ValueError, TypeError, struct.error, IndexError ...) escapes and fails the test."""
    with pytest.raises(kinds) as info:
        call()
    return info.value


# -- strategies -------------------------------------------------------------------------------

BOUNDARY_INTS = sorted({
    s * (2 ** (8 * k) + d)
    for k in range(1, 10) for d in (-2, -1, 0, 1, 2) for s in (1, -1)
} | {s * m for s in (1, -1) for m in (INT_LIMIT, INT_LIMIT - 1, 2**2032, 2**2032 - 1,
                                      2**2032 + 1, U64_MAX, 2**63, 2**63 - 1)})


@st.composite
def _int_of_length(draw: st.DrawFn) -> int:
    """An int with a magnitude of any bit length 1..2040, either sign."""
    bits = draw(st.integers(1, 2040))
    m = draw(st.integers(2 ** (bits - 1), 2**bits - 1))
    return m if draw(st.booleans()) else -m


ints = st.one_of(
    st.sampled_from(BOUNDARY_INTS),
    st.integers(-300, 300),
    st.integers(-(2**72), 2**72),
    _int_of_length(),
)

SPECIAL_F64 = [0x0, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000,
               0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001,
               0xFFF0000000000001, 0x7FFFFFFFFFFFFFFF, 0x0000000000000001,
               0x8000000000000001, 0x7FEFFFFFFFFFFFFF, 0x3FF0000000000000]
_nan64 = st.builds(lambda sign, payload: sign | 0x7FF0000000000000 | payload,
                   st.sampled_from([0, 2**63]), st.integers(1, 2**52 - 1))
floats64 = st.one_of(st.sampled_from(SPECIAL_F64), st.integers(0, 2**64 - 1), _nan64).map(f64)

SPECIAL_F32 = [0x0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FC00001,
               0xFFFFFFFF, 0x7FFFFFFF, 0x00000001, 0x80000001, 0x7F7FFFFF, 0x3F800000,
               0x7FE12345, 0xFFD00001]
#: fdb.tuple quiets a signalling binary32 NaN (SingleFloat goes through a C float cast), so
#: the differential tests use every other pattern; signalling NaNs are checked on their own
_quiet_nan32 = st.builds(lambda sign, payload: sign | 0x7FC00000 | payload,
                         st.sampled_from([0, 0x80000000]), st.integers(0, 0x3FFFFF))
floats32 = (st.one_of(st.sampled_from(SPECIAL_F32), st.integers(0, 2**32 - 1), _quiet_nan32)
            .filter(lambda b: not is_snan32(b)).map(Float32.from_bits))

texts = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=8)
stamps = st.builds(
    Versionstamp,
    st.binary(min_size=10, max_size=10).filter(lambda b: b != b"\xff" * 10),
    st.integers(0, 0xFFFF),
)
scalars = st.one_of(
    st.none(), st.binary(max_size=8), texts, ints, st.booleans(), floats64, floats32,
    st.uuids(), stamps,
)


def _nested(depth: int) -> st.SearchStrategy[Any]:
    """A scalar, or a tuple or list nesting at most *depth* levels."""
    if depth == 0:
        return scalars
    inner = _nested(depth - 1)
    return st.one_of(scalars, st.lists(inner, max_size=4).map(tuple), st.lists(inner, max_size=4))


elements = _nested(3)
values_st = st.lists(elements, max_size=6).map(tuple)
#: several tuples per example: the profile's example count stays small, the coverage does not
batches = st.lists(values_st, min_size=1, max_size=8)


# -- differential tests against fdb.tuple ------------------------------------------------------


@given(batches, st.binary(max_size=3))
def test_encode_matches_fdb_tuple(batch: list[tuple[Any, ...]], prefix: bytes) -> None:
    for values in batch:
        _check_encode_matches(values, prefix)


def _check_encode_matches(values: tuple[Any, ...], prefix: bytes) -> None:
    want = ft.pack(to_fdb(values))
    key = CODEC.encode(values)
    assert key.hex() == want.hex()
    assert fdb_tuple.encode(values) == want
    assert CODEC.encode(values, prefix=prefix) == ft.pack(to_fdb(values), prefix=prefix)
    start, stop = CODEC.prefix_range(values, prefix=prefix)
    rng = ft.range(to_fdb(values))
    assert (start, stop) == (prefix + rng.start, prefix + rng.stop)
    # fdb.tuple reads our keys back to the same bytes
    assert ft.pack(ft.unpack(key)) == key


@given(batches, st.binary(max_size=3))
def test_decode_of_fdb_tuple_keys(batch: list[tuple[Any, ...]], prefix: bytes) -> None:
    for values in batch:
        _check_decode_matches(values, prefix)


def _check_decode_matches(values: tuple[Any, ...], prefix: bytes) -> None:
    key = ft.pack(to_fdb(values))
    back = CODEC.decode(key)
    assert type(back) is tuple
    assert same(values, back), f"{key.hex()} decoded to {back!r}"
    assert same(values, CODEC.decode(prefix + key, prefix=prefix))
    assert same(values, fdb_tuple.decode(bytearray(key)))
    assert same(values, CODEC.decode(memoryview(key)))


@given(batches, batches)
def test_byte_order_matches_fdb_tuple_compare(xs: list[tuple[Any, ...]],
                                              ys: list[tuple[Any, ...]]) -> None:
    candidates = list(xs)
    for a, b in zip(xs, ys):  # tuples sharing a leading part, where order is decided late
        half = len(a) // 2
        candidates += [b, a + b, a[:half] + b, (*a, None), a[:half] + b[:1]]
    rows = [(CODEC.encode(v), to_fdb(v), v) for v in candidates]
    for ka, fa, va in rows:
        for kb, fb, vb in rows:
            want = ft.compare(fa, fb)
            got = (ka > kb) - (ka < kb)
            assert got == want, (f"{va!r} vs {vb!r}: keys {ka.hex()} / {kb.hex()} compare "
                                 f"{got}, fdb.tuple.compare says {want}")


@given(st.integers(0, 2**32 - 1))
def test_float32_bits_as_spec(bits: int) -> None:
    """Every binary32 pattern, signalling NaNs included, is written as §3.4 says and reads
    back bit for bit (fdb.tuple cannot hold a signalling binary32 NaN: it quiets it)."""
    f = Float32.from_bits(bits)
    key = CODEC.encode((f,))
    assert key == b"\x20" + spec_float_bytes(bits, 4)
    back = CODEC.decode(key)[0]
    assert type(back) is Float32
    assert back.bits == bits
    assert CODEC.encode((back,)) == key
    assert CODEC.encode(((f,),)) == b"\x05" + key + b"\x00"


@pytest.mark.parametrize("bits", [0x7F800001, 0x7FA00000, 0x7FBFFFFF, 0xFF800001, 0xFFA5A5A5])
def test_float32_signalling_nan(bits: int) -> None:
    assert is_snan32(bits)
    key = CODEC.encode((Float32.from_bits(bits),))
    assert key == b"\x20" + spec_float_bytes(bits, 4)
    assert CODEC.decode(key)[0].bits == bits
    # what fdb.tuple does with it: the NaN comes out quiet, so it cannot be compared
    fdb_key = ft.pack((ft.SingleFloat(Float32.from_bits(bits)),))
    assert fdb_key == b"\x20" + spec_float_bytes(bits | 0x00400000, 4)


@given(st.integers(0, 2**64 - 1))
def test_float64_bits_as_spec(bits: int) -> None:
    x = f64(bits)
    key = CODEC.encode((x,))
    assert key == b"\x21" + spec_float_bytes(bits, 8) == ft.pack((x,))
    back = CODEC.decode(key)[0]
    assert type(back) is float
    assert f64_bits(back) == bits


# -- max_u64_form ------------------------------------------------------------------------------


@given(ints)
@example(U64_MAX)
@example(-U64_MAX)
@example(U64_MAX - 1)
@example(-(2**64))
def test_java_form_differs_only_at_u64_max(v: int) -> None:
    py, java = CODEC.encode((v,)), JAVA.encode((v,))
    if abs(v) == U64_MAX:
        assert py == (b"\x1d\x08" + b"\xff" * 8 if v > 0 else b"\x0b\xf7" + b"\x00" * 8)
        assert java == (b"\x1c" + b"\xff" * 8 if v > 0 else b"\x0c" + b"\x00" * 8)
    else:
        assert java == py
    assert CODEC.decode(java) == (v,) == JAVA.decode(py)


@given(batches)
def test_java_form_elsewhere_unchanged(batch: list[tuple[Any, ...]]) -> None:
    for values in batch:
        if contains(values, lambda x: type(x) is int and abs(x) == U64_MAX):
            continue
        assert JAVA.encode(values) == CODEC.encode(values)
        assert same(values, JAVA.decode(JAVA.encode(values)))


@pytest.mark.parametrize(("values", "want"), [
    (((U64_MAX,),), "05" + "1c" + "ff" * 8 + "00"),
    (([-U64_MAX],), "05" + "0c" + "00" * 8 + "00"),
    ((1, (2, (U64_MAX, None))), "1501" + "05" + "1502" + "05" + "1c" + "ff" * 8 + "00ff"
     + "00" + "00"),
], ids=["nested tuple", "nested list", "two levels"])
def test_java_form_inside_nested_tuples(values: tuple[Any, ...], want: str) -> None:
    """FDB-3: with "java" the 8-byte form is used for ±(2**64-1) wherever it appears (the
    Java and Go bindings write nested elements with the same integer encoder)."""
    assert JAVA.encode(values).hex() == want
    assert JAVA.encode(values, prefix=b"p").hex() == "70" + want


def test_java_form_in_a_tuple_field() -> None:
    assert JAVA.encode(((U64_MAX,),), "t:tuple").hex() == "05" + "1c" + "ff" * 8 + "00"
    assert JAVA.encode((U64_MAX,), "n:uint64").hex() == "1c" + "ff" * 8
    assert JAVA.encode((-U64_MAX,), "n:int").hex() == "0c" + "00" * 8


def test_java_form_with_versionstamp() -> None:
    key = JAVA.encode_with_versionstamp(((U64_MAX,), Versionstamp()))
    assert key.hex() == "05" + "1c" + "ff" * 8 + "00" + "33" + "ff" * 10 + "0000" + "0c000000"


# -- fuzzing decode -----------------------------------------------------------------------------

FUZZ_SCHEMAS = [KeySchema.parse(s) for s in (
    "a:string, b:int64, c:float64, d:bool",
    "x:bytes, y:int8, z:float32, u:uuid, t:tuple",
    "n:int",
)]


def _decode_or_decode_error(data: bytes, schema: KeySchema | None = None,
                            prefix: bytes = b"") -> tuple[Any, ...] | None:
    """decode(data); None when it raised DecodeError; any other exception fails the test."""
    error: DecodeError | None = None
    unexpected = ""
    try:
        return CODEC.decode(data, schema, prefix=prefix)
    except DecodeError as exc:
        error = exc
    except Exception as exc:
        # reported outside the handler: a chained RecursionError takes pytest minutes to show
        unexpected = f"{type(exc).__name__}: {exc}"
    if unexpected:
        shown = data.hex() if len(data) <= 64 else f"{data[:32].hex()}… ({len(data)} bytes)"
        pytest.fail(f"decode({shown}, {schema}, prefix={prefix.hex()}) raised {unexpected}; "
                    "only DecodeError may escape")
    assert error is not None
    assert error.offset is not None, str(error)
    assert 0 <= error.offset <= len(data), str(error)
    assert error.codec == "fdb-tuple", str(error)
    return None


def _check_stable(data: bytes, schema: KeySchema | None, prefix: bytes = b"") -> None:
    """Decode; where it works and the values encode again, re-decoding gives them back."""
    decoded = _decode_or_decode_error(data, schema, prefix)
    if decoded is None:
        return
    try:
        again = CODEC.encode(decoded, schema, prefix=prefix)
    except EncodeError:
        return  # an incomplete versionstamp read from the key
    back = CODEC.decode(again, schema, prefix=prefix)
    assert same(decoded, back), f"{data.hex()} -> {decoded!r} -> {again.hex()} -> {back!r}"


@given(st.binary(max_size=48), st.binary(max_size=3), st.sampled_from([None, *FUZZ_SCHEMAS]))
def test_fuzz_random_bytes(data: bytes, prefix: bytes, schema: KeySchema | None) -> None:
    _check_stable(data, schema)
    _check_stable(prefix + data, schema, prefix)
    _check_stable(data, schema, prefix)  # usually the wrong prefix


@st.composite
def mutated_keys(draw: st.DrawFn, key_strategy: st.SearchStrategy[bytes]) -> bytes:
    data = bytearray(draw(key_strategy))
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["truncate", "flip", "insert", "append"]))
        at = draw(st.integers(0, len(data)))
        if op == "truncate":
            del data[at:]
        elif op == "flip" and data:
            data[min(at, len(data) - 1)] ^= draw(st.integers(1, 255))
        elif op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=3))
        else:
            data += draw(st.binary(min_size=1, max_size=3))
    return bytes(data)


@given(mutated_keys(values_st.map(CODEC.encode)), st.binary(min_size=1, max_size=2))
def test_fuzz_mutated_keys(data: bytes, prefix: bytes) -> None:
    note(data.hex())
    _check_stable(data, None)
    _check_stable(prefix + data, None, prefix)
    for schema in FUZZ_SCHEMAS:
        _decode_or_decode_error(data, schema)


_SCHEMA_KEYS = st.one_of(
    st.tuples(texts, st.integers(-(2**63), 2**63 - 1), floats64, st.booleans())
    .map(lambda v: CODEC.encode(v, FUZZ_SCHEMAS[0])),
    st.tuples(st.binary(max_size=6), st.integers(-128, 127), floats32, st.uuids(),
              st.lists(scalars, max_size=3).map(tuple))
    .map(lambda v: CODEC.encode(v, FUZZ_SCHEMAS[1])),
    ints.map(lambda v: CODEC.encode((v,), FUZZ_SCHEMAS[2])),
)


@given(mutated_keys(_SCHEMA_KEYS), st.sampled_from(FUZZ_SCHEMAS))
def test_fuzz_mutated_schema_keys(data: bytes, schema: KeySchema) -> None:
    note(data.hex())
    _check_stable(data, schema)
    _check_stable(b"\xfe" + data, schema, b"\xfe")
    _check_stable(data, None)


# -- the generic conformance harness -----------------------------------------------------------


class _OneImplementation:
    """The harness is the slow part of this module, so it runs once, on the implementation
    in force (the compiled one unless LEXCODECS_PURE is set): this class-level ``impl``
    replaces the module's two-way one. test_fdb_tuple_differential.py holds the reference
    code to the compiled code, answer for answer."""

    @pytest.fixture
    def impl(self) -> str:
        return _impl.current


class TestFdbTupleConformance(_OneImplementation, CodecConformance):
    codec = CODEC
    schemas = (
        "tenant:string, ts:int64, id:uuid, score:float64, flag:bool",
        "a:bytes, b:int",
        "x:float32, y:uint64, z:int8",
        "s:string, n:int16, t:string",
    )


class TestFdbTupleJavaConformance(_OneImplementation, CodecConformance):
    codec = JAVA
    schemas = ("a:uint64, b:int", "x:int64, y:float32, z:bytes")


# -- schema behaviour (§9) ---------------------------------------------------------------------


def test_int32_field_refuses_out_of_range() -> None:
    schema = "name:string, count:int32"
    exc = expect_lex_error(lambda: CODEC.encode(("a", 2**31), schema), (EncodeError,))
    assert exc.codec == "fdb-tuple"
    assert exc.field == 1
    assert exc.field_name == "count"
    assert exc.value == 2**31
    text = str(exc)
    for part in ("fdb-tuple", "field 1", "'count'", "2147483648", "-2147483648..2147483647"):
        assert part in text, text
    assert CODEC.encode(("a", 2**31 - 1), schema) == ft.pack(("a", 2**31 - 1))
    assert CODEC.encode(("a", -(2**31)), schema) == ft.pack(("a", -(2**31)))
    expect_lex_error(lambda: CODEC.encode(("a", -(2**31) - 1), schema), (EncodeError,))


@pytest.mark.parametrize(("field", "lo", "hi"), [
    ("int8", -128, 127), ("int16", -(2**15), 2**15 - 1), ("int64", -(2**63), 2**63 - 1),
    ("uint8", 0, 255), ("uint16", 0, 2**16 - 1), ("uint32", 0, 2**32 - 1),
    ("uint64", 0, U64_MAX), ("int", -INT_LIMIT, INT_LIMIT),
])
def test_int_field_ranges(field: str, lo: int, hi: int) -> None:
    schema = f"v:{field}"
    for v in (lo, hi, 0):
        assert CODEC.encode((v,), schema) == ft.pack((v,))
        assert CODEC.decode(CODEC.encode((v,), schema), schema) == (v,)
    for v in (lo - 1, hi + 1):
        exc = expect_lex_error(lambda v=v: CODEC.encode((v,), schema), (EncodeError,))
        assert exc.field == 0, str(exc)
        assert exc.field_name == "v", str(exc)


def test_bool_and_int_fields_do_not_mix() -> None:
    for field in ("int8", "int64", "uint64", "int"):
        exc = expect_lex_error(lambda f=field: CODEC.encode((True,), f"n:{f}"),
                               (EncodeError,))
        assert exc.field == 0
        assert exc.field_name == "n"
    for v in (1, 0):
        exc = expect_lex_error(lambda v=v: CODEC.encode((v,), "flag:bool"), (EncodeError,))
        assert exc.field_name == "flag"
    assert CODEC.encode((True, False), "a:bool, b:bool") == b"\x27\x26"


def test_float64_field() -> None:
    schema = "x:float64"
    assert CODEC.encode((1,), schema) == ft.pack((1.0,))
    assert CODEC.encode((2**53,), schema) == ft.pack((float(2**53),))
    assert CODEC.encode((-(2**1023),), schema) == ft.pack((-float(2**1023),))
    assert CODEC.encode((Float32(1.5),), schema) == ft.pack((1.5,))
    back = CODEC.decode(CODEC.encode((3,), schema), schema)
    assert same((3.0,), back)
    for bad in (2**53 + 1, -(2**53) - 1, 2**1024, 10**400):
        exc = expect_lex_error(lambda b=bad: CODEC.encode((b,), schema), (EncodeError,))
        assert exc.field == 0, str(exc)
        assert exc.field_name == "x", str(exc)
    expect_lex_error(lambda: CODEC.encode((True,), schema), (EncodeError,))
    expect_lex_error(lambda: CODEC.encode(("1.0",), schema), (EncodeError,))


def test_float32_field_rounds() -> None:
    schema = "x:float32"
    assert CODEC.encode((3.14,), schema) == ft.pack((ft.SingleFloat(3.14),))
    assert CODEC.encode((3.14,), schema) == CODEC.encode((Float32(3.14),))
    assert CODEC.encode((2**24 + 1,), schema) == CODEC.encode((Float32(2.0**24),))
    assert CODEC.encode((1e40,), schema).hex() == "20ff800000"
    assert CODEC.encode((-1e40,), schema).hex() == "20007fffff"
    assert CODEC.encode((10**400,), schema).hex() == "20ff800000"
    back = CODEC.decode(CODEC.encode((0.1,), schema), schema)
    assert same((Float32(0.1),), back)
    nan = Float32.from_bits(0x7FC00123)
    assert CODEC.decode(CODEC.encode((nan,), schema), schema)[0].bits == 0x7FC00123
    expect_lex_error(lambda: CODEC.encode((False,), schema), (EncodeError,))


@pytest.mark.parametrize(("text", "name"), [
    ("a:string desc", "a"),
    ("a:string, b:int64 desc", "b"),
    ("a:int64 nulls last", "a"),
    ("a:string, b:uuid nulls last", "b"),
    ("a:string desc nulls first", "a"),
])
def test_desc_and_nulls_last_refused_at_bind(text: str, name: str) -> None:
    exc = expect_lex_error(lambda: CODEC.bind(text), (SchemaError,))
    assert exc.codec == "fdb-tuple", str(exc)
    assert exc.field_name == name, str(exc)
    assert repr(name) in str(exc)
    expect_lex_error(lambda: CODEC.encode(("x", "y")[: len(KeySchema.parse(text))], text),
                     (SchemaError,))


@pytest.mark.parametrize("field", ["decimal", "timestamp", "duration"])
def test_types_without_a_tuple_code_refused(field: str) -> None:
    exc = expect_lex_error(lambda: CODEC.bind(f"a:string, v:{field}"), (SchemaError,))
    assert exc.field == 1
    assert exc.field_name == "v"
    assert field in str(exc)


def test_nulls_accepted_in_every_field() -> None:
    schema = "a:string, b:int8, c:float32, d:float64, e:bool, f:uuid, g:tuple, h:bytes"
    key = CODEC.encode((None,) * 8, schema)
    assert key == b"\x00" * 8
    assert CODEC.decode(key, schema) == (None,) * 8


def test_schema_arity() -> None:
    schema = "a:string, b:int64"
    for values in (("a",), ("a", 1, 2), ()):
        expect_lex_error(lambda v=values: CODEC.encode(v, schema), (EncodeError,))


def test_schema_decode_offsets() -> None:
    two = "a:string, b:int64"
    # too few: the end of the key
    for data in (b"", bytes.fromhex("026100"), bytes.fromhex("00")):
        exc = expect_lex_error(lambda d=data: CODEC.decode(d, two), (DecodeError,))
        assert exc.offset == len(data)
    # too many: the first extra element
    data = bytes.fromhex("026100" "1501" "0500ff00" "27")
    exc = expect_lex_error(lambda: CODEC.decode(data, two), (DecodeError,))
    assert exc.offset == 5
    # with a prefix, offsets still count from the start of the data
    exc = expect_lex_error(lambda: CODEC.decode(b"pp" + data, two, prefix=b"pp"),
                           (DecodeError,))
    assert exc.offset == 7
    exc = expect_lex_error(lambda: CODEC.decode(b"pp\x02a\x00", two, prefix=b"pp"),
                           (DecodeError,))
    assert exc.offset == 5


@pytest.mark.parametrize(("schema", "values_hex", "offset"), [
    ("a:string, b:int64", "026100" "026200", 3),            # a string in an int field
    ("a:string, b:int64", "1501" "1502", 0),                # an int in a string field
    ("a:bytes", "026100", 0),
    ("a:string", "016100", 0),
    ("a:float64", "20c048f5c3", 0),
    ("a:float32", "21bff0000000000000", 0),
    ("a:bool", "1501", 0),
    ("a:int8", "27", 0),
    ("a:uuid", "05" "00", 0),
    ("a:tuple", "1501", 0),
    ("a:string, b:int8", "026100" "1580", 3),                # 128 > int8
    ("a:uint8", "13fe", 0),                                  # -1 < 0
    ("a:int16", "17800000", 0),                              # 2**23
    ("a:uint64", "1d09010000000000000000", 0),               # 2**64
    ("a:int64", "1c8000000000000000", 0),                    # 2**63
    ("a:int64, b:int32", "14" "0bf6feffffffffffffffff", 1),  # -(2**64)
], ids=lambda x: x if isinstance(x, str) else None)
def test_schema_decode_element_does_not_fit(schema: str, values_hex: str, offset: int) -> None:
    data = bytes.fromhex(values_hex)
    n = len(KeySchema.parse(schema))
    assert len(CODEC.decode(data)) == n  # the key itself is well formed
    exc = expect_lex_error(lambda: CODEC.decode(data, schema), (DecodeError,))
    assert exc.offset == offset, str(exc)
    assert exc.codec == "fdb-tuple"


def test_schema_decode_accepts_non_minimal_ints_in_range() -> None:
    assert CODEC.decode(bytes.fromhex("026100137f"), "a:string, b:int8") == ("a", -128)
    assert CODEC.decode(bytes.fromhex("160001"), "a:int8") == (1,)
    assert CODEC.decode(bytes.fromhex("1cffffffffffffffff"), "a:uint64") == (U64_MAX,)
    assert CODEC.decode(bytes.fromhex("1d08ffffffffffffffff"), "a:uint64") == (U64_MAX,)


def test_schema_keys_are_tuple_keys() -> None:
    schema = "tenant:string, ts:int64, id:uuid, score:float64, flag:bool, f:float32"
    u = uuid.UUID(int=12345)
    values = ("acme", -5, u, 2.5, True, Float32(0.25))
    key = CODEC.encode(values, schema)
    assert key == ft.pack(("acme", -5, u, 2.5, True, ft.SingleFloat(0.25)))
    assert same(values, CODEC.decode(key, schema))
    assert same(values, CODEC.decode(key))
    assert CODEC.encode(values, schema, prefix=b"\x01") == b"\x01" + key
    assert same(values, CODEC.decode(b"\x01" + key, schema, prefix=b"\x01"))
    start, stop = CODEC.prefix_range(values[:2], schema)
    assert (start, stop) == (ft.pack(values[:2]) + b"\x00", ft.pack(values[:2]) + b"\xff")
    assert start <= key < stop
    start, stop = CODEC.prefix_range(values[:1], schema, prefix=b"q")
    assert (start, stop) == (b"q" + ft.pack(values[:1]) + b"\x00",
                             b"q" + ft.pack(values[:1]) + b"\xff")


# -- API details ------------------------------------------------------------------------------


def test_prefix_handling() -> None:
    values = ("a", 1, None)
    key = CODEC.encode(values)
    for prefix in (b"p", b"\x00", b"\xfe\x00", b"\x02app\x00"):
        assert CODEC.encode(values, prefix=prefix) == prefix + key
        assert fdb_tuple.encode(values, prefix=prefix) == prefix + key
        assert CODEC.decode(prefix + key, prefix=prefix) == values
        assert fdb_tuple.decode(prefix + key, prefix=prefix) == values
        assert CODEC.prefix_range(values, prefix=prefix) == (prefix + key + b"\x00",
                                                             prefix + key + b"\xff")
    assert CODEC.encode((), prefix=b"p") == b"p"
    assert CODEC.decode(b"p", prefix=b"p") == ()
    assert CODEC.prefix_range((), prefix=b"p") == (b"p\x00", b"p\xff")


@pytest.mark.parametrize(("data", "prefix"), [
    (b"q\x15\x01", b"p"),
    (b"\x15\x01", b"p"),
    (b"", b"p"),
    (b"p", b"pp"),
    (b"pq\x15\x01", b"pp"),
    (b"\x15\x01", b"\x16"),
])
def test_decode_wrong_prefix(data: bytes, prefix: bytes) -> None:
    for schema in (None, "a:int"):
        exc = expect_lex_error(lambda s=schema: CODEC.decode(data, s, prefix=prefix),
                               (DecodeError,))
        assert exc.offset == 0, str(exc)


@pytest.mark.parametrize("depth", [1500, 50_000])
def test_decode_deep_nesting(depth: int) -> None:
    """FDB-7: arbitrary input raises DecodeError or decodes; deep nesting must not raise
    RecursionError (a few kilobytes of 05 bytes are enough to reach it)."""
    for data in (b"\x05" * depth,                                # unterminated
                 b"\x05" * depth + b"\x00" * depth,             # well formed
                 b"\x15\x01" + b"\x05\x00\xff" * depth,        # null children, unterminated
                 b"\x05" * depth + b"\x02"):                    # an unterminated string inside
        for schema in (None, KeySchema.parse("t:tuple")):
            back = _decode_or_decode_error(data, schema)
            if back is None:
                continue
            assert data == b"\x05" * depth + b"\x00" * depth
            for _ in range(depth):
                assert len(back) == 1
                back = back[0]
            assert back == ()


def test_encode_deep_nesting() -> None:
    """A deeply nested value encodes, or is refused with a lexcodecs error (never a
    RecursionError escaping the codec).

    The recursion limit is lowered for the calls (and restored), so a codec that recurses
    per level fails in milliseconds rather than seconds."""
    depth = 400
    value: Any = ()
    for _ in range(depth):
        value = (value,)
    calls = {
        "encode": lambda: CODEC.encode((value,)),
        "encode with a schema": lambda: CODEC.encode((value,), "t:tuple"),
        "encode_with_versionstamp": lambda: CODEC.encode_with_versionstamp(
            (value, Versionstamp())),
    }
    unexpected = []
    keys = []
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(300)
    try:
        for name, call in calls.items():
            try:
                keys.append(call())
            except LexCodecError:
                continue
            except Exception as exc:  # reported outside the handler
                unexpected.append(f"{name} raised {type(exc).__name__}: {exc}")
    finally:
        sys.setrecursionlimit(limit)
    assert not unexpected, unexpected
    for key in keys:
        assert key.startswith(b"\x05" * (depth + 1) + b"\x00" * (depth + 1))


def test_error_offsets_count_the_prefix() -> None:
    exc = expect_lex_error(lambda: CODEC.decode(b"pp\x05\x02", prefix=b"pp"), (DecodeError,))
    assert exc.offset == 3
    exc = expect_lex_error(lambda: CODEC.decode(b"pp\x15\x01\x05\x15\x01\x05\x33\x00",
                                                prefix=b"pp"), (DecodeError,))
    assert exc.offset == 8  # the innermost element that could not be read
    for data, offset in ((b"\x05\x02\xff\x00\x00", 1), (b"\x05\x05\x1c\x01", 2),
                         (b"\x05\x15\x01\x05\x00\xff\x30\x00", 6), (b"\x14\x05\x00\xff\xff", 4)):
        exc = expect_lex_error(lambda d=data: CODEC.decode(b"pfx" + d, prefix=b"pfx"),
                               (DecodeError,))
        assert exc.offset == 3 + offset, (data.hex(), str(exc))


@pytest.mark.parametrize("prefix", [bytearray(b"p\x00"), memoryview(b"p\x00")],
                         ids=["bytearray", "memoryview"])
def test_bytes_like_prefix(prefix: Any) -> None:
    """§1: the subspace prefix is any bytes-like object, copied as fdb.tuple.pack does."""
    values = (1, "x")
    want = ft.pack(values, prefix=prefix)
    key = CODEC.encode(values, prefix=prefix)
    assert type(key) is bytes
    assert key == want
    start, stop = CODEC.prefix_range(values, prefix=prefix)
    assert (type(start), type(stop)) == (bytes, bytes)
    assert (start, stop) == (want + b"\x00", want + b"\xff")
    key = CODEC.encode(values, "a:int, b:string", prefix=prefix)
    assert type(key) is bytes
    assert key == want
    assert CODEC.decode(want, prefix=prefix) == values
    assert CODEC.decode(want, "a:int, b:string", prefix=prefix) == values
    stamped = CODEC.encode_with_versionstamp((Versionstamp(),), prefix=prefix)
    assert stamped == b"p\x00\x33" + b"\xff" * 10 + b"\x00\x00" + (3).to_bytes(4, "little")


def test_str_prefix_is_a_type_error() -> None:
    for call in (lambda: CODEC.encode((1,), prefix="p"),
                 lambda: CODEC.prefix_range((1,), prefix="p"),
                 lambda: CODEC.decode(b"p\x15\x01", prefix="p"),
                 lambda: CODEC.encode_with_versionstamp((Versionstamp(),), prefix="p")):
        with pytest.raises(TypeError):
            call()


def test_bytes_like_values() -> None:
    want = CODEC.encode((b"a\x00b", (b"\x00",)))
    assert want == ft.pack((b"a\x00b", (b"\x00",)))
    for kind in (bytearray, memoryview):
        assert CODEC.encode((kind(b"a\x00b"), (kind(b"\x00"),))) == want
        assert CODEC.encode((kind(b"a\x00b"), [kind(b"\x00")]), "a:bytes, b:tuple") == want
    assert CODEC.encode((bytearray(b"x"),), "a:bytes") == b"\x01x\x00"
    assert CODEC.encode((memoryview(b"x"),), "a:bytes") == b"\x01x\x00"


def test_bytes_like_keys() -> None:
    values = (b"ab", "s", 5, Versionstamp(bytes(range(10)), 7), uuid.UUID(int=1),
              Float32(2.5), ((b"",),))
    key = CODEC.encode(values)
    for data in (key, bytearray(key), memoryview(key)):
        back = CODEC.decode(data)
        assert same(values, back)
        assert type(back[0]) is bytes
        assert type(back[6][0][0]) is bytes
    schema = "a:bytes, b:string, c:int, d:string"
    key = CODEC.encode((b"x", "y", 1, None), schema)
    for data in (bytearray(key), memoryview(key)):
        back = CODEC.decode(data, schema)
        assert back == (b"x", "y", 1, None)
        assert type(back[0]) is bytes


@pytest.mark.parametrize("key", ["\x15\x01", 21, None, [21, 1]], ids=repr)
def test_non_bytes_key_refused(key: Any) -> None:
    for call in (lambda: CODEC.decode(key), lambda: fdb_tuple.decode(key),
                 lambda: CODEC.decode(key, "a:int")):
        expect_lex_error(call, (UnsupportedTypeError,))


class _Thing:
    pass


@pytest.mark.parametrize("value", [
    {"a": 1}, {1, 2}, frozenset(), decimal.Decimal("1.5"),
    datetime.datetime(2024, 1, 1), datetime.date(2024, 1, 1), datetime.timedelta(seconds=1),
    END, 1 + 2j, _Thing(), object(), Int8, ft.Versionstamp,
], ids=lambda v: type(v).__name__)
def test_unsupported_types(value: Any) -> None:
    name = type(value).__name__
    for values in ((value,), (1, value), ((value,),), [["a", [value]]]):
        exc = expect_lex_error(lambda v=values: CODEC.encode(v), (UnsupportedTypeError,))
        assert name in str(exc), str(exc)
        assert exc.codec == "fdb-tuple"
    expect_lex_error(lambda: CODEC.prefix_range((value,)), (UnsupportedTypeError,))
    expect_lex_error(lambda: JAVA.encode((value,)), (UnsupportedTypeError,))
    expect_lex_error(lambda: CODEC.encode_with_versionstamp((value, Versionstamp())),
                     (UnsupportedTypeError,))
    expect_lex_error(lambda: CODEC.encode((value,), "t:tuple"), (UnsupportedTypeError,))
    expect_lex_error(lambda: CODEC.encode(((value,),), "t:tuple"), (UnsupportedTypeError,))


@pytest.mark.parametrize("values", ["ab", b"ab", 5, None, {"a": 1}, iter([1])],
                         ids=lambda v: re.sub(r" at 0x[0-9a-f]+", "", repr(v)))
def test_values_must_be_a_tuple_or_list(values: Any) -> None:
    expect_lex_error(lambda: CODEC.encode(values), (UnsupportedTypeError,))
    expect_lex_error(lambda: CODEC.prefix_range(values), (UnsupportedTypeError,))
    expect_lex_error(lambda: CODEC.encode_with_versionstamp(values), (UnsupportedTypeError,))


def test_top_level_list_accepted() -> None:
    assert CODEC.encode([1, "a", [None]]) == ft.pack((1, "a", [None]))
    assert CODEC.prefix_range([1]) == CODEC.prefix_range((1,))
    assert CODEC.encode_with_versionstamp([Versionstamp()]) == \
        CODEC.encode_with_versionstamp((Versionstamp(),))


@pytest.mark.parametrize("text", ["\ud800", "a\udfffb", "\udc00\ud800"])
def test_lone_surrogate(text: str) -> None:
    for values in ((text,), ("ok", (text,)), [[1, [text]]]):
        exc = expect_lex_error(lambda v=values: CODEC.encode(v), (EncodeError,))
        assert not isinstance(exc, UnsupportedTypeError), str(exc)
    expect_lex_error(lambda: CODEC.encode((text,), "s:string"), (EncodeError,))
    expect_lex_error(lambda: CODEC.encode_with_versionstamp((text, Versionstamp())),
                     (EncodeError,))


@pytest.mark.parametrize("v", [INT_LIMIT + 1, -(INT_LIMIT + 1), 2**4000, -(2**2041)],
                         ids=["2**2040", "-(2**2040)", "2**4000", "-(2**2041)"])
def test_int_too_large(v: int) -> None:
    for codec in (CODEC, JAVA):
        for values in ((v,), ((v,),), [1, [v]]):
            exc = expect_lex_error(lambda c=codec, vs=values: c.encode(vs), (EncodeError,))
            assert not isinstance(exc, UnsupportedTypeError), str(exc)
        expect_lex_error(lambda c=codec: c.encode((v,), "n:int"), (EncodeError,))
    expect_lex_error(lambda: CODEC.encode_with_versionstamp((v, Versionstamp())),
                     (EncodeError,))


def test_int_limits_encode() -> None:
    assert CODEC.encode((INT_LIMIT,)).hex() == "1dff" + "ff" * 255
    assert CODEC.encode((-INT_LIMIT,)).hex() == "0b00" + "00" * 255
    assert CODEC.decode(CODEC.encode((INT_LIMIT, -INT_LIMIT))) == (INT_LIMIT, -INT_LIMIT)


class Color(enum.IntEnum):
    RED = 1
    BIG = 2**70


class Shade(str, enum.Enum):  # noqa: UP042  (the mixin: str() is "Shade.DARK", not "dark")
    DARK = "dark"


class StrSub(str):
    pass


class ReprStr(str):
    def __str__(self) -> str:
        return "something else"


class IntSub(int):
    pass


class FloatSub(float):
    pass


class BytesSub(bytes):
    pass


class Point(NamedTuple):
    x: int
    y: Any


@pytest.mark.parametrize("value", [
    Color.RED, Color.BIG, IntSub(-7), StrSub("a\x00b"), FloatSub(2.5), BytesSub(b"\x00x"),
    Point(1, "y"), Point(Color.RED, (None, StrSub("z"))), collections.namedtuple("P", "a")(3),
    enum.StrEnum("S", {"A": "aa"}).A, Shade.DARK, ReprStr("real"),
], ids=lambda v: type(v).__name__)
def test_subclasses_encode_like_fdb_tuple(value: Any) -> None:
    want = ft.pack((value,))
    assert CODEC.encode((value,)).hex() == want.hex()
    assert CODEC.encode([1, value]) == ft.pack((1, value))
    assert CODEC.encode(((value,),)) == ft.pack(((value,),))
    assert JAVA.encode((value,)) == want
    start, _ = CODEC.prefix_range((value,))
    assert start == want + b"\x00"


def test_tuple_subclass_as_the_values() -> None:
    assert CODEC.encode(Point(1, "y")) == ft.pack(Point(1, "y")) == CODEC.encode((1, "y"))
    assert CODEC.prefix_range(Point(1, "y")) == CODEC.prefix_range((1, "y"))
    assert CODEC.encode(Point(1, "y"), "a:int, b:string") == ft.pack((1, "y"))


def test_java_form_with_subclasses_nested() -> None:
    assert JAVA.encode(((IntSub(5), U64_MAX),)).hex() == "05" "1505" "1c" + "ff" * 8 + "00"
    assert JAVA.encode(((bytearray(b"a"), -U64_MAX),)).hex() == \
        "05" "016100" "0c" + "00" * 8 + "00"
    assert JAVA.encode((IntSub(U64_MAX), [IntSub(U64_MAX)])).hex() == \
        "1c" + "ff" * 8 + "05" "1c" + "ff" * 8 + "00"
    assert JAVA.encode(((bytearray(b"x"), U64_MAX),), "t:tuple").hex() == \
        "05" "017800" "1c" + "ff" * 8 + "00"


def test_str_subclass_in_a_string_field() -> None:
    for value in (StrSub("a"), Shade.DARK, ReprStr("real")):
        assert CODEC.encode((value,), "s:string") == ft.pack((value,))


def test_is_none_not_eq_none() -> None:
    class EqualsEverything(str):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = str.__hash__

    # fdb.tuple would write 00 (it tests == None); the codec dispatches by type (§10)
    assert CODEC.encode((EqualsEverything("x"),)) == b"\x02x\x00"


def test_ctypes_and_fdb_floats() -> None:
    cases = [ctypes.c_float(3.14), ctypes.c_float(-0.0), ctypes.c_float(1e40),
             ft.SingleFloat(-42.0), ft.SingleFloat(float("nan")), ft.SingleFloat(2**30 + 1)]
    for value in cases:
        key = CODEC.encode((value,))
        assert key[0] == 0x20, repr(value)
        assert key == ft.pack((value,)), repr(value)
        assert type(CODEC.decode(key)[0]) is Float32
        assert CODEC.encode(((value,),)) == ft.pack(((value,),))
    for value in (ctypes.c_double(3.14), ctypes.c_double(-0.0), ctypes.c_double(5e-324)):
        key = CODEC.encode((value,))
        assert key[0] == 0x21
        assert key == ft.pack((value,))
        assert type(CODEC.decode(key)[0]) is float
    assert CODEC.encode((ft.SingleFloat(-42.0),)).hex() == "203dd7ffff"
    assert CODEC.encode((Float32(3.14),)) == CODEC.encode((ctypes.c_float(3.14),))


def test_fdb_versionstamps() -> None:
    complete = ft.Versionstamp(bytes(range(1, 11)), 657)
    key = CODEC.encode((complete,))
    assert key.hex() == "330102030405060708090a0291" == ft.pack((complete,)).hex()
    assert CODEC.decode(key) == (Versionstamp(bytes(range(1, 11)), 657),)
    expect_lex_error(lambda: CODEC.encode((ft.Versionstamp.incomplete(3),)), (EncodeError,))
    t = ("a", (1, ft.Versionstamp.incomplete(3)))
    assert CODEC.encode_with_versionstamp(t, prefix=b"pre") == \
        ft.pack_with_versionstamp(t, prefix=b"pre")


def test_versionstamp_all_ff_is_read_as_incomplete() -> None:
    stamp = Versionstamp(b"\xff" * 10, 0)
    key = CODEC.encode((stamp,))
    assert key.hex() == "33" + "ff" * 10 + "0000"
    assert CODEC.decode(key) == (Versionstamp(None, 0),)
    expect_lex_error(lambda: CODEC.encode(CODEC.decode(key)), (EncodeError,))


def test_plain_encode_refuses_incomplete_stamps() -> None:
    for values in ((Versionstamp(),), (1, (Versionstamp(user_version=4),)),
                   [[Versionstamp()]]):
        exc = expect_lex_error(lambda v=values: CODEC.encode(v), (EncodeError,))
        assert not isinstance(exc, UnsupportedTypeError)
        expect_lex_error(lambda v=values: CODEC.prefix_range(v), (EncodeError,))


@st.composite
def _with_one_stamp(draw: st.DrawFn) -> tuple[Any, ...]:
    """Generated values with one incomplete stamp put somewhere, nested or not."""
    values = list(draw(values_st))
    stamp = Versionstamp(user_version=draw(st.integers(0, 0xFFFF)))
    depth = draw(st.integers(0, 2))
    item: Any = stamp
    for _ in range(depth):
        before = draw(st.lists(scalars, max_size=2))
        item = (*before, item) if draw(st.booleans()) else [*before, item]
    values.insert(draw(st.integers(0, len(values))), item)
    return tuple(values)


@given(_with_one_stamp(), st.binary(max_size=4))
def test_encode_with_versionstamp_matches_fdb_tuple(values: tuple[Any, ...],
                                                     prefix: bytes) -> None:
    want = ft.pack_with_versionstamp(to_fdb(values), prefix=prefix)
    got = CODEC.encode_with_versionstamp(values, prefix=prefix)
    assert got.hex() == want.hex()
    assert fdb_tuple.encode_with_versionstamp(values, prefix=prefix) == want
    offset = int.from_bytes(got[-4:], "little")
    assert got[offset - 1] == 0x33
    assert got[offset:offset + 10] == b"\xff" * 10
    assert offset >= len(prefix) + 1
    # the key without the offset decodes, the stamp reading back as incomplete
    back = CODEC.decode(got[:-4], prefix=prefix)
    assert contains(back, lambda x: isinstance(x, Versionstamp) and x.tr_version is None)


def test_encode_with_versionstamp_offsets() -> None:
    cases = [
        ((Versionstamp(),), b"", 1),
        (("a", Versionstamp(None, 5)), b"pre", 7),
        ((("a", Versionstamp()),), b"", 5),
        ((1, (None, Versionstamp(None, 7)), "z"), b"\x00\x01", 8),
        ((Versionstamp(b"\x01" * 10, 2), Versionstamp(None, 3)), b"", 14),
        (([Versionstamp(None, 9)],), b"", 2),
        ((Versionstamp(),), b"\xff" * 300, 301),
    ]
    for values, prefix, offset in cases:
        key = CODEC.encode_with_versionstamp(values, prefix=prefix)
        assert key[-4:] == offset.to_bytes(4, "little"), (values, key.hex())
        assert key.startswith(prefix)


def test_encode_with_versionstamp_refusals() -> None:
    done = Versionstamp(b"\x01" * 10, 0)
    for values, word in (((), "no"), ((1, done), "no"), ((Versionstamp(), Versionstamp()),
                                                           "several"),
                         (((Versionstamp(),), [Versionstamp(None, 2)]), "several"),
                         ((Versionstamp(), ft.Versionstamp.incomplete()), "several")):
        exc = expect_lex_error(lambda v=values: CODEC.encode_with_versionstamp(v),
                               (EncodeError,))
        assert word in str(exc), str(exc)


def test_options_and_config() -> None:
    java = get_codec("fdb-tuple", max_u64_form="java")
    assert isinstance(java, FdbTupleCodec)
    assert java.encode((U64_MAX,)).hex() == "1c" + "ff" * 8
    assert get_codec("fdb-tuple").encode((U64_MAX,)).hex() == "1d08" + "ff" * 8
    for codec in (CODEC, JAVA, get_codec("fdb-tuple")):
        config = codec.config()
        assert config["name"] == "fdb-tuple"
        rebuilt = get_codec(**config)
        assert rebuilt == codec
        assert rebuilt.config() == config
        assert rebuilt.encode((U64_MAX,)) == codec.encode((U64_MAX,))
    assert CODEC.config() == {"name": "fdb-tuple", "max_u64_form": "python", "max_depth": 64}
    assert JAVA.config() == {"name": "fdb-tuple", "max_u64_form": "java", "max_depth": 64}
    for bad in ("go", "JAVA", "", None, True, 1):
        with pytest.raises(OptionError):
            get_codec("fdb-tuple", max_u64_form=bad)
    with pytest.raises(OptionError):
        get_codec("fdb-tuple", max_u64=True)


def test_decoded_types() -> None:
    values = (None, b"b", "s", -3, 0, 2**100, Float32(1.5), 1.5, False, True,
              uuid.UUID(int=7), Versionstamp(b"\x00" * 10, 1), (1, None, ()))
    key = CODEC.encode(values)
    assert key == ft.pack(to_fdb(values))
    back = CODEC.decode(key)
    assert same(values, back)
    assert [type(v) for v in back] == [type(None), bytes, str, int, int, int, Float32, float,
                                       bool, bool, uuid.UUID, Versionstamp, tuple]


@pytest.mark.parametrize(("shorter", "longer"), [
    ((b"",), (b"\x00",)),
    (("",), ("\x00",)),
    (((),), ((None,),)),
    (("a", b"x"), ("a", b"x\x00y")),
], ids=["bytes", "str", "nested", "last field"])
def test_prefix_free_claim(shorter: tuple[Any, ...], longer: tuple[Any, ...]) -> None:
    """A key whose last element is bytes, a string or a nested tuple is a proper byte prefix
    of another key (the escape ``00 ff`` extends the terminator ``00``): 0100 < 0100ff00.
    The codec must then not claim prefix-freeness (the harness takes the claim literally)."""
    ka, kb = CODEC.encode(shorter), CODEC.encode(longer)
    assert kb.startswith(ka)
    assert len(ka) < len(kb)
    assert ka == ft.pack(shorter)
    assert kb == ft.pack(longer)
    # the format still ranges correctly: the longer key is not an extension of the shorter
    start, stop = CODEC.prefix_range(shorter)
    assert not start <= kb < stop
    assert not CODEC.capabilities.prefix_free, (
        f"capabilities claim prefix_free, but {ka.hex()} ({shorter!r}) is a proper prefix of "
        f"{kb.hex()} ({longer!r})")


def test_capabilities() -> None:
    caps = CODEC.capabilities
    assert caps.decoding == "self-describing"
    assert caps.schemaless
    assert not caps.descending
    assert caps.nulls == "fixed"
    assert caps.int_range == (-INT_LIMIT, INT_LIMIT)
    assert {"decimal", "timestamp", "duration"}.isdisjoint(caps.field_types)
