"""``skv``: the compiled engine and the reference code give the same answers (issue 14).

:class:`~lexcodecs.testing.DifferentialConformance` runs every operation of a bound schema
under both implementations on valid and hostile values and keys, and checks the compiled path
is in use. What is K2's own is here: schemas with the partition/range split (``key=range``),
the K2 helpers (``partition_key``, ``range_key``, ``storage_key``, ``storage_prefix_range``,
``decode_storage_key``, ``split_storage_key``, ``encode_field``) run beside the other
operations, and the values that must be read for what they are or must hand over.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import strategies as st

from lexcodecs import KeySchema, LexCodecError, _impl
from lexcodecs.codec import Codec
from lexcodecs.codecs.skv import SkvCodec
from lexcodecs.codecs.skv import format as skv_format
from lexcodecs.testing import DifferentialConformance
from lexcodecs.testing.differential import COMPARED, Operation, both
from lexcodecs.testing.hostile import (
    Colour,
    Liar,
    MyBytes,
    MyFloat,
    MyInt,
    MyStr,
    tampered_float32,
    unset_float32,
)
from lexcodecs.types import Float32, Int16

CODEC = SkvCodec()
TYPES = sorted(CODEC.capabilities.field_types)
INT_TYPES = [t for t in TYPES if "int" in t]

#: storage-key schema names: K2 takes str and bytes; the rest must be refused alike
NAMES = st.one_of(st.sampled_from(["orders", "", b"t", "a\x00", b"\x00", "\ud800", 7]),
                  st.text(max_size=4), st.binary(max_size=4))


#: field spec -> valid exact-type values, which must stay on the compiled path
VALID: dict[str, list[Any]] = {
    "string": ["", "acme", "a\x00b\x00", "\U0010ffff" * 3],
    "bytes": [b"", b"\x00", b"\xff\x00\x01", bytearray(b"ba\x00")],
    "bool": [True, False],
    "float32": [Float32(0.1), Float32(-0.0), Float32(math.inf), -2.5, 0.0, 3, -(2**24)],
    "float64": [0.1, -0.0, -math.inf, 5e-324, 1e308, 7, -(2**53)],
    **{t: [skv_format.FORMATS[t].lo, skv_format.FORMATS[t].hi, 0, 1,
           skv_format.FORMATS[t].hi // 3] for t in INT_TYPES},
}


class TestSkvDifferential(DifferentialConformance):
    codec = CODEC
    example_share = 0.8
    extra_odd_values = (Int16(-3),)
    odd_keys = ("0a000001", b"\x0a\x01\x00\x01")
    notable_bytes = (0x00, 0x01, 0x02, 0x03, 0xFC, 0xFD, 0xFE, 0xFF)
    context = (("s:string", "acme\x00"), ("n:int64 key=range", -5))
    valid_values = VALID
    compared_operations = COMPARED | {"partition_key", "range_key", "storage_key",
                                      "decode_storage_key", "split_storage_key", "encode_field"}

    def schemas(self, codec: Codec, subject: str) -> st.SearchStrategy[KeySchema]:
        """1..4 fields, one of them *subject*; every order and NULL placement; the fields
        after a drawn split are K2's range key."""
        @st.composite
        def draw(draw: st.DrawFn) -> KeySchema:
            n = draw(st.integers(1, 4))
            at = draw(st.integers(0, n - 1))
            split = draw(st.integers(1, n))
            fields = []
            for i in range(n):
                text = f"f{i}:{subject if i == at else draw(st.sampled_from(TYPES))}"
                if draw(st.booleans()):
                    text += " desc"
                text += draw(st.sampled_from(["", " nulls first", " nulls last"]))
                if i >= split:
                    text += " key=range"
                fields.append(text)
            return KeySchema.parse(", ".join(fields))
        return draw()

    def extra_encode_operations(self, codec: Codec, schema: KeySchema, values: Any, k: int,
                                data: st.DataObject | None = None) -> list[Operation]:
        name = "t" if data is None else data.draw(NAMES, label="schema name")
        first = values[0] if isinstance(values, (tuple, list)) and values else None
        prefix = values[:k] if isinstance(values, (tuple, list)) else values
        return [
            ("partition_key", lambda: codec.bind(schema).partition_key(values)),
            ("range_key", lambda: codec.bind(schema).range_key(values)),
            ("storage_key", lambda: codec.bind(schema).storage_key(name, values)),
            ("storage_prefix_range",
             lambda: codec.bind(schema).storage_prefix_range(name, prefix)),
            ("encode_field", lambda: codec.encode_field(first, schema.fields[0])),
        ]

    def extra_decode_operations(self, codec: Codec, schema: KeySchema, key: Any,
                                data: st.DataObject | None = None) -> list[Operation]:
        if not isinstance(key, bytes):
            return []
        storage = b"name\x00\x01" + key
        return [
            ("decode_storage_key", lambda: codec.bind(schema).decode_storage_key(storage)),
            ("split_storage_key", lambda: codec.bind(schema).split_storage_key(storage)),
        ]

    def test_odd_values_do_hand_over(self) -> None:
        self.require_compiled()
        _impl.HANDOVERS.clear()
        with _impl.use("compiled"):
            bound = CODEC.bind("n:int32")
            assert bound.encode((MyInt(1),)) == bound.encode((1,))  # handed over: same bytes
            for v in (True, 2**40):
                with pytest.raises(LexCodecError):
                    bound.encode((v,))
            with pytest.raises(LexCodecError):
                bound.decode(b"\x03\x03\x00")
        assert _impl.HANDOVERS["skv"] == 4


def test_tampered_float32_is_read_by_its_value() -> None:
    good = CODEC.encode((Float32(1.5),), "x:float32")
    for bits in ("x", 2**200, -1, 0x7FC00000, 0):
        assert both(lambda bits=bits: CODEC.encode((tampered_float32(bits),), "x:float32")) \
            == ("ok", good)
    refused = both(lambda: CODEC.encode((unset_float32(),), "x:float32"))
    assert refused[0] == "error"
    assert "binary32" in refused[2]


def test_subclasses_are_read_for_what_they_are() -> None:
    assert both(lambda: CODEC.encode((MyStr("hi"),), "x:string")) == \
        ("ok", CODEC.encode(("hi",), "x:string"))
    assert both(lambda: CODEC.encode((MyBytes(b"a"),), "x:bytes")) == \
        ("ok", CODEC.encode((b"a",), "x:bytes"))
    assert both(lambda: CODEC.encode((MyFloat(2.5),), "x:float64")) == \
        ("ok", CODEC.encode((2.5,), "x:float64"))
    assert both(lambda: CODEC.encode((Colour.RED,), "x:int32")) == \
        ("ok", CODEC.encode((1,), "x:int32"))
    liar = Liar()
    assert both(lambda: CODEC.encode((liar,), "x:int32"))[1].__name__ == \
        "UnsupportedTypeError"
