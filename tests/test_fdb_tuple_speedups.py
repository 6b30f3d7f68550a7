"""The C fast paths (lexcodecs._speedups) never answer differently from the Python code.

They may decline (answer None) whenever they like; when they answer, the answer must be the
one the reference Python methods give, bit for bit, and they must never accept a key the
Python code refuses. The Python fast paths are checked the same way, with the C code
switched off, and the whole fdb-tuple suite also runs once with LEXCODECS_PURE=1.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_fdb_tuple import same, values_st

from lexcodecs import DecodeError, KeySchema, LexCodecError
from lexcodecs.codecs import fdb_tuple
from lexcodecs.codecs.fdb_tuple import FdbTupleCodec

ROOT = Path(__file__).resolve().parent.parent
C = fdb_tuple.SPEEDUPS
needs_c = pytest.mark.skipif(C is None, reason="the C extension is not built here")
CODEC = FdbTupleCodec()
reference_encode = FdbTupleCodec.encode  # the class's methods never use the fast paths
reference_decode = FdbTupleCodec.decode
PY_ENCODE, PY_DECODE = fdb_tuple._fast_paths(CODEC, None)


def _reference(fn: Any, *args: Any) -> tuple[str, Any]:
    try:
        return "ok", fn(CODEC, *args)
    except LexCodecError as exc:
        return "error", exc


def _agrees(answer: Any, reference: tuple[str, Any]) -> None:
    if answer is None:
        return  # declined: the Python code answers
    kind, value = reference
    assert kind == "ok", f"fast path accepted what the reference refuses ({value}): {answer!r}"
    assert same(answer, value), (answer, value)


junk = st.one_of(st.binary(max_size=30),
                 values_st.map(lambda v: reference_encode(CODEC, v)).flatmap(
                     lambda k: st.integers(0, len(k)).map(lambda i: k[:i] + b"\xff" + k[i:])))


@needs_c
@given(values_st)
def test_c_encode_agrees(values: tuple[Any, ...]) -> None:
    _agrees(C.fdb_encode(values, False), _reference(reference_encode, values))


@needs_c
@given(values_st)
def test_c_decode_agrees_on_keys(values: tuple[Any, ...]) -> None:
    key = reference_encode(CODEC, values)
    _agrees(C.fdb_decode(key), _reference(reference_decode, key))


@needs_c
@given(junk)
def test_c_decode_agrees_on_junk(data: bytes) -> None:
    _agrees(C.fdb_decode(data), _reference(reference_decode, data))


@given(values_st)
def test_python_fast_paths_agree(values: tuple[Any, ...]) -> None:
    key = reference_encode(CODEC, values)
    assert PY_ENCODE(values) == key
    assert same(PY_DECODE(key), reference_decode(CODEC, key))


@given(junk)
def test_python_fast_decode_agrees_on_junk(data: bytes) -> None:
    kind, value = _reference(reference_decode, data)
    if kind == "ok":
        assert same(PY_DECODE(data), value)
    else:
        with pytest.raises(DecodeError):
            PY_DECODE(data)


SCHEMAS = [KeySchema.parse(t) for t in (
    "s:string, n:int64, f:float64, b:bool, y:bytes",
    "a:int8, b:uint8, c:int16, d:uint16, e:int32, f:uint32, g:uint64, h:int",
    "x:float32, u:uuid, t:tuple",
)]


def _schema_values(schema: KeySchema) -> st.SearchStrategy[tuple[Any, ...]]:
    from lexcodecs.testing import keys

    return keys(schema, CODEC.capabilities, {"tuple": values_st})


@needs_c
@pytest.mark.parametrize("schema", SCHEMAS, ids=str)
@given(data=st.data())
def test_bound_c_paths_agree(schema: KeySchema, data: st.DataObject) -> None:
    bound = CODEC.bind(schema)
    values = data.draw(st.one_of(_schema_values(schema), values_st))
    kind, key = ("ok", None)
    try:
        key = bound.careful_encode(values)
    except LexCodecError as exc:
        kind, key = "error", exc
    if kind == "ok":
        assert bound.encode(values) == key
        assert same(bound.decode(key), bound.careful_decode(key))
        mutated = key[:-1] + b"\x15" if key else b"\x15"
        probe = [mutated, key + b"\x00", key[:-1]]
    else:
        with pytest.raises(LexCodecError):
            bound.encode(values)
        probe = [data.draw(st.binary(max_size=20))]
    for raw in probe:
        try:
            want: tuple[str, Any] = ("ok", bound.careful_decode(raw))
        except DecodeError as exc:
            want = ("error", exc)
        if want[0] == "ok":
            assert same(bound.decode(raw), want[1])
        else:
            with pytest.raises(DecodeError):
                bound.decode(raw)


def test_the_suite_passes_in_pure_python() -> None:
    """The fdb-tuple and skv tests once more with LEXCODECS_PURE=1: the Python paths alone.

    The conformance classes are left out of this second run (they are the slow part, and
    the Python fast paths are held to the careful ones above, with C switched off)."""
    env = {**os.environ, "LEXCODECS_PURE": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-n", "0", "-p", "no:cacheprovider",
         "-k", "not Conformance",
         "tests/test_fdb_tuple.py", "conformance/test_fdb_tuple_vectors.py",
         "tests/test_skv_compiled.py", "conformance/test_skv_vectors.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    probe = subprocess.run(
        [sys.executable, "-c", "from lexcodecs.codecs import fdb_tuple; "
         "print(fdb_tuple.SPEEDUPS)"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert probe.stdout.strip() == "None"
