"""LexKey under the conformance harness: order-preserving where the format is (fixed-width
parts), and every departure elsewhere explained by a declared anomaly that really happens."""

from __future__ import annotations

from lexcodecs import get_codec
from lexcodecs.testing import CodecConformance

FIXED_WIDTH = (
    "ts:int64, id:uuid, score:float64, flag:bool",
    "a:int8, b:uint16, c:int32, d:uint64",
    "t:timestamp, d:duration, f:float32",
)
WITH_STRINGS = (
    "tenant:string, ts:int64",
    "s:string, t:string",
    "b:bytes, n:int",
)


class TestLexKeyConformance(CodecConformance):
    codec = get_codec("lexkey")
    schemas = FIXED_WIDTH + WITH_STRINGS


class TestLexKeyLegacyConformance(CodecConformance):
    codec = get_codec("lexkey-legacy")
    schemas = FIXED_WIDTH + WITH_STRINGS


class TestLexKeyGoNaNConformance(CodecConformance):
    """nan='go' changes the capabilities (one more anomaly); the rest must still hold."""

    codec = get_codec("lexkey", nan="go")
    schemas = ("ts:int64, score:float64",)


# the compiled and the reference implementation agree, errors alike, on every type and on
# values of the wrong kind, out of range, NaN, subclasses and tampered objects:
# tests/test_lexkey_differential.py
