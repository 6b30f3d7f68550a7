"""The compiled bound paths of skv answer exactly as the careful ones: the same bytes, the
same values, the same refusals, on keys, on near-keys and on junk."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexcodecs import DecodeError, KeySchema, LexCodecError, get_codec
from lexcodecs.testing import identical, keys

CODEC = get_codec("skv")
SCHEMAS = [KeySchema.parse(t) for t in (
    "tenant:string, ts:int64, id:string, flag:bool",
    "a:int16 nulls last, b:uint32, c:float64, d:bytes nulls last, e:float32",
    "a:int32 desc, b:string desc nulls first, c:uint64",
)]
ANY_VALUE = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=3),
                      st.binary(max_size=3))


@pytest.mark.parametrize("schema", SCHEMAS, ids=str)
@given(data=st.data())
def test_compiled_paths_agree_with_careful(schema: KeySchema, data: st.DataObject) -> None:
    bound = CODEC.bind(schema)
    values = data.draw(st.one_of(keys(schema, CODEC.capabilities),
                                 st.tuples(*[ANY_VALUE for _ in schema.fields])))
    try:
        key = bound.careful_encode(values)
    except LexCodecError as exc:
        with pytest.raises(type(exc)):
            bound.encode(values)
        return
    assert bound.encode(values) == key
    at = data.draw(st.integers(0, len(key)))
    byte = data.draw(st.integers(0, 255))
    for raw in (key, key[:at], key[:at] + bytes((byte,)) + key[at:],
                key[:at] + bytes((byte,)) + key[at + 1:], data.draw(st.binary(max_size=24))):
        try:
            want: Any = bound.careful_decode(raw)
        except DecodeError:
            with pytest.raises(DecodeError):
                bound.decode(raw)
        else:
            assert identical(want, bound.decode(raw))
