"""The sqlite4 fast paths never answer differently from the careful Python code.

Three layers answer a call: the C code (lexcodecs._speedups), then Python fast paths (the
per-instance closures and, for a bound schema, a tight loop over the field readers), then the
careful reading, which is the reference and the only source of error messages. The faster
layers may hand any call down; when they answer, the answer must be the reference's, type for
type and bit for bit, and they must never accept what the reference refuses. The vector suite
also runs once with LEXCODECS_PURE=1.
"""

from __future__ import annotations

import decimal
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexcodecs import DecodeError, KeySchema, LexCodecError
from lexcodecs.codecs import sqlite4
from lexcodecs.codecs.sqlite4 import Sqlite4Codec
from lexcodecs.testing.strategies import junk_keys, keys
from lexcodecs.types import Int32

ROOT = Path(__file__).resolve().parent.parent
C = sqlite4._speedups()
needs_c = pytest.mark.skipif(C is None, reason="the C extension is not built here")
CODECS = (Sqlite4Codec(), Sqlite4Codec(table=300))
reference_encode = Sqlite4Codec.encode  # the class's methods never use the fast paths
reference_decode = Sqlite4Codec.decode


def same(a: Any, b: Any) -> bool:
    """Equal values of the same type; floats by their bits, Decimals by their text."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and
                                                     math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, decimal.Decimal):
        return str(a) == str(b)
    return bool(a == b)


def _outcome(fn: Any, *args: Any) -> tuple[str, Any]:
    try:
        return "ok", fn(*args)
    except LexCodecError as exc:
        return "error", exc


def _agree(got: tuple[str, Any], want: tuple[str, Any], what: Any) -> None:
    assert got[0] == want[0], f"{what}: fast path {got}, reference {want}"
    if got[0] == "ok":
        assert same(got[1], want[1]), f"{what}: fast path {got[1]!r}, reference {want[1]!r}"


_numbers = st.one_of(
    st.integers(), st.integers(-(2**64), 2**64), st.floats(),
    st.decimals(), st.sampled_from([0, -0.0, 0.5, -0.5, 10**18, 10**20 - 1, 10**20, -(2**63),
                                    2**64 - 1, 1e23, 5e-324, decimal.Decimal("1E+500"),
                                    decimal.Decimal("-0.00123")]))
_scalars = st.one_of(
    st.none(), _numbers, st.text(max_size=8), st.binary(max_size=12), st.booleans(),
    st.builds(Int32, st.integers(-(2**31), 2**31 - 1)), st.binary(max_size=4).map(bytearray),
    st.sampled_from(["a\x00b", "\ud800", b"\x00\xff"]))
_values = st.lists(_scalars, max_size=4).map(tuple)


def _mutations(key: bytes) -> list[bytes]:
    out = [key + b"\x00", key[:-1], key + b"\x05"]
    if key:
        out += [key[:-1] + bytes((key[-1] ^ 1,)), bytes((key[0] ^ 0xFF,)) + key[1:]]
    return out


@needs_c
@pytest.mark.parametrize("codec", CODECS, ids=lambda c: f"table={c.options['table']}")
@given(values=_values, junk=st.binary(max_size=24))
def test_schemaless_c_paths_agree(codec: Sqlite4Codec, values: tuple[Any, ...],
                                  junk: bytes) -> None:
    want = _outcome(reference_encode, codec, values)
    _agree(_outcome(codec.encode, values), want, values)
    probes = [junk, codec.table_prefix + junk]
    if want[0] == "ok":
        probes += [want[1], *_mutations(want[1])]
    for key in probes:
        _agree(_outcome(codec.decode, key), _outcome(reference_decode, codec, key), key)


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: f"table={c.options['table']}")
@given(values=_values, junk=st.binary(max_size=24))
def test_schemaless_python_fast_paths_agree(codec: Sqlite4Codec, values: tuple[Any, ...],
                                            junk: bytes) -> None:
    encode, decode = sqlite4._fast_paths(codec, None)
    want = _outcome(reference_encode, codec, values)
    _agree(_outcome(encode, values), want, values)
    probes = [junk]
    if want[0] == "ok":
        probes += [want[1], *_mutations(want[1])]
    for key in probes:
        _agree(_outcome(decode, key), _outcome(reference_decode, codec, key), key)


SCHEMAS = [KeySchema.parse(s) for s in (
    "a:int64",
    "x:float64",
    "n:decimal",
    "a:int, b:string desc, c:bytes",
    "i:int8 desc, j:uint64, k:int32",
    "d:decimal desc, f:float64 desc, s:string",
    "t:string, y:bytes desc, z:bytes final=true",
)]


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: f"table={c.options['table']}")
@pytest.mark.parametrize("schema", SCHEMAS, ids=str)
@given(data=st.data())
def test_bound_fast_paths_agree(codec: Sqlite4Codec, schema: KeySchema,
                                data: st.DataObject) -> None:
    """C (when built) over the Python loop over the careful reading, against the careful
    reading alone."""
    bound = codec.bind(schema)
    typed = keys(schema, codec.capabilities, {"decimal": _numbers})
    values = data.draw(st.one_of(typed, st.lists(_scalars, min_size=len(schema),
                                                  max_size=len(schema)).map(tuple)))
    want = _outcome(bound.careful_encode, values)
    _agree(_outcome(bound.encode, values), want, values)
    junk = data.draw(junk_keys(schema, codec.capabilities, bound.careful_encode))
    probes = [junk]
    if want[0] == "ok":
        probes += [want[1], *_mutations(want[1])]
    for key in probes:
        _agree(_outcome(bound.decode, key), _outcome(bound.careful_decode, key), key)


@needs_c
def test_c_paths_are_in_use() -> None:
    """The partial objects really are the C functions (so the tests above test C)."""
    codec = Sqlite4Codec()
    bound = codec.bind("a:int64")
    assert bound.encode.func is C.sqlite4_encode  # type: ignore[attr-defined]
    assert bound.decode.func is C.sqlite4_decode  # type: ignore[attr-defined]
    assert codec.encode((1,)) == b"\x18\x02"


def test_decode_errors_keep_their_offsets_through_every_layer() -> None:
    codec = Sqlite4Codec()
    for schema in (None, "a:int"):
        with pytest.raises(DecodeError) as info:
            codec.decode(bytes.fromhex("18 01 02"), schema)
        assert info.value.offset == 1


def test_the_vectors_pass_in_pure_python() -> None:
    """The sqlite4 vector tests once more with LEXCODECS_PURE=1: the Python paths alone."""
    env = {**os.environ, "LEXCODECS_PURE": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-n", "0", "-p", "no:cacheprovider",
         "conformance/test_sqlite4_vectors.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    probe = subprocess.run(
        [sys.executable, "-c", "from lexcodecs.codecs import sqlite4; print(sqlite4._speedups())"],
        cwd=ROOT, env=env, capture_output=True, text=True)
    assert probe.stdout.strip() == "None"
