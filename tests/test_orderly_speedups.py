"""The orderly C fast paths never answer differently from the careful Python code.

lexcodecs._speedups reads and writes the structs whose fields it knows (var and fixed ints
without reserved bits, floats, strings, fixed byte arrays); decimals, variable-length byte
arrays and reserved bits stay in Python. When C answers, the answer must be the careful
path's, type for type and bit for bit, and it must never accept what the careful path
refuses. The vector suite also runs once with LEXCODECS_PURE=1.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexcodecs import KeySchema, LexCodecError
from lexcodecs.codecs import orderly
from lexcodecs.codecs.orderly import OrderlyCodec
from lexcodecs.testing.strategies import junk_keys, keys
from lexcodecs.types import Float32, Int32

ROOT = Path(__file__).resolve().parent.parent
C = orderly._speedups()
needs_c = pytest.mark.skipif(C is None, reason="the C extension is not built here")


def same(a: Any, b: Any) -> bool:
    """Equal values of the same type; floats by their bits."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b))
    return bool(a == b)


def _outcome(fn: Any, *args: Any) -> tuple[str, Any]:
    try:
        return "ok", fn(*args)
    except LexCodecError as exc:
        return "error", exc


def _agree(got: tuple[str, Any], want: tuple[str, Any], what: Any) -> None:
    assert got[0] == want[0], f"{what!r}: fast path {got}, reference {want}"
    if got[0] == "ok":
        assert same(got[1], want[1]), f"{what!r}: fast path {got[1]!r}, reference {want[1]!r}"


SCHEMAS = [KeySchema.parse(s) for s in (
    "x:int64",
    "a:int32 desc, b:uint64, c:uint32 desc",
    "s:string, n:int64, f:float64",
    "f:float32 desc, d:float64, s:string desc",
    "p:int64 encoding=fixed, q:uint32 encoding=fixed desc, r:int32 encoding=fixed",
    "b:bytes encoding=fixed length=3 desc, s:string desc termination=SHOULD_NOT",
    "u:uint64 encoding=fixed desc, t:string termination=MUST",
)]
# three of the six struct settings keep the run short; each order and termination is in
CODECS = [OrderlyCodec(struct_order=o, struct_termination=t)
          for o, t in (("asc", "AUTO"), ("desc", "MUST"), ("desc", "SHOULD_NOT"))]
_odd = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-(2**65), 2**65), st.floats(),
    st.text(max_size=4), st.binary(max_size=4), st.builds(Int32, st.integers(-5, 5)),
    st.floats(width=32).map(Float32), st.sampled_from(["\ud800", b"\x00\x01\x02"]))


@needs_c
@pytest.mark.parametrize("codec", CODECS, ids=lambda c: "{struct_order}-{struct_termination}"
                         .format(**c.options))
@pytest.mark.parametrize("schema", SCHEMAS, ids=str)
@given(data=st.data())
def test_c_paths_agree(codec: OrderlyCodec, schema: KeySchema, data: st.DataObject) -> None:
    bound = codec.bind(schema)
    assert isinstance(bound.encode, orderly.partial), "C is in use for this schema"
    overrides = {"b": st.binary(min_size=3, max_size=3)}
    typed = keys(schema, codec.capabilities, overrides, nullable=bound.nullable)
    values = data.draw(st.one_of(typed, st.lists(_odd, min_size=len(schema),
                                                  max_size=len(schema)).map(tuple)))
    want = _outcome(bound.careful_encode, values)
    _agree(_outcome(bound.encode, values), want, values)
    probes = [data.draw(junk_keys(schema, codec.capabilities, bound.careful_encode, overrides,
                                  nullable=bound.nullable))]
    if want[0] == "ok":
        key = want[1]
        probes += [key, key + b"\x00", key[:-1], key[:-1] + bytes((key[-1] ^ 1,)) if key
                   else b"\x01"]
    for key in probes:
        _agree(_outcome(bound.decode, key), _outcome(bound.careful_decode, key), key)


def test_python_keeps_what_c_does_not_know() -> None:
    codec = OrderlyCodec()
    for text in ("d:decimal", "b:bytes", "x:int32 reserved_bits=1 reserved_value=1"):
        bound = codec.bind(text)
        assert bound.encode == bound.careful_encode


def test_the_vectors_pass_in_pure_python() -> None:
    """The orderly vector tests once more with LEXCODECS_PURE=1: the Python paths alone."""
    env = {**os.environ, "LEXCODECS_PURE": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-n", "0", "-p", "no:cacheprovider",
         "conformance/test_orderly_vectors.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
