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


# -- the compiled bound encode agrees with the careful one ----------------------------------

import pytest  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from lexcodecs import KeySchema, LexCodecError  # noqa: E402
from lexcodecs.testing import keys  # noqa: E402

COMPILED = [KeySchema.parse(t) for t in (
    "tenant:string, ts:int64, id:uuid, score:float64, flag:bool",
    "a:int8, b:uint8, c:int16, d:uint16, e:int32, f:uint32, g:uint64, h:int, y:bytes",
)]
ANY_VALUE = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=3),
                      st.binary(max_size=3), st.uuids())


@pytest.mark.parametrize("name", ["lexkey", "lexkey-legacy"])
@pytest.mark.parametrize("schema", COMPILED, ids=str)
@given(data=st.data())
def test_compiled_encode_agrees_with_careful(name: str, schema: KeySchema,
                                            data: st.DataObject) -> None:
    codec = get_codec(name)
    bound = codec.bind(schema)
    values = data.draw(st.one_of(
        keys(schema, codec.capabilities),
        st.tuples(*[ANY_VALUE for _ in schema.fields]),  # wrong kinds, out of range, NaN...
    ))
    try:
        want = bound.careful_encode(values)
    except LexCodecError as exc:
        with pytest.raises(type(exc)):
            bound.encode(values)
    else:
        assert bound.encode(values) == want
